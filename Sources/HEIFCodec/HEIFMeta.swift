import CodecCore

/// One item property of `ipco`, as far as the header needs it.
enum ItemProperty: Equatable {
    /// `ispe`: the coded width and height.
    case spatialExtent(width: Int, height: Int)
    /// `irot`: quarter turns anti-clockwise (0...3).
    case rotation(quarterTurns: Int)
    /// `imir`: 0 mirrors about a vertical axis (left and right swap), 1 about a horizontal one.
    case mirror(axis: Int)
    /// `clap`: the clean aperture, as fractions.
    case cleanAperture(CleanAperture)
    /// `colr` of type `nclx`.
    case colourCodePoints(HEIFColourCodePoints)
    /// `colr` of type `prof` or `rICC`: the ICC profile's bytes.
    case iccProfile(ArraySlice<UInt8>)
    /// `pixi`: bits per channel.
    case pixelInformation(bitsPerChannel: [Int])
    /// `auxC`: the auxiliary image's type URN.
    case auxiliaryType(String)
    /// `hvcC` or `av1C`: the luma bit depth the coded stream declares, and whether it is
    /// monochrome (4:0:0: `chroma_format_idc` 0, or av1C's `mono_chrome`).
    case codecConfiguration(bitDepth: Int, monochrome: Bool)
    /// Anything else (its type).
    case other(String)

    /// True for the properties libheif applies while decoding (they change the displayed picture).
    var isTransformation: Bool {
        switch self {
        case .rotation, .mirror, .cleanAperture: true
        default: false
        }
    }
}

/// A `clap` box: width, height and the centre's offsets, each a fraction.
struct CleanAperture: Equatable {
    let width: (Int, Int), height: (Int, Int), horizontalOffset: (Int, Int), verticalOffset: (Int, Int)

    static func == (a: CleanAperture, b: CleanAperture) -> Bool {
        a.width == b.width && a.height == b.height && a.horizontalOffset == b.horizontalOffset
            && a.verticalOffset == b.verticalOffset
    }
}

/// Where an item's bytes are: in the file (`iloc` construction method 0) or in `idat` (1).
struct ItemLocation {
    let constructionMethod: Int
    let extents: [(offset: Int, length: Int)]
}

/// What `meta` says, parsed and bounds-checked but not yet interpreted: items, locations,
/// references, properties and their associations.
struct HEIFMeta {
    private(set) var primaryItemID: Int?
    /// Item id → item type ("hvc1", "av01", "grid", "Exif", ...).
    private(set) var itemTypes: [Int: String] = [:]
    private(set) var locations: [Int: ItemLocation] = [:]
    /// (type, from, to) for every reference of `iref`, in file order.
    private(set) var references: [(type: String, from: Int, to: [Int])] = []
    private(set) var properties: [ItemProperty] = []
    /// Item id → its properties, in `ipma` order.
    private(set) var associations: [Int: [ItemProperty]] = [:]
    /// The payload range of `idat` within `bytes`.
    private(set) var itemData: Range<Int>?
    private(set) var handler: String?
    /// The meta box's payload (the ranges above index it).
    let bytes: [UInt8]
    /// The `iloc` box, its version and the size of its base offsets, for `locatingDerivations`.
    private var locationBox: (box: Box, version: Int, baseOffsetSize: Int, count: Int)?

    /// More items, references or property associations than any real file holds.
    static let maxItems = 1 << 16

    init(payload bytes: [UInt8]) throws(ImageError) {
        self.bytes = bytes
        var reader = FieldReader(bytes, 0..<bytes.count, box: "meta")
        _ = try reader.fullBoxHeader()
        let children = try childBoxes(of: bytes, in: 4..<bytes.count, parentName: "meta")
        var seen = Set<String>()
        for box in children {
            let once = ["hdlr", "pitm", "iinf", "iloc", "iref", "iprp", "idat"]
            if once.contains(box.type) {
                guard seen.insert(box.type).inserted else { throw malformedHEIF("more than one '\(box.type)' box in 'meta'") }
            }
            switch box.type {
            case "hdlr":
                var fields = FieldReader(bytes, box.payload, box: "hdlr")
                _ = try fields.fullBoxHeader()
                _ = try fields.uint32()
                handler = try fields.fourCharacters()
            case "pitm":
                var fields = FieldReader(bytes, box.payload, box: "pitm")
                let (version, _) = try fields.fullBoxHeader()
                primaryItemID = try fields.number(version == 0 ? 2 : 4)
            case "iinf": try parseItemInfo(box)
            case "iloc": try parseLocations(box)
            case "iref": try parseReferences(box)
            case "iprp": try parseProperties(box)
            case "idat": itemData = box.payload
            default: break
            }
        }
    }

