import ColorManagement

/// A JPEG's ICC profile, gathered from its APP2 `ICC_PROFILE` segments during the header's
/// segment walk: each segment is "ICC_PROFILE\0", its sequence number (1-based), the segment
/// count, then a piece of the profile. The pieces are joined in sequence order; a missing,
/// duplicate or out-of-range piece, counts that disagree, or more than 4 MiB in all, and the
/// profile is ignored with a warning (the picture is drawn as stored).
struct ICCSegments {
    private var pieces: [Int: [UInt8]] = [:]
    private var declaredCount: Int?
    private var total = 0
    private var problem: ColorProblem?

    static let identifier = Array("ICC_PROFILE".utf8) + [0]

    /// Takes an APP2 segment's payload (after the length); other APP2 segments are ignored.
    mutating func add(_ payload: [UInt8]) {
        guard payload.count >= 14, payload.starts(with: Self.identifier), problem == nil else { return }
        let sequence = Int(payload[12]), count = Int(payload[13])
        guard count >= 1, (1...count).contains(sequence), declaredCount == nil || declaredCount == count else {
            problem = ColorProblem("JPEG ICC profile segment \(sequence) of \(count) out of range: ignored")
            return
        }
        guard pieces[sequence] == nil else {
            problem = ColorProblem("JPEG ICC profile segment \(sequence) repeated: ignored")
            return
        }
        total += payload.count - 14
        guard total <= ICCProfile.maxByteCount else {
            problem = ColorProblem("ICC profile over 4 MiB")
            return
        }
        declaredCount = count
        pieces[sequence] = Array(payload[14...])
    }

    /// The checked profile, or the reason it was ignored; `.none` without ICC segments.
    func embeddedColor() -> EmbeddedColor {
        var color = EmbeddedColor()
        if let problem {
            color.problems.append(problem)
        } else if let declaredCount {
            if pieces.count == declaredCount {
                color.adoptProfile((1...declaredCount).flatMap { pieces[$0]! })
            } else {
                color.problems.append(ColorProblem("JPEG ICC profile has \(pieces.count) of \(declaredCount) segments: ignored"))
            }
        }
        return color
    }
}
