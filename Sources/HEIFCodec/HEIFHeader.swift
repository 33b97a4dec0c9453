import CodecCore
import Raster

/// Which of the two formats a HEIF-family file holds: told apart by the coding of its primary
/// image (HEVC or AV1), which the brands announce.
public enum HEIFFormat: String, Sendable, Hashable {
    case heif = "HEIF"
    case avif = "AVIF"

    /// The brands of HEVC-coded still images and sequences.
    static let heifBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "mif2", "miaf"]
    /// The brands that name HEVC coding (the others name only the structure).
    static let hevcBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]
    /// The brands of AV1-coded still images and sequences.
    static let avifBrands: Set<String> = ["avif", "avis"]
}

/// The `nclx` colour code points of a `colr` box (ITU-T H.273).
public struct HEIFColourCodePoints: Sendable, Hashable {
    public let primaries: Int, transfer: Int, matrix: Int
    public let fullRange: Bool
}

/// A thumbnail item of the primary image (`thmb` reference), and whether it can stand in for it.
public struct HEIFThumbnail: Sendable, Hashable {
    public let itemID: Int
    /// Displayed size (its own transformations applied).
    public let width: Int, height: Int
    /// The displayed aspect ratio is the primary image's, within two pixels of the thumbnail
    /// (encoders round a thumbnail's sides to even numbers).
    public let aspectMatches: Bool
    /// Its rotations, mirrors and crops are of the same kinds and in the same order as the primary image's.
    public let transformationsMatch: Bool
    /// Its `colr` boxes are byte for byte the primary image's.
    public let profileMatches: Bool
    /// It has an alpha plane exactly when the primary image has one.
    public let alphaMatches: Bool

    /// Every size libheif allocates for while decoding it.
    let decodedSizes: [PixelSize]
    /// Coded in AV1 (else HEVC).
    let isAV1: Bool
    /// Coded as luma alone (4:0:0).
    let isMonochrome: Bool

    /// True when decoding it in place of the primary image shows the same picture.
    public var canStandIn: Bool { aspectMatches && transformationsMatch && alphaMatches }
}

/// The file as the bridge's reader shows it to libheif, where libheif 1.15 would refuse a file
/// Masonry reads: four-byte `overlays` over the file's bytes, and `appended` bytes as if they
/// followed its last byte. No byte of the file changes. Two uses:
/// - a file whose `iden` items have no `iloc` entry: its meta box is renamed `free` and a copy
///   with empty entries appended (`HEIFMeta.locatingDerivations`);
/// - a sequence whose brands name no still-image structure libheif knows (`avis`, `msf1`,
///   `miaf`) but which holds a still primary item: its first compatible brand reads `mif1`.
struct LibheifView: Sendable, Hashable {
    struct Overlay: Sendable, Hashable {
        let offset: Int
        let bytes: [UInt8]
    }
    var overlays: [Overlay] = []
    var appended: [UInt8] = []
}

/// The brands libheif 1.15 requires one of among the compatible brands.
let libheifBrands: Set<String> = ["heic", "heix", "mif1", "avif"]

/// The layout of a grid image: `rows` × `columns` tiles of `tileWidth` × `tileHeight`.
public struct HEIFGrid: Sendable, Hashable {
    public let rows: Int, columns: Int
    public let tileWidth: Int, tileHeight: Int
}

