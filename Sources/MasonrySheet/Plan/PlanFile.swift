import CLibDeflate
import Raster
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A plan written once (`--plan-only --plan FILE`) and painted page by page anywhere
/// (`--from-plan FILE --page K`), SPEC §15. Binary, little-endian, version 1:
///
/// ```
/// header   magic "\x89MASONRY-PLAN\r\n\x1a" (16 bytes), u32 format version, u32 0, u64 image count
/// blocks   each: u32 tag, u32 0, u64 payload length, payload; in this order:
///   INFO   the masonry version that wrote it (UTF-8)
///   OPTS   u32 n, then n × (u32 length, bytes): the planning command's words, to be parsed again
///   COLR   u32 n, then n × (u32 length, bytes): the colour names the images refer to
///   IMGS   image count × 64-byte records (`PlanFile.Record`), in tile order
///   PATH   every path's bytes, back to back (records hold offset and length)
///   SECT   u32 n, then n × (u64 first image, u64 image count, u32 length, name bytes)
///   SKIP   u32 n, then n × (u32 length, path bytes, u32 length, reason bytes)
/// trailer  u64 file length, u32 CRC-32 of every byte before it, "END\n"
/// ```
///
/// It is written in one pass from the plan's arrays through a 1 MiB buffer (no tree of the
/// file is built) and read with every length checked against the bytes that are there before
/// anything is allocated for it.
public struct PlanFile: Sendable {
    /// The planning command's words (`--plan-only` and `--plan FILE` left out): what decides the
    /// pages' bytes, parsed again by the command that paints from the plan.
    public let settings: [[UInt8]]
    /// The images in tile order, as the header pass saw them. A planned image's colour is known
    /// by name only: a page job reads its page's headers again, which gives the full decision.
    let images: [PlannedImage]
    let sections: [PlannedSection]
    /// What the scan and the header pass left out, with why.
    let skipped: [SkippedInput]

    init(settings: [[UInt8]], images: [PlannedImage], sections: [PlannedSection], skipped: [SkippedInput]) {
        self.settings = settings
        self.images = images
        self.sections = sections
        self.skipped = skipped
    }

    static let magic: [UInt8] = [0x89] + Array("MASONRY-PLAN".utf8) + [0x0D, 0x0A, 0x1A]
    static let formatVersion: UInt32 = 1
    static let headerLength = 32
    static let recordLength = 64
    static let trailerLength = 16
    static let endMark: [UInt8] = Array("END\n".utf8)
    /// The version of masonry a plan must come from: a plan made by another version may lay out
    /// or paint differently, so it is refused rather than trusted.
    static var masonryVersion: String { MasonryVersion.current }

    enum Tag: String, CaseIterable {
        case info = "INFO", options = "OPTS", colors = "COLR", images = "IMGS", paths = "PATH"
        case sections = "SECT", skipped = "SKIP"
        var bytes: [UInt8] { Array(rawValue.utf8) }
    }
}

/// The version of masonry (`masonry --version`), which every plan file records.
public enum MasonryVersion {
    public static let current = "0.1.0"
}

// MARK: - Writing

