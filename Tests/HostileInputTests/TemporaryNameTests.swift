// The temporary-name pattern itself: every name fits in NAME_MAX and is
// recognised by the clean-up; nothing else is.

import Testing
@testable import MasonrySheet
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

@Suite struct TemporaryNameTests {
    /// Random target names of 1 to 255 bytes (any byte but NUL and '/'): each
    /// temporary name is at most 255 bytes, keeps as much of the target's name
    /// as fits, and carries this process's PID.
    @Test func namesFitAndCarryThePID() {
        let seed = SplitMix64.fuzzSeed
        print("temporary names: seed \(seed)")
        var rng = SplitMix64(seed: seed)
        for _ in 0..<2000 {
            let target = (0..<rng.int(1...255)).map { _ in
                var byte = rng.byte()
                while byte == 0 || byte == UInt8(ascii: "/") { byte = rng.byte() }
                return byte
            }
            let name = TemporaryName.make(for: target)
            #expect(name.count <= 255, "seed \(seed): \(name.count) bytes for a \(target.count)-byte target")
            #expect(name.count == min(255, 1 + target.count + TemporaryName.suffixLength))
            #expect(Array(name[1...].prefix(min(target.count, 255 - 1 - TemporaryName.suffixLength))) == Array(target.prefix(222)))
            #expect(TemporaryName.writerPID(name) == getpid(), "seed \(seed): \(String(decoding: name, as: UTF8.self))")
        }
    }

    @Test(arguments: [
        (".k.png.masonry-4381-161m7gn.tmp", Int32(4381)),          // the names of earlier versions
        (".s.png.masonry-0000012345-00c0ffee.tmp", Int32(12345)),  // the fixed-length names
        (".masonry-77-z.tmp", Int32(77)),
    ])
    func recognised(_ name: String, _ pid: Int32) {
        #expect(TemporaryName.writerPID(Array(name.utf8)) == pid)
    }

    @Test(arguments: [
        "k.png.masonry-4381-161m7gn.tmp",   // not hidden
        ".k.png.masonry-4381-161m7gn.png",  // not .tmp
        ".k.png.masonry--161m7gn.tmp",      // no PID
        ".k.png.masonry-43x1-161m7gn.tmp",  // not a number
        ".k.png.masonry-4381-16.M.tmp",     // not our random part
        ".k.png.mason-4381-161m7gn.tmp",    // not our marker
        ".notes.tmp",
        ".masonry-12345678901-a.tmp",       // PID over 10 digits
    ])
    func notRecognised(_ name: String) {
        #expect(TemporaryName.writerPID(Array(name.utf8)) == nil)
    }
}
