#!/usr/bin/env python3
"""Makes Tests/MasonrySheetTests/Fixtures/Formats/: one small sample per format of the format
table (the format-table tests read each by signature, under every extension, and in compare).
Made from SampleImages/01-astronaut.png (public domain, NASA), shrunk to 48x32, with Pillow
(and pillow-heif for HEIF/AVIF, cjxl for JPEG XL). Run from the repository root:

    python3 scripts/make-format-samples.py
"""
import pathlib
from PIL import Image

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "Tests/MasonrySheetTests/Fixtures/Formats"
out.mkdir(parents=True, exist_ok=True)
picture = Image.open(root / "SampleImages/01-astronaut.png").convert("RGB").resize((48, 32), Image.LANCZOS)
picture.save(out / "sample.png", optimize=True)
picture.save(out / "sample.jpg", quality=90)
picture.save(out / "sample.webp", quality=90, method=6)
picture.quantize(colors=64, dither=Image.Dither.NONE).save(out / "sample.gif")
picture.save(out / "sample.avif", quality=90)
picture.save(out / "sample.tif", compression="tiff_lzw")
import pillow_heif
pillow_heif.from_pillow(picture).save(out / "sample.heic", quality=90)
# SVG: a vector drawing of the same 48x32 (no raster inside: an SVG's image would be an external
# reference), transparent where nothing is drawn, so the sheet's background shows through.
(out / "sample.svg").write_text(
    '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="32" viewBox="0 0 96 64">\n'
    '<rect x="2" y="2" width="92" height="60" rx="10" fill="#10204a"/>\n'
    '<circle cx="48" cy="30" r="18" fill="#f2f2f2" stroke="#d08020" stroke-width="3"/>\n'
    '<rect x="38" y="22" width="20" height="12" rx="4" fill="#203050" fill-opacity="0.8"/>\n'
    '<path d="M10 56 Q48 40 86 56" fill="none" stroke="#ffcc00" stroke-opacity="0.6" stroke-width="4"/>\n'
    '</svg>\n')
# JPEG XL with cjxl (libjxl-tools): lossy, as cameras and browsers write it.
import subprocess
import tempfile
with tempfile.TemporaryDirectory() as work:
    picture.save(pathlib.Path(work) / "sample.png")
    subprocess.run(["cjxl", str(pathlib.Path(work) / "sample.png"), str(out / "sample.jxl"), "-d", "1.0", "--quiet"], check=True)
