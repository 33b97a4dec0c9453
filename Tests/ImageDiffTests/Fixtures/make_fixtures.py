#!/usr/bin/env python3
"""Make the ImageDiff fixtures (small PNG pairs) and their goldens from the PyPI `pixelmatch`.

Every image is drawn here with Pillow from fixed seeds and saved as PNG in `pairs/`; for each
pair, threshold and includeAA setting, `goldens.txt` gets one line:

    baseline current threshold includeAA diffPixels aaPixels bounds picture

- diffPixels: pixelmatch(baseline, current, includeAA=...) -- the Python port 0.4 of mapbox's
  pixelmatch 5.x/6.x. With includeAA the count includes the anti-aliased pixels.
- aaPixels: pixelmatch(includeAA=True) - pixelmatch(includeAA=False), checked equal to the
  number of yellow pixels of the diff picture drawn without includeAA.
- bounds: x,y,width,height of the red pixels of pixelmatch's picture (the pixels counted in
  diffPixels), or '-' when there are none.
- picture: SHA-256 of pixelmatch's diff picture (RGBA8, row-major), as drawn with its defaults.
Sizes that differ (SPEC section 9): both images at the top left of a max(w) x max(h) canvas;
pixelmatch compares the overlap (both cropped to min(w) x min(h)), every other canvas pixel
differs and is red in the picture.

Usage:  pip install pixelmatch==0.4.0 pillow
        python3 make_fixtures.py [--check] [--js PATH/TO/pixelmatch-v6/index.js]
  --check  regenerate in memory and fail if goldens.txt or any PNG differs
  --js     also run the original JavaScript pixelmatch (node, ES module; e.g. `git show
           v6.0.0:index.js` of github.com/mapbox/pixelmatch, not committed here) on every case
           and fail unless its counts and pictures equal the Python port's
Made with Python 3.11, Pillow 13.0.0, pixelmatch 0.4.0; cross-checked with pixelmatch 6.0.0 (JS).
"""
import argparse
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw, ImageFont
from pixelmatch import pixelmatch

HERE = os.path.dirname(os.path.abspath(__file__))
PAIRS = os.path.join(HERE, "pairs")
THRESHOLDS = [0.0, 0.02, 0.05, 0.1, 0.2, 0.5]


def supersampled(size, draw, scale=4, mode="RGBA", background=(255, 255, 255, 255)):
    """Draw at `scale` times the size and box-filter down: anti-aliased edges."""
    big = Image.new(mode, (size[0] * scale, size[1] * scale), background)
    draw(ImageDraw.Draw(big), scale)
    return big.resize(size, Image.BOX)


def ui(offset=0, badge=False, button=(40, 110, 200, 255), size=(96, 64)):
    """A small screenshot: title text, a button, a round icon; `offset` moves the icon."""
    def draw(d, s):
        d.rectangle([0, 0, size[0] * s, 12 * s], fill=(236, 238, 242, 255))
        d.text((4 * s, 1 * s), "Masonry", fill=(20, 20, 30, 255), font=ImageFont.load_default(size=9 * s))
        d.rounded_rectangle([8 * s, 24 * s, 56 * s, 38 * s], radius=4 * s, fill=button)
        d.ellipse([(68 + offset) * s, 22 * s, (84 + offset) * s, 38 * s], fill=(220, 60, 40, 255))
        d.line([4 * s, 50 * s, 90 * s, 58 * s], fill=(30, 30, 30, 255), width=s)
        if badge:
            d.ellipse([50 * s, 20 * s, 58 * s, 28 * s], fill=(230, 30, 30, 255))
    return supersampled(size, draw)


def text(offset):
    def draw(d, s):
        d.text((2 * s + offset * s, 2 * s), "AaBb 123", fill=(0, 0, 0, 255), font=ImageFont.load_default(size=12 * s))
    return supersampled((64, 20), draw)


def translucent(change):
    """Alpha ramps over colours; `change` edits some semi-transparent pixels and the RGB of
    fully transparent ones (which blend to the same white and must not count)."""
    img = Image.new("RGBA", (40, 24))
    px = img.load()
    for y in range(24):
        for x in range(40):
            px[x, y] = ((x * 6) % 256, (y * 10) % 256, 128, min(255, x * 7) if x < 38 else 255)
    if change:
        for x in range(0, 40, 3):
            r, g, b, a = px[x, 12]
            px[x, 12] = (255 - r, g, b, a)
        for y in range(24):
            px[0, y] = (0, 255, 0, 0)  # alpha 0: invisible
        px[20, 5] = (px[20, 5][0], px[20, 5][1], px[20, 5][2], 30)
    return img


