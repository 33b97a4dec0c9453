// The test target's own helpers checked against published vectors, so a
// golden mismatch can't be blamed on them.

import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Test helpers")
struct SupportTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func sha256KnownVectors(message: String, digest: String) {
        #expect(SHA256.hex(Array(message.utf8)) == digest)
    }

    @Test func sha256MillionAAndIncrementalUpdates() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(hasher.finalize().map { String(format: "%02x", $0) }.joined()
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // Every length around the padding boundary, fed whole and in odd pieces.
        for length in 50...130 {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var pieces = SHA256()
            var offset = 0
            while offset < length {
                let n = min(7, length - offset)
                pieces.update(message[offset ..< offset + n])
                offset += n
            }
            #expect(pieces.finalize().map { String(format: "%02x", $0) }.joined() == SHA256.hex(message))
        }
    }

    @Test func crc32AndAdler32KnownVectors() {
        #expect(Checksum.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksum.crc32(Array("IEND".utf8)) == 0xAE42_6082)  // every PNG's last 4 bytes
        #expect(Checksum.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(PNGBytes.chunk("IEND") == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
    }

    @Test func splitMix64KnownSequence() {
        // Reference values of SplitMix64 seeded with 1234567.
        var rng = SplitMix64(seed: 1_234_567)
        #expect(rng.next() == 6_457_827_717_110_365_317)
        #expect(rng.next() == 3_203_168_211_198_807_973)
        #expect(rng.next() == 9_817_491_932_198_370_423)
    }

    @Test func goldensAreComplete() {
        let files = fixtureFolder.pngNames(in: "pngsuite")
        #expect(files.count == 176)
        #expect(Golden.all.count == files.count)
        #expect(Set(Golden.all.map(\.name)) == Set(files))
        #expect(Golden.validNames.count == 162)
        #expect(Golden.rejectNames.count == 14)
        #expect(Golden.rejectNames.allSatisfy { $0.hasPrefix("x") })
    }
}

@Suite("Process probes: stderr capture and memory measurement", .serialized)
struct ProcessProbeTests {
    /// What C code writes to fd 2 inside the capture is caught; Swift
    /// Testing's own event lines are not counted.
    @Test func stderrCaptureSeesWritesToFD2() {
        let (_, captured) = capturingStderr { () -> Int in
            let message = Array("libpng warning: probe\n".utf8)
            return message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
        #expect(captured == "libpng warning: probe")
        let (_, quiet) = capturingStderr { 0 }
        #expect(quiet.isEmpty)
        #expect(StderrCapture.separateTestingOutput("◇ Test x() started.\nreal\n✔ Test x() passed after 0.1 seconds.", echo: false) == "real")
    }

    /// The measurement the robustness and limit tests rely on must see real
    /// allocations: 32 MiB touched shows as resident growth. The pages come from a fresh
    /// anonymous mapping: a `malloc` of that size may reuse pages an earlier test freed and
    /// glibc kept resident (its mmap threshold rises after large frees), which adds nothing.
    /// Other suites run meanwhile and may free memory of their own, so the best of three
    /// measurements counts.
    @Test func seesTouchedAllocation() {
        var best = 0
        for _ in 0..<3 where best < 30 * MiB {
            let (_, growth) = ProcessMemory.measuring(attempts: 1) { () -> Int in
                let size = 32 * MiB
                guard let raw = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                      raw != MAP_FAILED else { return 0 }
                defer { munmap(raw, size) }
                let bytes = raw.assumingMemoryBound(to: UInt8.self)
                var sum = 0
                for i in stride(from: 0, to: size, by: 4096) {
                    bytes[i] = UInt8(truncatingIfNeeded: i >> 12)
                    sum &+= Int(bytes[i])
                }
                return sum
            }
            TestLog.verbose("32 MiB touched: \(growth); VmPeak \(ProcessMemory.status("VmPeak") / MiB) MiB, VmHWM \(ProcessMemory.status("VmHWM") / MiB) MiB")
            best = max(best, growth.residentPeak)
        }
        #expect(best >= 30 * MiB, "resident growth \(best / 1024) KiB")
    }

    /// Address space reserved but never touched shows as peak VM growth once
    /// it goes past the headroom left by earlier peaks. Reserves only 256 MiB
    /// past that headroom, so later measurements stay sensitive.
    @Test func seesUntouchedReservation() {
        let headroom = max(0, ProcessMemory.status("VmPeak") - ProcessMemory.status("VmSize"))
        let size = headroom + 256 * MiB
        let (_, growth) = ProcessMemory.measuring(attempts: 1) { () -> Bool in
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            buffer.deallocate()
            return true
        }
        TestLog.verbose("\(size / MiB) MiB reserved: \(growth)")
        #expect(growth.virtualPeak >= 128 * MiB, "\(growth)")
        #expect(growth.residentPeak < 16 * MiB, "\(growth)")
    }
}
