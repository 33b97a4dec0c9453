#!/usr/bin/env python3
"""Makes the fuzz seeds in Tests/FuzzReplayTests/Corpus/ that are not plain copies of
fixtures: small JPEGs (Pillow, from the cat and camera JPEG fixtures, whose licence is in
Tests/JPEGCodecTests/Fixtures/LICENSE.md), PngSuite files (copied; licence in
Tests/PNGCodecTests/Fixtures/pngsuite/PngSuite.LICENSE), thumbnail cache entries (EntryFormat's
layout, zlib's CRC-32) and page entries, caption formats and argument lists (NUL between arguments); and the
libFuzzer dictionaries in Fuzz/dictionaries/ (the arguments one from the option tables).

Run from the repository root: python3 scripts/make-fuzz-seeds.py (needs Pillow). It rewrites the
seeds it makes and leaves every regressions/ folder alone. Deterministic: the same Pillow gives
the same bytes."""
import io
import re
import os
import shutil
import struct
import zlib

from PIL import Image

CORPUS = "Tests/FuzzReplayTests/Corpus"
PNGSUITE = "Tests/PNGCodecTests/Fixtures/pngsuite"
JPEGS = "Tests/JPEGCodecTests/Fixtures"


def folder(target):
    path = os.path.join(CORPUS, target)
    os.makedirs(path, exist_ok=True)
    return path


def write(target, name, data):
    with open(os.path.join(folder(target), name), "wb") as f:
        f.write(data)


# PNG: every colour type and depth, interlaced or not, tRNS, odd sizes, filters, zlib levels.
PNG_SEEDS = ["basn0g01", "basn0g02", "basn0g04", "basn0g08", "basn0g16", "basn2c08", "basn2c16",
             "basn3p01", "basn3p02", "basn3p04", "basn3p08", "basn4a08", "basn4a16", "basn6a08",
             "basn6a16", "tbbn0g04", "tbbn2c16", "tbbn3p08", "tbrn2c08", "tp1n3p08", "s01n3p01",
             "s37n3p04", "f00n2c08", "f01n0g08", "f02n2c08", "f03n0g08", "f04n2c08", "z00n2c08",
             "z09n2c08", "oi4n2c16", "oi9n0g16", "ccwn3p08", "exif2c08"]
INTERLACED = ["basi0g01", "basi0g16", "basi2c08", "basi3p04", "basi4a16", "basi6a08", "s07i3p02"]
for name in PNG_SEEDS:
    for target in ("png-decode", "png-differential"):
        shutil.copy(os.path.join(PNGSUITE, name + ".png"), folder(target))
for name in INTERLACED:
    shutil.copy(os.path.join(PNGSUITE, name + ".png"), folder("png-decode"))


# JPEG: small files of every kind the decoder handles.
def jpeg(image, **options):
    out = io.BytesIO()
    image.save(out, "JPEG", **options)
    return out.getvalue()


cat = Image.open(os.path.join(JPEGS, "cat-orientation-1.jpg")).convert("RGB")
cat.thumbnail((40, 40))
grey = Image.open(os.path.join(JPEGS, "camera-grey-q85.jpg")).convert("L")
grey.thumbnail((36, 36))
exif = Image.Exif()
exif[0x0112] = 6
seeds = {
    "baseline-420.jpg": jpeg(cat, quality=75, subsampling=2),
    "baseline-444.jpg": jpeg(cat, quality=90, subsampling=0),
    "baseline-422-restarts.jpg": jpeg(cat, quality=60, subsampling=1, restart_marker_blocks=2),
    "progressive-420.jpg": jpeg(cat, quality=75, progressive=True),
    "grey.jpg": jpeg(grey, quality=80),
    "grey-progressive.jpg": jpeg(grey, quality=70, progressive=True),
    "cmyk.jpg": jpeg(cat.convert("CMYK"), quality=80),
    "orientation-6.jpg": jpeg(cat, quality=70, exif=exif.tobytes()),
    "optimized-huffman.jpg": jpeg(cat, quality=50, optimize=True),
}
for name, data in seeds.items():
    write("jpeg-decode", name, data)
write("jpeg-header", "orientation-6-small.jpg", seeds["orientation-6.jpg"])
write("jpeg-header", "progressive-small.jpg", seeds["progressive-420.jpg"])


