/// A failure that stops the whole run (nothing could be written).
public struct SheetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Whose fault the failure is, which decides the exit status (SPEC §3).
    public enum Kind: Sendable, Hashable {
        /// The run could not be done (exit 1).
        case failure
        /// The options ask for something impossible, such as an output that is also an input (exit 64).
        case usage
    }

    public let message: String
    public let kind: Kind
    public init(_ message: String, kind: Kind = .failure) {
        self.message = message
        self.kind = kind
    }
    public var description: String { message }
}
