import ColorManagement
import SeededRandom
import Testing
import TestSupport

/// The profile reader's checks, before lcms sees a byte, and lcms's own refusals: every bad
/// profile is a one-line reason, never a crash or a failed picture.
@Suite struct ICCProfileTests {
    static let fixtures = FixtureFolder(in: .module)
    static let p3 = try! fixtures.bytes("display-p3.icc")

    @Test(arguments: [
        ("display-p3.icc", ICCProfile.ColorModel.rgb, "Display P3", false),
        ("adobe-rgb-1998.icc", .rgb, "Compatible with Adobe RGB (1998)", false),
        ("prophoto-rgb.icc", .rgb, "ProPhoto RGB", true),
        ("grey-gamma-1.8.icc", .grey, "Grey gamma 1.8", false),
        ("fogra39l-coated.icc", .cmyk, "FOGRA39L coated (Masonry test profile)", false),
    ])
    func readsGoodProfiles(_ name: String, _ model: ICCProfile.ColorModel, _ description: String, _ wide: Bool) throws {
        let bytes = try Self.fixtures.bytes(name)
        let profile = try ICCProfile(bytes: bytes)
        #expect(profile.colorModel == model)
        #expect(profile.isWideGamut == wide)
        #expect(profile.description == description)
        #expect(profile.digest.count == 32)
        var changed = bytes
        changed[changed.count - 1] ^= 1
        #expect(try ICCProfile(bytes: changed).digest != profile.digest)
        #expect(!profile.isSRGB)
    }

    static func u32(_ value: UInt32) -> [UInt8] { PNGBytes.be32(value) }

    static func replacing(_ bytes: [UInt8], at offset: Int, with value: UInt32) -> [UInt8] {
        var copy = bytes
        copy.replaceSubrange(offset ..< offset + 4, with: u32(value))
        return copy
    }

    static let badProfiles: [(String, [UInt8], String)] = [
        ("empty", [], "truncated"),
        ("cut inside the header", Array(p3.prefix(100)), "truncated"),
        ("longer than its bytes (cut short)", Array(p3.dropLast(40)), "truncated"),
        ("size field past the end", replacing(p3, at: 0, with: UInt32(p3.count + 1)), "truncated"),
        ("size field inside the header", replacing(p3, at: 0, with: 64), "too small"),
        ("no acsp", replacing(p3, at: 36, with: 0x6162_6364), "acsp"),
        ("2^31 tags", replacing(p3, at: 128, with: 0x8000_0000), "tag table"),
        ("2^32 - 1 tags", replacing(p3, at: 128, with: 0xFFFF_FFFF), "tag table"),
        ("tag offset past the end", replacing(p3, at: 132 + 4, with: UInt32(p3.count + 10)), "outside"),
        ("tag size past the end", replacing(p3, at: 132 + 8, with: 0xFFFF_FFF0), "outside"),
        ("tag offset in the header", replacing(p3, at: 132 + 4, with: 8), "outside"),
        ("Lab colour space", replacing(p3, at: 16, with: 0x4C61_6220), "colour space"),
        ("unknown connection space", replacing(p3, at: 20, with: 0x4142_4344), "connection space"),
        ("over 4 MiB", replacing(p3, at: 0, with: 4 << 20 + 1) + [UInt8](repeating: 0, count: 4 << 20 + 1 - p3.count), "4 MiB"),
    ]

    @Test(arguments: badProfiles.map { $0.0 })
    func refusesBadProfiles(_ name: String) throws {
        let (_, bytes, reason) = try #require(Self.badProfiles.first { $0.0 == name })
        #expect(throws: ColorProblem.self) { _ = try ICCProfile(bytes: bytes) }
        do {
            _ = try ICCProfile(bytes: bytes)
        } catch {
            #expect(error.reason.contains(reason), "\(name): \(error.reason)")
            #expect(!error.reason.contains("\n"))
        }
    }

    /// A profile whose structure is sound but whose colorant tag lcms cannot read: the reader
    /// lets it through, lcms refuses it with its own message, and the cache remembers the refusal.
    @Test func lcmsRefusalIsAReason() throws {
        var bytes = Self.p3
        let tagCount = Int(bytes[131])
        let rXYZ = try #require((0..<tagCount).first { String(decoding: bytes[132 + 12 * $0 ..< 136 + 12 * $0], as: UTF8.self) == "rXYZ" })
        let offset = Int(bytes[132 + 12 * rXYZ + 6]) << 8 | Int(bytes[132 + 12 * rXYZ + 7])
        bytes.replaceSubrange(offset ..< offset + 4, with: Array("zzzz".utf8))
        let profile = try ICCProfile(bytes: bytes)
        let cache = ColorTransformCache()
        let first = cache.transform(for: profile, layout: .premultipliedRGBA8)
        guard case .failure(let problem) = first else { Issue.record("lcms accepted a broken colorant tag"); return }
        #expect(problem.reason.hasPrefix("ICC profile refused by lcms"), "\(problem.reason)")
        #expect(!problem.reason.contains("\n"))
        guard case .failure(let again) = cache.transform(for: profile, layout: .premultipliedRGBA8) else {
            Issue.record("the refusal was not remembered"); return
        }
        #expect(again == problem)
        #expect(cache.count == 1)
    }

    @Test func mismatchedLayoutIsRefused() throws {
        let cmyk = try ICCProfile(bytes: Self.fixtures.bytes("fogra39l-coated.icc"))
        let rgb = try ICCProfile(bytes: Self.p3)
        #expect(throws: ColorProblem.self) { _ = try ColorTransform(profile: cmyk, layout: .premultipliedRGBA8) }
        #expect(throws: ColorProblem.self) { _ = try ColorTransform(profile: rgb, layout: .invertedCMYK8) }
    }

    /// Seeded mutations of real profiles: the reader and lcms either accept or refuse; nothing
    /// crashes, and whatever passes the reader has every tag inside it.
    @Test(arguments: [UInt64(0xC0105), 0x1CC, 0xFACE])
    func mutatedProfilesNeverCrash(_ seed: UInt64) throws {
        TestLog.verbose("ICC mutation seed \(seed)")
        var random = SplitMix64(seed: seed)
        let sources = try ["display-p3.icc", "grey-gamma-1.8.icc", "adobe-rgb-1998.icc"].map { try Self.fixtures.bytes($0) }
        var accepted = 0
        for _ in 0..<150 {
            var bytes = sources[random.int(0...sources.count - 1)]
            for _ in 0 ..< random.int(1...6) {
                let at = random.int(0...bytes.count - 1)
                bytes[at] = random.int(0...3) == 0 ? random.byte() : bytes[at] ^ (1 << UInt8(random.int(0...7)))
            }
            if random.int(0...4) == 0 { bytes.removeLast(random.int(0...bytes.count / 2)) }
            guard let profile = try? ICCProfile(bytes: bytes) else { continue }
            accepted += 1
            let layout: ColorLayout = profile.colorModel == .cmyk ? .invertedCMYK8 : .premultipliedRGBA8
            if let transform = try? ColorTransform(profile: profile, layout: layout), layout == .premultipliedRGBA8 {
                var row = (0..<64).map { _ in random.byte() }
                row.withUnsafeMutableBufferPointer { transform.apply($0) }
            }
        }
        TestLog.verbose("seed \(seed): \(accepted) of 150 mutated profiles passed the reader")
        #expect(accepted > 0, "seed \(seed): every mutation was refused, so the test shows nothing")
    }
}

