import CodecCore

/// What a sheet needs of an MP4 or QuickTime file before FFmpeg sees it, read by Masonry's own
/// box walk: the top-level boxes (headers only) up to `moov`, which is read whole (at most
/// `maxMovieBytes`), and in it `mvhd`, and per `trak` `tkhd` (display matrix), `mdhd`
/// (duration), `hdlr` (the track's kind), `stsd` (the first sample entry: codec, coded size,
/// `pasp`, `colr`) and `stsz` (sample count) of the first video track.
///
/// Every box is bounded by its parent and by the file: a size smaller than its header, a box
/// running past its parent or the file, more than `maxTopLevelBoxes` boxes before `moov`, or
/// more than `maxTracks` tracks is refused, so no size a file claims is allocated and no walk
/// loops (every box moves the walk forward by at least its header).
public struct MP4Header: Sendable {
    public let container: VideoContainer
    /// The first video track's coded size and sample aspect ratio (`pasp`; 1:1 without one).
    public let codedWidth: Int, codedHeight: Int
    public let sampleAspect: (numerator: Int, denominator: Int)
    /// The display matrix's clockwise rotation: 0, 90, 180 or 270.
    public let rotation: Int
    /// The video track's duration (`mdhd`, else `mvhd`), in microseconds; nil when unknown, or
    /// past 9 × 10¹⁸ µs (a version 1 box's 64-bit duration over a small timescale).
    public let durationMicroseconds: Int?
    /// Samples of the video track (`stsz`).
    public let frameCount: Int
    /// The first sample entry's four-character code ("avc1", "hvc1").
    public let codec: String
    /// The sample entry's `colr` (`nclx`, or QuickTime's `nclc`) transfer characteristics
    /// (ITU-T H.273: 1 BT.709, 16 PQ, 18 HLG); nil without one.
    public let transfer: Int?
    public let trackCount: Int

    /// The largest `moov` read: 64 MiB (an hour of 60 fps video indexes in about 10 MiB).
    public static let maxMovieBytes = 64 << 20
    public static let maxTopLevelBoxes = 4096
    public static let maxTracks = 64

    public init(file: InputFile, container: VideoContainer) throws(ImageError) {
        self.container = container
        let movie = try Self.readMovie(file, name: container.rawValue)
        var fields = Fields()
        try Self.walk(movie, 0..<movie.count, parent: "moov", into: &fields, name: container.rawValue)
        guard let track = fields.video else { throw ImageError(.unsupported, "\(container.rawValue) file has no video track") }
        guard track.width > 0, track.height > 0 else {
            throw ImageError(.malformed, "malformed \(container.rawValue) file: the video track's sample entry has no picture size")
        }
        codedWidth = track.width
        codedHeight = track.height
        sampleAspect = track.aspect
        rotation = track.rotation
        codec = track.codec
        transfer = track.transfer
        frameCount = track.samples
        trackCount = fields.tracks
        let duration = track.timescale > 0 && track.duration > 0 ? (track.duration, track.timescale)
                     : fields.movieTimescale > 0 && fields.movieDuration > 0 ? (fields.movieDuration, fields.movieTimescale) : nil
        let microseconds = duration.map { (Double($0.0) * 1_000_000 / Double($0.1)).rounded(.down) }
        durationMicroseconds = microseconds.flatMap { $0 < 9e18 ? Int($0) : nil }
    }

    private struct Track {
        var isVideo = false
        var width = 0, height = 0
        var aspect = (numerator: 1, denominator: 1)
        var rotation = 0
        var timescale = 0, duration = 0
        var samples = 0
        var codec = ""
        var transfer: Int?
    }

    private struct Fields {
        var movieTimescale = 0, movieDuration = 0
        var tracks = 0
        var current = Track()
        var video: Track?
    }

    private static func malformed(_ name: String, _ detail: String) -> ImageError {
        ImageError(.malformed, "malformed \(name) file: \(detail)")
    }

