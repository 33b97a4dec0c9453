// End-to-end (issue #18, cases 1 and 2): no output may be an input of the run
// or another output of the run, after resolving links. Each refusal is a
// usage error (exit 64) naming both paths, and leaves every file as it was.

import Foundation
import Testing
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

@Suite(.serialized) struct OutputCollisionTests {
    /// Three inputs `in0.png`…`in2.png` in a fresh folder, with their bytes.
    static func inputs(_ folder: ScratchFolder) -> [(path: String, bytes: [UInt8])] {
        (0..<3).map { index in
            let bytes = PNGBytes.solid(width: 21, height: 30, [UInt8(80 * index), 100, 50, 255])
            return (folder.write("in\(index).png", bytes), bytes)
        }
    }

    /// The run was refused with exit 64 and one line naming `first` and `second`,
    /// every input is byte for byte as before, and no temporary file was left.
    static func expectRefused(_ result: RunResult, naming first: String, _ second: String,
                              inputs: [(path: String, bytes: [UInt8])], folder: ScratchFolder) {
        #expect(result.status == 64, "\(result)")
        #expect(!result.timedOut)
        #expect(result.stderrLines.count == 1 && result.stderrLines[0].hasPrefix("masonry: error: "), "\(result.stderr)")
        #expect(result.stderr.contains(first) && result.stderr.contains(second), "\(result.stderr)")
        for input in inputs { #expect(readFile(input.path) == input.bytes, "\(input.path) was changed") }
        #expect(OutputTests.temporaries(in: folder.path).isEmpty, "left behind: \(listFolder(folder.path))")
    }

    @Test func sheetIsANamedInput() {
        let folder = ScratchFolder("collide")
        let inputs = Self.inputs(folder)
        let result = Masonry.run(inputs.map(\.path) + ["-o", inputs[0].path])
        note("-o names an input", result)
        Self.expectRefused(result, naming: inputs[0].path, inputs[0].path, inputs: inputs, folder: folder)
    }

    @Test func manifestIsANamedInput() {
        let folder = ScratchFolder("collide")
        let inputs = Self.inputs(folder)
        let sheet = folder.sub("sheet.png")
        let result = Masonry.run(inputs.map(\.path) + ["-o", sheet, "--manifest", inputs[1].path])
        note("--manifest names an input", result)
        Self.expectRefused(result, naming: inputs[1].path, inputs[1].path, inputs: inputs, folder: folder)
        #expect(!FileManager.default.fileExists(atPath: sheet), "a sheet was written although the run was refused")
    }

    /// `-o link.png`, a link to an input: the input would be dropped without a word.
    @Test func sheetIsALinkToAnInput() throws {
        let folder = ScratchFolder("collide")
        let inputs = Self.inputs(folder)
        let link = folder.sub("link.png")
        try #require(symlink(inputs[2].path, link) == 0)
        let result = Masonry.run(inputs.map(\.path) + ["-o", link])
        note("-o is a link to an input", result)
        Self.expectRefused(result, naming: link, inputs[2].path, inputs: inputs, folder: folder)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == inputs[2].path, "the link was replaced")
    }

    /// The same through a folder argument: the output is a link, inside the input folder, to an image of that folder.
    @Test func sheetInsideInputFolderIsALinkToAnInput() throws {
        let folder = ScratchFolder("collide")
        let inputs = Self.inputs(folder)
        let link = folder.sub("link.png")
        try #require(symlink("in1.png", link) == 0)
        let result = Masonry.run([folder.path, "-o", link])
        note("-o is a link to an image of the input folder", result)
        Self.expectRefused(result, naming: link, inputs[1].path, inputs: inputs, folder: folder)
    }

    /// `--manifest` equal to `-o`, spelled the same, spelled differently, or through a link.
    @Test(arguments: ["same", "dot", "link"])
    func manifestIsTheSheet(_ spelling: String) throws {
        let folder = ScratchFolder("collide")
        let inputs = Self.inputs(folder)
        let sheet = folder.sub("same.png")
        let manifest: String
        switch spelling {
        case "same": manifest = sheet
        case "dot": manifest = folder.path + "/./../" + URL(fileURLWithPath: folder.path).lastPathComponent + "/same.png"
        default:
            writeRaw(Array(sheet.utf8), OutputTests.oldSheet)
            manifest = folder.sub("m.json")
            try #require(symlink(sheet, manifest) == 0)
        }
        let result = Masonry.run(inputs.map(\.path) + ["-o", sheet, "--manifest", manifest])
        note("--manifest is -o (\(spelling))", result)
        Self.expectRefused(result, naming: sheet, manifest, inputs: inputs, folder: folder)
        if spelling == "link" {
            #expect(readFile(sheet) == OutputTests.oldSheet, "the earlier sheet was replaced")
        } else {
            #expect(!FileManager.default.fileExists(atPath: sheet), "an output was written although the run was refused")
        }
    }
}
