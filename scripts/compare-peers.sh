#!/usr/bin/env bash
# compare-peers.sh: make the same contact sheet (1200 px wide, 4 columns by default, 8 px gaps and
# margins, white background) from a folder of PNG, JPEG, WebP, GIF, HEIF or AVIF images with masonry, libvips (pyvips
# and the `vipsthumbnail` command), Pillow and ImageMagick `montage`, and print wall time, CPU
# time and peak RSS side by side.
#
#   scripts/compare-peers.sh [--install] [--jpeg | --format F] [--runs N] [--corpus DIR] [--masonry PATH] [--out DIR]
#                            [--columns N] [--tools LIST] [--quality]
#
# --install   apt-get install imagemagick libvips-tools time; pip install pyvips pillow pillow-heif numpy
# --jpeg      corpus default becomes .build/bench-corpus/jpeg (masonry-bench's JPEG corpus)
# --format F  corpus default becomes .build/bench-corpus/formats/F, F one of webp, gif, heic,
#             heic-thumbnails, avif (masonry-bench --formats-only makes them)
# --corpus    folder of *.png, *.jpg, *.jpeg, *.webp, *.gif, *.heic, *.heif, *.avif (any case)
#             [.build/bench-corpus/photos]
# --masonry   the masonry executable [.build/release/masonry]
# --columns   columns of the sheet [4]: 290 px tiles; 8 gives 141, 2 gives 588
# --tools     which to run, comma-separated [masonry,pyvips,vipsthumbnail,pillow,montage]
# --quality   also print each sheet's tiles' PSNR against Pillow's full-size decode resized with
#             Lanczos (scripts/peer-tile-quality.py; the tiles' places from masonry's manifest)
# Each tool runs once to warm the page cache, then N times [3]; the median is printed.
# Layouts: masonry, pyvips, vipsthumbnail and Pillow place tiles with SPEC §1's shortest-column
# rule (the Python layout below, sizes from the PNG IHDR or JPEG SOF header, other formats' from
# Pillow), so they draw the same sheet; montage can only make a grid (-tile Nx, square cells of
# the tile width), which does the same
# decoding, resizing and encoding work. Every JPEG peer shrinks on load (decodes at a DCT scale):
# libvips `thumbnail`, Pillow `draft` to twice the tile (as its `thumbnail` does), montage
# `-define jpeg:size`. `vipsthumbnail` runs over the folder with one size, in batches on all
# cores (xargs -P <cores>), into a folder of tiles; one row stops there, the next also joins
# them into the sheet with libvips.
# Each peer uses its own defaults for resampling and PNG compression (noted in the table).
set -euo pipefail
cd "$(dirname "$0")/.."

install=0; runs=3; corpus=""; jpeg=0; format=""; masonry=""; out=/tmp/compare-peers
columns=4; tools=masonry,pyvips,vipsthumbnail,pillow,montage; quality=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --install) install=1 ;;
    --jpeg) jpeg=1 ;;
    --format) format="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --corpus) corpus="$2"; shift ;;
    --masonry) masonry="$2"; shift ;;
    --out) out="$2"; shift ;;
    --columns) columns="$2"; shift ;;
    --tools) tools="$2"; shift ;;
    --quality) quality=1 ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) echo "compare-peers: unknown argument $1" >&2; exit 64 ;;
  esac
  shift
done
masonry=${masonry:-.build/release/masonry}
if [[ -z "$corpus" ]]; then
  if [[ -n "$format" ]]; then corpus=.build/bench-corpus/formats/$format
  elif [[ $jpeg == 1 ]]; then corpus=.build/bench-corpus/jpeg
  else corpus=.build/bench-corpus/photos; fi
