import CodecCore

/// What a sheet needs of a Matroska or WebM file before FFmpeg sees it, read by Masonry's own
/// EBML walk: the EBML header (DocType `matroska` or `webm`, read version), the Segment's
/// top-level elements up to the first Cluster (headers only, except `SeekHead`, `Info` and
/// `Tracks`, each read whole up to `maxElementBytes`), the `SeekHead` entries naming `Info` or
/// `Tracks` when those come after the first Cluster, and in `Info` the TimestampScale and
/// Duration, in the first video `TrackEntry` the CodecID and the `Video` element (PixelWidth,
/// PixelHeight, DisplayWidth, DisplayHeight, DisplayUnit, StereoMode, `Colour`'s
/// TransferCharacteristics and `Projection`'s type and pose).
///
/// Every element is bounded by its parent and by the file; a variable-size integer longer than
/// EBML allows (an ID over 4 bytes, a size over 8), an unknown size anywhere but the Segment and
/// a Cluster, more than `maxTopLevelElements` before the first Cluster, more than `maxTracks`
/// tracks, more than `maxSeekHeads` SeekHeads, a SeekHead entry past the Segment, or a SeekHead
/// that leads back to one already read is refused with its reason, so no
/// size a file claims is allocated and no walk loops (every element moves a walk forward by at
/// least its header).
public struct MatroskaHeader: Sendable {
    /// The first video track's coded size (PixelWidth × PixelHeight).
    public let codedWidth: Int, codedHeight: Int
    /// The sample aspect ratio FFmpeg 5.1 derives from DisplayWidth and DisplayHeight (1:1
    /// without them, or with a DisplayUnit it does not know).
    public let sampleAspect: (numerator: Int, denominator: Int)
    /// The clockwise rotation (0, 90, 180 or 270) of the display matrix FFmpeg 5.1 makes of a
    /// rectangular `Projection`'s pose: ProjectionPoseRoll turns counter-clockwise, a yaw of
    /// ±180° mirrors and turns the other way; a pitch, another yaw or a NaN roll gives none.
    public let rotation: Int
    /// Info's Duration in microseconds (TimestampScale applied, as FFmpeg truncates it); nil
    /// when absent.
    public let durationMicroseconds: Int?
    /// The track's CodecID ("V_VP9", "V_MPEG4/ISO/AVC").
    public let codec: String
    /// `Colour`'s TransferCharacteristics (ITU-T H.273: 16 PQ, 18 HLG); nil when absent.
    public let transfer: Int?
    public let trackCount: Int

    /// The largest `Info`, `Tracks` or `SeekHead` read whole: 1 MiB (a track's CodecPrivate is
    /// a few hundred bytes).
    public static let maxElementBytes = 1 << 20
    public static let maxTopLevelElements = 4096
    public static let maxTracks = 64
    /// SeekHeads read, the first and those it points to.
    public static let maxSeekHeads = 8
    /// The largest EBML header (a few dozen bytes in practice).
    static let maxEBMLHeaderBytes = 4096

    static let ebmlID = 0x1A45_DFA3, segmentID = 0x1853_8067, seekHeadID = 0x114D_9B74, infoID = 0x1549_A966
    static let tracksID = 0x1654_AE6B, clusterID = 0x1F43_B675

    public init(file: InputFile) throws(ImageError) {
        var reader = EBMLReader(WindowedReader(file: file))
        try self.init(reader: &reader)
    }

    public init(bytes: [UInt8]) throws(ImageError) {
        var reader = EBMLReader(WindowedReader(bytes: bytes))
        try self.init(reader: &reader)
    }

