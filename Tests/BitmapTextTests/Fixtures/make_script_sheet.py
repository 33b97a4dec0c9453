#!/usr/bin/env python3
"""Writes the fixtures of ScriptSheetTests.swift: scripts-sheet.tsv (one caption per script)
and unifont-sheet.hex, the GNU Unifont glyphs of every code point those captions draw
(and of the Arabic presentation forms and mirrored brackets they are shaped into), copied
from the upstream data, not from Masonry's generated tables:
  the BMP from /usr/share/unifont/unifont.hex (Debian unifont 1:15.0.01-2) verbatim;
  plane 1 from unifont_upper.otf (Debian fonts-unifont), rasterised by scripts/make-unifont.py's
  `upper_plane` (Debian ships no upper-plane .hex; that script checks its rasterisation
  against unifont.hex).
Licence of the glyphs: GNU Unifont, GPL 2+ with the font embedding exception or SIL OFL 1.1
(Sources/BitmapText/UNIFONT-LICENSE).

Needs: apt-get install unifont fonts-unifont; pip install pillow fonttools.
Run from this folder: python3 make_script_sheet.py
"""
import importlib.util, os

CAPTIONS = [
    ("latin", "Café_Zoë_e\u0301te\u0301_Ærø_Tiếng.jpg"),
    ("greek", "Ακρόπολη_2026.jpg"),
    ("cyrillic", "Москва_зима.png"),
    ("armenian", "Երևան_նկար.jpg"),
    ("hebrew", "תמונה_01.png"),
    ("arabic", "IMG_صورة_01.jpg"),
    ("arabic-ligature", "سلام (لا).png"),
    ("devanagari", "नमस्ते_फोटो.jpg"),
    ("bengali", "ছবি_ঢাকা.png"),
    ("thai", "ภาพถ่าย_กรุงเทพ.jpg"),
    ("georgian", "თბილისი.jpg"),
    ("hangul", "사진_2026.heic"),
    ("kana", "ひらがな_カタカナ.png"),
    ("cjk", "北京旅行_001.jpg"),
    ("ethiopic", "አዲስ_አበባ.jpg"),
    ("emoji", "🎉party_👍🏽_🇯🇵_👨\u200d👩\u200d👧.png"),
]
# The presentation forms and mirrored brackets the Arabic captions are drawn with (by the
# joining rules of Unicode's ArabicShaping.txt; ScriptSheetTests states the visual order).
SHAPED = [0xFEBB, 0xFEEE, 0xFEAD, 0xFE93, 0xFEB3, 0xFEFC, 0xFEE1, 0xFEFB, 0x0028, 0x0029]


def main():
    spec = importlib.util.spec_from_file_location("make_unifont", os.path.join("..", "..", "..", "scripts", "make-unifont.py"))
    make_unifont = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_unifont)
    codes = sorted({ord(c) for _, text in CAPTIONS for c in text} | set(SHAPED))
    lines = {}
    with open(make_unifont.HEX) as source:
        for line in source:
            code = int(line.split(":")[0], 16)
            if code in codes:
                lines[code] = line.strip()
    upper, _ = make_unifont.rasterise(make_unifont.UPPER_OTF, [c for c in codes if c > 0xFFFF])
    for code, (width, rows) in upper.items():
        lines[code] = "%04X:%s" % (code, "".join("%0*X" % (width // 4, row) for row in rows))
    with open("unifont-sheet.hex", "w") as out:
        for code in sorted(lines):
            out.write(lines[code] + "\n")
    with open("scripts-sheet.tsv", "w") as out:
        out.write("# name\tcaption (UTF-8, hex)\n")
        for name, text in CAPTIONS:
            out.write("%s\t%s\n" % (name, text.encode().hex()))
    print("%d captions, %d glyphs (%d code points have none: %s)" % (len(CAPTIONS), len(lines),
          len(set(codes) - set(lines)), [hex(c) for c in sorted(set(codes) - set(lines))]))


if __name__ == "__main__":
    main()
