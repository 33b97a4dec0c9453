#!/usr/bin/env python3
"""Writes the reference decodes of a folder of HEIF/AVIF conformance files, for
Tests/HEIFCodecTests/HEIFConformanceTests.swift.

    python3 scripts/make-heif-conformance.py FOLDER [ORIGINALS]

For every *.avif, *.avifs and *.heic in FOLDER it runs the reference decoder (never Masonry):
- Pillow's AVIF plugin (Pillow 12+ wheels: libavif 1.x with dav1d) for AVIF, 8-bit, before
  colour management (the ICC profile is attached, not applied, as Masonry's decoder hands the
  picture on). Not Debian's avifdec 0.11: it draws 8-bit monochrome pictures without expanding
  their limited range (mean 63 where the original's is 55), the bug this suite checks for;
- pillow-heif (pip; libheif 1.2x with libde265) for HEIC, 8-bit (`convert_hdr_to_8bit`).
- Link-U's transformed pictures (`kimono.*.avif`: clap, irot, imir): libavif does not apply
  transformations, so their reference is the picture Link-U encoded (read from ORIGINALS, a
  Link-U checkout; default FOLDER) with the file's transformations (as avifdec -i lists them)
  applied here; reference `link-u-original`.
Each drawn picture is reduced by averaging 4×4 blocks (integer mean, rounded; the last columns
and rows that do not fill a block are dropped) and written as `<file>.ref.png` (grey, RGB or
RGBA as the reference decoded it), so the committed references are a sixteenth of the full
size; the test reduces Masonry's decode the same way before its PSNR.

`references.txt` gets one line per file: name, the reference's full width and height (0 0 when
it refused the file), channels (1, 3 or 4; 0 when refused), the reference decoder, and for a
refused file the reference's reason after a `#`.

Needs Pillow 12+ (with its AVIF plugin), numpy and pillow-heif (pip), and avifdec (Debian
libavif-bin) for the transformations it lists.
"""

import glob
import os
import math
import re
import subprocess
import sys

import numpy
from PIL import Image

BLOCK = 4


