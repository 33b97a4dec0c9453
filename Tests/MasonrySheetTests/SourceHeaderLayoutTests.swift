@testable import MasonrySheet
import Testing

/// A million planned images hold a `SourceHeader` each (issue #32: at most 500 MB for 1 M
/// inputs), so its size is part of the contract: 40 bytes, with what few pictures carry behind
/// one shared reference.
@Suite struct SourceHeaderLayoutTests {
    @Test func aHeaderIsFortyBytes() {
        #expect(MemoryLayout<SourceHeader>.size == 40)
    }

    @Test func untaggedHeadersWithoutEmbeddedPicturesEqualWhateverTheirPath() {
        let plain = SourceHeader(width: 640, height: 480)
        let fromPlan = SourceHeader(width: 640, height: 480, orientation: .up, frameCount: 1, durationSeconds: nil, colorName: "untagged")
        #expect(plain == fromPlan)
        #expect(plain.colorName == "untagged" && plain.embeddedPictures.isEmpty)
        let withPreview = SourceHeader(width: 640, height: 480, embeddedPictures: [SourceHeader.PictureSize(width: 160, height: 120)])
        #expect(withPreview != plain)
        #expect(withPreview.embeddedPictures == [SourceHeader.PictureSize(width: 160, height: 120)])
        #expect(withPreview.colorName == "untagged")
    }
}
