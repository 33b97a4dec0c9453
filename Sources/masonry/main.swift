import MasonryCLI
import MasonrySheet
import SVGCodec
#if canImport(Glibc)
import Glibc
#endif

// A child the command started to draw SVGs, or to fork the processes that draw them
// (SVGDrawingProcess): nothing else of the command runs.
if CommandLine.argc == 2 {
    let argument = String(cString: CommandLine.unsafeArgv[1]!)
    if argument == SVGDrawingProcess.argument { exit(SVGDrawingProcess.serve()) }
    if argument == SVGDrawingProcess.zygoteArgument { exit(SVGDrawingProcess.serveZygote()) }
}
SVGDrawingProcess.use(executable: "/proc/self/exe")
SignalCleanup.install()
// A closed stderr pipe must give a failed write, not kill the run halfway through the sheet.
signal(SIGPIPE, SIG_IGN)
let arguments = (1..<Int(CommandLine.argc)).map { index in
    Array(UnsafeBufferPointer(start: UnsafeRawPointer(CommandLine.unsafeArgv[index]!).assumingMemoryBound(to: UInt8.self),
                              count: strlen(CommandLine.unsafeArgv[index]!)))
}
exit(MasonryCommand.run(arguments: arguments))
