import CompareConfig

extension FuzzTarget {
    /// `masonry compare --config`: the JSON reader and the file's keys, rules and globs, then
    /// the rules applied to a few paths.
    static let compareConfig = FuzzTarget(name: "compare-config") { bytes in
        guard let file = try? CompareConfigFile(bytes: Array(bytes)) else { return }
        let rules = OptionRules(base: PairOptions().applying(file.defaults), rules: file.rules)
        for path in ["a.png", "ui/login/dark.png", "caf\u{e9}/x y.png"] { _ = rules.options(for: Array(path.utf8)) }
    }

    /// `--paths` and the rules' globs: the first line is the pattern, every other line a path
    /// matched against it.
    static let compareGlob = FuzzTarget(name: "compare-glob") { bytes in
        let lines = Array(bytes).split(separator: 0x0A, omittingEmptySubsequences: false)
        guard let first = lines.first, let pattern = String(validating: first, as: UTF8.self),
              let glob = try? PathGlob(pattern) else { return }
        for path in lines.dropFirst() { _ = glob.matches(Array(path)) }
    }
}
