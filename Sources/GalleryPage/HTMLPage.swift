/// Writes the static HTML page of a render (`Gallery`) or of a compare run (`Review`): one
/// self-contained file, CSS and script inline, nothing fetched from elsewhere, no pixels inside;
/// images are linked by URLs relative to the page. The same model gives the same bytes.
public enum HTMLPage {
    /// The element in every page's head by which Masonry recognises its own pages (and so
    /// replaces them on the next run, never a user's file of the same name).
    public static let generatorMark = "<meta name=\"generator\" content=\"masonry\">"

    /// The gallery page: every sheet page at its natural size (scaled down in narrow windows),
    /// every tile a link to its source file whose path shows on hover and on keyboard focus,
    /// a live filter and page navigation.
    ///
    /// `htmlPath` is where the page will be written; every link is made relative to its folder
    /// (relative paths are resolved against the current directory).
    public static func render(_ gallery: Gallery, htmlPath: [UInt8]) -> String {
        let link = PageLink(htmlPath: htmlPath)
        let title = gallery.title ?? "Masonry sheet"
        var html = head(title: title, style: PageAssets.sharedStyle + PageAssets.galleryStyle)
        html += "<body class=\"gallery\">\n<a class=\"skip\" href=\"#filter\">Skip to the filter</a>\n<header>\n"
        html += "<h1>\(PageText.html(title))</h1>\n"
        html += "<p class=\"controls\"><label for=\"filter\">Filter by path</label> "
        html += "<input id=\"filter\" type=\"search\" autocomplete=\"off\" spellcheck=\"false\" aria-describedby=\"matches\"> "
        html += "<output id=\"matches\" aria-live=\"polite\">\(gallery.tiles.count) images</output></p>\n"
        html += pageNavigation(count: gallery.pages.count)
        html += "</header>\n<main>\n"
        var tilesByPage = [[Gallery.Tile]](repeating: [], count: gallery.pages.count)
        for tile in gallery.tiles where tilesByPage.indices.contains(tile.page - 1) {
            tilesByPage[tile.page - 1].append(tile)
        }
        for (index, page) in gallery.pages.enumerated() {
            let number = index + 1
            let href = PageText.html(link.href(page.file))
            html += "<section id=\"page-\(number)\" aria-labelledby=\"page-\(number)-title\">\n"
            html += "<h2 id=\"page-\(number)-title\">Page \(number) of \(gallery.pages.count): "
            html += "<a href=\"\(href)\">\(PageText.html(PageText.display(page.file)))</a> "
            html += "<small>\(page.width) × \(page.height)</small></h2>\n"
            html += "<div class=\"sheet\" style=\"--pw:\(page.width);--ph:\(page.height);max-width:\(page.width)px\">"
            // Pages after the first load as they come near the window: they do not hold up the load event.
            html += "<img src=\"\(href)\" width=\"\(page.width)\" height=\"\(page.height)\" alt=\"\""
            html += index == 0 ? ">\n" : " loading=\"lazy\">\n"
            for tile in tilesByPage[index] {
                html += "<a href=\"\(PageText.html(link.href(tile.path)))\" "
                html += "style=\"--x:\(tile.x);--y:\(tile.y);--w:\(tile.width);--h:\(tile.height)\"><span>"
                html += PageText.html(PageText.display(tile.path))
                if let caption = tile.caption, !caption.isEmpty {
                    html += "<i>\(PageText.html(caption))</i>"
                }
                html += "</span></a>\n"
            }
            html += "</div>\n</section>\n"
        }
        html += "</main>\n<script>\(PageAssets.galleryScript)</script>\n</body>\n</html>\n"
        return html
    }