fi
[[ -x "${masonry:-}" ]] || { echo "compare-peers: build masonry first (swift build -c release --product masonry)" >&2; exit 1; }
[[ -d "$corpus" ]] || { echo "compare-peers: no corpus at $corpus (run masonry-bench first)" >&2; exit 1; }
[[ "$columns" =~ ^[1-9][0-9]*$ ]] || { echo "compare-peers: --columns takes a positive number" >&2; exit 64; }
tile=$(( (1200 - 16 - 8 * (columns - 1)) / columns ))
(( tile > 0 )) || { echo "compare-peers: $columns columns do not fit 1200 px" >&2; exit 64; }
wants() { [[ ",$tools," == *",$1,"* ]]; }

if [[ $install == 1 ]]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y imagemagick libvips-tools time >/dev/null
  python3 -m pip install --quiet pyvips pillow pillow-heif numpy
fi
mkdir -p "$out"
cores=$(nproc)

# The peers' sheet maker: shortest-column masonry layout as in SPEC §1, then one library.
cat > "$out/peer_sheet.py" <<'PY'
import os, shutil, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
lib, folder, output, N = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
W, GAP, M, ASPECT = 1200, 8, 8, 4
EXTENSIONS = ('.png', '.jpg', '.jpeg', '.webp', '.gif', '.heic', '.heif', '.avif')
files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.lower().endswith(EXTENSIONS))
avail = W - 2 * M - GAP * (N - 1); base, extra = divmod(avail, N)
widths = [base + (1 if c < extra else 0) for c in range(N)]
xs = [M];
for c in range(N - 1): xs.append(xs[-1] + widths[c] + GAP)
SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
def size(path):
    """(width, height) from the PNG IHDR or the JPEG SOF marker (by signature, not name),
    reading only the header. Sizes are as stored: masonry turns EXIF-rotated JPEGs, but the
    bench corpus has no EXIF Orientation, so this layout does not look for it."""
    with open(path, 'rb') as f:
        b = f.read(24)
        if b[:8] == b'\x89PNG\r\n\x1a\n':
            return int.from_bytes(b[16:20], 'big'), int.from_bytes(b[20:24], 'big')
        pos = 2
        while b[:2] == b'\xff\xd8':
            f.seek(pos); m = f.read(9)
            if len(m) < 4 or m[0] != 0xFF or m[1] in (0xD9, 0xDA): break   # no SOF before the scan
            if m[1] == 0xFF: pos += 1; continue                            # fill byte
            if m[1] == 0x01 or 0xD0 <= m[1] <= 0xD7: pos += 2; continue    # markers without a length
            if m[1] in SOF and len(m) == 9:
                return int.from_bytes(m[7:9], 'big'), int.from_bytes(m[5:7], 'big')
            pos += 2 + int.from_bytes(m[2:4], 'big')
    # WebP, GIF, HEIF, AVIF: Pillow (with pillow-heif) reads the size from the header alone;
    # libheif reports the size with irot/clap applied, as masonry shows it.
    from PIL import Image
    try:
        import pillow_heif; pillow_heif.register_heif_opener()
    except ImportError:
        pass
    with Image.open(path) as im:
        return im.size
