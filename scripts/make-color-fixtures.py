#!/usr/bin/env python3
"""Makes the colour-management fixtures and their references (Tests/ColorManagementTests/Fixtures).

Run from the repository root:   python3 scripts/make-color-fixtures.py
Needs: Pillow with ImageCms (pip: Pillow 12/13), pillow-heif (the HEIC), the system Little CMS (Debian liblcms2-2, called
through ctypes to build the Display P3, gamma-1.8 grey and gAMA/cHRM profiles), and for the CMYK
profile ArgyllCMS's colprof (Debian `argyll`) over FOGRA39L.ti3 from Debian `icc-profiles-free`
(zlib licence); the Adobe RGB (1998) and ProPhoto RGB profiles come from Debian `colord-data`
(CC0-1.0):   apt-get install liblcms2-2 argyll icc-profiles-free colord-data

Every fixture is a photo from SampleImages/ (public domain / CC0, see SampleImages/README.md),
scaled down, converted from sRGB into another colour space and stored with that colour space's
description (an embedded profile, PNG chunks). Every reference `<name>.golden.png` is Pillow
ImageCms converting the whole stored picture (as Pillow decodes it) back to sRGB with the
perceptual intent (ImageCms's default, and Masonry's), no black point compensation.
`<name>.tile.golden.png` is that reference resized by Pillow's Lanczos to the tile of a one-column
sheet 100 px wide (the end-to-end tests). `cases.txt` lists each fixture with its golden and the
colour space the manifest names. The script also writes the colour fuzz targets' seeds.
"""
import ctypes
import io
import os
import struct
import subprocess
import tempfile
import zlib

from PIL import Image, ImageCms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "ColorManagementTests", "Fixtures")
SAMPLES = os.path.join(ROOT, "SampleImages")
PERCEPTUAL = ImageCms.Intent.PERCEPTUAL
TILE_WIDTH = 100
SRGB = ImageCms.createProfile("sRGB")

lcms = ctypes.CDLL("liblcms2.so.2")
lcms.cmsBuildGamma.restype = ctypes.c_void_p
lcms.cmsBuildGamma.argtypes = [ctypes.c_void_p, ctypes.c_double]
lcms.cmsBuildParametricToneCurve.restype = ctypes.c_void_p
lcms.cmsBuildParametricToneCurve.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
lcms.cmsCreateRGBProfile.restype = ctypes.c_void_p
lcms.cmsCreateRGBProfile.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
lcms.cmsCreateGrayProfile.restype = ctypes.c_void_p
lcms.cmsCreateGrayProfile.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lcms.cmsD50_xyY.restype = ctypes.c_void_p
lcms.cmsMLUalloc.restype = ctypes.c_void_p
lcms.cmsMLUalloc.argtypes = [ctypes.c_void_p, ctypes.c_uint]
lcms.cmsMLUsetASCII.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
lcms.cmsWriteTag.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p]
lcms.cmsSaveProfileToMem.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint)]
lcms.cmsCloseProfile.argtypes = [ctypes.c_void_p]
lcms.cmsSetHeaderRenderingIntent.argtypes = [ctypes.c_void_p, ctypes.c_uint]


class xyY(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("Y", ctypes.c_double)]


def save(profile, description):
    text = lcms.cmsMLUalloc(None, 1)
    lcms.cmsMLUsetASCII(text, b"en", b"US", description.encode())
    lcms.cmsWriteTag(profile, 0x64657363, text)  # 'desc'
    size = ctypes.c_uint(0)
    lcms.cmsSaveProfileToMem(profile, None, ctypes.byref(size))
    buffer = ctypes.create_string_buffer(size.value)
    lcms.cmsSaveProfileToMem(profile, buffer, ctypes.byref(size))
    lcms.cmsCloseProfile(profile)
    return fixed_date(buffer.raw[: size.value])


def fixed_date(profile):
    """The profile with the creation date of its header set to 2026-01-01 00:00:00, so every run makes the same bytes."""
    return profile[:24] + struct.pack(">6H", 2026, 1, 1, 0, 0, 0) + profile[36:]


