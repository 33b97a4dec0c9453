import MasonrySheet

extension FuzzTarget {
    /// The plan file reader (`--from-plan`): the bytes as they are, then with the trailer's
    /// length and checksum made right, so mutations inside reach the block and record checks
    /// behind the CRC-32. Either is a plan or one reason; nothing may trap or allocate more than
    /// the bytes back.
    static let planFile = FuzzTarget(name: "plan-file") { bytes in
        let input = Array(bytes)
        for candidate in [input, PlanFile.resealed(input)] {
            switch PlanFile.decodeForFuzzing(candidate) {
            case .success(let images): precondition(images >= 0)
            case .failure(let failure): precondition(!failure.reason.isEmpty && !failure.reason.contains("\n"), "reason: \(failure.reason)")
            }
        }
    }
}
