import MasonryCLI
import MasonrySheet
#if canImport(Glibc)
import Glibc
#endif

SignalCleanup.install()
// A closed stderr pipe must give a failed write, not kill the run halfway through the sheet.
signal(SIGPIPE, SIG_IGN)
let arguments = (1..<Int(CommandLine.argc)).map { index in
    Array(UnsafeBufferPointer(start: UnsafeRawPointer(CommandLine.unsafeArgv[index]!).assumingMemoryBound(to: UInt8.self),
                              count: strlen(CommandLine.unsafeArgv[index]!)))
}
exit(MasonryCommand.run(arguments: arguments))
