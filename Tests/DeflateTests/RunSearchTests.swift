// The deflater's run search (`mdk_find_symbols`, CDeflateKernels) against the greedy rule it
// implements, written here byte by byte: at each position the longer run of at least 3 bytes at
// distance 1 or at the pixel's distance (distance 1 on a tie, at most 258 bytes, within the
// block), else a literal. Inputs are made of runs, repeated pixels and noise, so runs start and end
// on both sides of the 64-bit words and 16-byte groups the kernel works in.

import CDeflateKernels
@testable import Deflate
import TestSupport
import Testing

@Suite("Deflate run search")
struct RunSearchTests {
    /// The greedy rule, one byte at a time. `block` starts with 4 history bytes.
    static func referenceSymbols(_ block: [UInt8], firstRunStart: Int, pixel: Int) -> [UInt16] {
        let start = 4, count = block.count - start
        func repeats(_ position: Int, _ distance: Int) -> Int {
            var length = 0
            while position + length < count, length < DeflateSymbol.maxRun,
                  block[start + position + length] == block[start + position + length - distance] { length += 1 }
            return length
        }
        var symbols: [UInt16] = [], position = 0
        while position < count {
            let byteLength = position >= firstRunStart ? repeats(position, 1) : 0
            let pixelLength = position >= firstRunStart ? repeats(position, pixel) : 0
            let (length, distance) = byteLength >= pixelLength ? (byteLength, 1) : (pixelLength, pixel)
            if length >= DeflateSymbol.minRun {
                symbols.append(UInt16(DeflateSymbol.run(length: length, distance: distance)))
                position += length
            } else {
                symbols.append(UInt16(block[start + position]))
                position += 1
            }
        }
        return symbols
    }

    @Test("The same symbols as the greedy rule on runs, pixels and noise")
    func symbolsFollowTheGreedyRule() {
        let seed = SplitMix64.suiteSeed ^ 0x5EA_4C4
        print("RunSearchTests.symbolsFollowTheGreedyRule: seed 0x\(String(seed, radix: 16))")
        var rng = SplitMix64(seed: seed)
        for trial in 0..<400 {
            let pixel = rng.int(1...4)
            let count = trial < 40 ? trial : rng.int(0...3000)
            var bytes = rng.bytes(4)  // history
            while bytes.count < 4 + count {
                let stretch = rng.int(1...(rng.int(0...3) == 0 ? 700 : 12))
                switch rng.int(0...3) {
                case 0: bytes += [UInt8](repeating: rng.byte(), count: stretch)
                case 1: for _ in 0..<stretch { bytes.append(bytes[bytes.count - pixel]) }
                case 2: for _ in 0..<stretch { bytes.append(rng.int(0...2) == 0 ? bytes[bytes.count - 1] : rng.byte()) }
                default: bytes += rng.bytes(stretch)
                }
            }
            bytes.removeLast(bytes.count - 4 - count)
            let firstRunStart = rng.int(0...1) == 0 ? 0 : min(4, count)
            let expected = Self.referenceSymbols(bytes, firstRunStart: firstRunStart, pixel: pixel)

            // The kernel's buffers with their documented slack, the slack filled with noise.
            let block = bytes + rng.bytes(16)
            var symbols = [UInt16](repeating: 0xFFFF, count: count + 16)
            var bitmaps = [UInt64](repeating: ~0, count: mdk_bitmap_words(count))
            let found = block.withUnsafeBufferPointer { block in
                mdk_find_symbols(block.baseAddress! + 4, count, firstRunStart, pixel, &symbols, &bitmaps)
            }
            let got = Array(symbols[..<found])
            let firstDifference = got.indices.first { $0 >= expected.count || got[$0] != expected[$0] }
                ?? (got.count < expected.count ? got.count : nil)
            #expect(firstDifference == nil,
                    """
                    trial \(trial): \(count) bytes, pixel \(pixel), first run at \(firstRunStart): symbol \(firstDifference ?? 0) is \
                    \(got.dropFirst(firstDifference ?? 0).first.map(String.init) ?? "missing") where the rule gives \
                    \(expected.dropFirst(firstDifference ?? 0).first.map(String.init) ?? "none"), seed 0x\(String(seed, radix: 16))
                    """)
        }
    }
}
