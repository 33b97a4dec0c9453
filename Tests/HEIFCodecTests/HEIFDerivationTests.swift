@testable import HEIFCodec
import CodecCore
import Testing

/// `iden` derivations, the clap of a thumbnail, monochrome items and sequences' brands: what the
/// header finds and what libheif is shown (scripts/make-heif-derived-fixtures.py, Link-U's files).
@Suite struct HEIFDerivationTests {
    static func header(_ name: String) throws -> HEIFHeader {
        try HEIFHeader(file: InputFile(path: fixtureFolder.path(name)))
    }

    /// C008's structure: the iden's irot turns the 320×212 source; its missing iloc entry is
    /// supplied in a meta box appended for libheif, the file's own shown as `free`.
    @Test func idenWithoutLocationIsShownToLibheifWithOne() throws {
        let header = try Self.header("derived/cat-iden-irot90.heic")
        #expect(header.width == 212 && header.height == 320 && header.primaryItemID == 2)
        #expect(header.codedWidth == 320 && header.codedHeight == 212 && header.format == .heif)
        let view = try #require(header.libheifView)
        #expect(view.overlays.map(\.bytes) == [Array("free".utf8)])
        #expect(Array(view.appended[4..<8]) == Array("meta".utf8))
        // The file as libheif reads it: overlays applied, the appended box after the end.
        var shown = try fixtureFolder.bytes("derived/cat-iden-irot90.heic")
        for overlay in view.overlays { shown.replaceSubrange(overlay.offset..<(overlay.offset + 4), with: overlay.bytes) }
        let seen = try HEIFHeader(bytes: shown + view.appended)
        #expect(seen.width == 212 && seen.height == 320 && seen.libheifView == nil, "the appended meta box locates every item")
    }

    /// A last box of size 0 runs to the end of the file, so it would swallow an appended meta
    /// box: the file is shown to libheif as it is (which refuses it with its reason).
    @Test func noMetaIsAppendedBehindABoxRunningToTheEnd() throws {
        var bytes = try fixtureFolder.bytes("derived/cat-iden-irot90.heic")
        let mdat = try #require((4..<(bytes.count - 4)).last { Array(bytes[$0..<($0 + 4)]) == Array("mdat".utf8) })
        bytes.replaceSubrange((mdat - 4)..<mdat, with: [0, 0, 0, 0])
        let header = try HEIFHeader(bytes: bytes)
        #expect(header.width == 212 && header.libheifView == nil)
    }

    /// C014's structure: the source's own irot 2 comes first, then the iden's clap and irot 1.
    @Test func idenAppliesTheSourcesTransformationsThenItsOwn() throws {
        let header = try Self.header("derived/cat-iden-clap-irot90.heic")
        #expect(header.width == 150 && header.height == 200)
        let decoder = try HEIFDecoder(file: InputFile(path: fixtureFolder.path("derived/cat-iden-clap-irot90.heic")),
                                      limits: DecodeLimits(), minimumWidth: 0, minimumHeight: 0)
        #expect(decoder.width == 150 && decoder.height == 200)
    }

    /// C015's structure as the primary item: the 400×300 canvas of the descriptor.
    @Test func overlayIsTheSizeOfItsCanvas() throws {
        let header = try Self.header("derived/cat-overlay.heic")
        #expect(header.width == 400 && header.height == 300 && !header.hasAlpha && header.libheifView == nil)
        #expect(header.decodedSizes.contains(PixelSize(width: 320, height: 212)), "each source is checked against the limits")
    }

    /// MIAF007's structure: the thumbnail shares a clap it cannot take; the primary is drawn.
    @Test func thumbnailWhoseClapDoesNotFitIsDropped() throws {
        let header = try Self.header("derived/cat-thumbnail-shared-clap.heic")
        #expect(header.width == 240 && header.height == 160 && header.thumbnails.isEmpty)
    }

    @Test(arguments: [("iden-of-iden.heic", "HEIF primary item 3 derives from item 2 of type 'iden': not supported (an 'iden' of coded images or grids is read)"),
                      ("overlay-without-offsets.heic", "malformed HEIF file: overlay item 1 has no offsets for its 2 sources"),
                      ("iden-two-sources.heic", "malformed HEIF file: identity item 3 has 2 sources ('dimg'), not 1")])
    func derivationsNotReadAreSkippedWithTheirReason(file: String, reason: String) throws {
        let path = fixtureFolder.path("derived-refused/" + file)
        #expect(throws: ImageError(reason.hasPrefix("malformed") ? .malformed : .unsupported, reason)) {
            try HEIFHeader(file: InputFile(path: path))
        }
    }

    /// av1C's mono_chrome bit: Link-U's monochrome fox is drawn from luma, its colour one not.
    @Test func monochromeItemsAreFoundInTheCodecConfiguration() throws {
        #expect(try Self.header("linku/fox.profile0.8bpc.yuv420.monochrome.avif").isMonochrome)
        #expect(try Self.header("linku/fox.profile2.12bpc.yuv420.monochrome.avif").isMonochrome)
        #expect(try !Self.header("linku/fox.profile0.8bpc.yuv420.avif").isMonochrome)
        #expect(try !Self.header("cat-8bit.heic").isMonochrome)
    }

    /// Link-U's sequences list `avis`, `msf1`, `miaf`: libheif is shown `mif1` in place of the
    /// first compatible brand, and the still primary item (the first frame) is drawn.
    @Test func sequenceWithoutAStillBrandIsShownOneAndDrawn() throws {
        let header = try Self.header("linku/star-8bpc.avifs")
        #expect(header.frameCount == 5 && header.majorBrand == "avis")
        #expect(header.libheifView?.overlays == [.init(offset: 16, bytes: Array("mif1".utf8))])
        #expect(try Self.header("cat-sequence.avif").libheifView == nil, "avifenc's own sequence lists avif")
    }
}