/// What a sheet needs to know about a HEIF or AVIF file before decoding it, read by Masonry's
/// own box parser (no libheif): `ftyp`, and in `meta` `hdlr`, `pitm`, `iinf`, `iloc`, `iref`,
/// `iprp` (`ipco`, `ipma`) and `idat`.
///
/// Every box is bounded by its parent and by the file; the meta box is read whole (at most
/// `maxMetaBytes`), everything else (`mdat`) only has its header read. The file is refused
/// before libheif sees it when a box length lies, an item count cannot fit in its box, an
/// item's data lies outside the file, an item reference points to a missing item or to
/// itself, the references libheif follows (`dimg`, `auxl`, `thmb`) loop (libheif 1.15 hangs on
/// a grid that refers to itself), or a grid's tiles are missing, of different sizes, or do not
/// cover its output.
///
/// `width` and `height` are the *displayed* size: `ispe` (or the grid's output size), then
/// each `clap`, `irot` and `imir` in the order `ipma` lists them, as libheif applies them
/// while decoding; so `orientation` is always `.up` (an EXIF orientation beside them is
/// ignored, as the HEIF specification says).
public struct HEIFHeader: Sendable, Hashable {
    public let format: HEIFFormat
    public let majorBrand: String
    /// Displayed size (transformations applied).
    public let width: Int
    public let height: Int
    /// Always `.up`: libheif applies the file's own transformations.
    public let orientation: ExifOrientation
    /// 1 for a still. A sequence (`avis`, `msf1`, with a `moov` box) counts the samples of its
    /// first picture track (`stsz`); its still primary image is what is drawn.
    public let frameCount: Int
    /// Bits per sample of the primary image (8, 10 or 12): `pixi`, else the codec configuration.
    public let bitDepth: Int
    /// True when the primary image is coded as luma alone (4:0:0, by its `hvcC` or `av1C`): the
    /// bridge then draws its luma itself, range-expanded (see `HEIFDecoder`).
    public let isMonochrome: Bool
    /// True when an alpha plane (`auxl` with an alpha `auxC`) belongs to the primary image.
    public let hasAlpha: Bool
    public let primaryItemID: Int
    /// The size libheif decodes before transformations (`ispe`, or the grid's output size).
    public let codedWidth: Int
    public let codedHeight: Int
    /// The grid layout when the primary image is a grid.
    public let grid: HEIFGrid?
    /// The primary image's ICC profile (`colr` of type `prof` or `rICC`), or nil.
    public let iccProfile: [UInt8]?
    /// The primary image's `nclx` code points, or nil.
    public let colourCodePoints: HEIFColourCodePoints?
    /// Why an ICC profile was dropped (over `maxProfileBytes`), or nil.
    public let colorNote: String?
    /// The thumbnails of the primary image, in item order.
    public let thumbnails: [HEIFThumbnail]
    /// Every size libheif allocates for while decoding the primary image (coded, tiles, alpha,
    /// displayed), then every `ispe` of the file (libheif checks them all when it reads it):
    /// each is checked against the limits before libheif reads the file.
    let decodedSizes: [PixelSize]
    /// What libheif is shown in place of the file, or nil (the file as it is).
    let libheifView: LibheifView?

    /// The largest meta box read (every box but the coded data lives in it).
    public static let maxMetaBytes = 16 << 20
    /// The largest ICC profile kept.
    public static let maxProfileBytes = 4 << 20
    /// More top-level boxes than any real file holds.
    static let maxTopLevelBoxes = 4096

    /// How many leading bytes `format(prefix:)` reads: the `ftyp` box, and for a file whose
    /// brands name no codec, the `meta` box that follows it when it fits.
    public static let signaturePrefixBytes = 4096

    /// The format of a file from its first bytes: `avif`/`avis` brands give AVIF, the HEVC
    /// brands HEIF. A file whose brands name only the generic structure (`mif1`, `msf1`, `mif2`,
    /// `miaf`) is AVIF when the `meta` box in `prefix` holds AV1 items and no HEVC ones, so the
    /// table's entry (and its decoder's version in the cache key) is the codec's; HEIF
    /// otherwise. Nil when the file does not start with an `ftyp` box holding a known brand.
    public static func format(prefix: some Collection<UInt8>) -> HEIFFormat? {
        format(prefix: Array(prefix.prefix(signaturePrefixBytes)))
    }

    /// `format(prefix:)` of bytes already in an array (the header pass's), copying none of them.
    public static func format(prefix bytes: [UInt8]) -> HEIFFormat? {
        if bytes.count > signaturePrefixBytes { return format(prefix: Array(bytes.prefix(signaturePrefixBytes))) }
        guard bytes.count >= 16, bytes[4] == 0x66, bytes[5] == 0x74, bytes[6] == 0x79, bytes[7] == 0x70 else { return nil }   // ftyp
        let size = Int(readUInt32(bytes[...], 0))
        guard size >= 16 else { return nil }
        let end = min(size, bytes.count)
        var brands = [fourCC(bytes[8..<12])]
        var at = 16
        while at + 4 <= end {
            brands.append(fourCC(bytes[at..<(at + 4)]))
            at += 4
        }
        if brands.contains(where: HEIFFormat.avifBrands.contains) { return .avif }
        guard brands.contains(where: HEIFFormat.heifBrands.contains) else { return nil }
        if brands.contains(where: HEIFFormat.hevcBrands.contains) { return .heif }
        return itemCodecs(bytes, after: size).map { $0.contains("av01") && !$0.contains("hvc1") } == true ? .avif : .heif
    }

    /// The item types of the `meta` box right after `ftyp`, when all of it is in `bytes`.
    private static func itemCodecs(_ bytes: [UInt8], after ftypEnd: Int) -> Set<String>? {
        guard ftypEnd + 8 <= bytes.count, fourCC(bytes[(ftypEnd + 4)..<(ftypEnd + 8)]) == "meta" else { return nil }
        let metaSize = Int(readUInt32(bytes[...], ftypEnd))
        guard metaSize >= 12, ftypEnd + metaSize <= bytes.count,
              let meta = try? HEIFMeta(payload: Array(bytes[(ftypEnd + 8)..<(ftypEnd + metaSize)])) else { return nil }
        return Set(meta.itemTypes.values)
    }

