#!/usr/bin/env python3
"""masonry-bench's corpus of the round-3 formats: the bench's photos (PNG) converted, once, to
WebP (lossy, quality 85), GIF (256 colours, no dither), HEIC (heif-enc, quality 80, no thumbnail),
HEIC with a 320 px thumbnail (as an iPhone writes one), AVIF (Pillow, quality 80, speed 8), and
TIFF (tifffile with imagecodecs: LZW with the horizontal predictor in 16-row strips, and every
fourth one tiled 256×256 with Deflate: how scanners and libvips write them; `pip install tifffile
imagecodecs`, only for the TIFF folder), and JPEG XL (cjxl from Debian's libjxl-tools, lossy at
distance 1, effort 7).

    python3 scripts/make-bench-format-corpus.py SOURCE_FOLDER TARGET_FOLDER [COUNT [FORMAT...]]

Takes every len/COUNT-th photo of SOURCE_FOLDER in name order (COUNT defaults to 40) and writes
TARGET_FOLDER/<format>/<stem>.<ext>. Needs Pillow (WebP, GIF, AVIF; `pip install pillow`) and Debian's libheif-examples (heif-enc). masonry-bench runs it when the corpus is missing.
"""
import multiprocessing
import pathlib
import subprocess
import sys
import tempfile

from PIL import Image

FORMATS = ["webp", "gif", "heic", "heic-thumbnails", "avif", "tiff"]   # jxl: only when named (masonry-bench --jxl-only)


def convert(job):
    source, target, formats = job
    picture = Image.open(source)
    picture = picture.convert("RGBA" if "A" in picture.getbands() else "RGB")
    if picture.mode == "RGBA":
        white = Image.new("RGBA", picture.size, (255, 255, 255, 255))
        picture = Image.alpha_composite(white, picture).convert("RGB")
    stem = pathlib.Path(source).stem
    if "tiff" in formats:
        import numpy
        import tifffile
        tiled = sum(stem.encode()) % 4 == 0
        options = dict(compression="zlib", tile=(256, 256)) if tiled else dict(compression="lzw", predictor=True, rowsperstrip=16)
        tifffile.imwrite(target / "tiff" / f"{stem}.tif", numpy.asarray(picture), photometric="rgb", **options)
    if "jxl" in formats:
        with tempfile.NamedTemporaryFile(suffix=".png") as flat:
            picture.save(flat.name)
            subprocess.run(["cjxl", flat.name, str(target / "jxl" / f"{stem}.jxl"), "-d", "1.0", "--quiet", "--num_threads=0"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if formats != FORMATS:
        return
    picture.save(target / "webp" / f"{stem}.webp", quality=85, method=4)
    picture.quantize(colors=256, dither=Image.Dither.NONE).save(target / "gif" / f"{stem}.gif")
    picture.save(target / "avif" / f"{stem}.avif", quality=80, speed=8)
    # Both HEIC folders by libheif's own heif-enc (x265), which can write thumbnails (-t: the
    # longer side), so the two differ only by the thumbnail.
    with tempfile.NamedTemporaryFile(suffix=".png") as flat:
        picture.save(flat.name)
        for folder, extra in [("heic", []), ("heic-thumbnails", ["-t", "320"])]:
            subprocess.run(["heif-enc", "-q", "80", *extra, "-o", str(target / folder / f"{stem}.heic"), flat.name],
                           check=True, stdout=subprocess.DEVNULL)


def main():
    source = pathlib.Path(sys.argv[1])
    target = pathlib.Path(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    photos = sorted(source.glob("*.png"))
    step = max(1, len(photos) // count)
    chosen = photos[::step][:count]
    formats = sys.argv[4:] or FORMATS
    for name in formats:
        (target / name).mkdir(parents=True, exist_ok=True)
    with multiprocessing.Pool() as pool:
        pool.map(convert, [(str(p), target, formats) for p in chosen])


if __name__ == "__main__":
    main()
