import Testing
@testable import Raster

@Suite struct ColorParsingTests {
    @Test(arguments: [
        ("#fff", "#ffffffff"), ("#1A2", "#11aa22ff"), ("#102030", "#102030ff"), ("#A0b0C080", "#a0b0c080"),
        ("white", "#ffffffff"), ("BLACK", "#000000ff"), ("Transparent", "#00000000"), ("#00000000", "#00000000"),
        ("red", "#ff0000ff"), ("Blue", "#0000ffff"), ("rebeccapurple", "#663399ff"), ("grey", "#808080ff"),
        ("green", "#008000ff"), ("LightGoldenRodYellow", "#fafad2ff"),
    ])
    func acceptedForms(text: String, hex: String) throws {
        let colour = try RGBA8Color(parsing: text)
        #expect(colour.hexString == hex)
        #expect(try RGBA8Color(parsing: colour.hexString) == colour)
    }

    /// CSS Color 4 has 148 names (`scripts/make-css-colors.py` writes them from webcolors); each
    /// parses to its opaque colour in any letter case, and spelling variants (grey/gray) agree.
    @Test func cssColourNames() throws {
        #expect(RGBA8Color.cssNames.count == 148)
        for (name, colour) in RGBA8Color.cssNames {
            #expect(colour.isOpaque, "\(name)")
            #expect(try RGBA8Color(parsing: name.uppercased()) == colour, "\(name)")
            if name.contains("gray") { #expect(RGBA8Color.cssNames[name.replacingOccurrences(of: "gray", with: "grey")] == colour) }
        }
    }

    @Test func opacity() throws {
        #expect(try RGBA8Color(parsing: "#123").isOpaque)
        #expect(try !RGBA8Color(parsing: "#123456fe").isOpaque)
        #expect(!RGBA8Color.transparent.isOpaque)
    }

    @Test(arguments: [
        ("", "invalid colour \"\": empty; expected #RGB, #RRGGBB, #RRGGBBAA, a CSS colour name (red, navy, ...) or transparent"),
        ("reed", "invalid colour \"reed\": unknown colour name; expected #RGB, #RRGGBB, #RRGGBBAA, a CSS colour name (red, navy, ...) or transparent"),
        ("ffffff", "invalid colour \"ffffff\": hex colours start with '#'; expected #RGB, #RRGGBB, #RRGGBBAA, a CSS colour name (red, navy, ...) or transparent"),
        ("#12345", "invalid colour \"#12345\": 5 hex digits after '#', expected 3, 6 or 8"),
        ("#", "invalid colour \"#\": 0 hex digits after '#', expected 3, 6 or 8"),
        ("#12g", "invalid colour \"#12g\": \"g\" is not a hex digit; expected #RGB, #RRGGBB, #RRGGBBAA, a CSS colour name (red, navy, ...) or transparent"),
        (" #fff", "invalid colour \" #fff\": unknown colour name; expected #RGB, #RRGGBB, #RRGGBBAA, a CSS colour name (red, navy, ...) or transparent"),
        ("#ｆｆｆ", "invalid colour \"#ｆｆｆ\": \"ｆ\" is not a hex digit; expected #RGB, #RRGGBB, #RRGGBBAA, a CSS colour name (red, navy, ...) or transparent"),
        ("#ff\n", "invalid colour \"#ff\\n\": \"\\n\" is not a hex digit; expected #RGB, #RRGGBB, #RRGGBBAA, a CSS colour name (red, navy, ...) or transparent"),
    ])
    func rejectedFormsSayWhy(text: String, message: String) {
        #expect {
            try RGBA8Color(parsing: text)
        } throws: { error in
            (error as? ColorParseError)?.description == message
        }
        do {
            _ = try RGBA8Color(parsing: text)
        } catch {
            #expect(error.text == text)
            #expect(error.description == message)
        }
    }
}
