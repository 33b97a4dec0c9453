#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CodecCore
import PNGCodec

/// One parser of outside bytes as a fuzzer drives it. `run` takes any bytes and returns; a bad
/// file is a thrown error, caught inside. It must never crash, hang, or allocate past
/// `DecodeLimits.fuzzing`. libFuzzer (`scripts/fuzz.sh`) and `swift test` (which replays the
/// committed seeds and regression files) call the same `run`.
public struct FuzzTarget: Sendable {
    /// The name `scripts/fuzz.sh` takes, and the folder of its corpus under
    /// `Tests/FuzzReplayTests/Corpus/`.
    public let name: String
    public let run: @Sendable (UnsafeRawBufferPointer) -> Void

    public init(name: String, run: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.name = name
        self.run = run
    }
}

extension DecodeLimits {
    /// The limits every fuzz target decodes under: the product's checks with 16 M pixels and
    /// 16384 px rows at most, so that running out of memory is a finding, never a file's request.
    public static let fuzzing = DecodeLimits(maxPixels: 1 << 24, maxWidth: 1 << 14)
}

/// Hands `bytes` to `body` as an open `InputFile` (an unlinked file on tmpfs, so the codecs read
/// it through the same positioned reads as a real file). Returns nil if `body` throws.
public func withInputFile<T>(_ bytes: UnsafeRawBufferPointer, _ body: (InputFile) throws -> T) -> T? {
    var template = Array("\(FuzzScratch.folder)/masonry-fuzz-XXXXXX".utf8CString)
    let descriptor = mkstemp(&template)
    guard descriptor >= 0 else { fatalError("mkstemp: \(String(cString: strerror(errno)))") }
    unlink(template)
    defer { close(descriptor) }
    var written = 0
    while written < bytes.count {
        let got = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
        guard got > 0 else { fatalError("write to a memory file: \(String(cString: strerror(errno)))") }
        written += got
    }
    guard let file = try? InputFile(path: "/proc/self/fd/\(descriptor)") else { return nil }
    return try? body(file)
}

/// Where targets make their scratch files: tmpfs when there is one.
enum FuzzScratch {
    static let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
}
