#!/usr/bin/env python3
"""Makes the Raster reference fixtures from scikit-image's bundled photographs.

    pip download scikit-image==0.26.0 --no-deps -d /tmp/ski
    unzip -o /tmp/ski/scikit_image-0.26.0-*.whl 'skimage/data/*' -d /tmp/skiu
    python3 make_reference.py /tmp/skiu/skimage/data

For each photo it writes a 256x256 crop (NAME.ppm), a 64x48 crop for the upscale test
(NAME-small.ppm), and Pillow LANCZOS resizes of them (NAME-WxH.ppm). All are binary PPM
(P6, 8-bit RGB): the tests add an opaque alpha channel.
"""
import sys
from pathlib import Path
from PIL import Image

# photo file, 256x256 crop origin, 64x48 crop origin
PHOTOS = {
    "astronaut": ("astronaut.png", (128, 24), (180, 80)),
    "coffee": ("coffee.png", (172, 60), (330, 215)),
    "chelsea": ("chelsea.png", (100, 20), (180, 100)),
}
DOWNSCALES = [(171, 171), (85, 85), (37, 37)]  # 256 / 1.5, / 3, / 7
UPSCALE = (160, 120)  # 64x48 * 2.5


def main(data_dir: Path, out_dir: Path) -> None:
    for name, (file, (x, y), (sx, sy)) in PHOTOS.items():
        photo = Image.open(data_dir / file).convert("RGB")
        crop = photo.crop((x, y, x + 256, y + 256))
        crop.save(out_dir / f"{name}.ppm")
        for size in DOWNSCALES:
            crop.resize(size, Image.Resampling.LANCZOS).save(out_dir / f"{name}-{size[0]}x{size[1]}.ppm")
        small = photo.crop((sx, sy, sx + 64, sy + 48))
        small.save(out_dir / f"{name}-small.ppm")
        small.resize(UPSCALE, Image.Resampling.LANCZOS).save(out_dir / f"{name}-small-{UPSCALE[0]}x{UPSCALE[1]}.ppm")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(__file__).resolve().parent)