    private mutating func parseItemInfo(_ box: Box) throws(ImageError) {
        var fields = FieldReader(bytes, box.payload, box: "iinf")
        let (version, _) = try fields.fullBoxHeader()
        let count = try fields.number(version == 0 ? 2 : 4)
        // The smallest infe (v2, empty name) is 21 bytes.
        try fields.check(count: count, entrySize: 21, what: "items")
        let entries = try childBoxes(of: bytes, in: fields.offset..<box.payload.upperBound, parentName: "iinf")
        for entry in entries where entry.type == "infe" {
            var infe = FieldReader(bytes, entry.payload, box: "infe")
            let (entryVersion, _) = try infe.fullBoxHeader()
            let id = try infe.number(entryVersion == 3 ? 4 : 2)
            _ = try infe.uint16()   // protection index
            // v0/v1 entries carry no item type (they describe files, never images).
            let type = entryVersion >= 2 ? try infe.fourCharacters() : ""
            guard itemTypes.updateValue(type, forKey: id) == nil else { throw malformedHEIF("item \(id) is declared twice") }
        }
    }

    private mutating func parseLocations(_ box: Box) throws(ImageError) {
        var fields = FieldReader(bytes, box.payload, box: "iloc")
        let (version, _) = try fields.fullBoxHeader()
        guard version <= 2 else { throw malformedHEIF("'iloc' box of version \(version)") }
        let sizes = try fields.uint16()
        let offsetSize = sizes >> 12, lengthSize = sizes >> 8 & 15, baseOffsetSize = sizes >> 4 & 15
        let indexSize = version == 0 ? 0 : sizes & 15
        for size in [offsetSize, lengthSize, baseOffsetSize, indexSize] where ![0, 4, 8].contains(size) {
            throw malformedHEIF("'iloc' field size \(size) (only 0, 4 and 8 are allowed)")
        }
        let count = try fields.number(version < 2 ? 2 : 4)
        try fields.check(count: count, entrySize: 6, what: "item locations")
        locationBox = (box, version, baseOffsetSize, count)
        for _ in 0..<count {
            let id = try fields.number(version < 2 ? 2 : 4)
            let method = version == 0 ? 0 : try fields.uint16() & 15
            _ = try fields.uint16()   // data reference index
            let base = try fields.number(baseOffsetSize)
            let extentCount = try fields.uint16()
            try fields.check(count: extentCount, entrySize: indexSize + offsetSize + lengthSize, what: "extents")
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                _ = try fields.number(indexSize)
                let offset = try fields.number(offsetSize)
                let length = try fields.number(lengthSize)
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow else { throw malformedHEIF("extent offset of item \(id) overflows") }
                extents.append((start, length))
            }
            guard locations.updateValue(ItemLocation(constructionMethod: method, extents: extents), forKey: id) == nil else {
                throw malformedHEIF("item \(id) is located twice")
            }
        }
    }

    /// The item types of derived images that carry no data of their own.
    static let dataFreeDerivations: Set<String> = ["iden"]

    /// This meta box, header included, with an empty `iloc` entry (no extents) added for each
    /// `iden` item that has none, or nil when every item has one (or none can be added). HEIF
    /// gives an `iden` no data, but libheif 1.15 asks every image item for its data while it
    /// reads the file and refuses the whole file when an entry is missing (Nokia's C008, C014);
    /// given an empty one it reads and decodes the derivation.
    func locatingDerivations() -> [UInt8]? {
        let missing = itemTypes.filter { Self.dataFreeDerivations.contains($0.value) && locations[$0.key] == nil }.keys.sorted()
        guard !missing.isEmpty, let (box, version, baseOffsetSize, count) = locationBox else { return nil }
        let idSize = version < 2 ? 2 : 4
        guard count + missing.count < 1 << (8 * idSize) - 1 else { return nil }
        func bigEndian(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        // Full-box header (4), field sizes (2), then the item count.
        let countAt = box.payload.lowerBound + 6
        var payload = Array(bytes[box.payload.lowerBound..<countAt]) + bigEndian(count + missing.count, idSize)
        payload += bytes[(countAt + idSize)..<box.payload.upperBound]
        for id in missing {
            // id, construction method (v1, v2), data reference index, base offset, extent count 0.
            payload += bigEndian(id, idSize) + (version == 0 ? [] : [0, 0]) + [0, 0] + [UInt8](repeating: 0, count: baseOffsetSize) + [0, 0]
        }
        let location = bigEndian(8 + payload.count, 4) + Array("iloc".utf8) + payload
        let metaPayload = Array(bytes[..<box.start]) + location + bytes[box.payload.upperBound...]
        return bigEndian(8 + metaPayload.count, 4) + Array("meta".utf8) + metaPayload
    }

    private mutating func parseReferences(_ box: Box) throws(ImageError) {
        var fields = FieldReader(bytes, box.payload, box: "iref")
        let (version, _) = try fields.fullBoxHeader()
        let idSize = version == 0 ? 2 : 4
        var total = 0
        for reference in try childBoxes(of: bytes, in: fields.offset..<box.payload.upperBound, parentName: "iref") {
            var entry = FieldReader(bytes, reference.payload, box: reference.type)
            let from = try entry.number(idSize)
            let count = try entry.uint16()
            try entry.check(count: count, entrySize: idSize, what: "references")
            var targets: [Int] = []
            for _ in 0..<count { targets.append(try entry.number(idSize)) }
            total += count
            guard total <= Self.maxItems else { throw malformedHEIF("more than \(Self.maxItems) item references") }
            references.append((reference.type, from, targets))
        }
    }

    private mutating func parseProperties(_ box: Box) throws(ImageError) {
        let children = try childBoxes(of: bytes, in: box.payload, parentName: "iprp")
        if let container = children.first(where: { $0.type == "ipco" }) {
            for property in try childBoxes(of: bytes, in: container.payload, parentName: "ipco") {
                properties.append(try Self.property(property, in: bytes))
            }
        }
        for map in children where map.type == "ipma" {
            var fields = FieldReader(bytes, map.payload, box: "ipma")
            let (version, flags) = try fields.fullBoxHeader()
            let count = try fields.uint32()
            try fields.check(count: count, entrySize: version < 1 ? 3 : 5, what: "entries")
            for _ in 0..<count {
                let id = try fields.number(version < 1 ? 2 : 4)
                let associationCount = try fields.uint8()
                var list = associations[id] ?? []
                for _ in 0..<associationCount {
                    let value = try fields.number(flags & 1 == 1 ? 2 : 1)
                    let index = value & (flags & 1 == 1 ? 0x7FFF : 0x7F)
                    guard index != 0 else { continue }
                    guard index <= properties.count else {
                        throw malformedHEIF("item \(id) is given property \(index) of \(properties.count)")
                    }
                    list.append(properties[index - 1])
                }
                associations[id] = list
            }
        }
    }

    private static func property(_ box: Box, in bytes: [UInt8]) throws(ImageError) -> ItemProperty {
        var fields = FieldReader(bytes, box.payload, box: box.type)
        switch box.type {
        case "ispe":
            _ = try fields.fullBoxHeader()
            return .spatialExtent(width: try fields.uint32(), height: try fields.uint32())
        case "irot":
            return .rotation(quarterTurns: try fields.uint8() & 3)
        case "imir":
            return .mirror(axis: try fields.uint8() & 1)
        case "clap":
            var numbers: [(Int, Int)] = []
            for index in 0..<4 {
                let numerator = index < 2 ? try fields.uint32() : try fields.int32()
                let denominator = try fields.uint32()
                guard denominator != 0 else { throw malformedHEIF("'clap' box with a zero denominator") }
                numbers.append((numerator, denominator))
            }
            return .cleanAperture(CleanAperture(width: numbers[0], height: numbers[1],
                                                horizontalOffset: numbers[2], verticalOffset: numbers[3]))
        case "colr":
            let type = try fields.fourCharacters()
            switch type {
            case "nclx":
                let primaries = try fields.uint16(), transfer = try fields.uint16(), matrix = try fields.uint16()
                return .colourCodePoints(HEIFColourCodePoints(primaries: primaries, transfer: transfer, matrix: matrix,
                                                              fullRange: try fields.uint8() & 0x80 != 0))
            case "prof", "rICC":
                return .iccProfile(fields.rest())
            default:
                return .other("colr")
            }
        case "pixi":
            _ = try fields.fullBoxHeader()
            let count = try fields.uint8()
            var bits: [Int] = []
            for _ in 0..<count { bits.append(try fields.uint8()) }
            return .pixelInformation(bitsPerChannel: bits)
        case "auxC":
            _ = try fields.fullBoxHeader()
            return .auxiliaryType(String(decoding: fields.rest().prefix { $0 != 0 }, as: UTF8.self))
        case "hvcC":
            // configurationVersion ... general_level_idc (13 bytes), segmentation (2), parallelism,
            // chroma format (low 2 bits of byte 16), then bitDepthLumaMinus8 in the low 3 bits of byte 17.
            _ = try fields.number(8)
            _ = try fields.number(8)
            let chromaFormat = try fields.uint8() & 3
            return .codecConfiguration(bitDepth: (try fields.uint8() & 7) + 8, monochrome: chromaFormat == 0)
        case "av1C":
            // high_bitdepth 0x40, twelve_bit 0x20, mono_chrome 0x10 in byte 2.
            _ = try fields.uint16()
            let flags = try fields.uint8()
            return .codecConfiguration(bitDepth: flags & 0x40 == 0 ? 8 : flags & 0x20 == 0 ? 10 : 12,
                                       monochrome: flags & 0x10 != 0)
        default:
            return .other(box.type)
        }
    }
}
