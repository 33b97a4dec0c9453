import ColorManagement
import CodecCore
import PNGCodec
import Raster

/// A decoder's rows converted to sRGB by a transform of their own layout (`.rgb8`, `.rgba8`,
/// `.grey8`): for wide-gamut profiles in the picture painter and for `compare
/// --color-management`, which both convert every decoded pixel.
final class ColorConvertedRows: RowSource {
    private let source: any RowSource
    private let transform: ColorTransform
    /// The converted row handed out, allocated by the first `nextRow()`.
    private var row: UnsafeMutableBufferPointer<UInt8>?

    /// `source`'s rows through `profile`, or nil when the profile does not fit its rows (a
    /// CMYK profile, converted while decoding) or lcms refused it (`problem` says why).
    static func converting(_ source: any RowSource, through profile: ICCProfile, colors: ColorTransformCache)
        -> (rows: any RowSource, problem: ColorProblem?) {
        let layout: ColorLayout
        switch (source.rowFormat, profile.colorModel) {
        case (.rgb8, .rgb): layout = .rgb8
        case (.rgba8, .rgb), (.opaqueRGBA8, .rgb): layout = .rgba8
        case (.grey8, .grey): layout = .grey8
        default: return (source, nil)
        }
        switch colors.transform(for: profile, layout: layout) {
        case .success(let transform): return (ColorConvertedRows(source, transform), nil)
        case .failure(let problem): return (source, problem)
        }
    }

    private init(_ source: any RowSource, _ transform: ColorTransform) {
        self.source = source
        self.transform = transform
    }

    deinit { row?.deallocate() }

    var width: Int { source.width }
    var height: Int { source.height }
    var extent: (width: Double, height: Double) { source.extent }
    var rowFormat: PixelFormat { source.rowFormat }
    var trailingProblem: ImageError? { source.trailingProblem }
    var rowsStarted: Bool { source.rowsStarted }

    func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        guard let decoded = try source.nextRow() else { return nil }
        let row = self.row ?? .allocate(capacity: decoded.count)
        self.row = row
        let copy = UnsafeMutableBufferPointer(rebasing: row[..<decoded.count])
        _ = copy.update(fromContentsOf: decoded)
        transform.apply(copy)
        return UnsafeBufferPointer(copy)
    }
}