def reduced(pixels):
    """The 4×4 block means of an H×W×C uint8 array, rounded: (sum + 8) // 16."""
    height, width = pixels.shape[0] // BLOCK * BLOCK, pixels.shape[1] // BLOCK * BLOCK
    blocks = pixels[:height, :width].astype(numpy.uint32)
    blocks = blocks.reshape(height // BLOCK, BLOCK, width // BLOCK, BLOCK, pixels.shape[2])
    return ((blocks.sum(axis=(1, 3)) + BLOCK * BLOCK // 2) // (BLOCK * BLOCK)).astype(numpy.uint8)


def pillow_avif(path):
    """The picture Pillow's AVIF plugin draws (H×W×C, C 1, 3 or 4), or its reason for refusing."""
    from PIL import AvifImagePlugin
    try:
        # The plugin's own class: Image.open would hide libavif's reason behind "cannot identify".
        image = AvifImagePlugin.AvifImageFile(path)
        image.load()
    except Exception as error:   # the reference refuses the file: its reason is recorded
        return None, str(error).splitlines()[0]
    return numpy.asarray(image if image.mode in ("L", "RGB", "RGBA") else image.convert("RGB")).reshape(
        image.height, image.width, -1), ""


def pillow_heif_decode(path):
    import pillow_heif
    try:
        heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=True)
        image = heif.to_pillow()
    except Exception as error:   # the reference refuses the file: its reason is recorded
        return None, str(error).splitlines()[0]
    return numpy.asarray(image.convert("RGBA" if "A" in image.mode else "RGB")), ""


def transformations(path):
    """The clap, irot and imir of an AVIF as avifdec -i lists them (MIAF's order: crop, then
    rotate, then mirror): [("clap", w, h, hOff, vOff) as Fractions, ("irot", n), ("imir", mode)]."""
    from fractions import Fraction
    info = subprocess.run(["avifdec", "--no-strict", "-i", path], capture_output=True, text=True).stdout
    steps = []
    for line in info.splitlines():
        line = line.strip()
        if line.startswith("* clap"):
            numbers = [Fraction(value) for value in re.findall(r"-?\d+/\d+", line)]
            steps.append(("clap", *numbers))
        elif line.startswith("* irot"):
            steps.append(("irot", int(line.split(":")[-1])))
        elif line.startswith("* imir"):
            steps.append(("imir", int(re.search(r"Mode (\d)", line).group(1))))
    return steps


def link_u_original(name, originals):
    """What a transformed Link-U sample shows, or None for other files: the picture Link-U
    encoded (its README: `kimono.png` turned or mirrored as the file's name says, kept as
    `<name>.png`; `kimono.png` for kimono.crop.avif) with the file's transformations applied.
    Link-U's crops sit half a pixel off the grid (MIAF wants whole pixels: libavif's strict
    mode refuses them); as in libheif 1.15, the left edge is rounded down and the top edge to the
    nearest pixel, halves up (measured on both of Link-U's crops)."""
    if not name.startswith("kimono.") or name == "kimono.avif":
        return None
    stem = name[:-len(".avif")].replace(".crop", "")
    path = os.path.join(originals, stem + ".png")
    if not os.path.exists(path):
        sys.exit(f"{name}: the picture it was encoded from, {path}, is missing (give the Link-U checkout as ORIGINALS)")
    from fractions import Fraction
    image = Image.open(path).convert("RGB")
    for step in transformations(os.path.join(originals, name)):
        if step[0] == "clap":
            _, width, height, horizontal, vertical = step
            left = math.floor((image.width - width) / 2 + horizontal)
            top = math.floor((image.height - height) / 2 + vertical + Fraction(1, 2))
            image = image.crop((left, top, left + round(width), top + round(height)))
        elif step[0] == "irot":
            image = image.rotate(90 * step[1], expand=True)   # anti-clockwise
        else:
            image = image.transpose(Image.FLIP_TOP_BOTTOM if step[1] == 0 else Image.FLIP_LEFT_RIGHT)
    return numpy.asarray(image)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    originals = sys.argv[2] if len(sys.argv) > 2 else folder
    from PIL import features
    if not features.check("avif"):
        sys.exit("this Pillow has no AVIF plugin: pip install 'pillow>=12'")
    names = sorted(os.path.basename(p) for pattern in ("*.avif", "*.avifs", "*.heic")
                   for p in glob.glob(os.path.join(folder, pattern)))
    if not names:
        sys.exit(f"no *.avif, *.avifs or *.heic in {folder}")
    lines = ["# name width height channels reference [# reason refused]: written by scripts/make-heif-conformance.py"]
    for name in names:
        path = os.path.join(folder, name)
        original = link_u_original(name, originals)
        if original is not None:
            reference, pixels, reason = "link-u-original", original, ""
        elif name.endswith(".heic"):
            reference = "pillow-heif"
            pixels, reason = pillow_heif_decode(path)
        else:
            reference = "pillow-avif"
            pixels, reason = pillow_avif(path)
        if pixels is None:
            lines.append(f"{name} 0 0 0 {reference} # {reason}")
            continue
        small = reduced(pixels)
        mode = {1: "L", 3: "RGB", 4: "RGBA"}[small.shape[2]]
        Image.fromarray(small[:, :, 0] if mode == "L" else small, mode).save(os.path.join(folder, name + ".ref.png"),
                                                                             optimize=True)
        lines.append(f"{name} {pixels.shape[1]} {pixels.shape[0]} {pixels.shape[2]} {reference}")
    with open(os.path.join(folder, "references.txt"), "w") as out:
        out.write("\n".join(lines) + "\n")
    drawn = sum(1 for line in lines[1:] if " 0 0 0 " not in line)
    print(f"{folder}: {drawn} of {len(names)} files drawn by the reference")


if __name__ == "__main__":
    sys.exit(main())
