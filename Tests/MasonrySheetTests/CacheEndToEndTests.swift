import Foundation
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// `--cache` (SPEC §10) through the built command: the output never depends on the cache.
@Suite struct CacheEndToEndTests {
    /// Columns of one width (419 - 2 × 8 - 2 × 8 = 3 × 129), so a tile keeps its size whichever column it lands in.
    static let options = ["-w", "419", "-c", "3", "--caption", "{name}", "--page-height", "600", "--background", "#fafafa"]

    /// Digests of every page and the manifest of a run writing `out/<name>-*.png` and `out/<name>.json`.
    private func render(_ folder: TemporaryFolder, cache: String?, jobs: Int = 2) throws -> (digests: [String], stderr: String) {
        try? FileManager.default.removeItem(atPath: folder.file("out"))
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let result = try MasonryExecutable.run(["in", "-o", "out/s.png", "--manifest", "out/s.json", "-j", "\(jobs)"]
                                               + Self.options + (cache.map { ["--cache", $0] } ?? []), in: folder.path)
        #expect(result.status == 0, "\(result.standardError)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("out")).sorted()
        #expect(names.count >= 3, "expected several pages: \(names)")
        let digests = try names.map { name in
            "\(name) " + SHA256.hex([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.file("out/" + name)))))
        }
        return (digests, result.standardError)
    }

    private func write(_ folder: TemporaryFolder, _ name: String, seed: UInt64, width: Int = 90, height: Int = 70) throws {
        try TestImages.write(TestImages.photoLike(width: width, height: height, seed: seed, alpha: seed % 4 == 0 ? 150 : nil),
                             width: width, height: height, to: folder.file("in/" + name))
    }

    /// How many pictures the summary line says came from the cache.
    private func fromCache(_ stderr: String) -> Int {
        guard let range = stderr.range(of: #"\((\d+) from the cache\)"#, options: .regularExpression) else { return 0 }
        return Int(stderr[range].dropFirst().prefix { $0.isNumber }) ?? 0
    }

    @Test func outputIsIdenticalWithoutCacheColdAndWarmWhateverChanges() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        for number in 1...14 { try write(folder, "p\(number).png", seed: UInt64(number), width: 40 + 9 * number, height: 120 - 5 * number) }
        // p3 uncompressed, so that other pixels give a file of the same length.
        func stored(seed: UInt64) throws -> [UInt8] {
            try PNGEncoder.encode(pixels: TestImages.photoLike(width: 67, height: 105, seed: seed), width: 67, height: 105,
                                  format: .rgba8, settings: .init(level: 0))
        }
        try Data(try stored(seed: 3)).write(to: URL(fileURLWithPath: folder.file("in/p3.png")))
        // Files changed in the last 100 ms are not cached (the cache's settle rule): let them age.
        usleep(300_000)

        let plain = try render(folder, cache: nil)
        let cold = try render(folder, cache: "cache", jobs: 1)
        let warm = try render(folder, cache: "cache", jobs: 3)
        #expect(cold.digests == plain.digests && warm.digests == plain.digests)
        #expect(fromCache(cold.stderr) == 0)
        #expect(fromCache(warm.stderr) == 14, "\(warm.stderr)")

        // Edited in place with the same size and the old modification time: only ctime tells.
        let edited = folder.file("in/p3.png")
        var status = stat()
        _ = stat(edited, &status)
        let bytes = try stored(seed: 33)
        try #require(bytes.count == (try Data(contentsOf: URL(fileURLWithPath: edited))).count, "the edit must keep the size")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: edited))
        try handle.write(contentsOf: bytes)
        try handle.close()
        var times = [status.st_atim, status.st_mtim]
        _ = utimensat(AT_FDCWD, edited, &times, 0)
        // Replaced by another file, renamed, deleted.
        try FileManager.default.removeItem(atPath: folder.file("in/p5.png"))
        try write(folder, "p5.png", seed: 55, width: 85, height: 95)
        try FileManager.default.moveItem(atPath: folder.file("in/p7.png"), toPath: folder.file("in/p7-renamed.png"))
        try FileManager.default.removeItem(atPath: folder.file("in/p9.png"))
        usleep(300_000)

        let plainAfter = try render(folder, cache: nil)
        let warmAfter = try render(folder, cache: "cache", jobs: 2)
        #expect(warmAfter.digests == plainAfter.digests)
        #expect(plainAfter.digests != plain.digests)
        // Decoded again: p3 (edited: its ctime moved), p5 (a new inode) and p7 (a rename moves the
        // ctime too, so the cache plays safe); p9 is gone. The other 10 come from the cache.
        #expect(fromCache(warmAfter.stderr) == 10, "\(warmAfter.stderr)")
    }

    /// Page entries (SPEC §10): with one input of many changed, the warm sheet has the bytes of a
    /// run without the cache, whatever `-j`; a damaged page entry is a miss with a warning.
    @Test func oneChangedInputOfManyGivesTheSameBytesAndDamagedPageEntriesAreMisses() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        for number in 1...24 { try write(folder, "m\(number).png", seed: UInt64(200 + number), width: 60 + 3 * number, height: 50 + 2 * (number % 7)) }
        usleep(300_000)
        func sheet(cache: Bool, jobs: Int, verbose: Bool = false) throws -> (digest: String, stderr: String) {
            let result = try MasonryExecutable.run(["in", "-o", "one.png", "-w", "419", "-c", "3", "--caption", "{name}", "-j", "\(jobs)"]
                                                   + (cache ? ["--cache", "cache"] : []) + (verbose ? ["-v"] : []), in: folder.path)
            #expect(result.status == 0, "\(result.standardError)")
            return (SHA256.hex([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.file("one.png"))))), result.standardError)
        }
        let cold = try sheet(cache: true, jobs: 1)
        #expect(cold.digest == (try sheet(cache: false, jobs: 2)).digest)
        let pageEntries = { (try? FileManager.default.subpathsOfDirectory(atPath: folder.file("cache")))?.filter { $0.hasSuffix(".page") } ?? [] }
        #expect(!pageEntries().isEmpty, "the cold run keeps the page's row groups")

        // One input replaced by another picture of the same size (a new inode).
        try FileManager.default.removeItem(atPath: folder.file("in/m11.png"))
        try write(folder, "m11.png", seed: 911, width: 60 + 3 * 11, height: 50 + 2 * (11 % 7))
        usleep(300_000)
        let plain = try sheet(cache: false, jobs: 2)
        #expect(plain.digest != cold.digest)
        // The first warm run decodes the new picture only; the second draws nothing at all.
        for (jobs, cached) in [(1, 23), (3, 24)] {
            let warm = try sheet(cache: true, jobs: jobs)
            #expect(warm.digest == plain.digest, "-j \(jobs)")
            #expect(fromCache(warm.stderr) == cached, "-j \(jobs): \(warm.stderr)")
        }

        // Every page entry damaged in its middle: ignored with a warning, the bytes unchanged.
        for name in pageEntries() {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.file("cache/" + name))))
            bytes[bytes.count / 2] ^= 0x10
            try Data(bytes).write(to: URL(fileURLWithPath: folder.file("cache/" + name)))
        }
        let damaged = try sheet(cache: true, jobs: 2, verbose: true)
        #expect(damaged.digest == plain.digest)
        #expect(damaged.stderr.contains("ignored: checksum mismatch"), "\(damaged.stderr)")
        #expect(fromCache(damaged.stderr) == 24, "every thumbnail is still cached: \(damaged.stderr)")
        #expect(try sheet(cache: true, jobs: 2).digest == plain.digest, "the damaged entries were written again")
    }

    @Test func twoRunsSharingOneCacheAtOnceBothWriteTheRightSheet() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        for number in 1...10 { try write(folder, "q\(number).png", seed: UInt64(100 + number)) }
        usleep(300_000)
        let reference = try MasonryExecutable.run(["in", "-o", "ref.png"], in: folder.path)
        #expect(reference.status == 0)
        let runs = try (1...2).map { number in
            try MasonryExecutable.start(["in", "-o", "r\(number).png", "--cache", "shared", "-j", "1"], in: folder.path)
        }
        for (process, output, error) in runs {
            _ = output.fileHandleForReading.readDataToEndOfFile()
            _ = error.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let expected = SHA256.hex([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.file("ref.png")))))
        for name in ["r1.png", "r2.png"] {
            #expect(SHA256.hex([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.file(name))))) == expected, "\(name)")
        }
    }
}
