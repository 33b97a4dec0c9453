import CodecCore

/// A width and height libheif will allocate for (checked against the limits before decoding).
struct PixelSize: Sendable, Hashable {
    let width: Int, height: Int
}

/// One image item as libheif will decode it: coded size, displayed size, depth, alpha, colour.
struct ImageItem {
    let id: Int
    /// "hvc1" or "av01" (of the tiles, for a grid).
    let codec: String
    let codedWidth: Int, codedHeight: Int
    /// After the transformations.
    let width: Int, height: Int
    let bitDepth: Int
    /// Coded as luma alone (4:0:0), by its codec configuration (a grid's: its tiles').
    let isMonochrome: Bool
    let hasAlpha: Bool
    let grid: HEIFGrid?
    let colourCodePoints: HEIFColourCodePoints?
    let iccProfile: ArraySlice<UInt8>?
    /// The `colr` properties, to compare a thumbnail's with the primary image's.
    let colourProperties: [ItemProperty]
    /// The rotations and mirrors in order, and "crop" for each clean aperture.
    let transformationKinds: [String]
    /// Every size libheif allocates for while decoding it (coded, tile, alpha, displayed).
    let decodedSizes: [PixelSize]
}

/// The primary image and its thumbnails, with every check that must pass before libheif reads
/// the file: the meta handler, item locations inside the file, references to existing items
/// only and without loops, and well-formed grids.
struct ImageItems {
    let primary: ImageItem
    let thumbnails: [ImageItem]

    /// The `auxC` types of an alpha plane (HEVC and MPEG-B spellings).
    static let alphaTypes: Set<String> = ["urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"]
    static let codedTypes: Set<String> = ["hvc1", "av01"]

    init(meta: HEIFMeta, fileSize: Int, read: @escaping (Int, Int) throws(ImageError) -> [UInt8]) throws(ImageError) {
        guard let handler = meta.handler else { throw malformedHEIF("no 'hdlr' box in 'meta'") }
        guard handler == "pict" else { throw malformedHEIF("'meta' handler is '\(handler)', not 'pict'") }
        guard let primaryID = meta.primaryItemID else { throw malformedHEIF("no primary item ('pitm' box)") }
        guard meta.itemTypes[primaryID] != nil else { throw malformedHEIF("primary item \(primaryID) does not exist") }
        try Self.checkLocations(meta, fileSize: fileSize)
        try Self.checkReferences(meta)
        let interpreter = ItemInterpreter(meta: meta, read: read)
        primary = try interpreter.image(primaryID, role: "primary item")
        var found: [ImageItem] = []
        for reference in meta.references where reference.type == "thmb" && reference.to.contains(primaryID) {
            guard let type = meta.itemTypes[reference.from], Self.codedTypes.contains(type) else { continue }
            // A thumbnail Masonry cannot place (MIAF007's shares the primary image's 640×360
            // clean aperture, which does not fit its own 128×72) is one that cannot stand in:
            // the primary image is drawn, as libheif does.
            guard let thumbnail = try? interpreter.image(reference.from, role: "thumbnail") else { continue }
            found.append(thumbnail)
        }
        thumbnails = found.sorted { $0.id < $1.id }
    }

    // MARK: Checks on the whole meta box

    /// In item order: a dictionary's order changes from one read of a file to the next.
    private static func checkLocations(_ meta: HEIFMeta, fileSize: Int) throws(ImageError) {
        for (id, location) in meta.locations.sorted(by: { $0.key < $1.key }) {
            for extent in location.extents {
                let (end, overflow) = extent.offset.addingReportingOverflow(extent.length)
                switch location.constructionMethod {
                case 0:
                    guard !overflow, end <= fileSize else { throw malformedHEIF("data of item \(id) runs past the end of the file") }
                case 1:
                    guard !overflow, end <= meta.itemData?.count ?? 0 else {
                        throw malformedHEIF("data of item \(id) runs past the end of 'idat'")
                    }
                default:
                    break
                }
            }
        }
    }

