#!/usr/bin/env python3
"""Makes the HEIF/AVIF fixtures of Tests/HEIFCodecTests/Fixtures and their goldens.

Run from the repository root:  python3 scripts/make-heif-fixtures.py

Needs heif-enc (Debian libheif-examples 1.15.1: x265 for HEVC, aom for AV1), avifenc (Debian
libavif-bin 0.11.1, for the 10-bit AVIF): `apt-get install libheif-examples libavif-bin`, ImageMagick
`convert` (16-bit resizes), Pillow 12+ (with its AVIF plugin) and pillow-heif (pip). Sources are
pictures the repository already holds (SampleImages/, Tests/JPEGCodecTests/Fixtures/; licences
beside them, see Fixtures/LICENSE.md).

What it writes:
- the coded pictures (heif-enc), and files rebuilt from their coded items by the small ISOBMFF
  writer below: `irot`/`imir`/`clap` added (with the EXIF orientation tag an iPhone writes beside
  them, which must be ignored), a 2×2 grid of separately encoded tiles, and the hostile files of
  issue #22 item 6 (huge `ispe`, a 16384×16384 AVIF grid of one repeated tile, grids referring to
  themselves or to each other, missing items, lying box lengths, absurd counts);
- `<name>.<heic|avif>.golden.png`: the reference decode, full size, transformations applied: pillow-heif
  (libheif 1.23 + libde265) for HEIC, Pillow's AVIF plugin (libavif + dav1d) for AVIF;
- `cases.txt`: one line per good fixture: name, displayed width and height, bit depth, alpha
  (0/1), and the reference decoder;
- in Tests/MasonrySheetTests/Fixtures/HEIF/: copies of some fixtures, and their tiles as the
  issue's 35 dB check wants them (`tiles.txt`, `<fixture>.<width>.tile.png`).

The output is deterministic for fixed tool versions (x265 and aom encode the same bytes again).
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy
from PIL import Image
import pillow_heif

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "HEIFCodecTests", "Fixtures")
HOSTILE = os.path.join(OUT, "hostile")
SAMPLES = os.path.join(ROOT, "SampleImages")
WORK = tempfile.mkdtemp(prefix="heif-fixtures-")


# MARK: ISOBMFF reading

def boxes(data, start, end):
    """The boxes in data[start:end]: (type, payload_start, box_end)."""
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
            header = 16
        elif size == 0:
            size = end - at
        yield kind.decode("latin-1"), at + header, at + size
        at += size


def child(data, start, end, kind):
    return next((b for b in boxes(data, start, end) if b[0] == kind), None)


def read_heif(path):
    """A HEIF file's items: {id: {type, props: [(box bytes, essential)], data}}, refs, pitm."""
    data = open(path, "rb").read()
    meta = child(data, 0, len(data), "meta")
    m0, m1 = meta[1] + 4, meta[2]
    pitm = child(data, m0, m1, "pitm")
    primary = struct.unpack(">H", data[pitm[1] + 4:pitm[1] + 6])[0]
    items = {}
    iinf = child(data, m0, m1, "iinf")
    version = data[iinf[1]]
    first = iinf[1] + 4 + (2 if version == 0 else 4)
    for kind, p0, p1 in boxes(data, first, iinf[2]):
        v = data[p0]
        if v == 2:
            item_id, _, item_type = struct.unpack(">HH4s", data[p0 + 4:p0 + 12])
        else:
            item_id, _, item_type = struct.unpack(">IH4s", data[p0 + 4:p0 + 14])
        items[item_id] = {"type": item_type.decode(), "props": [], "data": b""}
    idat = child(data, m0, m1, "idat")
    iloc = child(data, m0, m1, "iloc")
    p = iloc[1]
    v = data[p]
    sizes = data[p + 4] << 8 | data[p + 5]
    off_size, len_size, base_size = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
    index_size = sizes & 15 if v in (1, 2) else 0
    q = p + 6

    def number(n):
        nonlocal q
        value = int.from_bytes(data[q:q + n], "big") if n else 0
        q += n
        return value

    count = number(2 if v < 2 else 4)
    for _ in range(count):
        item_id = number(2 if v < 2 else 4)
        method = number(2) & 15 if v in (1, 2) else 0
        number(2)
        base = number(base_size)
        chunks = []
        for _ in range(number(2)):
            number(index_size)
            offset, length = number(off_size), number(len_size)
            source = data if method == 0 else data[idat[1]:idat[2]]
            chunks.append(source[base + offset:base + offset + length])
        items[item_id]["data"] = b"".join(chunks)
    refs = []
    iref = child(data, m0, m1, "iref")
    if iref:
        for kind, r0, r1 in boxes(data, iref[1] + 4, iref[2]):
            source, n = struct.unpack(">HH", data[r0:r0 + 4])
            targets = list(struct.unpack(">%dH" % n, data[r0 + 4:r0 + 4 + 2 * n]))
            refs.append((kind, source, targets))
    iprp = child(data, m0, m1, "iprp")
    ipco = child(data, iprp[1], iprp[2], "ipco")
    properties = [data[b[1] - 8:b[2]] for b in boxes(data, ipco[1], ipco[2])]
    ipma = child(data, iprp[1], iprp[2], "ipma")
    v, flags = data[ipma[1]], int.from_bytes(data[ipma[1] + 1:ipma[1] + 4], "big")
    q = ipma[1] + 4
    for _ in range(number(4)):
        item_id = number(2 if v < 1 else 4)
        for _ in range(number(1)):
            value = number(2 if flags & 1 else 1)
            essential = bool(value >> (15 if flags & 1 else 7))
            index = value & (0x7FFF if flags & 1 else 0x7F)
            items[item_id]["props"].append((properties[index - 1], essential))
    return items, refs, primary


