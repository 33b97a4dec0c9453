/// A failure that stops the whole run (nothing could be written).
public struct SheetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Whose fault it is, which decides the exit status.
    public enum Kind: Sendable, Hashable {
        /// The inputs or the output could not be used (exit 1).
        case failure
        /// The options cannot work together with these inputs (exit 64, like a usage error).
        case usage
        /// A page painted from a plan file found one of its inputs changed since planning (exit 3).
        case stalePlan
    }

    public let kind: Kind
    public let message: String
    public init(_ message: String) { self.init(.failure, message) }
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { message }
}