    /// The references libheif follows from image to image while it reads and decodes a file
    /// (derived images, alpha and other auxiliary planes, thumbnails): a loop of them makes it
    /// recurse without end. Others (`prem`, `cdsc`, ...) may legitimately point back: a
    /// premultiplied image's `prem` names its alpha plane, whose `auxl` names the image.
    static let followedReferences: Set<String> = ["dimg", "auxl", "thmb"]

    /// Every reference names existing items, no item refers to itself, and no chain of the
    /// references libheif follows comes back to where it started.
    private static func checkReferences(_ meta: HEIFMeta) throws(ImageError) {
        var edges: [Int: [Int]] = [:]
        for reference in meta.references {
            guard meta.itemTypes[reference.from] != nil else {
                throw malformedHEIF("'\(reference.type)' reference from missing item \(reference.from)")
            }
            for target in reference.to {
                guard meta.itemTypes[target] != nil else {
                    throw malformedHEIF("item \(reference.from) refers to missing item \(target) ('\(reference.type)')")
                }
                guard target != reference.from else {
                    throw malformedHEIF("item references loop (\(target) → \(target))")
                }
            }
            if followedReferences.contains(reference.type) {
                edges[reference.from, default: []].append(contentsOf: reference.to)
            }
        }
        // Depth-first, without recursion: 1 on the current path, 2 done.
        var state: [Int: Int] = [:]
        for start in edges.keys.sorted() where state[start] == nil {
            var path: [(id: Int, next: Int)] = [(start, 0)]
            state[start] = 1
            while let top = path.last {
                let targets = edges[top.id] ?? []
                guard top.next < targets.count else {
                    state[top.id] = 2
                    path.removeLast()
                    continue
                }
                path[path.count - 1].next += 1
                let target = targets[top.next]
                switch state[target] {
                case 1:
                    let loop = path.map(\.id).drop { $0 != target } + [target]
                    throw malformedHEIF("item references loop (\(loop.map(String.init).joined(separator: " → ")))")
                case 2:
                    continue
                default:
                    state[target] = 1
                    path.append((target, 0))
                }
            }
        }
    }

}

/// Reads one image item's properties, grid layout and alpha plane out of a checked meta box.
private struct ItemInterpreter {
    let meta: HEIFMeta
    let read: (Int, Int) throws(ImageError) -> [UInt8]

    /// The image item `id`; its alpha plane is looked for unless `role` is the alpha plane itself.
    func image(_ id: Int, role: String) throws(ImageError) -> ImageItem {
        let type = meta.itemTypes[id] ?? ""
        let properties = meta.associations[id] ?? []
        var codec = type
        var coded: PixelSize
        var grid: HEIFGrid?
        var decodedSizes: [PixelSize] = []
        var depthProperties = properties
        var colour = properties.filter(\.isColour)
        switch type {
        case "hvc1", "av01":
            // A predictively coded item (HEIF 2nd edition, `mif2`) is decoded after the items
            // its `pred` reference names; libheif 1.15 decodes it alone, into noise (Nokia C044).
            if let reference = meta.references.first(where: { $0.type == "pred" && $0.from == id }) {
                throw ImageError(.unsupported, "HEIF \(role) \(id) is predictively coded from item \(reference.to.map(String.init).joined(separator: ", ")) ('pred'): not supported")
            }
            coded = try spatialExtent(id, properties)
        case "grid":
            let layout = try gridLayout(id, properties)
            grid = layout.grid
            coded = layout.output
            codec = layout.tileCodec
            decodedSizes.append(PixelSize(width: layout.grid.tileWidth, height: layout.grid.tileHeight))
            depthProperties += layout.tileProperties
            if colour.isEmpty { colour = layout.tileProperties.filter(\.isColour) }
        case "iden", "iovl":
            return try derivation(id, type, properties, role: role)
        default:
            throw ImageError(.unsupported, "HEIF \(role) \(id) is of type '\(type)': not supported (only hvc1, av01, grid, iden and iovl are read)")
        }
        decodedSizes.append(coded)
        let (width, height, kinds) = try Self.transformed(coded.width, coded.height, by: properties, item: id)
        let alpha = role == "alpha plane" ? nil : alphaItem(of: id)
        if let alpha {
            decodedSizes += try image(alpha, role: "alpha plane").decodedSizes
        }
        var bitDepth = 8
        for property in depthProperties {
            if case .pixelInformation(let bits) = property, let first = bits.first { bitDepth = first; break }
        }
        var isMonochrome = false
        for property in depthProperties {
            if case .codecConfiguration(let bits, let monochrome) = property {
                if !depthProperties.contains(where: { if case .pixelInformation = $0 { true } else { false } }) { bitDepth = bits }
                isMonochrome = monochrome
                break
            }
        }
        let (codePoints, profile) = Self.colourOf(colour)
        return ImageItem(id: id, codec: codec, codedWidth: coded.width, codedHeight: coded.height,
                         width: width, height: height, bitDepth: bitDepth, isMonochrome: isMonochrome, hasAlpha: alpha != nil, grid: grid,
                         colourCodePoints: codePoints, iccProfile: profile, colourProperties: colour,
                         transformationKinds: kinds, decodedSizes: decodedSizes + [PixelSize(width: width, height: height)])
    }

