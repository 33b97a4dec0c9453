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
    public func goldenFields(_ relative: String) -> [[String]] {
        let text = (try? text(relative)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ").map(String.init) }
    }

    /// The `.png` file names in a sub-folder, sorted.
    public func pngNames(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(folder))) ?? []
        return names.filter { $0.lowercased().hasSuffix(".png") }.sorted()
    }
}