extension PlanFile {
    /// Writes `plan` (whose images and sections are these) with `settings` to `file`.
    static func write(settings: [[UInt8]], plan: SheetPlan, skipped: [SkippedInput], to file: AtomicOutputFile) throws(SheetError) {
        var out = BufferedPlanWriter(file: file)
        out.append(magic)
        out.append(formatVersion)
        out.append(UInt32(0))
        out.append(UInt64(plan.images.count))

        try out.block(.info) { $0.append(Array(masonryVersion.utf8)) }
        try out.block(.options) { body throws(SheetError) in
            body.append(UInt32(settings.count))
            for word in settings { body.appendCounted(word) }
        }
        // Colour names interned: most plans have a handful.
        var colorIndex: [String: UInt32] = [:]
        var colorNames: [String] = []
        var colorOfImage = [UInt32](repeating: 0, count: plan.images.count)
        for (index, image) in plan.images.enumerated() {
            let name = image.colorName
            if let known = colorIndex[name] { colorOfImage[index] = known; continue }
            let new = UInt32(colorNames.count)
            colorIndex[name] = new
            colorNames.append(name)
            colorOfImage[index] = new
        }
        try out.block(.colors) { body throws(SheetError) in
            body.append(UInt32(colorNames.count))
            for name in colorNames { body.appendCounted(Array(name.utf8)) }
        }
        try out.block(.images, length: plan.images.count * recordLength) { body throws(SheetError) in
            var pathOffset: UInt64 = 0
            for (index, image) in plan.images.enumerated() {
                body.append(pathOffset)
                body.append(UInt32(image.path.bytes.count))
                body.append(UInt32(0))
                body.append(UInt32(image.source.width))
                body.append(UInt32(image.source.height))
                body.append(UInt8(image.orientation.rawValue))
                body.append(UInt8(ImageFormats.all.firstIndex(of: image.format)!))
                // A video's duration in seconds plus one (0: none), as SourceHeader keeps it.
                body.append(UInt16(image.source.durationSeconds.map { min(max($0, 0), Int(UInt16.max) - 1) + 1 } ?? 0))
                body.append(colorOfImage[index])
                body.append(UInt32(image.source.frameCount))
                body.append(UInt32(0))
                body.append(UInt64(bitPattern: image.stamp.byteSize))
                body.append(UInt64(bitPattern: image.stamp.modificationTime))
                body.append(image.stamp.inode)
                pathOffset += UInt64(image.path.bytes.count)
                try body.flushIfFull()
            }
        }
        try out.block(.paths, length: plan.images.reduce(0) { $0 + $1.path.bytes.count }) { body throws(SheetError) in
            for image in plan.images {
                body.append(image.path.bytes)
                try body.flushIfFull()
            }
        }
        try out.block(.sections) { body throws(SheetError) in
            body.append(UInt32(plan.sections.count))
            for section in plan.sections {
                body.append(UInt64(section.images.lowerBound))
                body.append(UInt64(section.images.count))
                body.appendCounted(section.name)
            }
        }
        try out.block(.skipped) { body throws(SheetError) in
            body.append(UInt32(skipped.count))
            for skip in skipped {
                body.appendCounted(skip.path.bytes)
                body.appendCounted(Array(skip.reason.utf8))
            }
        }
        try out.finish()
    }
}

/// The plan file's bytes on their way out: a 1 MiB buffer flushed to the file, a running
/// CRC-32 and length, and blocks whose length is known before their payload is written (a
/// block of unknown length is gathered in memory: only the small ones are).
private struct BufferedPlanWriter {
    let file: AtomicOutputFile
    var buffer: [UInt8] = []
    var crc: UInt32 = 0
    var length: UInt64 = 0
    static let flushSize = 1 << 20

    init(file: AtomicOutputFile) {
        self.file = file
        buffer.reserveCapacity(Self.flushSize + 4096)
    }

    mutating func append(_ bytes: [UInt8]) {
        buffer += bytes
    }
    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }
    mutating func appendCounted(_ bytes: [UInt8]) {
        append(UInt32(bytes.count))
        append(bytes)
    }

    mutating func flushIfFull() throws(SheetError) {
        if buffer.count >= Self.flushSize { try flush() }
    }

    mutating func flush() throws(SheetError) {
        guard !buffer.isEmpty else { return }
        crc = buffer.withUnsafeBufferPointer { UInt32(libdeflate_crc32(crc, $0.baseAddress, $0.count)) }
        length += UInt64(buffer.count)
        try file.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// A block whose payload `write` appends to a body of its own (for small blocks).
    mutating func block(_ tag: PlanFile.Tag, _ write: (inout BufferedPlanWriter) throws(SheetError) -> Void) throws(SheetError) {
        var body = BufferedPlanWriter(detachedFrom: file)
        try write(&body)
        append(tag.bytes)
        append(UInt32(0))
        append(UInt64(body.buffer.count))
        append(body.buffer)
        try flushIfFull()
    }

    /// A block of `length` bytes that `write` appends straight to this writer, calling
    /// `flushIfFull()` as it goes, so a million records never sit in memory at once.
    mutating func block(_ tag: PlanFile.Tag, length: Int, _ write: (inout BufferedPlanWriter) throws(SheetError) -> Void) throws(SheetError) {
        append(tag.bytes)
        append(UInt32(0))
        append(UInt64(length))
        let end = Int(self.length) + buffer.count + length
        try write(&self)
        precondition(Int(self.length) + buffer.count == end, "plan block \(tag.rawValue) is not \(length) bytes")
    }

    mutating func finish() throws(SheetError) {
        append(UInt64(length) + UInt64(buffer.count) + UInt64(PlanFile.trailerLength))
        try flush()
        var tail: [UInt8] = []
        withUnsafeBytes(of: crc.littleEndian) { tail.append(contentsOf: $0) }
        tail += PlanFile.endMark
        try file.write(tail)
    }

    private init(detachedFrom file: AtomicOutputFile) { self.file = file }
}

