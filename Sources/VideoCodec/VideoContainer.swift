import CodecCore

/// The container families Masonry reads videos in, each told from its first bytes and read by
/// one FFmpeg demuxer (never chosen by FFmpeg's probing, which knows playlists and patterns
/// that open other files).
public enum VideoContainer: String, Sendable, Hashable, CaseIterable {
    /// ISO base media files of MPEG-4 brands (`isom`, `mp41`, `mp42`, `avc1`, `M4V `, …).
    case mp4 = "MP4"
    /// QuickTime movies: `ftyp` of major brand `qt  `, or an old movie that starts with its atoms.
    case mov = "MOV"
    /// Matroska and WebM (EBML, DocType `matroska` or `webm`).
    case matroska = "Matroska"
    /// RIFF `AVI `.
    case avi = "AVI"

    /// The FFmpeg demuxer that reads it.
    public var demuxer: String {
        switch self {
        case .mp4, .mov: "mov"
        case .matroska: "matroska"
        case .avi: "avi"
        }
    }

    /// How many leading bytes `init(prefix:)` looks at.
    public static let signaturePrefixBytes = 256

    /// The brands of ISO base media video files (HEIF's image brands are the HEIF entries'; a
    /// file naming both is theirs, by priority).
    static let mp4Brands: Set<String> = ["isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9", "mp41", "mp42",
                                         "mp71", "avc1", "M4V ", "M4VH", "M4VP", "M4A ", "3gp4", "3gp5", "3gp6", "3gp7", "3g2a",
                                         "3g2b", "MSNV", "f4v ", "dash", "hvc1", "av01", "XAVC", "NDAS", "CAEP"]
    /// The first atoms of a QuickTime movie written without `ftyp`.
    static let quickTimeFirstAtoms: Set<String> = ["moov", "mdat", "wide", "pnot"]

    /// The container of a file starting with `prefix`, or nil.
    public init?(prefix: some Collection<UInt8>) {
        self.init(prefix: Array(prefix.prefix(Self.signaturePrefixBytes)))
    }

    /// The container of a file starting with `prefix`, or nil. Every file of a folder is
    /// tested (four video entries), so bytes are compared before any text is made.
    public init?(prefix: [UInt8]) {
        let bytes = prefix.count > Self.signaturePrefixBytes ? Array(prefix[..<Self.signaturePrefixBytes]) : prefix
        guard bytes.count >= 12 else { return nil }
        if bytes[0..<4].elementsEqual([0x1A, 0x45, 0xDF, 0xA3]) {
            guard Self.matroskaDocType(bytes) != nil else { return nil }
            self = .matroska
        } else if bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("AVI ".utf8) {
            self = .avi
        } else if bytes[4..<8].elementsEqual("ftyp".utf8) {
            let size = Int(readBigEndian32(bytes, 0))
            guard size >= 16 else { return nil }
            let brands = stride(from: 8, to: min(size, bytes.count) - 3, by: 4).filter { $0 != 12 }.map { fourCC(bytes[$0..<($0 + 4)]) }
            if brands.first == "qt  " {
                self = .mov
            } else if brands.contains(where: Self.mp4Brands.contains) {
                self = .mp4
            } else if brands.contains("qt  ") {
                self = .mov
            } else {
                return nil
            }
        } else if Self.quickTimeFirstAtoms.contains(where: { $0.utf8.elementsEqual(bytes[4..<8]) }), readBigEndian32(bytes, 0) >= 8 {
            self = .mov
        } else {
            return nil
        }
    }

    /// The DocType of an EBML header in `bytes` ("matroska" or "webm"), or nil.
    static func matroskaDocType(_ bytes: [UInt8]) -> String? {
        // DocType is element 0x4282 inside the EBML header; its size a variable-size integer of
        // one to eight bytes (the first byte's leading zeros count the bytes after it).
        var at = 4
        while at + 3 <= bytes.count {
            if bytes[at] == 0x42, bytes[at + 1] == 0x82, bytes[at + 2] != 0 {
                let sizeLength = bytes[at + 2].leadingZeroBitCount + 1, start = at + 2 + sizeLength
                guard start <= bytes.count else { return nil }
                let length = bytes[(at + 3)..<start].reduce(Int(bytes[at + 2] & (0xFF >> sizeLength))) { $0 << 8 | Int($1) }
                guard length <= 16, start + length <= bytes.count else { return nil }
                let docType = String(decoding: bytes[start..<(start + length)], as: UTF8.self)
                return docType == "matroska" || docType == "webm" ? docType : nil
            }
            at += 1
        }
        return nil
    }
}

func readBigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
}

func readBigEndian16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
    UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
}

func readBigEndian64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
    UInt64(readBigEndian32(bytes, at)) << 32 | UInt64(readBigEndian32(bytes, at + 4))
}

/// `numerator`:`denominator` in lowest terms (both positive).
func reducedRatio(_ numerator: Int, _ denominator: Int) -> (numerator: Int, denominator: Int) {
    var (a, b) = (numerator, denominator)
    while b != 0 { (a, b) = (b, a % b) }
    return a > 0 ? (numerator / a, denominator / a) : (1, 1)
}
