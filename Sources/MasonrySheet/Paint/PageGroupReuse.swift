import BitmapText
import Digest
import PNGCodec
import Raster
import TileCache
import WaterfallLayout
import WorkerThreads

/// A page's compressed row groups kept in the thumbnail cache between runs (SPEC §10), so that
/// a warm run neither paints nor compresses the rows that did not change.
///
/// Each row group of the page's PNG (`PNGEncoder.rowsPerGroup`) is known by its recipe: a
/// SHA-256 of everything that decides its filtered bytes and so its deflate segment: the page's
/// width, height, colours and filter, the group's rows, and every tile that touches its rows or
/// the row above them (which its filter reads), each by its frame and layers, a picture by its
/// thumbnail key (the file's identity, the tile's size and the decoding variant), plus the
/// versions of the painter and the writer. Hashing that is cheap (a few tiles a group), unlike
/// hashing the page's pixels.
///
/// Groups are kept `groupsPerEntry` to a page entry (`PageEntryFormat`), keyed by where they sit:
/// the same page settings and rows, and the paths (not the identities) of the files drawn there,
/// so a warm run finds the entry its cold run wrote. A group whose stored recipe matches is
/// copied; the scheduler paints only the tiles that touch a group that does not match, and an
/// entry is written again only when one of its groups was compressed.
///
/// A group is kept only when every picture touching it was drawn cleanly from the file whose key
/// was planned (not changed meanwhile, not changed just now, a regular file); otherwise it is
/// stored without a recipe and never served. A compare pair's panels are not kept.
final class PageGroupReuse: RowGroupReuse, @unchecked Sendable {
    // @unchecked Sendable: workers call only `tilePainted` (which takes `clean`'s lock); every
    // other mutable property belongs to the encoder thread.

    /// The version of everything of ours that turns a tile's layers into pixels besides the
    /// thumbnails (compositing, fills, frames, text, play marks): raise it whenever any changes.
    static let painterVersion: UInt32 = 1
    /// Row groups a page entry holds: about 2 MB of a photo sheet's rows, so that an entry holds
    /// few groups that did not change when one picture did, and a page needs few files.
    static let groupsPerEntry = 32

    let rowsPerGroup: Int
    private let groupCount: Int
    private let cache: ThumbnailCache
    private let tiles: [TilePlan]
    /// Each tile's pictures' keys in layer order, as planned; nil for a tile that cannot be kept.
    private let plannedKeys: [[ThumbnailKey]?]
    /// Per group: its recipe (nil when it cannot be kept), the tiles touching its rows or the row
    /// above them, and its stored segment when the cache had it.
    private let recipes: [[UInt8]?]
    private let tilesOfGroup: [[Int]]
    private let stored: [PageGroup?]
    private let entryKeys: [[UInt8]]
    /// The entries read, released once their groups are written.
    private var entries: [PageEntry?]
    private let clean: Lock<[Bool]>
    /// The entry being assembled: its groups and the copies of the compressed ones.
    private var assembling: [PageGroup] = []
    private var copies: [UnsafeMutableRawBufferPointer] = []
    private var assemblingHasNewGroup = false
    private var assemblingKeepsGroup = false