    /// An `iden` or `iovl` derived image, as libheif 1.15 builds it from its sources (`dimg`
    /// references: coded images or grids, each with its own transformations applied):
    /// - `iden`: its one source;
    /// - `iovl`: the overlay canvas of its descriptor (fill colour, output size, one offset per
    ///   source), the sources drawn on it in order;
    /// then its own transformations. Depth, codec and coding are the first source's; colour is
    /// its own `colr`, else the first source's; alpha is its own alpha plane (libheif's handle of
    /// the derived image reports that one; an overlay's canvas is drawn opaque).
    private func derivation(_ id: Int, _ type: String, _ properties: [ItemProperty], role: String) throws(ImageError) -> ImageItem {
        let sourceIDs = meta.references.filter { $0.type == "dimg" && $0.from == id }.flatMap(\.to)
        let name = type == "iden" ? "identity" : "overlay"
        guard type == "iden" ? sourceIDs.count == 1 : !sourceIDs.isEmpty else {
            throw malformedHEIF("\(name) item \(id) has \(sourceIDs.count) sources ('dimg')\(type == "iden" ? ", not 1" : "")")
        }
        var sources: [ImageItem] = []
        for sourceID in sourceIDs {
            let sourceType = meta.itemTypes[sourceID] ?? ""
            guard ImageItems.codedTypes.contains(sourceType) || sourceType == "grid" else {
                throw ImageError(.unsupported, "HEIF \(role) \(id) derives from item \(sourceID) of type '\(sourceType)': not supported (an '\(type)' of coded images or grids is read)")
            }
            sources.append(try image(sourceID, role: "source of \(role)"))
        }
        let source = sources[0]
        let canvas = type == "iden" ? PixelSize(width: source.width, height: source.height) : try overlaySize(id, sources: sources.count)
        let (width, height, kinds) = try Self.transformed(canvas.width, canvas.height, by: properties, item: id)
        let ownColour = properties.filter(\.isColour)
        let colour = ownColour.isEmpty ? source.colourProperties : ownColour
        let alpha = alphaItem(of: id)
        var decodedSizes = sources.flatMap(\.decodedSizes) + (type == "iden" ? [] : [canvas])
        if let alpha {
            decodedSizes += try image(alpha, role: "alpha plane").decodedSizes
        }
        let (codePoints, profile) = ownColour.isEmpty ? (source.colourCodePoints, source.iccProfile) : Self.colourOf(ownColour)
        return ImageItem(id: id, codec: source.codec, codedWidth: type == "iden" ? source.codedWidth : canvas.width,
                         codedHeight: type == "iden" ? source.codedHeight : canvas.height,
                         width: width, height: height, bitDepth: source.bitDepth, isMonochrome: source.isMonochrome,
                         hasAlpha: alpha != nil, grid: type == "iden" ? source.grid : nil, colourCodePoints: codePoints,
                         iccProfile: profile, colourProperties: colour,
                         transformationKinds: (type == "iden" ? source.transformationKinds : []) + kinds,
                         decodedSizes: decodedSizes + [PixelSize(width: width, height: height)])
    }

