import CodecCore
import Raster

/// What a sheet needs to know about a JPEG XL file before decoding it, read by Masonry's own
/// parser (no libjxl, no pixel decoded, nothing allocated in proportion to a claimed size).
///
/// - Layout: a naked codestream (`FF 0A`), or the ISOBMFF container (the 12-byte `JXL ` box,
///   then `ftyp`, and the codestream in one `jxlc` box or in `jxlp` parts, beside `jbrd`
///   (a recompressed JPEG's reconstruction data), `Exif`, `xml `, `jumb`, `brob` and others).
///   Boxes are walked by their headers only, at most `maxBoxes` of them; a box that runs past
///   the end of the file, or a container without codestream, is a one-line error.
/// - Codestream: the bit-packed SizeHeader (the U32 distributions, a ratio deriving the width)
///   and the ImageMetadata up to the colour encoding: orientation, intrinsic size, preview,
///   animation, bit depth, extra channels (alpha), whether the samples are XYB (lossy), and the
///   colour encoding as an enum or "an ICC profile follows" (the profile itself is entropy
///   coded: libjxl reads it). Only the first `maxHeaderBytes` of the codestream are read.
/// - Orientation is the codestream's (the `Exif` box's does not count, as the format says).
public struct JXLHeader: Sendable, Hashable, WindowedHeader {
    /// How the file is laid out.
    public enum Layout: Sendable, Hashable {
        /// The bare codestream, `FF 0A`.
        case codestream
        /// The ISOBMFF container; `hasJPEGReconstruction` when a `jbrd` box makes it a
        /// recompressed JPEG (drawn through libjxl's pixel decode all the same).
        case container(hasJPEGReconstruction: Bool)
    }

    /// The colour encoding the codestream declares (ImageMetadata's `colour_encoding`).
    public enum ColorEncoding: Sendable, Hashable {
        /// An ICC profile follows the metadata (libjxl reads it); `isGrey` for a grey picture.
        case icc(isGrey: Bool)
        /// Enumerated values, with the numbers the JPEG XL format gives them (which are H.273's
        /// for primaries 1, 9 and transfer functions): `primaries` nil for grey.
        case enumerated(colorSpace: Int, whitePoint: Int, primaries: Int?, transfer: Int?, gamma: Int?)

        /// sRGB: the encoding of `all_default`.
        public static let sRGB = ColorEncoding.enumerated(colorSpace: 0, whitePoint: 1, primaries: 1, transfer: 13, gamma: nil)
    }

    public let layout: Layout
    /// The stored size (before `orientation`).
    public let width: Int
    public let height: Int
    /// How the stored picture is turned to be shown.
    public let orientation: ExifOrientation
    /// A picture's width and height.
    public struct Size: Sendable, Hashable {
        public let width: Int
        public let height: Int
    }

    /// The size of the embedded preview frame, or nil.
    public let previewSize: Size?
    /// True when the image is an animation (the first frame is drawn).
    public let isAnimated: Bool
    /// Bits per colour sample as stored (8, 10, 12, 16, 32 for float…).
    public let bitsPerSample: Int
    /// Whether samples are floating point.
    public let isFloat: Bool
    /// 1 for grey, 3 for colour.
    public let colorChannels: Int
    /// Whether one extra channel is alpha.
    public let hasAlpha: Bool
    /// How many extra channels (alpha, depth, spot colours…) the image has.
    public let extraChannelCount: Int
    /// The samples are XYB (lossy VarDCT or lossy modular): libjxl converts them to sRGB.
    public let isXYB: Bool
    public let colorEncoding: ColorEncoding

    /// The first bytes of a naked codestream.
    public static let codestreamSignature: [UInt8] = [0xFF, 0x0A]
    /// The container's first box.
    public static let containerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    /// Of the codestream, what the header reader reads at most: the SizeHeader and ImageMetadata
    /// fit in a few dozen bytes unless extra channels have long names.
    public static let maxHeaderBytes = 1 << 16
    /// The most boxes of a container walked before its codestream is found.
    public static let maxBoxes = 1 << 16
    /// The largest side the format allows (2^30).
    public static let maxSide = 1 << 30

