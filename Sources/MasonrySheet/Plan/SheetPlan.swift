import BitmapText
import WaterfallLayout
import Raster
#if canImport(Glibc)
import Glibc
#endif

/// Everything a run will draw, decided from headers and options alone, before any pixel is
/// decoded: the pages, their tiles, and each tile's layers. `--plan-only` writes it as the
/// manifest; `--page K` paints one of its pages; the manifest of a full run is this plan
/// plus what happened while painting.
public struct SheetPlan: Sendable {
    /// The sheet width (every page has it).
    public let width: Int
    public let background: RGBA8Color
    /// The geometry: pages and tiles (tile y within its page).
    public let layout: PagedLayout
    /// The images, by tile index (a page painted from a plan file puts in its own images as
    /// their headers are read again).
    public internal(set) var images: [PlannedImage]
    /// The pages in order, each with its file and its tiles' layers.
    public let pages: [PagePlan]
    /// What lies under every picture: the background, with the tile background over it.
    let underlay: RGBA8Color
    let enlarge: TileStyle.EnlargeMode
    /// Each image's caption as drawn (the lines fitted to the band), by tile index; empty without captions.
    let captions: [[TextLine]]
    /// The sections (empty without `--sections`) and each header band's text as drawn.
    let sections: [PlannedSection]
    let headerTexts: [TextLine]

    /// Bytes per sheet pixel: 3 over an opaque background, else 4.
    public var channels: Int { background.isOpaque ? 3 : 4 }
}

/// One input image the plan draws.
public struct PlannedImage: Sendable, Hashable {
    public let path: RawPath
    /// How the file is decoded, known from its first bytes (never from its name).
    public let format: ImageFormat
    /// Its header as the header pass read it (the decoder must find the same).
    public let source: SourceHeader
    /// How the decoded picture is turned into its tile: the header's orientation on a sheet;
    /// `.up` in compare, which compares pictures as stored.
    public let orientation: ExifOrientation
    /// The size as shown (`orientation` applied), which the layout uses.
    public var width: Int { orientation.swapsAxes ? source.height : source.width }
    public var height: Int { orientation.swapsAxes ? source.width : source.height }
    /// The file as the scan saw it: its size (`{bytes}` in captions), modification time and inode,
    /// which a page painted from a plan file checks the file against.
    public let stamp: FileStamp
    /// The file's size in bytes (`{bytes}` in captions).
    public var byteSize: Int64 { stamp.byteSize }
    /// The manifest's `"color"`: what the file says its colour space is.
    public var colorName: String { source.colorName }

    init(path: RawPath, format: ImageFormat, source: SourceHeader, orientation: ExifOrientation, stamp: FileStamp) {
        self.path = path
        self.format = format
        self.source = source
        self.orientation = orientation
        self.stamp = stamp
    }

    /// A stand-in of the given size for what is not one file (a compare pair, whose size the
    /// band scheduler's memory estimate reads).
    init(standingIn path: RawPath, width: Int, height: Int) {
        self.init(path: path, format: ImageFormats.png, source: SourceHeader(width: width, height: height), orientation: .up,
                  stamp: FileStamp(byteSize: 0, modificationTime: 0, inode: 0))
    }
}

/// What a plan remembers of an input file, to tell whether it changed since: cheap to compare
/// (one `stat`) and sure for a file rewritten in place or replaced. The device is left out: it
/// differs between machines mounting the same share, where the inode (NFS's file id) does not.
public struct FileStamp: Sendable, Hashable {
    public let byteSize: Int64
    /// Nanoseconds since 1970.
    public let modificationTime: Int64
    public let inode: UInt64

    public init(byteSize: Int64, modificationTime: Int64, inode: UInt64) {
        self.byteSize = byteSize
        self.modificationTime = modificationTime
        self.inode = inode
    }

    init(_ status: stat) {
        self.init(byteSize: Int64(status.st_size),
                  modificationTime: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
                  inode: UInt64(status.st_ino))
    }
}

/// A run of consecutive images shown under one header (`--sections`: one per folder).
public struct PlannedSection: Sendable, Hashable {
    /// What the header says: the folder's path as named, or that the files were named one by one.
    public let name: [UInt8]
    /// The images' indices.
    public let images: Range<Int>
}

/// One page: its number, its file and its tiles.
public struct PagePlan: Sendable {
    /// 1-based.
    public let number: Int
    public let file: RawPath
    public let height: Int
    /// The page's tiles in order of their top edge (then x), the order the band scheduler paints
    /// them in; empty for a page the run does not paint (`Planner.plan`'s `painting`).
    let tiles: [TilePlan]
}

/// One tile of a page: its rectangle and what is painted in it, bottom layer first.
struct TilePlan: Sendable {
    /// The image's index (the tile's number in the plan); nil for a band that shows no image (a title).
    let index: Int?
    let frame: LayoutRect
    let layers: [Layer]
}

/// One thing painted in a tile. A new kind of content is a new case and a new painter
/// (`TilePainter` dispatches), never a new pipeline.
enum Layer: Sendable {
    /// A source image, decoded, resampled to `rect` and composited over the plan's underlay.
    case picture(image: Int, rect: LayoutRect)
    /// A rectangle of colour, blended over what is there.
    case fill(rect: LayoutRect, color: RGBA8Color)
    /// A border `width` px wide inside `rect`.
    case frame(rect: LayoutRect, width: Int, color: RGBA8Color)
    /// Lines of text in the built-in font in `rect` below `top` px of padding, centred or from
    /// `inset` px from the left.
    case text(lines: [TextLine], rect: LayoutRect, top: Int, font: FontSize, color: RGBA8Color, inset: Int?)
    /// A compare pair's baseline, current and difference pictures, side by side.
    case pairPanels(PairPanels)
    /// A video's play mark over its poster frame in `rect` (`PlayMarkPainter`).
    case playMark(rect: LayoutRect)
}
