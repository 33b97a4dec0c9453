import CodecCore

/// Masonry's own pass over a whole SVG document before librsvg parses it, which bounds what
/// librsvg would spend: librsvg 2.54 stops at a million loaded elements and half a million
/// referenced ones, but reaching those limits took it 46 s and 1.8 GB, and 16 s (measured on
/// this project's 2-core machine, `Notes/SPEC.md` §12); libxml2 bounds entity loops but not one
/// entity of 50 KB referenced 50 000 times (2.5 GB of text).
///
/// The pass is a tokenizer, not a validating parser (librsvg's libxml2 judges well-formedness):
/// it reads start and end tags, skips comments, CDATA, processing instructions and
/// declarations, and counts:
/// - the elements librsvg draws: each element once, plus, for each reference an element makes
///   to another by fragment (`href="#id"`, `xlink:href="#id"`, `url(#id)` in any attribute),
///   the elements of the referenced subtree again, recursively (a `<use>` fan-out multiplies);
///   a reference cycle is cut where librsvg cuts it (`ElementTree.drawnCost()`), which draws
///   the rest. At most `maxDrawnElements`.
/// - the bytes the DOCTYPE's entities expand to, at every `&name;` of the document, nested
///   entities expanded; at most `maxEntityExpansionBytes`.
/// - the filter primitives run over the canvas: for each reference to a `<filter>` (from a drawn
///   element, `<use>`s expanded), its primitives; at most `maxFilterPasses`.
/// - the nesting depth: at most `maxDepth` (libxml2's own limit).
/// - the text librsvg lays out: the character data inside `<text>` elements (entities
///   expanded), at most `maxTextElementBytes` in one `<text>` and `maxDrawnTextBytes` drawn in
///   all (`<use>`s expanded). Pango's layout of one long line under librsvg grows faster than
///   its length: 1,000 characters took 0.1 s, 10,000 took 6.3 s, 40,000 took 280 s (the
///   svg-decode fuzz target found a 2.7 KB file whose entity expands to 500 KB of text).
public struct SVGDocumentScan: Sendable {
    /// The elements of the document.
    public let elementCount: Int
    /// The elements librsvg draws, references expanded (saturating at `maxDrawnElements + 1`).
    public let drawnElementCount: Int
    /// The bytes entity references expand to.
    public let entityExpansionBytes: Int
    /// The filter primitives librsvg runs over the canvas: each filtered element's filter's
    /// primitives (saturating at `maxFilterPasses + 1`).
    public let filterPassCount: Int

    /// The most elements drawn, references expanded: 100 000 (a `<use>` fan-out of 111 111 took
    /// librsvg 3.6 s; the largest drawing of openclipart-svg has 29 000 elements).
    public static let maxDrawnElements = 100_000
    /// The most filter primitives run over the canvas: 256 (1000 chained Gaussian blurs at
    /// 300×300 took librsvg 6 s, 100 took 0.8 s).
    public static let maxFilterPasses = 256
    /// The most bytes all entity references expand to.
    public static let maxEntityExpansionBytes = 1 << 20
    /// The deepest nesting of elements (libxml2 refuses more than 256 without XML_PARSE_HUGE).
    public static let maxDepth = 256
    /// The longest chain of references followed (one reference drawing another, and so on).
    public static let maxReferenceDepth = 1024
    /// The most text in one `<text>` element, its `<tspan>`s included: 4 KiB (0.7 s).
    public static let maxTextElementBytes = 4 << 10
    /// The most text drawn in all, references expanded: 32 KiB (about 1.5 s in short elements).
    public static let maxDrawnTextBytes = 32 << 10

    /// Scans `bytes` (the whole file) from the root element whose name ends at `rootOffset` (`SVGHeader`'s),
    /// expanding `entities`.
    public init(bytes: ArraySlice<UInt8>, rootOffset: Int, entities: [String: [UInt8]]) throws(ImageError) {
        // Back to the root's `<`: `<svg` or `<svg:svg`.
        let nameEnd = bytes.startIndex + min(max(0, rootOffset), bytes.count)
        let root = bytes[..<nameEnd].lastIndex(of: UInt8(ascii: "<")) ?? bytes.startIndex
        entityExpansionBytes = try Self.entityExpansion(in: bytes[root...], entities: entities)
        var tree = ElementTree()
        try tree.read(bytes[root...], entities: entities)
        elementCount = tree.parents.count
        let cost = try tree.drawnCost()
        drawnElementCount = cost.elements
        filterPassCount = cost.filterPasses
        if drawnElementCount > Self.maxDrawnElements {
            throw ImageError(.limitExceeded, "SVG draws more than \(Self.maxDrawnElements) elements (references expanded)")
        }
        if filterPassCount > Self.maxFilterPasses {
            throw ImageError(.limitExceeded, "SVG runs more than \(Self.maxFilterPasses) filter primitives over its canvas")
        }
        if cost.textBytes > Self.maxDrawnTextBytes {
            throw ImageError(.limitExceeded, "SVG draws more than \(Self.maxDrawnTextBytes) bytes of text (references expanded)")
        }
    }

