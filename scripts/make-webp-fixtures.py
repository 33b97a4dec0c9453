#!/usr/bin/env python3
"""Makes the WebP fixtures of WebPCodecTests and their goldens.

Run from the package root:  python3 scripts/make-webp-fixtures.py
Needs Pillow with WebP (pip: Pillow; made with Pillow 13.0.0, whose bundled libwebp is 1.6.0)
and numpy. The Swift tests never run Python; they read what this script wrote into
Tests/WebPCodecTests/Fixtures/.

Sources: pictures from SampleImages/ (public domain / CC0, see the LICENSE.md written beside
the fixtures). Stills are encoded by Pillow; the containers that need chunks Pillow does not
write the way a test needs (an animation whose first frame sits at an offset on a larger
canvas, EXIF orientations 1-8, an ICC profile) are assembled here chunk by chunk from
Pillow's bitstreams, following the WebP container specification.

Goldens, all from Pillow's own decode (full size, first frame):
- `goldens.txt`: name, Pillow's mode, width, height, frame count, EXIF orientation, ICC
  profile bytes (0 for none), SHA-256 of Pillow's `tobytes()` (stored orientation).
- `NAME.full.png`: Pillow's full-size decode of every lossy fixture (for PSNR; the lossless
  ones are compared by digest, exactly).
- `NAME.tile.png` and `tiles.txt` (name, tile width, tile height): Pillow's tile as issue #22
  describes it: `ImageOps.exif_transpose`, Lanczos to the tile size (display orientation,
  height from SPEC's rounding rule), composited over white, RGB.

The alpha-hint fixtures (`python3 scripts/make-webp-fixtures.py --alpha-hint` writes only
these): lossless pictures whose VP8L header says `alpha_is_used` 0 while their pixels are
transparent, with `alpha-hint.txt` (name, width, height, SHA-256 of `dwebp -pam`'s RGBA, which
decodes with alpha whatever the hint; Pillow and `dwebp -png` follow the hint and draw them
opaque). Needs Debian's `webp` (dwebp).
- `palette-past-end-no-alpha-hint.webp`: a VP8L bitstream written here bit by bit: a
  one-colour palette and indices 0, 1, 0, 1, ...; index 1 is past the palette, so it decodes
  to transparent black (WebP lossless spec, colour-indexing transform).
- `transparent-lossless-no-alpha-hint.webp`: Pillow's lossless encoding of tux with alpha,
  its header's alpha bit cleared.

It also writes the seeds of the `webp-header` and `webp-decode` fuzz targets
(Tests/FuzzReplayTests/Corpus/): four of the fixtures and a 48x32 lossless one with alpha;
and copies six fixtures with their tile goldens to Tests/MasonrySheetTests/Fixtures/WebP/ for
the sheet's end-to-end tile check.
"""
import hashlib
import io
import os
import shutil
import struct
import subprocess
import sys

from PIL import Image, ImageCms, ImageOps

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SAMPLES = os.path.join(ROOT, "SampleImages")
OUT = os.path.join(ROOT, "Tests", "WebPCodecTests", "Fixtures")


def sample(name):
    image = Image.open(os.path.join(SAMPLES, name))
    image.load()
    return image


def le24(value):
    return struct.pack("<I", value)[:3]


def chunk(name, payload):
    data = name.encode("ascii") + struct.pack("<I", len(payload)) + payload
    return data + (b"\0" if len(payload) % 2 else b"")


def riff(chunks):
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def vp8x(flags, width, height):
    return chunk("VP8X", bytes([flags, 0, 0, 0]) + le24(width - 1) + le24(height - 1))


ICC, ALPHA, EXIF, ANIMATION = 0x20, 0x10, 0x08, 0x02


def chunks_of(data):
    """The (name, payload) chunks of a WebP file."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    result, i = [], 12
    while i + 8 <= len(data):
        name, size = data[i:i + 4].decode("ascii"), struct.unpack("<I", data[i + 4:i + 8])[0]
        result.append((name, data[i + 8:i + 8 + size]))
        i += 8 + size + (size & 1)
    return result


def bitstream(image, **options):
    """Pillow's encoding of `image` as the chunks a frame holds (ALPH?, VP8 or VP8L)."""
    buffer = io.BytesIO()
    image.save(buffer, "WEBP", **options)
    return [(n, p) for n, p in chunks_of(buffer.getvalue()) if n in ("ALPH", "VP8 ", "VP8L")]


def still(image, extra_before=(), extra_after=(), flags=0, **options):
    frame = bitstream(image, **options)
    if not extra_before and not extra_after and len(frame) == 1:
        return riff([chunk(n, p) for n, p in frame])
    alpha = ALPHA if image.mode == "RGBA" else 0
    return riff([vp8x(flags | alpha, *image.size)] + list(extra_before)
                + [chunk(n, p) for n, p in frame] + list(extra_after))