    /// The `moov` box's payload: the top-level boxes' headers are read until it is found.
    private static func readMovie(_ file: InputFile, name: String) throws(ImageError) -> [UInt8] {
        var offset = 0
        for _ in 0..<maxTopLevelBoxes {
            guard offset < file.size else { break }
            var header = [UInt8](repeating: 0, count: 16)
            let got = try header.withUnsafeMutableBufferPointer { buffer throws(ImageError) in try file.read(at: offset, into: buffer) }
            guard got >= 8 else { throw malformed(name, "truncated box header at byte \(offset)") }
            let (type, headerSize, size) = try boxSize(Array(header.prefix(got)), at: 0, available: file.size - offset, name: name)
            if type == "moov" {
                let length = size - headerSize
                guard length <= maxMovieBytes else {
                    throw ImageError(.limitExceeded, "\(name) file's 'moov' box is \(length) bytes, more than \(maxMovieBytes >> 20) MiB")
                }
                var movie = [UInt8](repeating: 0, count: length)
                let read = try movie.withUnsafeMutableBufferPointer { buffer throws(ImageError) in
                    try file.read(at: offset + headerSize, into: buffer)
                }
                guard read == length else { throw ImageError(.truncatedFile) }
                return movie
            }
            offset += size
        }
        throw ImageError(.malformed, offset >= file.size ? "\(name) file has no 'moov' box" : "malformed \(name) file: more than \(maxTopLevelBoxes) boxes before 'moov'")
    }

    /// A box's type, header size and whole size at `at` of `bytes`, where `available` bytes
    /// remain in its parent (or the file). A size 0 runs to the end of the parent.
    private static func boxSize(_ bytes: [UInt8], at: Int, available: Int, name: String) throws(ImageError) -> (String, Int, Int) {
        guard available >= 8, at + 8 <= bytes.count else { throw malformed(name, "truncated box header") }
        let type = fourCC(bytes[(at + 4)..<(at + 8)])
        var size = Int(readBigEndian32(bytes, at)), headerSize = 8
        if size == 1 {
            guard available >= 16, at + 16 <= bytes.count else { throw malformed(name, "truncated box header of '\(type)'") }
            let size64 = readBigEndian64(bytes, at + 8)
            guard size64 <= UInt64(available) else { throw malformed(name, "box '\(type)' claims \(size64) bytes, past the end of its parent") }
            size = Int(size64)
            headerSize = 16
        } else if size == 0 {
            size = available
        }
        guard size >= headerSize else { throw malformed(name, "box '\(type)' claims \(size) bytes, less than its header") }
        guard size <= available else { throw malformed(name, "box '\(type)' claims \(size) bytes, past the end of its parent") }
        return (type, headerSize, size)
    }

    /// The boxes of `range`, descending only along `moov` → `trak` → `mdia` → `minf` → `stbl`
    /// (so the walk is at most five deep, whatever the boxes nest).
    private static func walk(_ bytes: [UInt8], _ range: Range<Int>, parent: String, into fields: inout Fields,
                             name: String) throws(ImageError) {
        var at = range.lowerBound
        while at < range.upperBound {
            let (type, headerSize, size) = try boxSize(bytes, at: at, available: range.upperBound - at, name: name)
            let payload = (at + headerSize)..<(at + size)
            switch type {
            case "trak" where parent == "moov":
                fields.tracks += 1
                guard fields.tracks <= maxTracks else {
                    throw ImageError(.limitExceeded, "\(name) file has more than \(maxTracks) tracks")
                }
                fields.current = Track()
                try walk(bytes, payload, parent: type, into: &fields, name: name)
                if fields.current.isVideo, fields.video == nil { fields.video = fields.current }
            case "mdia" where parent == "trak", "minf" where parent == "mdia", "stbl" where parent == "minf":
                try walk(bytes, payload, parent: type, into: &fields, name: name)
            case "mvhd":
                let box = try fullBox(bytes, payload, minimum: [20, 32], type: type, name: name)
                fields.movieTimescale = Int(readBigEndian32(bytes, box.at + (box.version == 1 ? 20 : 12)))
                fields.movieDuration = box.version == 1 ? Int(clamping: readBigEndian64(bytes, box.at + 24))
                                                        : Int(readBigEndian32(bytes, box.at + 16))
            case "tkhd":
                let box = try fullBox(bytes, payload, minimum: [84, 96], type: type, name: name)
                let matrix = box.at + (box.version == 1 ? 52 : 40)
                let a = Int32(bitPattern: readBigEndian32(bytes, matrix)), b = Int32(bitPattern: readBigEndian32(bytes, matrix + 4))
                let c = Int32(bitPattern: readBigEndian32(bytes, matrix + 12)), d = Int32(bitPattern: readBigEndian32(bytes, matrix + 16))
                fields.current.rotation = rotation(a: a, b: b, c: c, d: d)
            case "mdhd":
                let box = try fullBox(bytes, payload, minimum: [20, 32], type: type, name: name)
                fields.current.timescale = Int(readBigEndian32(bytes, box.at + (box.version == 1 ? 20 : 12)))
                fields.current.duration = box.version == 1 ? Int(clamping: readBigEndian64(bytes, box.at + 24))
                                                           : Int(readBigEndian32(bytes, box.at + 16))
            case "hdlr" where parent == "mdia":   // QuickTime has a data handler in 'minf' too
                let box = try fullBox(bytes, payload, minimum: [12, 12], type: type, name: name)
                fields.current.isVideo = fourCC(bytes[(box.at + 8)..<(box.at + 12)]) == "vide"
            case "stsd" where fields.current.isVideo:
                try readSampleEntry(bytes, payload, into: &fields.current, name: name)
            case "stsz":
                let box = try fullBox(bytes, payload, minimum: [12, 12], type: type, name: name)
                fields.current.samples = Int(readBigEndian32(bytes, box.at + 8))
            default:
                break
            }
            at += size
        }
    }