# Thumbnail cache entries (Sources/TileCache/EntryFormat.swift).
def entry(width, height, pixel, device=2049, inode=1234567, size=4096, modified=1_700_000_000_000_000_000,
          changed=1_700_000_000_500_000_000, variant=3):
    pixels = bytes(pixel) * (width * height)
    header = b"MSNYTHMB" + struct.pack("<IIIQQQqqqQ", 1, width, height, len(pixels), device, inode, size,
                                       modified, changed, variant)
    assert len(header) == 76
    return header + pixels + struct.pack("<I", zlib.crc32(header + pixels))


write("cache-entry", "hit-4x3.thumb", entry(4, 3, [10, 20, 30, 255]))
write("cache-entry", "hit-1x1.thumb", entry(1, 1, [0, 0, 0, 0], variant=0))
write("cache-entry", "bad-checksum.thumb", entry(2, 2, [1, 2, 3, 4])[:-1] + b"\x00")
write("cache-entry", "other-version.thumb", entry(2, 1, [9, 9, 9, 9]).replace(b"\x01\x00\x00\x00", b"\x02\x00\x00\x00", 1))
write("cache-entry", "truncated.thumb", entry(3, 3, [5, 6, 7, 8])[:100])


# Page entries (Sources/TileCache/PageEntry.swift): a page's compressed row groups, each with its
# recipe (32 zero bytes: not kept), compressed and filtered byte counts and Adler-32.
def page_entry(groups, key=bytes(range(32)), version=1):
    table = b"".join((recipe or bytes(32)) + struct.pack("<QQI", len(data), filtered, adler)
                     for recipe, data, filtered, adler in groups)
    body = b"MSNYPAGE" + struct.pack("<II", version, len(groups)) + key + table + b"".join(group[1] for group in groups)
    return body + struct.pack("<I", zlib.crc32(body))


two_groups = [(bytes([7]) * 32, b"\x01\x02\x03", 13 * 3721, 0x12345678), (None, b"", 13 * 3721, 1)]
write("cache-page-entry", "hit-two-groups.page", page_entry(two_groups))
write("cache-page-entry", "empty.page", page_entry([]))
write("cache-page-entry", "bad-checksum.page", page_entry(two_groups)[:-1] + b"\x00")
write("cache-page-entry", "other-version.page", page_entry(two_groups, version=2))
write("cache-page-entry", "truncated.page", page_entry(two_groups)[:60])

# Plan files (Sources/MasonrySheet/Plan/PlanFile.swift, SPEC §15): header, blocks, 64-byte
# image records, trailer with zlib's CRC-32.
def plan_file(images, sections=(), skipped=(), words=(b"-o", b"s.png", b"--", b"in"), version=1, masonry=b"0.1.0"):
    def block(tag, payload):
        return tag + struct.pack("<IQ", 0, len(payload)) + payload
    def counted(items):
        return struct.pack("<I", len(items)) + b"".join(struct.pack("<I", len(i)) + i for i in items)
    colors = []
    records, paths = b"", b""
    for path, width, height, orientation, fmt, color, frames in images:
        if color not in colors:
            colors.append(color)
        records += struct.pack("<QIIIIBBHIIIQQQ", len(paths), len(path), 0, width, height, orientation, fmt, 0,
                               colors.index(color), frames, 0, 400 + width, 1_700_000_000_123_456_789, 1000 + len(paths))
        paths += path
    sect = struct.pack("<I", len(sections)) + b"".join(struct.pack("<QQI", first, count, len(name)) + name
                                                       for first, count, name in sections)
    skip = struct.pack("<I", len(skipped)) + b"".join(struct.pack("<I", len(p)) + p + struct.pack("<I", len(r)) + r
                                                      for p, r in skipped)
    data = (b"\x89MASONRY-PLAN\r\n\x1a" + struct.pack("<IIQ", version, 0, len(images))
            + block(b"INFO", masonry) + block(b"OPTS", counted(list(words))) + block(b"COLR", counted(colors))
            + block(b"IMGS", records) + block(b"PATH", paths) + block(b"SECT", sect) + block(b"SKIP", skip))
    data += struct.pack("<Q", len(data) + 16)
    return data + struct.pack("<I", zlib.crc32(data)) + b"END\n"