    /// True when `prefix` starts like a HEIF or AVIF file.
    public static func hasSignature(_ prefix: some Collection<UInt8>) -> Bool {
        format(prefix: prefix) != nil
    }

    /// Reads the header of an open file with positioned reads.
    public init(file: InputFile) throws(ImageError) {
        try self.init(reader: WindowedReader(file: file))
    }

    /// Reads the header of a file held in memory.
    public init(bytes: [UInt8]) throws(ImageError) {
        try self.init(reader: WindowedReader(bytes: bytes))
    }

    private init(reader source: WindowedReader) throws(ImageError) {
        var reader = source
        try self.init(size: source.size) { offset, count throws(ImageError) in Array(try reader.bytes(at: offset, count: count)) }
    }

    private init(size: Int, read: @escaping (Int, Int) throws(ImageError) -> [UInt8]) throws(ImageError) {
        guard size > 0 else { throw ImageError(.malformed, "empty file") }
        var offset = 0, boxCount = 0
        var brands: [String]?
        var meta: HEIFMeta?
        var metaStart = 0, firstCompatibleBrandAt: Int?
        // A box of size 0 runs to the end of the file: it would swallow an appended meta box.
        var lastBoxRunsToEnd = false
        var samples: Int?
        while offset < size {
            boxCount += 1
            guard boxCount <= Self.maxTopLevelBoxes else { throw malformedHEIF("more than \(Self.maxTopLevelBoxes) top-level boxes") }
            let header = try read(offset, 16)
            if boxCount == 1 && (header.count < 8 || fourCC(header[4..<8]) != "ftyp") {
                throw ImageError(.malformed, "not a HEIF file (no ftyp box first)")
            }
            let box = try parseBoxHeader(header[...], at: offset, limit: size, zeroSizeAllowed: true, parentName: "the file")
            lastBoxRunsToEnd = readUInt32(header[...], 0) == 0
            switch box.type {
            case "ftyp":
                guard brands == nil else { throw malformedHEIF("more than one 'ftyp' box") }
                let payload = try read(box.payload.lowerBound, min(box.payload.count, 4096))
                guard payload.count >= 8 else { throw malformedHEIF("truncated 'ftyp' box") }
                var listed: [String] = []
                for at in stride(from: 0, to: payload.count - 3, by: 4) where at != 4 {   // 4: the minor version
                    listed.append(fourCC(payload[at..<(at + 4)]))
                }
                if payload.count >= 12 { firstCompatibleBrandAt = box.payload.lowerBound + 8 }
                brands = listed
            case "meta":
                guard meta == nil else { throw malformedHEIF("more than one top-level 'meta' box") }
                guard box.payload.count <= Self.maxMetaBytes else {
                    throw ImageError(.limitExceeded, "HEIF meta box of \(box.payload.count) bytes is over the \(Self.maxMetaBytes >> 20) MiB limit")
                }
                meta = try HEIFMeta(payload: try read(box.payload.lowerBound, box.payload.count))
                metaStart = box.start
            case "moov":
                samples = try Self.sequenceSampleCount(moov: box, fileSize: size, read: read)
            default:
                break
            }
            offset = box.payload.upperBound
        }
        let knownBrands = HEIFFormat.heifBrands.union(HEIFFormat.avifBrands)
        guard let brands, let major = brands.first, !knownBrands.isDisjoint(with: brands) else {
            throw ImageError(.malformed, "not a HEIF file (no HEIF or AVIF brand in ftyp)")
        }
        guard let meta else {
            throw ImageError(.unsupported, "HEIF image sequence without a still image: not supported (no 'meta' box)")
        }
        let images = try ImageItems(meta: meta, fileSize: size, read: read)
        let primary = images.primary
        majorBrand = major
        format = primary.codec == "av01" ? .avif : .heif
        width = primary.width
        height = primary.height
        orientation = .up
        frameCount = max(1, samples ?? 1)
        bitDepth = primary.bitDepth
        isMonochrome = primary.isMonochrome
        hasAlpha = primary.hasAlpha
        primaryItemID = primary.id
        codedWidth = primary.codedWidth
        codedHeight = primary.codedHeight
        grid = primary.grid
        // libheif checks the size of every image item when it reads the file, thumbnails too.
        decodedSizes = primary.decodedSizes + meta.associations.keys.sorted().flatMap { id in
            (meta.associations[id] ?? []).compactMap { property -> PixelSize? in
                if case .spatialExtent(let width, let height) = property { PixelSize(width: width, height: height) } else { nil }
            }
        }
        colourCodePoints = primary.colourCodePoints
        var view = LibheifView()
        if !lastBoxRunsToEnd, let located = meta.locatingDerivations() {
            view.overlays.append(.init(offset: metaStart + 4, bytes: Array("free".utf8)))
            view.appended = located
        }
        if libheifBrands.isDisjoint(with: brands.dropFirst()), let at = firstCompatibleBrandAt {
            view.overlays.append(.init(offset: at, bytes: Array("mif1".utf8)))
        }
        libheifView = view == LibheifView() ? nil : view
        if let profile = primary.iccProfile, profile.count > Self.maxProfileBytes {
            iccProfile = nil
            colorNote = "ICC profile of \(profile.count) bytes dropped (over \(Self.maxProfileBytes >> 20) MiB)"
        } else {
            iccProfile = primary.iccProfile.map(Array.init)
            colorNote = nil
        }
        thumbnails = images.thumbnails.map { thumbnail in
            HEIFThumbnail(itemID: thumbnail.id, width: thumbnail.width, height: thumbnail.height,
                          aspectMatches: Self.aspectsMatch(thumbnail, primary),
                          transformationsMatch: thumbnail.transformationKinds == primary.transformationKinds,
                          profileMatches: thumbnail.colourProperties == primary.colourProperties,
                          alphaMatches: thumbnail.hasAlpha == primary.hasAlpha, decodedSizes: thumbnail.decodedSizes,
                          isAV1: thumbnail.codec == "av01", isMonochrome: thumbnail.isMonochrome)
        }
    }

