// End-to-end: the output side. A failed or interrupted run exits with a clear
// message, leaves an earlier sheet byte-identical and no temporary file behind.

import Foundation
import Testing
@testable import PNGCodec
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

@Suite(.serialized) struct OutputTests {
    /// An earlier output of Masonry's, kept byte for byte by failed runs: it ends in Masonry's
    /// mark (the `mnRY` chunk and `IEND`), so a run may replace it (SPEC §5).
    static let oldSheet: [UInt8] = Array("an earlier sheet, kept byte for byte\n".utf8) + ownMark
    /// The last bytes of every PNG Masonry writes.
    static let ownMark: [UInt8] = PNGBytes.chunk("mnRY", Array("masonry".utf8)) + PNGBytes.chunk("IEND", [])

    static func temporaries(in folder: String) -> [String] {
        listFolder(folder).filter { $0.contains(".masonry-") && $0.hasSuffix(".tmp") }
    }

    /// A folder of good images.
    static func inputs(_ folder: ScratchFolder, count: Int = 3) -> String {
        let input = folder.mkdir("in")
        for i in 0..<count { folder.write("in/\(i).png", PNGBytes.solid(width: 20, height: 15 + i, Sample.goodColor)) }
        return input
    }

    @Test func outputFolderMissing() {
        let folder = ScratchFolder("out")
        let input = Self.inputs(folder)
        let target = folder.sub("no/such/folder/sheet.png")
        let result = Masonry.run([input, "-o", target])
        note("output folder missing", result)
        SheetCheck.basics(result, label: "missing folder", status: 64)
        #expect(result.stderrLines == ["masonry: error: cannot write \(target): folder \(folder.sub("no/such/folder")) does not exist"],
                "\(result.stderr)")
    }

    @Test func outputPathIsAFolder() {
        let folder = ScratchFolder("out")
        let input = Self.inputs(folder)
        let target = folder.mkdir("sheet.png")
        let result = Masonry.run([input, "-o", target])
        note("output path is a folder", result)
        SheetCheck.basics(result, label: "folder target", status: 64)
        #expect(result.stderrLines == ["masonry: error: cannot write \(target): it is a folder"], "\(result.stderr)")
        #expect(listFolder(target).isEmpty && Self.temporaries(in: folder.path).isEmpty)
    }

    /// The output's parent is a file, not a folder.
    @Test func outputParentIsAFile() {
        let folder = ScratchFolder("out")
        let input = Self.inputs(folder)
        let file = folder.write("plain", [1, 2, 3])
        let result = Masonry.run([input, "-o", file + "/sheet.png"])
        note("output parent is a file", result)
        SheetCheck.basics(result, label: "parent is a file", status: 64)
        #expect(result.stderrLines == ["masonry: error: cannot write \(file)/sheet.png: \(file) is not a folder"], "\(result.stderr)")
        #expect(readFile(file) == [1, 2, 3])
    }

    @Test(.enabled(if: !runningAsRoot, "running as root: a mode-555 folder is still writable by root; the read-only mount test covers this"))
    func outputFolderNotWritable() {
        let folder = ScratchFolder("out")
        let input = Self.inputs(folder)
        let locked = folder.mkdir("locked")
        writeRaw(Array((locked + "/sheet.png").utf8), Self.oldSheet)
        chmod(locked, 0o555)
        let result = Masonry.run([input, "-o", locked + "/sheet.png"])
        chmod(locked, 0o755)
        note("output folder mode 555", result)
        SheetCheck.basics(result, label: "not writable", status: 1)
        #expect(result.stderrLines == ["masonry: error: cannot write \(locked)/sheet.png: Permission denied"], "\(result.stderr)")
        #expect(readFile(locked + "/sheet.png") == Self.oldSheet)
    }

    /// Mounts a tmpfs on a fresh folder of `folder`; nil when mounting is not permitted.
    static func mountTmpfs(_ folder: ScratchFolder, _ options: String) -> String? {
        let point = folder.mkdir("mnt")
        let result = mount("tmpfs", point, "tmpfs", 0, options)
        return result == 0 ? point : nil
    }

    static func unmount(_ point: String) { _ = umount2(point, Int32(MNT_DETACH)) }

    /// Reports, without failing the run, that a check cannot run on this machine and why.
    private func notTestedHere(_ reason: String) {
        withKnownIssue(Comment(rawValue: reason)) { Issue.record("not tested here") }
    }

    @Test func readOnlyFileSystem() throws {
        let folder = ScratchFolder("ro")
        let input = Self.inputs(folder)
        guard let point = Self.mountTmpfs(folder, "size=64k") else {
            return notTestedHere("mount(2) is not permitted here (not root or no CAP_SYS_ADMIN): read-only output not tested")
        }
        defer { Self.unmount(point) }
        writeRaw(Array((point + "/sheet.png").utf8), Self.oldSheet)
        try #require(mount("tmpfs", point, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=64k") == 0)
        let result = Masonry.run([input, "-o", point + "/sheet.png"])
        note("read-only file system", result)
        SheetCheck.basics(result, label: "read-only", status: 1)
        #expect(result.stderrLines == ["masonry: error: cannot write \(point)/sheet.png: Read-only file system"], "\(result.stderr)")
        #expect(readFile(point + "/sheet.png") == Self.oldSheet)
    }

    /// The disk fills while the sheet is written: a 64 KiB tmpfs and a sheet of noise bigger than that.
    @Test func diskFullMidWrite() throws {
        let folder = ScratchFolder("full")
        let input = folder.mkdir("in")
        var rng = SplitMix64(seed: 7)
        for i in 0..<2 {
            folder.write("in/noise-\(i).png", PNGBytes.rgba8(width: 150, height: 150, pixels: rng.bytes(150 * 150 * 4)))
        }
        guard let point = Self.mountTmpfs(folder, "size=64k") else {
            return notTestedHere("mount(2) is not permitted here (not root or no CAP_SYS_ADMIN): disk-full not tested")
        }
        defer { Self.unmount(point) }
        writeRaw(Array((point + "/sheet.png").utf8), Self.oldSheet)
        for manifest in [false, true] {
            let args = [input, "-o", point + "/sheet.png", "-w", "400", "--compression", "0"]
                + (manifest ? ["--manifest", point + "/m.json"] : [])
            let result = Masonry.run(args)
            note("disk full (64 KiB tmpfs)\(manifest ? " + manifest" : "")", result)
            SheetCheck.basics(result, label: "disk full", status: 1)
            #expect(result.stderrLines == ["masonry: error: cannot write \(point)/sheet.png: write failed: No space left on device"],
                    "\(result.stderr)")
            #expect(readFile(point + "/sheet.png") == Self.oldSheet)
            #expect(listFolder(point).sorted() == ["sheet.png"], "left behind: \(listFolder(point))")
        }
    }

    /// An existing device node as the output must not be replaced by a file.
    @Test func deviceAsOutput() throws {
        let folder = ScratchFolder("dev")
        let input = Self.inputs(folder)
        let device = folder.sub("full.png")
        // A private copy of /dev/full (char 1:7), so a bug cannot replace the real one.
        guard mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 7)) == 0 else {
            return notTestedHere("mknod(2) is not permitted here: device output not tested")
        }
        let result = Masonry.run([input, "-o", device])
        note("output is a device (/dev/full copy)", result)
        SheetCheck.basics(result, label: "device", status: 1)
        #expect(result.stderrLines == ["masonry: error: cannot write \(device): it is not a regular file"], "\(result.stderr)")
        var status = stat()
        #expect(lstat(device, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR, "the device node was replaced")
        #expect(Self.temporaries(in: folder.path).isEmpty)
    }

    /// A FIFO as the output (any user can make one): refused, never replaced, never opened
    /// (opening a FIFO for writing would block until a reader comes).
    @Test func fifoAsOutput() throws {
        let folder = ScratchFolder("fifo-out")
        let input = Self.inputs(folder)
        let fifo = folder.sub("sheet.png")
        try #require(mkfifo(fifo, 0o644) == 0)
        for output in ["-o", "--manifest"] {
            let args = output == "-o" ? [input, "-o", fifo] : [input, "-o", folder.sub("real.png"), "--manifest", fifo]
            let result = Masonry.run(args, timeout: 10)
            note("output is a FIFO (\(output))", result)
            SheetCheck.basics(result, label: "fifo output", status: 1)
            #expect(result.stderrLines == ["masonry: error: cannot write \(fifo): it is not a regular file"], "\(result.stderr)")
            var status = stat()
            #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
            #expect(Self.temporaries(in: folder.path).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: folder.sub("real.png")), "sheet written although the manifest cannot be")
        }
    }

    /// The sheet (and manifest) inside the input folder are never read as inputs.
    @Test func outputInsideInputFolder() throws {
        let folder = ScratchFolder("inside")
        let input = Self.inputs(folder)
        for spelling in ["\(input)/sheet.png", "\(input)/./sheet.png", "\(input)/../in/sheet.png"] {
            let result = Masonry.run([input, "-o", spelling, "--manifest", input + "/m.json"])
            SheetCheck.basics(result, label: "inside")
            #expect(result.stderrLines.count == 1 && result.stderrLines[0].contains("3 images, 0 skipped"), "\(result.stderr)")
            let (drawn, _, _) = try SheetCheck.manifest(input + "/m.json")
            #expect(drawn.sorted() == (0..<3).map { "\(input)/\($0).png" })
        }
        // Upper-case name, and a link to the sheet: still the same file, still excluded.
        _ = symlink(input + "/sheet.png", input + "/LINK.PNG")
        let result = Masonry.run([input, "-o", input + "/sheet.png"])
        note("output inside input folder (+ link to it)", result)
        SheetCheck.basics(result, label: "inside + link")
        #expect(result.stderrLines.count == 1 && result.stderrLines[0].contains("3 images, 0 skipped"), "\(result.stderr)")
        #expect(Self.temporaries(in: input).isEmpty)
    }

    // MARK: Signals

    /// A folder that takes a few seconds to render in debug: links to one big noise image.
    static func slowInputs(_ folder: ScratchFolder) -> String {
        let input = folder.mkdir("in")
        let side = 1000
        var rng = SplitMix64(seed: 42)
        var pixels = [UInt8](repeating: 255, count: side * side * 4)
        pixels.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in 0..<words.count { words[i] = rng.next() | 0xFF00_0000_FF00_0000 }
        }
        let png = try! PNGEncoder.encode(pixels: pixels, width: side, height: side, format: .rgba8, settings: .init(level: 0))
        let original = folder.write("noise.png", png)
        for i in 0..<40 { _ = symlink(original, "\(input)/\(i).png") }
        return input
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func interrupted(_ signal: Int32) throws {
        let folder = ScratchFolder("sig")
        let input = Self.slowInputs(folder)
        let out = folder.mkdir("out")
        writeRaw(Array((out + "/sheet.png").utf8), Self.oldSheet)
        writeRaw(Array((out + "/m.json").utf8), Self.oldSheet)
        var sentAt: Double?
        let result = Masonry.run([input, "-o", out + "/sheet.png", "--manifest", out + "/m.json", "-j", "1"], timeout: 60) { pid, now in
            // Send the signal once the temporary files exist (the run is writing).
            if sentAt == nil, !Self.temporaries(in: out).isEmpty {
                usleep(100_000)
                kill(pid, signal)
                sentAt = now
            }
        }
        let name = String(cString: strsignal(signal))
        note("\(name) mid-run (sent at \(String(format: "%.2f", sentAt ?? -1)) s)", result)
        try #require(sentAt != nil, "the run ended before its temporary files appeared: \(result)")
        #expect(result.status == 128 + signal, "\(result)")
        #expect(!result.timedOut)
        #expect(result.seconds - sentAt! < 1.0, "took \(result.seconds - sentAt!) s to stop")
        #expect(readFile(out + "/sheet.png") == Self.oldSheet)
        #expect(readFile(out + "/m.json") == Self.oldSheet)
        #expect(listFolder(out).sorted() == ["m.json", "sheet.png"], "left behind: \(listFolder(out))")
    }
}
