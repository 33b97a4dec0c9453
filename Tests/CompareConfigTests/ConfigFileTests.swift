import CompareConfig
import ImageDiff
import Testing

@Suite struct ConfigFileTests {
    static let example = """
    {
      "threshold": 0.2, "maxDiffPixels": 5, "ignore": [[0, 0, 100, 20]],
      "maskDir": "masks", "showUnchanged": true, "pageHeight": 4000,
      "rules": [
        {"paths": ["mobile/**"], "threshold": 0.3, "allowResize": true},
        {"paths": ["mobile/charts/*.png", "**/clock.png"], "maxDiffPixels": 50, "ignore": []},
        {"paths": ["mobile/charts/pie.png"], "threshold": 0.05}
      ]
    }
    """

    @Test func readsEveryKey() throws {
        let file = try CompareConfigFile(bytes: Array(Self.example.utf8))
        #expect(file.defaults.threshold == 0.2 && file.defaults.maxDiffPixels == 5)
        #expect(file.defaults.ignore == [PixelRect(x: 0, y: 0, width: 100, height: 20)])
        #expect(file.maskDir == "masks" && file.showUnchanged == true && file.pageHeight == 4000)
        #expect(file.rules.count == 3 && file.rules[1].paths.map(\.pattern) == ["mobile/charts/*.png", "**/clock.png"])
    }

    /// Built-in < file top level < command line < matching rules, a later rule winning key by key.
    @Test func precedence() throws {
        let file = try CompareConfigFile(bytes: Array(Self.example.utf8))
        var commandLine = OptionOverrides()
        commandLine.threshold = 0.15
        commandLine.maxDiffRatio = 0.01
        let rules = OptionRules(base: PairOptions().applying(file.defaults).applying(commandLine), rules: file.rules)
        let plain = rules.options(for: Array("web/home.png".utf8))
        #expect(plain.diff.threshold == 0.15, "the command line beats the file's top level")
        #expect(plain.limits.maxDiffPixels == 5 && plain.limits.maxDiffRatio == 0.01 && !plain.limits.allowResize)
        #expect(plain.ignore == [PixelRect(x: 0, y: 0, width: 100, height: 20)] && plain.diff.includeAA == false)
        let mobile = rules.options(for: Array("mobile/login.png".utf8))
        #expect(mobile.diff.threshold == 0.3 && mobile.limits.allowResize && mobile.limits.maxDiffPixels == 5,
                "a rule beats the command line")
        let chart = rules.options(for: Array("mobile/charts/bar.png".utf8))
        #expect(chart.diff.threshold == 0.3 && chart.limits.maxDiffPixels == 50 && chart.ignore == [], "rules apply in order, key by key")
        let pie = rules.options(for: Array("mobile/charts/pie.png".utf8))
        #expect(pie.diff.threshold == 0.05 && pie.limits.maxDiffPixels == 50 && pie.limits.allowResize, "the last rule wins its keys")
        let clock = rules.options(for: Array("web/widgets/clock.png".utf8))
        #expect(clock.diff.threshold == 0.15 && clock.limits.maxDiffPixels == 50)
    }

    @Test(arguments: [
        ("{\"treshold\": 0.1}", "treshold (line 1, column 2): unknown key"),
        ("{\"threshold\": 2}", "threshold (line 1, column 15): expected a number from 0 to 1, found a number"),
        ("{\"includeAA\": \"yes\"}", "includeAA (line 1, column 15): expected true or false, found a string"),
        ("{\"rules\": [{\"paths\": [\"a\"]}, {\"paths\": [\"b\"]},\n {\"paths\": [\"c\"], \"maxDiffPixels\": 1.5}]}",
         "rules[2].maxDiffPixels (line 2, column 36): expected a whole number from 0, found a number"),
        ("{\"rules\": [{\"paths\": [\"a/**b\"]}]}",
         "rules[0].paths[0] (line 1, column 23): bad pattern \"a/**b\": '**' must be a whole segment (as in 'a/**/b')"),
        ("{\"rules\": [{\"threshold\": 0.1}]}", "rules[0] (line 1, column 12): a rule needs \"paths\""),
        ("{\"rules\": [{\"paths\": []}]}", "rules[0].paths (line 1, column 22): expected a non-empty list of patterns, found a list"),
        ("{\"rules\": [{\"paths\": [\"a\"], \"maskDir\": \"m\"}]}",
         "rules[0].maskDir (line 1, column 29): unknown key"),
        ("{\"ignore\": [[0, 0, 0, 5]]}", "ignore[0][2] (line 1, column 20): expected a whole number from 1 to 2147483647, found a number"),
        ("{\"ignore\": [[0, 0, 5]]}", "ignore[0] (line 1, column 13): expected [x, y, width, height], found a list"),
        ("[1]", "(line 1, column 1): expected an object at the top, found a list"),
        ("{\"a\": }", "(line 1, column 7): unexpected character '}'"),
    ]) func refusesWithThePlace(text: String, message: String) {
        do {
            _ = try CompareConfigFile(bytes: Array(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            // An unknown key's message goes on with the keys allowed there.
            #expect(error.description == message || error.description.hasPrefix(message + " (known: "), "\(error.description)")
        }
    }

    @Test func unknownKeyListsTheKeysAllowedThere() {
        #expect(throws: CompareConfigError.self) { try CompareConfigFile(bytes: Array("{\"rules\": [{\"paths\": [\"a\"], \"x\": 1}]}".utf8)) }
        do { _ = try CompareConfigFile(bytes: Array("{\"rules\": [{\"paths\": [\"a\"], \"x\": 1}]}".utf8)) } catch {
            #expect(error.reason == "unknown key (known: " + (["paths"] + CompareConfigFile.pairKeys).joined(separator: ", ") + ")")
        }
        do { _ = try CompareConfigFile(bytes: Array("{\"x\": 1}".utf8)) } catch {
            #expect(error.reason == "unknown key (known: " + (CompareConfigFile.pairKeys + CompareConfigFile.topKeys).joined(separator: ", ") + ")")
        }
    }

    @Test func ignoreRectanglesFromTheCommandLine() {
        #expect(parseIgnoreRectangle("10,20,30,40") == PixelRect(x: 10, y: 20, width: 30, height: 40))
        for bad in ["10,20,30", "1,2,0,4", "-1,2,3,4", "1,2,3,4,5", "a,b,c,d", "1, 2,3,4", "", "1,2,3,99999999999"] {
            #expect(parseIgnoreRectangle(bad) == nil, "\(bad)")
        }
    }
}
