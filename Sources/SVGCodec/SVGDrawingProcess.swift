import CBridgeSupport
import CSVGBridge
import CodecCore

/// librsvg in child processes of the command, so that a drawing has a deadline and a memory
/// bound (librsvg 2.54 cannot be interrupted in process). The command turns it on once at start
/// (`use(executable:)`); a library user, the tests and the fuzz harness draw in process.
///
/// A drawing takes an idle child or starts one, so there are as many as drawings at once, reused
/// from one SVG and one page to the next; a drawing past its deadline is stopped (the child
/// killed, another started when needed) and the file skipped with the reason. Children are
/// forked by a zygote (the command's own executable run with `zygoteArgument`, which loads
/// librsvg once), or, when it cannot fork, started as the executable run with `argument`.
public enum SVGDrawingProcess {
    /// The hidden argument that makes the command a drawing process.
    public static let argument = MSVG_PROCESS_ARGUMENT

    /// The hidden argument that makes the command the zygote of drawing processes.
    public static let zygoteArgument = MSVG_ZYGOTE_ARGUMENT

    /// Serves drawing requests on standard input until it closes; the command's main calls it
    /// when started with `argument`, and exits with what it returns.
    public static func serve() -> Int32 { msvg_process_serve() }

    /// Forks drawing processes on the requests on standard input until it closes; the command's
    /// main calls it when started with `zygoteArgument`, and exits with what it returns.
    public static func serveZygote() -> Int32 { msvg_zygote_serve() }

    /// Draws through child processes of `executable` from now on (call once, before any worker
    /// starts: it is not synchronised).
    public static func use(executable: StaticString) {
        msvg_process_use(UnsafeRawPointer(executable.utf8Start).assumingMemoryBound(to: CChar.self))
    }

    /// The executable SVGDecoder draws through, nil when it draws in process.
    static var executable: UnsafePointer<CChar>? { msvg_process_executable() }

    /// The time a drawing may take, parsing included: 5 s, and 1 s more for each started
    /// megapixel of the canvas (a tile of the default layout: 6 s).
    public static func deadlineSeconds(width: Int, height: Int) -> Int {
        5 + (width * height + 999_999) / 1_000_000
    }

    /// The address space a child may hold while drawing (RLIMIT_AS): `baseAddressSpace` for
    /// itself and librsvg's libraries, fonts and caches, the document's tree as the memory budget
    /// counts it (`SVGHeader.treeBytesPerFileByte` a file byte), and twice the canvas.
    public static func memoryBound(fileBytes: Int, width: Int, height: Int) -> Int {
        baseAddressSpace + fileBytes * SVGHeader.treeBytesPerFileByte + 2 * width * height * 4
    }

    /// A drawing process's own address space besides the document: 512 MiB, where the command
    /// with librsvg, cairo, Pango and fontconfig loaded held 146 MiB (`VmPeak`) after drawing text
    /// and a blur.
    public static let baseAddressSpace = 512 << 20

    /// `bytes` (read and scanned by the caller) drawn at `width` × `height` by an idle child (or
    /// a new child of `executable`): librsvg's reading of the root and straight RGBA rows, top row first.
    static func draw(_ bytes: [UInt8], executable: UnsafePointer<CChar>, naturalWidth: Double, naturalHeight: Double, width: Int, height: Int)
        throws(ImageError) -> (intrinsic: msvg_intrinsic, pixels: [UInt8]) {
        let count = try SVGLibrary.canvasBytes(width: width, height: height)
        var intrinsic = msvg_intrinsic()
        var message = mb_message()
        var status = MB_OK
        let deadline = deadlineSeconds(width: width, height: height)
        let bound = memoryBound(fileBytes: bytes.count, width: width, height: height)
        // Not zeroed first: every byte is the child's on success, and the rows are dropped otherwise.
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { rows, initialized in
            status = bytes.withUnsafeBufferPointer { source in
                msvg_process_draw(executable, source.baseAddress, source.count, naturalWidth, naturalHeight, UInt32(width), UInt32(height),
                                  UInt32(deadline), UInt64(bound), &intrinsic, rows.baseAddress, &message)
            }
            initialized = count
        }
        guard status == MB_OK else { throw ImageError(bridge: status, message: message, fallback: "librsvg cannot draw the SVG") }
        return (intrinsic, pixels)
    }
}