    private init(reader: inout EBMLReader) throws(ImageError) {
        let header = try reader.element(at: 0, parentEnd: reader.size)
        guard header.id == Self.ebmlID else { throw EBMLReader.malformed("the file does not start with an EBML header") }
        guard let headerEnd = header.end else { throw EBMLReader.unknownSize(header) }
        try Self.checkEBMLHeader(try reader.children(of: header, limit: Self.maxEBMLHeaderBytes, name: "EBML header"))

        // The Segment: the first top-level element after the header that is one.
        var at = headerEnd, count = 0
        var found: EBMLElement?
        while found == nil, at < reader.size {
            count += 1
            guard count <= Self.maxTopLevelElements else { throw EBMLReader.malformed("more than \(Self.maxTopLevelElements) elements before the Segment") }
            let element = try reader.element(at: at, parentEnd: reader.size)
            if element.id == Self.segmentID { found = element; break }
            guard let end = element.end else { throw EBMLReader.unknownSize(element) }
            at = end
        }
        guard let segment = found else { throw EBMLReader.malformed("no Segment element") }
        let segmentEnd = segment.end ?? reader.size

        var info: [EBMLElement]?, tracks: EBMLElement?
        var seekHeads: [Int] = [], pendingSeeks: [Int] = []
        func read(_ element: EBMLElement, reader: inout EBMLReader) throws(ImageError) {
            switch element.id {
            case Self.infoID where info == nil: info = try reader.children(of: element, name: "Info")
            case Self.tracksID where tracks == nil:
                try reader.checkSize(of: element, limit: Self.maxElementBytes, name: "Tracks")
                tracks = element
            case Self.seekHeadID:
                seekHeads.append(element.start)
                guard seekHeads.count <= Self.maxSeekHeads else {
                    throw ImageError(.limitExceeded, "Matroska file has more than \(Self.maxSeekHeads) SeekHead elements")
                }
                for seek in try reader.children(of: element, name: "SeekHead") where seek.id == 0x4DBB {
                    let fields = try reader.children(of: seek)
                    guard let id = fields.first(where: { $0.id == 0x53AB }), let position = fields.first(where: { $0.id == 0x53AC }),
                          [Self.infoID, Self.tracksID, Self.seekHeadID].contains(Int(try EBMLReader.unsigned(id, maxBytes: 4))) else { continue }
                    let target = try EBMLReader.unsigned(position)
                    guard target < UInt64(segmentEnd - segment.dataStart) else {
                        throw EBMLReader.malformed("a SeekHead entry points to byte \(target) of the Segment, past its end")
                    }
                    pendingSeeks.append(segment.dataStart + Int(target))
                }
            default:
                break
            }
        }

        // The Segment's elements in order, to the first Cluster.
        var visited: Set<Int> = []
        at = segment.dataStart
        count = 0
        while at < segmentEnd, info == nil || tracks == nil {
            count += 1
            guard count <= Self.maxTopLevelElements else {
                throw EBMLReader.malformed("more than \(Self.maxTopLevelElements) elements before the first Cluster")
            }
            let element = try reader.element(at: at, parentEnd: segmentEnd)
            if element.id == Self.clusterID { break }
            guard let end = element.end else { throw EBMLReader.unknownSize(element) }
            visited.insert(element.start)
            try read(element, reader: &reader)
            at = end
        }
        // Info or Tracks after the Clusters: where the SeekHeads say, each place read once.
        while info == nil || tracks == nil, !pendingSeeks.isEmpty {
            let target = pendingSeeks.removeFirst()
            guard visited.insert(target).inserted else {
                if seekHeads.contains(target) { throw EBMLReader.malformed("the SeekHead entries loop back to the SeekHead at byte \(target)") }
                continue
            }
            let element = try reader.element(at: target, parentEnd: segmentEnd)
            guard element.end != nil else { throw EBMLReader.unknownSize(element) }
            try read(element, reader: &reader)
        }
        guard let tracks else { throw EBMLReader.malformed("no Tracks element") }

        // Info: TimestampScale (nanoseconds a tick, 1,000,000 by default) and Duration (ticks).
        var scale: UInt64 = 1_000_000
        var duration: Double?
        for element in info ?? [] {
            switch element.id {
            case 0x2AD7B1: scale = try EBMLReader.unsigned(element)
            case 0x4489: duration = try EBMLReader.float(element)
            default: break
            }
        }
        let microseconds = (duration ?? 0) * Double(scale) / 1000
        durationMicroseconds = microseconds >= 1 && microseconds < 9e18 ? Int(microseconds) : nil

        // Tracks: the first TrackEntry of TrackType 1.
        var entries = 0
        var video: Track?
        at = tracks.dataStart
        while at < tracks.end! {
            let entry = try reader.element(at: at, parentEnd: tracks.end!)
            guard let end = entry.end else { throw EBMLReader.unknownSize(entry) }
            at = end
            guard entry.id == 0xAE else { continue }
            entries += 1
            guard entries <= Self.maxTracks else { throw ImageError(.limitExceeded, "Matroska file has more than \(Self.maxTracks) tracks") }
            if video == nil, let track = try Track(entry, reader: &reader) { video = track }
        }
        trackCount = entries
        guard let video else { throw ImageError(.unsupported, "Matroska file has no video track") }
        guard video.width > 0, video.height > 0 else { throw EBMLReader.malformed("the video track has no picture size") }
        codedWidth = video.width
        codedHeight = video.height
        codec = video.codec
        transfer = video.transfer
        sampleAspect = video.sampleAspect
        rotation = video.rotation
    }

