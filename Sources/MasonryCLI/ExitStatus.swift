/// Every exit status of `masonry` (SPEC §3), with the sentence `--help` prints for it.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    /// The sheet was written; skipped inputs were warned about.
    case written = 0
    /// Nothing could be written.
    case nothingWritten = 1
    /// The sheet was written, but an input named on the command line was missing or unreadable,
    /// or, with `--strict`, some input was skipped.
    case incomplete = 2
    /// A page painted from a plan file found one of its inputs changed since planning: nothing was written.
    case stalePlan = 3
    /// A bad option or value, or options that cannot work with these inputs: nothing was written.
    case usage = 64
    /// Interrupted by SIGINT (Ctrl-C); temporary files were removed, earlier outputs kept.
    case interrupted = 130
    /// Stopped by SIGTERM; temporary files were removed, earlier outputs kept.
    case terminated = 143

    /// What the status means, for the EXIT STATUS section of `--help`.
    var meaning: String {
        switch self {
        case .written: "The sheet was written (skipped inputs are warned about)."
        case .nothingWritten: "Nothing could be written (no renderable image, a write that failed, out of file descriptors)."
        case .incomplete: "The sheet was written, but an input argument does not exist or cannot be read, "
            + "or, with --strict, some input was skipped."
        case .stalePlan: "With --from-plan: an input of the page changed since it was planned; nothing was written "
            + "(plan again, or use --replan-changed)."
        case .usage: "Usage error: a bad option or value, options that cannot work with these inputs, an output folder that "
            + "does not exist, or an output that would replace a file Masonry did not write (--overwrite); nothing was written."
        case .interrupted: "Interrupted (SIGINT); earlier outputs are left as they were (SIGHUP gives 129)."
        case .terminated: "Terminated (SIGTERM); earlier outputs are left as they were."
        }
    }
}