def animation(canvas, frames):
    """frames: (image, x, y, duration, options); x and y even."""
    body = [vp8x(ANIMATION | ALPHA, *canvas), chunk("ANIM", bytes([255, 255, 255, 0]) + struct.pack("<H", 0))]
    for image, x, y, duration, options in frames:
        header = le24(x // 2) + le24(y // 2) + le24(image.width - 1) + le24(image.height - 1) + le24(duration)
        payload = header + bytes([0]) + b"".join(chunk(n, p) for n, p in bitstream(image, **options))
        body.append(chunk("ANMF", payload))
    return riff(body)


def exif_block(orientation, prefixed):
    exif = Image.Exif()
    exif[0x0112] = orientation
    data = exif.tobytes()
    assert data.startswith(b"Exif\0\0")
    return data if prefixed else data[6:]


def tile_height(tile_width, width, height):
    return max(1, (2 * tile_width * height + width) // (2 * width))


class BitWriter:
    """Bits least significant first, as VP8L reads them."""
    def __init__(self):
        self.value, self.count = 0, 0

    def put(self, value, count):
        self.value |= (value & ((1 << count) - 1)) << self.count
        self.count += count

    def bytes(self):
        return self.value.to_bytes((self.count + 7) // 8, "little")


def vp8l_one_colour_palette(width, height, argb, packed_green):
    """A VP8L bitstream: a colour-indexing transform of one colour, every prefix code a simple
    one-symbol code (no bits a pixel), each packed pixel's green (8 indices of 1 bit) `packed_green`."""
    def simple_code(bits, symbol):
        bits.put(1, 1)          # simple code
        bits.put(0, 1)          # one symbol
        bits.put(1, 1)          # of 8 bits
        bits.put(symbol, 8)
    alpha, red, green, blue = argb
    bits = BitWriter()
    bits.put(0x2F, 8)
    bits.put(width - 1, 14)
    bits.put(height - 1, 14)
    bits.put(0, 1)              # alpha_is_used: 0
    bits.put(0, 3)              # version
    bits.put(1, 1)              # a transform:
    bits.put(3, 2)              # colour indexing,
    bits.put(0, 8)              # of 1 colour; its palette, a 1x1 image:
    bits.put(0, 1)              # no colour cache
    for symbol in (green, red, blue, alpha, 0):
        simple_code(bits, symbol)
    bits.put(0, 1)              # no more transforms; the main image:
    bits.put(0, 1)              # no colour cache
    bits.put(0, 1)              # no meta prefix codes
    for symbol in (packed_green, 0, 0, 0, 0):
        simple_code(bits, symbol)
    return bits.bytes()


def dwebp_rgba(path):
    """`dwebp -pam`'s pixels: RGBA, straight alpha."""
    pam = subprocess.run(["dwebp", path, "-pam", "-o", "-"], check=True, capture_output=True).stdout
    return pam[pam.index(b"ENDHDR\n") + 7:]


def write_alpha_hint_fixtures():
    tux = sample("18-tux-penguin.png").convert("RGBA")
    tux = tux.resize((96, tile_height(96, *tux.size)), Image.LANCZOS)
    tux_bits = bytearray(dict(bitstream(tux, lossless=True))["VP8L"])
    assert tux_bits[4] & 0x10, "Pillow set the alpha hint"
    tux_bits[4] &= ~0x10        # bit 28 of the 32 after the signature
    cases = [
        ("palette-past-end-no-alpha-hint", riff([chunk("VP8L", vp8l_one_colour_palette(16, 12, (255, 255, 128, 32), 0xAA))])),
        ("transparent-lossless-no-alpha-hint", riff([chunk("VP8L", bytes(tux_bits))])),
    ]
    lines = []
    for name, data in cases:
        path = os.path.join(OUT, name + ".webp")
        with open(path, "wb") as f:
            f.write(data)
        decoded = Image.open(path)
        assert decoded.mode == "RGB", "Pillow follows the hint"
        rgba = dwebp_rgba(path)
        assert len(rgba) == decoded.width * decoded.height * 4 and any(rgba[i] != 255 for i in range(3, len(rgba), 4))
        lines.append(f"{name} {decoded.width} {decoded.height} {hashlib.sha256(rgba).hexdigest()}")
    with open(os.path.join(OUT, "alpha-hint.txt"), "w") as f:
        f.write("# name width height sha256(dwebp -pam RGBA), by scripts/make-webp-fixtures.py --alpha-hint\n")
        f.write("\n".join(lines) + "\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    write_alpha_hint_fixtures()
    if sys.argv[1:] == ["--alpha-hint"]:
        return
    coffee = sample("05-coffee-16bit.png").convert("RGB").crop((150, 60, 510, 300)).resize((300, 200), Image.LANCZOS)
    tux = sample("18-tux-penguin.png").convert("RGBA")
    tux = tux.resize((240, tile_height(240, *tux.size)), Image.LANCZOS)
    fern = sample("06-fern-palette.png").convert("RGBA").convert("RGB")
    fern = fern.resize((256, tile_height(256, *fern.size)), Image.LANCZOS)
    balloon = sample("12-balloon-grey-alpha.png").convert("RGBA")
    balloon = balloon.resize((220, tile_height(220, *balloon.size)), Image.LANCZOS)
    cat = sample("13-chelsea-cat-palette.png").convert("RGB").crop((120, 40, 360, 200))   # 240x160, asymmetric
    astronaut = sample("01-astronaut.png").convert("RGB").resize((240, 240), Image.LANCZOS)
    srgb = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    srgb[24:36] = struct.pack(">6H", 2026, 1, 1, 0, 0, 0)   # the profile's creation date, fixed
    srgb = bytes(srgb)

    # (name, bytes, tile width in display orientation)
    cases = [
        ("coffee-lossy-q80", still(coffee, quality=80), 48),
        ("fern-lossless", still(fern, lossless=True), 100),
        ("balloon-lossy-alpha-q75", still(balloon, quality=75, alpha_quality=90), 64),
        ("tux-lossless-alpha", still(tux, lossless=True), 90),
        ("astronaut-lossy-icc", still(astronaut, extra_before=[chunk("ICCP", srgb)], flags=ICC, quality=85), 70),
        ("animated-3-frames", animation((240, 160), [
            (cat.crop((40, 20, 200, 130)).convert("RGBA"), 40, 30, 100, dict(quality=80)),
            (cat.convert("RGBA"), 0, 0, 100, dict(lossless=True)),
            (cat.crop((0, 0, 64, 48)).convert("RGBA"), 100, 60, 100, dict(quality=60)),
        ]), 80),
    ]
    for orientation in range(1, 9):
        exif = chunk("EXIF", exif_block(orientation, prefixed=orientation == 8))
        cases.append((f"cat-orientation-{orientation}", still(cat, extra_after=[exif], flags=EXIF, quality=85), 56))

    goldens, tiles = [], []
    for name, data, tile_width in cases:
        path = os.path.join(OUT, name + ".webp")
        with open(path, "wb") as f:
            f.write(data)
        decoded = Image.open(path)
        decoded.load()
        frames = getattr(decoded, "n_frames", 1)
        orientation = decoded.getexif().get(0x0112, 1)
        icc = len(decoded.info.get("icc_profile") or b"")
        digest = hashlib.sha256(decoded.tobytes()).hexdigest()
        goldens.append(f"{name} {decoded.mode} {decoded.width} {decoded.height} {frames} {orientation} {icc} {digest}")
        lossy = b"VP8 " in data
        if lossy and not (name.startswith("cat-orientation-") and orientation != 1):
            decoded.save(os.path.join(OUT, name + ".full.png"), optimize=True)

        shown = ImageOps.exif_transpose(decoded)
        tile = (tile_width, tile_height(tile_width, shown.width, shown.height))
        resized = shown.convert("RGBA").resize(tile, Image.LANCZOS)
        over_white = Image.new("RGBA", tile, (255, 255, 255, 255))
        over_white.alpha_composite(resized)
        over_white.convert("RGB").save(os.path.join(OUT, name + ".tile.png"), optimize=True)
        tiles.append(f"{name} {tile[0]} {tile[1]}")

    with open(os.path.join(OUT, "goldens.txt"), "w") as f:
        f.write("# name mode width height frames orientation iccBytes sha256(Pillow tobytes), by scripts/make-webp-fixtures.py\n")
        f.write("\n".join(goldens) + "\n")
    with open(os.path.join(OUT, "tiles.txt"), "w") as f:
        f.write("# name tileWidth tileHeight (display orientation), by scripts/make-webp-fixtures.py\n")
        f.write("\n".join(tiles) + "\n")

    write_fuzz_seeds(astronaut)
    write_sheet_fixtures(tiles)


SHEET_FIXTURES = ("coffee-lossy-q80", "tux-lossless-alpha", "balloon-lossy-alpha-q75", "animated-3-frames",
                  "cat-orientation-3", "cat-orientation-6")


def write_sheet_fixtures(tiles):
    folder = os.path.join(ROOT, "Tests", "MasonrySheetTests", "Fixtures", "WebP")
    os.makedirs(folder, exist_ok=True)
    for name in SHEET_FIXTURES:
        for suffix in (".webp", ".tile.png"):
            shutil.copyfile(os.path.join(OUT, name + suffix), os.path.join(folder, name + suffix))
    with open(os.path.join(folder, "tiles.txt"), "w") as f:
        f.write("# name tileWidth tileHeight (display orientation): Pillow's tiles, by scripts/make-webp-fixtures.py\n")
        f.write("\n".join(line for line in tiles if line.split()[0] in SHEET_FIXTURES) + "\n")


def write_fuzz_seeds(astronaut):
    small = astronaut.resize((48, 32), Image.LANCZOS).convert("RGBA")
    small.putalpha(Image.linear_gradient("L").resize((48, 32)))
    for target in ("webp-header", "webp-decode"):
        folder = os.path.join(ROOT, "Tests", "FuzzReplayTests", "Corpus", target)
        os.makedirs(folder, exist_ok=True)
        for name in ("coffee-lossy-q80", "cat-orientation-8", "balloon-lossy-alpha-q75", "animated-3-frames"):
            shutil.copyfile(os.path.join(OUT, name + ".webp"), os.path.join(folder, name + ".webp"))
        small.save(os.path.join(folder, "astronaut-48x32-lossless-alpha.webp"), lossless=True)


if __name__ == "__main__":
    main()
