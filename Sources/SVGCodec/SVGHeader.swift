import CodecCore

/// What a sheet needs to know about an SVG before librsvg sees a byte of it: that it is one
/// (an XML prolog, then a root `<svg>` element), its intrinsic size, and the entities its
/// DOCTYPE declares. Read by Masonry itself from at most `maxPrologBytes` of the file.
///
/// - Prolog: an optional UTF-8 byte order mark, white space, the XML declaration, comments,
///   processing instructions and one DOCTYPE, in any order, then `<svg` (or `<svg:svg`, as
///   Illustrator 10 and 11 wrote it).
///   A DOCTYPE's internal subset is read for its general entities (`<!ENTITY name "text">`,
///   which `SVGDocumentScan` expands to bound the document); a parameter entity
///   (`<!ENTITY % …>`) is refused. External entities (`SYSTEM`, `PUBLIC`) are kept as empty:
///   librsvg never loads them (without a base URL it loads nothing outside the bytes it is given).
/// - Size, as librsvg 2.54 and rsvg-convert resolve it at 96 dpi: the root's `width` and
///   `height` when both are absolute lengths (px, in, cm, mm, pt, pc; em = 12 px and ex = 6 px,
///   librsvg's default font size); else, with a valid `viewBox`, the viewBox's size, scaled to an
///   absolute `width` or `height` when one of them is; else no intrinsic size, and the picture is
///   laid out at `defaultSize` (300 × 150, a browser's default for a replaced element). A value
///   that does not parse counts as absent, as librsvg ignores it. Sides are rounded up, as
///   rsvg-convert's canvas is.
public struct SVGHeader: Sendable, Hashable {
    /// The picture's size in whole pixels: the intrinsic size rounded up, at least 1.
    public let width: Int
    public let height: Int
    /// The size librsvg lays the document out at, in pixels (not rounded): the intrinsic size,
    /// or `defaultSize`.
    public let naturalWidth: Double
    public let naturalHeight: Double
    /// False when the document has no usable size and `defaultSize` stands in.
    public let hasIntrinsicSize: Bool
    /// The root element's `width`, `height` and `viewBox`, as read (nil: absent or invalid).
    public let rootWidth: SVGLength?
    public let rootHeight: SVGLength?
    public let viewBox: SVGViewBox?
    /// The DOCTYPE's general entities, name to replacement text (empty for an external one).
    public let entities: [String: [UInt8]]
    /// Where the root element's name ends (after `<svg`): `SVGDocumentScan` starts at its `<`.
    public let rootOffset: Int
    /// The document's size in bytes: the file's, or an SVGZ's inflated size (`SVGFile`).
    public let documentBytes: Int

    /// The most bytes read before the root `<svg …>` tag must have ended.
    public static let maxPrologBytes = 64 << 10
    /// The largest SVG file read: librsvg holds the document tree in memory, about
    /// `treeBytesPerFileByte` bytes for each byte of a file of small elements.
    public static let maxFileBytes = 8 << 20
    /// What librsvg's tree measured at for each file byte (1.2 M empty `<rect>`s, 33 MB:
    /// 1.78 GB); `SourceHeader.wholePictureBytes` counts this much.
    public static let treeBytesPerFileByte = 64
    /// The size of a document with no usable intrinsic size.
    public static let defaultSize = (width: 300.0, height: 150.0)
    /// The largest side an SVG may claim (cairo's image surfaces' limit, and rsvg-convert's).
    public static let maxSide = 32767
    /// How many leading bytes detection reads: room for a long comment or an Illustrator DOCTYPE.
    public static let signaturePrefixBytes = 4096
    /// The most general entities a DOCTYPE may declare.
    public static let maxEntities = 1024

    /// Whether `prefix` (a file's first bytes) starts as an SVG: its prolog reaches `<svg`, or
    /// runs past the prefix inside a DOCTYPE naming `svg` as the root. A gzip-compressed file
    /// (SVGZ) is looked at in the first `signaturePrefixBytes` its prefix inflates to.
    public static func hasSignature(_ prefix: [UInt8]) -> Bool {
        var prolog = Prolog(bytes: SVGFile.inflatedPrefix(prefix, count: signaturePrefixBytes)[...])
        switch try? prolog.findRoot() {
        case .root?: return true
        case .ranOut?: return prolog.doctypeRoot == "svg"
        case nil: return false
        }
    }

