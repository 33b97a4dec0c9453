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

Run from the repository root: python3 scripts/make-video-fixtures.py
"""
import json
import pathlib
import subprocess

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


def poster(path):
    """FFmpeg's frame at 10 % of the duration (the first frame under a second), as shown."""
    duration = probe(path)
    seek = ["-ss", f"{duration / 10:.6f}"] if duration >= 1 else []
    out = path.with_name(path.name + ".poster.png")
    ffmpeg(*seek, "-i", str(path), "-frames:v", "1", "-vf", "scale=trunc(iw*sar+0.5):ih:flags=bicubic+accurate_rnd+full_chroma_int,setsar=1",
           "-pix_fmt", "rgb24", str(out))
    result = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", str(out)],
                            check=True, capture_output=True, text=True)
    width, height = result.stdout.strip().split(",")
    return f"{path.name} {width} {height} {duration:.3f}"


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
