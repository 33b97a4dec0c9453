import Foundation
import Testing
import TestSupport

/// The README's "Scale out" recipes, run: the Slurm job array of scripts/try-slurm.sh on a
/// single-node cluster this machine starts and stops, and the Kubernetes Indexed Job manifest
/// against the Job schema.
@Suite struct ScaleOutRecipeTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `command` with `arguments` in the repository; status, and stdout + stderr.
    static func run(_ command: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        process.currentDirectoryURL = repository
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    static func installed(_ paths: [String]) -> Bool { paths.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } }
    static let slurmInstalled = installed(["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch"])
        && getuid() == 0
    static let validatorInstalled = (try? run("kubernetes-validate", ["--version"]).status) == 0

    @Test(.enabled(if: slurmInstalled, "Slurm is not installed or this is not root: `make test` installs slurm-wlm and munge"))
    func aSlurmJobArrayPaintsThePlansPagesByteIdenticalToOneMachine() throws {
        let result = try Self.run("bash", ["scripts/try-slurm.sh", "--images", "200", "--pages", "5",
                                           "--masonry", MasonryExecutable.url.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("sacct: all 5 tasks COMPLETED"), "\(result.output)")
        #expect(result.output.contains("byte-identical: 5 pages, s.json and s.html equal the one-machine run's"), "\(result.output)")
        // It left nothing running (a daemon's forked helper may take a moment to exit after it).
        for daemon in ["slurmctld", "slurmd", "munged"] {
            var running = try Self.run("pgrep", ["-a", "-x", daemon])
            for _ in 0..<50 where running.status == 0 {
                usleep(100_000)
                running = try Self.run("pgrep", ["-a", "-x", daemon])
            }
            #expect(running.status == 1, "\(daemon) left running: \(running.output)")
        }
    }

    @Test(.enabled(if: validatorInstalled, "kubernetes-validate is not installed: scripts/validate-kubernetes.sh --install"))
    func theKubernetesIndexedJobIsAValidBatchV1Job() throws {
        let result = try Self.run("bash", ["scripts/validate-kubernetes.sh"])
        #expect(result.status == 0 && result.output.contains("passed for resource job/masonry-pages"), "\(result.output)")
        // The validator refuses a misspelt field, so passing means something.
        let manifest = try String(contentsOf: Self.repository.appendingPathComponent("Examples/kubernetes/masonry-pages.yaml"),
                                  encoding: .utf8)
        #expect(manifest.contains("completionMode: Indexed") && manifest.contains("JOB_COMPLETION_INDEX + 1"))
        let folder = TemporaryFolder()
        let broken = folder.file("broken.yaml")
        try manifest.replacingOccurrences(of: "completionMode: Indexed", with: "completionMod: Indexed")
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let refused = try Self.run("kubernetes-validate", ["--strict", "-k", "1.30.0", broken])
        #expect(refused.status != 0 && refused.output.contains("completionMod"), "\(refused.output)")
    }
}
