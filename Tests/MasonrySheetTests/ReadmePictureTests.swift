import Foundation
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// The pictures in README.md are made by `scripts/make-readme-pictures.sh` with the commands
/// printed under them; the built `masonry` given the same arguments must make the same bytes.
@Suite struct ReadmePictureTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let prefix = "swift run -c release masonry "

    /// The `masonry …` command lines of the script, as written there.
    static let scriptCommands: [String] = {
        let script = (try? String(contentsOf: packageRoot.appendingPathComponent("scripts/make-readme-pictures.sh"),
                                  encoding: .utf8)) ?? ""
        return script.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }()

    /// Words of a command line as sh splits them: blanks separate words, single quotes keep text
    /// as written (the script uses nothing else).
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current: String?
        var quoted = false
        for character in line {
            if character == "'" {
                quoted.toggle()
                current = current ?? ""
            } else if character == " " && !quoted {
                if let word = current { words.append(word) }
                current = nil
            } else {
                current = (current ?? "") + String(character)
            }
        }
        if let word = current { words.append(word) }
        return words
    }

    @Test func theScriptMakesBothPictures() {
        let outputs = Self.scriptCommands.compactMap { line -> String? in
            let arguments = Self.words(line)
            return arguments.firstIndex(of: "-o").map { arguments[$0 + 1] }
        }
        #expect(outputs == ["docs/sample-sheet.png", "docs/sample-captions.png"])
        #expect(Self.words("masonry a --caption '{stem}\\n{width}' -o 'x y.png'")
                == ["masonry", "a", "--caption", "{stem}\\n{width}", "-o", "x y.png"])
    }

    /// Every command printed in README.md under a picture is one of the script's lines.
    @Test func readmeShowsTheScriptsCommands() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let shown = readme.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("*`" + Self.prefix), line.hasSuffix("`*") else { return nil }
            return String(line.dropFirst(2).dropLast(2))
        }
        #expect(!shown.isEmpty)
        for command in shown { #expect(Self.scriptCommands.contains(command), "README command not in the script: \(command)") }
    }

    @Test(arguments: scriptCommands)
    func committedPictureHasTheBytesItsCommandMakes(line: String) throws {
        var arguments = Array(Self.words(line).dropFirst(5))  // drop "swift run -c release masonry"
        let outputIndex = try #require(arguments.firstIndex(of: "-o")) + 1
        let committed = arguments[outputIndex]
        let folder = TemporaryFolder()
        arguments[outputIndex] = folder.file(URL(fileURLWithPath: committed).lastPathComponent)
        let result = try MasonryExecutable.run(arguments, in: Self.packageRoot.path)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let made = try [UInt8](Data(contentsOf: URL(fileURLWithPath: arguments[outputIndex])))
        let kept = try [UInt8](Data(contentsOf: Self.packageRoot.appendingPathComponent(committed)))
        guard made != kept else { return }
        let samePixels = (try? PNGDecoder.decodeRGBA(bytes: made).pixels == PNGDecoder.decodeRGBA(bytes: kept).pixels) ?? false
        let difference = samePixels ? "same pixels, other bytes" : "other pixels"
        Issue.record("\(committed) differs from what its command makes (\(difference)); run scripts/make-readme-pictures.sh")
    }
}
