#!/usr/bin/env bash
# compare-peers.sh: make the same contact sheet (1200 px wide, 4 columns, 8 px gaps and
# margins, white background) from the bench corpus with masonry, ImageMagick `montage`,
# libvips (pyvips) and Pillow, and print wall time, CPU time and peak RSS side by side.
#
#   scripts/compare-peers.sh [--install] [--runs N] [--corpus DIR] [--masonry PATH] [--out DIR]
#
# --install   apt-get install imagemagick libvips-tools time; pip install pyvips pillow
# --corpus    folder of PNGs [.build/bench-corpus/photos, made by `masonry-bench`]
# --masonry   the masonry executable [.build/release/masonry]
# Each tool runs once to warm the page cache, then N times [3]; the median is printed.
# Layouts: masonry, pyvips and Pillow place tiles with SPEC §1's shortest-column rule (the
# Python layout below), so they draw the same sheet; montage can only make a grid
# (-tile 4x, 290×290 cells), which does the same decoding, resizing and encoding work.
# Each peer uses its own defaults for resampling and PNG compression (noted in the table).
set -euo pipefail
cd "$(dirname "$0")/.."

install=0; runs=3; corpus=.build/bench-corpus/photos; masonry=""; out=/tmp/compare-peers
while [[ $# -gt 0 ]]; do
  case "$1" in
    --install) install=1 ;;
    --runs) runs="$2"; shift ;;
    --corpus) corpus="$2"; shift ;;
    --masonry) masonry="$2"; shift ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "compare-peers: unknown argument $1" >&2; exit 64 ;;
  esac
  shift
done
masonry=${masonry:-.build/release/masonry}
[[ -x "${masonry:-}" ]] || { echo "compare-peers: build masonry first (swift build -c release --product masonry)" >&2; exit 1; }
[[ -d "$corpus" ]] || { echo "compare-peers: no corpus at $corpus (run masonry-bench first)" >&2; exit 1; }

if [[ $install == 1 ]]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y imagemagick libvips-tools time >/dev/null
  python3 -m pip install --quiet pyvips pillow
fi
mkdir -p "$out"
cores=$(nproc)

# The peers' sheet maker: shortest-column masonry layout as in SPEC §1, then one library.
cat > "$out/peer_sheet.py" <<'PY'
import os, sys
from concurrent.futures import ThreadPoolExecutor
lib, folder, output = sys.argv[1], sys.argv[2], sys.argv[3]
W, N, GAP, M, ASPECT = 1200, 4, 8, 8, 4
files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.lower().endswith('.png'))
avail = W - 2 * M - GAP * (N - 1); base, extra = divmod(avail, N)
widths = [base + (1 if c < extra else 0) for c in range(N)]
xs = [M];
for c in range(N - 1): xs.append(xs[-1] + widths[c] + GAP)
def size(path):
    with open(path, 'rb') as f: b = f.read(24)
    return int.from_bytes(b[16:20], 'big'), int.from_bytes(b[20:24], 'big')
