import Foundation
@testable import MasonrySheet
import Testing
import TestSupport

/// Issue #36, item 6: every list of formats or folder extensions in README.md, Notes/SPEC.md,
/// `--help` (render and compare) and the man page is checked against the format table
/// (`ImageFormats.all`), so a format added to the table fails this test until every list names
/// it. A *list* is a run of at least three of the table's names joined by ", ", " and " or
/// " or " (`PNG, JPEG, WebP, GIF, HEIF and AVIF`), or a run of extensions (`*.png, *.jpg` or
/// `` `.heic`, `.heif` ``) that spans two formats or more; a run within one format (a table row,
/// "HEIC/HEIF (`.heic`, `.heif`, `.hif`)") is that format's own and is not a list.
@Suite struct DocumentationFormatListTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let names = ImageFormats.all.map(\.name)
    static let extensions = ImageFormats.all.flatMap(\.folderExtensions)

    /// The documents, by name: the two Markdown files, and what the command prints.
    static func documents() throws -> [(String, String)] {
        var documents = try ["README.md", "Notes/SPEC.md"].map { name in
            (name, try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8))
        }
        for (name, arguments) in [("--help", ["--help"]), ("compare --help", ["compare", "--help"]),
                                  ("the man page", ["--generate-manual"])] {
            let result = try MasonryExecutable.run(arguments)
            try #require(result.status == 0, "\(name): \(result.standardError)")
            documents.append((name, result.standardOutput))
        }
        return documents
    }

    /// Paragraphs with their lines joined (a list may be wrapped), roff's `\-` and `\(em` as text.
    static func paragraphs(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\\-", with: "-").components(separatedBy: "\n\n")
            .map { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
    }

    /// Every run of `items` joined by ", ", " and ", " or ", ", and " or ", or ", as the items
    /// themselves (a `decorated` item may be wrapped in backticks or start with `*`). A run starts
    /// where no letter, digit or "." comes before it and ends where no letter or digit follows.
    /// A plain scanner, not NSRegularExpression: Foundation's regular expressions leak under
    /// LeakSanitizer, and the ASan suite runs this test.
    static func runs(of items: [String], decorated: Bool = false, in paragraph: String) -> [[String]] {
        let text = Array(paragraph)
        let separators = [", and ", ", or ", ", ", " and ", " or "].map(Array.init)
        func isWordCharacter(_ character: Character) -> Bool {
            character.isASCII && (character.isLetter || character.isNumber)
        }
        func hasPrefix(_ literal: [Character], at index: Int) -> Bool {
            index + literal.count <= text.count && text[index..<(index + literal.count)].elementsEqual(literal)
        }
        /// The longest items first: "JPEG XL" is not "JPEG" followed by " XL".
        let longestFirst = items.sorted { $0.count > $1.count }
        /// The item that starts at `index` and where it ends, if one does.
        func item(at index: Int) -> (String, Int)? {
            var start = index
            if decorated { while start < text.count, text[start] == "`" || text[start] == "*" { start += 1 } }
            for candidate in longestFirst where hasPrefix(Array(candidate), at: start) {
                var end = start + candidate.count
                if decorated, end < text.count, text[end] == "`" { end += 1 }
                return (candidate, end)
            }
            return nil
        }
        var runs: [[String]] = []
        var index = 0
        while index < text.count {
            guard index == 0 || !(isWordCharacter(text[index - 1]) || text[index - 1] == "."),
                  let first = item(at: index) else { index += 1; continue }
            var found = [first]
            scan: while true {
                for separator in separators where hasPrefix(separator, at: found.last!.1) {
                    if let next = item(at: found.last!.1 + separator.count) { found.append(next); continue scan }
                }
                break
            }
            // The longest run of two items or more that no letter or digit follows.
            while found.count >= 2, found.last!.1 < text.count, isWordCharacter(text[found.last!.1]) { found.removeLast() }
            guard found.count >= 2 else { index += 1; continue }
            runs.append(found.map(\.0))
            index = found.last!.1
        }
        return runs
    }

    @Test func everyFormatListNamesTheWholeTable() throws {
        var lists = 0
        for (document, text) in try Self.documents() {
            for paragraph in Self.paragraphs(text) {
                for run in Self.runs(of: Self.names, in: paragraph)
                where Set(run).count >= 3 {
                    lists += 1
                    #expect(Set(run) == Set(Self.names), "\(document): a format list that is not the table's: \(run.joined(separator: ", "))")
                }
            }
        }
        #expect(lists >= 4, "README, SPEC and --help each list the formats at least once (found \(lists) lists)")
    }

    @Test func everyExtensionListNamesEveryExtension() throws {
        // `*.png`, `.png` and `` `.png` `` are the same extension.
        // Longest first, so `.avifs` is not read as `.avif` and an `s`.
        let spelled = Self.extensions.sorted { $0.count > $1.count }
        let owner = Dictionary(ImageFormats.all.flatMap { format in format.folderExtensions.map { ($0, format.name) } },
                               uniquingKeysWith: { first, _ in first })
        var lists = 0
        for (document, text) in try Self.documents() {
            for paragraph in Self.paragraphs(text) {
                for run in Self.runs(of: spelled, decorated: true, in: paragraph) {
                    let found = run
                    guard Set(found.compactMap { owner[$0] }).count >= 2 else { continue }   // one format's own
                    lists += 1
                    #expect(Set(found) == Set(Self.extensions), "\(document): an extension list that is not the table's: \(found)")
                }
            }
        }
        #expect(lists >= 2, "--help and the man page list the extensions (found \(lists) lists)")
    }

    /// SPEC §12's table and README's formats table have a row for every format, with exactly
    /// its extensions, and no row for a format the table does not have.
    @Test func theFormatTablesHoldEveryFormat() throws {
        let spec = try String(contentsOf: Self.root.appendingPathComponent("Notes/SPEC.md"), encoding: .utf8)
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let formats = try #require(readme.components(separatedBy: "## Formats, and what is not supported").dropFirst().first?
            .components(separatedBy: "\n## ").first)
        for (document, text) in [("SPEC §12", spec), ("README's formats section", formats)] {
            let rows = text.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.contains("| `.") }
            #expect(rows.count == ImageFormats.all.count, "\(document): \(rows.count) format rows for \(ImageFormats.all.count) formats")
            for format in ImageFormats.all {
                let found = try #require(rows.first { $0.hasPrefix("| \(format.name) |") }, "\(document) has no row for \(format.name)")
                let cell = found.split(separator: "|")[1]
                let listed = cell.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
                #expect(listed == format.folderExtensions, "\(document)'s \(format.name) row lists \(listed)")
            }
        }
    }

    /// README's first screen: the three first tasks, each a real command that works as shown.
    @Test func readmeFirstStepsRunAsShown() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "## First steps").dropFirst().first?
            .components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        let commands = block.split(separator: "\n").filter { $0.hasPrefix("masonry ") }.map(String.init)
        #expect(commands.count == 3)
        let folder = TemporaryFolder()
        for sub in ["photos", "photos/2024"] {
            try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true)
            for index in 0..<3 {
                try TestImages.write(TestImages.photoLike(width: 60, height: 40 + index, seed: UInt64(index)), width: 60,
                                     height: 40 + index, to: folder.file("\(sub)/p\(index).png"))
            }
        }
        for command in commands {
            let arguments = ReadmePictureTests.words(command).dropFirst()
            let result = try MasonryExecutable.run(Array(arguments), in: folder.path)
            #expect(result.status == 0, "\(command): \(result.standardError)")
            let output = try #require(arguments.firstIndex(of: "-o").map { arguments[$0 + 1] })
            #expect(FileManager.default.fileExists(atPath: folder.file(output)), "\(command) wrote no \(output)")
        }
        #expect(FileManager.default.fileExists(atPath: folder.file("photos.html")))
    }
}