    /// The canvas size of an `iovl` descriptor (version 0: flags, four 16-bit fill values, the
    /// output size and one offset pair per source, in 16 or, with flag 1, 32 bits), which must
    /// hold an offset pair for each of its `sources`.
    private func overlaySize(_ id: Int, sources: Int) throws(ImageError) -> PixelSize {
        let descriptor = try itemBytes(id, atMost: 20)
        var fields = FieldReader(descriptor, 0..<descriptor.count, box: "iovl")
        let version = try fields.uint8(), flags = try fields.uint8()
        guard version == 0 else { throw malformedHEIF("overlay item \(id) of version \(version)") }
        let fieldSize = flags & 1 == 1 ? 4 : 2
        for _ in 0..<4 { _ = try fields.uint16() }
        let size = PixelSize(width: try fields.number(fieldSize), height: try fields.number(fieldSize))
        guard size.width > 0, size.height > 0 else { throw malformedHEIF("overlay item \(id) of size \(size.width)×\(size.height)") }
        let needed = 10 + 2 * fieldSize + sources * 2 * fieldSize
        guard let location = meta.locations[id], location.extents.reduce(0, { $0 + $1.length }) >= needed else {
            throw malformedHEIF("overlay item \(id) has no offsets for its \(sources) sources")
        }
        return size
    }

    /// A `width` × `height` picture's size after the rotations, mirrors and clean apertures
    /// among `properties`, in their order, and their kinds ("irot 1", "imir 0", "clap").
    private static func transformed(_ width: Int, _ height: Int, by properties: [ItemProperty], item: Int)
        throws(ImageError) -> (width: Int, height: Int, kinds: [String]) {
        var (width, height) = (width, height)
        var kinds: [String] = []
        for property in properties {
            switch property {
            case .rotation(let turns):
                if turns % 2 == 1 { (width, height) = (height, width) }
                kinds.append("irot \(turns)")
            case .mirror(let axis):
                kinds.append("imir \(axis)")
            case .cleanAperture(let aperture):
                (width, height) = try crop(width, height, aperture, item: item)
                kinds.append("clap")
            default:
                break
            }
        }
        return (width, height, kinds)
    }

    /// The first `nclx` code points and the first ICC profile among `colour`.
    private static func colourOf(_ colour: [ItemProperty]) -> (HEIFColourCodePoints?, ArraySlice<UInt8>?) {
        var codePoints: HEIFColourCodePoints?
        var profile: ArraySlice<UInt8>?
        for property in colour {
            switch property {
            case .colourCodePoints(let points) where codePoints == nil: codePoints = points
            case .iccProfile(let bytes) where profile == nil: profile = bytes
            default: break
            }
        }
        return (codePoints, profile)
    }

    private func spatialExtent(_ id: Int, _ properties: [ItemProperty]) throws(ImageError) -> PixelSize {
        for property in properties {
            if case .spatialExtent(let width, let height) = property {
                guard width > 0, height > 0 else { throw malformedHEIF("item \(id) has a size of \(width)×\(height)") }
                return PixelSize(width: width, height: height)
            }
        }
        throw malformedHEIF("item \(id) has no size ('ispe' property)")
    }

    /// The item that is the alpha plane of `id` (`auxl` reference with an alpha `auxC`).
    private func alphaItem(of id: Int) -> Int? {
        meta.references.first { reference in
            reference.type == "auxl" && reference.to.contains(id)
                && (meta.associations[reference.from] ?? []).contains { property in
                    if case .auxiliaryType(let urn) = property { ImageItems.alphaTypes.contains(urn) } else { false }
                }
        }?.from
    }

    /// A clean aperture's rounded size, refused when its window leaves the `width` × `height` picture.
    private static func crop(_ width: Int, _ height: Int, _ aperture: CleanAperture, item: Int) throws(ImageError) -> (Int, Int) {
        func value(_ fraction: (Int, Int)) -> Double { Double(fraction.0) / Double(fraction.1) }
        let cropWidth = value(aperture.width), cropHeight = value(aperture.height)
        let left = (Double(width) - cropWidth) / 2 + value(aperture.horizontalOffset)
        let top = (Double(height) - cropHeight) / 2 + value(aperture.verticalOffset)
        let roundedWidth = Int((cropWidth + 0.5).rounded(.down)), roundedHeight = Int((cropHeight + 0.5).rounded(.down))
        guard roundedWidth >= 1, roundedHeight >= 1, left >= 0, top >= 0,
              left + cropWidth <= Double(width), top + cropHeight <= Double(height) else {
            throw malformedHEIF("clean aperture of item \(item) lies outside its \(width)×\(height) picture")
        }
        return (roundedWidth, roundedHeight)
    }

