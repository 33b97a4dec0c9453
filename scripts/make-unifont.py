#!/usr/bin/env python3
"""Generates Sources/BitmapText/Generated/FallbackGlyphs.swift, the built-in fallback font, from GNU Unifont.

Sources (Debian 12 packages, checked with 1:15.0.01-2):
  unifont        /usr/share/unifont/unifont.hex             the Basic Multilingual Plane, as .hex
                 /usr/share/unifont/plane00-combining.txt   the BMP glyphs drawn over the one before
  fonts-unifont  /usr/share/fonts/opentype/unifont/unifont_upper.otf
                 plane 1 (Debian ships no upper-plane .hex): every glyph is pixel squares on a
                 16-pixel em, rasterised here with Pillow's FreeType, basic layout (no shaping),
                 no anti-aliasing. The same rasterisation of unifont.otf reproduces unifont.hex
                 exactly for every non-combining glyph of the BMP (`--check` verifies that).
Licence: GNU Unifont is dual-licensed, GPL 2+ with the GNU font embedding exception, or the
SIL Open Font License 1.1 (see Sources/BitmapText/UNIFONT-LICENSE).

Kept: every glyph of unifont.hex except the C0/C1 controls, and the plane-1 blocks of symbols
and emoji, U+1F000-U+1FBFF (Mahjong and playing cards to legacy computing symbols) whose ink
stays inside their advance.

Output format (decoded by Sources/BitmapText/FallbackFont.swift): the glyphs are grouped in
pages of 256 code points. A page, uncompressed, is three 32-byte bitmaps over its 256 code
points (bit `cp & 7` of byte `(cp & 255) >> 3`): which have a glyph, which are 16 pixels wide
(the others are 8), which are drawn over the glyph before them (combining); then each glyph's
16 rows, 1 byte per row for 8-pixel glyphs and 2 bytes (big-endian, left pixel highest) for
16-pixel ones, in code-point order. Each page is compressed alone (raw deflate, zlib level 9),
padded with zeros to a multiple of 3 bytes, and the pages are base64-encoded back to back, so
that one page's text starts at 4/3 of its byte offset and is decoded only when needed. The
index holds 4 numbers per page: page number (code point >> 8), byte offset, compressed
length, uncompressed length.

Needs: apt-get install unifont fonts-unifont; pip install pillow (checked with Pillow 13.0.0).
Run from the repository root:  python3 scripts/make-unifont.py [--check]
"""
import base64, subprocess, sys, zlib

HEX = "/usr/share/unifont/unifont.hex"
COMBINING = "/usr/share/unifont/plane00-combining.txt"
UPPER_OTF = "/usr/share/fonts/opentype/unifont/unifont_upper.otf"
BMP_OTF = "/usr/share/fonts/opentype/unifont/unifont.otf"
UPPER_RANGE = range(0x1F000, 0x1FC00)
OUTPUT = "Sources/BitmapText/Generated/FallbackGlyphs.swift"
LINE = 100


def read_hex(path):
    """{code point: (width, [16 row integers])} of a Unifont .hex file."""
    glyphs = {}
    with open(path) as source:
        for line in source:
            code, bits = line.strip().split(":")
            digits = len(bits) // 16
            assert digits in (2, 4), line
            glyphs[int(code, 16)] = (digits * 4, [int(bits[r * digits:(r + 1) * digits], 16) for r in range(16)])
    return glyphs


def rasterise(path, codes):
    """{code point: (width, rows)} of those of `codes` in the OTF's character map whose ink lies
    inside their advance, and how many were left out (combining glyphs drawn left of the pen)."""
    from fontTools.ttLib import TTFont
    from PIL import Image, ImageDraw, ImageFont
    mapped = TTFont(path).getBestCmap()
    font = ImageFont.truetype(path, 16, layout_engine=ImageFont.Layout.BASIC)
    glyphs, skipped = {}, 0
    for code in codes:
        if code not in mapped:
            continue
        char = chr(code)
        width = int(font.getlength(char))
        image = Image.new("1", (48, 16), 0)
        draw = ImageDraw.Draw(image)
        draw.fontmode = "1"
        draw.text((8, 14), char, font=font, fill=1, anchor="ls")
        ink = image.getbbox()
        if width not in (8, 16) or (ink is not None and (ink[0] < 8 or ink[2] > 8 + width)):
            skipped += 1
            continue
        rows = [sum(1 << (width - 1 - x) for x in range(width) if image.getpixel((8 + x, y))) for y in range(16)]
        glyphs[code] = (width, rows)
    return glyphs, skipped


