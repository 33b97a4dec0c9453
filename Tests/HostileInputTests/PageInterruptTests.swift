import Foundation
import Testing

/// A multi-page run stopped between pages (issue #10): every page file and the manifest of an
/// earlier run stay byte for byte, and no temporary file is left.
@Suite struct PageInterruptTests {
    @Test(arguments: [SIGINT, SIGTERM])
    func interruptedBetweenPagesLeavesEveryEarlierFile(_ signal: Int32) throws {
        let folder = ScratchFolder("pages")
        let input = OutputTests.slowInputs(folder)
        let out = folder.mkdir("out")
        let earlier = ["s-001.png", "s-002.png", "s-003.png", "m.json"]
        for name in earlier { writeRaw(Array((out + "/" + name).utf8), OutputTests.oldSheet) }
        var sentAt: Double?
        // 40 large tiles in one column of 200 px, 8 a page: five pages, each taking a while in debug.
        let result = Masonry.run([input, "-o", out + "/s.png", "--manifest", out + "/m.json", "-w", "216", "-c", "1",
                                  "--per-page", "8", "-j", "1"], timeout: 90) { pid, now in
            // Two temporaries: page 1 is complete and page 2 is being written.
            if sentAt == nil, OutputTests.temporaries(in: out).count >= 2 {
                kill(pid, signal)
                sentAt = now
            }
        }
        try #require(sentAt != nil, "the run ended before its second page began: \(result)")
        #expect(result.status == 128 + signal, "\(result)")
        for name in earlier { #expect(readFile(out + "/" + name) == OutputTests.oldSheet, "\(name) was touched") }
        #expect(listFolder(out).sorted() == earlier.sorted(), "left behind: \(listFolder(out))")
    }
}
