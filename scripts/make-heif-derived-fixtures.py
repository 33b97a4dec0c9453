#!/usr/bin/env python3
"""Writes the HEIF files of Tests/HEIFCodecTests/Fixtures/derived: the structures of Nokia's
conformance files MIAF007, C008 and C014 (whose repository has no licence, so they are not
committed) rebuilt around the committed cat-8bit.heic and cat-grid.heic items, with the ISOBMFF
writer of scripts/make-heif-fixtures.py; then their references (pillow-heif) through
scripts/make-heif-conformance.py. And Fixtures/derived-refused: derivations Masonry skips.

    python3 scripts/make-heif-derived-fixtures.py

- cat-iden-irot90.heic (C008): an `iden` item with an irot, of a coded item; the `iden` has no
  iloc entry, as in Nokia's files (libheif 1.15 refuses such a file as it is).
- cat-iden-clap-irot90.heic (C014): a coded item turned 180°, and an `iden` of it cropped to
  200×150 and turned 90°.
- cat-thumbnail-shared-clap.heic (MIAF007): a primary item cropped to 240×160 whose 160×106
  thumbnail is given the same clap property, which does not fit it.
- cat-overlay.heic (C015's structure, as a primary item): an `iovl` canvas of 400×300 filled
  orange, the cat at (10, 20) and a 160×106 tile at (200, 150) over it.
- derived-refused/iden-of-iden.heic, iden-two-sources.heic, overlay-without-offsets.heic:
  skipped with their reasons.
"""

import importlib.util
import os
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("fixtures", os.path.join(ROOT, "scripts", "make-heif-fixtures.py"))
fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fixtures)

FIXTURES = os.path.join(ROOT, "Tests", "HEIFCodecTests", "Fixtures")
OUT = os.path.join(FIXTURES, "derived")
REFUSED = os.path.join(FIXTURES, "derived-refused")
BRANDS = ["heic", "mif1", "heic", "miaf"]


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(REFUSED, exist_ok=True)
    items, _, primary = fixtures.read_heif(os.path.join(FIXTURES, "cat-8bit.heic"))
    cat = items[primary]
    grid_items, grid_refs, _ = fixtures.read_heif(os.path.join(FIXTURES, "cat-grid.heic"))
    tile = grid_items[grid_refs[0][2][0]]   # a 160×106 coded tile
    ispe, irot, clap = fixtures.ispe, fixtures.irot, fixtures.clap

    def iden(props):
        return {"type": "iden", "props": props, "data": None}

    fixtures.write_heif(os.path.join(OUT, "cat-iden-irot90.heic"), BRANDS,
                        {1: cat, 2: iden([(ispe(320, 212), False), (irot(1), True)])}, [("dimg", 2, [1])], 2)
    turned = dict(cat, props=cat["props"] + [(irot(2), True)])
    fixtures.write_heif(os.path.join(OUT, "cat-iden-clap-irot90.heic"), BRANDS,
                        {1: turned, 2: iden([(ispe(320, 212), False), (clap(200, 150), True), (irot(1), True)])},
                        [("dimg", 2, [1])], 2)
    cropped = dict(cat, props=cat["props"] + [(clap(240, 160), True)])
    thumbnail = dict(tile, props=tile["props"] + [(clap(240, 160), True)])
    fixtures.write_heif(os.path.join(OUT, "cat-thumbnail-shared-clap.heic"), BRANDS,
                        {1: cropped, 2: thumbnail}, [("thmb", 2, [1])], 1)

    def overlay(offsets):
        # version 0, flags 0 (16-bit fields), fill RGBA (16-bit each), output size, offsets.
        descriptor = struct.pack(">BB4HHH", 0, 0, 0xFFFF, 0x8000, 0, 0xFFFF, 400, 300)
        return {"type": "iovl", "props": [(ispe(400, 300), False)],
                "data": descriptor + b"".join(struct.pack(">hh", x, y) for x, y in offsets)}

    fixtures.write_heif(os.path.join(OUT, "cat-overlay.heic"), BRANDS,
                        {1: overlay([(10, 20), (200, 150)]), 2: cat, 3: tile}, [("dimg", 1, [2, 3])], 1, idat_items={1})
    fixtures.write_heif(os.path.join(REFUSED, "overlay-without-offsets.heic"), BRANDS,
                        {1: overlay([(10, 20)]), 2: cat, 3: tile}, [("dimg", 1, [2, 3])], 1, idat_items={1})
    fixtures.write_heif(os.path.join(REFUSED, "iden-of-iden.heic"), BRANDS,
                        {1: cat, 2: iden([(irot(1), True)]), 3: iden([(irot(1), True)])},
                        [("dimg", 2, [1]), ("dimg", 3, [2])], 3)
    fixtures.write_heif(os.path.join(REFUSED, "iden-two-sources.heic"), BRANDS,
                        {1: cat, 2: dict(cat), 3: iden([(irot(1), True)])}, [("dimg", 3, [1, 2])], 3)
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-heif-conformance.py"), OUT], check=True)


if __name__ == "__main__":
    sys.exit(main())
