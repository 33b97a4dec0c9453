import CodecCore
import MasonrySheet

extension FuzzTarget {
    /// The sheet's header pass over one file, as the product runs it on every input
    /// (`ImageFormats.header(of:limits:)`): detection by priority among every entry of
    /// `ImageFormats.all`, that format's header reader and its `SourceHeader`, then the limits
    /// (`DecodeLimits.fuzzing`) and the whole-picture budget. The per-format header targets stop
    /// at each codec's header; this one reaches what the table computes from it.
    ///
    /// For any file: the pass gives the same answer twice (a decoder later compares its header
    /// with the pass's, and a difference reads as a file changed while it was read); an accepted
    /// header has both sides over 0, its pixels (counted without wrapping) and width within the
    /// limits, no negative decoded pixel count or held bytes, and a frame to draw; a refusal's
    /// reason is one non-empty line without control characters (it is printed after the file's
    /// name and kept in plan files).
    static let sourceHeader = FuzzTarget(name: "source-header") { bytes in
        guard let (first, second) = withInputFile(bytes, { file in
            (SourceHeaderPass(file), SourceHeaderPass(file))
        }) else { return }
        precondition(first == second, "the header pass answered \(first), then \(second)")
        switch first {
        case .accepted(let format, let header):
            let limits = DecodeLimits.fuzzing
            let pixels = header.width.multipliedFullWidth(by: header.height)
            precondition(header.width > 0 && header.height > 0, "\(format) accepted at \(header.width)×\(header.height)")
            precondition(pixels.high == 0 && pixels.low <= UInt(limits.maxPixels) && header.width <= limits.maxWidth,
                         "\(format) of \(header.width)×\(header.height) passed the limits")
            precondition(header.decodedPixels >= 0 && header.wholePictureBytes >= 0,
                         "\(format): \(header.decodedPixels) decoded pixels, \(header.wholePictureBytes) bytes held")
            precondition(header.frameCount >= 1, "\(format) accepted with \(header.frameCount) frames")
        case .refused(let error):
            precondition(!error.reason.isEmpty && !error.reason.unicodeScalars.contains { $0.properties.generalCategory == .control },
                         "reason: \(error.reason.debugDescription)")
        }
    }
}

/// What one run of the header pass answered, comparable with another run's.
enum SourceHeaderPass: Equatable, CustomStringConvertible {
    case accepted(ImageFormat, SourceHeader)
    case refused(ImageError)

    init(_ file: InputFile) {
        do throws(ImageError) {
            let (format, header) = try ImageFormats.header(of: file, limits: .fuzzing)
            self = .accepted(format, header)
        } catch {
            self = .refused(error)
        }
    }

    var description: String {
        switch self {
        case .accepted(let format, let header): "\(format) \(header)"
        case .refused(let error): "refused: \(error.reason)"
        }
    }
}
