import JPEGCodec
import PNGCodec
import Raster

/// The header pass: an input's kind and displayed size from its first bytes, by signature
/// (a JPEG named `.png` is read as a JPEG, and the reverse), before anything is allocated for it.
struct ImageHeader: Sendable {
    let width: Int
    let height: Int
    let kind: PlannedImage.Kind

    /// Reads `path`'s header: the PNG signature and IHDR (33 bytes), or a JPEG's markers up to
    /// its first scan (size and EXIF orientation). Sizes over `limits` are refused here.
    static func read(_ path: RawPath, limits: PNGLimits, opener: InputOpener) -> Result<ImageHeader, PNGError> {
        do {
            let header = try opener.withFile(path) { file in
                var prefix = [UInt8](repeating: 0, count: PNGHeader.byteCount)
                let count = try file.readPrefix(into: &prefix)
                if JPEGHeader.hasSignature(prefix[..<count]) {
                    let jpeg = try JPEGHeader(file: file)
                    if let refusal = limits.refusal(width: jpeg.width, height: jpeg.height) { throw refusal }
                    return ImageHeader(width: jpeg.displayWidth, height: jpeg.displayHeight,
                                       kind: .jpeg(orientation: jpeg.orientation))
                }
                guard count < 8 || prefix[0] == 0x89 else { throw PNGError(.malformed, "not a PNG or JPEG file") }
                let png = try PNGHeader(parsing: Array(prefix[..<count]))
                if let refusal = limits.refusal(width: png.width, height: png.height) { throw refusal }
                return ImageHeader(width: png.width, height: png.height, kind: .png)
            }
            return .success(header)
        } catch {
            return .failure(error as? PNGError ?? PNGError(.io, "\(error)"))
        }
    }
}
