import CodecCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// One ISOBMFF box: its four-character type, where it starts and where its payload lies (after
/// the 8- or 16-byte header), in the coordinates of the bytes it was found in.
struct Box {
    let type: String
    let start: Int
    let payload: Range<Int>
}

/// The malformed-file error every box check throws.
func malformedHEIF(_ detail: String) -> ImageError {
    ImageError(.malformed, "malformed HEIF file: \(detail)")
}

/// Reads a box header (size, type, optional 64-bit size) at `offset` from `header`, the first
/// up-to-16 bytes there. `limit` is where the enclosing box (or the file) ends; a box that
/// runs past it, a size smaller than its own header, or a size 0 where `zeroSizeAllowed` is
/// false is refused.
func parseBoxHeader(_ header: ArraySlice<UInt8>, at offset: Int, limit: Int, zeroSizeAllowed: Bool,
                    parentName: String) throws(ImageError) -> Box {
    guard header.count >= 8 else { throw malformedHEIF("truncated box header in \(parentName)") }
    let start = header.startIndex
    let size32 = Int(readUInt32(header, start))
    let type = fourCC(header[(start + 4)..<(start + 8)])
    var headerSize = 8
    let size: Int
    switch size32 {
    case 1:
        guard header.count >= 16 else { throw malformedHEIF("truncated box header of '\(type)'") }
        let size64 = UInt64(readUInt32(header, start + 8)) << 32 | UInt64(readUInt32(header, start + 12))
        guard size64 <= UInt64(limit - offset) else { throw pastEnd(type, parentName) }
        size = Int(size64)
        headerSize = 16
    case 0:
        guard zeroSizeAllowed else { throw malformedHEIF("box '\(type)' has size 0 inside \(parentName)") }
        size = limit - offset
    default:
        size = size32
    }
    guard size >= headerSize else { throw malformedHEIF("box '\(type)' claims \(size) bytes, less than its header") }
    guard size <= limit - offset else { throw pastEnd(type, parentName) }
    return Box(type: type, start: offset, payload: (offset + headerSize)..<(offset + size))
}

private func pastEnd(_ type: String, _ parentName: String) -> ImageError {
    parentName == "the file" ? malformedHEIF("box '\(type)' runs past the end of the file")
                             : malformedHEIF("box '\(type)' runs past the end of its parent '\(parentName)'")
}

/// The child boxes filling `range` of `bytes` (a box's payload, after any full-box fields).
func childBoxes(of bytes: [UInt8], in range: Range<Int>, parentName: String) throws(ImageError) -> [Box] {
    var boxes: [Box] = []
    var offset = range.lowerBound
    while offset < range.upperBound {
        let header = bytes[offset..<min(offset + 16, range.upperBound)]
        let box = try parseBoxHeader(header, at: offset, limit: range.upperBound, zeroSizeAllowed: false,
                                     parentName: parentName)
        boxes.append(box)
        offset = box.payload.upperBound
    }
    return boxes
}

func readUInt32(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
    UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
}

/// Big-endian fields read one after the other from a box's payload; reading past its end
/// throws "truncated '<box>' box".
struct FieldReader {
    let bytes: [UInt8]
    let box: String
    private(set) var offset: Int
    let end: Int

    init(_ bytes: [UInt8], _ range: Range<Int>, box: String) {
        self.bytes = bytes
        self.box = box
        offset = range.lowerBound
        end = range.upperBound
    }

    var remaining: Int { end - offset }

    /// An unsigned big-endian number of `size` bytes (0...8; 0 reads nothing and gives 0).
    mutating func number(_ size: Int) throws(ImageError) -> Int {
        guard size <= remaining else { throw malformedHEIF("truncated '\(box)' box") }
        var value: UInt64 = 0
        for index in 0..<size { value = value << 8 | UInt64(bytes[offset + index]) }
        offset += size
        guard value <= UInt64(Int.max) else { throw malformedHEIF("number too large in '\(box)' box") }
        return Int(value)
    }

    mutating func uint8() throws(ImageError) -> Int { try number(1) }
    mutating func uint16() throws(ImageError) -> Int { try number(2) }
    mutating func uint32() throws(ImageError) -> Int { try number(4) }
    mutating func int32() throws(ImageError) -> Int { Int(Int32(truncatingIfNeeded: try number(4))) }

    /// Version and flags of a full box.
    mutating func fullBoxHeader() throws(ImageError) -> (version: Int, flags: Int) {
        let version = try uint8()
        return (version, try number(3))
    }

    mutating func fourCharacters() throws(ImageError) -> String {
        guard remaining >= 4 else { throw malformedHEIF("truncated '\(box)' box") }
        defer { offset += 4 }
        return fourCC(bytes[offset..<(offset + 4)])
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { offset = end }
        return bytes[offset..<end]
    }

    /// Refuses a claimed count of entries at least `entrySize` bytes each that cannot fit
    /// in what is left of the box.
    func check(count: Int, entrySize: Int, what: String) throws(ImageError) {
        guard count <= remaining / max(entrySize, 1) else {
            throw malformedHEIF("'\(box)' box claims \(count) \(what) in \(remaining) bytes")
        }
    }
}