PLAN_IMAGES = [(b"in/a/1.png", 640, 480, 1, 0, b"untagged", 1), (b"in/a/2.jpg", 300, 400, 6, 1, b"icc:Display P3", 1),
               (b"in/b/3.gif", 20, 20, 1, 3, b"untagged", 12)]
write("plan-file", "three-images.mplan", plan_file(PLAN_IMAGES))
write("plan-file", "sections-and-skips.mplan",
      plan_file(PLAN_IMAGES, sections=[(0, 2, b"in/a"), (2, 1, b"in/b")], skipped=[(b"in/x.png", b"truncated image data")],
                words=(b"--sections", b"--caption={name}", b"-r", b"--", b"in")))
write("plan-file", "empty.mplan", plan_file([]))
write("plan-file", "other-version.mplan", plan_file(PLAN_IMAGES, version=2))
write("plan-file", "other-masonry.mplan", plan_file(PLAN_IMAGES, masonry=b"9.9.9"))
write("plan-file", "truncated.mplan", plan_file(PLAN_IMAGES)[:150])
write("plan-file", "bad-orientation.mplan", plan_file([(b"x.png", 1, 1, 9, 0, b"untagged", 1)]))

# Caption formats (SPEC §7).
captions = ["{name}", "{stem} ({width}×{height})", "{index}. {path}\\n{bytes} bytes",
            "{{literal}} braces", "a\\nb\\nc\\nd", "{unknown}", "{name", "}", "plain"]
for number, text in enumerate(captions):
    write("caption-format", "caption-%02d.txt" % number, text.encode())

# Text layout (SPEC §7, issue #33): a control byte (size = byte % 3, room = byte px), then a
# file name: right-to-left and mixed names, wide and combining characters, emoji sequences,
# bidi controls, bytes that are not UTF-8.
text_seeds = [(60, "IMG_صورة_01.jpg"), (100, "תמונה_01.png"), (31, "北京旅行_001.jpg"), (200, "नमस्ते_फोटो.jpg"),
              (47, "🎉party_👍🏽_🇯🇵_👨\u200d👩\u200d👧.png"), (92, "سلام (لا).png"),
              (13, "e\u0301\u0301\u0301\u202e\u2067abc\u05d0(\u0628)")]
for number, (control, name) in enumerate(text_seeds):
    write("text-layout", "text-%02d.bin" % number, bytes([control]) + name.encode())
write("text-layout", "text-%02d.bin" % len(text_seeds), bytes([77]) + b"caf\xe9\xff\xfe\xd8\xa7\\x\x00\xe2\x80\xae")

# Argument lists: NUL between arguments.
argument_lists = [
    ["photos"],
    ["-o", "out.png", "--columns", "4", "--gap=6", "a", "b"],
    ["--width", "1200", "--column-width", "200", "--margin", "8,4", "--background", "#202020", "x"],
    ["--caption", "{name}\\n{width}", "--font-size", "small", "--caption-color", "white", "--title", "T", "x"],
    ["--order", "shortest", "--tolerance", "3", "--max-tile-aspect", "3", "--frame", "2:#fff", "x"],
    ["--sort", "name", "--reverse", "--recursive", "--sections", "--enlarge", "never", "x"],
    ["--manifest", "m.json", "--html", "g.html", "--page-height", "4000", "--per-page", "10", "--page", "2", "x"],
    ["--jobs", "2", "--max-pixels", "1000000", "--max-memory", "512", "--cache", "c", "--cache-max-bytes", "1G", "x"],
    ["--compression", "best", "-q", "--strict", "--plan-only", "--", "-dash"],
    ["--progress", "--no-progress", "x"],
    ["--colums", "3", "x"],
    ["--help"],
    ["compare", "base", "current", "--threshold", ".05", "--max-diff-ratio", "0.01", "--max-diff-pixels", "3",
     "--include-aa", "--allow-resize", "--fail-on-missing", "--show-unchanged", "--report", "r.json", "-j", "2"],
    ["compare", "only-one"],
]
for number, arguments in enumerate(argument_lists):
    write("arguments", "arguments-%02d" % number, b"\0".join(a.encode() for a in arguments))