# MARK: ISOBMFF writing

def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full_box(kind, version, flags, payload):
    return box(kind, bytes([version]) + flags.to_bytes(3, "big") + payload)


def ispe(width, height):
    return full_box("ispe", 0, 0, struct.pack(">II", width, height))


def irot(quarter_turns):
    return box("irot", bytes([quarter_turns & 3]))


def imir(axis):
    return box("imir", bytes([axis & 1]))


def clap(width, height, horizontal_offset=0, vertical_offset=0):
    return box("clap", struct.pack(">IIIIiIiI", width, 1, height, 1, horizontal_offset, 1, vertical_offset, 1))


def grid_descriptor(rows, columns, width, height):
    wide = width > 0xFFFF or height > 0xFFFF
    fields = struct.pack(">II", width, height) if wide else struct.pack(">HH", width, height)
    return bytes([0, 1 if wide else 0, rows - 1, columns - 1]) + fields


def exif_item(orientation):
    """An Exif item as iPhones write it: 4-byte offset to the TIFF header, then big-endian TIFF
    with IFD0 holding the Orientation tag."""
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
    tiff += struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
    return struct.pack(">I", 6) + b"Exif\x00\x00" + tiff


def write_heif(path, brands, items, refs, primary, idat_items=(), item_count=None, extra_meta=b"",
               mdat_size=None, wide_ids=False):
    """Writes ftyp, meta (hdlr pict, pitm, iloc v1, iinf v0, iref, iprp, idat) and one mdat.
    items: {id: {type, props: [(box bytes, essential)], data}}; items in idat_items are stored
    in the idat box (construction method 1), the rest in mdat; an item whose data is None gets
    no iloc entry (as Nokia's conformance files write `iden` items). wide_ids: the box versions with
    32-bit item ids and counts instead (pitm v1, iinf v1, infe v3, iloc v2, iref v1, ipma v1)."""
    ids = sorted(items)
    id_format = ">I" if wide_ids else ">H"
    ftyp = box("ftyp", brands[0].encode() + b"\0\0\0\0" + b"".join(b.encode() for b in brands))
    hdlr = full_box("hdlr", 0, 0, b"\0\0\0\0pict" + b"\0" * 12 + b"\0")
    pitm = full_box("pitm", int(wide_ids), 0, struct.pack(id_format, primary))
    infes = b"".join(full_box("infe", 3 if wide_ids else 2, 0,
                              struct.pack(id_format, i) + struct.pack(">H4s", 0, items[i]["type"].encode()) + b"\0")
                     for i in ids)
    iinf = full_box("iinf", int(wide_ids), 0,
                    struct.pack(id_format, len(ids) if item_count is None else item_count) + infes)
    iref = full_box("iref", int(wide_ids), 0, b"".join(box(kind, struct.pack(id_format, source) + struct.pack(">H", len(targets)) +
                                                           b"".join(struct.pack(id_format, t) for t in targets))
                                                       for kind, source, targets in refs)) if refs else b""
    properties, associations = [], b""
    for i in ids:
        indices = []
        for prop, essential in items[i]["props"]:
            if prop not in properties:
                properties.append(prop)
            indices.append((properties.index(prop) + 1) | (0x80 if essential else 0))
        associations += struct.pack(id_format, i) + struct.pack(">B", len(indices)) + bytes(indices)
    ipco = box("ipco", b"".join(properties))
    ipma = full_box("ipma", int(wide_ids), 0, struct.pack(">I", len(ids)) + associations)
    iprp = box("iprp", ipco + ipma)
    idat_payload = b"".join(items[i]["data"] for i in ids if i in idat_items)
    idat = box("idat", idat_payload) if idat_items else b""

    def iloc(mdat_start):
        entries, in_mdat, in_idat = b"", mdat_start, 0
        located = [i for i in ids if items[i]["data"] is not None]
        for i in located:
            length = len(items[i]["data"])
            method, offset = (1, in_idat) if i in idat_items else (0, in_mdat)
            entries += struct.pack(id_format, i) + struct.pack(">HHHII", method, 0, 1, offset, length)
            if i in idat_items:
                in_idat += length
            else:
                in_mdat += length
        return full_box("iloc", 2 if wide_ids else 1, 0, bytes([0x44, 0x00]) + struct.pack(id_format, len(located)) + entries)

    def meta(mdat_start):
        return full_box("meta", 0, 0, hdlr + pitm + iloc(mdat_start) + iinf + iref + iprp + idat + extra_meta)

    mdat_start = len(ftyp) + len(meta(0)) + 8
    mdat_payload = b"".join(items[i]["data"] for i in ids if i not in idat_items and items[i]["data"] is not None)
    mdat = struct.pack(">I4s", 8 + len(mdat_payload) if mdat_size is None else mdat_size, b"mdat") + mdat_payload
    with open(path, "wb") as out:
        out.write(ftyp + meta(mdat_start) + mdat)