    /// Whether `prefix` (at least 12 bytes for the container) starts a JPEG XL file.
    public static func hasSignature(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: codestreamSignature) || prefix.starts(with: containerSignature)
    }

    public init(reader: inout WindowedReader) throws(ImageError) {
        let prefix = Array(try reader.bytes(at: 0, count: Self.containerSignature.count))
        let codestream: [UInt8]
        if prefix.starts(with: Self.codestreamSignature) {
            layout = .codestream
            codestream = Array(try reader.bytes(at: 0, count: Self.maxHeaderBytes))
        } else if prefix == Self.containerSignature {
            let boxes = try Self.walkContainer(&reader)
            layout = .container(hasJPEGReconstruction: boxes.hasJPEGReconstruction)
            codestream = boxes.codestreamStart
        } else {
            throw ImageError(.malformed, "not a JPEG XL file")
        }
        guard codestream.starts(with: Self.codestreamSignature) else {
            throw ImageError(.malformed, "JPEG XL codestream without its FF 0A signature")
        }
        var bits = BitReader(bytes: codestream, offset: 2, isWholeFile: codestream.count < Self.maxHeaderBytes)
        let size = try bits.sizeHeader()
        (width, height) = size
        let metadata = try ImageMetadata(&bits)
        orientation = ExifOrientation(rawValue: metadata.orientation) ?? .up
        previewSize = metadata.previewSize
        isAnimated = metadata.isAnimated
        bitsPerSample = metadata.bitsPerSample
        isFloat = metadata.isFloat
        hasAlpha = metadata.hasAlpha
        extraChannelCount = metadata.extraChannelCount
        isXYB = metadata.isXYB
        colorEncoding = metadata.colorEncoding
        colorChannels = switch metadata.colorEncoding {
        case .icc(isGrey: true), .enumerated(colorSpace: 1, _, _, _, _): 1
        default: 3
        }
    }

    /// The boxes of a container that matter: the codestream's first bytes (gathered from
    /// `jxlc` or the `jxlp` parts, up to `maxHeaderBytes`) and whether a `jbrd` box is there.
    private static func walkContainer(_ reader: inout WindowedReader) throws(ImageError)
        -> (codestreamStart: [UInt8], hasJPEGReconstruction: Bool) {
        var offset = containerSignature.count
        var codestream: [UInt8] = []
        var hasJPEGReconstruction = false
        var sawFileType = false
        var boxCount = 0
        var codestreamComplete = false
        while offset < reader.size {
            boxCount += 1
            guard boxCount <= maxBoxes else { throw ImageError(.malformed, "JPEG XL container of more than \(maxBoxes) boxes") }
            let header = Array(try reader.bytes(at: offset, count: 16))
            guard header.count >= 8 else { throw ImageError(.malformed, "truncated JPEG XL box header") }
            let size32 = header[0 ..< 4].reduce(0) { $0 << 8 | Int($1) }
            let type = Self.boxTypeName(header[4 ..< 8])
            var headerSize = 8
            let boxSize: Int
            if size32 == 1 {
                guard header.count >= 16 else { throw ImageError(.malformed, "truncated JPEG XL box header") }
                let large = header[8 ..< 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard large <= UInt64(Int.max) else { throw ImageError(.malformed, "JPEG XL box '\(type)' runs past the end of the file") }
                boxSize = Int(large)
                headerSize = 16
            } else if size32 == 0 {
                boxSize = reader.size - offset   // to the end of the file
            } else {
                boxSize = size32
            }
            guard boxSize >= headerSize else { throw ImageError(.malformed, "JPEG XL box '\(type)' smaller than its header") }
            guard boxSize <= reader.size - offset else {
                throw ImageError(.malformed, "JPEG XL box '\(type)' runs past the end of the file")
            }
            let payload = offset + headerSize ..< offset + boxSize
            if !sawFileType {
                guard type == "ftyp", payload.count >= 4,
                      Array(try reader.bytes(at: payload.lowerBound, count: 4)) == Array("jxl ".utf8) else {
                    throw ImageError(.malformed, "JPEG XL container without its 'ftyp' box of brand 'jxl '")
                }
                sawFileType = true
            }
            switch type {
            case "jbrd":
                hasJPEGReconstruction = true
            case "jxlc" where !codestreamComplete, "jxlp" where !codestreamComplete:
                // A jxlp box starts with its 4-byte part index (its high bit marks the last part).
                let skip = type == "jxlp" ? 4 : 0
                guard payload.count >= skip else { throw ImageError(.malformed, "truncated JPEG XL box 'jxlp'") }
                let wanted = maxHeaderBytes - codestream.count
                codestream += try reader.bytes(at: payload.lowerBound + skip, count: min(wanted, payload.count - skip))
                let isLastPart = try (reader.bytes(at: payload.lowerBound, count: 1).first ?? 0) & 0x80 != 0
                codestreamComplete = type == "jxlc" || codestream.count >= maxHeaderBytes || isLastPart
            default:
                break
            }
            offset += boxSize
        }
        guard !codestream.isEmpty else { throw ImageError(.malformed, "JPEG XL container without a codestream") }
        return (codestream, hasJPEGReconstruction)
    }
}

