import CodecCore
import VideoCodec

extension FuzzTarget {
    /// The video signatures and Masonry's own container walks (no FFmpeg): the MP4/MOV boxes,
    /// Matroska's EBML elements and AVI's RIFF chunks, each reader given every input.
    static let videoHeader = FuzzTarget(name: "video-header") { bytes in
        _ = VideoContainer(prefix: bytes)
        _ = withInputFile(bytes) { file in try MP4Header(file: file, container: .mp4) }
        _ = try? MatroskaHeader(bytes: Array(bytes))
        _ = try? AVIHeader(bytes: Array(bytes))
    }

    /// The video decoder: the container its signature names, the header, then FFmpeg's demuxer,
    /// decoder and swscale to a small poster.
    static let videoDecode = FuzzTarget(name: "video-decode") { bytes in
        guard let container = VideoContainer(prefix: bytes) else { return }
        _ = withInputFile(bytes) { file in
            let decoder = try VideoDecoder(file: file, container: container, limits: .fuzzing, minimumWidth: 8, minimumHeight: 8)
            while try decoder.nextRow() != nil {}
        }
    }
}
