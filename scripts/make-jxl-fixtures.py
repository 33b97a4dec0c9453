#!/usr/bin/env python3
"""Makes Tests/JXLCodecTests/Fixtures/: small JPEG XL files made with cjxl (libjxl-tools 0.7)
and their references, decoded by djxl and checked against pillow-jxl-plugin (Pillow's JPEG XL
plugin, a second decoder), committed as 8-bit PNG goldens. Masonry's code makes none of them.

    python3 scripts/make-jxl-fixtures.py      (needs cjxl, djxl, Pillow, pillow-jxl-plugin, NumPy)

Each NAME.jxl has NAME.png, the first frame's pixels in the stored orientation (8 bits a
sample, 16-bit samples rounded as (v * 255 + 32767) // 65535), and a line in references.txt:
NAME width height orientation frames channels, the values djxl/Pillow report. The orientation-K
files also have NAME.djxl.png, djxl's output with the orientation applied.

The orientation-K files are a lossless 8-bit RGB codestream (from a PPM) with its ImageMetadata rewritten bit by bit to
carry orientation K (cjxl 0.7 has no flag for it); djxl, which applies the orientation, must
then give the reference turned as EXIF orientation K says, which this script checks.
Hostile files (hostile/) are cut or forged from the good ones.
"""
import pathlib
import subprocess
import tempfile

import numpy as np
from PIL import Image
import pillow_jxl  # noqa: F401  (registers the JPEG XL plugin)

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "Tests/JXLCodecTests/Fixtures"
(out / "hostile").mkdir(parents=True, exist_ok=True)
work = pathlib.Path(tempfile.mkdtemp())
source = Image.open(root / "SampleImages/01-astronaut.png").convert("RGB").resize((64, 48), Image.LANCZOS)
references = []


