import Raster

/// A decoder that hands out its rows one at a time, top to bottom (`PNGDecoder`, `JPEGDecoder`):
/// pull with `nextRow()`, or have every row pushed to a closure with `readRows`.
public protocol RowPulling: AnyObject {
    /// The next row, valid until the following call or until the decoder is released; nil
    /// after the last one. A failure is thrown again by every later call.
    func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>?
    /// True once `nextRow()` was called.
    var rowsStarted: Bool { get }
}

/// A decoder as the picture painter and compare read it: rows of one pixel format, top to
/// bottom, in the picture's stored orientation, at the decoder's output size (which may be a
/// shrink-on-load scale of the stored size). Every format's decoder conforms.
public protocol RowSource: RowPulling {
    /// The width and height of the rows handed out.
    var width: Int { get }
    var height: Int { get }
    /// The stored picture's size in row pixels: `(width, height)`, less when the decoder shrank
    /// by whole blocks and the last column or row is a partial block (JPEG's DCT scaling; see
    /// `StreamingResampler`).
    var extent: (width: Double, height: Double) { get }
    var rowFormat: PixelFormat { get }
    /// Damage found after the picture was complete (drawn, with a warning).
    var trailingProblem: ImageError? { get }
}

extension RowSource {
    public var extent: (width: Double, height: Double) { (Double(width), Double(height)) }
}

extension RowPulling {
    /// Delivers every row to `body`, top to bottom: a loop over `nextRow()`. Throws `ImageError`
    /// for a bad file, or whatever `body` throws. Only a decoder none of whose rows were read
    /// can deliver them.
    public func readRows(_ body: (_ y: Int, _ row: UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        guard !rowsStarted else { throw ImageError(.rowsAlreadyRead) }
        var y = 0
        while let row = try nextRow() {
            try body(y, row)
            y += 1
        }
    }
}

/// A pull decoder's bookkeeping: which row comes next, whether the rows ran out, and the
/// failure that ended them.
package struct RowCursor {
    private let height: Int
    package private(set) var started = false
    private var nextY = 0
    private var finished = false
    private var failure: ImageError?

    package init(height: Int) { self.height = height }

    /// Reads row `nextY` with `read`, or, after the last row, runs `finish` (once) and returns
    /// nil. What `read` throws is remembered and thrown again by every later call.
    package mutating func next(read: (_ y: Int) throws(ImageError) -> UnsafeBufferPointer<UInt8>,
                               finish: () -> Void) throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        started = true
        if let failure { throw failure }
        guard nextY < height else {
            if !finished {
                finished = true
                finish()
            }
            return nil
        }
        do {
            let row = try read(nextY)
            nextY += 1
            return row
        } catch {
            failure = error
            throw error
        }
    }
}
