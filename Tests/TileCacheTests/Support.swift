// Helpers for the cache tests: keys, seeded pixels, listing entry files, and
// running the TileCacheProbe child process.

import Foundation
import TestSupport
import TileCache
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A made-up input identity with target size `width` x `height`.
func testKey(_ index: Int, width: Int = 16, height: Int = 16, variant: UInt64 = 3) -> ThumbnailKey {
    ThumbnailKey(device: 42, inode: 1000 + UInt64(index), size: 5000 + Int64(index), modified: 1_650_000_000_123_456_789,
                 changed: 1_650_000_100_987_654_321, targetWidth: width, targetHeight: height, variant: variant)
}

/// Seeded random pixels for `key`.
func testPixels(_ key: ThumbnailKey, seed: UInt64) -> [UInt8] {
    var random = SplitMix64(seed: seed ^ key.inode &* 0x9E37_79B9)
    return random.bytes(key.pixelBytes!)
}

extension ThumbnailCache {
    /// Whether a lookup hits (a Bool, so a failed expectation does not print the pixels).
    func serves(_ key: ThumbnailKey) -> Bool { lookup(key) != nil }

    func store(_ key: ThumbnailKey, _ pixels: [UInt8]) {
        pixels.withUnsafeBufferPointer { store(key, pixels: $0) }
    }
}

/// Writes a file (replacing it); stops the test run if that is impossible.
func makeFile(_ path: String, _ bytes: [UInt8]) {
    precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
}

/// A fresh cache folder (inside a temporary folder removed at the end).
final class CacheFolder {
    let base = TemporaryFolder("masonry-cache")
    var path: String { base.file("cache") }
    var bytes: [UInt8] { Array(path.utf8) }

    func open(maxBytes: Int = 1 << 30) throws -> ThumbnailCache {
        try ThumbnailCache(directory: bytes, maxBytes: maxBytes)
    }

    /// Paths (relative to the cache folder) of every file whose own name satisfies `include` (entries by default), sorted.
    func files(where include: (String) -> Bool = { $0.hasSuffix(".thumb") }) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var result: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if include((name as NSString).lastPathComponent) { result.append(name) }
        }
        return result.sorted()
    }

    func full(_ relative: String) -> String { path + "/" + relative }

    func read(_ relative: String) -> [UInt8] { Array(FileManager.default.contents(atPath: full(relative)) ?? Data()) }

    func write(_ relative: String, _ bytes: [UInt8]) { makeFile(full(relative), bytes) }

    /// Sum of the entry files' sizes.
    func entryBytes() -> Int {
        files().reduce(0) { total, name in
            var status = stat()
            return total + (lstat(full(name), &status) == 0 ? Int(status.st_size) : 0)
        }
    }

    /// Sets a file's mtime (and atime) to `seconds` since the epoch.
    func setModified(_ relative: String, seconds: Int) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, full(relative), &times, AT_SYMLINK_NOFOLLOW)
    }
}

/// What one TileCacheProbe run printed.
struct ProbeResult: CustomStringConvertible {
    let status: Int32
    let output: String
    let errors: String

    /// The number after "name=" in the output line.
    func value(_ name: String) -> Int? {
        for field in output.split(whereSeparator: { $0 == " " || $0 == "\n" }) where field.hasPrefix(name + "=") {
            return Int(field.dropFirst(name.count + 1))
        }
        return nil
    }

    var description: String { "exit \(status): \(output) \(errors)" }
}

/// Runs the TileCacheProbe executable built beside the test bundle.
enum Probe {
    static var url: URL {
        let bundleFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundleFolder, bundleFolder.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("TileCacheProbe")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/TileCacheProbe")
    }

    /// Starts a probe; call `wait` on the result.
    static func start(_ arguments: [String]) throws -> Running {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return Running(process: process, output: output, errors: errors)
    }

    static func run(_ arguments: [String]) throws -> ProbeResult { try start(arguments).wait() }

    struct Running {
        let process: Process
        let output: Pipe
        let errors: Pipe

        /// Its output is one short line and errors at most one: neither pipe can fill up.
        func wait() -> ProbeResult {
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            let errorData = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return ProbeResult(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                               errors: String(decoding: errorData, as: UTF8.self))
        }
    }
}
