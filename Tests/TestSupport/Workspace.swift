import Foundation
import CodecCore
import PNGCodec
import WorkerThreads

/// A fresh folder under the system temporary folder, removed on deinit.
public final class TemporaryFolder: @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    public let url: URL
    public var path: String { url.path }

    public init(_ label: String = "masonry-test") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside this folder.
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// What a finished `masonry` process did.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String
    public init(status: Int32, standardOutput: String, standardError: String) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Lines of standard error.
    public var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }
}

/// Runs the `masonry` executable that `swift build` put beside the test bundle.
public enum MasonryExecutable {
    public static var url: URL {
        let bundleFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundleFolder, bundleFolder.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("masonry")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/masonry")
    }

    /// Starts `masonry` with `arguments` in `folder` (the current folder if nil), with this
    /// process's environment plus `environment`.
    public static func start(_ arguments: [String], in folder: String? = nil,
                             environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        return (process, output, error)
    }

    /// Runs `masonry` to completion.
    public static func run(_ arguments: [String], in folder: String? = nil,
                           environment: [String: String] = [:]) throws -> ProcessResult {
        let (process, output, error) = try start(arguments, in: folder, environment: environment)
        let errorData = ErrorCollector(error)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus,
                             standardOutput: String(decoding: outputData, as: UTF8.self),
                             standardError: String(decoding: errorData.wait(), as: UTF8.self))
    }
}

/// Reads a pipe to its end on another thread, so neither pipe can fill up and block the child.
private struct ErrorCollector {
    private let read: ReadBytes
    private let reader: ThreadGroup

    init(_ pipe: Pipe) {
        let read = ReadBytes()
        self.read = read
        reader = ThreadGroup.start(1) { _ in read.store(pipe.fileHandleForReading.readDataToEndOfFile()) }
    }

    func wait() -> Data {
        reader.join()
        return read.bytes
    }
}

/// What the reading thread hands over.
private final class ReadBytes: Sendable {
    private let data = Lock(Data())
    func store(_ bytes: Data) { data.withLock { $0 = bytes } }
    var bytes: Data { data.withLock { $0 } }
}

/// Deterministic pictures for tests, written with our encoder.
public enum TestImages {
    /// A photo-like RGBA8 image: gradients plus seeded noise; `alpha` nil for opaque.
    public static func photoLike(width: Int, height: Int, seed: UInt64, alpha: UInt8? = nil) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let phase = Int(random.next() % 256)
        for y in 0..<height {
            for x in 0..<width {
                let noise = Int(random.next() % 24)
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(clamping: (x * 255 / max(width, 1) + noise + phase) % 256)
                pixels[offset + 1] = UInt8(clamping: (y * 255 / max(height, 1) + noise) % 256)
                pixels[offset + 2] = UInt8(clamping: ((x + y) * 128 / max(width + height, 1) + noise * 2) % 256)
                pixels[offset + 3] = alpha ?? 255
            }
        }
        return pixels
    }

    /// A flat RGBA8 image.
    public static func flat(width: Int, height: Int, rgba: [UInt8]) -> [UInt8] {
        Array([[UInt8]](repeating: rgba, count: width * height).joined())
    }

    /// Writes RGBA8 pixels as a PNG file.
    public static func write(_ pixels: [UInt8], width: Int, height: Int, to path: String) throws {
        let bytes = try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .rgba8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
