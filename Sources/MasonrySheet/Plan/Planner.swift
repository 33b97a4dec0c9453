#if canImport(Glibc)
import Glibc
#endif
import BitmapText
import WaterfallLayout
import Raster

/// How a run is cut into pages and files (SPEC §6).
public struct PagingOptions: Sendable, Hashable {
    /// No page taller than this; 0 for one page. Default 16384, the texture limit of most GPUs.
    public var maxHeight: Int = 16384
    /// At most this many images a page; 0 for no limit.
    public var maxImagesPerPage: Int = 0

    public init(maxHeight: Int = 16384, maxImagesPerPage: Int = 0) {
        self.maxHeight = maxHeight
        self.maxImagesPerPage = maxImagesPerPage
    }
}

/// Turns images and options into a `SheetPlan`: pure computation, no file is read.
enum Planner {
    /// The largest sheet width below `configuration`'s, with its columns, gaps and insets, for
    /// which `works` (a layout that fits the pages); nil when none does. Bisection: a narrower
    /// sheet never makes a tile taller.
    static func largestWidth(below configuration: LayoutConfiguration, works: (LayoutConfiguration) -> Bool) -> Int? {
        func with(width: Int) -> LayoutConfiguration? {
            try? LayoutConfiguration(width: width, columns: configuration.columns, columnGap: configuration.columnGap,
                                     rowGap: configuration.rowGap, insets: configuration.insets, order: configuration.order,
                                     tolerance: configuration.tolerance, maxTileAspect: configuration.maxTileAspect,
                                     enlargesNarrowImages: configuration.enlargesNarrowImages)
        }
        let narrowest = configuration.insets.left + configuration.insets.right
            + configuration.columns + (configuration.columns - 1) * configuration.columnGap
        guard let smallest = with(width: narrowest), works(smallest) else { return nil }
        var low = narrowest, high = configuration.width   // works(low), !works(high)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if let candidate = with(width: middle), works(candidate) { low = middle } else { high = middle }
        }
        return low
    }

    /// The plan for `images` (their sizes from the header pass), with page files named after `output`.
    /// With `sections` (consecutive, covering every image in order), each gets a header band.
    /// Only the pages `painting` (0-based) says get their tiles' layers (a plan-only run paints
    /// none, and a million tiles' layers are most of its memory).
    static func plan(images: [PlannedImage], sections: [PlannedSection] = [], options: SheetOptions,
                     output: RawPath, painting: (Int) -> Bool = { _ in true }) throws(SheetError) -> SheetPlan {
        let style = options.style
        let sizes = images.map { LayoutSize(width: $0.width, height: $0.height) }
        let titleBand = options.title == nil ? 0 : BitmapFont.builtIn(.large).lineHeight + 2 * titlePadding
        let limits = PageLimits(maxHeight: options.paging.maxHeight, maxTiles: options.paging.maxImagesPerPage,
                                headerHeight: titleBand == 0 ? 0 : titleBand + options.layout.rowGap)
        func layOut(_ configuration: LayoutConfiguration) throws(LayoutError) -> PagedLayout {
            try PagedLayout(configuration: configuration, sizes: sizes, bandHeight: style.captionBandHeight,
                            sectionStarts: sections.map(\.images.lowerBound),
                            sectionHeaderHeight: BitmapFont.builtIn(headerFont).lineHeight + 2 * headerPadding,
                            limits: limits)
        }
        let layout: PagedLayout
        do throws(LayoutError) {
            layout = try layOut(options.layout)
        } catch {
            guard let (index, pageHeight) = error.tileTooTall else {
                throw SheetError(.usage, "--page-height \(options.paging.maxHeight) is too small: \(error.description)")
            }
            // The picture's tile is as tall as its column is wide allows (up to --max-tile-aspect
            // times it): name the file, and the widths and page heights that work.
            let widest = largestWidth(below: options.layout) { configuration in (try? layOut(configuration)) != nil }
            let width = widest.map { "the largest --width that works is \($0)" } ?? "no --width works with these columns"
            throw SheetError(.usage, "\(images[index].path.displayName) needs a tile taller than a page of --page-height "
                             + "\(options.paging.maxHeight) at --width \(options.layout.width): \(width), "
                             + "or a --page-height of at least \(pageHeight)")
        }
        let underlay = underlay(style.tileBackground, over: options.background)
        let textColor = style.captionColor ?? defaultTextColor(on: underlay)
        let font = BitmapFont.builtIn(style.fontSize)
        let captions: [[TextLine]] = style.caption.map { format in
            layout.tiles.map { tile in
                let width = tile.bandFrame.width - 2 * TileStyle.captionPadding.horizontal
                return format.render(images[tile.index], index: tile.index).map {
                    TextLine(bytes: $0).fitted(toWidth: width, in: font, keepingEnd: true)
                }
            }
        } ?? []

        let headerTexts = layout.headers.map { header in
            let section = sections[header.section]
            let count = section.images.count == 1 ? "1 image" : "\(section.images.count) images"
            return TextLine(bytes: section.name + Array(" \u{2014} \(count)\(header.continued ? " (continued)" : "")".utf8))
                .fitted(toWidth: header.frame.width, in: BitmapFont.builtIn(headerFont))
        }
        let files = pageFiles(output: output, count: layout.pages.count)
        let pages = layout.pages.enumerated().map { number, page in
            guard painting(number) else {
                return PagePlan(number: number + 1, file: files[number], height: page.height, tiles: [])
            }
            var tiles = layout.tiles[page.tiles]
                .sorted { ($0.frame.y, $0.frame.x) < ($1.frame.y, $1.frame.x) }
                .map { tile in
                    var layers: [Layer] = []
                    if let color = style.tileBackground { layers.append(.fill(rect: tile.frame, color: color)) }
                    layers.append(.picture(image: tile.index, rect: tile.imageFrame))
                    if style.videoBadge, images[tile.index].format.isVideo { layers.append(.playMark(rect: tile.imageFrame)) }
                    if !captions.isEmpty {
                        layers.append(.text(lines: captions[tile.index], rect: tile.bandFrame,
                                            top: TileStyle.captionPadding.vertical, font: style.fontSize, color: textColor,
                                            inset: nil))
                    }
                    if let frame = style.frame {
                        layers.append(.frame(rect: tile.frame, width: frame.width, color: frame.color))
                    }
                    return TilePlan(index: tile.index, frame: tile.frame, layers: layers)
                }
            if let title = options.title {
                let pageText = layout.pages.count > 1 ? " \u{2014} page \(number + 1) of \(layout.pages.count)" : ""
                let rect = LayoutRect(x: options.layout.insets.left, y: options.layout.insets.top,
                                      width: options.layout.innerWidth, height: titleBand)
                let line = TextLine(bytes: Array(title.utf8) + Array(pageText.utf8))
                    .fitted(toWidth: rect.width, in: BitmapFont.builtIn(.large))
                let color = defaultTextColor(on: options.background)
                tiles.insert(TilePlan(index: nil, frame: rect, layers: [.text(lines: [line], rect: rect, top: titlePadding,
                                                                              font: .large, color: color, inset: nil)]), at: 0)
            }
            for (position, header) in layout.headers.enumerated() where header.page == number {
                let color = defaultTextColor(on: options.background)
                let rule = LayoutRect(x: header.frame.x, y: header.frame.maxY - 1, width: header.frame.width, height: 1)
                tiles.append(TilePlan(index: nil, frame: header.frame, layers: [
                    .text(lines: [headerTexts[position]], rect: header.frame, top: headerPadding, font: headerFont,
                          color: color, inset: 0),
                    .fill(rect: rule, color: RGBA8Color(r: color.r, g: color.g, b: color.b, a: 96)),
                ]))
            }
            tiles.sort { ($0.frame.y, $0.frame.x) < ($1.frame.y, $1.frame.x) }
            return PagePlan(number: number + 1, file: files[number], height: page.height, tiles: tiles)
        }
        return SheetPlan(width: options.layout.width, background: options.background, layout: layout,
                         images: images, pages: pages, underlay: underlay, enlarge: style.enlarge, captions: captions,
                         sections: sections, headerTexts: headerTexts)
    }

    /// Padding above and below a title line.
    static let titlePadding = 6
    /// The font and padding of section headers.
    static let headerFont = FontSize.medium
    static let headerPadding = 4

    /// The colour of `color` blended over `background`, as the sheet stores it.
    private static func underlay(_ color: RGBA8Color?, over background: RGBA8Color) -> RGBA8Color {
        guard let color else { return background }
        let channels = background.isOpaque ? 3 : 4
        var pixel = [UInt8](repeating: 0, count: channels)
        pixel.withUnsafeMutableBufferPointer { row in
            fillRow(row, with: background, channels: channels)
            BoxPainter.fill((0, 0, 1, 1), color: color, clip: (0, 0, 1, 1), channels: channels) { _ in row }
        }
        return RGBA8Color(r: pixel[0], g: pixel[1], b: pixel[2], a: channels == 4 ? pixel[3] : 255)
    }

    /// The files in `output`'s folder named like its pages (`sheet-001.png`, `sheet-0042.png`):
    /// an earlier run's pages, which a scan of that folder must not take for inputs.
    static func existingPageFiles(output: RawPath) -> [RawPath] {
        let (stem, suffix) = stemAndSuffix(output.lastComponent)
        let folder = output.parent
        guard let directory = folder.withCString({ opendir($0) }) else { return [] }
        defer { closedir(directory) }
        var found: [RawPath] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard name.count >= stem.count + 4 + suffix.count, name.starts(with: stem + [UInt8(ascii: "-")]),
                  name.suffix(suffix.count).elementsEqual(suffix) else { continue }
            let digits = name[(stem.count + 1)..<(name.count - suffix.count)]
            guard digits.count >= 3, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { continue }
            found.append(output.bytes.contains(UInt8(ascii: "/")) ? folder.appending(name) : RawPath(bytes: name))
        }
        return found
    }

    /// A file name split before its extension: `sheet.png` → (`sheet`, `.png`); no extension → (name, "").
    private static func stemAndSuffix(_ name: [UInt8]) -> (stem: [UInt8], suffix: [UInt8]) {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return (name, []) }
        return (Array(name[..<dot]), Array(name[dot...]))
    }

    /// SPEC §6 file names: `output` itself for one page; otherwise its stem, `-`, the page
    /// number zero-padded to at least three digits, and its extension (`sheet-001.png`).
    static func pageFiles(output: RawPath, count: Int) -> [RawPath] {
        guard count > 1 else { return [output] }
        let suffix = stemAndSuffix(output.lastComponent).suffix
        let stem = Array(output.bytes.dropLast(suffix.count))
        let digits = max(3, String(count).count)
        return (1...count).map { number in
            let text = String(number)
            let padded = String(repeating: "0", count: digits - text.count) + text
            return RawPath(bytes: stem + Array("-\(padded)".utf8) + suffix)
        }
    }
}
