import Foundation

/// A test target's copied `Fixtures` folder (`resources: [.copy("Fixtures")]`): paths, bytes,
/// text and golden lines inside it. Each target makes one from its own `Bundle.module`.
public struct FixtureFolder: Sendable {
    public let root: URL

    /// The `Fixtures` folder of `bundle`; stops the test run when the bundle has none.
    public init(in bundle: Bundle) {
        guard let url = bundle.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("Fixtures folder missing from \(bundle.bundlePath)")
        }
        root = url
    }

    public func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    public func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    public func text(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The lines of a goldens file, `#` comments and blank lines left out, split at spaces.
    /// Parameterized suites are built from these before any test runs, where nothing can be
    /// recorded: a missing or empty file stops the run with its name rather than leaving an
    /// empty argument list, which Swift Testing reports as skipped, not failed.
    public func goldenFields(_ relative: String) -> [[String]] {
        guard let text = try? text(relative) else { fatalError("golden file \(path(relative)) is missing or unreadable") }
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ").map(String.init) }
        guard !lines.isEmpty else { fatalError("golden file \(path(relative)) has no lines") }
        return lines
    }

    /// The fields of every golden line made into `T` by `parse`; a line `parse` refuses stops the
    /// run naming the file and the line (never dropped, which would shrink a suite unnoticed).
    public func goldenLines<T>(_ relative: String, _ parse: ([String]) -> T?) -> [T] {
        goldenFields(relative).map { fields in
            guard let value = parse(fields) else { fatalError("malformed line in \(path(relative)): \(fields.joined(separator: " "))") }
            return value
        }
    }

    /// The `.png` file names in a sub-folder, sorted; a missing or empty folder stops the run.
    public func pngNames(in folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path(folder)) else {
            fatalError("fixture folder \(path(folder)) is missing")
        }
        let pngs = names.filter { $0.lowercased().hasSuffix(".png") }.sorted()
        guard !pngs.isEmpty else { fatalError("fixture folder \(path(folder)) holds no PNG") }
        return pngs
    }
}
