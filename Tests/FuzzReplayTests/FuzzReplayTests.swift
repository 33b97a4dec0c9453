import Foundation
import FuzzHarness
import Testing

/// Replays every committed fuzz input (seeds, and regression files from findings) through its
/// target's entry point, without libFuzzer, so a fixed finding stays fixed on every machine.
@Suite struct FuzzReplayTests {
    static let corpus = Bundle.module.resourceURL!.appendingPathComponent("Corpus")

    static func inputs(of target: String) -> [URL] {
        let folder = corpus.appendingPathComponent(target)
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? [])
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
    }

    @Test(arguments: FuzzTargets.all.map(\.name))
    func replaysEveryCommittedInput(target name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let files = Self.inputs(of: name)
        #expect(!files.isEmpty, "no seeds in Tests/FuzzReplayTests/Corpus/\(name)/")
        for url in files {
            let bytes = try Data(contentsOf: url)
            bytes.withUnsafeBytes { target.run($0) }
        }
    }

    @Test func everyCorpusFolderHasATarget() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        let names = Set(FuzzTargets.all.map(\.name))
        #expect(Set(folders).subtracting(names).isEmpty, "corpus folders without a target: \(Set(folders).subtracting(names).sorted())")
    }
}
