// Links relative to the page's folder: resolved by Foundation's RFC 3986 resolver against the
// page's own URL, every link must name the original raw bytes again.
import Foundation
@testable import GalleryPage
import Testing
import TestSupport

@Suite("Links relative to the page")
struct PageLinkTests {
    /// Resolves `href` against a page at `page` (absolute) and percent-decodes the path byte by byte.
    private func resolve(_ href: String, page: [UInt8]) throws -> [UInt8] {
        let pageURL = try #require(URL(string: "file://" + page.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { PageLink.percentEncoded(Array($0)) }.joined(separator: "/")))
        let url = try #require(URL(string: href, relativeTo: pageURL)?.absoluteURL, "cannot resolve \(href)")
        return try #require(PageFixture.path(ofFileURL: url.absoluteString))
    }

    @Test("random raw paths (any byte but NUL and /, dot segments, relative or absolute) link back to themselves")
    func randomPathsRoundTrip() throws {
        let seed = SplitMix64.suiteSeed
        print("PageLinkTests: seed \(seed) (replay with MASONRY_TEST_SEED=\(seed))")
        var generator = SplitMix64(seed: seed)
        let cwd = Array("/home/user/work".utf8)
        func component() -> [UInt8] {
            switch generator.next() % 8 {
            case 0: return Array("..".utf8)
            case 1: return Array(".".utf8)
            default: return (0..<(1 + Int(generator.next() % 6))).map { _ in
                var byte: UInt8
                repeat { byte = UInt8(truncatingIfNeeded: generator.next()) } while byte == 0 || byte == UInt8(ascii: "/")
                return byte
            }
            }
        }
        func path() -> [UInt8] {
            let parts = (0..<(1 + Int(generator.next() % 4))).map { _ in component() } + [Array("f.png".utf8)]
            let joined = Array(parts.joined(separator: [UInt8(ascii: "/")]))
            return generator.next() % 2 == 0 ? [UInt8(ascii: "/")] + joined : joined
        }
        for _ in 0..<500 {
            let page = path(), target = path()
            let link = PageLink(htmlPath: page, currentDirectory: cwd)
            let href = link.href(target)
            let absolutePage = [UInt8(ascii: "/")] + PageLink.components(of: page, currentDirectory: cwd).joined(separator: [UInt8(ascii: "/")])
            let expected = [UInt8(ascii: "/")] + PageLink.components(of: target, currentDirectory: cwd).joined(separator: [UInt8(ascii: "/")])
            #expect(href.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"\"'<>&#?\\ ".utf8.contains($0) }, "seed \(seed): \(href)")
            #expect(try resolve(href, page: absolutePage) == expected, "seed \(seed): \(href) from \(absolutePage)")
        }
    }

    @Test("relative paths are taken from the current directory, folders are climbed with ..")
    func relativeToCurrentDirectory() {
        let cwd = Array("/srv/run".utf8)
        let link = PageLink(htmlPath: Array("out/html/index.html".utf8), currentDirectory: cwd)
        #expect(link.href(Array("photos/a b#1.png".utf8)) == "../../photos/a%20b%231.png")
        #expect(link.href(Array("out/html/sheet.png".utf8)) == "sheet.png")
        #expect(link.href(Array("/srv/other/x%.png".utf8)) == "../../../other/x%25.png")
        #expect(link.href([0xFF, 0x2E, 0x70, 0x6E, 0x67]) == "../../%FF.png")
    }

    @Test("names are escaped for HTML in text and attributes; the page fetches nothing from elsewhere")
    func escapingInThePage() {
        let gallery = Gallery(title: "<b>&\"", pages: [SheetPage(file: Array("s.png".utf8), width: 10, height: 10)],
                              tiles: [Gallery.Tile(page: 1, x: 0, y: 0, width: 10, height: 10,
                                                   path: Array("a<b>&\"c'.png".utf8), caption: "<i>")])
        let html = HTMLPage.render(gallery, htmlPath: Array("/tmp/g.html".utf8))
        #expect(html.contains("<title>&lt;b&gt;&amp;&quot;</title>"))
        #expect(html.contains("<span>a&lt;b&gt;&amp;&quot;c&#39;.png<i>&lt;i&gt;</i></span>"))
        #expect(!html.contains("a<b>"))
        #expect(!html.contains("http:") && !html.contains("https:") && !html.contains("src=\"//"))
        #expect(html == HTMLPage.render(gallery, htmlPath: Array("/tmp/g.html".utf8)))
        let review = Review(summary: [], failed: 0, pages: [], pairs: [
            Review.Pair(path: Array("</script><b>".utf8), status: "error", failed: true, diffPixels: 0, aaPixels: 0,
                        diffRatio: 0, baseline: nil, current: nil, reason: "\u{2028}bad & <worse>"),
        ])
        let page = HTMLPage.render(review, htmlPath: Array("/tmp/r.html".utf8))
        #expect(page.components(separatedBy: "</script>").count == 3, "only the two script elements end")
        #expect(page.contains("\"p\":\"\\u003c/script\\u003e\\u003cb\\u003e\""))
        #expect(page.contains("\"e\":\"\\u2028bad \\u0026 \\u003cworse\\u003e\""))
    }
}
