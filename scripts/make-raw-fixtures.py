#!/usr/bin/env python3
"""Camera RAW fixtures for RAWCodecTests, and masonry-bench's RAW corpus: DNG files written by this
script's own small TIFF writer (every tag spelled out, so the layout is known byte for byte), with a
Bayer sensor image of a synthetic scene and optional embedded JPEG previews encoded by Pillow.

    python3 scripts/make-raw-fixtures.py                  # Tests/RAWCodecTests/Fixtures, the RAW format sample
    python3 scripts/make-raw-fixtures.py --bench SOURCE_FOLDER TARGET_FOLDER [COUNT]
    python3 scripts/make-raw-fixtures.py --bench-cr3 SOURCE_FOLDER TARGET_FOLDER [COUNT]

The references come from outside Masonry: rawpy's (LibRaw's) own `postprocess(half_size=True,
user_flip=0, output_bps=8)` for the demosaic, Pillow's decode of the embedded preview for the
preview path, each written as `<name>.demosaic.png` / `<name>.preview.png`; `references.txt` lists
each fixture's expected size, orientation and source. Needs `pip install rawpy pillow numpy`
(scripts/install-python-tools.sh).

The bench mode turns each of COUNT photos (PNG, default 40, of those whose shorter side is at
least 600 px) of SOURCE_FOLDER, scaled to a longer side of 6000 px (24 MP at 3:2), into a DNG with
a full-size JPEG preview (quality 90, as cameras write them) and a 160 px
thumbnail, in TARGET_FOLDER/raw/.
"""
import io
import pathlib
import struct
import sys

import numpy
from PIL import Image

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests" / "RAWCodecTests" / "Fixtures"

# CFA colours: 0 red, 1 green, 2 blue, in row order of the 2×2 repeat.
PATTERNS = {"RGGB": [0, 1, 1, 2], "BGGR": [2, 1, 1, 0], "GRBG": [1, 0, 2, 1], "GBRG": [1, 2, 0, 1]}
WHITE = 4095


