import CRasterKernels

/// Which code runs Raster's hot loops (the resampler's filter passes, RGB compositing): the
/// same integers either way, so the same bytes.
enum RasterKernels: Sendable {
    /// Swift with 128-bit vectors (every CPU).
    case portable
    /// The AVX2 functions of CRasterKernels.
    case avx2

    /// AVX2 where this CPU and OS run it.
    static let best: RasterKernels = mrk_avx2_available() != 0 ? .avx2 : .portable
}
