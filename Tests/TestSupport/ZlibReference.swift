import CLibZ

/// zlib's own inflate, the reference that Masonry's deflate output is checked against.
public enum ZlibReference {
    /// What the zlib stream inflates to (at most `expectedCount + 1` bytes, so a stream that
    /// makes too many shows as wrong), or nil when zlib rejects it (bad codes, Adler-32, end).
    public static func inflate(_ stream: [UInt8], expectedCount: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: expectedCount + 1)
        var outCount = uLongf(out.count)
        let status = uncompress(&out, &outCount, stream, uLong(stream.count))
        guard status == Z_OK else { return nil }
        return Array(out[..<Int(outCount)])
    }
}
