import MasonryCLI
import MasonrySheet

extension FuzzTarget {
    /// The `--caption` format parser.
    static let captionFormat = FuzzTarget(name: "caption-format") { bytes in
        _ = try? CaptionFormat(parsing: String(decoding: bytes, as: UTF8.self))
    }

    /// The argument parser and option validation of a render and of `masonry compare`: the
    /// bytes split at NUL into arguments (without the program name). Parsing reads no file.
    static let arguments = FuzzTarget(name: "arguments") { bytes in
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
        _ = MasonryCommand.usageError(in: arguments)
    }
}
