#!/usr/bin/env python3
"""Makes the GIF fixtures of GIFCodecTests and their goldens.

Run from the package root:  python3 scripts/make-gif-fixtures.py
Made with Pillow 13.0.0 on Python 3.11. The Swift tests never run Python; they read what this
script wrote into Tests/GIFCodecTests/Fixtures/.

Sources: pictures from SampleImages/ (public domain / CC0, see the LICENSE.md written beside
the fixtures). Each picture is shrunk to ~100-300 px and quantised by Pillow; Pillow's GIF
encoder makes each frame's LZW data, and this script assembles the files around that data
(screen size, colour tables, frame offsets, graphic control extensions, interlace flags), so
that every structure the decoder must handle is present exactly once and on purpose.

For every fixture NAME.gif:
- NAME.golden.png is Pillow's `Image.open(NAME.gif).convert("RGBA")` (frame 0, full size),
  with one change where Pillow and the browsers differ and Masonry follows the browsers: a
  first frame without a transparent index that leaves part of the canvas uncovered. Pillow
  paints palette entry 0 there; browsers (and Masonry) leave it transparent, so the script
  makes those pixels (0, 0, 0, 0). Only `violin-animated-offset-opaque` has such pixels.
  GIF decoding is lossless: the test expects the same alpha everywhere and the same colour
  wherever alpha is not 0.
- NAME.tile.png is the tile Pillow would draw: the golden resized to the tile size with
  Lanczos (Pillow resizes RGBA premultiplied), composited over white, saved as RGB. The tile
  height follows SPEC §1's rounding rule. The tests expect at least 35 dB PSNR (issue #22).
- cases.txt lists: name, canvas width, canvas height, frame count, first frame left, top,
  width, height, interlaced (0/1), transparent index (-1 for none), GIF version, row format
  Masonry must choose (rgb8/rgba8), tile width, tile height.
"""
import io
import os
import struct

from PIL import Image

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SAMPLES = os.path.join(ROOT, "SampleImages")
OUT = os.path.join(ROOT, "Tests", "GIFCodecTests", "Fixtures")


def sample(name, size=None, over_white=False):
    image = Image.open(os.path.join(SAMPLES, name))
    image.load()
    if image.mode == "I;16":
        image = image.point(lambda v: v / 257).convert("L")
    if over_white:
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, rgba).convert("RGB")
    if size is not None:
        image = image.resize(size, Image.LANCZOS)
    return image


