import CodecCore
import Raster

/// What a sheet needs to know about a GIF before decoding it: the canvas the first frame is
/// drawn on, that frame's place, and how many frames the file holds.
///
/// Masonry's own walk over the blocks (no giflib): the signature (GIF87a or GIF89a), the
/// logical screen descriptor, the global colour table, then record by record: extensions and
/// image descriptors with their local colour tables, each record's data sub-blocks skipped by
/// their lengths (no LZW decoding). Reads go through one 64 KiB window, so a 100,000-frame
/// animation or a 50 MB file is one sequential pass with nothing kept per frame.
///
/// - Canvas: the logical screen grown to hold the first frame (`max(screen, offset + size)`
///   on each side), as Pillow and the browsers (Chromium's GIFImageReader) both do; so a
///   screen of 0×0, or one smaller than the first frame, still shows the whole frame.
/// - Damage: a file cut (or broken) after the first frame's data keeps the frames counted up
///   to the damage, and `note` says where it stopped; a first frame whose data is cut is
///   drawn as far as it goes (`isFirstFrameComplete` false). Damage before the first frame's
///   data throws.
/// - Colour: GIF carries no colour information beyond its palettes.
public struct GIFHeader: Sendable, Hashable, WindowedHeader {
    /// The canvas width: the logical screen's, widened to hold the first frame.
    public let width: Int
    /// The canvas height: the logical screen's, heightened to hold the first frame.
    public let height: Int
    /// Always `.up`: GIF has no orientation.
    public let orientation: ExifOrientation
    /// The image descriptors counted (1 for a still); up to the damage when `note` says so.
    public let frameCount: Int
    /// "87a" or "89a".
    public let version: String
    /// The logical screen size as the file claims it (may be 0, or smaller than the frame).
    public let screenWidth: Int
    public let screenHeight: Int
    /// Entries of the global colour table; 0 when the file has none.
    public let globalColorCount: Int
    /// The first frame's image descriptor.
    public let firstFrame: GIFFrame
    /// The transparent palette index of the first frame (its graphic control extension), or nil.
    public let transparentIndex: Int?
    /// False when the file ends inside the first frame's image data.
    public let isFirstFrameComplete: Bool
    /// Why the walk stopped before a trailer, when it did ("no trailer", "truncated in frame
    /// 3"); nil for a well-formed file.
    public let note: String?
    /// Always nil: kept for the shape every format's header shares (GIF has no colour profile).
    public let colorNote: String?

    /// True when `prefix` starts with "GIF87a" or "GIF89a".
    @inlinable
    public static func hasSignature(_ prefix: some Collection<UInt8>) -> Bool {
        prefix.starts(with: Self.signature87) || prefix.starts(with: Self.signature89)
    }

    @usableFromInline static let signature87 = Array("GIF87a".utf8)
    @usableFromInline static let signature89 = Array("GIF89a".utf8)

