#!/usr/bin/env python3
"""Writes the SVG fixtures of Tests/SVGCodecTests/Fixtures and their references, made by tools
outside Masonry:

- `<stem>.svg`: small documents covering the sizes librsvg resolves (absolute units, viewBox
  alone, one side and a viewBox, em/ex, percentages, none), an Illustrator-style DOCTYPE with
  entities, a byte order mark with comments and processing instructions, transparency.
- `sizes.txt`: `stem width height` as rsvg-convert (librsvg2-bin) sizes its natural-size PNG,
  or `stem none` when it says the SVG has no dimensions.
- `<stem>.<W>x<H>.rsvg.png`: rsvg-convert --width W --height H (the exact reference of a tile).
- `<stem>.<W>x<H>.cairosvg.png`: CairoSVG's rendering at the same size (an independent renderer,
  for the PSNR bar), for tiles of the drawing's own aspect; `references.txt` lists `stem W H`
  and `cairosvg` or `-`.
- `hostile/`: documents each skipped with its reason (the tests name them), and SVGZ files
  whose gzip layer is hostile (over the size limit, a lying trailer, truncated, a bad CRC-32, a
  second member, a gzip of something else).
- `compressed/<stem>.svgz`: each document gzip-compressed (Inkscape's "compressed SVG"), with
  `compressed/<stem>.<W>x<H>.rsvg.png`, rsvg-convert's own reading of the .svgz at its natural
  size, listed in `compressed/references.txt`.

Needs rsvg-convert (librsvg2-bin) and CairoSVG (scripts/install-python-tools.sh).
Run from the repository's root: python3 scripts/make-svg-fixtures.py
"""
import gzip
import os
import struct
import subprocess
import sys

import cairosvg
from PIL import Image

OUT = os.path.join("Tests", "SVGCodecTests", "Fixtures")
NS = 'xmlns="http://www.w3.org/2000/svg"'
XLINK = 'xmlns:xlink="http://www.w3.org/1999/xlink"'

ART = """<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f80" stop-opacity="0.35"/>
<stop offset="1" stop-color="#08f"/></linearGradient></defs>
<circle cx="30" cy="25" r="22" fill="url(#g)"/>
<path d="M50 5 L95 45 L55 45 Z" fill="#3a3" fill-opacity="0.6" stroke="#000" stroke-width="2"/>
<rect x="8" y="30" width="40" height="15" rx="4" fill="none" stroke="#c0c" stroke-opacity="0.5" stroke-width="3"/>"""

SAMPLES = {
    "absolute-cm": f'<svg {NS} width="5cm" height="2.5cm" viewBox="0 0 100 50">{ART}</svg>\n',
    "viewbox-only": f'<svg {NS} viewBox="0 0 100 50">{ART}</svg>\n',
    "width-and-viewbox": f'<svg {NS} width="120" viewBox="0 0 100 50">{ART}</svg>\n',
    "height-and-viewbox": f'<svg {NS} height="0.5in" viewBox="0 0 100 50">{ART}</svg>\n',
    "em-ex": f'<svg {NS} width="8em" height="7ex" viewBox="0 0 100 50">{ART}</svg>\n',
    "percent-and-viewbox": f'<svg {NS} width="50%" height="80%" viewBox="0 0 100 50">{ART}</svg>\n',
    "points-no-viewbox": f'<svg {NS} width="75pt" height="37.5pt">{ART}</svg>\n',
    "no-size": f'<svg {NS}>{ART}</svg>\n',
    "illustrator-entities": ('<?xml version="1.0" encoding="utf-8"?>\n'
                             '<!-- Generator: Adobe Illustrator 10.0, SVG Export Plug-In . SVG Version: 6.00 Build 0)  -->\n'
                             '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.0//EN" "http://www.w3.org/TR/2001/REC-SVG-20010904/DTD/svg10.dtd" [\n'
                             '\t<!ENTITY ns_svg "http://www.w3.org/2000/svg">\n'
                             '\t<!ENTITY ns_xlink "http://www.w3.org/1999/xlink">\n'
                             '\t<!ENTITY st0 "fill:#2255aa;fill-opacity:0.7;">\n'
                             ']>\n'
                             f'<svg xmlns="&ns_svg;" xmlns:xlink="&ns_xlink;" width="100" height="50" viewBox="0 0 100 50">{ART}'
                             '<rect x="60" y="5" width="30" height="12" style="&st0;"/></svg>\n'),
    "bom-comments": ('\ufeff<?xml version="1.0"?>\n<!-- made by hand -->\n<?xml-stylesheet href="#none" type="text/css"?>\n'
                     f'<!-- > a comment with a tag: <svg width="1"> -->\n<svg\n  {NS}\n  width = \'64\' height="32"\n  viewBox="0,0 100 50">{ART}</svg>\n'),
}