    /// The sample count of the first picture track (`moov`/`trak`/`mdia` with a `pict` handler,
    /// `minf`/`stbl`/`stsz` or `stz2`), or nil when there is none. Only box headers and the
    /// few fields needed are read.
    private static func sequenceSampleCount(moov: Box, fileSize: Int, read: (Int, Int) throws(ImageError) -> [UInt8])
        throws(ImageError) -> Int? {
        func children(_ box: Box) throws(ImageError) -> [Box] {
            var boxes: [Box] = []
            var offset = box.payload.lowerBound
            while offset < box.payload.upperBound {
                guard boxes.count < maxTopLevelBoxes else { throw malformedHEIF("more than \(maxTopLevelBoxes) boxes in '\(box.type)'") }
                let header = try read(offset, min(16, box.payload.upperBound - offset))
                let child = try parseBoxHeader(header[...], at: offset, limit: box.payload.upperBound, zeroSizeAllowed: false,
                                               parentName: box.type)
                boxes.append(child)
                offset = child.payload.upperBound
            }
            return boxes
        }
        func first(_ type: String, in boxes: [Box]) -> Box? { boxes.first { $0.type == type } }
        for track in try children(moov) where track.type == "trak" {
            guard let media = first("mdia", in: try children(track)) else { continue }
            let parts = try children(media)
            guard let handler = first("hdlr", in: parts), fourCC(try read(handler.payload.lowerBound + 8, 4)[...]) == "pict",
                  let information = first("minf", in: parts), let table = first("stbl", in: try children(information)) else { continue }
            let tables = try children(table)
            guard let sizes = first("stsz", in: tables) ?? first("stz2", in: tables) else { continue }
            // Full-box header, then the sample size (stsz) or field size (stz2), then the count.
            let fields = try read(sizes.payload.lowerBound, 12)
            guard fields.count == 12, sizes.payload.count >= 12 else { throw malformedHEIF("truncated '\(sizes.type)' box") }
            let count = Int(readUInt32(fields[...], 8))
            guard count <= fileSize else { throw malformedHEIF("'\(sizes.type)' box claims \(count) samples in \(fileSize) bytes") }
            return count
        }
        return nil
    }

    /// The smallest thumbnail that can stand in for the primary image and is at least twice
    /// `minimumWidth` × `minimumHeight`, or nil (decode the primary image).
    public func thumbnail(minimumWidth: Int, minimumHeight: Int) -> HEIFThumbnail? {
        DecodeTarget(minimumWidth: minimumWidth, minimumHeight: minimumHeight)
            .smallestAccepted(thumbnails.filter(\.canStandIn)) { ($0.width, $0.height) }
    }

    /// Same aspect within two pixels of the thumbnail: |tw·ph − th·pw| ≤ 2·max(pw, ph), in
    /// floating point since claimed sizes go up to 2^32.
    private static func aspectsMatch(_ thumbnail: ImageItem, _ primary: ImageItem) -> Bool {
        let cross = Double(thumbnail.width) * Double(primary.height) - Double(thumbnail.height) * Double(primary.width)
        return abs(cross) <= 2 * Double(max(primary.width, primary.height))
    }
}
