/// Bytes of a file as a message quotes them (a box's type, a container's DocType): printable
/// ASCII as it is, every other byte shown as '?', so a damaged file's bytes never reach a
/// terminal or break a reason's one line.
package func printableASCII(_ bytes: some Collection<UInt8>) -> String {
    String(bytes.map { (0x20...0x7E).contains($0) ? Character(Unicode.Scalar($0)) : "?" })
}

/// A box's or chunk's four-character code as text (`printableASCII` of its four bytes).
package func fourCC(_ bytes: ArraySlice<UInt8>) -> String { printableASCII(bytes) }
