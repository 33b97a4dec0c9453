import ColorManagement
import GIFCodec
import HEIFCodec
import JPEGCodec
import JXLCodec
import CodecCore
import PNGCodec
import RAWCodec
import Raster
import SVGCodec
import TIFFCodec
import VideoCodec
import WebPCodec

/// One image format the tool reads: how to recognise a file of it from its first bytes, how to
/// read its header (the size and orientation, no pixel decoded), and how to open a decoder
/// that may shrink on load. The scanner, the header pass, the painters, the thumbnail cache
/// and compare ask `ImageFormats` and never name a format: a new format is one entry in
/// `ImageFormats.all` plus its codec module.
///
/// A class, so an image's plan entry holds one reference to its format, not a copy of its
/// strings and closures (a million planned images hold six formats).
public final class ImageFormat: Sendable, Hashable, CustomStringConvertible {
    /// The name the manifest and messages use ("PNG", "JPEG").
    public let name: String
    /// What a folder scan picks up, lower case with the dot (names match in any letter case).
    let folderExtensions: [String]
    /// The decoding library's version as it runs: part of every thumbnail cache key, so a new
    /// decoder never serves thumbnails an older one made. Asked only when a file of the format is
    /// painted: a library loaded on first use (libheif, libtiff) is not loaded to name it.
    var decoderVersion: String { versionOfDecoder() }
    private let versionOfDecoder: @Sendable () -> String
    /// How a file of this format is recognised from its first bytes.
    let detection: FormatDetection
    /// The ways its decoder can shrink while decoding (`openDecoder` picks among them).
    public let shrink: ShrinkOnLoad
    /// A video, drawn as its poster frame: its tile gets a play mark (`TileStyle.videoBadge`).
    public let isVideo: Bool
    /// The header, read with bounded reads; no limit is checked here (the table does it).
    let readHeader: @Sendable (_ file: InputFile) throws(ImageError) -> SourceHeader
    /// A decoder whose rows are at least `minimumWidth` × `minimumHeight` in the stored
    /// orientation (it may shrink on load while each side stays at least twice the minimum),
    /// with the header it read, so a file changed since the header pass is noticed.
    let openDecoder: @Sendable (_ file: InputFile, _ limits: DecodeLimits, _ minimumWidth: Int, _ minimumHeight: Int)
        throws(ImageError) -> (header: SourceHeader, rows: any RowSource)
    /// For formats whose samples must go through their profile while decoding (CMYK JPEGs: the
    /// rows are RGB), `openDecoder` with that transform; nil when every profile is applied to
    /// the resampled RGBA rows.
    let openConvertingDecoder: (@Sendable (_ file: InputFile, _ limits: DecodeLimits, _ minimumWidth: Int, _ minimumHeight: Int,
                                           _ transform: ColorTransform) throws(ImageError) -> (header: SourceHeader, rows: any RowSource))?
    /// What the manifest item adds for a picture of this format drawn to at least `target`
    /// (stored orientation), from its header alone: a RAW's `rawSource`. Nil for none.
    let manifestFields: (@Sendable (_ header: SourceHeader, _ target: DecodeTarget) -> [(key: String, value: String)])?

    init(name: String, folderExtensions: [String], decoderVersion: @autoclosure @escaping @Sendable () -> String, detection: FormatDetection,
         shrink: ShrinkOnLoad, isVideo: Bool = false,
         readHeader: @escaping @Sendable (_ file: InputFile) throws(ImageError) -> SourceHeader,
         openDecoder: @escaping @Sendable (_ file: InputFile, _ limits: DecodeLimits, _ minimumWidth: Int, _ minimumHeight: Int)
            throws(ImageError) -> (header: SourceHeader, rows: any RowSource),
         openConvertingDecoder: (@Sendable (_ file: InputFile, _ limits: DecodeLimits, _ minimumWidth: Int, _ minimumHeight: Int,
                                            _ transform: ColorTransform) throws(ImageError) -> (header: SourceHeader, rows: any RowSource))? = nil,
         manifestFields: (@Sendable (_ header: SourceHeader, _ target: DecodeTarget) -> [(key: String, value: String)])? = nil) {
        self.name = name
        self.folderExtensions = folderExtensions
        versionOfDecoder = decoderVersion
        self.detection = detection
        self.shrink = shrink
        self.isVideo = isVideo
        self.readHeader = readHeader
        self.openDecoder = openDecoder
        self.openConvertingDecoder = openConvertingDecoder
        self.manifestFields = manifestFields
    }

    public static func == (a: ImageFormat, b: ImageFormat) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    public var description: String { name }
}

