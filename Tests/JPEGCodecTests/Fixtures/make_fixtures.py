#!/usr/bin/env python3
"""Makes the JPEG fixtures and their golden tiles for JPEGCodecTests.

Run from the package root:  python3 Tests/JPEGCodecTests/Fixtures/make_fixtures.py
Made with Pillow 13.0.0 (its bundled libjpeg-turbo) and numpy 2.4.6 on Python 3.11. The Swift tests never
run Python; they read what this script wrote.

Sources: photos from SampleImages/ (public domain / CC0, see LICENSE.md here).

For every fixture JPEG `NAME.jpg` the golden `NAME.golden.png` is what Pillow shows for
the file as a tile: full-size decode, `ImageOps.exif_transpose`, `convert("RGB")` (CMYK
with Pillow's rule, samples read as inverted, with or without an Adobe APP14 marker), `resize(tile, LANCZOS)`, over white (JPEGs are
opaque, so "over white" changes nothing), saved as an RGB PNG. The tile's size is in
display orientation: width chosen below, height from SPEC §1's rounding rule.
`cases.txt` lists: name, tile width, tile height, stored width, stored height,
components, progressive (0/1), EXIF orientation, as Pillow reads them.
"""
import io
import os
import struct

import numpy
from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "..", "SampleImages")


def sample(name):
    image = Image.open(os.path.join(SAMPLES, name))
    image.load()
    return image


def tile_height(tile_width, width, height):
    return max(1, (2 * tile_width * height + width) // (2 * width))


def strip_adobe(data):
    """Removes the APP14 "Adobe" segment. Pillow still reads the samples as inverted
    (Photoshop's convention, which it assumes for every CMYK JPEG); so must we."""
    out = bytearray(data[:2])
    i = 2
    while i < len(data):
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        segment = data[i:i + 2 + length]
        if marker == 0xDA:
            out += data[i:]
            break
        if not (marker == 0xEE and segment[4:9] == b"Adobe"):
            out += segment
        i += 2 + length
    return bytes(out)


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def main():
    astronaut = sample("01-astronaut.png").convert("RGB")                      # 512x512
    coffee = sample("05-coffee-16bit.png").convert("RGB")                     # 600x400 (Pillow reads 16-bit RGB as 8-bit)
    chelsea = sample("13-chelsea-cat-palette.png").convert("RGB")             # 451x300
    # 16-bit grey holding value * 257: the top byte is the 8-bit original.
    camera = Image.fromarray((numpy.asarray(sample("09-camera-16bit-grey.png")).astype(numpy.uint32) >> 8).astype(numpy.uint8), "L")
    hubble = sample("03-hubble-deep-field-panorama.png").convert("RGB").resize((1600, 400), Image.LANCZOS)
    retina = sample("07-retina-tall-strip.png").convert("RGB")                # 470x1411
    coffee_crop = coffee.crop((150, 60, 510, 300))                             # 360x240
    small_cat = chelsea.crop((120, 40, 360, 200))                              # 240x160, asymmetric

    # (name, image, save options, tile width in display orientation, post-processing)
    cases = [
        ("astronaut-q95-444", astronaut, dict(quality=95, subsampling=0), 32, None),
        ("astronaut-q75-420-progressive", astronaut, dict(quality=75, subsampling=2, progressive=True), 100, None),
        ("astronaut-q50-422", astronaut, dict(quality=50, subsampling=1), 290, None),
        ("coffee-q85-420", coffee, dict(quality=85, subsampling=2), 140, None),
        ("coffee-q90-444-progressive", coffee, dict(quality=90, subsampling=0, progressive=True), 72, None),
        ("chelsea-q80-422-progressive", chelsea, dict(quality=80, subsampling=1, progressive=True), 110, None),
        ("camera-grey-q85", camera, dict(quality=85), 64, None),
        ("camera-grey-q70-progressive", camera, dict(quality=70, progressive=True), 200, None),
        ("hubble-q70-420", hubble, dict(quality=70, subsampling=2), 290, None),
        ("retina-q85-420", retina, dict(quality=85, subsampling=2), 100, None),
        ("coffee-cmyk-adobe-q90", coffee_crop.convert("CMYK"), dict(quality=90), 100, None),
        ("coffee-cmyk-no-app14-q90", coffee_crop.convert("CMYK"), dict(quality=90), 100, strip_adobe),
    ]
    for orientation in range(1, 9):
        cases.append((f"cat-orientation-{orientation}", small_cat,
                      dict(quality=90, subsampling=2, exif=exif_with_orientation(orientation)), 56, None))

    lines = []
    for name, image, options, tile_width, post in cases:
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", **options)
        data = buffer.getvalue()
        if post is not None:
            data = post(data)
        path = os.path.join(HERE, name + ".jpg")
        with open(path, "wb") as f:
            f.write(data)

        decoded = Image.open(path)
        decoded.load()
        orientation = decoded.getexif().get(0x0112, 1)
        stored_width, stored_height = decoded.size
        components = {"L": 1, "RGB": 3, "CMYK": 4}[decoded.mode]
        progressive = 1 if decoded.info.get("progressive") or decoded.info.get("progression") else 0
        shown = ImageOps.exif_transpose(decoded).convert("RGB")
        tile = (tile_width, tile_height(tile_width, shown.width, shown.height))
        golden = shown.resize(tile, Image.LANCZOS)
        over_white = Image.new("RGB", tile, (255, 255, 255))
        over_white.paste(golden)
        over_white.save(os.path.join(HERE, name + ".golden.png"), optimize=True)
        lines.append(f"{name} {tile[0]} {tile[1]} {stored_width} {stored_height} {components} {progressive} {orientation}")

    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("# name tileWidth tileHeight storedWidth storedHeight components progressive orientation\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
