import CompareConfig
import Testing

@Suite struct PathGlobTests {
    @Test(arguments: [
        ("*.png", "a.png", true), ("*.png", "ui/a.png", false), ("*.png", ".png", true),
        ("ui/*.png", "ui/a.png", true), ("ui/*.png", "ui/x/a.png", false), ("ui/*", "ui", false),
        ("**/*.png", "a.png", true), ("**/*.png", "a/b/c.png", true), ("**", "a/b/c.png", true),
        ("ui/**", "ui/a.png", true), ("ui/**", "uix/a.png", false), ("ui/**/dark.png", "ui/dark.png", true),
        ("ui/**/dark.png", "ui/a/b/dark.png", true), ("ui/**/dark.png", "ui/a/b/dark.png.bak", false),
        ("a/**/**/b", "a/b", true), ("a/**/**/b", "a/x/y/z/b", true),
        ("?.png", "a.png", true), ("?.png", "ab.png", false), ("?.png", "/.png", false),
        ("?.png", "é.png", true), ("s??.png", "s1.png", false),
        ("*-dark.png", "login-dark.png", true), ("*-dark.png", "login-light.png", false),
        ("a*b*c", "abc", true), ("a*b*c", "a-b-b-c", true), ("a*b*c", "acb", false),
        ("UI/*.png", "ui/a.png", false),
    ]) func matches(pattern: String, path: String, expected: Bool) throws {
        #expect(try PathGlob(pattern).matches(Array(path.utf8)) == expected, "\(pattern) against \(path)")
    }

    /// `?` is one byte of a name that is not UTF-8; `*` crosses any bytes within a segment.
    @Test func matchesRawBytes() throws {
        let latin1: [UInt8] = Array("odd/caf".utf8) + [0xE9] + Array(".png".utf8)
        #expect(try PathGlob("odd/caf?.png").matches(latin1))
        #expect(try PathGlob("odd/*.png").matches(latin1))
        #expect(try !PathGlob("odd/caf??.png").matches(latin1))
    }

    @Test(arguments: [
        ("", "an empty pattern"), ("/a.png", "a pattern is relative to the folders: no leading '/'"),
        ("ui/", "a pattern names files: no trailing '/'"), ("a//b", "an empty segment ('//')"),
        ("a**", "'**' must be a whole segment (as in 'a/**/b')"), ("**b/c", "'**' must be a whole segment (as in 'a/**/b')"),
        ("[ab].png", "'[' is not supported (only *, ** and ? are special)"),
        ("{a,b}.png", "'{' is not supported (only *, ** and ? are special)"),
        ("a\\*.png", "'\\' is not supported (only *, ** and ? are special)"),
    ]) func refusesBadPatterns(pattern: String, reason: String) {
        #expect(throws: PathGlobError.self) { try PathGlob(pattern) }
        do { _ = try PathGlob(pattern) } catch { #expect(error.reason == reason) }
    }
}
