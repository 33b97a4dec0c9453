// End-to-end (issue #18, cases 4 and 5): running out of file descriptors is a
// fault of the run, never of the files; folders deeper than PATH_MAX are
// scanned and their images drawn.

import Foundation
import Testing
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

@Suite(.serialized) struct ResourceTests {
    /// 20 folders of 50 small images each.
    static func nestedInputs(_ folder: ScratchFolder) -> String {
        let root = folder.mkdir("nested")
        for d in 0..<20 {
            _ = folder.mkdir("nested/d\(d)")
            for i in 0..<50 {
                folder.write("nested/d\(d)/\(i).png", PNGBytes.solid(width: 4 + i % 5, height: 4 + d % 7, [UInt8(i), UInt8(d), 9, 255]))
            }
        }
        return root
    }

    /// Under `ulimit -n n` for n from 4 to 12, with 8 workers, every run either
    /// draws all 1000 images (the same bytes as without the limit) or fails
    /// with exit 1 saying why, the earlier outputs untouched and no temporary
    /// left. No image is ever reported as skipped for lack of descriptors.
    @Test func descriptorLimit() throws {
        let folder = ScratchFolder("fd")
        let input = Self.nestedInputs(folder)
        let reference = folder.sub("reference.png"), referenceManifest = folder.sub("reference.json")
        let free = Masonry.run([input, "-r", "-j", "8", "-c", "64", "-o", reference, "--manifest", referenceManifest], timeout: 60)
        try #require(free.status == 0 && free.stderr.contains("1000 images, 0 skipped"), "\(free)")
        let out = folder.mkdir("out")
        let sheet = out + "/fd.png", manifest = out + "/fd.json"
        var outcomes: [Int: Int32] = [:]
        for limit in 4...12 {
            writeRaw(Array(sheet.utf8), OutputTests.oldSheet)
            writeRaw(Array(manifest.utf8), OutputTests.oldSheet)
            let result = Masonry.run([input, "-r", "-j", "8", "-c", "64", "-o", sheet, "--manifest", manifest],
                                     timeout: 60, shellLimits: "ulimit -n \(limit)")
            note("ulimit -n \(limit), 1000 images, -j 8", result)
            outcomes[limit] = result.status
            #expect(!result.timedOut)
            #expect(!result.stderr.contains("skipped "), "ulimit -n \(limit): \(result.stderr)")
            if result.status == 0 {
                #expect(result.stderr.contains("1000 images, 0 skipped"), "ulimit -n \(limit): \(result.stderr)")
                #expect(readFile(sheet) == readFile(reference), "ulimit -n \(limit): the sheet differs from the unlimited run's")
                #expect(readFile(manifest) == readFile(referenceManifest), "ulimit -n \(limit): the manifest differs")
            } else {
                #expect(result.status == 1, "ulimit -n \(limit): \(result)")
                #expect(result.stderrLines.count == 1 && result.stderrLines[0].hasPrefix("masonry: error: ")
                        && result.stderr.lowercased().contains("too many open files"), "ulimit -n \(limit): \(result.stderr)")
                #expect(readFile(sheet) == OutputTests.oldSheet && readFile(manifest) == OutputTests.oldSheet,
                        "ulimit -n \(limit): an earlier output was changed")
            }
            #expect(OutputTests.temporaries(in: out).isEmpty, "ulimit -n \(limit): left behind: \(listFolder(out))")
        }
        TestLog.verbose("HOSTILE | exit status by ulimit -n: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))")
        #expect(outcomes.values.contains(0) && outcomes.values.contains(1), "both outcomes should occur in this range: \(outcomes)")
    }

    /// 32 levels of 200-byte folder names (6.4 KB paths, over PATH_MAX) with one image on each level: all are drawn.
    @Test func treeDeeperThanPathMax() throws {
        let folder = ScratchFolder("deep")
        let root = folder.mkdir("tree")
        defer { removeTree(root) }
        var images: [String] = []
        var descriptor = open(root, O_RDONLY | O_DIRECTORY)
        try #require(descriptor >= 0)
        var path = root
        for level in 0..<32 {
            let name = String(repeating: Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(level % 26))), count: 200)
            try #require(mkdirat(descriptor, name, 0o755) == 0, "mkdirat failed at level \(level): \(errno)")
            let next = openat(descriptor, name, O_RDONLY | O_DIRECTORY)
            close(descriptor)
            descriptor = next
            try #require(descriptor >= 0)
            path += "/" + name
            let bytes = PNGBytes.solid(width: 6, height: 4 + level % 9, [UInt8(level * 7), 90, 200, 255])
            let file = openat(descriptor, "\(level).png", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            try #require(file >= 0)
            #expect(bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) } == bytes.count)
            close(file)
            images.append(path + "/\(level).png")
        }
        close(descriptor)
        #expect(images.last!.utf8.count > 4096)
        let manifest = folder.sub("m.json")
        let result = Masonry.run([root, "-r", "-c", "4", "-w", "100", "-o", folder.sub("sheet.png"), "--manifest", manifest])
        note("32 levels of 200-byte names", result)
        SheetCheck.basics(result, label: "deep tree")
        #expect(result.stderrLines.count == 1 && result.stderr.contains("32 images, 0 skipped"), "\(result.stderr)")
        let (drawn, skipped, _) = try SheetCheck.manifest(manifest)
        #expect(drawn.sorted() == images.sorted(), "drawn \(drawn.count) of \(images.count)")
        #expect(skipped.isEmpty)
    }

    /// Removes a tree whatever its depth (`rm` walks it relative to open folders).
    private func removeTree(_ path: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/rm")
        process.arguments = ["-rf", path]
        try? process.run()
        process.waitUntilExit()
    }
}
