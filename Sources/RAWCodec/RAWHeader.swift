import CodecCore
import JPEGCodec
import Raster
import TIFFCodec

/// What a sheet needs to know about a camera RAW before LibRaw sees a byte of it: the picture's
/// size and orientation, its embedded JPEG previews (where they lie and how large they are), and
/// the sensor's size, which bounds what a demosaic would allocate.
///
/// - TIFF-structured RAWs (DNG, CR2, NEF, NRW, ARW, SR2, PEF, ERF, 3FR, IIQ, and ORF and RW2 under
///   their own magic numbers) are read by Masonry's own directory walk (`TIFFStructure`, TIFF's
///   bounded reader): IFD0's chain and every SubIFD, at most `maxDirectories` of them, a directory
///   met twice refusing the file. The size is the largest sensor directory's (CFA or linear raw,
///   the DNG way; its ActiveArea when it has one, as LibRaw crops; stretched square by its
///   DefaultScale when its pixels are not, as LibRaw stretches), else the largest preview's; the orientation is IFD0's Orientation, the one
///   LibRaw reads as its `flip`. Each JPEG preview (JPEGInterchangeFormat and its length, or a
///   one-strip JPEG-compressed directory that is not the sensor) must lie inside the file, else
///   the file is refused; its size comes from its own JPEG frame header (a lossless JPEG, a CR2's
///   sensor data, is not a preview).
/// - RAF: the JPEG preview's offset and length from the RAF header (bytes 84–91), the size and
///   orientation from LibRaw (`RAWLibrary.metadata`: the picture it makes, a SuperCCD's
///   diagonal sensor turned upright), which reads the whole file in memory.
/// - CR3: Masonry's own walk of its boxes (`CR3Layout`): its thumbnail, its 1620×1080 preview and
///   its full-size JPEG, whose size is the picture's; CMT1's orientation. Without a JPEG it can
///   read, LibRaw's metadata.
/// - Every other container LibRaw opens: LibRaw's metadata only, no preview (the demosaic draws
///   them).
/// Previews whose shape is not the picture's (a letterboxed thumbnail) are left out.
public struct RAWHeader: Sendable, Hashable {
    /// The picture's stored size (before `orientation`), in square pixels: the size of what is drawn.
    public let width: Int
    public let height: Int
    /// The camera's orientation (IFD0's Orientation, LibRaw's `flip`), not the previews'.
    public let orientation: ExifOrientation
    /// The embedded JPEG previews with the picture's shape, in the order they were found.
    public let previews: [RAWPreview]
    /// The sensor's pixels (0 when the header does not say): what a demosaic unpacks.
    public let sensorPixels: Int
    /// Which container the file is.
    public let container: RAWContainer

    /// The most image directories the walk reads.
    public static let maxDirectories = 64
    /// The largest RAW file read (LibRaw is handed the whole file in memory to demosaic it).
    public static let maxFileBytes = 512 << 20
    /// How many leading bytes detection needs: IFD0 of a TIFF-structured RAW and its Make.
    public static let signaturePrefixBytes = 4096

    /// Tags the walk reads.
    enum Tag {
        static let newSubfileType: UInt16 = 254, imageWidth: UInt16 = 256, imageLength: UInt16 = 257
        static let compression: UInt16 = 259, photometric: UInt16 = 262, make: UInt16 = 271, stripOffsets: UInt16 = 273
        static let orientation: UInt16 = 274, stripByteCounts: UInt16 = 279, subIFDs: UInt16 = 330
        static let jpegInterchangeFormat: UInt16 = 513, jpegInterchangeFormatLength: UInt16 = 514
        static let cfaPattern: UInt16 = 33422, dngVersion: UInt16 = 50706, defaultScale: UInt16 = 50718, activeArea: UInt16 = 50829
    }
    /// Photometric interpretations of sensor data (DNG): colour filter array, linear raw.
    static let sensorPhotometrics: Set<UInt64> = [32803, 34892]