def rgb_profile(white, primaries, description, gamma=None):
    """A matrix/shaper profile, as ColorManagement's BuiltProfiles makes them (sRGB curve unless gamma)."""
    if gamma is None:
        parameters = (ctypes.c_double * 5)(2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045)
        curve = lcms.cmsBuildParametricToneCurve(None, 4, parameters)
    else:
        curve = lcms.cmsBuildGamma(None, gamma)
    w = xyY(white[0], white[1], 1.0)
    p = (xyY * 3)(*[xyY(x, y, 1.0) for x, y in primaries])
    curves = (ctypes.c_void_p * 3)(curve, curve, curve)
    return save(lcms.cmsCreateRGBProfile(ctypes.byref(w), p, curves), description)


def grey_profile(gamma, description):
    return save(lcms.cmsCreateGrayProfile(lcms.cmsD50_xyY(), lcms.cmsBuildGamma(None, gamma)), description)


def cmyk_profile():
    """FOGRA39L coated, profiled by ArgyllCMS from icc-profiles-free's FOGRA39L.ti3 (zlib licence)."""
    with tempfile.TemporaryDirectory() as folder:
        base = os.path.join(folder, "FOGRA39L")
        with open("/usr/share/color/icc/FOGRA39L.ti3", "rb") as source, open(base + ".ti3", "wb") as copy:
            copy.write(source.read())
        subprocess.run(["colprof", "-ql", "-nc", "-D", "FOGRA39L coated (Masonry test profile)",
                        "-C", "ArgyllCMS colprof from FOGRA39L.ti3 (icc-profiles-free, zlib licence)", base],
                       check=True, stdout=subprocess.DEVNULL)
        with open(base + ".icc", "rb") as made:
            return fixed_date(made.read())


def photo(name, width):
    image = Image.open(os.path.join(SAMPLES, name))
    if image.mode in ("RGBA", "LA"):
        background = Image.new("RGB", image.size, (255, 255, 255))
        background.paste(image.convert("RGBA"), mask=image.convert("RGBA").split()[3])
        image = background
    image = image.convert("RGB")
    height = round(image.height * width / image.width)
    return image.resize((width, height), Image.Resampling.LANCZOS)


def into(image, profile_bytes, mode="RGB"):
    """The sRGB picture's samples in the space of `profile_bytes` (relative colorimetric, as an editor exports)."""
    target = ImageCms.getOpenProfile(io.BytesIO(profile_bytes))
    return ImageCms.profileToProfile(image, SRGB, target, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                     outputMode=mode)


def reference(path, profile_bytes):
    """ImageCms: the stored picture, as Pillow decodes it, to sRGB with the perceptual intent."""
    stored = Image.open(path)
    stored.load()
    source = ImageCms.getOpenProfile(io.BytesIO(profile_bytes))
    return ImageCms.profileToProfile(stored, source, SRGB, renderingIntent=PERCEPTUAL, outputMode="RGB")


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_with_chunks(image, chunks):
    """A PNG of `image` (no colour chunks from Pillow) with `chunks` placed right after IHDR."""
    buffer = io.BytesIO()
    image.info.pop("icc_profile", None)   # ImageCms tags its output: these files carry only `chunks`
    image.save(buffer, "PNG", optimize=True)
    data = buffer.getvalue()
    return data[:33] + b"".join(chunk(kind, body) for kind, body in chunks) + data[33:]