    /// Plans `page`'s groups for a PNG of `format` filtered with `filter`, opening each picture's
    /// file for its key, and reads the page's entries from `cache`.
    init(page: PagePlan, plan: SheetPlan, painter: TilePainter, cache: ThumbnailCache, format: PixelFormat,
         filter: PNGEncodingSettings.Filter) {
        self.cache = cache
        tiles = page.tiles
        let rows = PNGEncoder.rowsPerGroup(width: plan.width, format: format)
        rowsPerGroup = rows
        let groupCount = (page.height + rows - 1) / rows
        self.groupCount = groupCount
        var header = RecipeEncoding()
        header.append(Array("masonry page rows".utf8))
        header.append(UInt64(Self.painterVersion))
        header.append(UInt64(PNGEncoder.rowGroupVersion))
        header.append(Array(MasonryVersion.current.utf8))
        for value in [plan.width, page.height, plan.channels, rows] { header.append(value) }
        header.append(plan.background)
        header.append(plan.underlay)
        header.append(Array("\(filter)".utf8))

        var plannedKeys: [[ThumbnailKey]?] = []
        var recipeDigests: [[UInt8]?] = []
        var placeDigests: [[UInt8]] = []
        var tilesOfGroup = [[Int]](repeating: [], count: groupCount)
        for (position, tile) in page.tiles.enumerated() {
            let keys = Self.plannedKeys(of: tile, plan: plan, painter: painter)
            plannedKeys.append(keys)
            recipeDigests.append(keys.flatMap { Self.encoding(of: tile, plan: plan, pictureKeys: $0) }.map(SHA256.digest))
            placeDigests.append(SHA256.digest(Self.encoding(of: tile, plan: plan, pictureKeys: nil) ?? []))
            for group in Self.groups(touching: tile, rowsPerGroup: rows, groupCount: groupCount) {
                tilesOfGroup[group].append(position)
            }
        }
        self.plannedKeys = plannedKeys
        self.tilesOfGroup = tilesOfGroup
        let recipes = (0..<groupCount).map { group -> [UInt8]? in
            var recipe = header
            recipe.append(group)
            for position in tilesOfGroup[group] {
                guard let digest = recipeDigests[position] else { return nil }
                recipe.append(digest)
            }
            return SHA256.digest(recipe.bytes)
        }
        self.recipes = recipes
        let entryCount = (groupCount + Self.groupsPerEntry - 1) / Self.groupsPerEntry
        let entryKeys = (0..<entryCount).map { entry in
            var key = header
            key.append(Array("entry".utf8))
            key.append(entry)
            let positions = Set(Self.groups(ofEntry: entry, groupCount: groupCount).flatMap { tilesOfGroup[$0] })
            for position in positions.sorted() { key.append(placeDigests[position]) }
            return SHA256.digest(key.bytes)
        }
        self.entryKeys = entryKeys
        let entries = entryKeys.map { cache.lookupPage($0) }
        self.entries = entries
        let rowBytes = plan.width * format.bytesPerPixel
        var stored = [PageGroup?](repeating: nil, count: groupCount)
        for (entry, read) in entries.enumerated() {
            let groups = Self.groups(ofEntry: entry, groupCount: groupCount)
            guard let read, read.groups.count == groups.count else { continue }
            for (group, candidate) in zip(groups, read.groups) {
                let filtered = (min(page.height, (group + 1) * rows) - group * rows) * (rowBytes + 1)
                if let recipe = recipes[group], candidate.recipe == recipe, candidate.filteredCount == filtered {
                    stored[group] = candidate
                }
            }
        }
        self.stored = stored
        clean = Lock([Bool](repeating: false, count: page.tiles.count))
    }

    deinit {
        for copy in copies { copy.deallocate() }
    }

    /// Whether the tile at `position` must be painted: it touches a group the cache did not have
    /// (or no row at all: such a tile is painted for its outcome).
    func needsTile(at position: Int) -> Bool {
        let groups = Self.groups(touching: tiles[position], rowsPerGroup: rowsPerGroup, groupCount: groupCount)
        return groups.isEmpty || groups.contains { stored[$0] == nil }
    }

    /// Whether the page's row `y` must be painted: its group is compressed, or it is the row above one.
    func needsRow(_ y: Int) -> Bool {
        let group = y / rowsPerGroup
        if stored[group] == nil { return true }
        let next = (y + 1) / rowsPerGroup
        return next != group && next < groupCount && stored[next] == nil
    }

    /// Records how the tile at `position` was painted: its groups are kept only when it was drawn
    /// cleanly from the files planned.
    func tilePainted(at position: Int, outcome: TileOutcome, keys: [ThumbnailKey?]) {
        guard case .drawn = outcome, let planned = plannedKeys[position], keys.count == planned.count,
              zip(keys, planned).allSatisfy({ $0 == $1 }) else { return }
        clean.withLock { $0[position] = true }
    }

    // MARK: RowGroupReuse

    func storedGroup(_ index: Int) -> (bytes: UnsafeRawBufferPointer, adler: UInt32)? {
        stored[index].map { ($0.bytes, $0.adler) }
    }

    func groupWritten(_ index: Int, bytes: UnsafeRawBufferPointer, filteredCount: Int, adler: UInt32, reused: Bool) {
        if let group = stored[index], reused {
            assembling.append(group)
        } else {
            assemblingHasNewGroup = true
            let kept = recipes[index] != nil && clean.withLock { flags in tilesOfGroup[index].allSatisfy { flags[$0] } }
            if kept {
                assemblingKeepsGroup = true
                let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
                copy.copyMemory(from: bytes)
                copies.append(copy)
                assembling.append(PageGroup(recipe: recipes[index], bytes: UnsafeRawBufferPointer(copy),
                                            filteredCount: filteredCount, adler: adler))
            } else {
                assembling.append(PageGroup(recipe: nil, bytes: UnsafeRawBufferPointer(start: nil, count: 0),
                                            filteredCount: filteredCount, adler: adler))
            }
        }
        let entry = index / Self.groupsPerEntry
        guard index == Self.groups(ofEntry: entry, groupCount: groupCount).last else { return }
        // Written again only when a group changed, and not at all when no group could be kept.
        if assemblingHasNewGroup && assemblingKeepsGroup { cache.storePage(entryKeys[entry], groups: assembling) }
        assembling.removeAll()
        for copy in copies { copy.deallocate() }
        copies.removeAll()
        assemblingHasNewGroup = false
        assemblingKeepsGroup = false
        entries[entry] = nil
    }