    /// The EBML header's fields that decide whether Masonry (and FFmpeg) can read the rest.
    private static func checkEBMLHeader(_ fields: [EBMLElement]) throws(ImageError) {
        for field in fields {
            switch field.id {
            case 0x42F7 where field.unsignedValue > 1:
                throw ImageError(.unsupported, "Matroska file needs EBML read version \(field.unsignedValue)")
            case 0x42F2 where field.unsignedValue > 4:
                throw EBMLReader.malformed("EBMLMaxIDLength is \(field.unsignedValue), more than 4")
            case 0x42F3 where field.unsignedValue > 8:
                throw EBMLReader.malformed("EBMLMaxSizeLength is \(field.unsignedValue), more than 8")
            case 0x4282:
                let docType = field.value.prefix { $0 != 0 }
                guard docType.elementsEqual("matroska".utf8) || docType.elementsEqual("webm".utf8) else {
                    // The file's bytes, quoted: printable ASCII only, and 32 at most.
                    let shown = printableASCII(docType.prefix(32)) + (docType.count > 32 ? "…" : "")
                    throw EBMLReader.malformed("DocType '\(shown)' is neither matroska nor webm")
                }
            default:
                break
            }
        }
    }

    /// A TrackEntry's fields; nil unless it is a video track (TrackType 1).
    private struct Track {
        var width = 0, height = 0
        var codec = ""
        var transfer: Int?
        var sampleAspect = (numerator: 1, denominator: 1)
        var rotation = 0

        init?(_ entry: EBMLElement, reader: inout EBMLReader) throws(ImageError) {
            var isVideo = false
            var videoFields: [EBMLElement] = []
            for field in try reader.children(of: entry) {
                switch field.id {
                case 0x83: isVideo = try EBMLReader.unsigned(field) == 1
                case 0x86: codec = try EBMLReader.text(field, maxBytes: 64)
                case 0xE0: videoFields = try reader.children(of: field)
                default: break
                }
            }
            guard isVideo else { return nil }
            var displayWidth: UInt64?, displayHeight: UInt64?, displayUnit: UInt64 = 0, stereoMode: UInt64 = 0
            for field in videoFields {
                switch field.id {
                case 0xB0: width = Int(clamping: try EBMLReader.unsigned(field))
                case 0xBA: height = Int(clamping: try EBMLReader.unsigned(field))
                case 0x54B0: displayWidth = try EBMLReader.unsigned(field)
                case 0x54BA: displayHeight = try EBMLReader.unsigned(field)
                case 0x54B2: displayUnit = try EBMLReader.unsigned(field)
                case 0x53B8: stereoMode = try EBMLReader.unsigned(field)
                case 0x55B0:
                    for colour in try reader.children(of: field) where colour.id == 0x55BA {
                        transfer = Int(clamping: try EBMLReader.unsigned(colour))
                    }
                case 0x7670:
                    rotation = try Self.rotation(of: try reader.children(of: field))
                default: break
                }
            }
            guard width > 0, height > 0, width <= 1 << 24, height <= 1 << 24 else { return }
            // FFmpeg 5.1's matroskadec: the display size defaults to the pixel size; a stereo
            // mode of two views side by side (or stacked) doubles that side; the ratio is
            // reduced exactly.
            let shownWidth = Int(clamping: displayWidth ?? UInt64(width)), shownHeight = Int(clamping: displayHeight ?? UInt64(height))
            let widthFactor = [1, 11, 8, 9].contains(stereoMode) ? 2 : 1, heightFactor = [2, 3, 6, 7].contains(stereoMode) ? 2 : 1
            guard displayUnit < 4, shownWidth > 0, shownHeight > 0, shownWidth <= 1 << 24, shownHeight <= 1 << 24 else { return }
            let numerator = height * shownWidth * widthFactor, denominator = width * shownHeight * heightFactor
            sampleAspect = reducedRatio(numerator, denominator)
        }