// MARK: - Reading

/// Why a plan file cannot be used: one line, without the file's name (the caller adds it).
struct PlanFileError: Error, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension PlanFile {
    /// The largest plan file read (16 GiB: far beyond the 100 MB of a million images).
    static let maxFileLength = 16 << 30

    /// Reads and checks the plan at `path`. Every problem is one `SheetError` naming the file:
    /// not a regular file, not a plan, another format version or masonry version, truncated,
    /// damaged (checksum), or inconsistent inside.
    public static func read(_ path: RawPath) throws(SheetError) -> PlanFile {
        func failure(_ reason: String) -> SheetError { SheetError("cannot use the plan \(path.displayName): \(reason)") }
        let descriptor = path.open(O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw failure(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure("not a regular file") }
        let size = Int(status.st_size)
        guard size <= maxFileLength else { throw failure("\(size) bytes, more than a plan can be") }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, size - done, off_t(done)) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw failure(String(cString: strerror(errno))) }
            guard got > 0 else { throw failure("the file shrank while it was read") }
            done += got
        }
        do {
            return try decode(bytes)
        } catch {
            throw failure(error.reason)
        }
    }

    /// The plan in `bytes`, every length and value checked before it is used.
    static func decode(_ bytes: [UInt8]) throws(PlanFileError) -> PlanFile {
        guard bytes.count >= magic.count, bytes.starts(with: magic) else { throw PlanFileError("not a masonry plan file") }
        var reader = PlanReader(bytes: bytes, end: bytes.count)
        reader.offset = magic.count
        let version = try reader.u32("header")
        guard version == formatVersion else {
            throw PlanFileError("plan format version \(version); this masonry reads version \(formatVersion): plan again")
        }
        guard bytes.count >= headerLength + trailerLength, bytes.suffix(endMark.count).elementsEqual(endMark) else {
            throw PlanFileError("truncated (\(bytes.count) bytes, no end record)")
        }
        var trailer = PlanReader(bytes: bytes, end: bytes.count)
        trailer.offset = bytes.count - trailerLength
        let recordedLength = try trailer.u64("trailer")
        let recordedCRC = try trailer.u32("trailer")
        guard recordedLength == UInt64(bytes.count) else {
            throw PlanFileError("truncated or extended (\(bytes.count) bytes, the plan says \(recordedLength))")
        }
        let crc = bytes.withUnsafeBufferPointer { UInt32(libdeflate_crc32(0, $0.baseAddress, bytes.count - 8)) }
        guard crc == recordedCRC else { throw PlanFileError("damaged (checksum mismatch)") }

        reader.end = bytes.count - trailerLength
        _ = try reader.u32("header")
        let imageCount = try reader.count(reader.u64("header"), each: recordLength, "images")

        let written = String(decoding: try reader.block(.info), as: UTF8.self)
        guard written == masonryVersion else {
            // The file's words, escaped and cut: a damaged version block must not break the one-line message.
            let shown = written.unicodeScalars.prefix(40).map { $0.escaped(asASCII: true) }.joined()
            throw PlanFileError("written by masonry \(shown); this is masonry \(masonryVersion): plan again")
        }
        var options = PlanReader(bytes: bytes, range: try reader.blockRange(.options))
        let settings = try options.countedList("options")
        var colorReader = PlanReader(bytes: bytes, range: try reader.blockRange(.colors))
        let colorNames = try colorReader.countedList("colours").map { String(decoding: $0, as: UTF8.self) }
        let records = try reader.blockRange(.images)
        guard records.count == imageCount * recordLength else {
            throw PlanFileError("damaged (\(records.count) bytes of image records for \(imageCount) images)")
        }
        let paths = try reader.blockRange(.paths)
        var images: [PlannedImage] = []
        images.reserveCapacity(imageCount)
        var record = PlanReader(bytes: bytes, range: records)
        for index in 0..<imageCount {
            images.append(try record.image(index, paths: paths, colorNames: colorNames))
        }
        var sectionReader = PlanReader(bytes: bytes, range: try reader.blockRange(.sections))
        let sectionCount = try sectionReader.count(UInt64(sectionReader.u32("sections")), each: 20, "sections")
        var sections: [PlannedSection] = []
        for _ in 0..<sectionCount {
            let first = try sectionReader.u64("sections"), count = try sectionReader.u64("sections")
            let expected = sections.last?.images.upperBound ?? 0
            guard first == UInt64(expected), count >= 1, count <= UInt64(imageCount - expected) else {
                throw PlanFileError("damaged (sections do not cover the images in order)")
            }
            sections.append(PlannedSection(name: try sectionReader.counted("sections"),
                                           images: expected ..< expected + Int(count)))
        }
        guard sections.isEmpty || sections.last!.images.upperBound == imageCount else {
            throw PlanFileError("damaged (sections do not cover the images in order)")
        }
        var skipReader = PlanReader(bytes: bytes, range: try reader.blockRange(.skipped))
        let skipCount = try skipReader.count(UInt64(skipReader.u32("skipped")), each: 8, "skipped inputs")
        var skipped: [SkippedInput] = []
        for _ in 0..<skipCount {
            let path = try skipReader.counted("skipped")
            let reason = try skipReader.counted("skipped")
            skipped.append(SkippedInput(path: RawPath(bytes: path), reason: String(decoding: reason, as: UTF8.self)))
        }
        guard reader.offset == reader.end else { throw PlanFileError("damaged (bytes after the last block)") }
        return PlanFile(settings: settings, images: images, sections: sections, skipped: skipped)
    }
}