# Dictionaries (libFuzzer's format: one "value" a line, \xNN escapes), named as the target or the format.
def escape(data):
    return "".join(chr(c) if 32 <= c < 127 and chr(c) not in '"\\' else "\\x%02X" % c for c in data)


def dictionary(name, comment, entries):
    os.makedirs("Fuzz/dictionaries", exist_ok=True)
    with open("Fuzz/dictionaries/%s.dict" % name, "w") as f:
        f.write("# %s\n" % comment)
        for key, value in entries:
            f.write('%s"%s"\n' % (key + "=" if key else "", escape(value)))


png = [("signature", bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))]
png += [("chunk_" + name, name.encode()) for name in
        "IHDR PLTE IDAT IEND tRNS cHRM gAMA iCCP sBIT sRGB cICP mDCV cLLI tEXt zTXt iTXt bKGD hIST pHYs sPLT "
        "eXIf tIME acTL fcTL fdAT oFFs pCAL sCAL sTER dSIG juNK".split()]
png += [("iend_chunk", bytes.fromhex("0000000049454E44AE426082")), ("zlib_default", b"\x78\x9C"),
        ("zlib_fast", b"\x78\x01"), ("zlib_best", b"\x78\xDA"), ("length_zero", bytes(4)),
        ("length_max", b"\x7F\xFF\xFF\xFF"), ("length_over", b"\x80\x00\x00\x00"),
        ("size_16384", b"\x00\x00\x40\x00"), ("size_16385", b"\x00\x00\x40\x01"), ("interlaced", b"\x00\x00\x01")]
png += [("depth%d_colour%d" % (d, c), bytes([d, c, 0, 0, 0])) for d, c in
        [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (8, 2), (16, 2), (1, 3), (2, 3), (4, 3), (8, 3), (8, 4), (16, 4), (8, 6), (16, 6)]]
dictionary("png", "PNG: the signature, the chunk names of PNG 3 and libpng, IHDR fields, zlib headers.", png)

markers = {"SOI": 0xD8, "EOI": 0xD9, "SOS": 0xDA, "DQT": 0xDB, "DNL": 0xDC, "DRI": 0xDD, "DHP": 0xDE,
           "EXP": 0xDF, "DHT": 0xC4, "DAC": 0xCC, "COM": 0xFE}
markers.update({"SOF%d" % n: 0xC0 + n for n in range(16) if n not in (4, 8, 12)})
markers.update({"RST%d" % n: 0xD0 + n for n in range(8)})
markers.update({"APP%d" % n: 0xE0 + n for n in range(16)})
jpeg_entries = [("marker_" + name, bytes([0xFF, code])) for name, code in markers.items()]
jpeg_entries += [("fill", b"\xFF\xFF"), ("stuffed", b"\xFF\x00")]
jpeg_entries += [("app_" + re.sub("[^A-Za-z]", "", ident.decode())[:8], ident) for ident in
                 [b"JFIF\x00", b"JFXX\x00", b"Exif\x00\x00", b"Adobe", b"ICC_PROFILE\x00",
                  b"http://ns.adobe.com/xap/1.0/\x00", b"MPF\x00"]]
jpeg_entries += [("tiff_le", b"II\x2A\x00"), ("tiff_be", b"MM\x00\x2A"), ("orientation_tag_le", b"\x12\x01\x03\x00"),
                 ("orientation_tag_be", b"\x01\x12\x00\x03"), ("exif_ifd_tag_le", b"\x69\x87"),
                 ("sof_three_components", b"\x08\x00\x10\x00\x10\x03")]
dictionary("jpeg", "JPEG: every marker (T.81 table B.1), APPn identifiers, TIFF byte orders, the orientation tag.",
           jpeg_entries)

tables = open("Sources/MasonryCLI/OptionTable.swift").read() + open("Sources/MasonryCLI/CompareCommand.swift").read()
words = []
for match in re.finditer(r'short: (?:"(.)"|nil), long: "([a-z-]+)"', tables):
    for word in (["-" + match.group(1)] if match.group(1) else []) + ["--" + match.group(2), "--" + match.group(2) + "="]:
        if word not in words:
            words.append(word)
words += ["compare", "--", "-", "sheet.png", "x.json", "x.html", "#fff", "#20202080", "red", "none", "shortest",
          "name", "best", "fast", "auto", "1G", "512K", "0.5", ".05", "16384", "2147483647",
          "9223372036854775807", "-1", "4,8", "4,8,2,6", ":#000", "\0"]
