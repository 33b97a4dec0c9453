#!/usr/bin/env python3
"""Makes the video fixtures (issue #30) with the ffmpeg CLI, and their references.

- Tests/MasonrySheetTests/Fixtures/Formats/sample.{mp4,mov,mkv,avi}: the format table's
  conformance samples, 48x32 as shown.
- Tests/MasonrySheetTests/Fixtures/Video/: tiny clips of SampleImages/01-astronaut.png panning
  (so every frame differs) in each container and codec, a 90-degree display matrix, a clip under a
  second, a non-square sample aspect ratio; and beside each `<clip>.poster.png`, FFmpeg's own
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
  stream's coded size, sample aspect ratio, clockwise rotation, duration in microseconds: the
  stream's, else the container's, frames where the container counts them, else 0, and the
  transfer characteristics as an ITU-T H.273 number, 0 when unknown), which Masonry's own
  container readers must match.

Run from the repository root: python3 scripts/make-video-fixtures.py [hdr]
("hdr" makes the HDR clips and their references, and headers.txt, alone: the other clips are
not remade bit for bit by every x264 and muxer run).
"""
import json
import pathlib
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
        rotation = next((int(side["rotation"]) for side in stream.get("side_data_list", []) if "rotation" in side), 0)
        duration = stream.get("duration") or data["format"].get("duration")
        sar = stream.get("sample_aspect_ratio", "1:1")
        lines.append(f"{path.parent.name}/{path.name} {stream['width']} {stream['height']} {'1:1' if sar == '0:1' else sar} "
                     f"{-rotation % 360} {round(float(duration) * 1_000_000)} {stream.get('nb_frames', '0')} "
                     f"{transfers.get(stream.get('color_transfer'), 0)}")
    (video / "headers.txt").write_text("\n".join(lines) + "\n")


if sys.argv[1:] == ["hdr"]:
    make_hdr_clips()
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

# End-to-end clips and their posters.
clip(video / "upright.mp4", 64, 48, 2, h264, ["-movflags", "+faststart"])
ffmpeg("-i", str(video / "upright.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", str(video / "rotated.mp4"))
(video / "upright.mp4").unlink()
clip(video / "clip.mov", 64, 48, 3, h264)
clip(video / "vp9.webm", 64, 48, 2, vp9)
clip(video / "clip.mkv", 64, 48, 2, h264)
clip(video / "mpeg4.avi", 64, 48, 2, mpeg4)
clip(video / "short.mp4", 64, 48, 0.5, h264)
clip(video / "wide-pixels.mp4", 32, 48, 2, h264, sar="2/1")
lines = [poster(video / name) for name in
         ["rotated.mp4", "clip.mov", "vp9.webm", "clip.mkv", "mpeg4.avi", "short.mp4", "wide-pixels.mp4"]]
(video / "posters.txt").write_text("# clip shown-width shown-height duration-seconds\n" + "\n".join(lines) + "\n")

# Hostile: a Matroska file of 65 video streams (FFmpeg is told to refuse more than 64).
ffmpeg("-i", str(formats / "sample.mkv"), *sum((["-map", "0:v"] for _ in range(65)), []), "-c", "copy", str(video / "many-streams.mkv"))

make_hdr_clips()
write_headers()
