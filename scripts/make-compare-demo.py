#!/usr/bin/env python3
"""Make a small visual-regression suite and its review sheet, docs/compare-review.png.

Twenty 1280x800 screenshot-like PNGs (drawn with Pillow from fixed seeds) in baseline/ and
current/ under a work folder, with the kinds of change a real suite has:
  - screens/settings.png: a button's colour changed (beyond the default threshold);
  - screens/profile.png:  an icon moved one pixel to the right;
  - screens/inbox.png:    a new notification badge;
  - screens/search.png:   the page grew 40 px taller (resized);
  - screens/legacy.png:   only in baseline (removed);  screens/onboarding.png: only in current (added);
  - screens/help.png:     the button colour +1 per channel (below the threshold: unchanged);
  - the rest unchanged (byte-identical copies).
Then runs `masonry compare baseline current -o docs/compare-review.png --report <work>/report.json`.

Usage:  pip install pillow        (made with Python 3.11, Pillow 13.0.0)
        swift build -c release && python3 scripts/make-compare-demo.py [--work DIR] [--masonry PATH]
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw, ImageFont

W, H = 1280, 800
NAMES = ["home", "inbox", "profile", "settings", "search", "help", "billing", "team", "reports", "calendar",
         "files", "chat", "admin", "audit", "export", "import", "legacy", "login", "logout"]


def screen(name, seed, button=(40, 110, 220), icon_dx=0, badge=False, extra_height=0):
    """A flat UI screen: top bar, side menu, cards of text-like lines, a button and an icon."""
    rng = random.Random(seed)
    img = Image.new("RGB", (W, H + extra_height), (246, 247, 249))
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=18)
    d.rectangle([0, 0, W, 56], fill=(32, 36, 48))
    d.text((24, 17), f"Acme / {name}", fill=(255, 255, 255), font=font)
    d.rectangle([0, 56, 220, H + extra_height], fill=(255, 255, 255))
    for i in range(8):
        d.text((24, 80 + 36 * i), f"Menu item {i + 1}", fill=(70, 74, 90), font=font)
    for card in range(4):
        x0, y0 = 250 + (card % 2) * 510, 90 + (card // 2) * 320 + extra_height // 2
        d.rounded_rectangle([x0, y0, x0 + 490, y0 + 290], radius=10, fill=(255, 255, 255), outline=(220, 222, 228))
        for line in range(7):
            length = rng.randint(180, 440)
            d.rectangle([x0 + 20, y0 + 24 + 34 * line, x0 + 20 + length, y0 + 36 + 34 * line], fill=(200, 204, 214))
    d.rounded_rectangle([1080, 720, 1250, 770], radius=8, fill=button)
    d.text((1110, 734), "Save", fill=(255, 255, 255), font=font)
    d.ellipse([1200 + icon_dx, 14, 1228 + icon_dx, 42], fill=(250, 190, 60))
    if badge:
        d.ellipse([1218, 8, 1236, 26], fill=(220, 40, 40))
        d.text((1223, 7), "3", fill=(255, 255, 255), font=ImageFont.load_default(size=14))
    return img


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--work", help="folder for the suite (default: a temporary folder)")
    parser.add_argument("--masonry", default=os.path.join(root, ".build", "release", "masonry"))
    parser.add_argument("--output", default=os.path.join(root, "docs", "compare-review.png"))
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="masonry-compare-demo-")
    for side in ("baseline", "current"):
        shutil.rmtree(os.path.join(work, side), ignore_errors=True)
        os.makedirs(os.path.join(work, side, "screens"))
    changes = {
        "settings": dict(button=(40, 150, 90)),
        "profile": dict(icon_dx=1),
        "inbox": dict(badge=True),
        "search": dict(extra_height=40),
        "help": dict(button=(41, 111, 221)),
    }
    for seed, name in enumerate(NAMES):
        path = f"screens/{name}.png"
        base = screen(name, seed)
        if name != "legacy":
            base.save(os.path.join(work, "baseline", path))
        if name == "legacy":
            base.save(os.path.join(work, "baseline", path))
            continue
        if name in changes:
            screen(name, seed, **changes[name]).save(os.path.join(work, "current", path))
        else:
            shutil.copyfile(os.path.join(work, "baseline", path), os.path.join(work, "current", path))
    screen("onboarding", 99).save(os.path.join(work, "current", "screens", "onboarding.png"))
    report = os.path.join(work, "report.json")
    result = subprocess.run([args.masonry, "compare", os.path.join(work, "baseline"), os.path.join(work, "current"),
                             "-o", args.output, "--report", report], capture_output=True, text=True)
    sys.stderr.write(result.stderr)
    print(f"suite in {work}; report {report}; review sheet {args.output}; exit {result.returncode}")
    return 0 if result.returncode in (0, 1) else result.returncode


if __name__ == "__main__":
    sys.exit(main())