dictionary("arguments", "masonry's arguments: every option of both tables, 'compare', '--', values options take.",
           [("", w.encode()) for w in words])
dictionary("caption-format", "--caption formats: the placeholders, braces and the line break.",
           [("", w.encode()) for w in ["{name}", "{path}", "{stem}", "{width}", "{height}", "{bytes}", "{index}",
                                       "{{", "}}", "{", "}", "\\n"]])
dictionary("plan-file", "Plan files (Sources/MasonrySheet/Plan/PlanFile.swift): magic, block tags, end mark.",
           [("magic", b"\x89MASONRY-PLAN\r\n\x1a"), ("version_1", b"\x01\x00\x00\x00")]
           + [("tag_" + tag.lower(), tag.encode()) for tag in ["INFO", "OPTS", "COLR", "IMGS", "PATH", "SECT", "SKIP"]]
           + [("end", b"END\n"), ("count_max", b"\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x7F"), ("u32_max", b"\xFF\xFF\xFF\xFF")])
dictionary("cache-entry", "Thumbnail cache entries (Sources/TileCache/EntryFormat.swift).",
           [("magic", b"MSNYTHMB"), ("version_1", b"\x01\x00\x00\x00"), ("version_2", b"\x02\x00\x00\x00"),
            ("width_big", b"\x00\x40\x00\x00"), ("count_max", b"\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x7F")])
dictionary("webp", "WebP: the RIFF container, every chunk name, VP8 and VP8L signatures.",
           [("riff", b"RIFF"), ("webp", b"WEBP")] + [("chunk_" + name.strip(), name.encode()) for name in
                                                   ["VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", "ANMF", "ICCP", "EXIF", "XMP "]]
           + [("vp8_start_code", b"\x9D\x01\x2A"), ("vp8l_signature", b"\x2F"), ("size_max", b"\xFF\xFF\xFF\xFF"),
              ("canvas_16383", b"\xFE\x3F\x00")])
dictionary("gif", "GIF: signatures, block introducers and labels, the looping extension.",
           [("gif87a", b"GIF87a"), ("gif89a", b"GIF89a"), ("netscape", b"NETSCAPE2.0"), ("xmp", b"XMP DataXMP"),
            ("graphic_control", b"\x21\xF9\x04"), ("application", b"\x21\xFF\x0B"), ("comment", b"\x21\xFE"),
            ("plain_text", b"\x21\x01\x0C"), ("image", b"\x2C"), ("trailer", b"\x3B"), ("block_end", b"\x00"),
            ("lzw_min_8", b"\x08"), ("size_max", b"\xFF\xFF")])
dictionary("heif", "HEIF/AVIF: ISOBMFF box types, item types, brands, properties.",
           [("box_" + name.strip(), name.encode()) for name in
            ["ftyp", "meta", "hdlr", "pitm", "iinf", "infe", "iloc", "iprp", "ipco", "ipma", "ispe", "hvcC", "av1C",
             "colr", "nclx", "prof", "irot", "imir", "clap", "pixi", "iref", "dimg", "thmb", "auxl", "grid", "mdat",
             "idat", "pict", "hvc1", "av01", "Exif", "mime", "moov", "trak", "iden", "iovl", "pred", "free"]]
           + [("brand_" + name, name.encode()) for name in ["heic", "heix", "mif1", "msf1", "avif", "avis", "miaf"]]
           + [("size_max", b"\xFF\xFF\xFF\xFF"), ("size_large", b"\x00\x00\x00\x01")])
dictionary("compare", "masonry compare's --config (JSON) and path globs: keys, literals, glob syntax.",
           [("", w.encode()) for w in ['"threshold"', '"includeAA"', '"maxDiffPixels"', '"maxDiffRatio"',
                                       '"allowResize"', '"failOnMissing"', '"showUnchanged"', '"pageHeight"',
                                       '"maxPixels"', '"maskDir"', '"ignore"', '"rules"', '"match"', "true", "false",
                                       "null", "{", "}", "[", "]", ":", ",", "\\u0000", "1e308", "-0", "**", "*",
                                       "?", "[!a-z]", "{a,b}", "/", "\\\\"]])