    // MARK: Grids

    private func gridLayout(_ id: Int, _ properties: [ItemProperty])
        throws(ImageError) -> (grid: HEIFGrid, output: PixelSize, tileCodec: String, tileProperties: [ItemProperty]) {
        let descriptor = try itemBytes(id, atMost: 12)
        var fields = FieldReader(descriptor, 0..<descriptor.count, box: "grid")
        let version = try fields.uint8(), flags = try fields.uint8()
        guard version == 0 else { throw malformedHEIF("grid item \(id) of version \(version)") }
        let rows = try fields.uint8() + 1, columns = try fields.uint8() + 1
        let fieldSize = flags & 1 == 1 ? 4 : 2
        let output = PixelSize(width: try fields.number(fieldSize), height: try fields.number(fieldSize))
        guard output.width > 0, output.height > 0 else { throw malformedHEIF("grid item \(id) of size \(output.width)×\(output.height)") }
        for property in properties {
            if case .spatialExtent(let width, let height) = property, width != output.width || height != output.height {
                throw malformedHEIF("grid item \(id) is \(output.width)×\(output.height) but its 'ispe' says \(width)×\(height)")
            }
        }
        let tiles = meta.references.filter { $0.type == "dimg" && $0.from == id }.flatMap(\.to)
        guard tiles.count == rows * columns else {
            throw malformedHEIF("grid item \(id) has \(tiles.count) tiles where its \(rows)×\(columns) layout needs \(rows * columns)")
        }
        var tileSize: PixelSize?
        var tileCodec = ""
        for tile in tiles {
            let type = meta.itemTypes[tile] ?? ""
            guard ImageItems.codedTypes.contains(type) else {
                if ["iden", "grid", "iovl"].contains(type) {
                    throw ImageError(.unsupported, "HEIF grid item \(id) has tile \(tile) of type '\(type)': not supported (tiles of derived images)")
                }
                throw malformedHEIF("grid item \(id) has tile \(tile) of type '\(type)' (tiles must be coded images)")
            }
            let size = try spatialExtent(tile, meta.associations[tile] ?? [])
            guard tileSize == nil || (tileSize == size && tileCodec == type) else {
                throw malformedHEIF("grid item \(id) has tiles of different sizes or codings")
            }
            tileSize = size
            tileCodec = type
        }
        let tile = tileSize!
        guard columns * tile.width >= output.width, rows * tile.height >= output.height,
              (columns - 1) * tile.width < output.width, (rows - 1) * tile.height < output.height else {
            throw malformedHEIF("grid item \(id): \(columns)×\(rows) tiles of \(tile.width)×\(tile.height) do not fit its \(output.width)×\(output.height) output")
        }
        let grid = HEIFGrid(rows: rows, columns: columns, tileWidth: tile.width, tileHeight: tile.height)
        return (grid, output, tileCodec, meta.associations[tiles[0]] ?? [])
    }

    /// The first `atMost` bytes of an item's data (file or `idat`).
    private func itemBytes(_ id: Int, atMost limit: Int) throws(ImageError) -> [UInt8] {
        guard let location = meta.locations[id] else { throw malformedHEIF("item \(id) has no location ('iloc')") }
        var bytes: [UInt8] = []
        for extent in location.extents where bytes.count < limit {
            let count = min(extent.length, limit - bytes.count)
            switch location.constructionMethod {
            case 0:
                bytes += try read(extent.offset, count)
            case 1:
                let start = (meta.itemData?.lowerBound ?? 0) + extent.offset
                bytes += meta.bytes[start..<(start + count)]
            default:
                throw ImageError(.unsupported, "HEIF item \(id) is built from other items (construction method \(location.constructionMethod)): not supported")
            }
        }
        return bytes
    }
}

extension ItemProperty {
    var isColour: Bool {
        switch self {
        case .colourCodePoints, .iccProfile: true
        default: false
        }
    }
}