        /// FFmpeg 5.1's `mkv_create_display_matrix` for a `Projection`, as the bridge reads the
        /// matrix back: clockwise −roll, or 180° − roll mirrored (yaw ±180°), to the nearest
        /// right angle.
        private static func rotation(of projection: [EBMLElement]) throws(ImageError) -> Int {
            var type: UInt64 = 0, yaw = 0.0, pitch = 0.0, roll = 0.0
            for field in projection {
                switch field.id {
                case 0x7671: type = try EBMLReader.unsigned(field)
                case 0x7673: yaw = try EBMLReader.float(field)
                case 0x7674: pitch = try EBMLReader.float(field)
                case 0x7675: roll = try EBMLReader.float(field)
                default: break
                }
            }
            guard type == 0, pitch == 0, [0, 180, -180].contains(yaw), roll.isFinite else { return 0 }
            let clockwise = (yaw == 0 ? -roll : 180 - roll).truncatingRemainder(dividingBy: 360)
            let turn = Int((clockwise / 90).rounded(.toNearestOrAwayFromZero)) * 90
            return (turn % 360 + 360) % 360
        }
    }
}

/// One EBML element: where it starts, its ID, where its data starts and ends (nil: an unknown
/// size, which runs to its parent's end), and for small leaf elements read with their parent,
/// the value's bytes.
struct EBMLElement {
    let start: Int
    let id: Int
    let dataStart: Int
    let end: Int?
    var value: ArraySlice<UInt8> = []

    /// The value as a big-endian unsigned integer (0 when empty).
    var unsignedValue: UInt64 { value.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } }
}

/// EBML's variable-size integers and elements over a `WindowedReader`, every size checked
/// against the parent and the file.
struct EBMLReader {
    private var reader: WindowedReader
    var size: Int { reader.size }
    /// Values of leaf elements up to this size are read with their parent's children.
    static let maxValueBytes = 256

    init(_ reader: WindowedReader) { self.reader = reader }

    static func malformed(_ detail: String) -> ImageError { ImageError(.malformed, "malformed Matroska file: \(detail)") }

    static func unknownSize(_ element: EBMLElement) -> ImageError {
        malformed("element \(hex(element.id)) at byte \(element.start) has an unknown size, which only a Segment or a Cluster may have")
    }

    static func hex(_ id: Int) -> String { "0x" + String(id, radix: 16, uppercase: true) }

    /// A variable-size integer at `at` of at most `maxLength` bytes: its value (the length marker
    /// removed unless `keepMarker`, as for IDs), its length, and whether all its value bits are 1
    /// (an unknown size).
    private mutating func vint(at: Int, maxLength: Int, keepMarker: Bool, what: String) throws(ImageError) -> (UInt64, Int, Bool) {
        guard let first = try reader.bytes(at: at, count: 1).first else { throw Self.malformed("truncated \(what) at byte \(at)") }
        let length = first.leadingZeroBitCount + 1
        guard first != 0, length <= maxLength else {
            throw Self.malformed("\(what) at byte \(at) is longer than \(maxLength) bytes")
        }
        let bytes = try reader.bytes(at: at, count: length)
        guard bytes.count == length else { throw Self.malformed("truncated \(what) at byte \(at)") }
        let marker = UInt8(0x80) >> (length - 1)
        var value = UInt64(keepMarker ? first : first & ~marker)
        for byte in bytes.dropFirst() { value = value << 8 | UInt64(byte) }
        let allOnes = (first & (marker &- 1)) == marker &- 1 && bytes.dropFirst().allSatisfy { $0 == 0xFF }
        return (value, length, allOnes)
    }

