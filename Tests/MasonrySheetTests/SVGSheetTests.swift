import Foundation
import PNGCodec
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SVG through the command, as a user runs it: the drawing is rendered at its tile's size over
/// a transparent canvas and composited on the sheet's background; references outside the
/// document (a FIFO beside it) open nothing; compare reads SVG folders.
@Suite struct SVGSheetTests {
    static let sample = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/Formats/sample.svg")

    static func pixel(_ sheet: (width: Int, height: Int, pixels: [UInt8]), _ x: Int, _ y: Int) -> [UInt8] {
        let at = (y * sheet.width + x) * 4
        return Array(sheet.pixels[at..<at + 4])
    }

    /// sample.svg (48×32, a rounded dark rectangle inset 1 px, transparent corners) drawn at
    /// 96×64 (twice its size: vectors are drawn, not enlarged): the manifest names the format and
    /// the intrinsic size, the transparent corner shows the background exactly, the inside is the
    /// drawing's dark blue, and the edge is sharp (a 2× enlargement of a raster would blur it).
    @Test func anSVGIsDrawnAtItsTileSizeOverTheBackground() throws {
        let folder = TemporaryFolder()
        try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("icon.svg"))
        let run = try MasonryExecutable.run(["icon.svg", "-o", "s.png", "--manifest", "m.json", "--width", "96", "--columns", "1",
                                             "--margin", "0", "--gap", "0", "--background", "#336699"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("m.json")))) as? [String: Any]
        let item = try #require((manifest?["items"] as? [[String: Any]])?.first)
        #expect(item["format"] as? String == "SVG")
        #expect(item["sourceWidth"] as? Int == 48 && item["sourceHeight"] as? Int == 32, "\(item)")
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("s.png"))
        #expect(sheet.width == 96)
        let tileTop = try #require(item["y"] as? Int), tileLeft = try #require(item["x"] as? Int)
        #expect(Self.pixel((sheet.width, sheet.height, sheet.pixels), tileLeft, tileTop) == [0x33, 0x66, 0x99, 255], "corner shows the background")
        #expect(Self.pixel((sheet.width, sheet.height, sheet.pixels), tileLeft + 10, tileTop + 40) == [0x10, 0x20, 0x4a, 255], "inside is the drawing's fill")
        // The rectangle's left edge is at x = 2 of 96 user units, drawn at 96 px: pixel 1 is background, pixel 2 fill.
        #expect(Self.pixel((sheet.width, sheet.height, sheet.pixels), tileLeft + 1, tileTop + 32) == [0x33, 0x66, 0x99, 255])
        #expect(Self.pixel((sheet.width, sheet.height, sheet.pixels), tileLeft + 2, tileTop + 32) == [0x10, 0x20, 0x4a, 255])
    }

    /// `source` compressed by gzip itself into `destination` (an .svgz as Inkscape writes one).
    static func gzip(_ source: String, to destination: String) throws {
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["--no-name", "--stdout", source]
        try #require(FileManager.default.createFile(atPath: destination, contents: nil))
        gzip.standardOutput = FileHandle(forWritingAtPath: destination)
        try gzip.run()
        gzip.waitUntilExit()
        try #require(gzip.terminationStatus == 0)
    }

    /// An SVG whose image is a FIFO beside it, plain and gzip-compressed (.svgz): the run ends
    /// (librsvg opens nothing outside the document), both are drawn, and the FIFO itself, met by
    /// the folder scan, is skipped.
    @Test func aReferenceToAFIFOOpensNothingAndTheRunEnds() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        try #require(mkfifo(folder.file("in/pipe.png"), 0o644) == 0)
        try "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'><image href='pipe.png' width='40' height='20'/><image href='\(folder.file("in/pipe.png"))' width='40' height='20'/><rect width='10' height='10' fill='#0a0'/></svg>"
            .write(toFile: folder.file("in/fifo.svg"), atomically: true, encoding: .utf8)
        try Self.gzip(folder.file("in/fifo.svg"), to: folder.file("in/fifo-packed.svgz"))
        let start = ContinuousClock.now
        let run = try MasonryExecutable.run(["in", "-o", "s.png", "--manifest", "m.json"], in: folder.path)
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.contains("masonry: skipped in/pipe.png: is a FIFO, not a regular file"), "\(run.standardError)")
        #expect(run.errorLines.last?.contains("2 images") == true, "\(run.standardError)")
        #expect(!run.standardError.contains("fifo.svg") && !run.standardError.contains("fifo-packed.svgz"),
                "both SVGs are drawn without a warning: \(run.standardError)")
    }

    /// A hostile SVG beside a good one: skipped with its reason, the good one drawn, nothing printed by librsvg or GLib.
    @Test func aHostileSVGIsSkippedWithItsReason() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("in/good.svg"))
        let fanout = "<svg xmlns='http://www.w3.org/2000/svg' width='9' height='9'><rect id='a0' width='1' height='1'/>"
            + (1...6).map { i in "<g id='a\(i)'>" + String(repeating: "<use href='#a\(i - 1)'/>", count: 10) + "</g>" }.joined() + "</svg>"
        try fanout.write(toFile: folder.file("in/bomb.svg"), atomically: true, encoding: .utf8)
        try "<svg xmlns='http://www.w3.org/2000/svg' width='9' height='9'><rect></svg>".write(toFile: folder.file("in/broken.svg"), atomically: true, encoding: .utf8)
        let run = try MasonryExecutable.run(["in", "-o", "s.png"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.contains("masonry: skipped in/bomb.svg: SVG draws more than 100000 elements (references expanded)"), "\(run.standardError)")
        #expect(run.errorLines.contains { $0.hasPrefix("masonry: skipped in/broken.svg: XML parse error: ") }, "\(run.standardError)")
        #expect(run.errorLines.allSatisfy { $0.hasPrefix("masonry: ") }, "only Masonry's own lines: \(run.standardError)")
    }

    /// A gzip-compressed SVG (.svgz, made here by gzip itself) in a folder beside its plain file:
    /// the folder scan finds it, the manifest names it SVG at the same size, and its tile is the
    /// plain file's, pixel for pixel.
    @Test func aCompressedSVGIsDrawnLikeItsPlainFile() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("in/a-plain.svg"))
        try Self.gzip(Self.sample.path, to: folder.file("in/b-packed.svgz"))
        let run = try MasonryExecutable.run(["in", "-o", "s.png", "--manifest", "m.json", "--width", "200", "--columns", "2",
                                             "--margin", "0", "--gap", "0", "--background", "#336699"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("m.json")))) as? [String: Any]
        let items = try #require(manifest?["items"] as? [[String: Any]])
        #expect(items.map { $0["format"] as? String } == ["SVG", "SVG"], "\(items)")
        #expect(items.allSatisfy { $0["sourceWidth"] as? Int == 48 && $0["sourceHeight"] as? Int == 32 }, "\(items)")
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("s.png"))
        func tile(_ item: [String: Any]) throws -> [UInt8] {
            let x = try #require(item["x"] as? Int), y = try #require(item["y"] as? Int)
            let width = try #require(item["width"] as? Int), height = try #require(item["height"] as? Int)
            var pixels: [UInt8] = []
            for row in y..<y + height {
                let start = 4 * (row * sheet.width + x)
                pixels += sheet.pixels[start..<start + 4 * width]
            }
            return pixels
        }
        let plain = try tile(items[0]), packed = try tile(items[1])
        #expect(plain == packed, "the .svgz tile differs from the .svg tile")
        #expect(Set(plain).count > 3, "the tile holds the drawing, not the background alone")
    }

    /// compare reads SVG through the table: an unchanged drawing and a changed one.
    @Test func compareReadsSVGFolders() throws {
        let folder = TemporaryFolder()
        for side in ["base", "cur"] {
            try FileManager.default.createDirectory(atPath: folder.file(side), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("\(side)/same.svg"))
        }
        let drawing = try String(contentsOf: Self.sample, encoding: .utf8)
        try drawing.write(toFile: folder.file("base/changed.svg"), atomically: true, encoding: .utf8)
        try drawing.replacingOccurrences(of: "#f2f2f2", with: "#ff0000").write(toFile: folder.file("cur/changed.svg"), atomically: true, encoding: .utf8)
        let run = try MasonryExecutable.run(["compare", "base", "cur", "-o", "review.png", "--report", "report.json"], in: folder.path)
        #expect(run.status == 1, "stderr: \(run.standardError)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("report.json")))) as? [String: Any]
        let statuses = (report?["items"] as? [[String: Any]] ?? []).map { "\($0["status"] ?? "") \($0["path"] ?? "")" }.sorted()
        #expect(statuses == ["changed changed.svg", "unchanged same.svg"], "\(statuses)")
    }

    /// The same bytes for any --jobs: twelve SVGs (gradients, transparency, text through Pango)
    /// drawn by one worker and by four at once.
    @Test func theSheetIsTheSameForAnyJobs() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        let drawing = try String(contentsOf: Self.sample, encoding: .utf8)
        for index in 0..<12 {
            let text = "<text x='8' y='40' font-size='\(10 + index)' fill='#fff'>Tile \(index) ÄÖ</text></svg>"
            try drawing.replacingOccurrences(of: "</svg>", with: text).replacingOccurrences(of: "width=\"48\"", with: "width=\"\(48 + index * 7)\"")
                .write(toFile: folder.file("in/\(index).svg"), atomically: true, encoding: .utf8)
        }
        var sheets: [Data] = []
        for jobs in ["1", "4"] {
            let run = try MasonryExecutable.run(["in", "-o", "s\(jobs).png", "--jobs", jobs, "--width", "600"], in: folder.path)
            #expect(run.status == 0, "stderr: \(run.standardError)")
            sheets.append(try Data(contentsOf: URL(fileURLWithPath: folder.file("s\(jobs).png"))))
        }
        #expect(sheets[0] == sheets[1], "the sheet differs between --jobs 1 and --jobs 4")
    }

    /// One path of `segments` long pseudo-random segments, stroked and filled even-odd: cairo
    /// takes minutes over 100 000 of them at 300×300 (10 000 took 15 s on this project's machine).
    static func slowDrawing(segments: Int) -> String {
        var state: UInt64 = 12345
        func coordinate() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % 10_000 - 5_000
        }
        var path = "M0,0"
        path.reserveCapacity(segments * 12)
        for _ in 0..<segments { path += "L\(coordinate()),\(coordinate())" }
        return "<svg xmlns='http://www.w3.org/2000/svg' width='300' height='300'><path d='\(path)' stroke='#000' stroke-width='3' fill='#f00' fill-rule='evenodd'/></svg>"
    }

    /// A folder of a drawing librsvg would take minutes over, then a good one.
    static func folderWithSlowDrawing() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        try slowDrawing(segments: 100_000).write(toFile: folder.file("in/a-slow.svg"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("in/b-good.svg"))
        return folder
    }

    /// A drawing past its deadline (6 s for a tile under a megapixel) is stopped and skipped
    /// with the reason; the SVG after it, on the same worker, is drawn by a new drawing process.
    @Test func aDrawingPastItsDeadlineIsSkippedWithItsReason() throws {
        let folder = try Self.folderWithSlowDrawing()
        let start = ContinuousClock.now
        let run = try MasonryExecutable.run(["in", "-o", "s.png", "--jobs", "1"], in: folder.path)
        #expect(ContinuousClock.now - start < .seconds(60))
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.contains("masonry: skipped in/a-slow.svg: drawing the SVG took longer than 6 s"), "\(run.standardError)")
        #expect(run.errorLines.last?.contains("1 image, 1 skipped") == true, "\(run.standardError)")
    }

    /// The children of `process` (of each of its threads).
    static func children(of process: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(process)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { pid_t($0) }
        }
    }

    /// The zygote a running command started and the drawing process it forked, once the drawing
    /// process draws (nil after 30 s). A drawing process that merely exists may not have been
    /// handed to the command yet: killed then, or its zygote killed, the command would rightly
    /// spawn another in its place, and the test would see that one's end instead. One that has
    /// spent CPU time has the command's request, so the command holds its socket.
    static func drawingProcesses(of command: pid_t) -> (zygote: pid_t, drawing: pid_t)? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(30) {
            // A child once it runs the zygote (before its exec, it is still the command).
            let zygote = children(of: command).first { id in
                ((try? String(contentsOfFile: "/proc/\(id)/cmdline", encoding: .utf8)) ?? "").contains("--internal-svg-drawing-zygote")
            }
            if let zygote, let drawing = children(of: zygote).first, cpuTicks(of: drawing) >= 5 { return (zygote, drawing) }
            usleep(20_000)
        }
        return nil
    }

    /// The fields of `/proc/PID/stat` after the process's name, from its state (field 3 of
    /// proc(5), at index 0 here) on; empty when the process is gone.
    static func statFields(of process: pid_t) -> [Substring] {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return [] }
        return stat[stat.index(after: end)...].split(separator: " ")
    }

    /// The CPU time `process` has spent (user and system, fields 14 and 15: clock ticks of
    /// 10 ms on Linux), 0 when it is gone.
    static func cpuTicks(of process: pid_t) -> Int {
        let fields = statFields(of: process)
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }

    /// Whether `process` still runs: it exists and is not a zombie (one whose parent died waits
    /// for init to reap it).
    static func runs(_ process: pid_t) -> Bool {
        guard let state = statFields(of: process).first else { return false }
        return state != "Z"
    }

    /// The drawing process (forked by the zygote) holds nothing but its socket and /dev/null, and
    /// its end by a signal (SIGSEGV sent from here while it draws) is a skip with the reason, not
    /// masonry's end; the next SVG is drawn.
    @Test func theDrawingProcessOpensNothingAndItsCrashIsASkip() throws {
        let folder = try Self.folderWithSlowDrawing()
        let (process, output, error) = try MasonryExecutable.start(["in", "-o", "s.png", "--jobs", "1"], in: folder.path)
        let drawing = try #require(Self.drawingProcesses(of: process.processIdentifier), "no drawing process started").drawing
        // Loading librsvg's libraries and fonts opens files for a moment; an inherited descriptor would stay.
        var descriptors: [String] = []
        let looked = ContinuousClock.now
        repeat {
            descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(drawing)/fd").sorted()
            if descriptors != ["0", "1", "2"] { usleep(10_000) }
        } while descriptors != ["0", "1", "2"] && ContinuousClock.now - looked < .seconds(3)
        #expect(descriptors == ["0", "1", "2"])
        for descriptor in ["1", "2"] {
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(drawing)/fd/\(descriptor)")) == "/dev/null")
        }
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(drawing)/fd/0"))?.hasPrefix("socket:") == true)
        kill(drawing, SIGSEGV)
        Self.expectOnlyTheSlowDrawingSkipped((process, output, error), reason: "librsvg ended by signal 11 (SIGSEGV) while drawing the SVG")
    }

    /// Waits for a command started on `folderWithSlowDrawing()` to end, and checks that it ended
    /// well, with the slow drawing skipped for `reason` and the good one drawn.
    static func expectOnlyTheSlowDrawingSkipped(_ started: (process: Process, output: Pipe, error: Pipe), reason: String,
                                                sourceLocation: SourceLocation = #_sourceLocation) {
        let errorText = String(decoding: started.error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = started.output.fileHandleForReading.readDataToEndOfFile()
        started.process.waitUntilExit()
        #expect(started.process.terminationStatus == 0, "stderr: \(errorText)", sourceLocation: sourceLocation)
        let lines = errorText.split(separator: "\n").map(String.init)
        #expect(lines.contains("masonry: skipped in/a-slow.svg: \(reason)"), "\(errorText)", sourceLocation: sourceLocation)
        #expect(lines.last?.contains("1 image, 1 skipped") == true, "\(errorText)", sourceLocation: sourceLocation)
    }

    /// A drawing process forked by the zygote draws under its address-space bound (RLIMIT_AS,
    /// set for each request): 512 MiB, 64 bytes a file byte for the document's tree, and twice
    /// the canvas (a tile under a megapixel here).
    @Test(.disabled(if: Sanitizer.mapsShadowMemory, Sanitizer.shadowMemorySkipReason))
    func aForkedDrawingProcessDrawsUnderItsMemoryBound() throws {
        let folder = try Self.folderWithSlowDrawing()
        let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: folder.file("in/a-slow.svg"))[.size] as? Int)
        let (process, output, error) = try MasonryExecutable.start(["in", "-o", "s.png", "--jobs", "1"], in: folder.path)
        defer {
            process.terminate()
            _ = error.fileHandleForReading.readDataToEndOfFile()
            _ = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
        }
        let drawing = try #require(Self.drawingProcesses(of: process.processIdentifier), "no drawing process started").drawing
        var bound: Int? = nil
        let start = ContinuousClock.now
        while bound == nil, ContinuousClock.now - start < .seconds(5) {
            let limits = (try? String(contentsOfFile: "/proc/\(drawing)/limits", encoding: .utf8)) ?? ""
            let line = limits.split(separator: "\n").first { $0.hasPrefix("Max address space") } ?? ""
            bound = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Int($0) }
            if bound == nil { usleep(10_000) }
        }
        let least = (512 << 20) + fileBytes * 64
        let found = try #require(bound, "the drawing process has no address-space bound")
        #expect(found > least && found <= least + 2 * 1_000_000 * 4, "\(found) bytes")
    }

    /// The zygote dies with the command, and the drawing process it forked with the zygote: the
    /// command killed (SIGKILL: no exit handler runs) while a drawing runs leaves neither.
    @Test func theZygoteAndItsDrawingProcessDieWithTheCommand() throws {
        let folder = try Self.folderWithSlowDrawing()
        let (process, output, error) = try MasonryExecutable.start(["in", "-o", "s.png", "--jobs", "1"], in: folder.path)
        let found = try #require(Self.drawingProcesses(of: process.processIdentifier), "no drawing process started")
        #expect(Self.runs(found.zygote) && Self.runs(found.drawing))
        kill(process.processIdentifier, SIGKILL)
        _ = error.fileHandleForReading.readDataToEndOfFile()
        _ = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let killed = ContinuousClock.now
        while Self.runs(found.zygote) || Self.runs(found.drawing), ContinuousClock.now - killed < .seconds(5) { usleep(10_000) }
        #expect(!Self.runs(found.zygote), "the zygote outlived the command")
        #expect(!Self.runs(found.drawing), "the drawing process outlived the command")
    }

    /// The zygote killed while its drawing process draws: that drawing dies with it and is a
    /// skip with the reason, and the next SVG is drawn by a drawing process the command starts
    /// itself (the fallback: the dynamic loader logs a third process, after the command and the
    /// zygote).
    @Test func drawingGoesOnWithoutTheZygote() throws {
        let folder = try Self.folderWithSlowDrawing()
        let (process, output, error) = try MasonryExecutable.start(["in", "-o", "s.png", "--jobs", "1"], in: folder.path,
                                                                   environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": folder.file("loads")])
        let found = try #require(Self.drawingProcesses(of: process.processIdentifier), "no drawing process started")
        kill(found.zygote, SIGKILL)
        Self.expectOnlyTheSlowDrawingSkipped((process, output, error), reason: "librsvg ended by signal 9 (SIGKILL) while drawing the SVG")
        #expect(!Self.runs(found.drawing), "the drawing process outlived its zygote")
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("loads.") }
        #expect(logs.count == 3, "the command, the zygote and the drawing process started in its place: \(logs)")
    }

    /// A drawing process is reused from one SVG and one page to the next (the workers end with
    /// each page; the processes do not): six SVGs over several pages with one worker start the
    /// zygote once, and nothing else (the dynamic loader writes one log a process it starts with
    /// LD_DEBUG_OUTPUT; the zygote's forks start none).
    @Test func oneDrawingProcessServesEveryPage() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        for index in 0..<6 { try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("in/\(index).svg")) }
        let run = try MasonryExecutable.run(["in", "-o", "s.png", "--page-height", "400", "--width", "300", "--columns", "1", "--jobs", "1"],
                                            in: folder.path, environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": folder.file("loads")])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.last.map { $0.hasPrefix("masonry: wrote ") && $0.contains(" pages ") } == true, "\(run.standardError)")
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("loads.") }
        #expect(logs.count == 2, "the command and the zygote: \(logs)")
    }
}