# A tile size for each, besides the natural size: shrunk, enlarged, and stretched off the aspect.
TILES = {"absolute-cm": [(63, 31), (300, 150)], "viewbox-only": [(40, 40)], "width-and-viewbox": [(97, 61)],
         "height-and-viewbox": [(24, 12)], "em-ex": [(160, 80)], "percent-and-viewbox": [(50, 25)],
         "points-no-viewbox": [(90, 45)], "illustrator-entities": [(77, 39)], "bom-comments": [(128, 64)]}

HOSTILE = {
    # libxml2 stops an entity loop; Masonry's scan first.
    "billion-laughs": ('<?xml version="1.0"?>\n<!DOCTYPE svg [\n<!ENTITY lol "lol">\n'
                       + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % ("" if i == 1 else i - 1)) * 10}">\n' for i in range(1, 10))
                       + f']>\n<svg {NS} width="20" height="20"><text>&lol9;</text></svg>\n'),
    # One 2 KB entity referenced 1000 times: 2 MB of text, which libxml2 allows.
    "quadratic-entity": (f'<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY a "{"x" * 2048}">]>\n'
                         f'<svg {NS} width="20" height="20"><text>{"&a;" * 1000}</text></svg>\n'),
    "parameter-entity": (f'<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY % p "x">]>\n<svg {NS} width="20" height="20"/>\n'),
    "entity-loop": (f'<!DOCTYPE svg [<!ENTITY a "&b;"><!ENTITY b "&a;">]>\n<svg {NS} width="20" height="20"><text>&a;</text></svg>\n'),
    # Ten <use>s of the level below, six levels: a million drawn rectangles from 61 elements.
    "use-fanout": (f'<svg {NS} {XLINK} width="20" height="20"><defs><rect id="a0" width="1" height="1"/>'
                   + "".join(f'<g id="a{i}">' + f'<use xlink:href="#a{i - 1}"/>' * 10 + "</g>" for i in range(1, 7))
                   + '</defs><use xlink:href="#a6"/></svg>\n'),
    # The same fan-out with a <use> of the top level inside a4, a cycle librsvg cuts: counted from
    # <defs> first, the scan once kept a5's and a6's costs as that cycle cut them short and let
    # 18,000 elements through where librsvg expands past its limit of 500,000 references (found by svg-decode).
    "use-fanout-through-cycle": (f'<svg {NS} {XLINK} width="20" height="20"><defs><rect id="a0" width="1" height="1"/>'
                                 + "".join(f'<g id="a{i}">' + ('<use xlink:href="#a6"/>' if i == 4 else "")
                                           + f'<use xlink:href="#a{i - 1}"/>' * (9 if i == 4 else 10) + "</g>" for i in range(1, 7))
                                 + '</defs><use xlink:href="#a6"/></svg>\n'),
    # Fan-outs of 10 below a cycle (a3 uses a4, which uses a3 ten times): librsvg holds the <use>s
    # it is drawing, not the groups they reference, so it draws a4 again inside a3 and cuts one
    # level further down: 200,000 elements, where cutting at the group drawn again counts 20,000.
    "use-fanout-unrolled-through-cycle": (f'<svg {NS} {XLINK} width="20" height="20"><defs><rect id="a0" width="1" height="1"/>'
                                          + '<g id="a1">' + '<use xlink:href="#a0"/>' * 10 + "</g>"
                                          + '<g id="a2">' + '<use xlink:href="#a1"/>' * 10 + "</g>"
                                          + '<g id="a3"><use xlink:href="#a4"/>' + '<use xlink:href="#a2"/>' * 9 + "</g>"
                                          + '<g id="a4">' + '<use xlink:href="#a3"/>' * 10 + "</g>"
                                          + '</defs><use xlink:href="#a4"/></svg>\n'),
    # 300 Gaussian blurs chained in one filter, run over the canvas (1000 took librsvg 6 s at 300×300).
    "filter-passes": (f'<svg {NS} width="20" height="20"><filter id="f">' + '<feGaussianBlur stdDeviation="5"/>' * 300
                      + '</filter><rect width="20" height="20" filter="url(#f)"/></svg>\n'),
    "deep-nesting": f'<svg {NS} width="20" height="20">' + "<g>" * 300 + "</g>" * 300 + "</svg>\n",
    "huge-size": f'<svg {NS} width="100000" height="10"/>\n',
    "truncated-root": f'<?xml version="1.0"?>\n<svg {NS} width="20" hei',
    "not-svg-root": '<?xml version="1.0"?>\n<html><body/></html>\n',
}


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def gzipped(text, level=9):
    """A gzip member of the document, without a name or a time (reproducible)."""
    return gzip.compress(text.encode("utf-8"), compresslevel=level, mtime=0)


def padded(byte_count):
    """A 20×20 document of `byte_count` bytes: a comment of spaces (inflates from little)."""
    head, tail = f'<svg {NS} width="20" height="20"><!--', "--></svg>\n"
    return head + " " * (byte_count - len(head) - len(tail)) + tail


