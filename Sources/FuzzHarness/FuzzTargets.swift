/// Every fuzz target, by name. A new parser of outside bytes adds its target here (its file
/// beside this one) and its seeds under `Tests/FuzzReplayTests/Corpus/<name>/`; see
/// `Notes/fuzzing.md`.
public enum FuzzTargets {
    public static let all: [FuzzTarget] = [
        .pngHeader,
        .pngDecode,
        .pngDifferential,
        .jpegHeader,
        .jpegDecode,
        .webpHeader,
        .webpDecode,
        .gifHeader,
        .gifDecode,
        .heifHeader,
        .heifDecode,
        .tiffHeader,
        .tiffDecode,
        .rawHeader,
        .rawDecode,
        .svgHeader,
        .svgDecode,
        .videoHeader,
        .videoDecode,
        .jxlHeader,
        .jxlDecode,
        .sourceHeader,
        .sourceDecode,
        .compareConfig,
        .compareGlob,
        .cacheEntry,
        .cachePageEntry,
        .captionFormat,
        .arguments,
        .iccProfile,
        .pngColorChunks,
        .jpegICC,
        .planFile,
        .textLayout,
    ]

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
