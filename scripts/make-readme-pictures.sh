#!/usr/bin/env bash
# Makes the pictures shown in README.md, each with the exact command printed under it there.
# Every `swift run -c release masonry …` line below is one picture; ReadmePictureTests runs the
# same arguments with the built executable and checks that the committed file has the same bytes,
# so run this script (and commit the pictures) after any change that alters a sheet's bytes.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product masonry
swift run -c release masonry SampleImages -o docs/sample-sheet.png -w 900 -c 5
swift run -c release masonry SampleImages -o docs/sample-captions.png -w 900 -c 4 --caption '{name}\n{width}×{height}' --title 'Masonry sample sheet' --sections --tile-background '#f2f4f7' --frame 1 --page-height 0
