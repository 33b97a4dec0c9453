#!/bin/sh
# The PyPI tools the fixture and corpus scripts use to regenerate references (the tests read the
# committed references and need none of them): rawpy (LibRaw's own postprocess, the RAW
# demosaic references of scripts/make-raw-fixtures.py), Pillow and NumPy (the RAW previews, the
# DNGs' pictures, masonry-bench's RAW corpus).
set -eu
python3 -m pip install --quiet rawpy pillow numpy
