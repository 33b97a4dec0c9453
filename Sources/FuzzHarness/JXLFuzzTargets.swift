import CodecCore
import JXLCodec

extension FuzzTarget {
    /// Masonry's JPEG XL reader: the container's boxes and the codestream's SizeHeader and
    /// ImageMetadata bits (no libjxl).
    static let jxlHeader = FuzzTarget(name: "jxl-header") { bytes in
        _ = try? JXLHeader(bytes: Array(bytes))
    }

    /// The JPEG XL decoder through the bridge: Masonry's header, then libjxl's header, ICC
    /// profile, frame count and first frame, within the fuzzing limits.
    static let jxlDecode = FuzzTarget(name: "jxl-decode") { bytes in
        _ = withInputFile(bytes) { file in
            guard let header = try? JXLHeader(file: file), DecodeLimits.fuzzing.refusal(width: header.width, height: header.height) == nil
            else { return }
            _ = try? JXLDecoder.frameCount(of: file, header: header)
            guard let decoder = try? JXLDecoder(file: file, limits: .fuzzing) else { return }
            while try decoder.nextRow() != nil {}
        }
    }
}
