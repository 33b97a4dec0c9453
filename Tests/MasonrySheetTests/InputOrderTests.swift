import Testing
import TestSupport
@testable import MasonrySheet

@Suite struct InputOrderTests {
    private func sortedNames(_ names: [String], _ order: InputOrder, reversed: Bool = false) -> [String] {
        let candidates = names.enumerated().map { index, name in
            InputCandidate(path: RawPath(name), modificationTime: Int64(names.count - index), byteSize: Int64(name.count))
        }
        return order.sorted(candidates, reversed: reversed).map(\.path.displayName)
    }

    @Test func naturalOrderComparesDigitRunsAsNumbers() {
        let names = ["img10.png", "img2.png", "img1.png", "img02.png", "Img3.png", "img1a.png", "a/b9.png", "a/b10.png"]
        #expect(sortedNames(names, .natural)
                == ["Img3.png", "a/b9.png", "a/b10.png", "img1.png", "img1a.png", "img2.png", "img02.png", "img10.png"])
    }

    @Test func naturalOrderHandlesHugeDigitRunsWithoutOverflow() {
        let names = ["x99999999999999999999999999.png", "x100000000000000000000000000.png", "x5.png"]
        #expect(sortedNames(names, .natural) == ["x5.png", "x99999999999999999999999999.png", "x100000000000000000000000000.png"])
    }

    @Test func nameOrderIsByteOrder() {
        #expect(sortedNames(["b10", "b9", "B1", "a"], .name) == ["B1", "a", "b10", "b9"])
    }

    @Test func modificationTimeAndSizeOrdersBreakTiesNaturally() {
        // Times are count - index: later names are older.
        #expect(sortedNames(["c", "b", "a"], .mtime) == ["a", "b", "c"])
        #expect(sortedNames(["ccc", "b", "aa", "a"], .size) == ["a", "b", "aa", "ccc"])
    }

    @Test func noneKeepsDiscoveryOrderAndReverseReverses() {
        #expect(sortedNames(["z", "a", "m"], .none) == ["z", "a", "m"])
        #expect(sortedNames(["a2", "a10", "a1"], .natural, reversed: true) == ["a10", "a2", "a1"])
    }

    @Test func naturalCompareIsATotalOrder() {
        var random = SplitMix64(seed: 0x5EED)
        let alphabet = Array("a0b1Z9.".utf8)
        let words = (0..<300).map { _ in (0..<Int(random.next() % 7)).map { _ in alphabet[Int(random.next() % 7)] } }
        for a in words {
            for b in words.prefix(60) {
                let ab = InputOrder.naturalCompare(a, b), ba = InputOrder.naturalCompare(b, a)
                #expect(ab == -ba, "antisymmetry failed for \(a) and \(b) (seed 0x5EED)")
                #expect((ab == 0) == (a == b), "only equal strings compare equal: \(a) \(b)")
            }
        }
    }

    /// The comparison that skips the common prefix gives the sign of the plain one from the
    /// first byte (the rule as SPEC §3 states it), on words sharing long prefixes with digit
    /// runs and leading zeros across the point where they differ.
    @Test func prefixSkippingCompareEqualsTheRuleFromTheStart() {
        let seed: UInt64 = 0x32_5EED
        var random = SplitMix64(seed: seed)
        let alphabet = Array("a00119Z/.".utf8)
        let stems = (0..<20).map { _ in (0..<Int(random.next() % 9)).map { _ in alphabet[Int(random.next() % 9)] } }
        let words = (0..<400).map { _ in
            stems[Int(random.next() % 20)] + (0..<Int(random.next() % 5)).map { _ in alphabet[Int(random.next() % 9)] }
        }
        for a in words {
            for b in words.prefix(80) {
                #expect(InputOrder.naturalCompare(a, b).signum() == Self.fromTheStart(a, b).signum(),
                        "\(String(decoding: a, as: UTF8.self)) vs \(String(decoding: b, as: UTF8.self)) (seed \(seed))")
            }
        }
    }

    /// Natural order walked from the first byte: digit runs by value, then by length; other bytes by value.
    static func fromTheStart(_ a: [UInt8], _ b: [UInt8]) -> Int {
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        var i = 0, j = 0, tieBreak = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                let startA = i, startB = j
                while i < a.count && isDigit(a[i]) { i += 1 }
                while j < b.count && isDigit(b[j]) { j += 1 }
                let runA = Array(a[startA..<i].drop { $0 == 0x30 }), runB = Array(b[startB..<j].drop { $0 == 0x30 })
                if runA.count != runB.count { return runA.count < runB.count ? -1 : 1 }
                if runA != runB { return runA.lexicographicallyPrecedes(runB) ? -1 : 1 }
                if tieBreak == 0 && (i - startA) != (j - startB) { tieBreak = (i - startA) < (j - startB) ? -1 : 1 }
            } else {
                if a[i] != b[j] { return a[i] < b[j] ? -1 : 1 }
                i += 1
                j += 1
            }
        }
        return i < a.count ? 1 : j < b.count ? -1 : tieBreak
    }
}

@Suite struct RawPathTests {
    @Test func displayNameEscapesControlBytesAndInvalidUTF8ButKeepsScripts() {
        #expect(RawPath(bytes: Array("a b/фото-写真.png".utf8)).displayName == "a b/фото-写真.png")
        #expect(RawPath(bytes: Array("new\nline.png".utf8)).displayName == "new\\nline.png")
        #expect(RawPath(bytes: [0x1B, 0x5B, 0x33, 0x31, 0x6D]).displayName == "\\x1b[31m")
        #expect(RawPath(bytes: [0x61, 0xFF, 0xC3]).displayName == "a\\xff\\xc3")
        #expect(RawPath(bytes: Array("back\\slash".utf8)).displayName == "back\\\\slash")
    }

    @Test func joiningAndParts() {
        #expect(RawPath("dir").appending(Array("a.png".utf8)) == RawPath("dir/a.png"))
        #expect(RawPath("dir/").appending(Array("a.png".utf8)) == RawPath("dir/a.png"))
        #expect(RawPath("x/y/z.png").parent == RawPath("x/y"))
        #expect(RawPath("z.png").parent == RawPath("."))
        #expect(RawPath("x/y/z.png").lastComponent == Array("z.png".utf8))
    }
}