    /// Reads the prolog and root tag of `file`'s document (at most `maxPrologBytes`), plain or
    /// gzip-compressed.
    public init(file: InputFile) throws(ImageError) {
        let document = try SVGFile(file)
        try self.init(bytes: try document.prefix(Self.maxPrologBytes)[...], documentBytes: document.documentBytes)
    }

    /// Reads the prolog and root tag from the document's first bytes (`documentBytes`: the whole
    /// document's size, by default the bytes given).
    public init(bytes: ArraySlice<UInt8>, documentBytes: Int? = nil) throws(ImageError) {
        self.documentBytes = documentBytes ?? bytes.count
        var prolog = Prolog(bytes: bytes.prefix(Self.maxPrologBytes))
        let ranOut = bytes.count >= Self.maxPrologBytes
            ? ImageError(.limitExceeded, "SVG prolog is longer than \(Self.maxPrologBytes) bytes before its root <svg> tag ends")
            : ImageError(.malformed, "truncated SVG: the file ends before its root <svg> tag does")
        guard case .root = try prolog.findRoot() else { throw ranOut }
        rootOffset = prolog.offset
        guard let attributes = try prolog.rootAttributes() else { throw ranOut }
        entities = prolog.entities
        rootWidth = attributes["width"].flatMap(SVGLength.init(parsing:))
        rootHeight = attributes["height"].flatMap(SVGLength.init(parsing:))
        viewBox = attributes["viewBox"].flatMap(SVGViewBox.init(parsing:))
        let intrinsic = Self.intrinsicSize(width: rootWidth, height: rootHeight, viewBox: viewBox)
        hasIntrinsicSize = intrinsic != nil
        let natural = intrinsic ?? Self.defaultSize
        naturalWidth = natural.width
        naturalHeight = natural.height
        guard natural.width.isFinite, natural.height.isFinite, natural.width > 0, natural.height > 0 else {
            throw ImageError(.malformed, "SVG has an empty size (\(natural.width)×\(natural.height))")
        }
        guard natural.width <= Double(Self.maxSide), natural.height <= Double(Self.maxSide) else {
            throw ImageError(.limitExceeded, "SVG claims \(Self.describe(natural.width))×\(Self.describe(natural.height)) px, over the \(Self.maxSide)-pixel side librsvg renders")
        }
        width = max(1, Int(natural.width.rounded(.up)))
        height = max(1, Int(natural.height.rounded(.up)))
    }

    /// The intrinsic size in pixels (librsvg's `rsvg_handle_get_intrinsic_size_in_pixels`, then
    /// rsvg-convert's viewBox fallback), or nil when the document has none.
    public static func intrinsicSize(width: SVGLength?, height: SVGLength?, viewBox: SVGViewBox?) -> (width: Double, height: Double)? {
        let w = width?.pixels, h = height?.pixels
        if let w, let h { return (w, h) }
        guard let viewBox else { return nil }
        if let w { return (w, w * viewBox.height / viewBox.width) }
        if let h { return (h * viewBox.width / viewBox.height, h) }
        return (viewBox.width, viewBox.height)
    }

    private static func describe(_ value: Double) -> String {
        value < 1e15 ? String(Int(value.rounded(.up))) : "\(value)"
    }
}

/// A length as an SVG root's `width` or `height` gives it.
public struct SVGLength: Sendable, Hashable {
    /// librsvg's units (`RsvgUnit`), numbered as it numbers them.
    public enum Unit: Int, Sendable {
        case percent = 0, px, em, ex, inch, cm, mm, pt, pc
    }
    public let value: Double
    public let unit: Unit