extension PlanFile {
    /// For the fuzz target: the image count of the plan in `bytes`, or the one-line reason it is refused.
    package static func decodeForFuzzing(_ bytes: [UInt8]) -> Result<Int, PlanFileFailure> {
        do { return .success(try decode(bytes).images.count) } catch { return .failure(PlanFileFailure(reason: error.reason)) }
    }

    /// `bytes` with the trailer (length, CRC-32, end mark) rewritten to match them, so a change
    /// inside passes the checksum; bytes too short for a trailer get one appended.
    package static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var body = bytes.count >= headerLength + trailerLength ? Array(bytes.dropLast(trailerLength)) : bytes
        withUnsafeBytes(of: UInt64(body.count + trailerLength).littleEndian) { body.append(contentsOf: $0) }
        let crc = body.withUnsafeBufferPointer { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }
        withUnsafeBytes(of: crc.littleEndian) { body.append(contentsOf: $0) }
        return body + endMark
    }
}

/// Why the fuzz target's plan was refused.
package struct PlanFileFailure: Error {
    package let reason: String
}

/// Bounds-checked little-endian reads over a part of a plan file's bytes.
private struct PlanReader {
    let bytes: [UInt8]
    var offset: Int
    var end: Int

    init(bytes: [UInt8], end: Int) {
        self.bytes = bytes
        offset = 0
        self.end = end
    }
    init(bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        offset = range.lowerBound
        end = range.upperBound
    }

