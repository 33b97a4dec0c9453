#!/usr/bin/env python3
"""Makes the video fixtures (issue #30) with the ffmpeg CLI, and their references.

- Tests/MasonrySheetTests/Fixtures/Formats/sample.{mp4,mov,mkv,avi}: the format table's
  conformance samples, 48x32 as shown.
- Tests/MasonrySheetTests/Fixtures/Video/: tiny clips of SampleImages/01-astronaut.png panning
  (so every frame differs) in each container and codec, a 90-degree display matrix (MP4
  `tkhd`; Matroska: rotated.mkv, clip.mkv with a Projection roll), a clip under a second, a
  non-square sample aspect ratio; and beside each `<clip>.poster.png`, FFmpeg's own
  poster: `ffmpeg -ss <10 % of the duration> -i clip -frames:v 1` (the first frame at a clip
  under a second), autorotated, its sample aspect ratio applied with `scale=iw*sar:ih`.
  `posters.txt` lists clip, shown width and height, and duration in seconds.
  `many-streams.mkv`: 65 video streams, a hostile file.
- Fixtures/Video/hdr-pq.mkv (HEVC Main 10, SMPTE ST 2084) and hdr-hlg.webm (VP9 profile 2,
  ARIB STD-B67): the astronaut panning, its sRGB white made 1000 cd/m² (zscale npl=1000),
  BT.2020, 10 bits, tagged in the bitstream and the container. Beside each, FFmpeg's poster
  tone-mapped by FFmpeg's own filters (`<clip>.poster.png`, in hdr-posters.txt): zimg
  linearises (reference white 100 cd/m², HLG through BT.2100's OOTF for a 1000 cd/m² display)
  and converts BT.2020 to BT.709, then `tonemap=hable:desat=0:peak=10` and the sRGB curve; and
  `<clip>.as-sdr.png`, the frame converted as if it were SDR (what Masonry drew before).

- Fixtures/Video/headers.txt: what ffprobe says of every clip and sample (the first video
  stream's coded size, sample aspect ratio, display matrix rotation as a clockwise right angle, duration in microseconds: the
  stream's, else the container's, frames where the container counts them, else 0, and the
  transfer characteristics as an ITU-T H.273 number, 0 when unknown), which Masonry's own
  container readers must match.

Run from the repository root: python3 scripts/make-video-fixtures.py [refs]
("refs" makes the clips that are remade bit for bit (the HDR ones, rotated.mkv) and every
reference from the clips as they are: the x264 and Matroska muxer runs of the others do not give
the same bytes twice).
"""
import json
import math
import pathlib
import struct
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
source = root / "SampleImages/01-astronaut.png"
formats = root / "Tests/MasonrySheetTests/Fixtures/Formats"
video = root / "Tests/MasonrySheetTests/Fixtures/Video"
video.mkdir(parents=True, exist_ok=True)


def ffmpeg(*arguments):
    """Runs ffmpeg; the output (the last argument) is written bit-exact (no random ids or dates)."""
    *inputs, output = arguments
    subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *inputs, "-fflags", "+bitexact", output],
                   check=True)


def clip(out, width, height, seconds, codec, extra=(), fps=10, sar=None):
    """The astronaut panning across a width x height window for `seconds`, BT.709 limited range."""
    pan = f"scale={width * 2}:{height * 2},crop={width}:{height}:'min(t*{width}/{seconds},{width})':'min(t*{height}/{seconds},{height})'"
    pan += f",setsar={sar or 1}"
    ffmpeg("-loop", "1", "-framerate", str(fps), "-i", str(source), "-t", str(seconds), "-vf", pan + ",format=yuv420p",
           "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv",
           "-c:v", *codec, *extra, str(out))


def probe(path):
    result = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                             "stream=duration:format=duration", "-of", "json", str(path)],
                            check=True, capture_output=True, text=True)
    data = json.loads(result.stdout)
    duration = data["streams"][0].get("duration") or data["format"].get("duration")
    return float(duration)


AS_SHOWN = "scale=trunc(iw*sar+0.5):ih:flags=bicubic+accurate_rnd+full_chroma_int,setsar=1"
# FFmpeg's HDR to SDR with the operator Masonry names (SPEC 12, Videos): zimg to linear light of
# reference white 100 cd/m^2, BT.2020 to BT.709 primaries, Hable's curve on the brightest
# component to a 1000 cd/m^2 peak without desaturation, the sRGB curve, full range.
TONE_MAPPED = ("zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0:peak=10,"
               "zscale=t=iec61966-2-1:m=bt709:r=pc")