def hostile_svgz():
    """Each gzip layer Masonry refuses, named by what is wrong with it."""
    sample = SAMPLES["absolute-cm"]
    member = gzipped(sample)
    bad_crc = bytearray(member)
    bad_crc[-8] ^= 0xFF
    # Stored (level 0) blocks, cut inside the document; the last 4 bytes still state a small size.
    stored = gzipped(sample, level=0)
    truncated = stored[: len(stored) // 2] + struct.pack("<I", len(sample))
    lying = bytearray(gzipped(padded(1 << 20)))
    lying[-4:] = struct.pack("<I", 1000)
    return {
        "svgz-over-limit": gzipped(padded(9 << 20)),
        "svgz-lying-trailer": bytes(lying),
        "svgz-truncated": truncated,
        "svgz-bad-crc": bytes(bad_crc),
        "svgz-two-members": member + member,
        "svgz-not-svg": gzip.compress(b"plain text, not a drawing\n", mtime=0),
    }


def compressed_fixtures(sizes):
    """`compressed/`: each sample as .svgz, and rsvg-convert's reading of it at its natural size."""
    folder = os.path.join(OUT, "compressed")
    os.makedirs(folder, exist_ok=True)
    lines = []
    for stem, text in SAMPLES.items():
        svgz = os.path.join(folder, stem + ".svgz")
        write_bytes(svgz, gzipped(text))
        size = sizes.get(stem)
        # As above: a document without dimensions has no reference at rsvg-convert's ink size.
        if size is None or stem == "no-size":
            continue
        w, h = size
        subprocess.run(["rsvg-convert", "--width", str(w), "--height", str(h), svgz,
                        "-o", os.path.join(folder, f"{stem}.{w}x{h}.rsvg.png")], check=True)
        lines.append(f"{stem} {w} {h}")
    write(os.path.join(folder, "references.txt"),
          "# stem W H: <stem>.svgz drawn by rsvg-convert at its natural size (scripts/make-svg-fixtures.py)\n"
          + "\n".join(lines) + "\n")


def natural_size(svg):
    run = subprocess.run(["rsvg-convert", svg], capture_output=True)
    if run.returncode != 0:
        if b"no dimensions" in run.stderr:
            return None
        sys.exit(f"rsvg-convert {svg}: {run.stderr.decode()}")
    tmp = svg + ".natural.png"
    with open(tmp, "wb") as f:
        f.write(run.stdout)
    size = Image.open(tmp).size
    os.remove(tmp)
    return size


def main():
    os.makedirs(os.path.join(OUT, "hostile"), exist_ok=True)
    sizes, references, natural = [], [], {}
    for stem, text in SAMPLES.items():
        svg = os.path.join(OUT, stem + ".svg")
        write(svg, text)
        size = natural_size(svg)
        natural[stem] = size
        sizes.append(f"{stem} {size[0]} {size[1]}" if size else f"{stem} none")
        tiles = list(TILES.get(stem, []))
        # rsvg-convert sizes a document without dimensions by its drawing's ink extents, which
        # a header cannot know: Masonry lays it out at 300×150 instead, so no reference of that size.
        if size and size not in tiles and stem != "no-size":
            tiles.insert(0, size)
        for w, h in tiles:
            base = os.path.join(OUT, f"{stem}.{w}x{h}")
            subprocess.run(["rsvg-convert", "--width", str(w), "--height", str(h), svg, "-o", base + ".rsvg.png"], check=True)
            # CairoSVG keeps the drawing's aspect (it letterboxes where rsvg-convert stretches),
            # so it draws only the tiles of the picture's own aspect (a sheet's tiles are, within
            # rounding): those whose height is the width's at the natural aspect, rounded.
            same_aspect = size is not None and round(w * size[1] / size[0]) == h
            if same_aspect:
                # unsafe: CairoSVG (defusedxml) refuses any entity otherwise; these are local fixtures.
                cairosvg.svg2png(url=svg, write_to=base + ".cairosvg.png", output_width=w, output_height=h,
                                 unsafe="<!ENTITY" in text)
            references.append(f"{stem} {w} {h} {'cairosvg' if same_aspect else '-'}")
    write(os.path.join(OUT, "sizes.txt"), "# stem width height, as rsvg-convert sizes its natural PNG (scripts/make-svg-fixtures.py)\n"
          + "\n".join(sizes) + "\n")
    write(os.path.join(OUT, "references.txt"), "# stem W H cairosvg|-: <stem>.<W>x<H>.rsvg.png, and .cairosvg.png when cairosvg (scripts/make-svg-fixtures.py)\n"
          + "\n".join(references) + "\n")
    for stem, text in HOSTILE.items():
        write(os.path.join(OUT, "hostile", stem + ".svg"), text)
    for stem, data in hostile_svgz().items():
        write_bytes(os.path.join(OUT, "hostile", stem + ".svgz"), data)
    compressed_fixtures(natural)


if __name__ == "__main__":
    main()