    /// A full box's version and where its payload starts; refused when shorter than
    /// `minimum[version]` bytes (version 0 or 1).
    private static func fullBox(_ bytes: [UInt8], _ payload: Range<Int>, minimum: [Int], type: String,
                                name: String) throws(ImageError) -> (version: Int, at: Int) {
        guard payload.count >= 4 else { throw malformed(name, "'\(type)' box is too short") }
        let version = Int(bytes[payload.lowerBound])
        guard version <= 1 else { throw ImageError(.unsupported, "\(name) file's '\(type)' box is of version \(version)") }
        guard payload.count >= minimum[version] else { throw malformed(name, "'\(type)' box is too short") }
        return (version, payload.lowerBound)
    }

    /// The first visual sample entry of `stsd`: its code, coded size and `pasp`.
    private static func readSampleEntry(_ bytes: [UInt8], _ payload: Range<Int>, into track: inout Track, name: String) throws(ImageError) {
        let box = try fullBox(bytes, payload, minimum: [8, 8], type: "stsd", name: name)
        guard readBigEndian32(bytes, box.at + 4) >= 1 else { throw malformed(name, "'stsd' box has no sample entry") }
        let entryStart = box.at + 8
        let (code, _, size) = try boxSize(bytes, at: entryStart, available: payload.upperBound - entryStart, name: name)
        // SampleEntry (8) + VisualSampleEntry fields (70) after the 8-byte header.
        guard size >= 86 else { throw malformed(name, "sample entry '\(code)' is too short") }
        track.codec = code
        track.width = Int(readBigEndian16(bytes, entryStart + 32))
        track.height = Int(readBigEndian16(bytes, entryStart + 34))
        var at = entryStart + 86
        let end = entryStart + size
        while at + 8 <= end {
            guard let (type, headerSize, childSize) = try? boxSize(bytes, at: at, available: end - at, name: name) else { break }
            if type == "pasp", childSize - headerSize >= 8 {
                let h = Int(readBigEndian32(bytes, at + headerSize)), v = Int(readBigEndian32(bytes, at + headerSize + 4))
                if h > 0, v > 0 { track.aspect = (h, v) }
            }
            if type == "colr", childSize - headerSize >= 10, ["nclx", "nclc"].contains(fourCC(bytes[(at + headerSize)..<(at + headerSize + 4)])) {
                track.transfer = Int(readBigEndian16(bytes, at + headerSize + 6))
            }
            at += childSize
        }
    }

    /// The clockwise rotation of a display matrix's 16.16 entries a, b (first row), c, d
    /// (second row), as FFmpeg reads it; 0 for anything but the four right-angle turns.
    static func rotation(a: Int32, b: Int32, c: Int32, d: Int32) -> Int {
        let one: Int32 = 1 << 16
        switch (a, b, c, d) {
        case (0, one, -one, 0): return 90
        case (-one, 0, 0, -one): return 180
        case (0, -one, one, 0): return 270
        default: return 0
        }
    }
}
