#!/usr/bin/env python3
"""peer-tile-quality.py: how close each sheet's tiles are to a reference, for
scripts/compare-peers.sh --quality.

    scripts/peer-tile-quality.py MANIFEST.json SHEET.png [SHEET.png ...]

MANIFEST is masonry's manifest of the layout (masonry --plan-only --manifest); every sheet
given must place its tiles the same way (compare-peers.sh's peers do). For each tile, the
reference is Pillow's full-size decode of the file (pillow-heif for HEIC and HEIF: the primary
image with its transformations, never an embedded thumbnail), ImageOps.exif_transpose for the
other formats, resized with Lanczos to the tile and composited over white. Prints, per sheet,
the mean and lowest PSNR over the tiles, and the tile with the lowest.

The last row and column of each tile are left out of the comparison: vipsthumbnail rounds a
few tile heights the other way, and a one-pixel strip of background would otherwise dominate.
Needs Pillow, pillow-heif and numpy.
"""
import json
import math
import sys

import numpy as np
from PIL import Image, ImageOps
import pillow_heif

pillow_heif.register_heif_opener()
Image.MAX_IMAGE_PIXELS = None


def reference(path, width, height):
    with Image.open(path) as im:
        if im.format not in ('HEIF', 'AVIF'):
            im = ImageOps.exif_transpose(im)
        im = im.convert('RGBA').resize((width, height), Image.LANCZOS)
    white = Image.new('RGBA', im.size, (255, 255, 255, 255))
    return np.asarray(Image.alpha_composite(white, im).convert('RGB'), dtype=np.float64)


def psnr(a, b):
    mse = float(np.mean((a - b) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    items = json.load(open(sys.argv[1]))['items']
    sheets = {name: np.asarray(Image.open(name).convert('RGB'), dtype=np.float64) for name in sys.argv[2:]}
    scores = {name: [] for name in sheets}
    for item in items:
        rect = item['image']
        x, y, w, h = rect['x'], rect['y'], rect['width'], rect['height']
        if w < 2 or h < 2:
            continue
        ref = reference(item['path'], w, h)[:h - 1, :w - 1]
        for name, sheet in sheets.items():
            scores[name].append((psnr(sheet[y:y + h - 1, x:x + w - 1], ref), item['path']))
    for name, values in scores.items():
        finite = [v for v, _ in values if math.isfinite(v)]
        low, where = min(values)
        mean = sum(finite) / len(finite) if finite else math.inf
        print(f'{name}: {len(values)} tiles, mean PSNR {mean:.1f} dB, lowest {low:.1f} dB ({where.rsplit("/", 1)[-1]})')


if __name__ == '__main__':
    main()