    mutating func take(_ count: Int, _ what: String) throws(PlanFileError) -> Range<Int> {
        guard count >= 0, count <= end - offset else { throw PlanFileError("damaged (\(what) runs past its end)") }
        defer { offset += count }
        return offset ..< offset + count
    }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type, _ what: String) throws(PlanFileError) -> T {
        let range = try take(MemoryLayout<T>.size, what)
        var value: T = 0
        for position in range.reversed() { value = value << 8 | T(bytes[position]) }
        return value
    }
    mutating func u8(_ what: String) throws(PlanFileError) -> UInt8 { try integer(UInt8.self, what) }
    mutating func u16(_ what: String) throws(PlanFileError) -> UInt16 { try integer(UInt16.self, what) }
    mutating func u32(_ what: String) throws(PlanFileError) -> UInt32 { try integer(UInt32.self, what) }
    mutating func u64(_ what: String) throws(PlanFileError) -> UInt64 { try integer(UInt64.self, what) }

    /// `value` as a count of things at least `each` bytes long, refused when the bytes left
    /// cannot hold that many (so nothing is allocated for a count the file cannot back).
    func count(_ value: UInt64, each: Int, _ what: String) throws(PlanFileError) -> Int {
        guard value <= UInt64(bytes.count / each) else { throw PlanFileError("damaged (\(value) \(what) cannot fit in the file)") }
        return Int(value)
    }

    /// A u32 length and that many bytes.
    mutating func counted(_ what: String) throws(PlanFileError) -> [UInt8] {
        let length = Int(try u32(what))
        return Array(bytes[try take(length, what)])
    }

    /// A u32 count and that many counted byte strings.
    mutating func countedList(_ what: String) throws(PlanFileError) -> [[UInt8]] {
        let count = try count(UInt64(u32(what)), each: 4, what)
        var list: [[UInt8]] = []
        for _ in 0..<count { list.append(try counted(what)) }
        guard offset == end else { throw PlanFileError("damaged (bytes after the \(what))") }
        return list
    }

    /// The next block, which must be `tag`: its payload's range.
    mutating func blockRange(_ tag: PlanFile.Tag) throws(PlanFileError) -> Range<Int> {
        let found = bytes[try take(4, "block \(tag.rawValue)")]
        guard found.elementsEqual(tag.bytes) else {
            throw PlanFileError("damaged (block \(tag.rawValue) expected, found \(RawPath(bytes: Array(found)).displayName))")
        }
        _ = try u32(tag.rawValue)
        let length = try u64(tag.rawValue)
        guard length <= UInt64(end - offset) else { throw PlanFileError("damaged (block \(tag.rawValue) runs past the end)") }
        return try take(Int(length), tag.rawValue)
    }

    mutating func block(_ tag: PlanFile.Tag) throws(PlanFileError) -> [UInt8] { Array(bytes[try blockRange(tag)]) }

    /// One 64-byte image record, its path from `paths`.
    mutating func image(_ index: Int, paths: Range<Int>, colorNames: [String]) throws(PlanFileError) -> PlannedImage {
        func bad(_ what: String) -> PlanFileError { PlanFileError("damaged (image \(index): \(what))") }
        let pathOffset = try u64("image records"), pathLength = try u32("image records")
        _ = try u32("image records")
        let width = try u32("image records"), height = try u32("image records")
        let orientation = try u8("image records"), format = try u8("image records")
        let duration = try u16("image records")
        let color = try u32("image records"), frames = try u32("image records")
        _ = try u32("image records")
        let byteSize = try u64("image records"), modified = try u64("image records"), inode = try u64("image records")
        guard pathLength >= 1, pathOffset <= UInt64(paths.count), UInt64(pathLength) <= UInt64(paths.count) - pathOffset else {
            throw bad("path outside the path block")
        }
        guard (1...UInt32(Int32.max)).contains(width), (1...UInt32(Int32.max)).contains(height) else { throw bad("size \(width)x\(height)") }
        guard let shown = ExifOrientation(rawValue: Int(orientation)) else { throw bad("orientation \(orientation)") }
        guard Int(format) < ImageFormats.all.count else { throw bad("format \(format)") }
        guard Int(color) < colorNames.count else { throw bad("colour \(color)") }
        guard frames >= 1, byteSize <= UInt64(Int64.max) else { throw bad("frames or size") }
        let start = paths.lowerBound + Int(pathOffset)
        let path = RawPath(bytes: Array(bytes[start ..< start + Int(pathLength)]))
        return PlannedImage(path: path, format: ImageFormats.all[Int(format)],
                            source: SourceHeader(width: Int(width), height: Int(height), orientation: shown, frameCount: Int(frames),
                                                 durationSeconds: duration == 0 ? nil : Int(duration) - 1,
                                                 colorName: colorNames[Int(color)]),
                            orientation: shown,
                            stamp: FileStamp(byteSize: Int64(byteSize), modificationTime: Int64(bitPattern: modified), inode: inode))
    }
}