def scene(width, height):
    """A smooth colourful picture (sRGB 8-bit) with an asymmetric mark so orientation shows."""
    y, x = numpy.mgrid[0:height, 0:width].astype(numpy.float64)
    red = 40 + 180 * x / width
    green = 60 + 150 * y / height
    blue = 120 + 100 * numpy.sin(x / width * 3.1 + y / height * 1.7)
    picture = numpy.stack([red, green, blue], axis=-1)
    picture[: height // 4, : width // 3] = [230, 40, 40]        # a red block at the top left
    picture[height // 2 :, width * 3 // 4 :] = [30, 30, 200]    # a blue block at the bottom right
    return numpy.clip(picture, 0, 255).astype(numpy.uint8)


def mosaic(rgb, pattern):
    """The sensor image: each photosite keeps its CFA colour, linearised, scaled to 12 bits."""
    linear = (rgb.astype(numpy.float64) / 255.0) ** 2.2
    height, width, _ = rgb.shape
    sensor = numpy.zeros((height, width), numpy.uint16)
    colours = PATTERNS[pattern]
    for index, colour in enumerate(colours):
        dy, dx = divmod(index, 2)
        sensor[dy::2, dx::2] = numpy.round(linear[dy::2, dx::2, colour] * WHITE)
    return sensor


def jpeg(rgb, size=None, quality=90, exif_orientation=None):
    """A JPEG of `rgb` (resized to `size`); with `exif_orientation`, an EXIF block saying it (a
    preview whose orientation disagrees with the RAW's, which must be ignored)."""
    picture = Image.fromarray(rgb)
    if size:
        picture = picture.resize(size, Image.Resampling.LANCZOS)
    out = io.BytesIO()
    options = {}
    if exif_orientation:
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        options["exif"] = exif.tobytes()
    picture.save(out, "JPEG", quality=quality, **options)
    return out.getvalue()


class TIFFWriter:
    """Little-endian classic TIFF: IFDs laid out in order, values after each table."""

    TYPES = {"B": (1, 1), "A": (2, 1), "S": (3, 2), "L": (4, 4), "R": (5, 8), "SR": (10, 8), "U": (7, 1)}

    def __init__(self):
        self.data = bytearray(b"II*\x00\x00\x00\x00\x00")

    def blob(self, payload):
        while len(self.data) % 2:
            self.data.append(0)
        offset = len(self.data)
        self.data += payload
        return offset

    @staticmethod
    def encode(kind, values):
        if kind == "A":
            return values.encode() + b"\x00", len(values) + 1
        if kind == "U":
            return bytes(values), len(values)
        code = {"B": "B", "S": "H", "L": "I"}.get(kind)
        if code:
            return struct.pack("<%d%s" % (len(values), code), *values), len(values)
        packed = b"".join(struct.pack("<ii" if kind == "SR" else "<II", *pair) for pair in values)
        return packed, len(values)

    def directory(self, entries):
        """Writes an IFD of (tag, kind, values); returns (offset, position of its next-IFD field)."""
        while len(self.data) % 2:
            self.data.append(0)
        offset = len(self.data)
        entries = sorted(entries)
        table = bytearray(struct.pack("<H", len(entries)))
        pending = []
        body_start = offset + 2 + 12 * len(entries) + 4
        extra = bytearray()
        for tag, kind, values in entries:
            code, size = self.TYPES[kind]
            payload, count = self.encode(kind, values)
            if len(payload) <= 4:
                table += struct.pack("<HHI", tag, code, count) + payload.ljust(4, b"\x00")
            else:
                if (body_start + len(extra)) % 2:
                    extra.append(0)
                table += struct.pack("<HHII", tag, code, count, body_start + len(extra))
                extra += payload
        next_field = offset + len(table)
        table += b"\x00\x00\x00\x00"
        self.data += table + extra
        return offset, next_field

    def patch(self, position, value):
        self.data[position : position + 4] = struct.pack("<I", value)


def write_dng(path, rgb, pattern="RGGB", orientation=1, previews=(), make="Masonry", model="Fixture", default_scale=None):
    """A DNG as cameras lay one out: the directories first (IFD0 at offset 8, where detection reads
    it), then the previews' and the sensor's bytes. IFD0 is the first preview (or the sensor when
    there is none); more previews and the sensor are SubIFDs. `previews` are JPEG byte strings.
    `default_scale` (horizontal, vertical), when given, is the sensor directory's DefaultScale: its
    pixels are not square, and `rgb` is the sensor's grid, not the picture shown."""
    height, width, _ = rgb.shape
    sensor = mosaic(rgb, pattern).tobytes()
    common = [
        (271, "A", make), (272, "A", model), (274, "S", [orientation]),
        (50706, "B", [1, 4, 0, 0]), (50707, "B", [1, 1, 0, 0]), (50708, "A", f"{make} {model}"),
        # A camera whose sensor sees linear sRGB: ColorMatrix1 (XYZ to camera) is XYZ to linear sRGB (D65).
        (50721, "SR", [(32406, 10000), (-15372, 10000), (-4986, 10000), (-9689, 10000), (18758, 10000), (415, 10000),
                       (557, 10000), (-2040, 10000), (10570, 10000)]),
        (50778, "S", [21]), (50728, "R", [(1, 1), (1, 1), (1, 1)]),
    ]
    payloads = list(previews) + [sensor]

    def build(blob_offsets, sub_offsets):
        writer = TIFFWriter()

        def sensor_entries():
            return [(254, "L", [0]), (256, "L", [width]), (257, "L", [height]), (258, "S", [16]), (259, "S", [1]),
                    (262, "S", [32803]), (273, "L", [blob_offsets[-1]]), (277, "S", [1]), (278, "L", [height]),
                    (279, "L", [len(sensor)]), (284, "S", [1]), (33421, "S", [2, 2]), (33422, "B", PATTERNS[pattern]),
                    (50714, "L", [0]), (50717, "L", [WHITE])] + (
                       [(50718, "R", [(default_scale[0], 1), (default_scale[1], 1)])] if default_scale else [])

        def preview_entries(index):
            p = Image.open(io.BytesIO(previews[index]))
            return [(254, "L", [1]), (256, "L", [p.width]), (257, "L", [p.height]), (258, "S", [8, 8, 8]), (259, "S", [7]),
                    (262, "S", [6]), (273, "L", [blob_offsets[index]]), (277, "S", [3]), (278, "L", [p.height]),
                    (279, "L", [len(previews[index])]), (284, "S", [1])]

        directories = []
        if previews:
            directories.append(preview_entries(0) + common + [(330, "L", sub_offsets)])
            directories += [preview_entries(index) for index in range(1, len(previews))] + [sensor_entries()]
        else:
            directories.append(sensor_entries() + common)
        offsets = [writer.directory(entries)[0] for entries in directories]
        writer.patch(4, offsets[0])
        placed = [writer.blob(payload) for payload in payloads]
        return bytes(writer.data), offsets[1:], placed

    subs = len(previews)   # the other previews and the sensor
    _, sub_offsets, blob_offsets = build([0] * len(payloads), [0] * subs if previews else [])
    data, check_subs, check_blobs = build(blob_offsets, sub_offsets)
    assert (check_subs, check_blobs) == (sub_offsets, blob_offsets)
    path.write_bytes(data)


# name, size shown, CFA, orientation, previews (sizes; None for full size), DefaultScale
# (horizontal, vertical; None for square pixels). bggr-preview-rot90's previews carry an EXIF
# Orientation of 3 (180°), which disagrees with its IFD0's 6. The last two have pixels that are not
# square, as some cameras' sensors (Nikon's D1X: twice as tall as wide): the sensor holds the shown
# picture squeezed by the scale, and LibRaw stretches it back.
FIXTURE_SET = [
    ("rggb-preview-full", (192, 128), "RGGB", 1, [(48, 32), None], None),
    ("bggr-preview-rot90", (192, 128), "BGGR", 6, [(48, 32), None], None),
    ("grbg-preview-rot180", (160, 120), "GRBG", 3, [None], None),
    ("gbrg-thumb-only-rot270", (192, 128), "GBRG", 8, [(48, 32)], None),
    ("rggb-no-preview", (160, 96), "RGGB", 1, [], None),
    ("bggr-no-preview-mirrored", (128, 96), "BGGR", 2, [], None),
    ("rggb-tall-pixels-no-preview", (160, 96), "RGGB", 1, [], (1, 2)),
    ("grbg-wide-pixels-preview", (192, 128), "GRBG", 1, [(48, 32), None], (2, 1)),
]


def stretch(rgb, aspect):
    """LibRaw 0.20's `stretch` of a demosaic whose pixels are `aspect` (width over height) times
    as wide as tall: more rows (aspect < 1) or columns, each between the two nearest by linear
    interpolation. LibRaw does it on its 16-bit linear picture before the output curve; here on the
    8-bit output, which differs by a few levels where the picture changes fast."""
    rows = aspect < 1   # stretched along the columns: work on the transposed picture
    picture = rgb.astype(numpy.float64)
    if rows:
        picture = picture.transpose(1, 0, 2)
        aspect = 1 / aspect
    height, width, _ = picture.shape
    count = int(width * aspect + 0.5)
    out = numpy.zeros((height, count, 3))
    position = 0.0
    for column in range(count):
        left = int(position)
        fraction = position - left
        out[:, column] = picture[:, left] * (1 - fraction) + picture[:, min(left + 1, width - 1)] * fraction
        position += 1 / aspect
    out = numpy.clip(numpy.floor(out + 0.5), 0, 255).astype(numpy.uint8)
    return out.transpose(1, 0, 2) if rows else out


def squeezed(rgb, default_scale):
    """The sensor's grid of a picture shown at `rgb`'s size: each run of `scale` rows (or columns)
    averaged into one."""
    if not default_scale:
        return rgb
    horizontal, vertical = default_scale
    height, width, _ = rgb.shape
    grid = rgb.astype(numpy.float64).reshape(height // vertical, vertical, width // horizontal, horizontal, 3)
    return numpy.round(grid.mean(axis=(1, 3))).astype(numpy.uint8)


def make_fixtures():
    import rawpy

    FIXTURES.mkdir(parents=True, exist_ok=True)
    lines = ["# name width height orientation previews(WxH,...) sensor(WxH) — written by scripts/make-raw-fixtures.py"]
    for name, (width, height), pattern, orientation, sizes, default_scale in FIXTURE_SET:
        rgb = scene(width, height)
        previews = [jpeg(rgb, size, exif_orientation=3 if name == "bggr-preview-rot90" else None) for size in sizes]
        # The largest preview first in IFD0 when there are several, as cameras do.
        previews.sort(key=len, reverse=True)
        path = FIXTURES / f"{name}.dng"
        sensor = squeezed(rgb, default_scale)
        write_dng(path, sensor, pattern, orientation, previews, default_scale=default_scale)
        if default_scale:
            # rawpy's LibRaw (0.22) stretches by repeating rows or columns; Masonry's (Debian's 0.20)
            # interpolates them. The reference: rawpy's demosaic of the same sensor taken as square,
            # stretched here by LibRaw 0.20's rule.
            square = FIXTURES / f"{name}.square.dng"
            write_dng(square, sensor, pattern, orientation, previews)
            with rawpy.imread(str(square)) as raw:
                half = stretch(raw.postprocess(half_size=True, user_flip=0, output_bps=8), default_scale[0] / default_scale[1])
            square.unlink()
        else:
            with rawpy.imread(str(path)) as raw:
                half = raw.postprocess(half_size=True, user_flip=0, output_bps=8)
        Image.fromarray(half).save(FIXTURES / f"{name}.demosaic.png", optimize=True)
        if previews:
            Image.open(io.BytesIO(previews[0])).convert("RGB").save(FIXTURES / f"{name}.preview.png", optimize=True)
        shapes = ",".join("%dx%d" % Image.open(io.BytesIO(p)).size for p in previews) or "-"
        lines.append(f"{name} {width} {height} {orientation} {shapes} {sensor.shape[1]}x{sensor.shape[0]}")
    (FIXTURES / "references.txt").write_text("\n".join(lines) + "\n")
    # The command's test of a tile whose sensor pixels are not square (RAWSheetTests).
    sheet_fixtures = ROOT / "Tests/MasonrySheetTests/Fixtures/RAW"
    sheet_fixtures.mkdir(exist_ok=True)
    (sheet_fixtures / "tall-pixels.dng").write_bytes((FIXTURES / "rggb-tall-pixels-no-preview.dng").read_bytes())
    # The format table's RAW sample (Tests/MasonrySheetTests/Fixtures/Formats, the others by
    # scripts/make-format-samples.py): its 48×32 picture as a sensor image with a full-size preview.
    picture = Image.open(ROOT / "SampleImages/01-astronaut.png").convert("RGB").resize((48, 32), Image.LANCZOS)
    rgb = numpy.asarray(picture)
    write_dng(ROOT / "Tests/MasonrySheetTests/Fixtures/Formats/sample.dng", rgb, "RGGB", 1, [jpeg(rgb)])


def list_real_samples():
    """The size of the picture LibRaw makes of each real camera sample (ExifTool's test images,
    metadata with the pixel data stripped; see Fixtures/exiftool/LICENSE.md), as shown: the outside
    reference the header is checked against. It comes from the LibRaw Masonry runs, Debian's
    libraw_r.so.20, through its C interface (ctypes): libraw_adjust_sizes_info_only turns a Fuji
    SuperCCD's diagonal sensor upright, stretches pixels that are not square, and applies the flip.
    rawpy's bundled LibRaw is a later version, which lays the SuperCCD sample out differently."""
    import ctypes

    libraw = ctypes.CDLL("libraw_r.so.20")
    libraw.libraw_init.restype = ctypes.c_void_p
    libraw.libraw_init.argtypes = [ctypes.c_uint]
    for function in ["libraw_open_file"]:
        getattr(libraw, function).argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    for function in ["libraw_adjust_sizes_info_only", "libraw_get_iwidth", "libraw_get_iheight", "libraw_close"]:
        getattr(libraw, function).argtypes = [ctypes.c_void_p]
    folder = FIXTURES / "exiftool"
    lines = ["# name width height (the picture LibRaw 0.20 makes, as shown), or 'unsupported' — written by scripts/make-raw-fixtures.py"]
    for path in sorted(folder.iterdir()):
        if path.suffix in (".md", ".txt"):
            continue
        handle = libraw.libraw_init(0)
        if libraw.libraw_open_file(handle, str(path).encode()) == 0 and libraw.libraw_adjust_sizes_info_only(handle) == 0:
            lines.append(f"{path.name} {libraw.libraw_get_iwidth(handle)} {libraw.libraw_get_iheight(handle)}")
        else:
            lines.append(f"{path.name} unsupported")
        libraw.libraw_close(handle)
    (folder / "libraw-shown-sizes.txt").write_text("\n".join(lines) + "\n")


CR3_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"dinf"}
CANON_UUID = bytes.fromhex("85c0b687820f11e08111f4ce462b6a48")


def cr3_boxes(data, start, end):
    """The boxes of `data[start:end]` as [type, header bytes, children or payload bytes]: the
    containers CR3Layout walks (and Canon's uuid box, after its 16-byte UUID) split further."""
    boxes = []
    while start + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, start)
        header = data[start : start + 8]
        if size == 1:   # a 64-bit size (a camera's mdat)
            size = struct.unpack_from(">Q", data, start + 8)[0]
            header = data[start : start + 16]
        size = size or end - start
        payload = (start + len(header), start + size)
        if kind == b"uuid" and data[start + 8 : start + 24] == CANON_UUID:
            header = data[start : start + 24]
            boxes.append([kind, header, cr3_boxes(data, start + 24, start + size)])
        elif kind in CR3_CONTAINERS:
            boxes.append([kind, header, cr3_boxes(data, *payload)])
        else:
            boxes.append([kind, header, data[payload[0] : payload[1]]])
        start += size
    return boxes


def cr3_bytes(boxes):
    out = bytearray()
    for kind, header, body in boxes:
        inner = cr3_bytes(body) if isinstance(body, list) else bytes(body)
        if header[:4] == b"\x00\x00\x00\x01":
            out += header[:8] + struct.pack(">Q", len(header) + len(inner)) + header[16:] + inner
        else:
            out += struct.pack(">I", len(header) + len(inner)) + header[4:] + inner
    return bytes(out)


def build_cr3(picture, prvw_size, orientation, raw_bytes=b""):
    """A CR3 with real JPEGs where a camera puts them, built on ExifTool's CanonRaw.cr3 (a real
    EOS R file's boxes, its pixel data stripped): a 160×120 THMB letterboxing `picture` (Canon's
    black bars), a PRVW of `prvw_size`, `picture` itself as the full-size JPEG track, CMT1's
    Orientation made `orientation`, and `raw_bytes` (a camera's CRX data is 20-40 MB) before the
    stripped data the raw tracks point at. Returns (the file, {name: JPEG bytes})."""
    data = (FIXTURES / "exiftool/CanonRaw.cr3").read_bytes()
    height, width, _ = picture.shape
    full = jpeg(picture, quality=85)
    prvw = jpeg(picture, prvw_size, quality=85)
    letterbox = numpy.zeros((120, 160, 3), numpy.uint8)
    bars = round(120 - 160 * height / width) // 2
    letterbox[bars : 120 - bars] = numpy.asarray(Image.fromarray(picture).resize((160, 120 - 2 * bars), Image.Resampling.LANCZOS))
    thumb = jpeg(letterbox, quality=85)
    top = cr3_boxes(data, 0, len(data))
    mdat = next(box for box in top if box[0] == b"mdat")
    old_mdat_start = sum(len(cr3_bytes([box])) for box in top[: top.index(mdat)]) + len(mdat[1])
    moov = next(box for box in top if box[0] == b"moov")
    canon = next(box for box in moov[2] if box[0] == b"uuid")
    for box in canon[2]:
        if box[0] == b"THMB":
            box[2] = struct.pack(">IHHIHH", 0, 160, 120, len(thumb), 1, 0) + thumb
        if box[0] == b"CMT1":
            cmt1 = bytearray(box[2])
            for index in range(struct.unpack_from("<H", cmt1, 8)[0]):
                at = 10 + 12 * index
                if struct.unpack_from("<H", cmt1, at)[0] == 274:
                    struct.pack_into("<H", cmt1, at + 8, orientation)
            box[2] = bytes(cmt1)
    tracks = [box for box in moov[2] if box[0] == b"trak"]

    def table(track):
        mdia = next(b for b in track[2] if b[0] == b"mdia")
        minf = next(b for b in mdia[2] if b[0] == b"minf")
        return next(b for b in minf[2] if b[0] == b"stbl")[2]

    old_offsets = [struct.unpack_from(">Q", next(b for b in table(t) if b[0] == b"co64")[2], 8)[0] for t in tracks]
    for index, uuid_box in enumerate(top):
        if uuid_box[0] == b"uuid" and uuid_box[2][:16] == bytes.fromhex("eaf42b5e1c984b88b9fbb7dc406e4d16"):
            body = uuid_box[2][:24]
            prvw_box = struct.pack(">IHHHHI", 0, 1, prvw_size[0], prvw_size[1], 1, len(prvw)) + prvw
            top[index][2] = body + struct.pack(">I4s", 8 + len(prvw_box), b"PRVW") + prvw_box
    mdat[2] = full + raw_bytes + mdat[2]
    for attempt in range(2):   # the second pass sees the offsets' final places
        new_mdat_start = sum(len(cr3_bytes([box])) for box in top[: top.index(mdat)]) + len(mdat[1])
        for track, old in zip(tracks, old_offsets):
            boxes = table(track)
            stsd = next(b for b in boxes if b[0] == b"stsd")
            is_jpeg = b"JPEG" in stsd[2]
            co64 = next(b for b in boxes if b[0] == b"co64")
            offset = new_mdat_start if is_jpeg else new_mdat_start + len(full) + len(raw_bytes) + old - old_mdat_start
            co64[2] = co64[2][:8] + struct.pack(">Q", offset)
            if is_jpeg:
                stsz = next(b for b in boxes if b[0] == b"stsz")
                stsz[2] = struct.pack(">III", 0, len(full), 1) + stsz[2][12:]
                entry = bytearray(stsd[2])
                struct.pack_into(">HH", entry, 8 + 32, width, height)   # after the version, flags and count
                stsd[2] = bytes(entry)
    return cr3_bytes(top), {"thumb": thumb, "prvw": prvw, "full": full}


def make_cr3_fixture():
    """canon-eos-r-previews.cr3: `build_cr3` of a 720×480 scene with a 240×160 PRVW and
    Orientation 8 (a camera's are 6000×4000 and 1620×1080: smaller here, the same layout). The
    raw tracks point at stripped data. Its references: LibRaw's own thumbnail (rawpy's
    extract_thumb, which must be the JPEG track's bytes), LibRaw's flip and sensor, and Pillow's
    decodes."""
    import rawpy

    data, jpegs = build_cr3(scene(720, 480), (240, 160), 8)
    path = FIXTURES / "canon-eos-r-previews.cr3"
    path.write_bytes(data)
    (ROOT / "Tests/MasonrySheetTests/Fixtures/RAW/previews.cr3").write_bytes(data)
    with rawpy.imread(str(path)) as raw:
        flip = raw.sizes.flip
        sensor = f"{raw.sizes.raw_width}x{raw.sizes.raw_height}"
        thumbnail = raw.extract_thumb()
    # LibRaw hands a JPEG thumbnail back with an EXIF block of its own after the SOI marker.
    assert thumbnail.format == rawpy.ThumbFormat.JPEG and jpegs["full"][2:] in thumbnail.data, "LibRaw's thumbnail is not the JPEG track"
    for name in ["prvw", "full"]:
        Image.open(io.BytesIO(jpegs[name])).convert("RGB").save(FIXTURES / f"canon-eos-r-previews.{name}.png", optimize=True)
    (FIXTURES / "canon-eos-r-previews.txt").write_text(
        "# LibRaw's flip and sensor; the JPEGs (offset length width height: THMB, PRVW, the JPEG track) — written by scripts/make-raw-fixtures.py\n"
        + f"flip {flip}\nsensor {sensor}\n"
        + "".join(f"{name} {data.find(payload)} {len(payload)} {Image.open(io.BytesIO(payload)).width} {Image.open(io.BytesIO(payload)).height}\n"
                  for name, payload in jpegs.items()))


def make_hostile_seeds():
    """The fuzz targets' hostile seeds, from rggb-preview-full.dng: an IFD loop, a preview length
    past the end, a claimed 200000×150000 sensor, a cut inside the sensor data."""
    data = bytearray((FIXTURES / "rggb-preview-full.dng").read_bytes())

    def entry(ifd, tag):
        for index in range(struct.unpack_from("<H", data, ifd)[0]):
            if struct.unpack_from("<H", data, ifd + 2 + 12 * index)[0] == tag:
                return ifd + 2 + 12 * index
        raise SystemExit(f"no tag {tag}")

    ifd0 = struct.unpack_from("<I", data, 4)[0]
    subs_at = struct.unpack_from("<I", data, entry(ifd0, 330) + 8)[0]
    sensor = struct.unpack_from("<I", data, subs_at + 4)[0]
    seeds = {}
    loop = bytearray(data)
    struct.pack_into("<I", loop, sensor + 2 + 12 * struct.unpack_from("<H", data, sensor)[0], ifd0)
    seeds["hostile-ifd-loop.dng"] = loop
    past = bytearray(data)
    struct.pack_into("<I", past, entry(ifd0, 279) + 8, 0x7FFF0000)
    seeds["hostile-preview-past-end.dng"] = past
    huge = bytearray(data)
    struct.pack_into("<I", huge, entry(sensor, 256) + 8, 200000)
    struct.pack_into("<I", huge, entry(sensor, 257) + 8, 150000)
    seeds["hostile-huge-sensor.dng"] = huge
    seeds["hostile-truncated-sensor.dng"] = data[: len(data) - 10000]
    # Pixels that are not square: the DefaultScale rationals, and LibRaw's stretch.
    for name in ["rggb-tall-pixels-no-preview.dng", "grbg-wide-pixels-preview.dng"]:
        seeds[name] = (FIXTURES / name).read_bytes()
    for target in ["raw-header", "raw-decode"]:
        folder = ROOT / "Tests/FuzzReplayTests/Corpus" / target
        folder.mkdir(parents=True, exist_ok=True)
        for name, payload in seeds.items():
            (folder / name).write_bytes(bytes(payload))
    # A Fuji SuperCCD (LibRaw's metadata: its sensor layout turned upright), for the decoder only:
    # the header target reads TIFF-structured RAWs alone.
    superccd = (FIXTURES / "exiftool/FujiFilm.raf").read_bytes()
    (ROOT / "Tests/FuzzReplayTests/Corpus/raw-decode/fujifilm-superccd.raf").write_bytes(superccd)
    # A CR3 with its JPEGs, for both: the box walk, and the previews' decode; with a DNG whose
    # pixels are not square, for the targets over the whole format table too.
    cr3 = (FIXTURES / "canon-eos-r-previews.cr3").read_bytes()
    for target in ["raw-header", "raw-decode", "source-header", "source-decode"]:
        (ROOT / "Tests/FuzzReplayTests/Corpus" / target / "canon-eos-r-previews.cr3").write_bytes(cr3)
    for target in ["source-header", "source-decode"]:
        (ROOT / "Tests/FuzzReplayTests/Corpus" / target / "rggb-tall-pixels-no-preview.dng").write_bytes(
            (FIXTURES / "rggb-tall-pixels-no-preview.dng").read_bytes())


def make_bench(source, target, count):
    # Camera-like: only photos whose shorter side is at least 600 px, so the full-size preview is
    # at least twice a 290 px tile, as a camera's is.
    photos = [p for p in sorted(source.glob("*.png")) if min(Image.open(p).size) >= 600]
    step = max(1, len(photos) // count)
    folder = target / "raw"
    folder.mkdir(parents=True, exist_ok=True)
    for index, photo in enumerate(photos[::step][:count]):
        picture = Image.open(photo).convert("RGB")
        # Camera-sized: the longer side 6000 px (24 MP at 3:2, the commonest sensor), as a camera's sensor and preview.
        scale = 6000 / max(picture.size)
        picture = picture.resize((round(picture.width * scale), round(picture.height * scale)), Image.Resampling.LANCZOS)
        rgb = numpy.asarray(picture)
        rgb = rgb[: rgb.shape[0] // 2 * 2, : rgb.shape[1] // 2 * 2]
        full = jpeg(rgb)
        thumb = jpeg(rgb, (160, max(1, rgb.shape[0] * 160 // rgb.shape[1])))
        pattern = list(PATTERNS)[index % 4]
        write_dng(folder / f"{photo.stem}.dng", rgb, pattern, [1, 6, 1, 8][index % 4], [full, thumb])


def make_bench_cr3(source, target, count):
    """A card of CR3s: each of COUNT photos at 6000×4000 as the full-size JPEG track, a 1620×1080
    PRVW, and 25 MB of incompressible bytes standing for its CRX raw data (the EOS R's files are
    25-35 MB), in TARGET_FOLDER/cr3/."""
    photos = [p for p in sorted(source.glob("*.png")) if min(Image.open(p).size) >= 600]
    step = max(1, len(photos) // count)
    folder = target / "cr3"
    folder.mkdir(parents=True, exist_ok=True)
    random = numpy.random.default_rng(1)
    for index, photo in enumerate(photos[::step][:count]):
        picture = Image.open(photo).convert("RGB").resize((6000, 4000), Image.Resampling.LANCZOS)
        data, _ = build_cr3(numpy.asarray(picture), (1620, 1080), [1, 6, 1, 8][index % 4],
                            random.integers(0, 256, 25 << 20, numpy.uint8).tobytes())
        (folder / f"{photo.stem}.cr3").write_bytes(data)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--bench-cr3":
        make_bench_cr3(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 20)
    elif len(sys.argv) > 1 and sys.argv[1] == "--bench":
        make_bench(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 40)
    else:
        make_fixtures()
        make_cr3_fixture()
        make_hostile_seeds()
        list_real_samples()
