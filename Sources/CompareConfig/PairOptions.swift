import ImageDiff

/// What decides one pair's verdict (SPEC §9): pixelmatch's options, the limits, and the regions
/// ignored. Each pair has its own, from the built-in defaults, the config file, the command line
/// and the rules matching its path (`OptionRules`).
public struct PairOptions: Sendable, Hashable {
    public var diff: DiffOptions
    public var limits: CompareLimits
    /// `--ignore` rectangles, in the canvas's coordinates (both images' own).
    public var ignore: [PixelRect]

    public init(diff: DiffOptions = DiffOptions(), limits: CompareLimits = CompareLimits(), ignore: [PixelRect] = []) {
        self.diff = diff
        self.limits = limits
        self.ignore = ignore
    }

    /// These options with every key `overrides` sets replaced.
    public func applying(_ overrides: OptionOverrides) -> PairOptions {
        var options = self
        if let value = overrides.threshold { options.diff.threshold = value }
        if let value = overrides.includeAA { options.diff.includeAA = value }
        if let value = overrides.maxDiffPixels { options.limits.maxDiffPixels = value }
        if let value = overrides.maxDiffRatio { options.limits.maxDiffRatio = value }
        if let value = overrides.allowResize { options.limits.allowResize = value }
        if let value = overrides.failOnMissing { options.limits.failOnMissing = value }
        if let value = overrides.ignore { options.ignore = value }
        return options
    }
}

/// Some of a pair's options, each nil when not set: a config file's top level, the command line,
/// or one rule. Applied key by key (`PairOptions.applying`): a list (`ignore`) replaces, never
/// extends, the one before it.
public struct OptionOverrides: Sendable, Hashable {
    public var threshold: Double?
    public var includeAA: Bool?
    public var maxDiffPixels: Int?
    public var maxDiffRatio: Double?
    public var allowResize: Bool?
    public var failOnMissing: Bool?
    public var ignore: [PixelRect]?

    public init() {}
}

/// One `rules` entry: the paths it applies to and what it sets.
public struct PathRule: Sendable, Hashable {
    public var paths: [PathGlob]
    public var overrides: OptionOverrides

    public init(paths: [PathGlob], overrides: OptionOverrides) {
        self.paths = paths
        self.overrides = overrides
    }

    public func applies(to path: [UInt8]) -> Bool { paths.contains { $0.matches(path) } }
}

/// Every pair's options: `base` (built-in defaults, then the config file's top level, then the
/// command line), then each rule matching the pair's path, in file order (a later rule wins, key
/// by key).
public struct OptionRules: Sendable, Hashable {
    public var base: PairOptions
    public var rules: [PathRule]

    public init(base: PairOptions = PairOptions(), rules: [PathRule] = []) {
        self.base = base
        self.rules = rules
    }

    public func options(for path: [UInt8]) -> PairOptions {
        rules.reduce(base) { options, rule in rule.applies(to: path) ? options.applying(rule.overrides) : options }
    }
}

/// An `--ignore` rectangle as written, `x,y,w,h` (whole numbers, w and h at least 1).
public func parseIgnoreRectangle(_ text: String) -> PixelRect? {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 4,
          parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
          let values = Optional(parts.compactMap { Int($0) }), values.count == 4,
          values.allSatisfy({ $0 <= Int(Int32.max) }), values[2] >= 1, values[3] >= 1 else { return nil }
    return PixelRect(x: values[0], y: values[1], width: values[2], height: values[3])
}