def cjxl(picture_path, name, *options):
    subprocess.run(["cjxl", str(picture_path), str(out / f"{name}.jxl"), "--quiet", "--num_threads=0", *options], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def djxl_pixels(name):
    """djxl's decode as an array (orientation applied, as djxl does), 8 bits a sample."""
    png = work / f"{name}.png"
    subprocess.run(["djxl", str(out / f"{name}.jxl"), str(png), "--quiet", "--num_threads=0"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    picture = Image.open(png)
    picture.load()
    pixels = np.asarray(picture)
    return pixels


def record(name, pixels, orientation=1, frames=1):
    if pixels.ndim == 2:
        mode, channels = "L", 1
    else:
        channels = pixels.shape[2]
        mode = {3: "RGB", 4: "RGBA"}[channels]
    Image.fromarray(pixels, mode).save(out / f"{name}.png", optimize=True)
    height, width = pixels.shape[:2]
    references.append(f"{name} {width} {height} {orientation} {frames} {channels}")


# Lossless 8-bit RGB, naked codestream and container: djxl must give the source back exactly.
source.save(work / "rgb8.png")
cjxl(work / "rgb8.png", "rgb8-lossless", "-d", "0", "--container=0")
cjxl(work / "rgb8.png", "rgb8-lossless-container", "-d", "0", "--container=1")
for name in ["rgb8-lossless", "rgb8-lossless-container"]:
    assert (djxl_pixels(name) == np.asarray(source)).all(), name
    assert (np.asarray(Image.open(out / f"{name}.jxl").convert("RGB")) == np.asarray(source)).all(), name
    record(name, np.asarray(source))

# Lossless 16-bit RGB (from the 16-bit sample photo).
coffee = Image.open(root / "SampleImages/05-coffee-16bit.png")
# (Pillow reads it as 8-bit: the low byte is made from a pattern, so the samples are truly 16-bit)
rows, columns = np.mgrid[0:48, 0:64]
coffee16 = np.asarray(coffee).astype(np.uint16)[:48, :64] * 256 + ((rows * 37 + columns * 11) % 256)[..., None].astype(np.uint16)
# Pillow cannot write 16-bit RGB PNGs: a PPM of maxval 65535, which cjxl reads as 16 bits.
ppm = work / "rgb16.ppm"
with open(ppm, "wb") as handle:
    handle.write(b"P6\n64 48\n65535\n" + coffee16.astype(">u2").tobytes())
cjxl(ppm, "rgb16-lossless", "-d", "0")
# djxl's 16-bit output as a PPM (Pillow reads 16-bit RGB PNGs as 8-bit), rounded to 8 bits here.
subprocess.run(["djxl", str(out / "rgb16-lossless.jxl"), str(work / "rgb16-out.ppm"), "--quiet"], check=True)
ppm_bytes = (work / "rgb16-out.ppm").read_bytes()
assert ppm_bytes.startswith(b"P6\n64 48\n65535\n")
decoded16 = np.frombuffer(ppm_bytes[len(b"P6\n64 48\n65535\n"):], dtype=">u2").reshape(48, 64, 3)
assert (decoded16 == coffee16).all()
rgb16 = ((decoded16.astype(np.uint32) * 255 + 32767) // 65535).astype(np.uint8)
assert (rgb16 == ((coffee16.astype(np.uint32) * 255 + 32767) // 65535)).all()
record("rgb16-lossless", rgb16)

# Grey and alpha, lossless.
grey = source.convert("L")
grey.save(work / "grey8.png")
cjxl(work / "grey8.png", "grey8-lossless", "-d", "0")
assert (djxl_pixels("grey8-lossless") == np.asarray(grey)).all()
record("grey8-lossless", np.asarray(grey))
rgba = source.copy()
rgba.putalpha(Image.linear_gradient("L").resize((64, 48)))
rgba.save(work / "rgba8.png")
cjxl(work / "rgba8.png", "rgba8-lossless", "-d", "0")
assert (djxl_pixels("rgba8-lossless") == np.asarray(rgba)).all()
record("rgba8-lossless", np.asarray(rgba))

# Lossy (XYB, VarDCT): djxl's decode is the reference; Pillow's plugin must agree closely.
cjxl(work / "rgb8.png", "lossy-xyb", "-d", "1.0")
lossy = djxl_pixels("lossy-xyb")
pillow = np.asarray(Image.open(out / "lossy-xyb.jxl").convert("RGB"))
assert np.abs(lossy.astype(int) - pillow.astype(int)).max() <= 2
record("lossy-xyb", lossy)

# A JPEG recompressed into JPEG XL (lossless transcoding: a jbrd box), drawn through its pixels.
source.save(work / "photo.jpg", quality=90)
cjxl(work / "photo.jpg", "jpeg-recompressed")
assert b"jbrd" in (out / "jpeg-recompressed.jxl").read_bytes()
record("jpeg-recompressed", djxl_pixels("jpeg-recompressed"))

# An ICC-tagged lossless file (Adobe RGB 1998): the samples stay in its space.
icc = (root / "Tests/ColorManagementTests/Fixtures/adobe-rgb-1998.icc").read_bytes()
source.save(work / "adobe.png", icc_profile=icc)
cjxl(work / "adobe.png", "adobe-rgb-lossless", "-d", "0")
assert (djxl_pixels("adobe-rgb-lossless") == np.asarray(source)).all()
record("adobe-rgb-lossless", np.asarray(source))
# A grey picture with a grey ICC profile (gamma 1.8).
grey_icc = (root / "Tests/ColorManagementTests/Fixtures/grey-gamma-1.8.icc").read_bytes()
grey.save(work / "grey-icc.png", icc_profile=grey_icc)
cjxl(work / "grey-icc.png", "grey-gamma18-lossless", "-d", "0")
assert (djxl_pixels("grey-gamma18-lossless") == np.asarray(grey)).all()
record("grey-gamma18-lossless", np.asarray(grey))
# Display P3 as an enumerated colour encoding (cjxl's -x color_space), lossless.
# (from a PPM: cjxl gives a PNG's pictures the PNG reader's sRGB profile, which -x does not override)
source.save(work / "rgb8.ppm")
cjxl(work / "rgb8.ppm", "display-p3-lossless", "-d", "0", "-x", "color_space=RGB_D65_DCI_Rel_SRG")
assert (djxl_pixels("display-p3-lossless") == np.asarray(source)).all()
record("display-p3-lossless", np.asarray(source))

# The same codestream in a container, cut into three jxlp parts (the header split across them):
# djxl must read it as the bare codestream.
codestream = (out / "rgb8-lossless.jxl").read_bytes()


def box(kind, payload):
    return (8 + len(payload)).to_bytes(4, "big") + kind + payload


parts = [codestream[:3], codestream[3:11], codestream[11:]]
split = bytes.fromhex("0000000c4a584c200d0a870a") + box(b"ftyp", b"jxl \0\0\0\0jxl ")
for index, part in enumerate(parts):
    split += box(b"jxlp", ((index | (0x80000000 if index == len(parts) - 1 else 0)).to_bytes(4, "big")) + part)
(out / "rgb8-lossless-parts.jxl").write_bytes(split)
assert (djxl_pixels("rgb8-lossless-parts") == np.asarray(source)).all()
record("rgb8-lossless-parts", np.asarray(source))

# An animation of three frames (from an APNG): the first frame is drawn.
frames = [source, source.transpose(Image.FLIP_LEFT_RIGHT), source.convert("L").convert("RGB")]
frames[0].save(work / "animated.png", save_all=True, append_images=frames[1:], duration=100, loop=0)
cjxl(work / "animated.png", "animated", "-d", "0")
# pillow-jxl-plugin 1.3 shows one frame of it: djxl's APNG counts the frames.
subprocess.run(["djxl", str(out / "animated.jxl"), str(work / "animated-out.png"), "--quiet"], check=True)
assert Image.open(work / "animated-out.png").n_frames == 3
first = djxl_pixels("animated")
first = first[..., :3] if first.ndim == 3 else first
assert (first == np.asarray(source)).all()
record("animated", first, frames=3)


# Orientations: rgb8-lossless.jxl's ImageMetadata rewritten to carry orientation K.
class Bits:
    def __init__(self, data, position=0):
        self.data, self.position = data, position

    def read(self, count):
        value = 0
        for i in range(count):
            bit = self.position + i
            value |= ((self.data[bit >> 3] >> (bit & 7)) & 1) << i
        self.position += count
        return value

    def u32(self, *distributions):
        kind = distributions[self.read(2)]
        return kind if isinstance(kind, int) else self.read(kind[0]) + kind[1]


class Writer:
    def __init__(self):
        self.bits = []

    def write(self, value, count):
        self.bits += [(value >> i) & 1 for i in range(count)]

    def bytes(self):
        padded = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(sum(padded[i + j] << j for j in range(8)) for i in range(0, len(padded), 8))


ENUM = (0, 1, (4, 2), (6, 18))


def skip_colour_encoding(reader):
    """Reads through a ColourEncoding bundle (the format's field order)."""
    if reader.read(1):
        return                               # all_default
    wants_icc = reader.read(1)
    colour_space = reader.u32(*ENUM)
    if not wants_icc:
        if colour_space != 2:
            if reader.u32(*ENUM) == 2:       # custom white point
                for _ in range(2):
                    reader.u32((19, 0), (19, 524288), (20, 1048576), (21, 2097152))
            if colour_space != 1 and reader.u32(*ENUM) == 2:   # custom primaries
                for _ in range(6):
                    reader.u32((19, 0), (19, 524288), (20, 1048576), (21, 2097152))
        if reader.read(1):
            reader.read(24)                  # gamma
        else:
            reader.u32(*ENUM)                # transfer function
        reader.u32(*ENUM)                    # rendering intent


def rewrite_orientation(codestream, orientation):
    """The codestream with ImageMetadata's extra fields carrying `orientation`. Only the layout
    cjxl gives an 8-bit lossless RGB picture is handled (enum colour, no extra channel), and checked."""
    reader = Bits(codestream, 16)
    start = reader.position
    small = reader.read(1)
    assert small == 1, "the 64x48 picture has a small SizeHeader"
    height_div8 = reader.read(5)
    ratio = reader.read(3)
    width_div8 = reader.read(5) if ratio == 0 else None
    size_end = reader.position
    assert reader.read(1) == 0, "ImageMetadata not all_default"
    assert reader.read(1) == 0, "no extra fields yet"
    metadata_rest_start = reader.position
    # bit depth (not float), modular 16-bit flag, no extra channels, xyb flag, colour encoding all_default,
    # extensions (0), then CustomTransformData all_default, then padding to a byte.
    assert reader.read(1) == 0
    depth_selector = reader.read(2)
    assert depth_selector == 0, "8-bit"
    reader.read(1)
    assert reader.read(2) == 0, "no extra channels"
    assert reader.read(1) == 0, "not XYB"
    skip_colour_encoding(reader)
    colour_end = reader.position
    assert reader.read(2) == 0, "no extensions"
    assert reader.read(1) == 1, "default transform data"
    frame_byte = (reader.position + 7) // 8
    writer = Writer()
    copy = Bits(codestream, 16)
    for _ in range(size_end - 16):
        writer.write(copy.read(1), 1)
    writer.write(0, 1)                      # not all_default
    writer.write(1, 1)                      # extra fields
    writer.write(orientation - 1, 3)
    writer.write(0, 1)                      # no intrinsic size
    writer.write(0, 1)                      # no preview
    writer.write(0, 1)                      # no animation
    copy.position = metadata_rest_start
    for _ in range(colour_end - metadata_rest_start):
        writer.write(copy.read(1), 1)
    writer.write(1, 1)                      # tone mapping all_default (present with extra fields)
    writer.write(0, 2)                      # no extensions
    writer.write(1, 1)                      # default transform data
    return bytes([0xFF, 0x0A]) + writer.bytes() + codestream[frame_byte:]


# The base: from a PPM, so the colour encoding is the all-default sRGB enum (not a PNG's profile).
cjxl(work / "rgb8.ppm", "orientation-1", "-d", "0", "--container=0")
plain = (out / "orientation-1.jxl").read_bytes()
for orientation in range(1, 9):
    name = f"orientation-{orientation}"
    (out / f"{name}.jxl").write_bytes(rewrite_orientation(plain, orientation))
    shown = Image.fromarray(djxl_pixels(name))
    # EXIF orientation K → the transposition that shows the stored picture upright (Pillow's exif_transpose).
    method = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
              5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
              8: Image.Transpose.ROTATE_90}.get(orientation)
    expected = source.transpose(method) if method is not None else source
    assert (np.asarray(shown) == np.asarray(expected)).all(), name
    shown.save(out / f"{name}.djxl.png", optimize=True)   # as shown: the sheet's tile is compared with it
    record(name, np.asarray(source), orientation=orientation)

# Hostile files.
hostile = out / "hostile"
# A SizeHeader claiming 2^30 × 2^30 (U32 selector 3: 30 bits + 1), all-default metadata.
writer = Writer()
writer.write(0, 1)
writer.write(3, 2)
writer.write((1 << 30) - 1, 30)
writer.write(1, 3)          # ratio 1:1
writer.write(1, 1)          # ImageMetadata all_default
(hostile / "huge-size.jxl").write_bytes(bytes([0xFF, 0x0A]) + writer.bytes() + bytes(16))
# A container whose jxlc box claims more bytes than the file has.
container = bytearray((out / "rgb8-lossless-container.jxl").read_bytes())
position = container.index(b"jxlc") - 4
size = int.from_bytes(container[position:position + 4], "big")
container[position:position + 4] = (size + 1000).to_bytes(4, "big") if size else (len(container) + 1000).to_bytes(4, "big")
(hostile / "box-past-end.jxl").write_bytes(bytes(container))
# A container with no codestream box.
(hostile / "no-codestream.jxl").write_bytes(bytes.fromhex("0000000c4a584c200d0a870a") + bytes.fromhex("00000014667479706a786c20000000006a786c20"))
# A good header followed by garbage: libjxl must refuse it, quietly.
garbage = bytearray(plain)
state = 12345
for i in range(24, len(garbage)):
    state = (state * 1103515245 + 12345) & 0x7FFFFFFF
    garbage[i] = state >> 16 & 0xFF
(hostile / "garbage-codestream.jxl").write_bytes(bytes(garbage))
# Cut inside the header and inside the frame data.
(hostile / "truncated-header.jxl").write_bytes(plain[:5])
(hostile / "truncated-data.jxl").write_bytes(plain[: len(plain) // 2])

(out / "references.txt").write_text("# name width height orientation frames channels (djxl / pillow-jxl-plugin)\n"
                                    + "\n".join(references) + "\n")
print("wrote", len(references), "fixtures to", out)