    /// The bytes of every `&name;` of a declared entity, expanded recursively (a loop refused).
    static func entityExpansion(in bytes: ArraySlice<UInt8>, entities: [String: [UInt8]]) throws(ImageError) -> Int {
        guard !entities.isEmpty else { return 0 }
        var expanded: [String: Int] = [:]
        var expanding: Set<String> = []
        func size(of name: String) throws(ImageError) -> Int {
            if let known = expanded[name] { return known }
            guard let text = entities[name] else { return 0 }
            guard expanding.insert(name).inserted else { throw ImageError(.malformed, "SVG entity \(name) refers to itself") }
            // The replacement text with each nested reference (`&name;`) replaced by its expansion.
            var total = text.count
            for reference in references(in: text[...]) where entities[reference] != nil {
                total = min(total - (reference.utf8.count + 2) + (try size(of: reference)), maxEntityExpansionBytes + 1)
            }
            expanding.remove(name)
            expanded[name] = total
            return total
        }
        var total = 0
        for reference in references(in: bytes) where entities[reference] != nil {
            total += try size(of: reference)
            if total > maxEntityExpansionBytes {
                throw ImageError(.limitExceeded, "SVG entities expand to more than \(maxEntityExpansionBytes) bytes")
            }
        }
        return total
    }

    /// The names of the `&name;` references in `bytes` (character references excluded).
    private static func references(in bytes: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        var index = bytes.startIndex
        while let amp = bytes[index...].firstIndex(of: UInt8(ascii: "&")) {
            var end = amp + 1
            while end < bytes.endIndex, end - amp <= 64, Prolog.isNameByte(bytes[end]) { end += 1 }
            if end < bytes.endIndex, end > amp + 1, bytes[end] == UInt8(ascii: ";") {
                names.append(String(decoding: bytes[(amp + 1)..<end], as: UTF8.self))
            }
            index = end
        }
        return names
    }
}

/// The element tree as the scan reads it: each element's parent, ids, and the fragments its
/// attributes refer to.
private struct ElementTree {
    var parents: [Int32] = []
    var children: [[Int32]] = []
    var references: [[String]] = []
    /// Whether each element is a `<filter>` (whose children are its primitives).
    var isFilter: [Bool] = []
    /// Whether each element is a `<use>`, which librsvg holds while it draws what it references.
    var isUse: [Bool] = []
    /// The text each element holds itself inside a `<text>` (character data, entities expanded).
    var textBytes: [Int] = []
    /// Whether each element is a `<text>`.
    var isText: [Bool] = []
    var ids: [String: Int32] = [:]

