import Foundation
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// Issue #18 point 3: options that asked for unbounded memory. Every plan is checked against
/// `--max-memory` (or what `ulimit -v` leaves) before anything is allocated; a plan over it is a
/// usage error naming the option to change, never a crash.
@Suite struct MemoryBudgetTests {
    static let MiB = 1 << 20

    /// Two 21×30 PNGs, as in the issue.
    static func smallInputs(_ folder: ScratchFolder) -> [String] {
        (1...2).map { number in
            let png = try! PNGEncoder.encode(pixels: [UInt8](repeating: UInt8(90 * number), count: 21 * 30 * 4),
                                             width: 21, height: 30, format: .rgba8)
            return folder.write("in\(number).png", png)
        }
    }

    @Test(arguments: [
        ["-w", "1048577", "--page-height", "0"],        // was killed after 67 s at 23.8 GB
        ["-w", "16777216", "-c", "1", "--page-height", "0"],
        ["-w", "20000", "-c", "1", "--page-height", "0"], // was 3.3 GB
    ])
    func hugeSheetsAreRefusedBeforeAllocating(_ options: [String]) {
        let folder = ScratchFolder("mem")
        let result = Masonry.run(Self.smallInputs(folder) + ["-o", folder.sub("out.png")] + options, timeout: 30)
        #expect(result.status == 64, "\(result)")
        #expect(result.peakRSS < 64 * Self.MiB, "\(result)")
        #expect(result.stderrLines.count == 1 && result.stderr.contains("over --max-memory 1024 MiB; use a smaller --width"),
                "\(result)")
        #expect(listFolder(folder.path).sorted() == ["in1.png", "in2.png"], "left behind: \(listFolder(folder.path))")
    }

    @Test func pagedHugeWidthNamesTheSmallestPageHeight() {
        let folder = ScratchFolder("mem")
        let result = Masonry.run(Self.smallInputs(folder) + ["-o", folder.sub("out.png"), "-w", "1048577"], timeout: 30)
        #expect(result.status == 64 && result.peakRSS < 64 * Self.MiB, "\(result)")
        // The file is named, and --width is the cause: the largest width that works is given (issue #36).
        #expect(result.stderr.contains("in1.png needs a tile taller than a page of --page-height 16384 at --width 1048577: "
                                       + "the largest --width that works is ") && result.stderr.contains("or a --page-height of at least"),
                "\(result)")
        let number = result.stderr.range(of: #"works is [0-9]+"#, options: .regularExpression)
            .map { result.stderr[$0].split(separator: " ").last! }
        let width = number.flatMap { Int($0) } ?? 0
        #expect(width > 0)
        let inputs = ScratchFolder("mem")
        // Planned only: a sheet that wide fits its pages but not --max-memory, a separate check.
        let plan = ["--plan-only", "--manifest", folder.sub("w.json")]
        let fits = Masonry.run(Self.smallInputs(inputs) + plan + ["-w", "\(width)"], timeout: 30)
        #expect(fits.status == 0, "--width \(width): \(fits)")
        let tooWide = Masonry.run(Self.smallInputs(inputs) + plan + ["-w", "\(width + 1)"], timeout: 30)
        #expect(tooWide.status == 64, "--width \(width + 1): \(tooWide)")
    }

    @Test func raisingTheBudgetOrNarrowingTheSheetMakesItWork() {
        let folder = ScratchFolder("mem")
        let inputs = Self.smallInputs(folder)
        let narrower = Masonry.run(inputs + ["-o", folder.sub("a.png"), "-w", "2000", "-c", "1", "--page-height", "0"], timeout: 60)
        #expect(narrower.status == 0, "\(narrower)")
        let small = Masonry.run(inputs + ["-o", folder.sub("b.png"), "-w", "2000", "-c", "1", "--page-height", "0",
                                          "--max-memory", "8"], timeout: 30)
        #expect(small.status == 64 && small.stderr.contains("over --max-memory 8 MiB"), "\(small)")
    }

    @Test(.disabled(if: Sanitizer.mapsShadowMemory, Sanitizer.shadowMemorySkipReason))
    func anAddressSpaceLimitIsABudgetNotACrash() {
        // Under `ulimit -v 524288` this run died with "Fatal error: failed to allocate" (SIGABRT,
        // a Swift backtrace, a leftover temporary file).
        let folder = ScratchFolder("mem")
        let result = Masonry.run(Self.smallInputs(folder) + ["-o", folder.sub("out.png"), "-w", "10000", "-c", "1",
                                                             "--page-height", "0"],
                                 timeout: 60, shellLimits: "ulimit -v 524288")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("address space limit (ulimit -v)"), "\(result)")
        #expect(listFolder(folder.path).sorted() == ["in1.png", "in2.png"], "left behind: \(listFolder(folder.path))")
    }

    @Test(.disabled(if: Sanitizer.mapsShadowMemory, Sanitizer.shadowMemorySkipReason))
    func aTallNarrowTileNeedsNoTableAsTallAsItself() {
        // One 1×400,000 PNG on a 1 px sheet: the vertical filter weights were a table of
        // 36 bytes per target row (408 MB for the issue's 1×10,000,000 file); now a row at a time.
        let folder = ScratchFolder("mem")
        let height = 400_000
        let png = try! PNGEncoder.encode(pixels: [UInt8](repeating: 200, count: height), width: 1, height: height, format: .grey8)
        let input = folder.write("tall.png", png)
        let result = Masonry.run([input, "-o", folder.sub("out.png"), "--max-tile-aspect", "16777216", "-w", "1", "-c", "1",
                                  "--margin", "0", "--page-height", "0"], timeout: 120)
        #expect(result.status == 0, "\(result)")
        #expect(result.peakRSS < 32 * Self.MiB, "\(result)")   // 25 MiB measured here; the weight table alone was 14 MB
    }
}
