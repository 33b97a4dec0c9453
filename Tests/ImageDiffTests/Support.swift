// Helpers for the ImageDiff tests: fixtures, goldens, and running a diff over whole images.
import Foundation
import ImageDiff
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// This target's fixtures.
let fixtureFolder = FixtureFolder(in: .module)

/// A straight RGBA8 image in memory.
struct RGBAImage: Sendable, Equatable {
    var width: Int, height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == 4 * width * height)
        self.width = width; self.height = height; self.pixels = pixels
    }

    init(decoding relative: String) throws {
        let image = try PNGDecoder.decodeRGBA(contentsOfFile: fixtureFolder.path(relative))
        self.init(width: image.width, height: image.height, pixels: image.pixels)
    }

    func row(_ y: Int) -> ArraySlice<UInt8> { pixels[4 * width * y ..< 4 * width * (y + 1)] }
}

/// What a streamed diff of two whole images gives.
struct DiffResult: Equatable, CustomStringConvertible {
    var diffPixels: Int, aaPixels: Int
    var bounds: PixelRect?
    var classes: [UInt8]
    var picture: [UInt8]
    var findings: PairFindings

    var description: String { "diff \(diffPixels) aa \(aaPixels) bounds \(String(describing: bounds))" }
}

/// Runs `CanvasDiff` over two images, pushing rows in lockstep and painting the picture from the
/// diff's own baseline rows; checks that rows are emitted once each, in order. With
/// `compactOpaque`, an image whose alpha is 255 everywhere is pushed as RGB8 rows.
func streamedDiff(_ baseline: RGBAImage, _ current: RGBAImage, options: DiffOptions, compactOpaque: Bool = false,
                  ignore: IgnoreMask? = nil) -> DiffResult {
    let diff = CanvasDiff(baselineWidth: baseline.width, baselineHeight: baseline.height,
                          currentWidth: current.width, currentHeight: current.height, options: options, ignore: ignore)
    var classes: [UInt8] = [], picture: [UInt8] = []
    var pictureRow = [UInt8](repeating: 0, count: 4 * diff.canvasWidth)
    let collect: (Int, UnsafeBufferPointer<UInt8>) -> Void = { y, row in
        #expect(y == classes.count / diff.canvasWidth, "row \(y) emitted out of order")
        classes += row
        pictureRow.withUnsafeMutableBufferPointer { diff.paintPictureRow(y, classes: row, into: $0) }
        picture += pictureRow
    }
    let compactBaseline = compactOpaque && baseline.isOpaque, compactCurrent = compactOpaque && current.isOpaque
    for y in 0..<diff.overlapHeight {
        baseline.pushedRow(y, compact: compactBaseline).withUnsafeBufferPointer { b in
            current.pushedRow(y, compact: compactCurrent).withUnsafeBufferPointer { c in diff.push(baseline: b, current: c, emit: collect) }
        }
    }
    diff.finish(emit: collect)
    #expect(classes.count == diff.canvasWidth * diff.canvasHeight)
    return DiffResult(diffPixels: diff.diffPixels, aaPixels: diff.aaPixels, bounds: diff.bounds,
                      classes: classes, picture: picture, findings: diff.findings)
}

extension RGBAImage {
    var isOpaque: Bool { stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 } }

    /// Row `y` as RGBA8, or as RGB8 (alpha dropped) when `compact`.
    func pushedRow(_ y: Int, compact: Bool) -> [UInt8] {
        let rgba = Array(row(y))
        guard compact else { return rgba }
        return rgba.indices.filter { $0 % 4 != 3 }.map { rgba[$0] }
    }
}