extension JXLHeader {
    /// A box type as messages show it: its four characters when they are printable ASCII
    /// ("jxlc"), else its bytes in hex ("0x00ff2041"), so a damaged file's bytes never reach a terminal.
    static func boxTypeName(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.allSatisfy({ (0x20 ... 0x7E).contains($0) }) { return String(decoding: bytes, as: UTF8.self) }
        return "0x" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

/// The JPEG XL codestream's bit reader: least significant bit of each byte first.
struct BitReader {
    private let bytes: [UInt8]
    private var position: Int
    /// The bytes are all the codestream has (a read past them is a truncated file), not only
    /// its first `maxHeaderBytes`.
    private let isWholeFile: Bool

    init(bytes: [UInt8], offset: Int, isWholeFile: Bool) {
        self.bytes = bytes
        position = offset * 8
        self.isWholeFile = isWholeFile
    }

    /// `count` (at most 32) bits as an unsigned value.
    mutating func bits(_ count: Int) throws(ImageError) -> Int {
        guard position + count <= bytes.count * 8 else {
            throw isWholeFile ? ImageError(.malformed, "truncated JPEG XL header")
                : ImageError(.limitExceeded, "JPEG XL header over \(JXLHeader.maxHeaderBytes / 1024) KiB")
        }
        var value = 0
        for i in 0 ..< count {
            let bit = position + i
            value |= Int(bytes[bit >> 3] >> (bit & 7) & 1) << i
        }
        position += count
        return value
    }

    mutating func bool() throws(ImageError) -> Bool { try bits(1) == 1 }

    /// One of a field's four distributions, picked by a 2-bit selector.
    enum Distribution {
        case value(Int)
        case bitsOffset(Int, Int)
    }

    /// The format's U32: a 2-bit selector, then the chosen distribution.
    mutating func u32(_ d0: Distribution, _ d1: Distribution, _ d2: Distribution, _ d3: Distribution) throws(ImageError) -> Int {
        switch [d0, d1, d2, d3][try bits(2)] {
        case .value(let value): value
        case .bitsOffset(let count, let offset): try bits(count) + offset
        }
    }

    /// An enum value (at most 63).
    mutating func enumValue() throws(ImageError) -> Int {
        let value = try u32(.value(0), .value(1), .bitsOffset(4, 2), .bitsOffset(6, 18))
        guard value < 64 else { throw ImageError(.malformed, "malformed JPEG XL header: enum value \(value)") }
        return value
    }

    /// The ratios a SizeHeader or PreviewHeader may derive the width from.
    private static let ratios = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)]

    /// The width from a non-zero ratio and the height.
    static func width(ratio: Int, height: Int) -> Int {
        let (numerator, denominator) = ratios[ratio - 1]
        return height * numerator / denominator
    }

    /// The codestream's (or the intrinsic) SizeHeader: width and height.
    mutating func sizeHeader() throws(ImageError) -> (width: Int, height: Int) {
        let small = try bool()
        func read(_ reader: inout BitReader) throws(ImageError) -> Int {
            small ? (try reader.bits(5) + 1) * 8
                : try reader.u32(.bitsOffset(9, 1), .bitsOffset(13, 1), .bitsOffset(18, 1), .bitsOffset(30, 1))
        }
        let height = try read(&self)
        let ratio = try bits(3)
        let width = ratio == 0 ? try read(&self) : Self.width(ratio: ratio, height: height)
        guard width <= JXLHeader.maxSide, height <= JXLHeader.maxSide else {
            throw ImageError(.malformed, "malformed JPEG XL header: \(width)×\(height) over the format's 2^30 sides")
        }
        return (width, height)
    }
}

/// The ImageMetadata bundle of the codestream, read up to its colour encoding (tone mapping
/// and extensions follow; nothing of them is needed).
struct ImageMetadata {
    var orientation = 1
    var previewSize: JXLHeader.Size?
    var isAnimated = false
    var bitsPerSample = 8
    var isFloat = false
    var hasAlpha = false
    var extraChannelCount = 0
    var isXYB = true
    var colorEncoding = JXLHeader.ColorEncoding.sRGB

    /// At most this many extra channels are read (the format allows 4097).
    static let maxExtraChannels = 256

    init(_ bits: inout BitReader) throws(ImageError) {
        if try bits.bool() { return }   // all_default
        let extraFields = try bits.bool()
        if extraFields {
            orientation = try bits.bits(3) + 1
            if try bits.bool() { _ = try bits.sizeHeader() }   // intrinsic size
            if try bits.bool() { previewSize = try Self.previewHeader(&bits) }
            if try bits.bool() {
                isAnimated = true
                _ = try bits.u32(.value(100), .value(1000), .bitsOffset(10, 1), .bitsOffset(30, 1))   // ticks numerator
                _ = try bits.u32(.value(1), .value(1001), .bitsOffset(8, 1), .bitsOffset(10, 1))      // ticks denominator
                _ = try bits.u32(.value(0), .bitsOffset(3, 0), .bitsOffset(16, 0), .bitsOffset(32, 0)) // loops
                _ = try bits.bool()                                                                    // timecodes
            }
        }
        (bitsPerSample, isFloat) = try Self.bitDepth(&bits)
        _ = try bits.bool()   // modular_16_bit_buffer_sufficient
        extraChannelCount = try bits.u32(.value(0), .value(1), .bitsOffset(4, 2), .bitsOffset(12, 1))
        guard extraChannelCount <= Self.maxExtraChannels else {
            throw ImageError(.unsupported, "JPEG XL image of \(extraChannelCount) extra channels (at most \(Self.maxExtraChannels) are read)")
        }
        for _ in 0 ..< extraChannelCount where try Self.extraChannelIsAlpha(&bits) { hasAlpha = true }
        isXYB = try bits.bool()
        colorEncoding = try Self.colorEncoding(&bits)
    }

