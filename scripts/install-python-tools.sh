#!/bin/sh
# The PyPI tools the fixture and corpus scripts use to regenerate references (the tests read the
# committed references and need none of them):
#   rawpy        LibRaw's own postprocess: the RAW demosaic references (make-raw-fixtures.py)
#   pillow>=12   the RAW previews and DNG pictures, and Pillow's own AVIF plugin (libavif), the
#                AVIF reference of make-heif-conformance.py
#   numpy        pictures and PSNRs in the fixture scripts, masonry-bench's RAW corpus
#   pillow-heif  the HEIF references (make-heif-fixtures.py, make-heif-conformance.py, ...)
#   fonttools    Unifont's upper plane read from unifont_upper.otf (make-unifont.py)
#   cairosvg     an SVG renderer independent of librsvg: the PSNR references of make-svg-fixtures.py
#   pillow-jxl-plugin  the second JPEG XL decoder the references are checked against (make-jxl-fixtures.py)
#   tifffile, imagecodecs  the TIFF fixtures of every sample layout, signed and float samples
#                included, and their compressions (make-tiff-fixtures.py)
set -eu
python3 -m pip install --quiet rawpy 'pillow>=12' numpy pillow-heif fonttools cairosvg pillow-jxl-plugin tifffile imagecodecs