    /// Reads the tags of `bytes`, which start at the root's `<`, and the text inside `<text>`
    /// elements (`entities` expanded).
    mutating func read(_ bytes: ArraySlice<UInt8>, entities: [String: [UInt8]]) throws(ImageError) {
        var stack: [Int32] = []
        var position = bytes.startIndex
        /// The open `<text>` element (the outermost) and the text it holds so far.
        var openText: (element: Int32, bytes: Int)?
        func addText(_ data: ArraySlice<UInt8>) throws(ImageError) {
            guard var open = openText, let holder = stack.last, !data.isEmpty else { return }
            let count = data.count + (try SVGDocumentScan.entityExpansion(in: data, entities: entities))
            textBytes[Int(holder)] += count
            open.bytes += count
            openText = open
            guard open.bytes <= SVGDocumentScan.maxTextElementBytes else {
                throw ImageError(.limitExceeded, "SVG has more than \(SVGDocumentScan.maxTextElementBytes) bytes of text in one <text> element")
            }
        }
        func skip(past pattern: [UInt8]) -> Int {
            guard let found = Prolog.find(pattern, in: bytes[position...]) else { return bytes.endIndex }
            return found + pattern.count
        }
        while let open = bytes[position...].firstIndex(of: UInt8(ascii: "<")) {
            try addText(bytes[position..<open])
            position = open
            let rest = bytes[open...]
            if rest.starts(with: Array("<!--".utf8)) {
                position = skip(past: Array("-->".utf8))
            } else if rest.starts(with: Array("<![CDATA[".utf8)) {
                position = skip(past: Array("]]>".utf8))
                try addText(bytes[open..<position])
            } else if rest.starts(with: Array("<?".utf8)) {
                position = skip(past: Array("?>".utf8))
            } else if rest.starts(with: Array("<!".utf8)) || rest.starts(with: Array("</".utf8)) {
                if rest.starts(with: Array("</".utf8)), let closed = stack.popLast(), closed == openText?.element { openText = nil }
                position = bytes[open...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? bytes.endIndex
            } else {
                position = try startTag(in: bytes, at: open + 1, stack: &stack)
                if openText == nil, let top = stack.last, isText[Int(top)] { openText = (top, 0) }
            }
        }
        try addText(bytes[position...])
    }

    /// Reads the start tag whose name begins at `start`; returns the position after it.
    private mutating func startTag(in bytes: ArraySlice<UInt8>, at start: Int, stack: inout [Int32]) throws(ImageError) -> Int {
        guard parents.count < SVGDocumentScan.maxDrawnElements else {
            throw ImageError(.limitExceeded, "SVG has more than \(SVGDocumentScan.maxDrawnElements) elements")
        }
        let index = Int32(parents.count)
        parents.append(stack.last ?? -1)
        children.append([])
        references.append([])
        if let parent = stack.last { children[Int(parent)].append(index) }
        var position = start
        while position < bytes.endIndex, Prolog.isNameByte(bytes[position]) { position += 1 }
        let elementName = bytes[start..<position]
        isFilter.append(elementName.elementsEqual("filter".utf8) || elementName.elementsEqual("svg:filter".utf8))
        isUse.append(elementName.elementsEqual("use".utf8) || elementName.elementsEqual("svg:use".utf8))
        isText.append(elementName.elementsEqual("text".utf8) || elementName.elementsEqual("svg:text".utf8))
        textBytes.append(0)
        while position < bytes.endIndex {
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") {
                stack.append(index)
                guard stack.count <= SVGDocumentScan.maxDepth else {
                    throw ImageError(.limitExceeded, "SVG elements nest more than \(SVGDocumentScan.maxDepth) deep")
                }
                return position + 1
            }
            if byte == UInt8(ascii: "/"), position + 1 < bytes.endIndex, bytes[position + 1] == UInt8(ascii: ">") {
                return position + 2
            }
            if Prolog.isNameByte(byte) {
                let nameStart = position
                while position < bytes.endIndex, Prolog.isNameByte(bytes[position]) { position += 1 }
                let name = bytes[nameStart..<position]
                while position < bytes.endIndex, Prolog.isSpace(bytes[position]) || bytes[position] == UInt8(ascii: "=") { position += 1 }
                guard position < bytes.endIndex else { break }
                let quote = bytes[position]
                guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { continue }
                let end = bytes[(position + 1)...].firstIndex(of: quote) ?? bytes.endIndex
                attribute(name, bytes[min(position + 1, end)..<end], of: index)
                position = min(end + 1, bytes.endIndex)
            } else {
                position += 1
            }
        }
        return bytes.endIndex
    }

    /// Keeps an element's id, and the fragments an attribute refers to.
    private mutating func attribute(_ name: ArraySlice<UInt8>, _ value: ArraySlice<UInt8>, of element: Int32) {
        if name.elementsEqual("id".utf8) {
            let id = String(decoding: value, as: UTF8.self)
            if ids[id] == nil { ids[id] = element }
        } else if name.elementsEqual("href".utf8) || name.elementsEqual("xlink:href".utf8) {
            if value.first == UInt8(ascii: "#") { references[Int(element)].append(String(decoding: value.dropFirst(), as: UTF8.self)) }
        }
        var rest = value
        let marker = Array("url(#".utf8)
        while let found = Prolog.find(marker, in: rest) {
            let nameStart = found + marker.count
            let end = rest[nameStart...].firstIndex(where: { $0 == UInt8(ascii: ")") || $0 == UInt8(ascii: "'") || $0 == UInt8(ascii: "\"") })
                ?? rest.endIndex
            references[Int(element)].append(String(decoding: rest[nameStart..<end], as: UTF8.self))
            rest = rest[end...]
        }
    }

