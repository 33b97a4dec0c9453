/// A failure that stops the whole run (nothing could be written).
public struct SheetError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
