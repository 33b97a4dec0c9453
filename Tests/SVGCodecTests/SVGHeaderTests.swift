// SVGHeader against rsvg-convert's and librsvg's own answers (scripts/make-svg-fixtures.py).
import Foundation
import CodecCore
import SVGCodec
import Testing
import TestSupport

let fixtures = FixtureFolder(in: .module)

func header(_ text: String) throws(ImageError) -> SVGHeader { try SVGHeader(bytes: Array(text.utf8)[...]) }

func headerError(_ text: String) -> String? {
    do {
        _ = try header(text)
        return nil
    } catch {
        return error.reason
    }
}

@Suite struct SVGHeaderTests {
    /// `sizes.txt`: rsvg-convert's natural PNG size for each fixture.
    static let sizes = fixtures.goldenLines("sizes.txt") { fields -> (stem: String, width: Int, height: Int)? in
        guard fields.count == 3, let w = Int(fields[1]), let h = Int(fields[2]) else { return nil }
        return (fields[0], w, h)
    }

    /// The header's size is rsvg-convert's for every document with dimensions; a document with
    /// none (rsvg-convert then crops to its ink) is laid out at the documented 300 × 150.
    @Test(arguments: sizes.map(\.stem))
    func theSizeIsRsvgConvertsOrTheDefault(stem: String) throws {
        let expected = try #require(Self.sizes.first { $0.stem == stem })
        let header = try SVGHeader(file: InputFile(path: fixtures.path(stem + ".svg")))
        if header.hasIntrinsicSize {
            #expect((header.width, header.height) == (expected.width, expected.height), "\(stem)")
        } else {
            #expect(stem == "no-size")
            #expect((header.width, header.height) == (300, 150))
        }
    }

    /// The root's width, height and viewBox as Masonry reads them are librsvg's, and so is the
    /// natural size the header lays the document out at.
    @Test(arguments: sizes.map(\.stem))
    func theRootReadsAsLibrsvgReadsIt(stem: String) throws {
        try expectLibrsvgAgrees(path: fixtures.path(stem + ".svg"))
    }