/// How the table recognises a format from a file's first bytes, as libvips's `is_a` does: each
/// entry says how many bytes it needs and gives a full check of them; when several entries
/// accept a file (TIFF and the RAW formats built on it, the ISOBMFF brands, SVG's XML), the one
/// of highest `priority` wins, so the most specific entry decides.
struct FormatDetection: Sendable {
    /// How many leading bytes `matches` needs (it is shown fewer when the file is shorter).
    let prefixBytes: Int
    /// Against other entries that accept the same file, the higher wins.
    let priority: Int
    /// Whether the file is of this format, from its first bytes.
    let matches: @Sendable (_ prefix: [UInt8]) -> Bool

    /// A format with a signature of its own, which no other entry's file starts with.
    static let distinct = 0
    /// A format recognised inside a container family another entry also reads (a RAW in TIFF).
    static let specialised = 10
    /// A container family's catch-all, which a file another entry also accepts goes to
    /// (an ISOBMFF file of HEIF brands beside MPEG-4 ones is HEIF's, not MP4's).
    static let generic = -10

    init(prefixBytes: Int, priority: Int = FormatDetection.distinct, matches: @escaping @Sendable (_ prefix: [UInt8]) -> Bool) {
        self.prefixBytes = prefixBytes
        self.priority = priority
        self.matches = matches
    }
}

/// What the header pass learned of one input: its format and header, or why it cannot be drawn,
/// and the file it opened (nil when it could not open one).
struct HeaderReading: Sendable {
    let result: Result<(ImageFormat, SourceHeader), ImageError>
    let file: OpenedFile?
}

/// Which file an input's path led to when the header pass opened it, and its size and time then.
struct OpenedFile: Sendable {
    let identity: FileIdentity
    let stamp: FileStamp
}

/// What the header pass learns of a picture, whatever its format.
///
/// Stored in 40 bytes (a million planned images hold one each): sides and frame count as 32-bit
/// values, and what few pictures carry (a colour decision, a RAW's embedded pictures) behind one
/// reference, none for an untagged picture without embedded pictures.
public struct SourceHeader: Sendable, Hashable {
    private let storedWidth: UInt32
    private let storedHeight: UInt32
    private let storedFrameCount: UInt32
    /// A video's duration in whole seconds plus one (0: a picture, or a video of unknown length);
    /// 16 bits (18 hours at most) fit beside the orientation, so it costs a planned image nothing.
    private let storedDuration: UInt16
    /// How the stored picture is turned to be shown (EXIF); `.up` for formats whose decoder
    /// applies the file's own transformations.
    public let orientation: ExifOrientation
    /// The pixels the decoder makes at full size before any crop (a HEIF's coded size, larger
    /// than its `clap`-cropped shown size); the stored size otherwise, saturating (a TIFF's or
    /// RAW's two 32-bit sides overflow Int before the limits refuse them).
    public let decodedPixels: Int
    /// The bytes the decoder holds at once for the whole picture, which the painting's memory
    /// budget counts: libheif's planes, an interlaced PNG's image or GIF frame's indices; 0 for a
    /// decoder that streams rows or holds at most its own bounded budget (JPEG's and WebP's
    /// 256 MiB). Saturates rather than overflows: a header may claim any size.
    public let wholePictureBytes: Int
    private let extras: Extras?

    /// The size as stored, before `orientation`.
    public var width: Int { Int(storedWidth) }
    public var height: Int { Int(storedHeight) }
    /// How many frames the file holds (1 for a still; the first is drawn).
    public var frameCount: Int { Int(storedFrameCount) }
    /// A video's duration in whole seconds (rounded), nil for a picture or an unknown length.
    public var durationSeconds: Int? { storedDuration == 0 ? nil : Int(storedDuration) - 1 }
    /// The picture's colour space as the file describes it, and what converting it needs.
    public var color: ColorDecision { extras?.color ?? .untagged }
    /// The manifest's name of the colour space (`"untagged"`, `"sRGB"`, `"icc:…"`).
    public var colorName: String { extras?.colorName ?? "untagged" }
    /// The sizes of the smaller pictures a decoder may draw instead (a RAW's JPEG previews), in
    /// the stored orientation; what the manifest's `rawSource` is decided from.
    public var embeddedPictures: [PictureSize] { extras?.embeddedPictures ?? [] }