def noise(seed, size=(32, 24), base=None, spread=None, alpha=False):
    rng = random.Random(seed)
    img = Image.new("RGBA", size)
    px = img.load()
    for y in range(size[1]):
        for x in range(size[0]):
            if base is None:
                px[x, y] = tuple(rng.randrange(256) for _ in range(3)) + (rng.randrange(256) if alpha else 255,)
            else:
                px[x, y] = tuple(max(0, min(255, c + rng.randint(-spread, spread))) for c in base.getpixel((x, y))[:3]) + (255,)
    return img


def images():
    """name -> PIL image (RGBA)."""
    out = {}
    out["ui"] = ui()
    out["ui-copy"] = ui()
    one = ui()
    one.putpixel((40, 45), (0, 0, 0, 255))
    out["ui-one-pixel"] = one
    out["ui-button-plus1"] = ui(button=(41, 111, 201, 255))
    out["ui-icon-shifted"] = ui(offset=1)
    out["ui-badge"] = ui(badge=True)
    out["ui-wider"] = ui(size=(100, 64))
    out["ui-shorter"] = ui().crop((0, 0, 96, 60))
    out["ui-taller-narrower"] = ui(size=(90, 70))
    out["text"] = text(0)
    out["text-shifted"] = text(1)
    out["translucent"] = translucent(False)
    out["translucent-changed"] = translucent(True)
    out["noise"] = noise(1)
    out["noise-other"] = noise(2)
    out["noise-jitter"] = noise(3, base=out["noise"], spread=12)
    out["noise-alpha"] = noise(4, alpha=True)
    out["noise-alpha-other"] = noise(5, alpha=True)
    plain = Image.new("RGBA", (24, 16), (250, 250, 250, 255))
    out["plain"] = plain
    out["one-by-one"] = Image.new("RGBA", (1, 1), (0, 0, 0, 255))
    return out


CASES = [  # baseline, current
    ("ui", "ui-copy"),
    ("ui", "ui-one-pixel"),
    ("ui", "ui-button-plus1"),
    ("ui", "ui-icon-shifted"),
    ("ui", "ui-badge"),
    ("ui", "ui-wider"),
    ("ui", "ui-shorter"),
    ("ui", "ui-taller-narrower"),
    ("text", "text-shifted"),
    ("translucent", "translucent-changed"),
    ("noise", "noise-other"),
    ("noise", "noise-jitter"),
    ("noise-alpha", "noise-alpha-other"),
    ("ui-badge", "ui-wider"),
    ("plain", "one-by-one"),
]


def rgba(img):
    return img.convert("RGBA").tobytes()


def crop(data, width, new_width, new_height):
    return b"".join(data[y * width * 4:(y * width + new_width) * 4] for y in range(new_height))


def run_python(a, b, threshold, include_aa):
    """Counts and picture of one case, on the overlap of the two images, padded to the canvas."""
    (wa, ha), (wb, hb) = a.size, b.size
    w, h = min(wa, wb), min(ha, hb)
    cw, ch = max(wa, wb), max(ha, hb)
    pa, pb = crop(rgba(a), wa, w, h), crop(rgba(b), wb, w, h)
    out = bytearray(w * h * 4)
    diff = pixelmatch(pa, pb, w, h, out, threshold=threshold, includeAA=include_aa)
    canvas = bytearray(b"\xff\x00\x00\xff" * (cw * ch))
    for y in range(h):
        canvas[y * cw * 4:(y * cw + w) * 4] = out[y * w * 4:(y + 1) * w * 4]
    outside = cw * ch - w * h
    return diff + outside, bytes(canvas), (cw, ch), (pa, pb, w, h)


def bounds(picture, cw, ch):
    xs, ys = [], []
    for i in range(cw * ch):
        if picture[4 * i:4 * i + 4] == b"\xff\x00\x00\xff":
            xs.append(i % cw)
            ys.append(i // cw)
    if not xs:
        return "-"
    return f"{min(xs)},{min(ys)},{max(xs) - min(xs) + 1},{max(ys) - min(ys) + 1}"


def png_bytes(img):
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=False, compress_level=9)
    return buf.getvalue()


def build():
    imgs = images()
    files = {f"pairs/{name}.png": png_bytes(img) for name, img in imgs.items()}
    # Goldens are computed from the PNGs as saved (decoded again), not from the drawings.
    decoded = {name: Image.open(io.BytesIO(files[f"pairs/{name}.png"])).convert("RGBA") for name in imgs}
    lines = ["# ImageDiff goldens: made by make_fixtures.py from PyPI pixelmatch 0.4.0; do not edit by hand.",
             "# baseline current threshold includeAA diffPixels aaPixels bounds(x,y,w,h|-) sha256(diff picture RGBA8)"]
    js_jobs = []
    for base, cur in CASES:
        for t in THRESHOLDS:
            results = {}
            for include_aa in (False, True):
                diff, picture, (cw, ch), raw = run_python(decoded[base], decoded[cur], t, include_aa)
                results[include_aa] = (diff, picture, cw, ch)
                js_jobs.append((raw, t, include_aa, diff - (cw * ch - raw[2] * raw[3]), hashlib.sha256(picture).hexdigest(), cw, ch))
            aa = results[True][0] - results[False][0]
            yellow = sum(1 for i in range(0, len(results[False][1]), 4) if results[False][1][i:i + 4] == b"\xff\xff\x00\xff")
            assert aa == yellow, (base, cur, t, aa, yellow)
            for include_aa in (False, True):
                diff, picture, cw, ch = results[include_aa]
                lines.append(f"{base} {cur} {t} {str(include_aa).lower()} {diff} {aa} {bounds(picture, cw, ch)} "
                             f"{hashlib.sha256(picture).hexdigest()}")
    files["goldens.txt"] = ("\n".join(lines) + "\n").encode()
    files["sha256-goldens.txt"] = sha256_goldens()
    return files, js_jobs