def fuzz_seeds(p3, grey):
    """Small seeds for the colour fuzz targets (Tests/FuzzReplayTests/Corpus/<target>/)."""
    corpus = os.path.join(ROOT, "Tests", "FuzzReplayTests", "Corpus")
    for target in ("icc-profile", "png-color-chunks", "jpeg-icc"):
        os.makedirs(os.path.join(corpus, target), exist_ok=True)

    def put(target, name, data):
        with open(os.path.join(corpus, target, name), "wb") as file:
            file.write(data)

    put("icc-profile", "display-p3.icc", p3)
    put("icc-profile", "grey-gamma-1.8.icc", grey)
    put("icc-profile", "display-p3-truncated.icc", p3[:400])

    def tiny_png(chunks, mode="RGB"):
        buffer = io.BytesIO()
        Image.new(mode, (2, 2), (200, 30, 40) if mode == "RGB" else 120).save(buffer, "PNG")
        data = buffer.getvalue()
        return data[:33] + b"".join(chunk(kind, body) for kind, body in chunks) + data[33:]

    gama = (b"gAMA", struct.pack(">I", 55556))
    put("png-color-chunks", "iccp-display-p3.png", tiny_png([(b"iCCP", b"Display P3\0\0" + zlib.compress(p3, 9))]))
    put("png-color-chunks", "cicp-p3-and-srgb.png", tiny_png([(b"cICP", bytes([12, 13, 0, 1])), (b"sRGB", b"\0")]))
    put("png-color-chunks", "gama-chrm.png", tiny_png([gama, (b"cHRM", struct.pack(">8I", 31270, 32900, 64000, 33000,
                                                                                    21000, 71000, 15000, 6000))]))
    put("png-color-chunks", "grey-iccp-gama.png", tiny_png([gama, (b"iCCP", b"g\0\0" + zlib.compress(grey, 9))], "L"))

    picture = Image.new("RGB", (8, 8), (10, 200, 30))
    buffer = io.BytesIO()
    picture.save(buffer, "JPEG", quality=50, icc_profile=p3)
    put("jpeg-icc", "display-p3.jpg", buffer.getvalue())
    # The profile in three APP2 segments, stored out of order (3, 1, 2).
    buffer = io.BytesIO()
    picture.save(buffer, "JPEG", quality=50)
    data = buffer.getvalue()
    parts = [p3[:200], p3[200:400], p3[400:]]
    segments = b"".join(b"\xff\xe2" + struct.pack(">H", 2 + 14 + len(parts[i])) + b"ICC_PROFILE\0" + bytes([i + 1, 3])
                        + parts[i] for i in (2, 0, 1))
    put("jpeg-icc", "display-p3-three-segments.jpg", data[:2] + segments + data[2:])


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []

    def write(name, data):
        with open(os.path.join(OUT, name), "wb") as file:
            file.write(data)
        return os.path.join(OUT, name)

    def golden(fixture, profile_bytes, color):
        stem = fixture.rsplit(".", 1)[0]
        converted = reference(os.path.join(OUT, fixture), profile_bytes)
        converted.info.pop("icc_profile", None)   # plain sRGB samples, no profile of the day
        converted.save(os.path.join(OUT, stem + ".golden.png"), optimize=True)
        # The tile a one-column sheet `-w TILE_WIDTH --margin 0` draws: ImageCms, then Lanczos (SPEC §1's height).
        height = max(1, (2 * TILE_WIDTH * converted.height + converted.width) // (2 * converted.width))
        tile = converted.resize((TILE_WIDTH, height), Image.Resampling.LANCZOS)
        tile.save(os.path.join(OUT, stem + ".tile.golden.png"), optimize=True)
        cases.append(f"{fixture} {stem}.golden.png {color}")

    with open("/usr/share/color/icc/colord/AdobeRGB1998.icc", "rb") as file:
        adobe = file.read()
    with open("/usr/share/color/icc/colord/ProPhotoRGB.icc", "rb") as file:
        prophoto = file.read()
    d65 = (0.3127, 0.3290)
    p3 = rgb_profile(d65, [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], "Display P3")
    write("display-p3.icc", p3)
    write("adobe-rgb-1998.icc", adobe)
    write("prophoto-rgb.icc", prophoto)
    grey18 = grey_profile(1.8, "Grey gamma 1.8")
    write("grey-gamma-1.8.icc", grey18)
    fuzz_seeds(p3, grey18)
    cmyk = cmyk_profile()
    write("fogra39l-coated.icc", cmyk)

    def icc_name(profile_bytes):
        return "icc:" + ImageCms.getOpenProfile(io.BytesIO(profile_bytes)).profile.profile_description

    # Adobe RGB (1998): a JPEG as cameras write it, and a PNG with iCCP.
    image = into(photo("33-butterfly.png", 240), adobe)
    image.save(os.path.join(OUT, "butterfly-adobe-rgb.jpg"), quality=92, icc_profile=adobe)
    golden("butterfly-adobe-rgb.jpg", adobe, icc_name(adobe))
    image = into(photo("14-bus.png", 240), adobe)
    image.save(os.path.join(OUT, "bus-adobe-rgb.png"), icc_profile=adobe, optimize=True)
    golden("bus-adobe-rgb.png", adobe, icc_name(adobe))

    # ProPhoto RGB: a JPEG.
    image = into(photo("29-bread-and-wine.png", 240), prophoto)
    image.save(os.path.join(OUT, "bread-prophoto.jpg"), quality=92, icc_profile=prophoto)
    golden("bread-prophoto.jpg", prophoto, icc_name(prophoto))

    # Display P3: a JPEG with the profile (as an iPhone), a PNG with iCCP, a PNG with cICP 12/13/0/1.
    image = into(photo("20-flowers-and-butterfly.png", 240), p3)
    image.save(os.path.join(OUT, "flowers-display-p3.jpg"), quality=92, icc_profile=p3)
    golden("flowers-display-p3.jpg", p3, "icc:Display P3")
    # A lossy WebP with an ICCP chunk, 200 px wide: twice the tests' 100 px tile, so libwebp decodes it
    # whole (its own shrink-on-load is not what this reference measures).
    image = into(photo("10-pumpkin.png", 200), p3)
    image.save(os.path.join(OUT, "pumpkin-display-p3.webp"), "WEBP", quality=90, icc_profile=p3)
    golden("pumpkin-display-p3.webp", p3, "icc:Display P3")
    # A HEIC with the profile in its colr box (pillow-heif, libheif's HEVC encoder), as an iPhone stores it.
    import pillow_heif
    pillow_heif.register_heif_opener()
    image = into(photo("08-formula-one-car.png", 200), p3)
    image.save(os.path.join(OUT, "car-display-p3.heic"), quality=90, icc_profile=p3)
    golden("car-display-p3.heic", p3, "icc:Display P3")
    # A HEIC saying Display P3 with nclx code points only (12/13/6, full range), no profile.
    image = into(photo("26-violin.png", 200), p3)
    image.info.pop("icc_profile", None)
    image.save(os.path.join(OUT, "violin-nclx-p3.heic"), quality=90, color_primaries=12, transfer_characteristics=13,
               matrix_coefficients=6, full_range_flag=1)
    golden("violin-nclx-p3.heic", p3, "Display P3")
    image = into(photo("25-crawfish.png", 200), p3)
    image.save(os.path.join(OUT, "crawfish-display-p3.png"), icc_profile=p3, optimize=True)
    golden("crawfish-display-p3.png", p3, "icc:Display P3")
    image = into(photo("02-strawberry.png", 200), p3)
    write("strawberry-cicp-p3.png", png_with_chunks(image, [(b"cICP", bytes([12, 13, 0, 1]))]))
    golden("strawberry-cicp-p3.png", p3, "Display P3")

    # Grey with a gamma-1.8 grey profile (PNG iCCP).
    image = photo("15-cell-grey.png", 200).convert("L")
    image.save(os.path.join(OUT, "cell-grey-gamma-1.8.png"), icc_profile=grey18, optimize=True)
    golden("cell-grey-gamma-1.8.png", grey18, "icc:Grey gamma 1.8")

    # Only gAMA + cHRM: gamma 1/1.8 with Adobe RGB (1998)'s primaries (libpng's reading of them).
    chrm = rgb_profile(d65, [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)], "gAMA + cHRM", gamma=100000 / 55556)
    image = into(photo("32-green-mug.png", 200), chrm)
    values = [31270, 32900, 64000, 33000, 21000, 71000, 15000, 6000]
    write("mug-gama-chrm.png", png_with_chunks(image, [(b"gAMA", struct.pack(">I", 55556)),
                                                       (b"cHRM", struct.pack(">8I", *values))]))
    golden("mug-gama-chrm.png", chrm, "gAMA 0.55556 + cHRM")

    # CMYK JPEG with a CMYK profile (Pillow writes Adobe's inverted samples and an APP14 marker).
    image = ImageCms.profileToProfile(photo("28-sheep.png", 200), SRGB, ImageCms.getOpenProfile(io.BytesIO(cmyk)),
                                      renderingIntent=PERCEPTUAL, outputMode="CMYK")
    image.save(os.path.join(OUT, "sheep-cmyk-fogra39.jpg"), quality=92, icc_profile=cmyk)
    golden("sheep-cmyk-fogra39.jpg", cmyk, icc_name(cmyk))

    with open(os.path.join(OUT, "cases.txt"), "w") as file:
        file.write("# fixture golden colour (made by scripts/make-color-fixtures.py)\n")
        file.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