    /// Sides and frame count are kept as 32-bit values (every format's header stores them so;
    /// larger values saturate).
    public init(width: Int, height: Int, orientation: ExifOrientation = .up, frameCount: Int = 1,
                decodedPixels: Int? = nil, wholePictureBytes: Int = 0, color: ColorDecision = .untagged,
                durationSeconds: Int? = nil, embeddedPictures: [PictureSize] = []) {
        self.init(width: width, height: height, orientation: orientation, frameCount: frameCount, decodedPixels: decodedPixels,
                  wholePictureBytes: wholePictureBytes, durationSeconds: durationSeconds,
                  extras: Extras.make(color: color, colorName: color == .untagged ? "untagged" : color.space.manifestName,
                                      embeddedPictures: embeddedPictures))
    }

    /// A header known from a plan file: its colour space by name only (drawn as untagged if it
    /// were painted; a page job reads its pages' headers again instead).
    init(width: Int, height: Int, orientation: ExifOrientation, frameCount: Int, durationSeconds: Int?, colorName: String) {
        self.init(width: width, height: height, orientation: orientation, frameCount: frameCount, decodedPixels: nil,
                  wholePictureBytes: 0, durationSeconds: durationSeconds,
                  extras: Extras.make(color: .untagged, colorName: colorName, embeddedPictures: []))
    }

    private init(width: Int, height: Int, orientation: ExifOrientation, frameCount: Int, decodedPixels: Int?,
                 wholePictureBytes: Int, durationSeconds: Int?, extras: Extras?) {
        storedWidth = UInt32(clamping: width)
        storedHeight = UInt32(clamping: height)
        storedFrameCount = UInt32(clamping: frameCount)
        storedDuration = durationSeconds.map { UInt16(clamping: min(max($0, 0), Int(UInt16.max) - 1) + 1) } ?? 0
        self.orientation = orientation
        self.decodedPixels = decodedPixels ?? Self.saturatingProduct(width, height, 1)
        self.wholePictureBytes = wholePictureBytes
        self.extras = extras
    }

    /// A colour decision with its manifest name, and embedded pictures' sizes, shared by reference.
    private final class Extras: Sendable, Hashable {
        let color: ColorDecision
        let colorName: String
        let embeddedPictures: [PictureSize]

        private init(color: ColorDecision, colorName: String, embeddedPictures: [PictureSize]) {
            self.color = color
            self.colorName = colorName
            self.embeddedPictures = embeddedPictures
        }

        /// Nil for what most pictures are: untagged, nothing embedded (so equal headers hold
        /// equal extras, nil or not).
        static func make(color: ColorDecision, colorName: String, embeddedPictures: [PictureSize]) -> Extras? {
            colorName == "untagged" && color == .untagged && embeddedPictures.isEmpty
                ? nil : Extras(color: color, colorName: colorName, embeddedPictures: embeddedPictures)
        }

        static func == (a: Extras, b: Extras) -> Bool {
            a.color == b.color && a.colorName == b.colorName && a.embeddedPictures == b.embeddedPictures
        }
        func hash(into hasher: inout Hasher) {
            hasher.combine(colorName)
            hasher.combine(embeddedPictures)
        }
    }

    /// `a * b * c`, or `Int.max` when that overflows.
    static func saturatingProduct(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let (ab, first) = a.multipliedReportingOverflow(by: b)
        let (abc, second) = ab.multipliedReportingOverflow(by: c)
        return first || second ? .max : abc
    }

    /// A picture's size, stored orientation.
    public struct PictureSize: Sendable, Hashable {
        public let width: Int
        public let height: Int
    }

    /// The size as shown, which the layout uses.
    public var displayWidth: Int { orientation.swapsAxes ? height : width }
    public var displayHeight: Int { orientation.swapsAxes ? width : height }
}

/// The formats the tool reads, and the only code that chooses among them.
public enum ImageFormats {
    /// The shortest signature of any format: a file with fewer bytes is of none.
    static let shortestSignature = 8

    static let png = ImageFormat(
        name: "PNG", folderExtensions: [".png"], decoderVersion: PNGDecoder.libraryVersion,
        detection: FormatDetection(prefixBytes: PNGHeader.signatureLength) { prefix in PNGHeader.hasSignature(prefix) },
        shrink: [],
        readHeader: { file throws(ImageError) in SourceHeader(try PNGHeader(file: file), in: file) },
        openDecoder: { file, limits, _, _ throws(ImageError) in
            let decoder = try PNGDecoder(file: file, limits: limits, compactOpaqueRows: true)
            return (SourceHeader(decoder.header, in: file), decoder)
        })