    // MARK: Recipes

    /// The groups whose rows or row above meet `tile`'s rows.
    private static func groups(touching tile: TilePlan, rowsPerGroup: Int, groupCount: Int) -> Range<Int> {
        guard tile.frame.height > 0, groupCount > 0 else { return 0..<0 }
        return min(groupCount - 1, tile.frame.y / rowsPerGroup)..<(min(groupCount - 1, tile.frame.maxY / rowsPerGroup) + 1)
    }

    private static func groups(ofEntry entry: Int, groupCount: Int) -> Range<Int> {
        (entry * groupsPerEntry)..<min(groupCount, (entry + 1) * groupsPerEntry)
    }

    /// The thumbnail keys of `tile`'s pictures, from their files as they are now; nil when one
    /// cannot be keyed (or the tile holds a compare pair).
    private static func plannedKeys(of tile: TilePlan, plan: SheetPlan, painter: TilePainter) -> [ThumbnailKey]? {
        var keys: [ThumbnailKey] = []
        for layer in tile.layers {
            switch layer {
            case .picture(let image, let rect):
                let picture = painter.picturePainter(for: plan.images[image])
                guard let key = try? painter.opener.withFile(plan.images[image].path, { picture.thumbnailKey(of: $0, for: rect) })
                else { return nil }
                keys.append(key)
            case .pairPanels: return nil
            case .fill, .frame, .text, .playMark: continue
            }
        }
        return keys
    }

    /// The canonical bytes of `tile`: its frame and layers, each picture by its key (a recipe), or
    /// by its path when `pictureKeys` is nil (where the tile sits, for an entry's key); nil for a
    /// compare pair.
    private static func encoding(of tile: TilePlan, plan: SheetPlan, pictureKeys: [ThumbnailKey]?) -> [UInt8]? {
        var bytes = RecipeEncoding()
        bytes.append(tile.frame)
        var pictures = pictureKeys?.makeIterator()
        for layer in tile.layers {
            switch layer {
            case .picture(let image, let rect):
                bytes.append(1)
                bytes.append(rect)
                if pictures != nil, let key = pictures?.next() {
                    for value in [key.device, key.inode, UInt64(bitPattern: key.size), UInt64(bitPattern: key.modified),
                                  UInt64(bitPattern: key.changed), UInt64(key.targetWidth), UInt64(key.targetHeight), key.variant] {
                        bytes.append(value)
                    }
                } else {
                    bytes.append(plan.images[image].path.bytes)
                }
            case .fill(let rect, let color):
                bytes.append(2)
                bytes.append(rect)
                bytes.append(color)
            case .frame(let rect, let width, let color):
                bytes.append(3)
                bytes.append(rect)
                bytes.append(width)
                bytes.append(color)
            case .text(let lines, let rect, let top, let font, let color, let inset):
                bytes.append(4)
                bytes.append(rect)
                bytes.append(top)
                bytes.append(Array(font.rawValue.utf8))
                bytes.append(color)
                bytes.append(inset.map { [1, $0] } ?? [0, 0])
                bytes.append(lines.count)
                for line in lines { bytes.append(line.scalars.map { Int($0.value) }) }
            case .playMark(let rect):
                bytes.append(5)
                bytes.append(rect)
            case .pairPanels:
                return nil
            }
        }
        return bytes.bytes
    }
}

/// Bytes of a recipe: fixed-width little-endian integers, and byte strings after their length.
private struct RecipeEncoding {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: Int) { append(UInt64(bitPattern: Int64(value))) }

    mutating func append(_ values: [Int]) {
        append(values.count)
        for value in values { append(value) }
    }

    mutating func append(_ string: [UInt8]) {
        append(string.count)
        bytes += string
    }

    mutating func append(_ rect: LayoutRect) {
        for value in [rect.x, rect.y, rect.width, rect.height] { append(value) }
    }

    mutating func append(_ color: RGBA8Color) {
        bytes += [color.r, color.g, color.b, color.a]
    }
}
