import FuzzHarness
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
#if MASONRY_LIBFUZZER
import CSanitizerRuntime
#endif

/// One executable for every fuzz target. `scripts/fuzz.sh` builds it with
/// `-sanitize=fuzzer,address` and `-D MASONRY_LIBFUZZER`; then `main` hands the command line to
/// libFuzzer's driver (`LLVMFuzzerRunDriver`, same flags as libFuzzer's own main, which SwiftPM's
/// renamed entry point leaves unlinked), and every input goes to the target named in
/// `MASONRY_FUZZ_TARGET`: an environment variable, because libFuzzer's `-jobs`/`-fork` children
/// inherit it while they rebuild their own command line.
/// `masonry-fuzz --list` prints the targets' names. In an ordinary build it replays files instead: `masonry-fuzz TARGET FILE...` runs each file
/// through the target once, as FuzzReplayTests does, for a debugger or a quick check.
@main
enum FuzzEntry {
    static func main() {
        if CommandLine.arguments.dropFirst() == ["--list"] {
            for target in FuzzTargets.all { print(target.name) }
            return
        }
        #if MASONRY_LIBFUZZER
        // No String local: one left on the way to exit() (which never returns) is never released,
        // and LeakSanitizer's checks during fuzzing may find no pointer to it.
        selected = target(named: getenv("MASONRY_FUZZ_TARGET").map { String(cString: $0) } ?? "")
        var argc = CommandLine.argc
        var argv = Optional(CommandLine.unsafeArgv)
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            FuzzEntry.selected!.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
            return 0
        })
        #else
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count > 1 else { usage() }
        let target = target(named: arguments.first!)
        for path in arguments.dropFirst() {
            guard let file = fopen(path, "rb") else {
                fputs("masonry-fuzz: cannot open \(path)\n", stderr)
                exit(1)
            }
            var bytes = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while case let got = fread(&chunk, 1, chunk.count, file), got > 0 { bytes += chunk[..<got] }
            fclose(file)
            bytes.withUnsafeBytes { target.run($0) }
            print("\(target.name): \(path): returned")
        }
        #endif
    }

    #if MASONRY_LIBFUZZER
    nonisolated(unsafe) static var selected: FuzzTarget?
    #endif

    static func target(named name: String) -> FuzzTarget {
        if let target = FuzzTargets.named(name) { return target }
        fputs("masonry-fuzz: no target '\(name)'\n", stderr)
        usage()
    }

    static func usage() -> Never {
        fputs("usage: masonry-fuzz --list\n"
              + "       MASONRY_FUZZ_TARGET=TARGET masonry-fuzz [libFuzzer flags] (fuzz build)\n"
              + "       masonry-fuzz TARGET FILE... (ordinary build: replays files)\n"
              + "targets: \(FuzzTargets.all.map(\.name).joined(separator: " "))\n", stderr)
        exit(2)
    }
}