def poster(path, suffix=".poster.png", filters=AS_SHOWN):
    """FFmpeg's frame at 10 % of the duration (the first frame under a second), as shown."""
    duration = probe(path)
    seek = ["-ss", f"{duration / 10:.6f}"] if duration >= 1 else []
    out = path.with_name(path.name + suffix)
    ffmpeg(*seek, "-i", str(path), "-frames:v", "1", "-vf", filters, "-pix_fmt", "rgb24", str(out))
    result = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", str(out)],
                            check=True, capture_output=True, text=True)
    width, height = result.stdout.strip().split(",")
    return f"{path.name} {width} {height} {duration:.3f}"


def hdr_clip(out, transfer, codec):
    """The astronaut panning, 64x36 for 2 s, its sRGB white at 1000 cd/m^2 in BT.2020 and
    `transfer` (zimg's name), 10-bit 4:2:0 limited range."""
    pan = "scale=128:72,crop=64:36:'min(t*32,64)':'min(t*18,36)',setsar=1"
    ffmpeg("-loop", "1", "-framerate", "10", "-i", str(source), "-t", "2", "-vf",
           pan + f",format=gbrpf32le,zscale=tin=iec61966-2-1:pin=bt709:min=gbr:t={transfer}:p=bt2020:m=bt2020nc:r=tv:npl=1000"
           ",format=yuv420p10le", "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc",
           "-color_range", "tv", "-c:v", *codec, str(out))
    poster(out, ".as-sdr.png", "scale=flags=bicubic+accurate_rnd+full_chroma_int")
    return poster(out, filters=TONE_MAPPED)


def make_hdr_clips():
    x265 = ["libx265", "-preset", "medium", "-crf", "22", "-g", "5",
            "-x265-params", "log-level=error:pools=1:frame-threads=1:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc"]
    vp9_10bit = ["libvpx-vp9", "-profile:v", "2", "-crf", "30", "-b:v", "0", "-g", "5", "-threads", "1", "-deadline", "good",
                 "-cpu-used", "4"]
    lines = [hdr_clip(video / "hdr-pq.mkv", "smpte2084", x265), hdr_clip(video / "hdr-hlg.webm", "arib-std-b67", vp9_10bit)]
    (video / "hdr-posters.txt").write_text("# clip shown-width shown-height duration-seconds\n" + "\n".join(lines) + "\n")


def write_headers():
    """ffprobe's reading of every video fixture, one line each (see the docstring)."""
    lines = ["# file width height sar rotation-clockwise duration-microseconds frames transfer"]
    transfers = {"bt709": 1, "smpte2084": 16, "arib-std-b67": 18}
    paths = sorted(formats.glob("sample.*")) + sorted(video.iterdir())
    for path in paths:
        if path.suffix not in (".mp4", ".mov", ".mkv", ".webm", ".avi") or path.name == "many-streams.mkv":
            continue
        result = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                 "stream=width,height,sample_aspect_ratio,duration,nb_frames,color_transfer:stream_side_data=rotation:format=duration",
                                 "-of", "json", str(path)], check=True, capture_output=True, text=True)
        data = json.loads(result.stdout)
        stream = data["streams"][0]
        counterclockwise = next((int(side["rotation"]) for side in stream.get("side_data_list", []) if "rotation" in side), 0)
        # To the nearest right angle, clockwise, halves away from zero (C's lround), as a sheet turns it.
        quarter = -counterclockwise / 90
        rotation = int(math.copysign(math.floor(abs(quarter) + 0.5), quarter)) * 90 % 360
        duration = stream.get("duration") or data["format"].get("duration")
        sar = stream.get("sample_aspect_ratio", "1:1")
        lines.append(f"{path.parent.name}/{path.name} {stream['width']} {stream['height']} {'1:1' if sar == '0:1' else sar} "
                     f"{rotation} {round(float(duration) * 1_000_000)} {stream.get('nb_frames', '0')} "
                     f"{transfers.get(stream.get('color_transfer'), 0)}")
    (video / "headers.txt").write_text("\n".join(lines) + "\n")


