import Digest
import ImageDiff
import Testing
import TestSupport

@Suite struct SHA256Tests {
    typealias Hasher = Digest.SHA256

    /// FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA2_Additional.pdf").
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func nistVectors(message: String, digest: String) {
        #expect(Hasher.hex(Hasher.digest(Array(message.utf8))) == digest)
    }

    @Test func oneMillionAs() {
        var hasher = Hasher()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(Hasher.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// SplitMix64 byte streams of lengths around the block and padding boundaries, against
    /// Python's hashlib (`Fixtures/sha256-goldens.txt`), hashed whole and in random pieces.
    @Test func randomDataMatchesHashlib() {
        let goldens = fixtureFolder.goldenFields("sha256-goldens.txt")
        #expect(goldens.count == 17)
        var pieces = SplitMix64(seed: SplitMix64.suiteSeed)
        for fields in goldens {
            let seed = UInt64(fields[0])!, length = Int(fields[1])!
            var generator = SplitMix64(seed: seed)
            let data = generator.bytes(length)
            #expect(Hasher.hex(Hasher.digest(data)) == fields[2], "seed \(seed), \(length) bytes")
            var hasher = Hasher()
            var offset = 0
            while offset < length {
                let next = min(length, offset + pieces.int(0...130))
                hasher.update(data[offset ..< next])
                offset = next
            }
            #expect(Hasher.hex(hasher.finalize()) == fields[2], "seed \(seed), \(length) bytes in pieces (suite seed \(SplitMix64.suiteSeed))")
        }
    }
}