    /// The review page of a compare run: the summary counts, a filter by status and path, and
    /// for each pair the views side by side, difference (cropped from the sheet page) and a
    /// slider between baseline and current, with the report's numbers beside them. Arrow keys
    /// up and down move between pairs; unchanged pairs are listed collapsed.
    ///
    /// `htmlPath` is where the page will be written; every link is made relative to its folder.
    public static func render(_ review: Review, htmlPath: [UInt8]) -> String {
        let link = PageLink(htmlPath: htmlPath)
        let title = review.title ?? "Masonry compare"
        var html = head(title: title, style: PageAssets.sharedStyle + PageAssets.reviewStyle)
        html += "<body class=\"review\">\n<a class=\"skip\" href=\"#filter\">Skip to the filter</a>\n<header>\n"
        html += "<h1>\(PageText.html(title))</h1>\n<ul class=\"summary\" aria-label=\"Summary\">"
        for entry in review.summary {
            let status = PageText.html(entry.status)
            html += "<li class=\"st-\(status)\">\(status) <b>\(entry.count)</b></li>"
        }
        html += "<li class=\"st-failed\">failed <b>\(review.failed)</b></li></ul>\n"
        html += "<p class=\"controls\"><label for=\"status\">Status</label> <select id=\"status\">"
        html += "<option value=\"\">all (\(review.pairs.count))</option>"
        html += "<option value=\"failed\">failed (\(review.failed))</option>"
        for entry in review.summary where entry.count > 0 {
            let status = PageText.html(entry.status)
            html += "<option value=\"\(status)\">\(status) (\(entry.count))</option>"
        }
        html += "</select> <label for=\"filter\">Path</label> "
        html += "<input id=\"filter\" type=\"search\" autocomplete=\"off\" spellcheck=\"false\" aria-describedby=\"matches\"> "
        html += "<output id=\"matches\" aria-live=\"polite\"></output></p>\n"
        html += "<p class=\"hint\">↑ and ↓ move between pairs; Tab reaches each pair's views.</p>\n"
        html += "</header>\n<main id=\"pairs\"></main>\n"
        html += "<noscript><p>This page needs JavaScript to list the pairs.</p></noscript>\n"
        html += "<script type=\"application/json\" id=\"review-data\">"
        html += reviewData(review, link: link)
        html += "</script>\n<script>\(PageAssets.reviewScript)</script>\n</body>\n</html>\n"
        return html
    }

    private static func head(title: String, style: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(generatorMark)
        <title>\(PageText.html(title))</title>
        <style>\(style)</style>
        </head>

        """
    }

    private static func pageNavigation(count: Int) -> String {
        guard count > 1 else { return "" }
        var html = "<nav aria-label=\"Pages\">Pages:"
        for number in 1...count { html += " <a href=\"#page-\(number)\">\(number)</a>" }
        return html + "</nav>\n"
    }

    /// The pairs as compact JSON: `pages` as `[href, width, height]`, each pair as an object with
    /// one-letter keys (p path, s status, f failed, d diffPixels, a aaPixels, r diffRatio,
    /// b/c baseline/current `[href, width, height]`, x panel `[page index, x, y, w, h]`, e reason).
    private static func reviewData(_ review: Review, link: PageLink) -> String {
        func side(_ side: Review.Side?) -> String {
            guard let side else { return "null" }
            return "[\(PageText.json(link.href(side.path))),\(side.width),\(side.height)]"
        }
        var json = "{\"pages\":["
        json += review.pages.map { "[\(PageText.json(link.href($0.file))),\($0.width),\($0.height)]" }.joined(separator: ",")
        json += "],\"pairs\":[\n"
        json += review.pairs.map { pair in
            var item = "{\"p\":\(PageText.json(PageText.display(pair.path))),\"s\":\(PageText.json(pair.status))"
            item += ",\"f\":\(pair.failed ? 1 : 0),\"d\":\(pair.diffPixels),\"a\":\(pair.aaPixels)"
            item += ",\"r\":\(PageText.number(pair.diffRatio)),\"b\":\(side(pair.baseline)),\"c\":\(side(pair.current))"
            if let panel = pair.diffPanel, review.pages.indices.contains(panel.page - 1) {
                item += ",\"x\":[\(panel.page - 1),\(panel.x),\(panel.y),\(panel.width),\(panel.height)]"
            }
            if let reason = pair.reason { item += ",\"e\":\(PageText.json(reason))" }
            return item + "}"
        }.joined(separator: ",\n")
        return json + "]}"
    }
}
