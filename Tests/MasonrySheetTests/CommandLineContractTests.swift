import Foundation
import BitmapText
@testable import MasonryCLI
import WaterfallLayout
import MasonrySheet
import Testing
import TestSupport

/// What a CI script relies on (issue #17): exit statuses, which lines `--quiet` keeps, the
/// `masonry: error:` form of usage errors, and the help generated from the same declarations
/// as the parser. Run through the built executable, as a script runs it.
@Suite struct CommandLineContractTests {
    /// A folder `mixed` with one good PNG and one truncated copy of it.
    private static func mixedFolder() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("mixed"), withIntermediateDirectories: true)
        try TestImages.write(TestImages.photoLike(width: 30, height: 20, seed: 5), width: 30, height: 20,
                             to: folder.file("mixed/good.png"))
        var truncated = try [UInt8](Data(contentsOf: folder.url.appendingPathComponent("mixed/good.png")))
        truncated.removeLast(40)
        try Data(truncated).write(to: folder.url.appendingPathComponent("mixed/cut.png"))
        return folder
    }

    private static let usageTail = ["Usage: masonry [<options>] <input> ...", "  See 'masonry --help' for more information."]

    @Test func strictQuietStillPrintsEachSkippedInput() throws {
        let folder = try Self.mixedFolder()
        let strict = try MasonryExecutable.run(["mixed", "-o", "s.png", "--strict", "--quiet"], in: folder.path)
        #expect(strict.status == ExitStatus.incomplete.rawValue)
        #expect(strict.errorLines == ["masonry: error: skipped mixed/cut.png: truncated image data"], "stderr: \(strict.standardError)")
        #expect(FileManager.default.fileExists(atPath: folder.file("s.png")))

        let quiet = try MasonryExecutable.run(["mixed", "-o", "q.png", "--quiet"], in: folder.path)
        #expect(quiet.status == ExitStatus.written.rawValue)
        #expect(quiet.standardError.isEmpty, "stderr: \(quiet.standardError)")
    }

    @Test(arguments: [[], ["--strict"], ["--quiet"]])
    func aMissingInputArgumentExitsTwoAndTheSheetIsStillWritten(extra: [String]) throws {
        let folder = try Self.mixedFolder()
        try FileManager.default.removeItem(atPath: folder.file("mixed/cut.png"))
        let result = try MasonryExecutable.run(["mixed", "no-such-typo", "-o", "x.png"] + extra, in: folder.path)
        #expect(result.status == ExitStatus.incomplete.rawValue, "stderr: \(result.standardError)")
        #expect(result.errorLines.first == "masonry: error: skipped no-such-typo: no such file or folder")
        #expect(FileManager.default.fileExists(atPath: folder.file("x.png")))
        if !extra.contains("--quiet") {
            let summary = result.errorLines.last ?? ""
            #expect(summary.hasPrefix("masonry: wrote x.png (") && summary.contains("): 1 image, 1 skipped, "), "\(summary)")
        }
    }

    @Test(arguments: ["x.jpg", "x.png.bak", "x", "x\u{0E}png", "png"])
    func anOutputNotEndingInPNGIsRefusedAsUsage(name: String) throws {
        let folder = try Self.mixedFolder()
        let result = try MasonryExecutable.run(["mixed", "-o", name], in: folder.path)
        #expect(result.status == ExitStatus.usage.rawValue)
        #expect(result.errorLines.first?.hasPrefix("masonry: error: the output '") == true, "stderr: \(result.standardError)")
        #expect(Array(result.errorLines.dropFirst()) == Self.usageTail)
        #expect(!FileManager.default.fileExists(atPath: folder.file(name)))
    }

    @Test func anOutputEndingInPNGInAnyCaseIsWritten() throws {
        let folder = try Self.mixedFolder()
        let result = try MasonryExecutable.run(["mixed", "-o", "Sheet.PnG"], in: folder.path)
        #expect(result.status == ExitStatus.written.rawValue, "stderr: \(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: folder.file("Sheet.PnG")))
    }

    @Test(arguments: [
        (["--colums", "3"], "unknown option '--colums'; did you mean '--columns'?"),
        (["--tile-backgroud=#fff"], "unknown option '--tile-backgroud'; did you mean '--tile-background'?"),
        (["--quite"], "unknown option '--quite'; did you mean '--quiet'?"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["-Z"], "unknown option '-Z'"),
        (["-c", "zero"], "invalid value 'zero' for '-c <n>': expected a whole number from 1 to \(LayoutLimits.maxColumns)"),
        (["--columns=0"], "invalid value '0' for '--columns <n>': must be from 1 to \(LayoutLimits.maxColumns)"),
        (["-j"], "missing value for '-j <n>'"),
        (["--order", "zigzag"], "invalid value 'zigzag' for '--order <order>': expected shortest, left-to-right or right-to-left"),
        (["-w", "1000", "-c", "4", "--column-width", "200"],
         "invalid layout: width 1000 does not match 4 columns of 200 px, which need 840 px: "
             + "give only two of --width, --columns and --column-width"),
        (["-w", "100", "--column-width", "90", "--margin", "8"],
         "invalid layout: a column of 90 px does not fit in width 100 with --margin 8 and 8"),
    ])
    func usageMessagesAreOneLineNamingOptionsAsTyped(arguments: [String], message: String) throws {
        let folder = try Self.mixedFolder()
        let result = try MasonryExecutable.run(["mixed", "-o", "u.png"] + arguments, in: folder.path)
        #expect(result.status == ExitStatus.usage.rawValue)
        #expect(result.errorLines == ["masonry: error: " + message] + Self.usageTail, "stderr: \(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("u.png")))
    }

    @Test func helpListsEveryExitStatusAndTheSameWordsTheParserAccepts() throws {
        let help = try MasonryExecutable.run(["--help"])
        #expect(help.status == ExitStatus.written.rawValue)
        let lines = help.standardOutput.split(separator: "\n").map(String.init)
        let statusSection = try #require(lines.firstIndex(of: "EXIT STATUS:"))
        let listed = lines[(statusSection + 1)...].compactMap { line in
            line.hasPrefix("  ") ? Int32(line.split(separator: " ").first ?? "") : nil
        }
        #expect(listed == ExitStatus.allCases.map(\.rawValue))
        #expect(listed.contains(130) && listed.contains(143) && listed.contains(64))
        // The help is wrapped to 80 columns, so compare it with spaces for line breaks.
        let flat = help.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for words in [PlacementOrder.wordList, InputOrder.wordList, TileStyle.EnlargeMode.allCases.map(\.rawValue).joined(separator: " "),
                      FontSize.allCases.map(\.rawValue).joined(separator: " ")] {
            let present = words.split(separator: " ").allSatisfy { flat.contains(String($0)) }
            #expect(present, "help misses \(words)")
        }
        #expect(flat.contains("Placement: \(PlacementOrder.wordList). (default: \(CommandDefaults.order.rawValue))"))
        #expect(flat.contains("Input order: \(InputOrder.wordList). (default: natural)"))
    }

    /// Every word the help lists for an option is accepted by the parser, and a word it does not
    /// list is refused with the same list.
    @Test func everyListedWordIsAcceptedAndOthersAreRefusedWithTheList() throws {
        func settings(_ arguments: [String]) throws(UsageError) {
            guard case .render(let parsed) = try ArgumentParser.parse((["in"] + arguments).map { Array($0.utf8) }) else { return }
            _ = try CommandSettings.make(from: parsed)
        }
        let options: [(String, [String], String)] = [
            ("--order", PlacementOrder.allCases.map(\.rawValue), PlacementOrder.wordList),
            ("--sort", InputOrder.allCases.map(\.rawValue), InputOrder.wordList),
            ("--font-size", FontSize.allCases.map(\.rawValue), FontSize.wordList),
            ("--enlarge", TileStyle.EnlargeMode.allCases.map(\.rawValue), TileStyle.EnlargeMode.wordList),
            ("--compression", CompressionPreset.allCases.map(\.rawValue), "fast, default, small"),
        ]
        for (option, words, list) in options {
            for word in words { #expect(throws: Never.self, "\(option) \(word)") { try settings([option, word]) } }
            #expect("\(option) nonsense", performing: { try settings([option, "nonsense"]) }, throws: { error in
                (error as? UsageError)?.message.contains("expected \(list)") == true
            })
        }
    }
}
