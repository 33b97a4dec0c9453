import BitmapText
import Raster

/// How tiles look beyond their pictures (SPEC §7 and issue #11's tile styling).
public struct TileStyle: Sendable, Hashable {
    /// The caption under every picture, or nil for none.
    public var caption: CaptionFormat?
    public var fontSize: FontSize = .small
    /// nil: black on a light tile, white on a dark one.
    public var captionColor: RGBA8Color?
    /// Painted behind each picture, so transparent pictures show their tile; nil for none.
    public var tileBackground: RGBA8Color?
    /// A border inside each tile, drawn over the picture's edge; nil for none.
    public var frame: Frame?
    public var enlarge: EnlargeMode = .smooth
    /// A play mark on every video's poster frame (`--no-video-badge` turns it off).
    public var videoBadge = true

    public init() {}

    /// A border `width` px wide in `color`.
    public struct Frame: Sendable, Hashable {
        public var width: Int
        public var color: RGBA8Color
        public init(width: Int, color: RGBA8Color) {
            self.width = width
            self.color = color
        }
    }

    /// How pictures narrower than their column are drawn.
    public enum EnlargeMode: String, Sendable, Hashable, CaseIterable {
        /// Enlarged to the column's width with a smooth filter (Catmull-Rom).
        case smooth
        /// Enlarged by nearest neighbour: crisp icons and pixel art.
        case pixelated
        /// Drawn at their own size, centred; the tile's height is the picture's.
        case never
    }

    /// Padding around caption text inside its band, in pixels.
    static let captionPadding = (horizontal: 4, vertical: 3)

    /// The caption band's height: lines × the font's line height + padding; 0 without a caption.
    var captionBandHeight: Int {
        guard let caption else { return 0 }
        return caption.lineCount * BitmapFont.builtIn(fontSize).lineHeight + 2 * Self.captionPadding.vertical
    }
}

/// A `--caption` format (SPEC §7): text with placeholders, `\n` between lines (at most 4).
public struct CaptionFormat: Sendable, Hashable {
    /// One piece of a line.
    enum Piece: Sendable, Hashable {
        case text([UInt8])
        case name, path, stem, width, height, bytes, index, duration
    }

    let lines: [[Piece]]
    var lineCount: Int { lines.count }

    /// The placeholders a format may use.
    public static let placeholders = ["name", "path", "stem", "width", "height", "bytes", "index", "duration"]

    /// Parses `format`; throws a one-line reason for an unknown placeholder, a brace that is
    /// not closed or doubled, or more than 4 lines.
    public init(parsing format: String) throws(CaptionFormatError) {
        var lines: [[Piece]] = [[]]
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty { lines[lines.count - 1].append(.text(literal)) }
            literal = []
        }
        let bytes = Array(format.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : nil
            switch (byte, next) {
            case (UInt8(ascii: "{"), UInt8(ascii: "{")?), (UInt8(ascii: "}"), UInt8(ascii: "}")?):
                literal.append(byte)
                index += 2
            case (UInt8(ascii: "\\"), UInt8(ascii: "n")?):
                flush()
                lines.append([])
                index += 2
            case (UInt8(ascii: "{"), _):
                guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw CaptionFormatError("'{' without a closing '}' (write '{{' for a brace)")
                }
                let name = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
                let piece: Piece
                switch name {
                case "name": piece = .name
                case "path": piece = .path
                case "stem": piece = .stem
                case "width": piece = .width
                case "height": piece = .height
                case "bytes": piece = .bytes
                case "index": piece = .index
                case "duration": piece = .duration
                default:
                    throw CaptionFormatError("unknown placeholder '{\(name)}'; use "
                                             + Self.placeholders.map { "{\($0)}" }.joined(separator: ", "))
                }
                flush()
                lines[lines.count - 1].append(piece)
                index = close + 1
            case (UInt8(ascii: "}"), _):
                throw CaptionFormatError("'}' without an opening '{' (write '}}' for a brace)")
            default:
                literal.append(byte)
                index += 1
            }
        }
        flush()
        guard lines.count <= 4 else { throw CaptionFormatError("\(lines.count) lines; a caption has at most 4") }
        self.lines = lines
    }

    /// A duration as a player shows it: "0:07", "1:07", "1:02:03".
    static func clock(_ seconds: Int) -> String {
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }

    /// The caption's lines for `image` (tile number `index`), as raw bytes.
    func render(_ image: PlannedImage, index: Int) -> [[UInt8]] {
        lines.map { pieces in
            pieces.flatMap { piece -> [UInt8] in
                switch piece {
                case .text(let bytes): bytes
                case .name: image.path.lastComponent
                case .path: image.path.bytes
                case .stem:
                    image.path.lastComponent.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? Array(image.path.lastComponent[..<$0]) : nil }
                        ?? image.path.lastComponent
                case .width: Array(String(image.width).utf8)
                case .height: Array(String(image.height).utf8)
                case .bytes: Array(String(image.byteSize).utf8)
                case .index: Array(String(index).utf8)
                case .duration: image.source.durationSeconds.map { Array(Self.clock($0).utf8) } ?? []
                }
            }
        }
    }
}

/// Why a `--caption` format cannot be used.
public struct CaptionFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
