#!/usr/bin/env python3
"""Makes the TIFF fixtures of TIFFCodecTests and their goldens.

Run from the package root:  python3 scripts/make-tiff-fixtures.py
Needs tifffile, imagecodecs, numpy and Pillow (pip; made with tifffile 2026.3.3, imagecodecs
2026.3.6, Pillow 13.0.0) and Debian's libtiff-tools (tiffcp). The Swift tests never run Python;
they read what this script wrote into Tests/TIFFCodecTests/Fixtures/.

Sources: small crops of pictures in SampleImages/ (public domain / CC0; see the LICENSE.md
written beside the fixtures), written by tifffile (every sample layout, compression, extra
sample, pyramid and page layout a test needs), Pillow (palette, CMYK) and tiffcp (JPEG with
YCbCr, which tiffcp writes as libtiff does).

`goldens.txt`: name, width, height, pages, orientation, levels, rows (grey8, rgb8 or rgba8),
the SHA-256 of the expected 8-bit rows of the first page at full size, and how they were
checked (`pillow`: identical to Pillow's decode; `formula`: only the mapping below, where
Pillow reads otherwise; `psnr`: lossy, compared with NAME.full.png, Pillow's decode, by PSNR).

The expected rows follow the mapping TIFFDecoder documents: integer samples of b bits scaled
to 8 bits as round(v × 255 / (2^b − 1)), 32-bit ones by their top 16 bits (round(⌊v / 2^16⌋ ×
255 / 65535)); signed integers (two's complement) first moved to the unsigned range by adding
2^(b−1) (−2^(b−1) → 0, 0 → 2^(b−1), 2^(b−1) − 1 → 2^b − 1), computed here on NumPy's signed
values, never on their bits; floats clamped to 0…1, taken as linear light, v16 = ⌊v × 65535 +
0.5⌋ in 32-bit arithmetic and sRGB-encoded (round(255 × srgb(v16 / 65535))), halves and doubles
first converted to 32-bit floats by NumPy (exactly, and to the nearest); min-is-white
inverted; palette entries' high bytes; associated alpha divided out at 16 bits, rounded;
CMYK through Pillow's naive conversion, or (with a profile) through ImageCms, perceptual.

The conformance set (`python3 scripts/make-tiff-fixtures.py --conformance PILLOW_CHECKOUT`
copies it; without the argument the committed copy is used): TIFFs from Pillow's own test
images (Tests/images, MIT-CMU licence, the LICENSE.md there) into Fixtures/conformance/, with
`conformance.txt`: name, then `skip` and the reason Masonry gives (SPEC §12 lists each), or the
rows Masonry makes, the check (`exact`: the SHA-256 of Pillow's decode in that form; `psnr`: a
lossy file, or one whose 16-bit or premultiplied samples Pillow reduces otherwise than the
mapping above, against NAME.ref.png by PSNR; with alpha, of the colours premultiplied;
`formula`: signed samples, which Pillow reads as their bits (−1 as 255): the mapping above
applied to tifffile's samples, the file checked to be one Pillow draws otherwise) and the
digest. Pillow's rows are the stored ones (a file with an Orientation tag is decoded from a
copy whose tag says 1: Pillow turns the rows, Masonry leaves that to the sheet). Pillow's decode is taken as
`convert("L" / "RGB" / "RGBA")`, except 16-bit and float grey, whose arrays go through the
mapping (Pillow's own convert clips them). A file Pillow cannot read (WebP inside: Pillow's
libtiff lacks it) is first rewritten uncompressed by tiffcp.

It also writes the seeds of the `tiff-header` and `tiff-decode` fuzz targets
(Tests/FuzzReplayTests/Corpus/).
"""
import hashlib
import io
import os
import shutil
import subprocess
import tempfile

import numpy
import tifffile
from PIL import Image, ImageCms

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SAMPLES = os.path.join(ROOT, "SampleImages")
OUT = os.path.join(ROOT, "Tests", "TIFFCodecTests", "Fixtures")
FOGRA = os.path.join(ROOT, "Tests", "ColorManagementTests", "Fixtures", "fogra39l-coated.icc")