bottoms = [M] * N; tiles = []
for path in files:
    sw, sh = size(path)
    c = bottoms.index(min(bottoms)); w = widths[c]
    h = min(max(1, (2 * w * sh + sw) // (2 * sw)), ASPECT * w)
    iw = w if h < ASPECT * w else max(1, (2 * h * sw + sh) // (2 * sh))
    tiles.append((path, xs[c] + (w - iw) // 2, bottoms[c], iw, h)); bottoms[c] += h + GAP
H = max(bottoms) - GAP + M
workers = os.cpu_count()
if lib == 'pillow':
    from PIL import Image
    Image.MAX_IMAGE_PIXELS = None
    def load(t):
        im = Image.open(t[0]); im = im.convert('RGBA')
        return t, im.resize((t[3], t[4]), Image.LANCZOS)
    sheet = Image.new('RGB', (W, H), 'white')
    with ThreadPoolExecutor(workers) as pool:   # Pillow releases the GIL while decoding and resizing
        for t, im in pool.map(load, tiles): sheet.paste(im, (t[1], t[2]), im)
    sheet.save(output)                            # Pillow default: zlib level 6, adaptive filters
elif lib == 'vips':
    import pyvips
    sheet = pyvips.Image.black(W, H, bands=3).new_from_image([255, 255, 255])
    for path, x, y, w, h in tiles:
        im = pyvips.Image.thumbnail(path, w, height=h, size='force')
        if im.hasalpha(): im = im.flatten(background=[255] * (im.bands - 1))
        im = im.colourspace('srgb')             # grey and 16-bit to 8-bit sRGB
        if im.format != 'uchar': im = im.cast('uchar')
        sheet = sheet.insert(im, x, y)
    sheet.pngsave(output)                         # libvips default: level 6, no filter
PY

measure() {  # name, command...: prints "median_wall median_cpu max_rss_mib"
  local name="${1//[^A-Za-z0-9.]/_}"; shift
  "$@" >/dev/null 2>"$out/$name.err" || { echo "failed"; return; }
  local walls=() cpus=() rss=0
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/$name.err" || { echo "failed"; return; }
    read -r wall user sys kb < "$out/time.txt"
    walls+=("$wall"); cpus+=("$(echo "$user + $sys" | bc)"); (( kb > rss )) && rss=$kb
  done
  local mw mc
  mw=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
  mc=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
  echo "$mw $mc $((rss / 1024))"
}

count=$(ls "$corpus" | grep -ci '\.png$' || true)
echo "corpus: $corpus ($count PNGs, $(du -sh "$corpus" | cut -f1)); $cores cores; median of $runs runs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %9s %9s %9s %10s  %s\n' tool "wall s" "CPU s" "RSS MiB" "out MB" settings
row() {
  local name="$1" settings="$2" file="$3"; shift 3
  local result; result=$(measure "$name" "$@")
  if [[ "$result" == failed ]]; then
    printf '%-34s %9s  (see %s)\n' "$name" failed "$out/${name//[^A-Za-z0-9.]/_}.err"; return
  fi
  read -r wall cpu rss <<< "$result"
  printf '%-34s %9s %9s %9s %10s  %s\n' "$name" "$wall" "$cpu" "$rss" \
    "$(awk -v b="$(stat -c %s "$file" 2>/dev/null || echo 0)" 'BEGIN {printf "%.1f", b / 1e6}')" "$settings"
}
row masonry "own RLE deflate, Up filter" "$out/masonry.png" "$masonry" "$corpus" -o "$out/masonry.png" -q
if command -v vips >/dev/null && python3 -c 'import pyvips' 2>/dev/null; then
  row "libvips $(vips --version | cut -d- -f2) (pyvips)" "thumbnail, pngsave default" "$out/vips.png" python3 "$out/peer_sheet.py" vips "$corpus" "$out/vips.png"
else
  echo "libvips: not installed (use --install)"
fi
if python3 -c 'import PIL' 2>/dev/null; then
  row "Pillow $(python3 -c 'import PIL; print(PIL.__version__)') ($cores threads)" "LANCZOS, save default (6, adaptive)" "$out/pillow.png" python3 "$out/peer_sheet.py" pillow "$corpus" "$out/pillow.png"
else
  echo "Pillow: not installed (use --install)"
fi
if command -v montage >/dev/null; then
  # Debian's ImageMagick policy caps its pixel cache at 256 MiB of memory and 1 GiB of disk,
  # which a few hundred large photos exceed ("cache resources exhausted"): give it room.
  mkdir -p "$out/magick"
  cat > "$out/magick/policy.xml" <<'POLICY'
<policymap>
  <policy domain="resource" name="memory" value="8GiB"/>
  <policy domain="resource" name="map" value="16GiB"/>
  <policy domain="resource" name="disk" value="32GiB"/>
  <policy domain="resource" name="area" value="2GP"/>
  <policy domain="resource" name="width" value="64KP"/>
  <policy domain="resource" name="height" value="64KP"/>
</policymap>
POLICY
  export MAGICK_CONFIGURE_PATH="$out/magick"
  row "ImageMagick $(montage -version | head -1 | awk '{print $3}') montage" "grid 4x, 290x290 cells, default" "$out/montage.png" \
    montage "$corpus"/*.png -tile 4x -geometry 290x290+4+4 -background white "$out/montage.png"
else
  echo "ImageMagick: not installed (use --install)"
fi
