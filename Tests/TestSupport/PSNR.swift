import Foundation

/// Peak signal-to-noise ratio of two equally long 8-bit buffers, in dB (infinity when equal).
public func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var squares = 0.0
    for i in a.indices {
        let difference = Double(Int(a[i]) - Int(b[i]))
        squares += difference * difference
    }
    let mse = squares / Double(a.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}
