// The gallery and review pages in a real headless Chromium, loaded from file://: links reach
// the files, hover and keyboard focus show the path, the filters hide the right things, Tab and
// arrow keys move in order, and the compare views switch (checked on screenshot pixels).
import Foundation
import BrowserHarness
import CodecCore
import PNGCodec
import Testing

/// Runs `body` with a fresh browser and fixture, both always cleaned up.
private func withPage(_ body: (HeadlessChromium, PageFixture) throws -> Void) throws {
    let executable = try #require(HeadlessChromium.executable(), "chromium is not installed and CI is set")
    let fixture = try PageFixture()
    defer { fixture.remove() }
    let browser = try HeadlessChromium(executable: executable)
    defer { browser.close() }
    try body(browser, fixture)
}

/// The text a page shows for a fixture path: valid UTF-8 as it is; the fixture's one byte that
/// is not UTF-8 (0xE9) escaped as in messages.
private func shown(_ path: [UInt8]) -> String {
    String(validating: path, as: UTF8.self)
        ?? String(decoding: path.flatMap { $0 == 0xE9 ? Array("\\xe9".utf8) : [$0] }, as: UTF8.self)
}

/// A short description of the focused element: `tile:<path>` for a tile, else tag and id or text.
private let focused = """
(function(){var a=document.activeElement;if(a.matches('.sheet>a'))return 'tile:'+a.firstChild.firstChild.nodeValue;
return a.tagName+':'+(a.id||a.textContent.trim());})()
"""

/// Size of tile i's path label, whether it is the topmost element at its centre, and its text.
private func label(_ index: Int) -> String {
    """
    (function(){var a=document.querySelectorAll('.sheet>a')[\(index)],s=a.firstChild,r=s.getBoundingClientRect();
    var e=document.elementFromPoint(r.left+r.width/2,r.top+r.height/2);
    return {width:r.width,height:r.height,text:s.firstChild.nodeValue,onTop:!!e&&(e===s||s.contains(e))};})()
    """
}

private func isShown(_ value: Any?) -> Bool {
    guard let label = value as? [String: Any], let width = label["width"] as? Double, let height = label["height"] as? Double
    else { return false }
    return width > 20 && height > 10 && label["onTop"] as? Bool == true
}

@Suite("HTML pages in headless Chromium", .serialized,
       .enabled(if: HeadlessChromium.executable() != nil || ProcessInfo.processInfo.environment["CI"] != nil,
                "chromium is not installed: browser tests skipped (set CI to make this a failure)"))