    /// The Make tag's leading words of the cameras whose TIFF-structured files are RAWs (their
    /// IFD0 is a thumbnail or the sensor data, not the picture).
    static let rawMakers = ["canon", "nikon", "sony", "pentax", "ricoh", "olympus", "om digital", "panasonic", "leica",
                            "fujifilm", "samsung", "hasselblad", "phase one", "leaf", "mamiya", "kodak", "minolta",
                            "konica minolta", "sigma", "epson", "sinar", "imacon"]

    /// The container `prefix` (a file's first bytes, up to `signaturePrefixBytes`) is, or nil
    /// when it is no RAW: a TIFF whose IFD0 is neither DNG's nor a RAW maker's thumbnail or
    /// sensor directory stays a TIFF.
    public static func container(prefix: [UInt8]) -> RAWContainer? {
        // Every file of a folder's header pass is asked: the signatures are compared in place.
        let start = prefix.prefix(16)
        func has(_ text: StaticString, at offset: Int = 0) -> Bool {
            start.count >= offset + text.utf8CodeUnitCount
                && text.withUTF8Buffer { start.dropFirst(offset).starts(with: $0) }
        }
        if has("FUJIFILMCCD-RAW") { return .raf }
        if has("ftyp", at: 4) && has("crx ", at: 8) { return .cr3 }
        if has("IIRO") || has("IIRS") || has("MMOR") { return .tiffStructured }
        if start.starts(with: [0x49, 0x49, 0x55, 0x00]) { return .tiffStructured }   // RW2, RWL
        guard TIFFHeader.hasSignature(start), !start.starts(with: [0x49, 0x49, 0x2B]), !start.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) else {
            return nil
        }
        if start.count >= 10, start[8] == 0x43, start[9] == 0x52 { return .tiffStructured }   // CR2's "CR"
        if has("IIII", at: 8) { return .tiffStructured }   // Phase One IIQ
        guard var tiff = try? TIFFStructure(WindowedReader(bytes: prefix)),
              let first = try? tiff.directory(at: tiff.firstDirectory) else { return nil }
        if first.contains(Tag.dngVersion) { return .tiffStructured }
        guard let make = try? tiff.text(Tag.make, in: first)?.lowercased(),
              rawMakers.contains(where: { make.hasPrefix($0) }) else { return nil }
        // A maker's TIFF whose IFD0 is its picture stays a TIFF; a RAW's IFD0 is a thumbnail
        // (NewSubfileType 1), the sensor (CFA), or points to the sensor in a SubIFD.
        let subfile = (try? tiff.integer(Tag.newSubfileType, in: first)) ?? 0
        let photometric = (try? tiff.integer(Tag.photometric, in: first)) ?? 0
        let isRAW = subfile & 1 == 1 || first.contains(Tag.subIFDs) || first.contains(Tag.cfaPattern)
            || sensorPhotometrics.contains(photometric)
        return isRAW ? .tiffStructured : nil
    }

    /// Reads the header of an open file with positioned reads.
    public init(file: InputFile) throws(ImageError) {
        var prefix = [UInt8](repeating: 0, count: Self.signaturePrefixBytes)
        prefix.removeLast(Self.signaturePrefixBytes - (try file.readPrefix(into: &prefix)))
        guard let container = Self.container(prefix: prefix) else { throw ImageError(.malformed, "not a camera RAW file") }
        switch container {
        case .tiffStructured:
            try self.init(tiff: WindowedReader(file: file), jpegSize: { range throws(ImageError) in
                let jpeg = try JPEGHeader(file: file, range: range)
                return (jpeg.width, jpeg.height)
            }, libRawMetadata: { () throws(ImageError) in
                file.size > Self.maxFileBytes ? try Self.tooLarge(file.size) : try RAWLibrary.metadata(of: file)
            })
        case .cr3:
            try self.init(cr3: CR3Layout(WindowedReader(file: file)), fileSize: file.size, jpegSize: { range throws(ImageError) in
                let jpeg = try JPEGHeader(file: file, range: range)
                return (jpeg.width, jpeg.height)
            }, libRawMetadata: { () throws(ImageError) in
                file.size > Self.maxFileBytes ? try Self.tooLarge(file.size) : try RAWLibrary.metadata(of: file)
            })
        case .raf:
            try self.init(file.size > Self.maxFileBytes ? Self.tooLarge(file.size) : RAWLibrary.metadata(of: file), container: container,
                          preview: try Self.rafPreview(WindowedReader(file: file), file: file))
        }
    }

    /// Reads the header of a TIFF-structured RAW or a CR3 held in memory (the fuzz target's
    /// entry; without LibRaw, a file whose size only LibRaw would give is refused).
    public init(bytes: [UInt8]) throws(ImageError) {
        let jpegSize = { (range: Range<Int>) throws(ImageError) -> (width: Int, height: Int) in
            let jpeg = try JPEGHeader(bytes: Array(bytes[range]))
            return (jpeg.width, jpeg.height)
        }
        switch Self.container(prefix: Array(bytes.prefix(Self.signaturePrefixBytes))) {
        case .tiffStructured: try self.init(tiff: WindowedReader(bytes: bytes), jpegSize: jpegSize, libRawMetadata: nil)
        case .cr3: try self.init(cr3: CR3Layout(WindowedReader(bytes: bytes)), fileSize: bytes.count, jpegSize: jpegSize, libRawMetadata: nil)
        case .raf, nil: throw ImageError(.malformed, "not a TIFF-structured or CR3 camera RAW file")
        }
    }

    /// A CR3's header from Masonry's own walk (`CR3Layout`): the size of its largest JPEG (the
    /// camera's full-size one), CMT1's orientation, its previews. Without a JPEG Masonry can
    /// read, LibRaw's metadata gives size and orientation, and the demosaic draws it.
    private init(cr3 layout: CR3Layout, fileSize: Int, jpegSize: (Range<Int>) throws(ImageError) -> (width: Int, height: Int),
                 libRawMetadata: (() throws(ImageError) -> RAWMetadata)?) throws(ImageError) {
        let found = try Self.previews(at: layout.jpegs, fileSize: fileSize, jpegSize: jpegSize)
        container = .cr3
        guard let largest = found.max(by: { $0.width * $0.height < $1.width * $1.height }) else {
            guard let libRawMetadata else { throw ImageError(.unsupported, "CR3 file has no JPEG preview Masonry can read") }
            let metadata = try libRawMetadata()
            width = metadata.width
            height = metadata.height
            orientation = metadata.orientation
            sensorPixels = metadata.sensorPixels
            previews = []
            return
        }
        width = largest.width
        height = largest.height
        orientation = layout.orientation ?? .up
        sensorPixels = layout.sensorPixels
        previews = Self.sameShape(found, width: width, height: height)
    }

    /// The JPEG previews at `ranges` (offset, length), in order, each range once: one past the
    /// end of the file refuses it; one that is no JPEG whose frame header `jpegSize` reads is
    /// left out.
    static func previews(at ranges: [(offset: UInt64, length: UInt64)], fileSize: Int,
                         jpegSize: (Range<Int>) throws(ImageError) -> (width: Int, height: Int)) throws(ImageError) -> [RAWPreview] {
        var previews: [RAWPreview] = []
        let fileSize = UInt64(fileSize)
        for (start, length) in ranges where length > 0 && !previews.contains(where: { $0.offset == Int(clamping: start) }) {
            guard length <= fileSize, start <= fileSize - length else {
                throw ImageError(.malformed, "RAW preview at offset \(start) claims \(length) bytes, past the end of the file (\(fileSize) bytes)")
            }
            let range = Int(start) ..< Int(start + length)
            guard let size = try? jpegSize(range), size.width > 0, size.height > 0 else { continue }
            previews.append(RAWPreview(offset: range.lowerBound, length: range.count, width: size.width, height: size.height))
        }
        return previews
    }

    /// The previews with the picture's shape, within 2 %: a thumbnail letterboxed into another
    /// shape (Canon's 160×120 of a 3:2 picture, black bars above and below) or a crop is never
    /// drawn into the picture's tile.
    static func sameShape(_ previews: [RAWPreview], width: Int, height: Int) -> [RAWPreview] {
        previews.filter { preview in
            let previewAspect = Double(preview.width) / Double(preview.height), aspect = Double(width) / Double(height)
            return abs(previewAspect - aspect) <= 0.02 * aspect
        }
    }

    private static func tooLarge(_ size: Int) throws(ImageError) -> RAWMetadata {
        throw ImageError(.limitExceeded, "RAW file of \(size) bytes is over the \(maxFileBytes)-byte limit")
    }

    /// The walk over a TIFF-structured RAW's directories; `jpegSize` reads a preview's frame
    /// header. A file in which the walk finds neither a sensor directory nor a preview (a maker's
    /// own size tags: RW2's, a CR2's sensor in lossless JPEG) takes its size and orientation from
    /// `libRawMetadata`, when there is one (not for bytes in memory).
    private init(tiff windowed: WindowedReader, jpegSize: (Range<Int>) throws(ImageError) -> (width: Int, height: Int),
                 libRawMetadata: (() throws(ImageError) -> RAWMetadata)?) throws(ImageError) {
        var tiff = try TIFFStructure(windowed, magics: [TIFFStructure.tiffMagic, 0x4F52, 0x5352, 0x55])
        guard tiff.firstDirectory != 0 else { throw ImageError(.malformed, "RAW file has no image directory") }
        var pending: [UInt64] = [tiff.firstDirectory]
        var visited: Set<UInt64> = []
        var first: TIFFDirectory?
        var sensor: (width: Int, height: Int)?
        var sensorScale: [Double]?
        var previewRanges: [(offset: UInt64, length: UInt64)] = []
        while let offset = pending.popLast() {
            guard visited.count < Self.maxDirectories else {
                throw ImageError(.malformed, "RAW file has more than \(Self.maxDirectories) image directories")
            }
            guard visited.insert(offset).inserted else {
                throw ImageError(.malformed, "loop in the RAW file's image directories (directory \(visited.count + 1) points back to an earlier one)")
            }
            let directory = try tiff.directory(at: offset)
            if first == nil { first = directory }
            if directory.next != 0 { pending.insert(directory.next, at: 0) }
            if let subs = try tiff.integers(Tag.subIFDs, in: directory, limit: 16) { pending.append(contentsOf: subs.reversed()) }

            let photometric = try tiff.integer(Tag.photometric, in: directory)
            if let photometric, Self.sensorPhotometrics.contains(photometric),
               let w = try tiff.integer(Tag.imageWidth, in: directory), let h = try tiff.integer(Tag.imageLength, in: directory),
               w > 0, h > 0, w <= UInt64(UInt32.max), h <= UInt64(UInt32.max) {
                // DNG's ActiveArea (top, left, bottom, right): the pixels LibRaw keeps.
                var size = (width: Int(w), height: Int(h))
                if let area = try tiff.integers(Tag.activeArea, in: directory, limit: 4), area.count == 4,
                   area[0] < area[2], area[1] < area[3], area[2] <= h, area[3] <= w {
                    size = (Int(area[3] - area[1]), Int(area[2] - area[0]))
                }
                if sensor == nil || Self.pixels(size) > Self.pixels(sensor!) {
                    sensor = size
                    sensorScale = try tiff.reals(Tag.defaultScale, in: directory, limit: 2)
                }
                continue
            }
            if let start = try tiff.integer(Tag.jpegInterchangeFormat, in: directory),
               let length = try tiff.integer(Tag.jpegInterchangeFormatLength, in: directory) {
                previewRanges.append((start, length))
            }
            let compression = try tiff.integer(Tag.compression, in: directory)
            if compression == 6 || compression == 7,
               let offsets = try tiff.integers(Tag.stripOffsets, in: directory, limit: 2), offsets.count == 1,
               let counts = try tiff.integers(Tag.stripByteCounts, in: directory, limit: 2), counts.count == 1 {
                previewRanges.append((offsets[0], counts[0]))
            }
        }
        let previews = try Self.previews(at: previewRanges, fileSize: tiff.size, jpegSize: jpegSize)
        guard let first else { throw ImageError(.malformed, "RAW file has no image directory") }
        let largest = previews.max { $0.width * $0.height < $1.width * $1.height }
        container = .tiffStructured
        guard let shown = try sensor.map({ size throws(ImageError) in try Self.squared(size, defaultScale: sensorScale) })
                ?? largest.map({ ($0.width, $0.height) }) else {
            guard let libRawMetadata else {
                throw ImageError(.unsupported, "RAW file has neither a sensor image directory nor a JPEG preview Masonry can read")
            }
            let metadata = try libRawMetadata()
            width = metadata.width
            height = metadata.height
            orientation = metadata.orientation
            sensorPixels = metadata.sensorPixels
            self.previews = previews
            return
        }
        width = shown.0
        height = shown.1
        self.previews = Self.sameShape(previews, width: width, height: height)
        let orientationTag = (try? tiff.integer(Tag.orientation, in: first)) ?? nil
        orientation = ExifOrientation(rawValue: Int(clamping: orientationTag ?? 1)) ?? .up
        sensorPixels = sensor.map(Self.pixels) ?? 0
    }

    /// The picture LibRaw makes of a `sensor` whose pixels DNG's DefaultScale (horizontal,
    /// vertical) says are not square: stretched square along one side, with LibRaw's arithmetic
    /// (its pixel aspect is the scales' ratio in `float`; within 0.5 % of 1 it is 1; a side is
    /// rounded to a 16-bit count). A ratio outside 0.1–10, which LibRaw refuses to demosaic,
    /// leaves the size as it is; a side stretched past 65,535 pixels, which LibRaw would wrap,
    /// refuses the file.
    static func squared(_ sensor: (width: Int, height: Int), defaultScale: [Double]?) throws(ImageError) -> (width: Int, height: Int) {
        guard let scales = defaultScale, scales.count == 2 else { return sensor }
        let horizontal = Float(scales[0]), vertical = Float(scales[1])
        guard horizontal > 0.00001, vertical > 0.00001 else { return sensor }
        let aspect = Double(horizontal / vertical)
        guard aspect >= 0.1, aspect <= 10 else { return sensor }
        var shown = sensor
        if aspect < 0.995 { shown.height = Int((Double(sensor.height) / aspect + 0.5).rounded(.down)) }
        if aspect > 1.005 { shown.width = Int((Double(sensor.width) * aspect + 0.5).rounded(.down)) }
        guard shown.width <= Int(UInt16.max), shown.height <= Int(UInt16.max) else {
            throw ImageError(.unsupported, "RAW picture stretched square by its DefaultScale would be \(shown.width)×\(shown.height), over LibRaw's 65,535 pixels a side")
        }
        return shown
    }

    /// A sensor directory's pixels, saturated at `Int.max`: each side may be up to 2³² − 1, and
    /// such a product overflows (the limits refuse the size; the header must read it first).
    static func pixels(_ size: (width: Int, height: Int)) -> Int {
        let (product, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        return overflow ? .max : product
    }

    /// A header from LibRaw's metadata, with the preview Masonry found itself.
    private init(_ metadata: RAWMetadata, container: RAWContainer, preview: RAWPreview?) throws(ImageError) {
        width = metadata.width
        height = metadata.height
        orientation = metadata.orientation
        previews = Self.sameShape(preview.map { [$0] } ?? [], width: metadata.width, height: metadata.height)
        sensorPixels = metadata.sensorPixels
        self.container = container
    }

    /// A RAF's JPEG preview: its offset and length, big-endian at bytes 84 and 88.
    private static func rafPreview(_ reader: WindowedReader, file: InputFile) throws(ImageError) -> RAWPreview? {
        var reader = reader
        let fields = Array(try reader.bytes(at: 84, count: 8))
        guard fields.count == 8 else { throw ImageError(.malformed, "truncated RAF header") }
        let start = fields[0 ..< 4].reduce(0) { $0 << 8 | Int($1) }, length = fields[4 ..< 8].reduce(0) { $0 << 8 | Int($1) }
        guard length > 0 else { return nil }
        guard length <= file.size, start <= file.size - length else {
            throw ImageError(.malformed, "RAW preview at offset \(start) claims \(length) bytes, past the end of the file (\(file.size) bytes)")
        }
        guard let jpeg = try? JPEGHeader(file: file, range: start ..< start + length) else { return nil }
        return RAWPreview(offset: start, length: length, width: jpeg.width, height: jpeg.height)
    }

    /// The bytes a half-size demosaic holds at once: the file (LibRaw reads it from memory),
    /// the unpacked sensor (2 bytes a pixel), LibRaw's half-size working image (8 bytes a
    /// quarter pixel) and its RGB8 copy. Saturates.
    public func demosaicBytes(fileSize: Int) -> Int {
        let shown = Self.pixels((width, height))
        let sensor = sensorPixels > 0 ? sensorPixels : shown
        // A picture stretched square (pixels not square) adds its stretched working image and RGB8 copy.
        let stretched = shown > sensor ? Self.pixels((shown - sensor, 3)) : 0
        let (work, overflow) = sensor.multipliedReportingOverflow(by: 5)
        let (whole, sumOverflow) = work.addingReportingOverflow(stretched)
        guard !overflow, !sumOverflow, !fileSize.addingReportingOverflow(whole).overflow else { return .max }
        return fileSize + whole
    }

    /// How a tile that needs at least `target` (stored orientation) is drawn.
    public func source(for target: DecodeTarget) -> RAWSource {
        Self.source(previewSizes: previews.map { ($0.width, $0.height) }, target: target)
    }

    /// The rule, on the previews' sizes alone (the manifest's copy of the header keeps only
    /// those): the smallest preview at least twice the tile on both sides, else the demosaic.
    public static func source(previewSizes: [(width: Int, height: Int)], target: DecodeTarget) -> RAWSource {
        let indexed = Array(previewSizes.enumerated())
        if let chosen = target.smallestAccepted(indexed, size: { $0.element }) { return .preview(index: chosen.offset) }
        return .demosaic
    }
}

/// Which container a RAW file is.
public enum RAWContainer: Sendable, Hashable {
    /// TIFF's directories (with TIFF's magic number or a maker's): Masonry's own walk.
    case tiffStructured
    /// Fujifilm's RAF.
    case raf
    /// Canon's CR3 (ISOBMFF, brand `crx `).
    case cr3
}

/// An embedded JPEG preview: where its bytes lie in the file, and its size.
public struct RAWPreview: Sendable, Hashable {
    public let offset: Int
    public let length: Int
    public let width: Int
    public let height: Int
    public var range: Range<Int> { offset ..< offset + length }
}

/// Where a tile's pixels come from.
public enum RAWSource: Sendable, Hashable {
    /// The embedded JPEG preview at this index of `RAWHeader.previews`.
    case preview(index: Int)
    /// LibRaw's half-size demosaic of the sensor data.
    case demosaic

    /// The manifest's word: "preview" or "demosaic".
    public var manifestName: String {
        switch self {
        case .preview: "preview"
        case .demosaic: "demosaic"
        }
    }
}