# MARK: Sources and encoders

def zero_track_times(path):
    """Sets the creation and modification times of mvhd, tkhd and mdhd to 0, so that the
    sequence avifenc writes is the same on every run."""
    data = bytearray(open(path, "rb").read())
    for kind in (b"mvhd", b"tkhd", b"mdhd"):
        at = data.find(kind)
        while at >= 0:
            payload = at + 4
            width = 8 if data[payload] == 1 else 4
            data[payload + 4:payload + 4 + 2 * width] = bytes(2 * width)
            at = data.find(kind, at + 4)
    open(path, "wb").write(bytes(data))


def source_png(name, source, size, mode="RGB", crop=None):
    """A resized copy of a repository picture, written to the work folder."""
    image = Image.open(os.path.join(ROOT, source))
    if crop:
        image = image.crop(crop)
    image = image.convert(mode).resize(size, Image.LANCZOS)
    path = os.path.join(WORK, name + ".png")
    image.save(path)
    return path


def heif_enc(png, name, *options, avif=False, out=OUT):
    path = os.path.join(out, name + (".avif" if avif else ".heic"))
    command = ["heif-enc", "-q", "50", *options, png, "-o", path] + (["-A"] if avif else [])
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


CASES = []


def golden(path, name):
    """The reference decode of `path`, full size, transformations applied, as <name>.golden.png;
    10- and 12-bit samples scaled to 8 bits as the decoder must: (v * 255 + max / 2) / max."""
    if path.endswith(".avif"):
        image, reference = Image.open(path), "pillow-avif"
        image.load()
    else:
        heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=False)
        reference = "pillow-heif"
        channels = 4 if heif.mode.startswith("RGBA") else 3
        width, height = heif.size
        if heif.mode.endswith(";16"):
            # pillow-heif hands out high bit depths shifted up to 16 bits.
            depth = heif.info["bit_depth"]
            samples = numpy.frombuffer(heif.data, dtype="<u2").reshape(height, heif.stride // 2)
            samples = samples[:, :width * channels].astype(numpy.uint32) >> (16 - depth)
            top = (1 << depth) - 1
            pixels = ((samples * 255 + top // 2) // top).astype(numpy.uint8)
        else:
            rows = numpy.frombuffer(heif.data, dtype=numpy.uint8).reshape(height, heif.stride)
            pixels = numpy.ascontiguousarray(rows[:, :width * channels])
        image = Image.fromarray(pixels.reshape(height, width, channels), "RGBA" if channels == 4 else "RGB")
    has_alpha = image.mode == "RGBA"
    image.save(os.path.join(OUT, name + ".golden.png"))
    return image.size, has_alpha, reference


def add_case(path, bits):
    (width, height), has_alpha, reference = golden(path, os.path.basename(path))
    CASES.append(f"{os.path.basename(path)} {width} {height} {bits} {int(has_alpha)} {reference}")


def rebuilt(source, name, extension, extra_props=(), exif_orientation=None, brands=("heic", "mif1", "heic", "miaf")):
    """The primary item of `source` written again with `extra_props` after its own (and an Exif
    item with `exif_orientation` beside it, as an iPhone writes)."""
    items, refs, primary = read_heif(source)
    kept = {primary: dict(items[primary])}
    kept[primary]["props"] = items[primary]["props"] + [(p, True) for p in extra_props]
    new_refs = []
    if exif_orientation:
        kept[2] = {"type": "Exif", "props": [], "data": exif_item(exif_orientation)}
        new_refs.append(("cdsc", 2, [primary]))
    path = os.path.join(OUT, name + extension)
    write_heif(path, list(brands), kept, new_refs, primary)
    return path


# MARK: The fixtures

def good_fixtures():
    cat = source_png("cat", "SampleImages/13-chelsea-cat-palette.png", (320, 212))
    astronaut = source_png("astronaut", "SampleImages/01-astronaut.png", (256, 256))
    coffee16 = os.path.join(WORK, "coffee16.png")
    subprocess.run(["convert", os.path.join(SAMPLES, "05-coffee-16bit.png"), "-resize", "300x200",
                    "-depth", "16", coffee16], check=True)
    dice = source_png("dice", "SampleImages/27-dice-grey-alpha.png", (213, 252), mode="RGBA")

    heic8 = heif_enc(cat, "cat-8bit")
    add_case(heic8, 8)
    add_case(heif_enc(coffee16, "coffee-10bit", "-b", "10"), 10)
    add_case(heif_enc(coffee16, "coffee-12bit", "-b", "12"), 12)
    add_case(heif_enc(astronaut, "astronaut-8bit", avif=True), 8)
    # heif-enc 1.15 aborts inside aom on 10-bit AVIF (an assertion on the chroma layout): avifenc.
    coffee_avif = os.path.join(OUT, "coffee-10bit.avif")
    subprocess.run(["avifenc", "-d", "10", "-y", "420", "--min", "20", "--max", "30", "-s", "6", coffee16, coffee_avif],
                   check=True, stdout=subprocess.DEVNULL)
    add_case(coffee_avif, 10)
    dice_heic = heif_enc(dice, "dice-alpha")
    add_case(dice_heic, 8)
    # The same items with a `prem` reference: the colour is declared premultiplied by alpha (the
    # samples are not), so the decoder's division by alpha is checked against the plain file.
    items, refs, primary = read_heif(dice_heic)
    alpha = next(source for kind, source, targets in refs if kind == "auxl")
    write_heif(os.path.join(OUT, "dice-alpha-premultiplied.heic"), ["heic", "mif1", "heic", "miaf"], items,
               refs + [("prem", primary, [alpha])], primary)
    add_case(heif_enc(dice, "dice-alpha", avif=True), 8)

    # Transformations, each with the EXIF orientation an iPhone would write beside them
    # (6 for a quarter turn clockwise, which irot expresses as 3 anti-clockwise turns).
    for name, props, exif in [("cat-irot90", [irot(1)], 8), ("cat-irot180", [irot(2)], 3),
                              ("cat-irot270", [irot(3)], 6), ("cat-imir0", [imir(0)], 2),
                              ("cat-imir1", [imir(1)], 4), ("cat-irot90-imir0", [irot(1), imir(0)], 7),
                              ("cat-clap", [clap(240, 160, 20, -10)], None),
                              ("cat-clap-irot90", [clap(240, 160), irot(1)], None)]:
        add_case(rebuilt(heic8, name, ".heic", props, exif), 8)

    # A 2×2 grid of separately encoded 160×106 tiles, shown at 300×200 (the last column and
    # row overhang the output and are cut).
    tiles = []
    for row in range(2):
        for column in range(2):
            tile = Image.open(cat).crop((column * 160, row * 106, column * 160 + 160, row * 106 + 106))
            tile_png = os.path.join(WORK, f"tile{row}{column}.png")
            tile.save(tile_png)
            tile_items, _, tile_primary = read_heif(heif_enc(tile_png, f"tile{row}{column}", out=WORK))
            tiles.append(tile_items[tile_primary])
    items = {1: {"type": "grid", "props": [(ispe(300, 200), False)], "data": grid_descriptor(2, 2, 300, 200)}}
    for index, tile in enumerate(tiles):
        items[index + 2] = tile
    grid = os.path.join(OUT, "cat-grid.heic")
    write_heif(grid, ["heic", "mif1", "heic", "miaf"], items, [("dimg", 1, [2, 3, 4, 5])], 1, idat_items={1})
    add_case(grid, 8)

    # As an iPhone stores a portrait photo: the grid turned by irot (with EXIF orientation 6
    # beside it), a thumbnail of the same aspect carrying the same irot, an Exif item.
    small = os.path.join(WORK, "cat-thumbnail.png")
    Image.open(cat).crop((0, 0, 300, 200)).resize((150, 100), Image.LANCZOS).save(small)   # what the grid shows
    thumbnail_items, _, thumbnail_primary = read_heif(heif_enc(small, "cat-thumbnail", out=WORK))
    phone = {1: {"type": "grid", "props": [(ispe(300, 200), False), (irot(3), True)], "data": grid_descriptor(2, 2, 300, 200)}}
    for index, tile in enumerate(tiles):
        phone[index + 2] = tile
    phone[6] = dict(thumbnail_items[thumbnail_primary])
    phone[6]["props"] = phone[6]["props"] + [(irot(3), True)]
    phone[7] = {"type": "Exif", "props": [], "data": exif_item(6)}
    phone_path = os.path.join(OUT, "cat-phone-like.heic")
    write_heif(phone_path, ["heic", "mif1", "heic", "miaf"], phone,
               [("dimg", 1, [2, 3, 4, 5]), ("thmb", 6, [1]), ("cdsc", 7, [1])], 1, idat_items={1})
    add_case(phone_path, 8)

    # The grid again, written with 32-bit item ids (pitm v1, iinf v1, infe v3, iloc v2, iref v1,
    # ipma v1): the same picture (not in cases.txt; compared with cat-grid.heic).
    write_heif(os.path.join(OUT, "cat-grid-wide-ids.heic"), ["heic", "mif1", "heic", "miaf"], items,
               [("dimg", 1, [2, 3, 4, 5])], 1, idat_items={1}, wide_ids=True)

    # A photo with a 320-pixel thumbnail, as iPhones store them.
    bus = source_png("bus", "SampleImages/14-bus.png", (800, 418))
    add_case(heif_enc(bus, "bus-thumbnail", "-t", "320"), 8)

    # A three-frame AVIF sequence (avis: a moov track beside the still primary item), read for
    # its frame count only (not in cases.txt).
    frames = []
    for index in range(3):
        frame = os.path.join(WORK, f"frame{index}.png")
        Image.open(cat).rotate(index * 10).resize((96, 64), Image.LANCZOS).save(frame)
        frames.append(frame)
    sequence = os.path.join(OUT, "cat-sequence.avif")
    subprocess.run(["avifenc", "-s", "10", "-j", "1", *frames, sequence], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    zero_track_times(sequence)

    with open(os.path.join(OUT, "cases.txt"), "w") as out:
        out.write("# name width height bits alpha reference: written by scripts/make-heif-fixtures.py\n")
        out.write("\n".join(CASES) + "\n")
    return heic8, tiles


def hostile_fixtures(heic8, tiles):
    """Files the header reader must refuse before libheif sees them (issue #22, item 6)."""
    os.makedirs(HOSTILE, exist_ok=True)
    items, _, primary = read_heif(heic8)
    coded = items[primary]
    coded_props = [p for p in coded["props"] if not p[0][4:8] == b"ispe"]
    brands = ["heic", "mif1", "heic", "miaf"]

    def write(name, items, refs, primary, brands=brands, **options):
        write_heif(os.path.join(HOSTILE, name), brands, items, refs, primary, **options)

    def huge(width, height):
        return {1: {"type": "hvc1", "props": coded_props + [(ispe(width, height), False)], "data": coded["data"]}}

    write("ispe-60000.heic", huge(60000, 60000), [], 1)

    # One flat 512×512 AV1 tile, referred to 32×32 times by a 16384×16384 grid: about 3 KB.
    flat = os.path.join(WORK, "flat512.png")
    Image.new("RGB", (512, 512), (90, 120, 200)).save(flat)
    tile_items, _, tile_primary = read_heif(heif_enc(flat, "flat512", "-q", "10", avif=True, out=WORK))
    grid = {1: {"type": "grid", "props": [(ispe(16384, 16384), False)], "data": grid_descriptor(32, 32, 16384, 16384)},
            2: tile_items[tile_primary]}
    write("grid-16384-one-tile.avif", grid, [("dimg", 1, [2] * 1024)], 1, brands=["avif", "mif1", "avif", "miaf"],
          idat_items={1})

    def tile_grid(rows, columns, width, height, tile_list):
        made = {1: {"type": "grid", "props": [(ispe(width, height), False)],
                    "data": grid_descriptor(rows, columns, width, height)}}
        for index, tile in enumerate(tile_list):
            made[index + 2] = tile
        return made

    write("grid-self-reference.heic", tile_grid(1, 1, 160, 106, []), [("dimg", 1, [1])], 1, idat_items={1})
    mutual = {1: {"type": "grid", "props": [(ispe(160, 106), False)], "data": grid_descriptor(1, 1, 160, 106)},
              2: {"type": "grid", "props": [(ispe(160, 106), False)], "data": grid_descriptor(1, 1, 160, 106)}}
    write("grids-refer-to-each-other.heic", mutual, [("dimg", 1, [2]), ("dimg", 2, [1])], 1, idat_items={1, 2})
    cycle = tile_grid(2, 2, 300, 200, tiles)
    cycle[6] = {"type": "grid", "props": [(ispe(160, 106), False)], "data": grid_descriptor(1, 1, 160, 106)}
    write("grid-cycle-through-tile.heic", cycle,
          [("dimg", 1, [2, 3, 4, 6]), ("dimg", 6, [1])], 1, idat_items={1, 6})
    write("grid-missing-tile.heic", tile_grid(2, 2, 300, 200, tiles), [("dimg", 1, [2, 3, 4, 9])], 1,
          idat_items={1})
    write("grid-too-few-tiles.heic", tile_grid(2, 2, 300, 200, tiles), [("dimg", 1, [2, 3, 4])], 1,
          idat_items={1})
    write("grid-not-covered.heic", tile_grid(2, 2, 330, 200, tiles), [("dimg", 1, [2, 3, 4, 5])], 1,
          idat_items={1})
    uneven = tile_grid(2, 2, 300, 200, tiles)
    uneven[5] = dict(uneven[5])
    uneven[5]["props"] = [p for p in uneven[5]["props"] if p[0][4:8] != b"ispe"] + [(ispe(150, 106), False)]
    write("grid-uneven-tiles.heic", uneven, [("dimg", 1, [2, 3, 4, 5])], 1, idat_items={1})
    write("missing-primary.heic", huge(320, 212), [], 7)
    write("thumbnail-of-itself.heic", huge(320, 212), [("thmb", 1, [1])], 1)
    # Two items each the alpha plane of the other: libheif would decode alpha planes of alpha planes.
    mutual_alpha = huge(320, 212)
    mutual_alpha[2] = mutual_alpha[1]
    write("alpha-planes-of-each-other.heic", mutual_alpha, [("auxl", 1, [2]), ("auxl", 2, [1])], 1)
    write("item-count-absurd.heic", huge(320, 212), [], 1, item_count=0xFFFF)
    # A thumbnail claiming 2^32-1 × 2^32-1: read without overflow, never chosen.
    claims = huge(320, 212)
    claims[2] = huge(0xFFFFFFFF, 0xFFFFFFFF)[1]
    write("thumbnail-huge-claim.heic", claims, [("thmb", 2, [1])], 1)
    write("mdat-past-eof.heic", huge(320, 212), [], 1, mdat_size=1 << 20)

    # AV1 data cut to 30 bytes (boxes consistent): dav1d would complain on stderr about it.
    avif_items, _, avif_primary = read_heif(os.path.join(OUT, "astronaut-8bit.avif"))
    cut_item = dict(avif_items[avif_primary])
    cut_item["data"] = cut_item["data"][:30]
    write("corrupt-av1-data.avif", {avif_primary: cut_item}, [], avif_primary, brands=["avif", "mif1", "avif", "miaf"])

    # Lying boxes: patched bytes of the good file.
    good = open(heic8, "rb").read()
    meta_at = good.index(b"meta") - 4
    meta_size = struct.unpack(">I", good[meta_at:meta_at + 4])[0]

    def patched(name, at, value):
        data = bytearray(good)
        data[at:at + len(value)] = value
        open(os.path.join(HOSTILE, name), "wb").write(bytes(data))

    iloc_at = good.index(b"iloc") - 4
    patched("child-past-parent.heic", iloc_at, struct.pack(">I", meta_size + 100))
    patched("zero-size-child.heic", iloc_at, struct.pack(">I", 0))
    patched("meta-past-eof.heic", meta_at, struct.pack(">I", len(good) + 1000))
    huge64 = good[:meta_at] + struct.pack(">I4sQ", 1, b"meta", 1 << 62) + good[meta_at + 8:]
    open(os.path.join(HOSTILE, "meta-64bit-size.heic"), "wb").write(huge64)
    open(os.path.join(HOSTILE, "truncated-in-meta.heic"), "wb").write(good[:meta_at + meta_size // 2])
    # Cut inside the coded data, the mdat box's length made to agree: only the item's extent lies.
    mdat_at = good.rindex(b"mdat") - 4
    cut = bytearray(good[:len(good) - 4000])
    cut[mdat_at:mdat_at + 4] = struct.pack(">I", len(cut) - mdat_at)
    open(os.path.join(HOSTILE, "truncated-in-data.heic"), "wb").write(bytes(cut))


SHEET = os.path.join(ROOT, "Tests", "MasonrySheetTests", "Fixtures", "HEIF")
# (fixture, tile width): the bus photo's 320×166 thumbnail serves the 150 px tile (twice the
# tile fits in it), the 200 px tile is drawn from the primary image; likewise the phone-like
# file's turned 100×150 thumbnail serves 40 px tiles, not 90 px ones.
TILES = [("cat-irot90-imir0.heic", 90), ("cat-clap.heic", 150), ("cat-grid.heic", 120), ("coffee-10bit.heic", 150),
         ("dice-alpha.heic", 100), ("astronaut-8bit.avif", 120), ("coffee-10bit.avif", 150), ("dice-alpha.avif", 100),
         ("bus-thumbnail.heic", 150), ("bus-thumbnail.heic", 200), ("cat-phone-like.heic", 40),
         ("cat-phone-like.heic", 90)]


def thumbnail_used(name, tile_width, tile_height):
    """Whether Masonry decodes the file's thumbnail for this tile (HEIFDecoder's rule: at least
    twice the tile; pillow-heif's decode of it is then the reference)."""
    if not name.endswith(".heic"):
        return None
    heif = pillow_heif.open_heif(os.path.join(OUT, name))
    for index in range(len(heif.info.get("thumbnails", []))):
        thumbnail = heif[0].get_thumbnail(index)
        width, height = thumbnail.size
        if width >= 2 * tile_width and height >= 2 * tile_height:
            return thumbnail.to_pillow()
    return None


def reference_tile(full, tile_width, tile_height, path):
    tile = full.convert("RGBA").resize((tile_width, tile_height), Image.LANCZOS)
    white = Image.new("RGBA", tile.size, (255, 255, 255, 255))
    Image.alpha_composite(white, tile).convert("RGB").save(path)


def tile_goldens():
    """The issue's 35 dB tile check: the reference's decode of the picture Masonry decodes (the
    primary image, or the thumbnail that stands in), Lanczos to the tile the layout gives (height
    rounded half up), composited over white; for a thumbnail also the tile of the full-size
    decode (`.full.tile.png`), to measure what the thumbnail costs. For MasonrySheetTests."""
    os.makedirs(SHEET, exist_ok=True)
    lines = ["# fixture tile-width tile-height picture: written by scripts/make-heif-fixtures.py"]
    for name, tile_width in TILES:
        source = os.path.join(OUT, name)
        open(os.path.join(SHEET, name), "wb").write(open(source, "rb").read())
        full = Image.open(os.path.join(OUT, name + ".golden.png"))
        tile_height = (2 * tile_width * full.height + full.width) // (2 * full.width)
        thumbnail = thumbnail_used(name, tile_width, tile_height)
        golden = os.path.join(SHEET, f"{name}.{tile_width}.tile.png")
        if thumbnail:
            reference_tile(thumbnail, tile_width, tile_height, golden)
            reference_tile(full, tile_width, tile_height, os.path.join(SHEET, f"{name}.{tile_width}.full.tile.png"))
        else:
            reference_tile(full, tile_width, tile_height, golden)
        lines.append(f"{name} {tile_width} {tile_height} {'thumbnail' if thumbnail else 'primary'}")
    for name in ["grid-self-reference.heic", "grids-refer-to-each-other.heic", "corrupt-av1-data.avif"]:
        open(os.path.join(SHEET, name), "wb").write(open(os.path.join(HOSTILE, name), "rb").read())
    open(os.path.join(SHEET, "cat-sequence.avif"), "wb").write(open(os.path.join(OUT, "cat-sequence.avif"), "rb").read())
    with open(os.path.join(SHEET, "tiles.txt"), "w") as out:
        out.write("\n".join(lines) + "\n")


def main():
    missing = [tool for tool in ["heif-enc", "avifenc", "convert"] if not shutil.which(tool)]
    if missing:
        sys.exit(f"missing {', '.join(missing)}: apt-get install libheif-examples libavif-bin imagemagick")
    os.makedirs(OUT, exist_ok=True)
    heic8, tiles = good_fixtures()
    hostile_fixtures(heic8, tiles)
    tile_goldens()
    print(f"wrote {len(CASES)} cases and the hostile files to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