def upper_plane():
    """The plane-1 symbols and emoji kept, rasterised from unifont_upper.otf."""
    return rasterise(UPPER_OTF, UPPER_RANGE)


def check_rasterisation():
    """Every non-combining glyph of unifont.otf rasterises to exactly its unifont.hex bitmap."""
    reference, combining = read_hex(HEX), read_combining()
    codes = [c for c in reference if c not in combining and c >= 0x20 and not 0x7F <= c < 0xA0]
    drawn, _ = rasterise(BMP_OTF, codes)
    differing = [c for c in codes if drawn.get(c) != reference[c]]
    print("rasterisation check: %d glyphs, %d differ %s" % (len(codes), len(differing), [hex(c) for c in differing[:10]]))
    return not differing


def read_combining():
    with open(COMBINING) as source:
        return {int(line.split(":")[0], 16) for line in source if ":" in line}


def package_version(name):
    return subprocess.run(["dpkg-query", "-W", "-f=${Version}", name],
                          capture_output=True, text=True, check=True).stdout.strip()


def encode_page(glyphs, combining, page):
    present, wide, overlay, body = bytearray(32), bytearray(32), bytearray(32), bytearray()
    for low in range(256):
        code = page << 8 | low
        if code not in glyphs:
            continue
        width, rows = glyphs[code]
        present[low >> 3] |= 1 << (low & 7)
        if width == 16:
            wide[low >> 3] |= 1 << (low & 7)
        if code in combining:
            overlay[low >> 3] |= 1 << (low & 7)
        for row in rows:
            body += row.to_bytes(width // 8, "big")
    return bytes(present + wide + overlay + body)


def main():
    if "--check" in sys.argv and not check_rasterisation():
        sys.exit(1)
    glyphs = {c: g for c, g in read_hex(HEX).items() if c >= 0x20 and not 0x7F <= c < 0xA0}
    bmp_count = len(glyphs)
    upper, skipped = upper_plane()
    glyphs.update(upper)
    combining = read_combining()
    blob, index, raw_total = bytearray(), [], 0
    for page in sorted({c >> 8 for c in glyphs}):
        raw = encode_page(glyphs, combining, page)
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
        packed = compressor.compress(raw) + compressor.flush()
        index.append((page, len(blob), len(packed), len(raw)))
        raw_total += len(raw)
        blob += packed + bytes(-len(packed) % 3)
    text = base64.b64encode(bytes(blob)).decode()
    lines = [text[i:i + LINE] for i in range(0, len(text), LINE)]
    numbers = [str(v) for entry in index for v in entry]
    index_lines = [", ".join(numbers[i:i + 16]) for i in range(0, len(numbers), 16)]
    wide_count = sum(1 for w, _ in glyphs.values() if w == 16)
    with open(OUTPUT, "w") as out:
        out.write("// Generated by scripts/make-unifont.py from GNU Unifont %s (Debian unifont and fonts-unifont;\n"
                  "// GPL 2+ with the font embedding exception, or SIL OFL 1.1: see UNIFONT-LICENSE). Do not edit;\n"
                  "// run the script again instead.\n\n" % package_version("unifont").split(":")[-1])
        out.write("extension FallbackFont {\n")
        out.write("    /// %d glyphs (%d of the BMP, %d of U+1F000-U+1FBFF; %d of them 16 pixels wide) in %d pages:\n"
                  "    /// %d bytes of bitmaps, %d compressed.\n" % (len(glyphs), bmp_count, len(upper), wide_count,
                                                                    len(index), raw_total, len(blob)))
        out.write("    static let unifont = FallbackFont(pageIndex: [\n")
        for line in index_lines:
            out.write("        %s,\n" % line)
        out.write("    ], pages: \"\"\"\n")
        for line in lines:
            out.write("        %s\n" % line)
        out.write("        \"\"\")\n}\n")
    print("%d glyphs (%d BMP, %d upper, %d upper skipped), %d pages, %d raw bytes, %d compressed, %d base64"
          % (len(glyphs), bmp_count, len(upper), skipped, len(index), raw_total, len(blob), len(text)))


if __name__ == "__main__":
    main()