    /// What the first (root) element draws, references expanded: its elements and the filter
    /// primitives run on the canvas, each saturating just past its limit.
    ///
    /// Cycles are cut where librsvg 2.54 cuts them: it holds each `<use>` it is drawing, and each
    /// element it draws through another reference (a pattern, a marker, a filter …), and draws
    /// nothing for a reference back to one it holds. A `<use>` is held, not what it references: a
    /// group reached again through a second `<use>` is drawn again, its children's `<use>`s
    /// other than the held one too, so a fan-out through a cycle unrolls one more level. (A
    /// `url(#…)` in a `<use>`'s own attributes does not hold its target here, as librsvg's does:
    /// such a cycle is counted one level deeper than librsvg draws it, never shallower.)
    ///
    /// An element's cost is kept for its next reference only when nothing inside it was cut:
    /// what an element draws inside a cycle depends on what is held above it. Keeping such costs,
    /// and cutting at groups instead of `<use>`s, let a fan-out through a cycle pass as 18,000
    /// elements where librsvg expands past its own limit of 500,000 references (svg-decode's
    /// regressions). Each element counted without a kept cost is one librsvg draws on that path
    /// too, so more than `maxDrawnElements` of them is over the limit, which also bounds the
    /// recounting.
    func drawnCost() throws(ImageError) -> DrawingCost {
        guard !parents.isEmpty else { return DrawingCost(elements: 0, filterPasses: 0, textBytes: 0) }
        var memo = [DrawingCost?](repeating: nil, count: parents.count)
        var held = [Bool](repeating: false, count: parents.count)
        var counted = 0
        /// The element's cost on this path, and whether a reference inside it was cut. `acquired`:
        /// reached by a reference from an element other than a `<use>`.
        func drawn(_ element: Int, depth: Int, acquired: Bool) throws(ImageError) -> (cost: DrawingCost, cut: Bool) {
            if let known = memo[element] { return (known, false) }
            let holds = isUse[element] || acquired
            if holds && held[element] { return (DrawingCost(elements: 0, filterPasses: 0, textBytes: 0), true) }
            guard depth <= SVGDocumentScan.maxReferenceDepth else {
                throw ImageError(.limitExceeded, "SVG references chain more than \(SVGDocumentScan.maxReferenceDepth) deep")
            }
            counted += 1
            guard counted <= SVGDocumentScan.maxDrawnElements else {
                return (DrawingCost(elements: SVGDocumentScan.maxDrawnElements + 1, filterPasses: 0, textBytes: 0), false)
            }
            if holds { held[element] = true }
            var total = DrawingCost(elements: 1, filterPasses: 0, textBytes: textBytes[element])
            var cut = false
            for child in children[element] where !total.isOverLimits {
                let inside = try drawn(Int(child), depth: depth + 1, acquired: false)
                total.add(inside.cost)
                cut = cut || inside.cut
            }
            for reference in references[element] where !total.isOverLimits {
                guard let target = ids[reference].map(Int.init) else { continue }
                var referenced = try drawn(target, depth: depth + 1, acquired: !isUse[element])
                // A filter referenced by a drawn element runs each of its primitives over the canvas.
                if isFilter[target] { referenced.cost.filterPasses = max(1, children[target].count) }
                total.add(referenced.cost)
                cut = cut || referenced.cut
            }
            if holds { held[element] = false }
            if !cut { memo[element] = total }
            return (total, cut)
        }
        return try drawn(0, depth: 0, acquired: false).cost
    }
}

/// What a drawing costs librsvg, as the scan counts it.
struct DrawingCost {
    var elements: Int
    var filterPasses: Int
    var textBytes: Int

    var isOverLimits: Bool {
        elements > SVGDocumentScan.maxDrawnElements || filterPasses > SVGDocumentScan.maxFilterPasses
            || textBytes > SVGDocumentScan.maxDrawnTextBytes
    }

    /// Adds `other`, each count saturating just past its limit.
    mutating func add(_ other: DrawingCost) {
        elements = min(SVGDocumentScan.maxDrawnElements + 1, elements + other.elements)
        filterPasses = min(SVGDocumentScan.maxFilterPasses + 1, filterPasses + other.filterPasses)
        textBytes = min(SVGDocumentScan.maxDrawnTextBytes + 1, textBytes + other.textBytes)
    }
}