struct BrowserTests {
    @Test("every link and image of the gallery resolves to an existing file, nothing is fetched from elsewhere")
    func galleryLinksResolve() throws {
        try withPage { browser, fixture in
            try browser.navigate(to: URL(fileURLWithPath: fixture.galleryHTML))
            let tiles = try #require(try browser.evaluate("[...document.querySelectorAll('.sheet>a')].map(a=>a.href)") as? [String])
            #expect(tiles.count == fixture.images.count)
            for (href, image) in zip(tiles, fixture.images) {
                #expect(PageFixture.path(ofFileURL: href) == image, "tile link \(href)")
            }
            let others = try #require(try browser.evaluate("""
                [...document.querySelectorAll('a[href]:not([href^="#"])')].map(a=>a.href)
                .concat([...document.images].map(i=>i.src))
                """) as? [String])
            #expect(others.count == tiles.count + 2 * fixture.gallery.pages.count)
            for url in others {
                let path = PageFixture.path(ofFileURL: url)
                #expect(path.map(PageFixture.isFile) == true, "\(url) is not an existing file")
            }
            let loaded = try browser.evaluate("Promise.all([...document.images].map(i=>i.decode().then(()=>i.naturalWidth)))")
            #expect(loaded as? [Int] == [200, 200])
            let resources = try #require(try browser.evaluate("performance.getEntriesByType('resource').map(e=>e.name)") as? [String])
            #expect(resources.allSatisfy { $0.hasPrefix("file://") }, "\(resources)")
        }
    }

    @Test("pages show at natural size in a wide window and scale down in a narrow one, tiles staying on their pictures")
    func responsiveScaling() throws {
        try withPage { browser, fixture in
            try browser.navigate(to: URL(fileURLWithPath: fixture.galleryHTML))
            for windowWidth in [1000, 150] {
                _ = try browser.send("Emulation.setDeviceMetricsOverride",
                                     ["width": windowWidth, "height": 800, "deviceScaleFactor": 1, "mobile": false])
                let geometry = try #require(try browser.evaluate("""
                    [...document.querySelectorAll('.sheet')].map(s=>{var i=s.querySelector('img').getBoundingClientRect();
                    return [i.width].concat([...s.querySelectorAll('a')].map(a=>{var r=a.getBoundingClientRect();
                    return [r.left-i.left,r.top-i.top,r.width,r.height];}));})
                    """) as? [[Any]])
                for (pageIndex, page) in geometry.enumerated() {
                    let shown = try #require(page.first as? Double)
                    if windowWidth == 1000 { #expect(shown == 200, "natural size in a wide window") }
                    else { #expect(shown < 200 && shown > 50, "scaled down in a narrow window: \(shown)") }
                    let scale = shown / 200
                    let tiles = fixture.gallery.tiles.filter { $0.page == pageIndex + 1 }
                    for (tile, rect) in zip(tiles, page.dropFirst().compactMap { $0 as? [Double] }) {
                        let expected = [tile.x, tile.y, tile.width, tile.height].map { Double($0) * scale }
                        #expect(zip(rect, expected).allSatisfy { abs($0 - $1) < 0.5 },
                                "tile at \(rect), expected \(expected) (window \(windowWidth))")
                    }
                    #expect(page.count - 1 == tiles.count)
                }
            }
        }
    }

    @Test("the page links scroll each page's heading into view below the sticky header")
    func pageNavigation() throws {
        try withPage { browser, fixture in
            _ = try browser.send("Emulation.setDeviceMetricsOverride",
                                 ["width": 800, "height": 260, "deviceScaleFactor": 1, "mobile": false])
            try browser.navigate(to: URL(fileURLWithPath: fixture.galleryHTML))
            for page in [2, 1] {
                _ = try browser.evaluate("[...document.querySelectorAll('nav a')].find(a=>a.textContent==='\(page)').click()")
                let place = try #require(try waitFor(browser, """
                    (function(){var h=document.getElementById('page-\(page)-title').getBoundingClientRect();
                    var top=document.querySelector('header').getBoundingClientRect().bottom;
                    return h.top>=top-1&&h.bottom<=innerHeight?[h.top,top,scrollY]:null;})()
                    """) as? [Double], "page \(page)'s heading is not in view below the header")
                #expect(page == 1 || place[2] > 0, "the window scrolled to page \(page)")
            }
        }
    }

    @Test("hovering a tile shows its full path as visible text, and it goes away after")
    func hoverShowsPath() throws {
        try withPage { browser, fixture in
            try browser.navigate(to: URL(fileURLWithPath: fixture.galleryHTML))
            for index in [0, 5, 6, 8] {
                let centre = try #require(try browser.evaluate("""
                    (function(){var r=document.querySelectorAll('.sheet>a')[\(index)].getBoundingClientRect();
                    return [r.left+r.width/2,r.top+r.height/2];})()
                    """) as? [Double])
                #expect(!isShown(try browser.evaluate(label(index))), "label \(index) shows before hover")
                try browser.hover(x: centre[0], y: centre[1])
                let shownLabel = try browser.evaluate(label(index))
                #expect(isShown(shownLabel), "label \(index) on hover: \(String(describing: shownLabel))")
                #expect((shownLabel as? [String: Any])?["text"] as? String == shown(fixture.images[index]))
                try browser.hover(x: 990, y: 790)
                #expect(!isShown(try browser.evaluate(label(index))), "label \(index) stays after the mouse left")
            }
            let caption = try browser.evaluate("document.querySelector('.sheet>a>span>i').textContent") as? String
            #expect(caption == "caption of plain")
        }
    }

    @Test("Tab goes skip link, filter, page links, then each tile in order, showing its path and a focus ring")
    func tabOrderAndFocus() throws {
        try withPage { browser, fixture in
            try browser.navigate(to: URL(fileURLWithPath: fixture.galleryHTML))
            var expected = ["A:Skip to the filter", "INPUT:filter", "A:1", "A:2"]
            for page in 1...2 {
                expected.append("A:" + shown(fixture.gallery.pages[page - 1].file))
                expected += fixture.gallery.tiles.filter { $0.page == page }.map { "tile:" + shown($0.path) }
            }
            var seen: [String] = []
            for _ in expected {
                try browser.press(.tab)
                seen.append(try browser.evaluate(focused) as? String ?? "?")
                if let index = fixture.images.map({ "tile:" + shown($0) }).firstIndex(of: seen.last ?? "") {
                    #expect(isShown(try browser.evaluate(label(index))), "label of focused tile \(index)")
                    let ring = try browser.evaluate("getComputedStyle(document.activeElement).outlineStyle") as? String
                    #expect(ring == "solid", "focus ring of tile \(index)")
                }
            }
            #expect(seen == expected)
        }
    }

    @Test("the skip link reaches the filter, and typing hides every tile whose path does not contain the text")
    func filterHidesTheRest() throws {
        try withPage { browser, fixture in
            try browser.navigate(to: URL(fileURLWithPath: fixture.galleryHTML))
            try browser.press(.tab)
            try browser.press(.enter)
            #expect(try browser.evaluate("document.activeElement.id") as? String == "filter")
            let state = "[...document.querySelectorAll('.sheet>a')].map(a=>a.tabIndex===0&&!a.classList.contains('out'))"
            for query in ["SPACE", "%", "#", "?", "\"S '", "<B>&", "\\XE9", "猫", "SUB DIR/", ".png", "nothing-like-this"] {
                _ = try browser.evaluate("document.getElementById('filter').select()")
                try browser.type(query)
                let expected = fixture.images.map { shown($0).lowercased().contains(query.lowercased()) }
                #expect(try browser.evaluate(state) as? [Bool] == expected, "filter \(query)")
                let count = expected.filter { $0 }.count
                #expect(try browser.evaluate("document.getElementById('matches').textContent") as? String
                        == "\(count) of \(expected.count) images match")
            }
            _ = try browser.evaluate("document.getElementById('filter').select()")
            try browser.type("space")
            for expected in ["A:1", "A:2", "A:" + shown(fixture.gallery.pages[0].file), "tile:" + shown(fixture.images[1]),
                             "A:" + shown(fixture.gallery.pages[1].file)] {
                try browser.press(.tab)
                #expect(try browser.evaluate(focused) as? String == expected, "Tab skips hidden tiles")
            }
        }
    }

    @Test("the review page: summary, status filter, arrow keys between pairs, unchanged collapsed")
    func reviewListAndKeys() throws {
        try withPage { browser, fixture in
            try browser.navigate(to: URL(fileURLWithPath: fixture.reviewHTML))
            let summary = try browser.evaluate("[...document.querySelectorAll('.summary li')].map(l=>l.textContent)") as? [String]
            #expect(summary == ["unchanged 1", "changed 1", "resized 1", "added 1", "removed 1", "error 1", "failed 3"])
            let pairs = "[...document.querySelectorAll('.pair')].filter(d=>!d.hidden).map(d=>d.querySelector('.path').textContent)"
            let all = fixture.review.pairs.map { shown($0.path) }
            #expect(try browser.evaluate(pairs) as? [String] == all)
            #expect(try browser.evaluate("[...document.querySelectorAll('.pair')].map(d=>d.open)") as? [Bool]
                    == fixture.review.pairs.map { $0.status != "unchanged" })
            for (status, expected) in [("added", [all[2]]), ("failed", [all[0], all[1], all[4]]), ("", all)] {
                _ = try browser.evaluate("(s=>{s.value='\(status)';s.dispatchEvent(new Event('change'))})(document.getElementById('status'))")
                #expect(try browser.evaluate(pairs) as? [String] == expected, "status \(status)")
            }
            _ = try browser.evaluate("document.querySelector('.pair summary').focus()")
            let focusedPair = "document.activeElement.closest('.pair').id"
            for (key, expected) in [(HeadlessChromium.Key.arrowDown, "pair-2"), (.arrowDown, "pair-3"), (.arrowUp, "pair-2")] {
                try browser.press(key)
                #expect(try browser.evaluate(focusedPair) as? String == expected)
            }
            for _ in 0..<8 { try browser.press(.arrowDown) }
            #expect(try browser.evaluate(focusedPair) as? String == "pair-6")
            try browser.press(.enter)
            #expect(try browser.evaluate("document.getElementById('pair-6').open") as? Bool == true)
            // The body is built on the (asynchronous) toggle event.
            #expect(try waitFor(browser, "document.querySelectorAll('#pair-6 .views button').length") as? Int == 3)
            let reason = try waitFor(browser, "document.querySelector('#pair-5 dl')?.textContent") as? String
            #expect(reason?.contains("truncated image data") == true)
        }
    }

    @Test("the compare views switch by keyboard: side by side, the cropped difference, the slider")
    func reviewViewsSwitch() throws {
        try withPage { browser, fixture in
            try browser.navigate(to: URL(fileURLWithPath: fixture.reviewHTML))
            // Open pairs build their views when they come near the window.
            #expect(try waitFor(browser, "document.querySelectorAll('.pair .views').length") as? Int == 5)
            _ = try browser.evaluate("document.querySelector('#pair-1 summary').focus()")
            let visible = "[...document.querySelectorAll('#pair-1 .panel')].filter(p=>!p.hidden&&p.offsetHeight>0).map(p=>p.dataset.view)"
            #expect(try browser.evaluate(visible) as? [String] == ["side"])
            let sides = try browser.evaluate("[...document.querySelectorAll('#pair-1 .side img')].map(i=>i.src)") as? [String]
            #expect(sides?.compactMap(PageFixture.path(ofFileURL:)) == [fixture.review.pairs[0].baseline!.path,
                                                                         fixture.review.pairs[0].current!.path])

            try browser.press(.tab)
            try browser.press(.tab)
            #expect(try browser.evaluate("document.activeElement.textContent") as? String == "Difference")
            try browser.press(.enter)
            #expect(try browser.evaluate(visible) as? [String] == ["diff"])
            #expect(try browser.evaluate("document.activeElement.getAttribute('aria-pressed')") as? String == "true")
            let crop = try pixels(browser, of: "#pair-1 .crop")
            #expect(crop.width == 38 && crop.height == 28)
            let panel = (1..<29).flatMap { y in (1..<39).map { x in PageFixture.panelColour(x, y) } }
            let wrong = zip(crop.rgb, panel).filter { $0 != $1 }.count
            #expect(crop.rgb.count == panel.count && wrong == 0,
                    "the crop must show exactly the difference panel: \(wrong) of \(panel.count) pixels differ")

            try browser.press(.tab)
            #expect(try browser.evaluate("document.activeElement.textContent") as? String == "Slider")
            try browser.press(.space)
            #expect(try browser.evaluate(visible) as? [String] == ["slider"])
            try browser.press(.tab)
            #expect(try browser.evaluate("document.activeElement.type") as? String == "range")
            try browser.press(.home)
            #expect(Set(try pixels(browser, of: "#pair-1 .stack").rgb) == [PageFixture.currentColour])
            try browser.press(.end)
            #expect(Set(try pixels(browser, of: "#pair-1 .stack").rgb) == [PageFixture.baselineColour])
        }
    }
}

/// The value of `expression` once it is truthy (checked every 10 ms, at most 2 s), else its last value.
private func waitFor(_ browser: HeadlessChromium, _ expression: String) throws -> Any? {
    try browser.evaluate("""
        new Promise(done=>{var t0=Date.now();(function look(){var v=(\(expression));
        if(v||Date.now()-t0>2000)done(v);else setTimeout(look,10);})();})
        """)
}

/// The RGB pixels inside an element's border, row by row, from a screenshot. The outermost row and
/// column of that area are left out: at a fractional page offset they blend with what lies under.
private func pixels(_ browser: HeadlessChromium, of selector: String) throws -> (width: Int, height: Int, rgb: [[UInt8]]) {
    let box = try #require(try browser.evaluate("""
        (async function(){var e=document.querySelector('\(selector)');e.scrollIntoView({block:'center'});
        await Promise.all([...e.querySelectorAll('img')].map(i=>i.decode()));
        await new Promise(r=>requestAnimationFrame(()=>requestAnimationFrame(r)));
        var r=e.getBoundingClientRect();return [r.left+scrollX+e.clientLeft,r.top+scrollY+e.clientTop,e.clientWidth,e.clientHeight];})()
        """) as? [Double])
    let png = try browser.screenshot(clip: (box[0] + 1, box[1] + 1, box[2] - 2, box[3] - 2))
    let image = try PNGDecoder.decodeRGBA(bytes: png)
    let rgb = stride(from: 0, to: image.pixels.count, by: 4).map { Array(image.pixels[$0 ..< $0 + 3]) }
    return (image.width, image.height, rgb)
}
