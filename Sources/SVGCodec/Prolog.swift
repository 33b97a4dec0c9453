import CodecCore

/// The XML before an SVG's root element, read one construct at a time over bytes the caller
/// bounded: the XML declaration, comments, processing instructions and the DOCTYPE (with its
/// general entities), up to the root's `<svg` and its attributes.
struct Prolog {
    private let bytes: ArraySlice<UInt8>
    private var position: Int
    /// The root name the DOCTYPE declares (`svg`), once read.
    private(set) var doctypeRoot: String?
    /// The DOCTYPE's general entities, name to replacement text (empty for an external one).
    private(set) var entities: [String: [UInt8]] = [:]

    /// Where reading stopped.
    enum Outcome {
        /// At the root element's attributes, after `<svg`.
        case root
        /// The bytes ended inside the prolog.
        case ranOut
    }

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position += 3 }
    }

    /// The offset after `<svg` (or `<svg:svg`), relative to the bytes' start.
    var offset: Int { position - bytes.startIndex }

    /// Reads up to the root element; throws when the bytes are not an SVG's prolog.
    mutating func findRoot() throws(ImageError) -> Outcome {
        var sawDoctype = false
        while true {
            skipSpaces()
            if position == bytes.endIndex { return .ranOut }
            if starts("<?") {
                guard skip(past: "?>") else { return .ranOut }
            } else if starts("<!--") {
                guard skip(past: "-->") else { return .ranOut }
            } else if starts("<!DOCTYPE") {
                guard !sawDoctype else { throw ImageError(.malformed, "SVG has two DOCTYPE declarations") }
                sawDoctype = true
                position += 9
                guard try readDoctype() else { return .ranOut }
            } else if starts("<svg") || starts("<svg:svg") {
                // `svg:svg`: Illustrator 10 and 11 wrote the root with the namespace's usual prefix.
                let after = position + (starts("<svg:svg") ? 8 : 4)
                guard after < bytes.endIndex else { return .ranOut }
                let next = bytes[after]
                guard Self.isSpace(next) || next == UInt8(ascii: ">") || next == UInt8(ascii: "/") else { throw notSVG }
                position = after
                return .root
            } else {
                throw notSVG
            }
        }
    }

    private var notSVG: ImageError { ImageError(.malformed, "not an SVG file (its root element is not <svg>)") }

    /// The root tag's attributes, after `findRoot` returned `.root`; nil when the bytes end
    /// before the tag does.
    mutating func rootAttributes() throws(ImageError) -> [String: String]? {
        var attributes: [String: String] = [:]
        while true {
            skipSpaces()
            guard position < bytes.endIndex else { return nil }
            if bytes[position] == UInt8(ascii: ">") || starts("/>") { return attributes }
            let nameStart = position
            while position < bytes.endIndex, !Self.isSpace(bytes[position]), bytes[position] != UInt8(ascii: "="),
                  bytes[position] != UInt8(ascii: ">"), bytes[position] != UInt8(ascii: "/") { position += 1 }
            // Only an XML name's bytes: the name may be quoted in a reason, which is one line.
            let nameBytes = bytes[nameStart..<position], name = String(decoding: nameBytes, as: UTF8.self)
            skipSpaces()
            guard position < bytes.endIndex else { return nil }
            guard !name.isEmpty, nameBytes.allSatisfy(Self.isNameByte), bytes[position] == UInt8(ascii: "=") else {
                throw ImageError(.malformed, "SVG root tag has a malformed attribute")
            }
            position += 1
            skipSpaces()
            guard let value = try quoted() else { return nil }
            if attributes[name] != nil { throw ImageError(.malformed, "SVG root tag repeats its \(name) attribute") }
            attributes[name] = String(decoding: value, as: UTF8.self)
        }
    }

    /// After `<!DOCTYPE`: the root name, external ids and the internal subset, up to `>`.
    /// False when the bytes ran out first.
    private mutating func readDoctype() throws(ImageError) -> Bool {
        skipSpaces()
        let name = readName()
        guard position < bytes.endIndex else { return false }
        doctypeRoot = String(decoding: name, as: UTF8.self)
        while true {
            skipSpaces()
            guard position < bytes.endIndex else { return false }
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                return true
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                guard try quoted() != nil else { return false }
            } else if byte == UInt8(ascii: "[") {
                position += 1
                guard try readInternalSubset() else { return false }
            } else {
                position += 1   // SYSTEM, PUBLIC: a keyword's letters
            }
        }
    }

    /// The internal subset up to its `]`: entity declarations kept, other declarations,
    /// comments and processing instructions skipped. False when the bytes ran out first.
    private mutating func readInternalSubset() throws(ImageError) -> Bool {
        while true {
            skipSpaces()
            guard position < bytes.endIndex else { return false }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return true
            } else if starts("<!--") {
                guard skip(past: "-->") else { return false }
            } else if starts("<?") {
                guard skip(past: "?>") else { return false }
            } else if starts("<!ENTITY") {
                position += 8
                guard try readEntity() else { return false }
            } else if starts("<!") {
                guard try skipDeclaration() else { return false }
            } else if bytes[position] == UInt8(ascii: "%") {
                throw ImageError(.unsupported, "SVG uses a parameter entity in its DOCTYPE (not read)")
            } else {
                throw ImageError(.malformed, "SVG DOCTYPE has a malformed internal subset")
            }
        }
    }

    /// After `<!ENTITY`: a general entity's name and replacement text (or an external one's
    /// identifiers, kept as empty text). False when the bytes ran out first.
    private mutating func readEntity() throws(ImageError) -> Bool {
        skipSpaces()
        guard position < bytes.endIndex else { return false }
        if bytes[position] == UInt8(ascii: "%") {
            throw ImageError(.unsupported, "SVG declares a parameter entity in its DOCTYPE (not read)")
        }
        let name = String(decoding: readName(), as: UTF8.self)
        skipSpaces()
        guard position < bytes.endIndex else { return false }
        guard !name.isEmpty else { throw ImageError(.malformed, "SVG DOCTYPE declares an entity without a name") }
        var text: [UInt8] = []
        if bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") {
            guard let value = try quoted() else { return false }
            text = Array(value)
        }
        guard try skipDeclaration() else { return false }
        // XML: the first declaration of a name binds.
        if entities[name] == nil {
            guard entities.count < SVGHeader.maxEntities else {
                throw ImageError(.limitExceeded, "SVG declares more than \(SVGHeader.maxEntities) entities")
            }
            entities[name] = text
        }
        return true
    }

    /// Skips to the `>` that ends a declaration, past quoted strings. False when the bytes ran out.
    private mutating func skipDeclaration() throws(ImageError) -> Bool {
        while position < bytes.endIndex {
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                return true
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                guard try quoted() != nil else { return false }
            } else {
                position += 1
            }
        }
        return false
    }

    /// A quoted string's contents (the position after its closing quote), nil when the bytes end
    /// first; throws when no quote starts here.
    private mutating func quoted() throws(ImageError) -> ArraySlice<UInt8>? {
        guard position < bytes.endIndex else { return nil }
        let quote = bytes[position]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw ImageError(.malformed, "SVG prolog has an unquoted value")
        }
        guard let end = bytes[(position + 1)...].firstIndex(of: quote) else { return nil }
        let value = bytes[(position + 1)..<end]
        position = end + 1
        return value
    }

    private mutating func readName() -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.endIndex, Self.isNameByte(bytes[position]) { position += 1 }
        return bytes[start..<position]
    }

    private func starts(_ text: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        return bytes[position...].starts(with: pattern)
    }

    /// Moves past the next `text`; false (the position unchanged) when it does not occur.
    private mutating func skip(past text: StaticString) -> Bool {
        let pattern = Array(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        guard let found = Self.find(pattern, in: bytes[position...]) else { return false }
        position = found + pattern.count
        return true
    }

    private mutating func skipSpaces() {
        while position < bytes.endIndex, Self.isSpace(bytes[position]) { position += 1 }
    }

    /// The index where `pattern` first starts in `bytes`, or nil.
    static func find(_ pattern: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var index = bytes.startIndex
        let last = bytes.endIndex - pattern.count
        while index <= last {
            guard let candidate = bytes[index...last].firstIndex(of: first) else { return nil }
            if bytes[candidate...].starts(with: pattern) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    /// An XML name's bytes: ASCII letters, digits, `_ : . -`, and any non-ASCII byte.
    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || isDigit(byte) || byte == 0x5F || byte == 0x3A || byte == 0x2E
            || byte == 0x2D || byte >= 0x80
    }
}