bottoms = [M] * N; tiles = []
for path in files:
    sw, sh = size(path)
    c = bottoms.index(min(bottoms)); w = widths[c]
    h = min(max(1, (2 * w * sh + sw) // (2 * sw)), ASPECT * w)
    iw = w if h < ASPECT * w else max(1, (2 * h * sw + sh) // (2 * sh))
    tiles.append((path, xs[c] + (w - iw) // 2, bottoms[c], iw, h)); bottoms[c] += h + GAP
H = max(bottoms) - GAP + M
workers = os.cpu_count()
def vips_srgb8(im):
    """A libvips tile as 8-bit sRGB over white, ready to insert into the sheet."""
    if im.hasalpha(): im = im.flatten(background=[255] * (im.bands - 1))
    im = im.colourspace('srgb')                 # grey and 16-bit to 8-bit sRGB
    return im if im.format == 'uchar' else im.cast('uchar')
if lib == 'pillow':
    from PIL import Image
    Image.MAX_IMAGE_PIXELS = None
    try:
        import pillow_heif; pillow_heif.register_heif_opener()   # HEIC; Pillow reads WebP, GIF and AVIF
    except ImportError:
        pass
    def load(t):
        im = Image.open(t[0])
        im.draft('RGB', (2 * t[3], 2 * t[4]))   # JPEG: DCT-scaled decode to >= 2x the tile, as thumbnail() does
        alpha = im.mode in ('RGBA', 'LA', 'PA') or 'transparency' in im.info
        im = im.convert('RGBA' if alpha else 'RGB')
        return t, im.resize((t[3], t[4]), Image.LANCZOS)
    sheet = Image.new('RGB', (W, H), 'white')
    with ThreadPoolExecutor(workers) as pool:   # Pillow releases the GIL while decoding and resizing
        for t, im in pool.map(load, tiles): sheet.paste(im, (t[1], t[2]), im if im.mode == 'RGBA' else None)
    sheet.save(output)                            # Pillow default: zlib level 6, adaptive filters
elif lib == 'vips':
    import pyvips
    sheet = pyvips.Image.black(W, H, bands=3).new_from_image([255, 255, 255])
    for path, x, y, w, h in tiles:
        sheet = sheet.insert(vips_srgb8(pyvips.Image.thumbnail(path, w, height=h, size='force')), x, y)
    sheet.pngsave(output)                         # libvips default: level 6, no filter
elif lib in ('vipsthumbnail', 'vipsthumbnail-tiles'):
    # vipsthumbnail as one would run it over a folder: one size for all (the column width, at
    # most ASPECT times as tall: the layout's own rule, though libvips rounds a few heights the
    # other way, 8 of the 200 bench JPEGs, so those tiles are a pixel taller or shorter), files
    # in batches (a libvips start-up costs ~40 ms of CPU, so one process per image would be
    # unfair), all cores. Tiles are written uncompressed in libvips' own format (.v), the
    # cheapest hand-over to the sheet.
    assert extra == 0, 'one vipsthumbnail size needs equal columns'
    tiledir = os.path.abspath(output if lib == 'vipsthumbnail-tiles' else output + '.tiles')
    shutil.rmtree(tiledir, ignore_errors=True); os.makedirs(tiledir)
    names = [os.path.join(tiledir, os.path.splitext(os.path.basename(t[0]))[0] + '.v') for t in tiles]
    if len(set(names)) < len(names): sys.exit('peer_sheet: vipsthumbnail names tiles by stem; two inputs share one')
    batch = -(-len(files) // (4 * workers))
    subprocess.run(['xargs', '-0', '-n', str(batch), '-P', str(workers), 'vipsthumbnail',
                    '-s', f'{base}x{ASPECT * base}', '-o', os.path.join(tiledir, '%s.v')],
                   input='\0'.join(files).encode(), check=True)
    if lib == 'vipsthumbnail':
        import pyvips
        sheet = pyvips.Image.black(W, H, bands=3).new_from_image([255, 255, 255])
        for (path, x, y, w, h), name in zip(tiles, names):
            sheet = sheet.insert(vips_srgb8(pyvips.Image.new_from_file(name)), x, y)
        sheet.pngsave(output)                     # libvips default: level 6, no filter
else:
    sys.exit(f'peer_sheet: unknown library {lib}')
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

count=$(ls "$corpus" | grep -ciE '\.(png|jpe?g|webp|gif|heic|heif|avif)$' || true)
echo "corpus: $corpus ($count images, $(du -sh "$corpus" | cut -f1)); $cores cores; median of $runs runs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %9s %9s %9s %10s  %s\n' tool "wall s" "CPU s" "RSS MiB" "out MB" settings
row() {
  local name="$1" settings="$2" file="$3"; shift 3
  local result; result=$(measure "$name" "$@")
  if [[ "$result" == failed ]]; then
    printf '%-34s %9s  (see %s)\n' "$name" failed "$out/${name//[^A-Za-z0-9.]/_}.err"; return
  fi
  read -r wall cpu rss <<< "$result"
  printf '%-34s %9s %9s %9s %10s  %s\n' "$name" "$wall" "$cpu" "$rss" \
    "$(awk -v b="$(du -sb "$file" 2>/dev/null | cut -f1)" 'BEGIN {printf "%.1f", b / 1e6}')" "$settings"
}
echo "sheet: 1200 px wide, $columns columns of $tile px"
sheets=()
if wants masonry; then
  row masonry "own RLE deflate, Up filter" "$out/masonry.png" "$masonry" "$corpus" -c "$columns" -o "$out/masonry.png" -q
  sheets+=("$out/masonry.png")
fi
if ! wants pyvips; then :
elif command -v vips >/dev/null && python3 -c 'import pyvips' 2>/dev/null; then
  row "libvips $(vips --version | cut -d- -f2) (pyvips)" "thumbnail, pngsave default" "$out/vips.png" python3 "$out/peer_sheet.py" vips "$corpus" "$out/vips.png" "$columns"
  sheets+=("$out/vips.png")
else
  echo "libvips: not installed (use --install)"
fi
if ! wants vipsthumbnail; then :
elif command -v vipsthumbnail >/dev/null && python3 -c 'import pyvips' 2>/dev/null; then
  vt="vipsthumbnail $(vips --version | cut -d- -f2)"
  row "$vt tiles only" "-s ${tile}x$((4 * tile)), xargs -P $cores, .v tiles" "$out/vipsthumbnail-tiles" \
    python3 "$out/peer_sheet.py" vipsthumbnail-tiles "$corpus" "$out/vipsthumbnail-tiles" "$columns"
  row "$vt + vips sheet" "same tiles, insert, pngsave default" "$out/vipsthumbnail.png" \
    python3 "$out/peer_sheet.py" vipsthumbnail "$corpus" "$out/vipsthumbnail.png" "$columns"
  sheets+=("$out/vipsthumbnail.png")
else
  echo "vipsthumbnail: not installed (use --install)"
fi
if ! wants pillow; then :
elif python3 -c 'import PIL' 2>/dev/null; then
  row "Pillow $(python3 -c 'import PIL; print(PIL.__version__)') ($cores threads)" "LANCZOS, save default (6, adaptive)" "$out/pillow.png" python3 "$out/peer_sheet.py" pillow "$corpus" "$out/pillow.png" "$columns"
  sheets+=("$out/pillow.png")
else
  echo "Pillow: not installed (use --install)"
fi
if ! wants montage; then :
elif command -v montage >/dev/null; then
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
  mapfile -d '' images < <(find "$corpus" -maxdepth 1 -type f \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' \
    -o -iname '*.webp' -o -iname '*.gif' -o -iname '*.heic' -o -iname '*.heif' -o -iname '*.avif' \) -print0 | sort -z)
  # jpeg:size lets libjpeg decode at a DCT scale still at least twice the cell (PNG ignores it).
  row "ImageMagick $(montage -version | head -1 | awk '{print $3}') montage" "grid ${columns}x, ${tile}x$tile cells, jpeg:size $((2 * tile))x$((2 * tile))" "$out/montage.png" \
    montage -define jpeg:size=$((2 * tile))x$((2 * tile)) "${images[@]}" -tile "${columns}x" -geometry "${tile}x$tile+4+4" -background white "$out/montage.png"
else
  echo "ImageMagick: not installed (use --install)"
fi
if [[ $quality == 1 && ${#sheets[@]} -gt 0 ]]; then
  "$masonry" "$corpus" -c "$columns" -o "$out/layout.png" -q --plan-only --manifest "$out/layout.json"
  echo "tiles against Pillow's full-size decode, Lanczos (scripts/peer-tile-quality.py):"
  python3 scripts/peer-tile-quality.py "$out/layout.json" "${sheets[@]}"
fi