def splitmix64_bytes(seed, count):
    """The low bytes of SplitMix64 (TestSupport's `SplitMix64(seed:).byte()`), `count` of them."""
    mask = (1 << 64) - 1
    state, out = seed, bytearray()
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append((z ^ (z >> 31)) & 0xFF)
    return bytes(out)


SHA_LENGTHS = [0, 1, 3, 55, 56, 57, 63, 64, 65, 111, 119, 120, 127, 128, 1000, 65536, 100003]


def sha256_goldens():
    lines = ["# sha256 of SplitMix64(seed).byte() streams, by Python's hashlib: seed length digest"]
    for n, length in enumerate(SHA_LENGTHS):
        seed = 1000 + n
        lines.append(f"{seed} {length} {hashlib.sha256(splitmix64_bytes(seed, length)).hexdigest()}")
    return ("\n".join(lines) + "\n").encode()


JS_RUNNER = r"""
import fs from 'node:fs';
const {default: pixelmatch} = await import(process.argv[2]);
const jobs = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const results = [];
for (const job of jobs) {
    const a = new Uint8Array(fs.readFileSync(job.a)), b = new Uint8Array(fs.readFileSync(job.b));
    const out = new Uint8Array(a.length);
    results.push(pixelmatch(a, b, out, job.w, job.h, {threshold: job.t, includeAA: job.aa}));
    fs.writeFileSync(job.a + '.out' + results.length, out);
}
console.log(JSON.stringify(results));
"""


def check_js(js_path, jobs):
    """Runs the original pixelmatch on every overlap; compares counts and pictures."""
    with tempfile.TemporaryDirectory() as tmp:
        spec = []
        for n, ((pa, pb, w, h), t, include_aa, _, _, _, _) in enumerate(jobs):
            fa, fb = os.path.join(tmp, f"{n}a.rgba"), os.path.join(tmp, f"{n}b.rgba")
            open(fa, "wb").write(pa)
            open(fb, "wb").write(pb)
            spec.append({"a": fa, "b": fb, "w": w, "h": h, "t": t, "aa": include_aa})
        open(os.path.join(tmp, "jobs.json"), "w").write(json.dumps(spec))
        runner = os.path.join(tmp, "run.mjs")
        open(runner, "w").write(JS_RUNNER)
        module = os.path.join(tmp, "pixelmatch.mjs")
        open(module, "w").write(open(js_path).read())
        counts = json.loads(subprocess.run(["node", runner, module, os.path.join(tmp, "jobs.json")],
                                           check=True, capture_output=True, text=True).stdout)
        for n, (job, count) in enumerate(zip(jobs, counts)):
            (pa, pb, w, h), t, include_aa, expected, digest, cw, ch = job
            if count != expected:
                sys.exit(f"JS pixelmatch disagrees on case {n}: {count} != {expected}")
            out = open(os.path.join(spec[n]["a"] + ".out" + str(n + 1)), "rb").read()
            canvas = bytearray(b"\xff\x00\x00\xff" * (cw * ch))
            for y in range(h):
                canvas[y * cw * 4:(y * cw + w) * 4] = out[y * w * 4:(y + 1) * w * 4]
            if hashlib.sha256(canvas).hexdigest() != digest:
                sys.exit(f"JS pixelmatch draws case {n} differently")
    print(f"JS pixelmatch agrees on all {len(jobs)} runs")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--js")
    args = parser.parse_args()
    files, jobs = build()
    if args.js:
        check_js(args.js, jobs)
    if args.check:
        stale = [name for name, data in files.items()
                 if not os.path.exists(os.path.join(HERE, name)) or open(os.path.join(HERE, name), "rb").read() != data]
        if stale:
            sys.exit("out of date: " + ", ".join(stale))
        print("fixtures are current")
        return
    os.makedirs(PAIRS, exist_ok=True)
    for name, data in files.items():
        open(os.path.join(HERE, name), "wb").write(data)
    print(f"wrote {len(files) - 2} PNGs, goldens.txt and sha256-goldens.txt ({len(jobs)} pixelmatch runs)")


if __name__ == "__main__":
    main()