def tile_height(tile_width, width, height):
    return max(1, (2 * tile_width * height + width) // (2 * width))


def pillow_frame(image, interlace=False):
    """Pillow's encoding of one P (or L) image: (colour table bytes, LZW code size byte and
    data sub-blocks through their terminator)."""
    buffer = io.BytesIO()
    image.save(buffer, "GIF", interlace=interlace, optimize=False)
    data = buffer.getvalue()
    flags = data[10]
    at = 13
    table = b""
    if flags & 0x80:
        table = data[at:at + 3 * (2 << (flags & 7))]
        at += len(table)
    while data[at] == 0x21:   # extensions Pillow writes before the image
        at += 2
        while data[at]:
            at += 1 + data[at]
        at += 1
    assert data[at] == 0x2C
    image_flags = data[at + 9]
    at += 10
    if image_flags & 0x80:
        table = data[at:at + 3 * (2 << (image_flags & 7))]
        at += len(table)
    assert bool(image_flags & 0x40) == interlace
    start = at
    at += 1
    while data[at]:
        at += 1 + data[at]
    return table, data[start:at + 1]


def table_flags(table):
    """The 'table present + size' bits of a colour table of len(table) bytes."""
    entries = len(table) // 3
    bits = entries.bit_length() - 1
    assert entries == 1 << bits and bits >= 1
    return 0x80 | (bits - 1)


def gif_file(screen, frames, global_table=None, version=b"89a", background=0):
    """Assembles a GIF. Each frame: dict(left, top, image data, width, height, optional local
    table, interlace, transparent index, gce)."""
    out = bytearray(b"GIF" + version + struct.pack("<HH", *screen))
    out += bytes([table_flags(global_table) if global_table else 0, background, 0])
    if global_table:
        out += global_table
    for frame in frames:
        transparent = frame.get("transparent")
        if transparent is not None or frame.get("gce"):
            packed = (1 << 2) | (1 if transparent is not None else 0)   # disposal 1: leave in place
            out += bytes([0x21, 0xF9, 4, packed]) + struct.pack("<H", 10) + bytes([transparent or 0, 0])
        flags = 0x40 if frame.get("interlace") else 0
        local = frame.get("local")
        if local:
            flags |= table_flags(local)
        out += b"\x2C" + struct.pack("<HHHH", frame["left"], frame["top"], frame["width"], frame["height"])
        out += bytes([flags]) + (local or b"") + frame["data"]
    return bytes(out + b";")


def quantised(image, colors):
    return image.convert("RGB").quantize(colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def with_transparency(rgba, colors):
    """A P image of `colors - 1` quantised colours plus index `colors - 1` wherever alpha < 128."""
    p = quantised(rgba.convert("RGB"), colors - 1)
    palette = p.getpalette()[:3 * (colors - 1)] + [255, 0, 255]
    p.putpalette(palette)
    alpha = rgba.getchannel("A")
    p.paste(colors - 1, mask=alpha.point(lambda a: 255 if a < 128 else 0))
    return p, colors - 1


def frame(image, left=0, top=0, interlace=False, transparent=None, local=False, gce=False):
    table, data = pillow_frame(image, interlace)
    result = dict(left=left, top=top, width=image.width, height=image.height, data=data,
                  interlace=interlace, transparent=transparent, gce=gce)
    if local:
        result["local"] = table
    return table, result


def cases():
    made = []

    astronaut = quantised(sample("01-astronaut.png", (224, 224)), 256)
    table, f = frame(astronaut)
    made.append(("astronaut-opaque", gif_file((224, 224), [f], table), 120))

    coffee = quantised(sample("05-coffee-16bit.png", (240, 160)), 64)
    table, f = frame(coffee)
    made.append(("coffee-gif87a", gif_file((240, 160), [f], table, version=b"87a"), 100))

    chelsea = quantised(sample("13-chelsea-cat-palette.png", (300, 200)), 128)
    table, f = frame(chelsea, interlace=True)
    made.append(("chelsea-interlaced", gif_file((300, 200), [f], table), 150))

    strawberry, clear = with_transparency(sample("02-strawberry.png", (203, 265)).convert("RGBA"), 128)
    table, f = frame(strawberry, transparent=clear)
    made.append(("strawberry-transparent", gif_file((203, 265), [f], table), 100))

    tux, clear = with_transparency(sample("18-tux-penguin.png", (206, 324)).convert("RGBA"), 64)
    table, f = frame(tux, interlace=True, transparent=clear)
    made.append(("tux-transparent-interlaced", gif_file((206, 324), [f], table), 90))

    # The frame's own table over a decoy global table of one magenta: drawing with the global
    # table would show magenta everywhere.
    butterfly = quantised(sample("33-butterfly.png", (219, 188), over_white=True), 256)
    table, f = frame(butterfly, local=True)
    decoy = bytes([255, 0, 255]) * 256
    made.append(("butterfly-local-palette", gif_file((219, 188), [f], decoy), 110))

    # Animations: three frames, the first smaller than the screen and placed at an offset.
    car = sample("08-formula-one-car.png", (256, 85)).convert("RGBA")
    car_frames = []
    for step in range(3):
        image, clear = with_transparency(car, 64)
        table, f = frame(image, left=10 + 12 * step, top=18, transparent=clear, local=step > 0)
        car_frames.append(f)
        if step == 0:
            car_table = table
    made.append(("car-animated-offset-transparent", gif_file((300, 120), car_frames, car_table), 150))

    violin = quantised(sample("26-violin.png", (250, 94), over_white=True), 128)
    violin_frames = []
    for step in range(3):
        table, f = frame(violin, left=25 + 5 * step, top=13, gce=True, local=step > 0)
        violin_frames.append(f)
        if step == 0:
            violin_table = table
    made.append(("violin-animated-offset-opaque", gif_file((300, 120), violin_frames, violin_table), 150))

    # Two colours (a 2-entry table, LZW code size 2) and one colour (a 2-entry table of which
    # one entry is used).
    camera = sample("09-camera-16bit-grey.png", (200, 200)).point(lambda v: 1 if v >= 110 else 0)
    two = Image.frombytes("P", camera.size, camera.tobytes())
    two.putpalette([0, 0, 0, 255, 255, 255])
    table, f = frame(two)
    made.append(("camera-two-colours", gif_file((200, 200), [f], table[:6]), 64))

    one = Image.new("P", (120, 80), 0)
    one.putpalette([200, 40, 30, 0, 0, 0])
    table, f = frame(one)
    made.append(("one-colour", gif_file((120, 80), [f], table[:6]), 40))

    # No colour table at all: Pillow reads the indices as grey levels.
    clock = sample("21-clock-motion-blur-grey.png", (200, 150)).convert("L")
    indices = Image.frombytes("P", clock.size, clock.tobytes())
    indices.putpalette([v for v in range(256) for _ in range(3)])
    table, f = frame(indices)
    made.append(("clock-no-palette", gif_file((200, 150), [f]), 100))

    # A logical screen of 0×0: the canvas is the first frame's extent (offset + size).
    hubble = quantised(sample("19-hubble-deep-field-tall.png", (100, 300)), 64)
    table, f = frame(hubble, left=3, top=5)
    made.append(("hubble-screen-zero", gif_file((0, 0), [f], table), 60))
    return made


def describe(path):
    """What Pillow reads, and the golden (browser rule outside an opaque first frame)."""
    image = Image.open(path)
    frames = getattr(image, "n_frames", 1)
    image.seek(0)
    rgba = image.convert("RGBA")
    with open(path, "rb") as f:
        data = f.read()
    # The first image descriptor (this script's files have only GCEs before it).
    at = 13 + (3 * (2 << (data[10] & 7)) if data[10] & 0x80 else 0)
    transparent = -1
    while data[at] == 0x21:
        if data[at + 1] == 0xF9 and data[at + 3] & 1:
            transparent = data[at + 6]
        at += 2
        while data[at]:
            at += 1 + data[at]
        at += 1
    left, top, width, height = struct.unpack("<HHHH", data[at + 1:at + 9])
    interlaced = 1 if data[at + 9] & 0x40 else 0
    if transparent < 0:
        pixels = rgba.load()
        for y in range(rgba.height):
            for x in range(rgba.width):
                if not (left <= x < left + width and top <= y < top + height):
                    pixels[x, y] = (0, 0, 0, 0)
    covers = (left, top, width, height) == (0, 0) + rgba.size
    row_format = "rgb8" if covers and transparent < 0 else "rgba8"
    return rgba, frames, (left, top, width, height, interlaced, transparent), data[3:6].decode(), row_format


def main():
    lines = []
    for name, data, tile_width in cases():
        path = os.path.join(OUT, name + ".gif")
        with open(path, "wb") as f:
            f.write(data)
        golden, frames, first, version, row_format = describe(path)
        golden.save(os.path.join(OUT, name + ".golden.png"), optimize=True)
        tile = (tile_width, tile_height(tile_width, golden.width, golden.height))
        resized = golden.resize(tile, Image.LANCZOS)
        white = Image.new("RGBA", tile, (255, 255, 255, 255))
        Image.alpha_composite(white, resized).convert("RGB").save(os.path.join(OUT, name + ".tile.png"), optimize=True)
        fields = [name, golden.width, golden.height, frames, *first, version, row_format, *tile]
        lines.append(" ".join(str(v) for v in fields))
    with open(os.path.join(OUT, "cases.txt"), "w") as f:
        f.write("# name canvasWidth canvasHeight frames left top width height interlaced transparentIndex version rowFormat tileWidth tileHeight\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
