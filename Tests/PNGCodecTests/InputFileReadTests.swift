// InputFile keeps the first page of a file after the first read near its start (detection and
// the header readers then cost one `pread` together): every read must still give exactly the
// bytes a positioned read gives, at any offset and length, for files shorter and longer than
// the page.

import CodecCore
import Foundation
import Testing

@Suite struct InputFileReadTests {
    @Test(arguments: [0, 1, 33, 4095, 4096, 4097, 9000])
    func readsGiveTheFileBytesAtEveryOffset(size: Int) throws {
        let seed = UInt64(size) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        var random = SplitMix64(seed: seed)
        let bytes = (0 ..< size).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("masonry-inputfile-\(getpid())-\(size)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("f.bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        // The same file read in a random order of pieces, the first of them inside or outside the head.
        for round in 0 ..< 20 {
            let file = try InputFile(path: path)
            #expect(file.size == size)
            for _ in 0 ..< 40 {
                let offset = Int.random(in: 0 ... size + 10, using: &random)
                let count = Int.random(in: 0 ... 5000, using: &random)
                var buffer = [UInt8](repeating: 0xAA, count: count)
                let got = try buffer.withUnsafeMutableBufferPointer { try file.read(at: offset, into: $0) }
                let expected = offset >= size ? [] : Array(bytes[offset ..< min(size, offset + count)])
                #expect(got == expected.count, "seed \(seed), round \(round): \(count) bytes at \(offset)")
                #expect(Array(buffer.prefix(got)) == expected, "seed \(seed), round \(round): \(count) bytes at \(offset)")
            }
        }
    }
}