def sample(name, size, mode):
    image = Image.open(os.path.join(SAMPLES, name))
    image.load()
    return image.convert("RGBA").resize(size, Image.LANCZOS).convert(mode)


def scale(values, bits):
    maximum = (1 << bits) - 1
    return ((values.astype(numpy.uint64) * 255 + maximum // 2) // maximum).astype(numpy.uint8)


def signed_as_unsigned(values, bits):
    """Signed samples of `bits` moved to the unsigned range: plus half the range."""
    return (values.astype(numpy.int64) + (1 << (bits - 1))).astype(numpy.uint64)


def to8(unsigned, bits):
    """Unsigned samples of `bits` to 8 bits as TIFFDecoder scales them (32 bits: the top 16)."""
    return scale(unsigned >> 16, 16) if bits == 32 else scale(unsigned, bits)


def patch_sample_format(path, placeholder, value):
    """Renames the placeholder tag tifffile wrote (it writes no SampleFormat of its own for
    unsigned data, and refuses one as an extra tag) to SampleFormat (339), with `value`."""
    with tifffile.TiffFile(path) as tiff:
        tag = tiff.pages[0].tags[placeholder]
        at, big_endian = tag.offset, tiff.byteorder == ">"
        assert max(t.code for t in tiff.pages[0].tags.values()) == placeholder, "the tags would be out of order"
    order = "big" if big_endian else "little"
    with open(path, "r+b") as f:
        f.seek(at)
        f.write((339).to_bytes(2, order) + (3).to_bytes(2, order) + (1).to_bytes(4, order) + value.to_bytes(2, order))


def srgb8(linear16):
    linear = linear16 / 65535.0
    encoded = numpy.where(linear <= 0.0031308, 12.92 * linear, 1.055 * numpy.power(linear, 1 / 2.4) - 0.055)
    return numpy.rint(encoded * 255).astype(numpy.uint8)


def float16bits(values):
    with numpy.errstate(over="ignore"):   # a double past the float range is an infinity
        values = numpy.nan_to_num(values.astype(numpy.float32), nan=0.0)
    clamped = numpy.clip(values, numpy.float32(0), numpy.float32(1))
    return numpy.floor(clamped * numpy.float32(65535.0) + numpy.float32(0.5)).astype(numpy.uint32)


def unpremultiply16(colour, alpha):
    colour = colour.astype(numpy.uint64)
    alpha = alpha.astype(numpy.uint64)[..., None]
    safe = numpy.maximum(alpha, 1)
    straight = numpy.minimum(65535, (colour * 65535 + safe // 2) // safe)
    return numpy.where(alpha == 0, 0, straight)


def muldiv255(a, b):
    t = a.astype(numpy.uint32) * b + 128
    return ((t >> 8) + t) >> 8


def naive_cmyk(cmyk):
    nk = 255 - cmyk[..., 3].astype(numpy.uint32)
    return numpy.stack([(nk - muldiv255(cmyk[..., k], nk)) for k in range(3)], axis=-1).astype(numpy.uint8)


def pillow_rows(path, mode):
    with Image.open(path) as image:
        image.load()
        return numpy.asarray(image.convert(mode))


def tiffcp(arguments, source, target):
    subprocess.run(["tiffcp"] + arguments + [source, target], check=True, capture_output=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    rgb = numpy.asarray(sample("01-astronaut.png", (64, 48), "RGB"))
    grey = numpy.asarray(sample("15-cell-grey.png", (64, 48), "L"))
    tux = numpy.asarray(sample("18-tux-penguin.png", (40, 63), "RGBA"))
    ramp16 = (numpy.arange(64 * 48, dtype=numpy.uint32).reshape(48, 64) * 21).astype(numpy.uint16)
    rgb16 = (rgb.astype(numpy.uint16) * 257) ^ numpy.uint16(0x5A)   # low bytes that matter
    cases = []   # (name, expected rows, mode name, check, pages, orientation, levels)

    def write(name, data, **options):
        path = os.path.join(OUT, name + ".tif")
        tifffile.imwrite(path, data, **options)
        return path

    def add(name, expected, check, pages=1, orientation=1, levels=0, path=None):
        path = path or os.path.join(OUT, name + ".tif")
        mode = {2: "grey8", 3: "rgba8" if expected.shape[-1] == 4 else "rgb8"}[expected.ndim] if expected.ndim == 3 else "grey8"
        if check == "pillow":
            pillow = pillow_rows(path, {"grey8": "L", "rgb8": "RGB", "rgba8": "RGBA"}[mode])
            assert numpy.array_equal(pillow, expected), f"{name}: Pillow reads otherwise"
        height, width = expected.shape[:2]
        digest = hashlib.sha256(numpy.ascontiguousarray(expected).tobytes()).hexdigest()
        cases.append(f"{name} {width} {height} {pages} {orientation} {levels} {mode} {digest} {check}")

    # Sample layouts and compressions of 8-bit RGB.
    write("rgb8-strips-none", rgb, photometric="rgb", rowsperstrip=8)
    add("rgb8-strips-none", rgb, "pillow")
    write("rgb8-tiles-lzw", rgb, photometric="rgb", tile=(16, 16), compression="lzw")
    add("rgb8-tiles-lzw", rgb, "pillow")
    write("rgb8-strips-deflate-predictor", rgb, photometric="rgb", rowsperstrip=5, compression="zlib", predictor=True)
    add("rgb8-strips-deflate-predictor", rgb, "pillow")
    write("rgb8-planar-packbits", numpy.moveaxis(rgb, -1, 0), photometric="rgb", planarconfig="separate",
          rowsperstrip=7, compression="packbits")
    add("rgb8-planar-packbits", rgb, "pillow")
    write("rgb8-tiles-planar-deflate", numpy.moveaxis(rgb, -1, 0), photometric="rgb", planarconfig="separate",
          tile=(32, 16), compression="zlib")
    add("rgb8-tiles-planar-deflate", rgb, "pillow")
    write("rgb8-bigendian-lzw", rgb, photometric="rgb", byteorder=">", compression="lzw", rowsperstrip=16)
    add("rgb8-bigendian-lzw", rgb, "pillow")
    write("rgb8-bigtiff", rgb, photometric="rgb", bigtiff=True, rowsperstrip=12)
    add("rgb8-bigtiff", rgb, "formula")   # Pillow reads BigTIFF since 10.x; kept as formula for older ones

    # JPEG inside, YCbCr 2×2 (tiffcp writes it as libtiff does), against Pillow by PSNR.
    with tempfile.TemporaryDirectory() as scratch:
        plain = os.path.join(scratch, "plain.tif")
        tifffile.imwrite(plain, rgb, photometric="rgb")
        jpeg = os.path.join(OUT, "rgb8-jpeg-ycbcr.tif")
        tiffcp(["-c", "jpeg:90", "-r", "16"], plain, jpeg)
        reference = pillow_rows(jpeg, "RGB")
        Image.fromarray(reference).save(os.path.join(OUT, "rgb8-jpeg-ycbcr.full.png"), optimize=True)
        add("rgb8-jpeg-ycbcr", reference, "psnr")
        tiled_jpeg = os.path.join(OUT, "rgb8-tiles-jpeg.tif")
        tiffcp(["-c", "jpeg:90", "-t", "-w", "32", "-l", "32"], plain, tiled_jpeg)
        reference = pillow_rows(tiled_jpeg, "RGB")
        Image.fromarray(reference).save(os.path.join(OUT, "rgb8-tiles-jpeg.full.png"), optimize=True)
        add("rgb8-tiles-jpeg", reference, "psnr")

    # Grey of every depth, and min-is-white.
    write("grey8-lzw", grey, photometric="minisblack", compression="lzw")
    add("grey8-lzw", grey, "pillow")
    white = 255 - grey
    write("grey8-miniswhite", white, photometric="miniswhite")
    add("grey8-miniswhite", grey, "pillow")
    bilevel = grey > 128
    write("grey1-miniswhite-packbits", ~bilevel, photometric="miniswhite", compression="packbits")
    add("grey1-miniswhite-packbits", numpy.where(bilevel, 255, 0).astype(numpy.uint8), "pillow")
    grey2 = (grey >> 6).astype(numpy.uint8)
    write("grey2", grey2, photometric="minisblack", bitspersample=2)
    add("grey2", scale(grey2, 2), "formula")
    grey4 = (grey >> 4).astype(numpy.uint8)
    write("grey4-tiles", grey4, photometric="minisblack", bitspersample=4, tile=(16, 16))
    add("grey4-tiles", scale(grey4, 4), "formula")
    write("grey16-deflate", ramp16, photometric="minisblack", compression="zlib")
    add("grey16-deflate", scale(ramp16, 16), "formula")
    write("grey12", (ramp16 >> 4), photometric="minisblack", bitspersample=12)
    add("grey12", scale(ramp16 >> 4, 12), "formula")

    # 16-bit RGB, alpha of both kinds.
    write("rgb16-lzw", rgb16, photometric="rgb", compression="lzw")
    add("rgb16-lzw", scale(rgb16, 16), "formula")
    write("rgba8-unassociated", tux, photometric="rgb", extrasamples=["unassalpha"])
    add("rgba8-unassociated", tux, "pillow")
    alpha16 = tux[..., 3].astype(numpy.uint32) * 257
    premultiplied16 = ((tux[..., :3].astype(numpy.uint32) * 257 * alpha16[..., None] + 32767) // 65535).astype(numpy.uint16)
    write("rgba16-associated", numpy.dstack([premultiplied16, alpha16.astype(numpy.uint16)]), photometric="rgb",
          extrasamples=["assocalpha"], compression="zlib")
    straight = unpremultiply16(premultiplied16, alpha16)
    add("rgba16-associated", numpy.dstack([scale(straight, 16), tux[..., 3]]), "formula")
    greya = numpy.dstack([grey[:40, :40], tux[:40, :40, 3]])
    write("greya8-unassociated", greya, photometric="minisblack", extrasamples=["unassalpha"])
    add("greya8-unassociated", numpy.dstack([greya[..., 0]] * 3 + [greya[..., 1]]), "pillow")
    write("rgbx8-unspecified-extra", numpy.dstack([rgb, 255 - rgb[..., :1]]), photometric="rgb", extrasamples=["unspecified"])
    add("rgbx8-unspecified-extra", rgb, "pillow")

    # Floats: linear light, 0…1, encoded to sRGB; values outside and NaN clamp.
    linear = (rgb.astype(numpy.float32) / 255) ** 2.2
    linear[0, 0] = [-0.5, 1.5, numpy.nan]
    write("rgb32float", linear, photometric="rgb")
    add("rgb32float", srgb8(float16bits(linear)), "formula")
    grey_float = (grey.astype(numpy.float32) / 255)
    write("grey32float-predictor", grey_float, photometric="minisblack", compression="zlib", predictor=3)
    add("grey32float-predictor", srgb8(float16bits(grey_float)), "formula")

    # Halves and doubles (SampleFormat 3 of 16 and 64 bits), read as the 32-bit floats above.
    # Every half in order (pixel i holds the half whose bits are i: zeros, subnormals, normals,
    # infinities and NaNs of both signs); a picture of halves, big-endian; one of doubles (half
    # size, in tiles) whose first row holds NaN, ±infinity, ±1e300, the least subnormal, 0.5,
    # 1 − 1e-12 and 1e-300.
    every_half = numpy.arange(65536, dtype=numpy.uint32).astype(numpy.uint16).view(numpy.float16).reshape(256, 256)
    write("grey16float-every", every_half, photometric="minisblack", compression="zlib", predictor=True)
    add("grey16float-every", srgb8(float16bits(every_half)), "formula")
    half = linear.astype(numpy.float16)
    write("rgb16float-bigendian", half, photometric="rgb", byteorder=">")
    add("rgb16float-bigendian", srgb8(float16bits(half)), "formula")
    double = (rgb[::2, ::2].astype(numpy.float64) / 255) ** 2.2
    double[0, :3] = [[numpy.nan, numpy.inf, -numpy.inf], [1e300, -1e300, 5e-324], [0.5, 1 - 1e-12, 1e-300]]
    write("rgb64float-tiles", double, photometric="rgb", tile=(16, 16), compression="zlib", predictor=True)
    add("rgb64float-tiles", srgb8(float16bits(double)), "formula")

    # Signed integers (SampleFormat 2): zero is mid grey, the order is kept, the full range used.
    # Every int8 and every int16 value in order (pixel i holds i − 2^(b−1)); the same picture
    # signed as unsigned (rgb8-int, rgb16-int-tiles-planar and rgba16-int-unassociated draw as
    # rgb8-strips-none and rgba8-unassociated do); extremes on int32's and int12's first rows.
    every8 = numpy.arange(-128, 128, dtype=numpy.int16).astype(numpy.int8).reshape(16, 16)
    write("grey8-int-every", every8, photometric="minisblack")
    add("grey8-int-every", to8(signed_as_unsigned(every8, 8), 8), "formula")
    every16 = numpy.arange(-32768, 32768, dtype=numpy.int32).astype(numpy.int16).reshape(256, 256)
    write("grey16-int-every-bigendian", every16, photometric="minisblack", byteorder=">", compression="zlib", predictor=True)
    add("grey16-int-every-bigendian", to8(signed_as_unsigned(every16, 16), 16), "formula")
    grey32 = ((grey.astype(numpy.int64) << 24) + (ramp16.astype(numpy.int64) << 4) - (1 << 31)).astype(numpy.int32)
    # min, −1, 0, max; then 8421505 over the minimum, which rounds to 1 from 32 bits but to 0
    # from its top 16 (128), as unsigned 32-bit samples do.
    grey32[0, :5] = [-(1 << 31), -1, 0, (1 << 31) - 1, 8421505 - (1 << 31)]
    write("grey32-int", grey32, photometric="minisblack", compression="zlib")
    add("grey32-int", to8(signed_as_unsigned(grey32, 32), 32), "formula")
    grey12 = (ramp16 >> 4).astype(numpy.int16) - 2048
    grey12[0, :4] = [-2048, -1, 0, 2047]
    # tifffile packs 12 bits for unsigned data only: the two's complement bits, then SampleFormat 2.
    path = write("grey12-int", (grey12 & 0xFFF).astype(numpy.uint16), photometric="minisblack", bitspersample=12,
                 extratags=[(65000, "H", 1, 0, True)])
    patch_sample_format(path, 65000, 2)
    add("grey12-int", to8(signed_as_unsigned(grey12, 12), 12), "formula")
    rgb_int8 = (rgb.astype(numpy.int16) - 128).astype(numpy.int8)
    write("rgb8-int", rgb_int8, photometric="rgb", compression="lzw")
    add("rgb8-int", to8(signed_as_unsigned(rgb_int8, 8), 8), "formula")
    rgb_int16 = (rgb16.astype(numpy.int32) - 32768).astype(numpy.int16)
    write("rgb16-int-tiles-planar", numpy.moveaxis(rgb_int16, -1, 0), photometric="rgb", planarconfig="separate",
          tile=(16, 16), compression="zlib")
    add("rgb16-int-tiles-planar", to8(signed_as_unsigned(rgb_int16, 16), 16), "formula")
    tux_int16 = (tux.astype(numpy.int32) * 257 - 32768).astype(numpy.int16)
    write("rgba16-int-unassociated", tux_int16, photometric="rgb", extrasamples=["unassalpha"])
    add("rgba16-int-unassociated", to8(signed_as_unsigned(tux_int16, 16), 16), "formula")

    # Palettes (Pillow writes them), CMYK naive and through a profile.
    image = sample("13-chelsea-cat-palette.png", (64, 48), "RGB").quantize(200)
    image.save(os.path.join(OUT, "palette8.tif"), compression="tiff_lzw")
    add("palette8", numpy.asarray(image.convert("RGB")), "pillow")
    image = sample("13-chelsea-cat-palette.png", (64, 48), "RGB").quantize(16)
    # tifffile writes palettes of 8 or 16 bits only: a 4-bit grey file with a 16-entry ColorMap
    # tag, its PhotometricInterpretation then patched from 1 (min-is-black) to 3 (palette).
    palette = (image.getpalette() + [0] * 48)[:48]
    colormap = (numpy.array(palette, dtype=numpy.uint16).reshape(16, 3).T * 257).ravel()
    path = os.path.join(OUT, "palette4.tif")
    tifffile.imwrite(path, numpy.asarray(image), photometric="minisblack", bitspersample=4,
                     extratags=[(320, "H", 48, tuple(int(v) for v in colormap), True)])
    with tifffile.TiffFile(path) as tiff:
        at = tiff.pages[0].tags["PhotometricInterpretation"].valueoffset
    with open(path, "r+b") as f:
        f.seek(at)
        f.write((3).to_bytes(2, "little"))
    add("palette4", numpy.asarray(image.convert("RGB")), "pillow")
    cmyk_image = sample("28-sheep.png", (64, 48), "RGB").convert("CMYK")
    cmyk = numpy.asarray(cmyk_image)
    write("cmyk8", cmyk, photometric="separated")
    add("cmyk8", naive_cmyk(cmyk), "pillow")
    with open(FOGRA, "rb") as f:
        fogra = f.read()
    write("cmyk8-fogra39-icc", cmyk, photometric="separated", iccprofile=fogra, compression="lzw")
    transform = ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(fogra)), ImageCms.createProfile("sRGB"),
                                        "CMYK", "RGB", renderingIntent=0)
    converted = numpy.asarray(ImageCms.applyTransform(cmyk_image, transform))
    Image.fromarray(converted).save(os.path.join(OUT, "cmyk8-fogra39-icc.full.png"), optimize=True)
    add("cmyk8-fogra39-icc", converted, "psnr")

    # An sRGB profile on RGB; the Orientation tag; pages; pyramids.
    srgb = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    srgb[24:36] = bytes([0x07, 0xEA, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0])   # creation date fixed: 2026-01-01
    write("rgb8-srgb-icc", rgb, photometric="rgb", iccprofile=bytes(srgb))
    add("rgb8-srgb-icc", rgb, "pillow")
    write("rgb8-orientation-6", rgb, photometric="rgb", extratags=[(274, "H", 1, 6, True)])
    add("rgb8-orientation-6", rgb, "formula", orientation=6)   # Pillow turns the rows
    with tifffile.TiffWriter(os.path.join(OUT, "pages-3.tif")) as tiff:
        tiff.write(rgb, photometric="rgb", compression="lzw")
        tiff.write(rgb[::-1], photometric="rgb", compression="lzw")
        tiff.write(grey, photometric="minisblack")
    add("pages-3", rgb, "pillow", pages=3)
    big = numpy.asarray(sample("20-flowers-and-butterfly.png", (256, 192), "RGB"))
    half, quarter = big[::2, ::2], big[::4, ::4]
    with tifffile.TiffWriter(os.path.join(OUT, "pyramid-subifds.tif")) as tiff:
        tiff.write(big, photometric="rgb", tile=(64, 64), compression="zlib", subifds=2)
        tiff.write(half, photometric="rgb", tile=(64, 64), compression="zlib", subfiletype=1)
        tiff.write(quarter, photometric="rgb", tile=(64, 64), compression="zlib", subfiletype=1)
    add("pyramid-subifds", big, "pillow", levels=2)
    with tifffile.TiffWriter(os.path.join(OUT, "pyramid-chain.tif")) as tiff:
        tiff.write(big, photometric="rgb", tile=(64, 64), compression="lzw")
        tiff.write(half, photometric="rgb", tile=(64, 64), compression="lzw", subfiletype=1)
        tiff.write(quarter, photometric="rgb", tile=(64, 64), compression="lzw", subfiletype=1)
    add("pyramid-chain", big, "pillow", levels=2)
    # The levels' own rows, for the shrink-on-load checks.
    for name, level in (("pyramid-level-half", half), ("pyramid-level-quarter", quarter)):
        cases.append(f"{name} {level.shape[1]} {level.shape[0]} 0 1 0 rgb8 "
                     f"{hashlib.sha256(numpy.ascontiguousarray(level).tobytes()).hexdigest()} level")

    with open(os.path.join(OUT, "goldens.txt"), "w") as f:
        f.write("# name width height pages orientation levels rows sha256(expected rows) check, by scripts/make-tiff-fixtures.py\n")
        f.write("\n".join(cases) + "\n")
    write_fuzz_seeds()


def write_fuzz_seeds():
    for target in ("tiff-header", "tiff-decode"):
        folder = os.path.join(ROOT, "Tests", "FuzzReplayTests", "Corpus", target)
        os.makedirs(folder, exist_ok=True)
        for name in ("rgb8-tiles-lzw", "grey1-miniswhite-packbits", "rgba16-associated", "palette4", "rgb8-bigtiff",
                     "pages-3", "rgb8-jpeg-ycbcr", "rgb8-planar-packbits", "grey16-int-every-bigendian",
                     "grey16float-every"):
            shutil.copyfile(os.path.join(OUT, name + ".tif"), os.path.join(folder, name + ".tif"))


CONFORMANCE = os.path.join(OUT, "conformance")
# name: the reason Masonry gives (SPEC §12's list of what is not read)
CONFORMANCE_SKIPS = {
    "lab.tif": "TIFF photometric interpretation 8 is not supported",
    "old-style-jpeg-compression.tif": "TIFF YCbCr samples are only read JPEG-compressed",
}
# Grey int8 in separate planes, with an unspecified extra sample (an empty plane): drawn by the
# mapping (its first sample), where Pillow reads the bits as unsigned.
CONFORMANCE_SIGNED = {"separate_planar_extra_samples.tiff"}
CONFORMANCE_FILES = [
    "hopper_g4.tif", "g4_orientation_1.tif", "g4_orientation_6.tif", "g4-multi.tiff", "16bit.cropped.tif",
    "16bit.MM.deflate.tif", "12bit.cropped.tif", "16_bit_noise.tif", "hopper_gray_4bpp.tif",
    "tiff_gray_2_4_bpp/hopper2.tif", "tiff_gray_2_4_bpp/hopper2I.tif", "tiff_gray_2_4_bpp/hopper4R.tif",
    "hopper_jpg.tif", "hopper_lzw.tif", "hopper_bigtiff.tif", "hopper.iccprofile.tif", "hopper_lzma.tif",
    "hopper_webp.tif", "hopper_float_dpi_None.tif", "10ct_32bit_128.tiff", "tiff_strip_ycbcr_jpeg_2x2_sampling.tif",
    "tiff_tiled_ycbcr_jpeg_2x2_sampling.tif", "tiff_strip_cmyk_jpeg.tif", "tiff_16bit_RGB.tiff", "tiff_16bit_RGBa.tiff",
    "tiff_strip_planar_16bit_RGB.tiff", "tiff_tiled_planar_16bit_RGBa.tiff", "multipage.tiff", "child_ifd.tiff",
    "pil168.tif", "pil136.tiff", "copyleft.tiff", "lab.tif", "old-style-jpeg-compression.tif",
    "separate_planar_extra_samples.tiff",
]


def conformance(pillow_checkout):
    os.makedirs(CONFORMANCE, exist_ok=True)
    if pillow_checkout:
        for name in CONFORMANCE_FILES:
            shutil.copyfile(os.path.join(pillow_checkout, "Tests", "images", name),
                            os.path.join(CONFORMANCE, os.path.basename(name)))
    lines = []
    for name in sorted(os.path.basename(n) for n in CONFORMANCE_FILES):
        path = os.path.join(CONFORMANCE, name)
        if name in CONFORMANCE_SKIPS:
            with Image.open(path) as image:
                image.load()   # Pillow draws it: the skip is a listed one
            lines.append(f"{name} skip {CONFORMANCE_SKIPS[name]}")
            continue
        if name in CONFORMANCE_SIGNED:
            with tifffile.TiffFile(path) as tiff:
                page = tiff.pages[0]
                assert page.dtype.kind == "i" and page.planarconfig == 2, f"{name}: not signed planar samples"
                first = page.asarray()[0]
            bits = first.dtype.itemsize * 8
            rows = to8(signed_as_unsigned(first, bits), bits)
            assert not numpy.array_equal(pillow_rows(path, "L"), rows), f"{name}: Pillow reads it alike now"
            digest = hashlib.sha256(numpy.ascontiguousarray(rows).tobytes()).hexdigest()
            lines.append(f"{name} grey8 formula {digest}")
            continue
        with tempfile.TemporaryDirectory() as scratch:
            stored = os.path.join(scratch, "stored.tif")
            shutil.copyfile(path, stored)
            with tifffile.TiffFile(stored) as tiff:
                orientation = tiff.pages[0].tags.get("Orientation")
                at = orientation.valueoffset if orientation is not None and orientation.value != 1 else None
                big_endian = tiff.byteorder == ">"
            if at is not None:
                # Pillow turns the rows by the tag; the rows as stored come from a copy without it.
                with open(stored, "r+b") as f:
                    f.seek(at)
                    f.write((1).to_bytes(2, "big" if big_endian else "little"))
            try:
                image = Image.open(stored)
                image.load()
            except OSError:
                plain = os.path.join(scratch, "plain.tif")
                tiffcp(["-c", "none"], stored, plain)
                image = Image.open(plain)
                image.load()
            mode, check = image.mode, "exact"
            bits = image.tag_v2.get(258, (8,))
            if mode in ("I;16", "I;16B", "I;16L", "F"):
                values = numpy.asarray(image)
                # Pillow keeps a 12-bit sample's value in its 16-bit array: scaled by the file's bits.
                rows = scale(values.astype(numpy.uint32), max(bits)) if mode != "F" else srgb8(float16bits(values))
                kind = "grey8"
            else:
                alpha = "A" in mode or mode == "RGBa" or (mode == "P" and "transparency" in image.info)
                kind = "rgba8" if alpha else "grey8" if mode in ("1", "L") else "rgb8"
                rows = numpy.asarray(image.convert({"grey8": "L", "rgb8": "RGB", "rgba8": "RGBA"}[kind]))
                lossy = image.info.get("compression") in ("jpeg", "tiff_jpeg")
                associated = 1 in tuple(image.tag_v2.get(338, ()))   # Pillow divides the alpha out at 8 bits
                if lossy or max(bits) > 8 or associated:
                    check = "psnr"
            if check == "psnr":
                shown = rows if rows.ndim == 3 else numpy.stack([rows] * 3, axis=-1)
                Image.fromarray(shown).save(os.path.join(CONFORMANCE, name + ".ref.png"), optimize=True)
            digest = hashlib.sha256(numpy.ascontiguousarray(rows).tobytes()).hexdigest()
            lines.append(f"{name} {kind} {check} {digest}")
    with open(os.path.join(CONFORMANCE, "conformance.txt"), "w") as f:
        f.write("# name, then skip and Masonry's reason, or rows check sha256(Pillow's rows); by scripts/make-tiff-fixtures.py\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    import sys
    if sys.argv[1:2] == ["--conformance"]:
        conformance(sys.argv[2] if len(sys.argv) > 2 else None)
    else:
        main()
        conformance(None)
