import CodecCore
import PNGCodec
import WorkerThreads
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Errors that are the run's fault, not the file's: the process or the system
/// ran out of descriptors or memory. Such an error never turns an input into a
/// skipped one; the run stops instead (issue #18).
enum RunFault {
    /// The message for a run fault, or nil when `code` may well be the file's fault.
    static func describe(_ code: Int32) -> String? {
        switch code {
        case EMFILE: "too many open files in this process (raise `ulimit -n` or use fewer --jobs)"
        case ENFILE: "too many open files in the system"
        case ENOMEM: "out of kernel memory"
        default: nil
        }
    }

    /// The run fault behind a codec error from opening a file, if it is one.
    static func code(of error: ImageError) -> Int32? {
        guard case .fileSystem(let code) = error.failure, describe(code) != nil else { return nil }
        return code
    }
}

/// Opens the run's input files, by paths of any length, for the header pass
/// and the renderer, and keeps the file's faults apart from the run's.
///
/// When opening fails for lack of descriptors or memory while other inputs
/// opened here are still open, the opener waits for one of them to close and
/// tries again, so a low `ulimit -n` means fewer files open at once, not lost
/// inputs. When none is open, nothing can be freed: the fault is recorded,
/// every later open fails at once, and `checkRun()` throws it.
public final class InputOpener: Sendable {
    /// How many files opened here are open, and the run fault once one was met.
    private struct State {
        var openCount = 0
        var fault: SheetError?
    }

    private let state = Lock(State())
    /// Broadcast (while holding it) each time a file closes; an opener waiting for that checks
    /// `openCount` while holding it too, so no close is missed between the check and the wait.
    private let fileClosed = Condition()

    public init() {}

    /// Calls `body` with the open file at `path` and closes the file when
    /// `body` returns (`body` must not keep it). Throws a `ImageError` when the
    /// file cannot be opened (after a run fault the error says so and
    /// `checkRun()` throws), or what `body` throws.
    public func withFile<Result>(_ path: RawPath, _ body: (InputFile) throws -> Result) throws -> Result {
        var file: InputFile? = try open(path)
        defer {
            file = nil   // closes the descriptor before others are told it is free
            state.withLock { $0.openCount -= 1 }
            fileClosed.withLock { fileClosed.broadcast() }
        }
        return try body(file!)
    }

    /// Throws the run fault met while opening inputs, if any.
    public func checkRun() throws(SheetError) {
        if let fault = state.withLock({ $0.fault }) { throw fault }
    }

    private func open(_ path: RawPath) throws(ImageError) -> InputFile {
        var retriesWithNothingOpen = 0
        while true {
            if let fault = state.withLock({ $0.fault }) { throw ImageError(.io, fault.message) }
            let error: ImageError
            do {
                let file = try path.openInputFile()
                state.withLock { $0.openCount += 1 }
                return file
            } catch let caught {
                error = caught
            }
            guard let code = RunFault.code(of: error) else { throw error }
            fileClosed.lock()
            if state.withLock({ $0.openCount }) > 0 {
                // Another input will close soon: wait for it, then try again.
                fileClosed.wait(seconds: 0.1)
                fileClosed.unlock()
                continue
            }
            fileClosed.unlock()
            retriesWithNothingOpen += 1
            if retriesWithNothingOpen < 3 {
                usleep(10_000)
                continue
            }
            let recorded = state.withLock { state -> SheetError? in
                guard state.openCount == 0 else { return nil }   // one was opened meanwhile: wait for it
                let recorded = state.fault ?? SheetError("cannot open \(path.displayName): \(RunFault.describe(code) ?? error.reason)")
                state.fault = recorded
                return recorded
            }
            guard let recorded else { continue }
            throw ImageError(.io, recorded.message)
        }
    }
}

extension RawPath {
    /// Opens this path as a codec input. A path longer than PATH_MAX is
    /// reached through its folder, opened piece by piece (`RawPath.open`),
    /// and the name `/proc/self/fd/<folder>/<rest>`, which the kernel
    /// resolves relative to that open folder.
    func openInputFile() throws(ImageError) -> InputFile {
        guard bytes.count >= Self.kernelPathLimit else { return try InputFile(pathBytes: bytes) }
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))!   // a path this long has slashes
        let folder = RawPath(bytes: Array(bytes[..<slash])).open(RawPath.pathOnly | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else {
            let code = errno
            throw ImageError(.io, code == ENOENT ? "no such file" : String(cString: strerror(code)))
        }
        defer { close(folder) }
        return try InputFile(pathBytes: Array("/proc/self/fd/\(folder)/".utf8) + bytes[(slash + 1)...])
    }
}
