#!/bin/sh
# Fetches the full HEIF/AVIF conformance suites and writes their references, for the opt-in
# tests of Tests/HEIFCodecTests/HEIFConformanceTests.swift:
#
#   scripts/fetch-conformance.sh [DIR]      (default: .build/conformance)
#   MASONRY_LINKU_SAMPLES=DIR/linku MASONRY_NOKIA_CONFORMANCE=DIR/nokia \
#       swift test --filter HEIFConformance
#
# - Link-U's AVIF samples (github.com/link-u/avif-sample-images, CC BY-SA 4.0), 156 files;
# - Nokia's HEIF conformance files (github.com/nokiatech/heif_conformance, conformance_files/;
#   the repository states no licence, so none of them is committed).
# The references come from scripts/make-heif-conformance.py (Pillow's libavif, pillow-heif;
# never Masonry). Needs git, python3 with Pillow 12+, numpy and pillow-heif, and avifdec.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/.build/conformance}
mkdir -p "$dir"

fetch() {   # fetch URL FOLDER: a shallow clone, or the existing one
    if [ -d "$dir/$2/.git" ]; then
        git -C "$dir/$2" pull --quiet --ff-only
    else
        git clone --quiet --depth 1 "$1" "$dir/$2"
    fi
}
fetch https://github.com/link-u/avif-sample-images linku-repo
fetch https://github.com/nokiatech/heif_conformance nokia-repo

rm -rf "$dir/linku" "$dir/nokia"
mkdir -p "$dir/linku" "$dir/nokia"
cp "$dir"/linku-repo/*.avif "$dir"/linku-repo/*.avifs "$dir/linku/"
cp "$dir"/nokia-repo/conformance_files/*.heic "$dir/nokia/"
python3 "$root/scripts/make-heif-conformance.py" "$dir/linku" "$dir/linku-repo"
python3 "$root/scripts/make-heif-conformance.py" "$dir/nokia"
echo "MASONRY_LINKU_SAMPLES=$dir/linku MASONRY_NOKIA_CONFORMANCE=$dir/nokia swift test --filter HEIFConformance"