    /// A few openclipart drawings (public domain, Debian's openclipart-svg): real Inkscape and
    /// Illustrator prologs. With MASONRY_SVG_CORPUS set to a folder, every SVG in it (the whole
    /// of /usr/share/openclipart/svg: 8121 files) is checked the same way.
    @Test func realDrawingsReadAsLibrsvgReadsThem() throws {
        let folder = ProcessInfo.processInfo.environment["MASONRY_SVG_CORPUS"] ?? fixtures.path("openclipart")
        let paths = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".svg") }.sorted().map { folder + "/" + $0 }
        #expect(paths.count >= 8, "\(folder)")
        var checked = 0
        for path in paths {
            guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int,
                  size <= SVGHeader.maxFileBytes else { continue }
            try expectLibrsvgAgrees(path: path)
            checked += 1
        }
        #expect(checked >= 8)
    }

    func expectLibrsvgAgrees(path: String) throws {
        let file = try InputFile(path: path)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let header: SVGHeader
        do {
            header = try SVGHeader(file: file)
        } catch {
            // Refused by Masonry: librsvg must not have a size Masonry would have drawn at.
            Issue.record("\(path): \(error.reason)")
            return
        }
        // A real drawing is within the scan's bounds.
        do {
            _ = try SVGDocumentScan(bytes: bytes[...], rootOffset: header.rootOffset, entities: header.entities)
        } catch {
            Issue.record("\(path): \(error.reason)")
        }
        guard let library = try? SVGLibrary.Document(bytes: bytes) else { return }   // librsvg refuses it too
        // An absent (or ignored) width or height is librsvg's default, 100 %.
        let whole = SVGLength(value: 1, unit: .percent)
        #expect((header.rootWidth ?? whole) == library.rootWidth, "\(path): width \(String(describing: header.rootWidth)) vs \(String(describing: library.rootWidth))")
        #expect((header.rootHeight ?? whole) == library.rootHeight, "\(path): height \(String(describing: header.rootHeight)) vs \(String(describing: library.rootHeight))")
        if let pixels = library.sizeInPixels {
            #expect(abs(pixels.width - header.naturalWidth) < 1e-6 && abs(pixels.height - header.naturalHeight) < 1e-6, "\(path): \(pixels)")
        }
        #expect(library.naturalSize == header.naturalSize, "\(path)")
    }

    @Test func lengthsInEveryUnitAreConvertedAt96DotsPerInch() throws {
        let cases: [(String, Double?)] = [("10", 10), (" 10px ", 10), ("1in", 96), ("2.54cm", 96), ("25.4mm", 96), ("72pt", 96),
                                          ("6pc", 96), ("2em", 24), ("2ex", 12), ("1e2", 100), ("1.5E+1px", 15), ("50%", nil)]
        for (text, pixels) in cases {
            let length = try #require(SVGLength(parsing: text), "\(text)")
            #expect(length.pixels.map { abs($0 - pixels!) < 1e-4 } ?? (pixels == nil), "\(text): \(String(describing: length.pixels))")
        }
        for invalid in ["", "px", "-3", "10 px x", "10furlongs", "1e"] {
            #expect(SVGLength(parsing: invalid) == nil, "\(invalid)")
        }
        #expect(SVGViewBox(parsing: "0 0 10 20")?.height == 20)
        #expect(SVGViewBox(parsing: "0,0,10,20")?.width == 10)
        #expect(SVGViewBox(parsing: "0 0 0 20") == nil)
        #expect(SVGViewBox(parsing: "0 0 10") == nil)
    }

    @Test func thePrologIsReadUpToTheRootTag() throws {
        let bom = "\u{FEFF}<?xml version=\"1.0\"?><!-- <svg width=\"1\"> --><?pi x?>\n<!DOCTYPE svg [ <!ENTITY a \"b>\"> <!-- c --> ]>"
        let read = try header(bom + "<svg width='7' height=\"5\"/>")
        #expect((read.width, read.height) == (7, 5))
        #expect(read.entities == ["a": Array("b>".utf8)])
        let external = try header("<!DOCTYPE svg [<!ENTITY e SYSTEM \"/etc/passwd\">]><svg width='7' height='5'/>")
        #expect(external.entities == ["e": []])
    }

    @Test func detectionNeedsAnSVGRoot() {
        #expect(SVGHeader.hasSignature(Array("<svg xmlns='x'>".utf8)))
        #expect(SVGHeader.hasSignature(Array("\u{FEFF}  <?xml version='1.0'?>\n<svg>".utf8)))
        // A DOCTYPE naming svg that runs past the prefix.
        let longDoctype = Array(("<!DOCTYPE svg [ <!ENTITY a '" + String(repeating: "x", count: 5000)).utf8)
        #expect(SVGHeader.hasSignature(Array(longDoctype.prefix(4096))))
        #expect(!SVGHeader.hasSignature(Array("<?xml version='1.0'?><html/>".utf8)))
        #expect(!SVGHeader.hasSignature(Array("<svgx>".utf8)))
        #expect(SVGHeader.hasSignature(Array("<?xml version='1.0'?><svg:svg xmlns:svg='http://www.w3.org/2000/svg'>".utf8)))
        #expect(!SVGHeader.hasSignature(Array("<x:svg>".utf8)))
        #expect(!SVGHeader.hasSignature(Array("\u{89}PNG\r\n".utf8)))
    }

    /// Each prolog Masonry refuses, with its one-line reason.
    @Test func refusedPrologsSayWhy() {
        let root = "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>"
        #expect(headerError("<?xml version='1.0'?><html/>") == "not an SVG file (its root element is not <svg>)")
        #expect(headerError("<?xml version='1.0'?>\n<svg width='2") == "truncated SVG: the file ends before its root <svg> tag does")
        #expect(headerError("<!DOCTYPE svg [<!ENTITY % p 'x'>]>" + root) == "SVG declares a parameter entity in its DOCTYPE (not read)")
        #expect(headerError("<!DOCTYPE svg [%p;]>" + root) == "SVG uses a parameter entity in its DOCTYPE (not read)")
        #expect(headerError("<svg width='100000' height='10'/>") == "SVG claims 100000×10 px, over the 32767-pixel side librsvg renders")
        #expect(headerError("<svg width='0' height='10'/>") == "SVG has an empty size (0.0×10.0)")
        #expect(headerError("<svg width='1' width='2'/>") == "SVG root tag repeats its width attribute")
        // A name is XML's name bytes: control bytes in one are no name, never quoted in the reason
        // (the source-header fuzz target found NUL, ^D and ^\ repeated into it).
        #expect(headerError("<svg wid\u{0}\u{4}th='1' wid\u{0}\u{4}th='2'/>") == "SVG root tag has a malformed attribute")
        #expect(headerError("<!-- " + String(repeating: "x", count: SVGHeader.maxPrologBytes) + " -->" + root)
                == "SVG prolog is longer than 65536 bytes before its root <svg> tag ends")
        let entities = (0...SVGHeader.maxEntities).map { "<!ENTITY e\($0) 'x'>" }.joined()
        #expect(headerError("<!DOCTYPE svg [" + entities + "]>" + root) == "SVG declares more than 1024 entities")
    }
}
