/// PNG's row filters (PNG spec §9) in Swift, for the encoder paths that do not go
/// through libpng. Each filtered row starts with its filter type byte.
struct PNGRowFilter {
    let filter: PNGEncodingSettings.Filter
    let bytesPerPixel: Int

    /// Writes the filter type and `row.count` filtered bytes to `output`.
    /// `previous` is the row above (all zeros for the first row).
    func apply(row: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int,
               into output: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutablePointer<UInt8>) {
        guard filter == .adaptive else {
            apply(Self.filterType(for: filter), row: row, previous: previous, count: count, into: output)
            return
        }
        // libpng's heuristic: the filter whose bytes, read as signed, sum to the least.
        var best = Int.max
        for type in 0...4 {
            apply(type, row: row, previous: previous, count: count, into: scratch)
            var score = 0
            for index in 1...count { score += abs(Int(Int8(bitPattern: scratch[index]))) }
            if score < best {
                best = score
                output.update(from: scratch, count: count + 1)
            }
        }
    }

    private static func filterType(for filter: PNGEncodingSettings.Filter) -> Int {
        switch filter {
        case .none: 0
        case .sub: 1
        case .up: 2
        case .average: 3
        case .paeth, .adaptive: 4
        }
    }

    private func apply(_ type: Int, row: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int,
                       into output: UnsafeMutablePointer<UInt8>) {
        output[0] = UInt8(type)
        let out = output + 1
        let lead = min(bytesPerPixel, count)
        switch type {
        case 0:
            out.update(from: row, count: count)
        case 1:
            out.update(from: row, count: lead)
            for index in lead..<count { out[index] = row[index] &- row[index - bytesPerPixel] }
        case 2:
            for index in 0..<count { out[index] = row[index] &- previous[index] }
        case 3:
            for index in 0..<lead { out[index] = row[index] &- previous[index] >> 1 }
            for index in lead..<count {
                out[index] = row[index] &- UInt8((Int(row[index - bytesPerPixel]) + Int(previous[index])) >> 1)
            }
        default:
            for index in 0..<lead { out[index] = row[index] &- previous[index] }
            for index in lead..<count {
                let left = Int(row[index - bytesPerPixel]), up = Int(previous[index])
                let upLeft = Int(previous[index - bytesPerPixel])
                let estimate = left + up - upLeft
                let toLeft = abs(estimate - left), toUp = abs(estimate - up), toUpLeft = abs(estimate - upLeft)
                let predictor = toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft
                out[index] = row[index] &- UInt8(predictor)
            }
        }
    }
}