    public init(reader: inout WindowedReader) throws(ImageError) {
        let start = try reader.read(13)
        guard Self.hasSignature(start) else {
            throw ImageError(.malformed, start.starts(with: Array("GIF".utf8)) && start.count >= 6
                           ? "unknown GIF version (not 87a or 89a)" : "not a GIF file")
        }
        guard start.count == 13 else { throw Self.truncatedBeforeTheImage }
        version = start[4] == UInt8(ascii: "7") ? "87a" : "89a"
        screenWidth = Int(start[6]) | Int(start[7]) << 8
        screenHeight = Int(start[8]) | Int(start[9]) << 8
        let flags = start[10]
        globalColorCount = flags & 0x80 != 0 ? 2 << Int(flags & 7) : 0
        guard reader.skip(3 * globalColorCount) else { throw Self.truncatedBeforeTheImage }

        var frames = 0
        var first: GIFFrame?
        var transparent: Int?
        var complete = true
        var note: String?
        walk: while true {
            guard let introducer = try reader.byte() else {
                guard frames > 0 else { throw Self.truncatedBeforeTheImage }
                note = "no trailer after frame \(frames)"
                break
            }
            switch introducer {
            case 0x3B:   // trailer
                break walk
            case 0x21:   // extension: a label, then sub-blocks
                guard let label = try reader.byte() else {
                    guard frames > 0 else { throw Self.truncatedBeforeTheImage }
                    note = "truncated after frame \(frames)"
                    break walk
                }
                if label == 0xF9 && first == nil {
                    // Graphic control extension: flags, delay (2), transparent index. Before the
                    // first frame, the last one whose transparency flag is set counts (Pillow's
                    // reading; the bridge reads giflib's records the same way).
                    let block = try reader.peekSubBlock()
                    if block.count >= 4 && block[0] & 1 != 0 { transparent = Int(block[3]) }
                }
                guard try reader.skipSubBlocks() else {
                    guard frames > 0 else { throw Self.truncatedBeforeTheImage }
                    note = "truncated after frame \(frames)"
                    break walk
                }
            case 0x2C:   // image descriptor, local colour table, LZW code size, sub-blocks
                let descriptor = try reader.read(9)
                let frameFlags = descriptor.count == 9 ? descriptor[8] : 0
                let localColors = frameFlags & 0x80 != 0 ? 2 << Int(frameFlags & 7) : 0
                guard descriptor.count == 9, reader.skip(3 * localColors), let codeSize = try reader.byte() else {
                    guard frames > 0 else { throw Self.truncatedBeforeTheImage }
                    note = "truncated in frame \(frames + 1)"
                    break walk
                }
                frames += 1
                if first == nil {
                    let frame = GIFFrame(left: Self.uint16(descriptor, 0), top: Self.uint16(descriptor, 2),
                                         width: Self.uint16(descriptor, 4), height: Self.uint16(descriptor, 6),
                                         isInterlaced: frameFlags & 0x40 != 0, localColorCount: localColors,
                                         lzwCodeSize: Int(codeSize))
                    guard frame.width > 0, frame.height > 0 else {
                        throw ImageError(.malformed, "first GIF frame is \(frame.width)×\(frame.height)")
                    }
                    // The format allows 2...8. giflib widens its codes at a different point
                    // than Pillow and Chromium for code size 1, so such a frame would come out
                    // garbled: refused, as 0 and more than 8 are.
                    guard (2...8).contains(codeSize) else {
                        throw ImageError(.malformed, "bad LZW code size \(codeSize) in the first GIF frame")
                    }
                    first = frame
                }
                guard try reader.skipSubBlocks() else {
                    if frames == 1 { complete = false }
                    note = "truncated in frame \(frames)"
                    break walk
                }
            default:
                guard frames > 0 else {
                    throw ImageError(.malformed, "malformed GIF file (unknown block 0x\(String(introducer, radix: 16, uppercase: true)) before the first frame)")
                }
                note = "unknown block after frame \(frames)"
                break walk
            }
        }
        guard let first else { throw ImageError(.malformed, "no image in the GIF file") }
        firstFrame = first
        width = max(screenWidth, first.left + first.width)
        height = max(screenHeight, first.top + first.height)
        orientation = .up
        frameCount = frames
        transparentIndex = transparent
        isFirstFrameComplete = complete
        self.note = note
        colorNote = nil
    }

    private static var truncatedBeforeTheImage: ImageError {
        ImageError(.malformed, "truncated GIF file (before the image data)")
    }

    private static func uint16(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) | Int(bytes[at + 1]) << 8
    }
}

/// One image descriptor: where the frame sits on the logical screen and how it is coded.
public struct GIFFrame: Sendable, Hashable {
    public let left: Int, top: Int
    public let width: Int, height: Int
    /// Rows stored in four passes (every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
    public let isInterlaced: Bool
    /// Entries of the frame's own colour table; 0 when it uses the global one.
    public let localColorCount: Int
    /// The LZW minimum code size byte.
    public let lzwCodeSize: Int
}

/// GIF's data sub-blocks (a length byte, then that many bytes, up to a zero length).
extension WindowedReader {
    /// The data of the next sub-block without consuming it (empty at a terminator or the end).
    fileprivate mutating func peekSubBlock() throws(ImageError) -> [UInt8] {
        let saved = offset
        defer { offset = saved }
        guard let length = try byte() else { return [] }
        return try read(Int(length))
    }

    /// Skips data sub-blocks through the zero-length terminator; false when the file ends first.
    fileprivate mutating func skipSubBlocks() throws(ImageError) -> Bool {
        while true {
            guard let length = try byte() else { return false }
            if length == 0 { return true }
            guard skip(Int(length)) else { return false }
        }
    }
}