    /// The element at `at`, which must end by `parentEnd` (the file's end bounds it too).
    mutating func element(at: Int, parentEnd: Int) throws(ImageError) -> EBMLElement {
        let (id, idLength, _) = try vint(at: at, maxLength: 4, keepMarker: true, what: "element ID")
        let (size, sizeLength, unknown) = try vint(at: at + idLength, maxLength: 8, keepMarker: false, what: "element size")
        let dataStart = at + idLength + sizeLength
        let name = Self.hex(Int(id))
        guard dataStart <= parentEnd else { throw Self.malformed("truncated element \(name) at byte \(at)") }
        if unknown {
            guard Int(id) == MatroskaHeader.segmentID || Int(id) == MatroskaHeader.clusterID else {
                throw Self.unknownSize(EBMLElement(start: at, id: Int(id), dataStart: dataStart, end: nil))
            }
            return EBMLElement(start: at, id: Int(id), dataStart: dataStart, end: nil)
        }
        guard size <= UInt64(parentEnd - dataStart) else {
            throw Self.malformed("element \(name) at byte \(at) claims \(size) bytes, past the end of its parent")
        }
        return EBMLElement(start: at, id: Int(id), dataStart: dataStart, end: dataStart + Int(size))
    }

    /// Refuses a master element of unknown size or of more than `limit` bytes.
    func checkSize(of parent: EBMLElement, limit: Int, name: String) throws(ImageError) {
        guard let end = parent.end else { throw Self.unknownSize(parent) }
        guard end - parent.dataStart <= limit else {
            throw ImageError(.limitExceeded, "Matroska file's \(name) element is \(end - parent.dataStart) bytes, more than \(limit >> 10) KiB")
        }
    }

    /// The children of a master element of known size and at most `limit` bytes, each leaf
    /// value of up to `maxValueBytes` bytes read along (at most `limit` / 2 children: an
    /// element takes at least two bytes).
    mutating func children(of parent: EBMLElement, limit: Int = MatroskaHeader.maxElementBytes, name: String? = nil) throws(ImageError) -> [EBMLElement] {
        try checkSize(of: parent, limit: limit, name: name ?? Self.hex(parent.id))
        var found: [EBMLElement] = []
        var at = parent.dataStart
        while at < parent.end! {
            var child = try element(at: at, parentEnd: parent.end!)
            guard let childEnd = child.end else { throw Self.unknownSize(child) }
            if childEnd - child.dataStart <= Self.maxValueBytes {
                child.value = try reader.bytes(at: child.dataStart, count: childEnd - child.dataStart)
                guard child.value.count == childEnd - child.dataStart else { throw ImageError(.truncatedFile) }
            }
            found.append(child)
            at = childEnd
        }
        return found
    }

    /// An unsigned integer element of at most `maxBytes` bytes.
    static func unsigned(_ element: EBMLElement, maxBytes: Int = 8) throws(ImageError) -> UInt64 {
        guard let end = element.end, end - element.dataStart <= maxBytes, element.value.count == end - element.dataStart else {
            throw malformed("integer element \(hex(element.id)) at byte \(element.start) is longer than \(maxBytes) bytes")
        }
        return element.unsignedValue
    }

    /// A float element: 0, 4 or 8 bytes.
    static func float(_ element: EBMLElement) throws(ImageError) -> Double {
        guard let end = element.end, element.value.count == end - element.dataStart else {
            throw malformed("float element \(hex(element.id)) at byte \(element.start) is longer than 8 bytes")
        }
        switch element.value.count {
        case 0: return 0
        case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: element.unsignedValue)))
        case 8: return Double(bitPattern: element.unsignedValue)
        default: throw malformed("float element \(hex(element.id)) at byte \(element.start) is \(element.value.count) bytes")
        }
    }

    /// A string element of at most `maxBytes` bytes (NUL padding dropped).
    static func text(_ element: EBMLElement, maxBytes: Int) throws(ImageError) -> String {
        guard element.value.count <= maxBytes, let end = element.end, element.value.count == end - element.dataStart else {
            throw malformed("string element \(hex(element.id)) at byte \(element.start) is longer than \(maxBytes) bytes")
        }
        return String(decoding: element.value.prefix { $0 != 0 }, as: UTF8.self)
    }
}
