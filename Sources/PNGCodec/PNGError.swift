/// Why a PNG could not be read or written, and whose fault it is.
///
/// `reason` is a short human phrase without the file name ("truncated image
/// data", "not a PNG file"); callers prefix the name.
public struct PNGError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Whose fault an error is.
    public enum Kind: Sendable, Hashable {
        /// The bytes break the PNG format (the file's fault).
        case malformed
        /// The file is valid but asks for more than the configured limits allow.
        case limitExceeded
        /// Reading or writing the underlying file failed (the system's fault).
        case io
        /// The caller asked for something the codec does not do (the caller's fault).
        case unsupported
    }

    public let kind: Kind
    public let reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { reason }
}
