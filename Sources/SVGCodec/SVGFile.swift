import CBridgeSupport
import CSVGBridge
import CodecCore

/// An SVG file's document, plain or gzip-compressed (`.svgz`, Inkscape's "compressed SVG"): the
/// one place that knows the difference. A compressed document is one gzip member, inflated by
/// zlib (`CSVGBridge/SVGGzip.c`) into a buffer whose size is known before inflating: the size the
/// member's trailer states (its last 4 bytes), at most `SVGHeader.maxFileBytes`. A member that
/// inflates past it, ends early, fails its CRC-32, or has bytes after it is refused, so a gzip
/// bomb costs at most the stated size of inflating.
public struct SVGFile {
    public let file: InputFile
    /// Whether the file is gzip-compressed.
    public let isCompressed: Bool
    /// The document's size in bytes: the file's, or the size its gzip trailer states.
    public let documentBytes: Int

    /// Opens the document of `file`, refused when it is over `SVGHeader.maxFileBytes`.
    public init(_ file: InputFile) throws(ImageError) {
        self.file = file
        var head = [UInt8](repeating: 0, count: 3)
        let count = try file.readPrefix(into: &head)
        isCompressed = msvg_is_gzip(head, count) != 0
        if isCompressed {
            // A gzip member is at least 10 header and 8 trailer bytes.
            guard file.size >= 18 else { throw ImageError(.malformed, "truncated SVGZ file: its gzip stream ends early") }
            var trailer = [UInt8](repeating: 0, count: 4)
            let read = try trailer.withUnsafeMutableBufferPointer { buffer throws(ImageError) in try file.read(at: file.size - 4, into: buffer) }
            guard read == 4 else { throw ImageError(.changedWhileReading) }
            documentBytes = trailer.reversed().reduce(0) { $0 << 8 | Int($1) }
            guard documentBytes <= SVGHeader.maxFileBytes else {
                throw ImageError(.limitExceeded, "SVGZ document of \(documentBytes) bytes (its gzip trailer's size) is over the \(SVGHeader.maxFileBytes)-byte limit")
            }
        } else {
            documentBytes = file.size
            guard documentBytes <= SVGHeader.maxFileBytes else {
                throw ImageError(.limitExceeded, "SVG file of \(file.size) bytes is over the \(SVGHeader.maxFileBytes)-byte limit")
            }
        }
    }

    /// The document's first bytes, at most `count`.
    public func prefix(_ count: Int) throws(ImageError) -> [UInt8] {
        guard isCompressed else {
            var bytes = [UInt8](repeating: 0, count: min(file.size, count))
            let read = try bytes.withUnsafeMutableBufferPointer { buffer throws(ImageError) in try file.read(at: 0, into: buffer) }
            return Array(bytes[..<read])
        }
        return try inflated(count)
    }

    /// The whole document (`documentBytes` bytes).
    public func document() throws(ImageError) -> [UInt8] {
        guard isCompressed else {
            let bytes = try prefix(documentBytes)
            guard bytes.count == documentBytes else { throw ImageError(.changedWhileReading) }
            return bytes
        }
        return try inflated(documentBytes)
    }

    /// The first `count` bytes of a compressed document; the stream must end by `documentBytes`.
    private func inflated(_ count: Int) throws(ImageError) -> [UInt8] {
        let capacity = min(count, documentBytes)
        let (status, bytes, message) = Self.inflate(descriptor: file.descriptor, fileSize: file.size, input: [], capacity: capacity)
        switch status {
        case MB_OK: return bytes
        case MB_LIMIT where capacity < documentBytes: return bytes
        case MB_LIMIT: throw ImageError(.malformed, "SVGZ document inflates past the \(documentBytes) bytes its gzip trailer states")
        default: throw ImageError(bridge: status, message: message, fallback: "cannot inflate the SVGZ file")
        }
    }

    /// What a file's first bytes inflate to, at most `count` bytes (`prefix` itself when it is
    /// not gzip): what detection looks for an SVG prolog in.
    public static func inflatedPrefix(_ prefix: [UInt8], count: Int) -> [UInt8] {
        guard msvg_is_gzip(prefix, prefix.count) != 0 else { return prefix }
        return inflate(descriptor: -1, fileSize: 0, input: prefix, capacity: count).bytes
    }

    private static func inflate(descriptor: Int32, fileSize: Int, input: [UInt8], capacity: Int)
        -> (status: mb_status, bytes: [UInt8], message: mb_message) {
        var message = mb_message()
        var produced = 0
        var bytes = [UInt8](repeating: 0, count: capacity)
        let status = bytes.withUnsafeMutableBufferPointer { out in
            msvg_gunzip(descriptor, Int64(fileSize), input, input.count, out.baseAddress, capacity, &produced, &message)
        }
        bytes.removeSubrange(produced...)
        return (status, bytes, message)
    }
}
