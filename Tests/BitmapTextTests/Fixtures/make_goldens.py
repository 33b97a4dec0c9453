#!/usr/bin/env python3
"""Makes the golden images of Tests/BitmapTextTests (GoldenTextTests.swift) with Pillow.

Glyphs are rendered by Pillow's FreeType from Debian's original PCF files (xfonts-base
1:1.0.5+nmu1), not from Masonry's generated data, so the goldens check the generator,
the decoder and the painter together. Each case is drawn one cell at a time (the fonts
are monospaced); a character the PCF lacks becomes the replacement box Masonry documents
(outline of columns 0..w-2, rows 1..h-2 of its cell). Inked pixels get the case's colour
blended "over" them with Raster's integer formula; pixels outside the clip stay as they were.

Needs: apt-get install xfonts-base pcf2bdf; pip install pillow (checked with Pillow 13.0.0).
Run from this folder: python3 make_goldens.py  -> *.png and goldens.tsv (columns below).
The images were checked by eye.
"""
import gzip, os, shutil, subprocess, tempfile
from PIL import Image, ImageDraw, ImageFont

FACES = {"small": ("6x13", 6, 13), "medium": ("9x15", 9, 15), "large": ("10x20", 10, 20)}
WHITE, BLACK = (255, 255, 255, 255), (0, 0, 0, 255)
DARK, PALE = (0x20, 0x28, 0x30, 255), (0xf4, 0xe8, 0xc8, 255)
LATIN = "Łódź, Ærø & Ĳssel — 3½ €".encode()
GREEK_CYRILLIC = "Ελληνικά · Кириллица".encode()

# name, size, channels, background, colour, bytes, fit width (or None),
# expected drawn text (None: the escaped bytes), clip (None: the whole image)
CASES = []
for size in FACES:
    CASES += [
        ("latin-%s-light" % size, size, 3, WHITE, BLACK, LATIN, None, None, None),
        ("greek-cyrillic-%s-dark" % size, size, 3, DARK, WHITE, GREEK_CYRILLIC, None, None, None),
        ("translucent-%s-rgba" % size, size, 4, (0x30, 0x60, 0xff, 0x40), (0xff, 0x00, 0x00, 0x80),
         "alpha: ÄÖÜ".encode(), None, None, None),
    ]
CASES += [
    ("translucent-medium-rgb", "medium", 3, PALE, (0x00, 0x40, 0xa0, 0xa0), "½ blend ŒŸ".encode(), None, None, None),
    ("missing-glyph-medium", "medium", 3, PALE, (0x80, 0x00, 0x40, 255), "\U00010000\U00010001 box!".encode(), None, None, None),
    ("missing-glyph-large-rgba", "large", 4, (0, 0, 0, 0), (0x10, 0x20, 0xc0, 255), "a\U00010000b".encode(), None, None, None),
    ("invalid-utf8-small", "small", 3, WHITE, BLACK, b"caf\xe9\tbad\xff\xfe\\x\x1b.png", None, None, None),
    ("invalid-utf8-medium-dark", "medium", 3, BLACK, WHITE, b"\xc0\xafnot-utf8\xed\xa0\x80.png", None, None, None),
    ("shortened-large", "large", 3, WHITE, BLACK, b"a_very_long_file_name_for_testing_2026.png", 130, "a_very…26.png", None),
    ("shortened-escape-small", "small", 3, WHITE, BLACK, b"photo\xff\xfe_end.png", 84, "photo…d.png", None),
    ("shortened-escapes-kept-small", "small", 4, WHITE, BLACK, b"\xffabcdefghij\xfe", 60, r"\xffa…\xfe", None),
    ("clipped-medium", "medium", 3, WHITE, (0, 0x60, 0, 255), "Clipped: ░▒▓█ ok".encode(), None, None, (10, 5, 60, 8)),
]


def escaped(data):
    """The drawn text: UTF-8 with invalid bytes and control characters escaped as messages do."""
    out, i = [], 0
    while i < len(data):
        lead = data[i]
        length = 1 if lead < 0x80 else 2 if 0xC2 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4 if 0xF0 <= lead < 0xF5 else 0
        try:
            char = data[i:i + length].decode("utf-8") if length and i + length <= len(data) else None
        except UnicodeDecodeError:
            char = None
        if char is None or len(char) != 1:
            out.append("\\x%02x" % lead)
            i += 1
            continue
        i += length
        code = ord(char)
        if char in "\n\t\r\\":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\"}[char])
        elif code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or code in (0x2028, 0x2029):
            out.append("\\x%02x" % code if code <= 0xFF else "\\u{%x}" % code)
        else:
            out.append(char)
    return "".join(out)


def coverage(pcf):
    bdf = subprocess.run(["pcf2bdf", pcf], capture_output=True, text=True, check=True).stdout
    return {int(line.split()[1]) for line in bdf.splitlines() if line.startswith("ENCODING")}


def over(dst, colour, channels):
    a = colour[3]
    if channels == 3:
        return tuple((c * a + d * (255 - a) + 127) // 255 for c, d in zip(colour[:3], dst[:3])) + (255,)
    out_a = a * 255 + dst[3] * (255 - a)
    rgb = tuple(min((c * a * 255 + d * dst[3] * (255 - a) + out_a // 2) // out_a, 255) for c, d in zip(colour[:3], dst[:3]))
    return rgb + ((out_a + 127) // 255,)


def main():
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        fonts = {}
        for size, (face, width, height) in FACES.items():
            pcf = os.path.join(tmp, face + ".pcf")
            with gzip.open("/usr/share/fonts/X11/misc/%s.pcf.gz" % face) as src, open(pcf, "wb") as dst:
                shutil.copyfileobj(src, dst)
            fonts[size] = (ImageFont.truetype(pcf, height), coverage(pcf), width, height)
        for name, size, channels, background, colour, data, fit, expected, clip in CASES:
            font, covered, cell_w, cell_h = fonts[size]
            text = expected if expected is not None else escaped(data)
            assert fit is None or len(text) * cell_w <= fit, name
            width, height = max(len(text) * cell_w, fit or 0) + 6, cell_h + 4
            x, y = 3, 2
            clip = clip or (0, 0, width, height)
            mask = Image.new("L", (width, height), 0)
            draw = ImageDraw.Draw(mask)
            draw.fontmode = "1"
            for k, char in enumerate(text):
                left = x + k * cell_w
                if ord(char) in covered:
                    draw.text((left, y), char, font=font, fill=255)
                else:
                    draw.rectangle([left, y + 1, left + cell_w - 2, y + cell_h - 2], outline=255)
            image = Image.new("RGBA", (width, height), background)
            pixels, inked = image.load(), mask.load()
            for py in range(height):
                for px in range(width):
                    inside = clip[0] <= px < clip[0] + clip[2] and clip[1] <= py < clip[1] + clip[3]
                    if inked[px, py] and inside:
                        pixels[px, py] = over(pixels[px, py], colour, channels)
            (image if channels == 4 else image.convert("RGB")).save(name + ".png")
            hexes = lambda c: "%02x%02x%02x%02x" % c
            rows.append("\t".join([name, size, str(channels), hexes(background), hexes(colour), data.hex(),
                                   str(fit if fit is not None else -1), text.encode().hex(), str(x), str(y)]
                                  + [str(v) for v in clip]))
    with open("goldens.tsv", "w") as out:
        out.write("# name size channels background colour bytes(hex) fit drawn(hex, UTF-8) x y clipX clipY clipW clipH\n")
        out.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