    /// BitDepth: bits per sample and whether they are floating point.
    private static func bitDepth(_ bits: inout BitReader) throws(ImageError) -> (bits: Int, isFloat: Bool) {
        if try bits.bool() {
            let count = try bits.u32(.value(32), .value(16), .value(24), .bitsOffset(6, 1))
            _ = try bits.bits(4)   // exponent bits - 1
            return (count, true)
        }
        return (try bits.u32(.value(8), .value(10), .value(12), .bitsOffset(6, 1)), false)
    }

    /// PreviewHeader: the preview frame's size.
    private static func previewHeader(_ bits: inout BitReader) throws(ImageError) -> JXLHeader.Size {
        let div8 = try bits.bool()
        func side(_ bits: inout BitReader) throws(ImageError) -> Int {
            div8 ? try bits.u32(.value(16), .value(32), .bitsOffset(5, 1), .bitsOffset(9, 33)) * 8
                : try bits.u32(.bitsOffset(6, 1), .bitsOffset(8, 65), .bitsOffset(10, 321), .bitsOffset(12, 1345))
        }
        let height = try side(&bits)
        let ratio = try bits.bits(3)
        return JXLHeader.Size(width: ratio == 0 ? try side(&bits) : BitReader.width(ratio: ratio, height: height), height: height)
    }

    /// ExtraChannelInfo, read through; whether the channel is alpha.
    private static func extraChannelIsAlpha(_ bits: inout BitReader) throws(ImageError) -> Bool {
        if try bits.bool() { return true }   // all_default: 8-bit alpha
        let type = try bits.enumValue()
        _ = try bitDepth(&bits)
        _ = try bits.u32(.value(0), .value(3), .value(4), .bitsOffset(3, 1))   // dim_shift
        let nameLength = try bits.u32(.value(0), .bitsOffset(4, 0), .bitsOffset(5, 16), .bitsOffset(10, 48))
        for _ in 0 ..< nameLength { _ = try bits.bits(8) }
        switch type {
        case 0: _ = try bits.bool()                          // alpha_associated
        case 2: for _ in 0 ..< 4 { _ = try bits.bits(16) }   // spot colour: red, green, blue, solidity (F16)
        case 5: _ = try bits.u32(.value(1), .bitsOffset(2, 0), .bitsOffset(4, 3), .bitsOffset(8, 19))   // CFA channel
        default: break
        }
        return type == 0
    }

    /// ColourEncoding: "ICC" or its enumerated values.
    private static func colorEncoding(_ bits: inout BitReader) throws(ImageError) -> JXLHeader.ColorEncoding {
        if try bits.bool() { return .sRGB }   // all_default
        let wantsICC = try bits.bool()
        let colorSpace = try bits.enumValue()   // 0 RGB, 1 grey, 2 XYB, 3 unknown
        if wantsICC { return .icc(isGrey: colorSpace == 1) }
        var whitePoint = 1, primaries: Int?
        if colorSpace != 2 {
            whitePoint = try bits.enumValue()
            if whitePoint == 2 { try customXY(&bits, count: 1) }
            if colorSpace != 1 {
                primaries = try bits.enumValue()
                if primaries == 2 { try customXY(&bits, count: 3) }
            }
        }
        var transfer: Int?, gamma: Int?
        if try bits.bool() { gamma = try bits.bits(24) } else { transfer = try bits.enumValue() }
        _ = try bits.enumValue()   // rendering intent
        return .enumerated(colorSpace: colorSpace, whitePoint: whitePoint, primaries: primaries, transfer: transfer, gamma: gamma)
    }

    /// `count` Customxy bundles (a chromaticity's x and y), read through.
    private static func customXY(_ bits: inout BitReader, count: Int) throws(ImageError) {
        for _ in 0 ..< 2 * count {
            _ = try bits.u32(.bitsOffset(19, 0), .bitsOffset(19, 524_288), .bitsOffset(20, 1_048_576), .bitsOffset(21, 2_097_152))
        }
    }
}
