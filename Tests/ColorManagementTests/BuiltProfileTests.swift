import ColorManagement
import Foundation
import Testing

/// The profiles Masonry builds from parameters (PNG `gAMA`/`cHRM`, CICP Display P3 and BT.2020)
/// are the same bytes whenever they are built. lcms stamps a profile it creates with the time of
/// day; a profile's digest is part of the thumbnail cache key and of the header a decoder
/// compares with the header pass's, so a stamp made a second later read as a changed file and
/// missed the cache.
@Suite struct BuiltProfileTests {
    static let spaces: [(String, SourceColorSpace, ICCProfile.ColorModel)] = [
        ("gAMA 0.55556 (RGB)", .pngGamma(gamma: 55556, chromaticities: nil), .rgb),
        ("gAMA 0.45455 + cHRM", .pngGamma(gamma: 45455, chromaticities: .displayP3), .rgb),
        ("gAMA 1.00000 (grey)", .pngGamma(gamma: 100000, chromaticities: nil), .grey),
        ("Display P3", .displayP3, .rgb),
        ("BT.2020", .bt2020, .rgb),
    ]

    @Test func aProfileBuiltAfterTheClockTicksHasTheSameBytes() throws {
        let before = try Self.spaces.map { name, space, model in try #require(space.profile(for: model), "\(name)") }
        let second = time(nil)
        while time(nil) == second { usleep(10_000) }
        let after = try Self.spaces.map { name, space, model in try #require(space.profile(for: model), "\(name)") }
        for (index, (name, _, _)) in Self.spaces.enumerated() {
            #expect(before[index].bytes == after[index].bytes, "\(name)")
            #expect(before[index].digest == after[index].digest, "\(name)")
        }
    }

    /// The ICC header's creation date (bytes 24-35) is 2000-01-01 00:00:00, whatever the clock says.
    @Test func theCreationDateIsFixed() throws {
        for (name, space, model) in Self.spaces {
            let profile = try #require(space.profile(for: model), "\(name)")
            #expect(Array(profile.bytes[24 ..< 36]) == [0x07, 0xD0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0], "\(name)")
        }
    }
}
