#if canImport(Glibc)
import Glibc
#endif

/// Makes sure writing a run's outputs cannot destroy one of its inputs or
/// another of its outputs (issue #18).
public enum OutputSafety {
    /// Throws a usage error (`SheetError.Kind.usage`) naming both paths when
    /// an output is the same file as an input or as another output.
    ///
    /// Links are resolved: two paths are the same file when they have the same
    /// device and inode, or, where a file does not exist yet, when they name
    /// the same entry (same resolved parent folder, same name). `inputs` are
    /// the files the scan found; an earlier output found inside an input
    /// folder has already been left out by the scan (SPEC §5).
    public static func check(outputs: [RawPath], inputs: [InputCandidate]) throws(SheetError) {
        let targets = outputs.map(Target.init)
        for (position, target) in targets.enumerated() {
            for other in targets[..<position] where target.isSameFile(as: other) {
                throw SheetError(.usage, "the outputs \(other.path.displayName) and \(target.path.displayName) are the same file; "
                                 + "give each output its own path")
            }
        }
        var outputByIdentity: [FileIdentity: RawPath] = [:]
        for target in targets {
            if let identity = target.file, outputByIdentity[identity] == nil { outputByIdentity[identity] = target.path }
        }
        guard !outputByIdentity.isEmpty else { return }
        // Inputs come in the scan's order, which differs between machines: of several names of
        // an output (hard links), the message names the first in natural order.
        var clash: (input: RawPath, output: RawPath)?
        for input in inputs {
            if let identity = input.identity ?? FileIdentity(path: input.path), let output = outputByIdentity[identity],
               clash.map({ InputOrder.naturalPrecedes(input.path.bytes, $0.input.bytes) }) ?? true {
                clash = (input.path, output)
            }
        }
        if let (input, output) = clash {
            throw SheetError(.usage, "the output \(output.displayName) is the same file as the input \(input.displayName); "
                             + "choose another output path")
        }
    }

    /// An output path and what it resolves to.
    private struct Target {
        let path: RawPath
        /// The file it names, following links, when it exists.
        let file: FileIdentity?
        /// The folder entry the rename will replace: the resolved parent folder and the name.
        let entry: (folder: FileIdentity, name: [UInt8])?

        init(_ path: RawPath) {
            self.path = path
            file = FileIdentity(path: path)
            entry = FileIdentity(path: path.parent).map { ($0, path.lastComponent) }
        }

        func isSameFile(as other: Target) -> Bool {
            if let file, file == other.file { return true }
            if let entry, let otherEntry = other.entry { return entry.folder == otherEntry.folder && entry.name == otherEntry.name }
            return false
        }
    }
}