    /// `value` as librsvg keeps it: a 32-bit float (its CSS parser's), a percentage as a fraction.
    public init(value: Double, unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// The length in pixels at 96 dpi (em 12 px, ex 6 px, librsvg's default font size); nil for
    /// a percentage, which needs a viewport.
    public var pixels: Double? {
        switch unit {
        case .percent: nil
        case .px: value
        case .em: value * 12
        case .ex: value * 6
        case .inch: value * 96
        case .cm: value * 96 / 2.54
        case .mm: value * 96 / 25.4
        case .pt: value * 96 / 72
        case .pc: value * 96 / 6
        }
    }

    /// A CSS length (`12`, `3.5cm`, `50%`, `1e2px`; white space around it), nil when it does not
    /// parse or is negative (librsvg then ignores the attribute and takes 100 %).
    public init?(parsing text: String) {
        var scanner = NumberScanner(Array(text.utf8)[...])
        scanner.skipSpaces()
        guard let number = scanner.number(), number >= 0 else { return nil }
        let rest = String(decoding: scanner.rest, as: UTF8.self).trimmingSpaces().lowercased()
        let units: [String: Unit] = ["": .px, "px": .px, "%": .percent, "em": .em, "ex": .ex, "in": .inch,
                                     "cm": .cm, "mm": .mm, "pt": .pt, "pc": .pc]
        guard let unit = units[rest] else { return nil }
        // librsvg parses lengths into 32-bit floats (`422.425` is 422.42498779296875) and keeps
        // percentages as fractions; its pixel sizes are computed from those.
        let stored = Double(Float(number))
        self.init(value: unit == .percent ? Double(Float(number / 100)) : stored, unit: unit)
    }
}

/// An SVG root's `viewBox`: its size is what matters here.
public struct SVGViewBox: Sendable, Hashable {
    public let x: Double, y: Double, width: Double, height: Double

    /// A viewBox as librsvg reports it; nil unless width and height are positive.
    public init?(x: Double, y: Double, width: Double, height: Double) {
        guard width > 0, height > 0, width.isFinite, height.isFinite else { return nil }
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// Four numbers separated by white space and/or a comma; nil unless width and height are
    /// positive (librsvg ignores such a viewBox).
    public init?(parsing text: String) {
        var scanner = NumberScanner(Array(text.utf8)[...])
        var numbers: [Double] = []
        while numbers.count < 4 {
            scanner.skipSpaces()
            if !numbers.isEmpty, scanner.skip(UInt8(ascii: ",")) { scanner.skipSpaces() }
            guard let number = scanner.number() else { return nil }
            numbers.append(number)
        }
        scanner.skipSpaces()
        guard scanner.rest.isEmpty, numbers[0].isFinite, numbers[1].isFinite else { return nil }
        self.init(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}

/// Numbers as CSS and SVG write them: sign, digits, fraction, exponent.
struct NumberScanner {
    private(set) var rest: ArraySlice<UInt8>
    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    mutating func skipSpaces() {
        while let byte = rest.first, Prolog.isSpace(byte) { rest.removeFirst() }
    }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard rest.first == byte else { return false }
        rest.removeFirst()
        return true
    }

    /// A number, or nil (nothing consumed) when none starts here.
    mutating func number() -> Double? {
        let start = rest
        var text: [UInt8] = []
        if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { text.append(rest.removeFirst()) }
        var digits = 0
        while let byte = rest.first, Prolog.isDigit(byte) { text.append(rest.removeFirst()); digits += 1 }
        if rest.first == UInt8(ascii: "."), rest.dropFirst().first.map(Prolog.isDigit) == true {
            text.append(rest.removeFirst())
            while let byte = rest.first, Prolog.isDigit(byte) { text.append(rest.removeFirst()); digits += 1 }
        }
        guard digits > 0 else { rest = start; return nil }
        // An exponent only when digits follow (`1em` is one em, not an exponent).
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var look = rest.dropFirst()
            var exponent: [UInt8] = [e]
            if let sign = look.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { exponent.append(look.removeFirst()) }
            if let digit = look.first, Prolog.isDigit(digit) {
                while let byte = look.first, Prolog.isDigit(byte), exponent.count < 8 { exponent.append(look.removeFirst()) }
                text += exponent
                rest = look
            }
        }
        return Double(String(decoding: text, as: UTF8.self))
    }
}

extension String {
    func trimmingSpaces() -> String {
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { !Prolog.isSpace($0) }), let last = bytes.lastIndex(where: { !Prolog.isSpace($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