def matroska_rolled(source, out, roll, yaw=0.0, pitch=0.0):
    """`source` (a Matroska file of FFmpeg's) with a rectangular Projection of pose `yaw`,
    `pitch`, `roll` degrees in its video track, which FFmpeg 5.1 turns into a display matrix (its
    muxer writes none). The Segment, Tracks, TrackEntry and Video elements are written again with
    8-byte sizes; SeekHead and Cues, whose positions would be stale, are left out."""
    data = source.read_bytes()
    masters = {0x18538067, 0x1654AE6B, 0xAE, 0xE0}

    def vint(at, keep_marker=False):
        length = 9 - data[at].bit_length()
        value = data[at] if keep_marker else data[at] & ((1 << (8 - length)) - 1)
        for byte in data[at + 1:at + length]:
            value = value << 8 | byte
        return value, length

    def parse(start, end):
        elements, at = [], start
        while at < end:
            element_id, id_length = vint(at, keep_marker=True)
            size, size_length = vint(at + id_length)
            data_start = at + id_length + size_length
            if size == (1 << (7 * size_length)) - 1:
                size = end - data_start
            payload = data[data_start:data_start + size]
            elements.append([element_id, parse(data_start, data_start + size) if element_id in masters else payload])
            at = data_start + size
        return elements

    def write(elements):
        out_bytes = b""
        for element_id, value in elements:
            payload = write(value) if isinstance(value, list) else value
            out_bytes += element_id.to_bytes((element_id.bit_length() + 7) // 8, "big") + b"\x01" + len(payload).to_bytes(7, "big") + payload
        return out_bytes

    def child(elements, element_id):
        return next(value for found, value in elements if found == element_id)

    tree = parse(0, len(data))
    segment = child(tree, 0x18538067)
    segment[:] = [element for element in segment if element[0] not in (0x114D9B74, 0x1C53BB6B)]
    video_element = child(child(child(segment, 0x1654AE6B), 0xAE), 0xE0)
    pose = [[0x7673, struct.pack(">f", yaw)], [0x7674, struct.pack(">f", pitch)], [0x7675, struct.pack(">f", roll)]]
    video_element.append([0x7670, [[0x7671, b"\x00"]] + pose])
    out.write_bytes(write(tree))


def make_remade_clips():
    """The clips made again bit for bit on every run: the HDR clips, rotated.mkv (clip.mkv
    turned by a Projection roll of 90 degrees counter-clockwise), and sample.mkv in other poses
    (pose-*.mkv: mirrored by a yaw of 180 degrees, a pitch FFmpeg ignores, ...), for headers.txt."""
    make_hdr_clips()
    matroska_rolled(video / "clip.mkv", video / "rotated.mkv", 90.0)
    for roll, yaw, pitch in [(-90, 0, 0), (120, 0, 0), (30, 0, 0), (90, 180, 0), (180, -180, 0), (90, 0, 5)]:
        matroska_rolled(formats / "sample.mkv", video / f"pose-roll{roll}-yaw{yaw}-pitch{pitch}.mkv", roll, yaw, pitch)


def write_posters():
    """FFmpeg's poster of every SDR clip, and posters.txt."""
    lines = [poster(video / name) for name in
             ["rotated.mp4", "clip.mov", "vp9.webm", "clip.mkv", "rotated.mkv", "mpeg4.avi", "short.mp4", "wide-pixels.mp4"]]
    (video / "posters.txt").write_text("# clip shown-width shown-height duration-seconds\n" + "\n".join(lines) + "\n")


if sys.argv[1:] == ["refs"]:
    make_remade_clips()
    write_posters()
    write_headers()
    sys.exit(0)

h264 = ["libx264", "-preset", "veryslow", "-crf", "20", "-g", "5", "-bf", "2", "-x264-params", "threads=1"]
mpeg4 = ["mpeg4", "-q:v", "3", "-g", "5"]
vp9 = ["libvpx-vp9", "-crf", "30", "-b:v", "0", "-g", "5", "-threads", "1", "-deadline", "good", "-cpu-used", "4"]

# Conformance samples, 48x32 as shown, of one frame (the format-table tests hold every sample
# to one frame; the clips below have many).
one_frame = ["-frames:v", "1"]
clip(formats / "sample.mp4", 48, 32, 2, h264, one_frame + ["-movflags", "+faststart"])
clip(formats / "sample.mov", 48, 32, 2, h264, one_frame)
clip(formats / "sample.mkv", 48, 32, 2, vp9, one_frame)
clip(formats / "sample.avi", 48, 32, 2, mpeg4, one_frame)

# End-to-end clips.
clip(video / "upright.mp4", 64, 48, 2, h264, ["-movflags", "+faststart"])
ffmpeg("-i", str(video / "upright.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", str(video / "rotated.mp4"))
(video / "upright.mp4").unlink()
clip(video / "clip.mov", 64, 48, 3, h264)
clip(video / "vp9.webm", 64, 48, 2, vp9)
clip(video / "clip.mkv", 64, 48, 2, h264)
clip(video / "mpeg4.avi", 64, 48, 2, mpeg4)
clip(video / "short.mp4", 64, 48, 0.5, h264)
clip(video / "wide-pixels.mp4", 32, 48, 2, h264, sar="2/1")

# Hostile: a Matroska file of 65 video streams (FFmpeg is told to refuse more than 64).
ffmpeg("-i", str(formats / "sample.mkv"), *sum((["-map", "0:v"] for _ in range(65)), []), "-c", "copy", str(video / "many-streams.mkv"))

make_remade_clips()
write_posters()
write_headers()