    static let jpeg = ImageFormat(
        name: "JPEG", folderExtensions: [".jpg", ".jpeg"], decoderVersion: JPEGDecoder.libraryVersion,
        detection: FormatDetection(prefixBytes: 3) { prefix in JPEGHeader.hasSignature(prefix) },
        shrink: .dctEighths,
        readHeader: { file throws(ImageError) in SourceHeader(try JPEGHeader(file: file)) },
        openDecoder: { file, limits, minimumWidth, minimumHeight throws(ImageError) in
            let decoder = try JPEGDecoder(file: file, limits: limits, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
            return (SourceHeader(decoder.header), decoder)
        },
        openConvertingDecoder: { file, limits, minimumWidth, minimumHeight, transform throws(ImageError) in
            let decoder = try JPEGDecoder(file: file, limits: limits, minimumWidth: minimumWidth, minimumHeight: minimumHeight,
                                          cmykTransform: transform)
            return (SourceHeader(decoder.header), decoder)
        })

    static let webp = ImageFormat(
        name: "WebP", folderExtensions: [".webp"], decoderVersion: WebPDecoder.libraryVersion,
        detection: FormatDetection(prefixBytes: 12) { prefix in WebPHeader.hasSignature(prefix) },
        shrink: .anyScale,
        readHeader: { file throws(ImageError) in SourceHeader(try WebPHeader(file: file)) },
        openDecoder: { file, limits, minimumWidth, minimumHeight throws(ImageError) in
            let decoder = try WebPDecoder(file: file, limits: limits, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
            return (SourceHeader(decoder.header), decoder)
        })

    /// GIF: the first frame on its canvas (the logical screen grown to hold it); the header
    /// walk counts the frames. No shrink on load.
    static let gif = ImageFormat(
        name: "GIF", folderExtensions: [".gif"], decoderVersion: GIFDecoder.libraryVersion,
        detection: FormatDetection(prefixBytes: 6) { prefix in GIFHeader.hasSignature(prefix) },
        shrink: [],
        readHeader: { file throws(ImageError) in SourceHeader(try GIFHeader(file: file)) },
        openDecoder: { file, limits, _, _ throws(ImageError) in
            let decoder = try GIFDecoder(file: file, limits: limits)
            return (SourceHeader(decoder.header), decoder)
        })

    /// HEIC/HEIF and AVIF share one decoder (libheif) and one header reader; the brands of
    /// `ftyp` tell them apart. libheif applies `irot`/`imir`/`clap`, so the header's size is the
    /// displayed one and the orientation `.up`.
    static let heif = heifFamily(.heif, name: "HEIF", folderExtensions: [".heic", ".heif", ".hif"])
    static let avif = heifFamily(.avif, name: "AVIF", folderExtensions: [".avif", ".avifs"])

    private static func heifFamily(_ family: HEIFFormat, name: String, folderExtensions: [String]) -> ImageFormat {
        ImageFormat(
            name: name, folderExtensions: folderExtensions, decoderVersion: HEIFDecoder.libraryVersion(for: family),
            detection: FormatDetection(prefixBytes: HEIFHeader.signaturePrefixBytes) { prefix in HEIFHeader.format(prefix: prefix) == family },
            shrink: .embeddedPictures,
            readHeader: { file throws(ImageError) in SourceHeader(try HEIFHeader(file: file)) },
            openDecoder: { file, limits, minimumWidth, minimumHeight throws(ImageError) in
                let decoder = try HEIFDecoder(file: file, limits: limits, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
                return (SourceHeader(decoder.header), decoder)
            })
    }

    /// TIFF and BigTIFF: the first page (its reduced-resolution levels shrink on load), the
    /// page count as frames. A RAW built on TIFF is claimed by its own, more specific entry.
    static let tiff = ImageFormat(
        name: "TIFF", folderExtensions: [".tif", ".tiff"], decoderVersion: TIFFDecoder.libraryVersion,
        detection: FormatDetection(prefixBytes: 4) { prefix in TIFFHeader.hasSignature(prefix) },
        shrink: .pyramidLevels,
        readHeader: { file throws(ImageError) in SourceHeader(try TIFFHeader(file: file)) },
        openDecoder: { file, limits, minimumWidth, minimumHeight throws(ImageError) in
            let decoder = try TIFFDecoder(file: file, limits: limits, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
            return (SourceHeader(decoder.header), decoder)
        },
        openConvertingDecoder: { file, limits, minimumWidth, minimumHeight, transform throws(ImageError) in
            let decoder = try TIFFDecoder(file: file, limits: limits, minimumWidth: minimumWidth, minimumHeight: minimumHeight,
                                          cmykTransform: transform)
            return (SourceHeader(decoder.header), decoder)
        })

    /// Camera RAW through LibRaw, preview first: the smallest embedded JPEG preview at least
    /// twice the tile (JPEGCodec's decoder over its byte range), else LibRaw's half-size
    /// demosaic; the RAW's orientation, not the preview's. Recognised inside TIFF by its IFD0
    /// (DNGVersion, a RAW maker's thumbnail or sensor directory, CR2's marker), and by RAF's,
    /// CR3's, ORF's and RW2's own signatures; a TIFF that is no RAW stays TIFF's.
    static let raw = ImageFormat(
        name: "RAW",
        folderExtensions: [".dng", ".cr2", ".cr3", ".crw", ".nef", ".nrw", ".arw", ".sr2", ".srf", ".raf", ".orf", ".rw2", ".rwl",
                           ".pef", ".erf", ".3fr", ".fff", ".iiq", ".mef", ".mos", ".kdc", ".dcr", ".x3f", ".srw"],
        decoderVersion: RAWDecoder.libraryVersion,
        detection: FormatDetection(prefixBytes: RAWHeader.signaturePrefixBytes, priority: FormatDetection.specialised) { prefix in
            RAWHeader.container(prefix: prefix) != nil
        },
        shrink: [.embeddedPictures, .dctEighths],
        readHeader: { file throws(ImageError) in SourceHeader(try RAWHeader(file: file), fileSize: file.size) },
        openDecoder: { file, limits, minimumWidth, minimumHeight throws(ImageError) in
            let decoder = try RAWDecoder(file: file, limits: limits, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
            return (SourceHeader(decoder.header, fileSize: file.size), decoder)
        },
        manifestFields: { header, target in
            let sizes = header.embeddedPictures.map { (width: $0.width, height: $0.height) }
            return [("rawSource", RAWHeader.source(previewSizes: sizes, target: target).manifestName)]
        })

    /// SVG through librsvg, drawn at the tile's own size over a transparent canvas (no raster to
    /// shrink: `.vector`); recognised by its XML prolog reaching a root `<svg>`, in the file or in
    /// what its gzip stream inflates to (SVGZ, `SVGFile`). `SVGHeader` reads the intrinsic size as
    /// librsvg does; librsvg holds the document tree, counted from the document's size
    /// (`SVGHeader.treeBytesPerFileByte`).
    static let svg = ImageFormat(
        name: "SVG", folderExtensions: [".svg", ".svgz"], decoderVersion: SVGDecoder.libraryVersion,
        detection: FormatDetection(prefixBytes: SVGHeader.signaturePrefixBytes) { prefix in SVGHeader.hasSignature(prefix) },
        shrink: .vector,
        readHeader: { file throws(ImageError) in SourceHeader(try SVGHeader(file: file)) },
        openDecoder: { file, limits, minimumWidth, minimumHeight throws(ImageError) in
            let decoder = try SVGDecoder(file: file, limits: limits, width: minimumWidth, height: minimumHeight)
            return (SourceHeader(decoder.header), decoder)
        })

    /// Videos: the poster frame (`VideoDecoder`: at 10 % of the duration), any output size
    /// through swscale; the display matrix is the orientation, the stream's frames the frame count.
    static let mp4 = video(.mp4, folderExtensions: [".mp4", ".m4v"], priority: FormatDetection.generic)
    static let mov = video(.mov, folderExtensions: [".mov"], priority: FormatDetection.generic)
    static let matroska = video(.matroska, folderExtensions: [".mkv", ".webm"])
    static let avi = video(.avi, folderExtensions: [".avi"])

    private static func video(_ container: VideoContainer, folderExtensions: [String], priority: Int = FormatDetection.distinct) -> ImageFormat {
        ImageFormat(
            name: container.rawValue, folderExtensions: folderExtensions, decoderVersion: VideoDecoder.libraryVersion,
            detection: FormatDetection(prefixBytes: VideoContainer.signaturePrefixBytes, priority: priority) { prefix in
                VideoContainer(prefix: prefix) == container
            },
            shrink: .anyScale, isVideo: true,
            readHeader: { file throws(ImageError) in SourceHeader(try VideoHeader(file: file, container: container)) },
            openDecoder: { file, limits, minimumWidth, minimumHeight throws(ImageError) in
                let decoder = try VideoDecoder(file: file, container: container, limits: limits, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
                return (SourceHeader(decoder.header), decoder)
            })
    }

    /// JPEG XL, naked codestream or container, through libjxl: the first frame (an animation's
    /// composited by libjxl), decoded whole in the stored orientation, the codestream's
    /// orientation applied as EXIF's; a recompressed JPEG drawn through its pixels. No shrink on
    /// load (libjxl 0.7 offers no cheaper sufficient level: see SPEC §12).
    static let jxl = ImageFormat(
        name: "JPEG XL", folderExtensions: [".jxl"], decoderVersion: JXLDecoder.libraryVersion,
        detection: FormatDetection(prefixBytes: JXLHeader.containerSignature.count) { prefix in JXLHeader.hasSignature(prefix) },
        shrink: [],
        readHeader: { file throws(ImageError) in
            let jxl = try JXLHeader(file: file)
            return try SourceHeader(jxl, in: file) { () throws(ImageError) in try JXLDecoder.embeddedProfile(of: file, header: jxl) }
        },
        openDecoder: { file, limits, _, _ throws(ImageError) in
            let decoder = try JXLDecoder(file: file, limits: limits)
            return (try SourceHeader(decoder.header, in: file) { decoder.embeddedProfile }, decoder)
        })

    /// Every format the tool reads. A plan file names a format by its position here, so a new
    /// format is appended: plans written before it keep their meaning.
    public static let all: [ImageFormat] = [png, jpeg, webp, gif, heif, avif, tiff, raw, mp4, mov, matroska, avi, svg, jxl]

    /// Every extension a folder scan picks up.
    static let folderExtensions: [[UInt8]] = all.flatMap(\.folderExtensions).map { Array($0.utf8) }

    /// How many leading bytes detection reads: what the most demanding entry needs.
    static let detectionPrefixBytes = all.map(\.detection.prefixBytes).max() ?? shortestSignature

    /// The format of an open file, by its signature, never its name: of the entries that accept
    /// its first bytes, the one of highest priority (the first in the table on a tie).
    static func format(of file: InputFile) throws(ImageError) -> ImageFormat {
        var prefix = [UInt8](repeating: 0, count: detectionPrefixBytes)
        let count = try file.readPrefix(into: &prefix)
        prefix.removeLast(detectionPrefixBytes - count)
        return try format(ofPrefix: prefix)
    }

    /// The format of a file that starts with `prefix` (at most `detectionPrefixBytes`).
    static func format(ofPrefix prefix: [UInt8]) throws(ImageError) -> ImageFormat {
        var best: ImageFormat?
        // Each entry is shown at most the bytes it asks for; entries asking for as many share one copy.
        var shortened: [(count: Int, bytes: [UInt8])] = []
        for format in all {
            let needed = format.detection.prefixBytes
            let shown: [UInt8]
            if prefix.count <= needed {
                shown = prefix
            } else if let copy = shortened.first(where: { $0.count == needed }) {
                shown = copy.bytes
            } else {
                shown = Array(prefix[..<needed])
                shortened.append((needed, shown))
            }
            guard format.detection.matches(shown) else { continue }
            if best == nil || format.detection.priority > best!.detection.priority { best = format }
        }
        if let best { return best }
        if prefix.isEmpty { throw ImageError(.emptyFile) }
        guard prefix.count >= shortestSignature else { throw ImageError(.tooShortForAnyFormat(size: prefix.count)) }
        throw ImageError(.malformed, "not \(namesForMessages) file")
    }

    /// "a PNG or JPEG", for the one-line reason of a file of no known format.
    static var namesForMessages: String { "a " + nameList }

    /// "PNG and JPEG" style lists of the table, for messages and `--help`.
    public static let nameList = joined(all.map(\.name), "or")
    public static let extensionList = joined(all.flatMap(\.folderExtensions).map { "*" + $0 }, "and")

    private static func joined(_ words: [String], _ conjunction: String) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " \(conjunction) " + words.last!
    }

    /// The most bytes one whole-picture decoder may hold (`SourceHeader.wholePictureBytes`): 512 MiB,
    /// a 64-megapixel HEIC. Larger pictures are refused from their header, so one file can only be
    /// skipped, never make the whole run's memory estimate fail.
    static let wholePictureBudget = 512 << 20

    /// Reads the header of an open file, refused when its stored size is over `limits`, or when
    /// its decoder would hold more than `wholePictureBudget`. `package` for the source-header
    /// fuzz target, which runs the header pass through it.
    package static func header(of file: InputFile, limits: DecodeLimits) throws(ImageError) -> (ImageFormat, SourceHeader) {
        let format = try format(of: file)
        let header = try format.readHeader(file)
        if let refusal = limits.refusal(width: header.width, height: header.height) { throw refusal }
        if header.wholePictureBytes > wholePictureBudget {
            throw ImageError(.limitExceeded, "image needs more decoding memory than the budget allows")
        }
        return (format, header)
    }

    /// The header pass for one input: its format and header, or why it cannot be drawn, and which
    /// file was read.
    static func header(of path: RawPath, limits: DecodeLimits, opener: InputOpener) -> HeaderReading {
        var opened: OpenedFile?
        do {
            let read = try opener.withFile(path) { file in
                opened = OpenedFile(identity: FileIdentity(file),
                                    stamp: FileStamp(byteSize: Int64(file.size), modificationTime: file.modificationTime,
                                                     inode: file.inode))
                return try header(of: file, limits: limits)
            }
            return HeaderReading(result: .success(read), file: opened)
        } catch {
            return HeaderReading(result: .failure(error as? ImageError ?? ImageError(.io, "\(error)")), file: opened)
        }
    }

    /// Opens a decoder for a file the header pass read as `format` with `expected`; a file
    /// that changed since then is an I/O failure (the plan was made for the old one).
    /// With `decodeTransform` (a CMYK profile's), a format that converts while decoding does.
    /// `package` for the source-decode fuzz target, which opens every decoder through it.
    package static func decoder(for file: InputFile, format: ImageFormat, expected: SourceHeader, limits: DecodeLimits,
                        minimumWidth: Int, minimumHeight: Int, decodeTransform: ColorTransform? = nil) throws(ImageError) -> any RowSource {
        let (header, rows) = if let decodeTransform, let open = format.openConvertingDecoder {
            try open(file, limits, minimumWidth, minimumHeight, decodeTransform)
        } else {
            try format.openDecoder(file, limits, minimumWidth, minimumHeight)
        }
        guard header == expected else { throw ImageError(.changedWhileReading) }
        return rows
    }
}

extension ImageFormats {
    /// Opens any file the table reads, by its signature, for a full-size decode (every stored
    /// pixel, no shrink on load): what compare and the benchmark's decode floor read.
    public static func fullSizeDecoder(for file: InputFile, limits: DecodeLimits) throws(ImageError) -> (ImageFormat, any RowSource) {
        let (format, header) = try header(of: file, limits: limits)
        let rows = try decoder(for: file, format: format, expected: header, limits: limits,
                               minimumWidth: header.width, minimumHeight: header.height)
        return (format, rows)
    }
}

extension SourceHeader {
    init(_ jpeg: JPEGHeader) {
        let model: ICCProfile.ColorModel = switch jpeg.componentCount {
        case 1: .grey
        case 4: .cmyk
        default: .rgb
        }
        self.init(width: jpeg.width, height: jpeg.height, orientation: jpeg.orientation, color: jpeg.color.decision(for: model))
    }

    /// A PNG's header with its colour chunks (read up to the first IDAT).
    /// An interlaced PNG is decoded whole (libpng), at most 4 bytes a pixel as the rows are
    /// delivered (RGBA; the header alone cannot tell whether a tRNS chunk adds alpha).
    init(_ png: PNGHeader, in file: InputFile) {
        let model: ICCProfile.ColorModel = png.colorType == .grey || png.colorType == .greyAlpha ? .grey : .rgb
        self.init(width: png.width, height: png.height,
                  wholePictureBytes: png.isInterlaced ? Self.saturatingProduct(png.width, png.height, 4) : 0,
                  color: PNGColorChunks.read(file).decision(for: model))
    }

    /// An interlaced first frame is held whole, one index a pixel.
    init(_ gif: GIFHeader) {
        let frame = gif.firstFrame
        self.init(width: gif.width, height: gif.height, frameCount: gif.frameCount,
                  wholePictureBytes: frame.isInterlaced ? Self.saturatingProduct(frame.width, frame.height, 1) : 0)
    }

    init(_ webp: WebPHeader) {
        var color = EmbeddedColor()
        if let profile = webp.iccProfile { color.adoptProfile(profile) }
        if let note = webp.colorNote { color.problems.append(ColorProblem(note)) }
        self.init(width: webp.width, height: webp.height, orientation: webp.orientation, frameCount: webp.frameCount,
                  color: color.decision(for: .rgb))
    }

    /// A HEIF's `colr`: its ICC profile, else its `nclx` primaries and transfer (with both, the
    /// profile describes the colours, as libavif and browsers read it; `nclx`'s matrix is
    /// libheif's business while decoding).
    init(_ heif: HEIFHeader) {
        var color = EmbeddedColor()
        if let profile = heif.iccProfile {
            color.adoptProfile(profile)
        } else if let points = heif.colourCodePoints {
            color.cicp = CICP(primaries: UInt8(clamping: points.primaries), transfer: UInt8(clamping: points.transfer),
                              matrix: UInt8(clamping: points.matrix), fullRange: points.fullRange)
        }
        if let note = heif.colorNote { color.problems.append(ColorProblem(note)) }
        // libheif's decoded planes and the interleaved 8-bit copy (16-bit samples at most).
        self.init(width: heif.width, height: heif.height, orientation: heif.orientation, frameCount: heif.frameCount,
                  decodedPixels: Self.saturatingProduct(heif.codedWidth, heif.codedHeight, 1),
                  wholePictureBytes: Self.saturatingProduct(heif.codedWidth, heif.codedHeight, 8), color: color.decision(for: .rgb))
    }

    /// A RAW: its previews' sizes for the manifest; what a half-size demosaic holds counted whole
    /// (LibRaw makes it in one call), whether or not a tile ends up drawn from a preview.
    init(_ raw: RAWHeader, fileSize: Int) {
        self.init(width: raw.width, height: raw.height, orientation: raw.orientation,
                  wholePictureBytes: raw.demosaicBytes(fileSize: fileSize),
                  embeddedPictures: raw.previews.map { PictureSize(width: $0.width, height: $0.height) })
    }

    /// A TIFF's first page: its ICC profile (grey, RGB or CMYK by its photometric
    /// interpretation) and its Orientation tag; the page count as frames. The decoder streams
    /// strips or tile rows within its own bounded budget.
    init(_ tiff: TIFFHeader) {
        var color = EmbeddedColor()
        if let profile = tiff.iccProfile { color.adoptProfile(profile) }
        if let note = tiff.colorNote { color.problems.append(ColorProblem(note)) }
        let page = tiff.page
        let model: ICCProfile.ColorModel = page.isCMYK ? .cmyk
            : page.colorSamples < 3 && page.photometric != TIFFImageDirectory.palette ? .grey : .rgb
        self.init(width: tiff.width, height: tiff.height, orientation: tiff.orientation, frameCount: tiff.pageCount,
                  color: color.decision(for: model))
    }

    /// An SVG: drawn at any size, so its stored size is the intrinsic one; what librsvg's tree
    /// holds is counted from the document's size (an SVGZ's inflated one; the canvas is the tile's).
    init(_ svg: SVGHeader) {
        self.init(width: svg.width, height: svg.height,
                  wholePictureBytes: Self.saturatingProduct(min(svg.documentBytes, SVGHeader.maxFileBytes), SVGHeader.treeBytesPerFileByte, 1))
    }

    /// A JPEG XL's first frame, held whole (`JXLDecoder.heldBytes`), its colour from the
    /// codestream (an ICC profile through `profile`, which reads it with libjxl), an
    /// animation's frames counted by libjxl. A picture over `ImageFormats.wholePictureBudget`
    /// is described from Masonry's header alone: the table refuses it before libjxl sees it.
    init(_ jxl: JXLHeader, in file: InputFile, profile: () throws(ImageError) -> [UInt8]?) throws(ImageError) {
        let held = JXLDecoder.heldBytes(jxl)
        guard held <= ImageFormats.wholePictureBudget else {
            self.init(width: jxl.width, height: jxl.height, orientation: jxl.orientation, wholePictureBytes: held)
            return
        }
        let color = jxl.embeddedColor(profile: try profile()).decision(for: jxl.colorChannels == 1 ? .grey : .rgb)
        self.init(width: jxl.width, height: jxl.height, orientation: jxl.orientation,
                  frameCount: try JXLDecoder.frameCount(of: file, header: jxl), wholePictureBytes: held, color: color)
    }

    /// A video's poster frame: its shown shape before the display matrix's turn, which is the
    /// orientation. The decoder holds its reference frames (up to 16 of 1.5 bytes a pixel, as
    /// H.264 and HEVC allow) and the converted poster: 28 bytes a coded pixel, saturating. An
    /// HDR stream's frames hold 16-bit samples (3 bytes a pixel) and its poster passes through
    /// 16-bit RGB: 58 bytes a coded pixel.
    init(_ video: VideoHeader) {
        self.init(width: video.width, height: video.height, orientation: video.orientation, frameCount: max(1, video.frameCount),
                  decodedPixels: video.codedWidth * video.codedHeight,
                  wholePictureBytes: Self.saturatingProduct(video.codedWidth, video.codedHeight, video.isHDR ? 58 : 28),
                  durationSeconds: video.durationMicroseconds.map { ($0 + 500_000) / 1_000_000 })
    }
}
