#!/usr/bin/env python3
"""Generate Fixtures/goldens.txt for the PNGCodec conformance tests.

The goldens are made with decoders that share no code with Masonry's PNGCodec
(which sits on libpng): pypng (pure Python; the digests come from it), Pillow
(its own C PNG decoder) and a minimal from-scratch reader below. Every valid
PngSuite image is decoded to 8-bit RGBA exactly as SPEC.md section 2 says, and
the script stops if any two disagree. See GOLDENS.md for the rules and for
where Pillow cannot be used as is (16-bit samples, low-bit grey tRNS).

Usage:  pip install pillow numpy pypng
        python3 make_goldens.py [--check] [--dump DIR]
  --check  regenerate in memory and fail if goldens.txt differs
  --dump   also write every expected image as DIR/<name>.rgba (raw RGBA8)

Digest = SHA-256 of the RGBA8 bytes, row-major, top row first, 4 bytes/pixel.
"""
import argparse
import hashlib
import os
import re
import struct
import sys
import zlib

import numpy as np
import png  # pypng
from PIL import Image, PngImagePlugin

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "pngsuite")
OUT = os.path.join(HERE, "goldens.txt")

SIGNATURE = b"\x89PNG\r\n\x1a\n"
VALID_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}


def scale16(v):
    """16-bit sample to 8 bits with rounding: (v*255 + 32767) // 65535 == round(v/257)."""
    v = np.asarray(v, dtype=np.uint64)
    return ((v * 255 + 32767) // 65535).astype(np.uint8)


def scale_low(v, depth):
    """1/2/4/8-bit sample to 8 bits by replication: x255, x85, x17, x1."""
    return (np.asarray(v, dtype=np.uint32) * (255 // ((1 << depth) - 1))).astype(np.uint8)


def to8(v, depth):
    return scale16(v) if depth == 16 else scale_low(v, depth)


# ---------------------------------------------------------------------------
# IHDR read straight from the bytes (third opinion for the header fields)

def raw_ihdr(data):
    """(ok, fields or reason) for the first 33 bytes."""
    if len(data) < 33:
        return False, "shorter than 33 bytes"
    if data[:8] != SIGNATURE:
        return False, "bad signature"
    length, ctype = struct.unpack(">I4s", data[8:16])
    if length != 13 or ctype != b"IHDR":
        return False, "IHDR not first"
    body = data[16:29]
    (crc,) = struct.unpack(">I", data[29:33])
    if zlib.crc32(data[12:29]) & 0xFFFFFFFF != crc:
        return False, "IHDR CRC"
    w, h, depth, colour, comp, filt, interlace = struct.unpack(">IIBBBBB", body)
    if w == 0 or h == 0 or w > 2**31 - 1 or h > 2**31 - 1:
        return False, "size"
    if colour not in VALID_DEPTHS or depth not in VALID_DEPTHS[colour]:
        return False, "colour type / depth"
    if comp != 0 or filt != 0 or interlace not in (0, 1):
        return False, "method"
    return True, (w, h, depth, colour, interlace)


# ---------------------------------------------------------------------------
# Decoder C (raw samples only): a minimal from-scratch reader (chunks, zlib,
# unfiltering, Adam7, unpacking). It only cross-checks pypng's raw samples,
# which matters for 16-bit files where Pillow keeps just the high byte.

ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))
PLANES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _unfilter(data, pos, rows, rowbytes, bpp):
    prev = bytearray(rowbytes)
    out = []
    for _ in range(rows):
        ft = data[pos]
        cur = bytearray(data[pos + 1 : pos + 1 + rowbytes])
        pos += 1 + rowbytes
        for i in range(rowbytes):
            a = cur[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                p = a
            elif ft == 2:
                p = b
            elif ft == 3:
                p = (a + b) >> 1
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            else:
                assert ft == 0, ft
                p = 0
            cur[i] = (cur[i] + p) & 0xFF
        out.append(cur)
        prev = cur
    return out, pos


def _unpack(row, width, depth, planes):
    if depth == 16:
        return np.frombuffer(bytes(row), dtype=">u2")[: width * planes].astype(np.uint32)
    if depth == 8:
        return np.frombuffer(bytes(row), dtype=np.uint8)[: width * planes].astype(np.uint32)
    bits = np.unpackbits(np.frombuffer(bytes(row), dtype=np.uint8))
    bits = bits[: (len(bits) // depth) * depth].reshape(-1, depth)
    vals = np.zeros(len(bits), dtype=np.uint32)
    for k in range(depth):
        vals = (vals << 1) | bits[:, k]
    return vals[: width * planes]


def decode_minimal(path):
    data = open(path, "rb").read()
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        ctype = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if ctype == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat += body
        elif ctype == b"IEND":
            break
        pos += 12 + length
    raw = zlib.decompress(idat)
    planes = PLANES[colour]
    bpp = max(1, depth * planes // 8)
    out = np.zeros((h, w, planes), dtype=np.uint32)
    passes = ADAM7 if interlace else ((0, 0, 1, 1),)
    p = 0
    for x0, y0, dx, dy in passes:
        pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if pw == 0 or ph == 0:
            continue
        rows, p = _unfilter(raw, p, ph, (pw * planes * depth + 7) // 8, bpp)
        for j, row in enumerate(rows):
            out[y0 + j * dy, x0::dx, :][:pw] = _unpack(row, pw, depth, planes).reshape(pw, planes)
    return out


# ---------------------------------------------------------------------------
# Decoder A: pypng, raw samples (Reader.read(): no palette expansion, no sBIT
# shifting, no gamma), expanded to RGBA8 here.

def decode_pypng(path):
    r = png.Reader(filename=path)
    w, h, rows, info = r.read()
    depth = info["bitdepth"]
    ctype = r.color_type
    a = np.array([np.asarray(row, dtype=np.uint32) for row in rows], dtype=np.uint32)  # h x (w*planes)
    a = a.reshape(h, w, info["planes"])
    out = np.empty((h, w, 4), dtype=np.uint8)
    trns = info.get("transparent")
    if ctype == 3:
        pal = info["palette"]
        lut = np.zeros((256, 4), dtype=np.uint8)
        lut[:, 3] = 255
        for i, entry in enumerate(pal):
            lut[i, : len(entry)] = entry
        idx = a[:, :, 0]
        if idx.max() >= len(pal):
            raise ValueError("palette index out of range")
        out[:] = lut[idx]
    elif ctype in (0, 4):
        g = to8(a[:, :, 0], depth)
        out[:, :, 0] = out[:, :, 1] = out[:, :, 2] = g
        if ctype == 4:
            out[:, :, 3] = to8(a[:, :, 1], depth)
        elif trns is not None:
            # tRNS compares the RAW sample (any depth) with the key
            out[:, :, 3] = np.where(a[:, :, 0] == trns[0], 0, 255)
        else:
            out[:, :, 3] = 255
    elif ctype in (2, 6):
        out[:, :, :3] = to8(a[:, :, :3], depth)
        if ctype == 6:
            out[:, :, 3] = to8(a[:, :, 3], depth)
        elif trns is not None:
            eq = np.all(a[:, :, :3] == np.array(trns, dtype=np.uint32), axis=2)
            out[:, :, 3] = np.where(eq, 0, 255)
        else:
            out[:, :, 3] = 255
    else:
        raise ValueError(f"colour type {ctype}")
    hdr = (r.width, r.height, r.bitdepth, r.color_type, r.interlace)
    return out, hdr, a


# ---------------------------------------------------------------------------
# Decoder B: Pillow, with its traps avoided:
#  * 16-bit grey ("I;16"): convert("RGBA") clamps to 255, so the raw 16-bit
#    values are read with numpy and scaled here.
#  * 16-bit RGB / RGBA / grey+alpha: Pillow keeps only the high byte
#    (truncation). Those can't give the rounded value; for them Pillow's bytes
#    are checked against pypng's raw samples >> 8 (returned as "high bytes").
#  * grey/RGB tRNS: Pillow compares the key with the already-expanded value
#    for bit depths < 8; the key is applied here on Pillow's values instead.

def decode_pillow(path, depth, ctype):
    im = Image.open(path)
    im.load()
    w, h = im.size
    trns = im.info.get("transparency")
    out = np.empty((h, w, 4), dtype=np.uint8)
    high_only = False
    if ctype == 3:
        out[:] = np.asarray(im.convert("RGBA"))
    elif ctype == 0:
        if im.mode in ("I;16", "I;16B", "I"):
            raw = np.asarray(im).astype(np.uint32)
            g = scale16(raw)
            key_hit = (raw == trns) if trns is not None else None
        else:
            g = np.asarray(im.convert("L")).astype(np.uint8)  # "1", "L;2", "L;4" are scaled by Pillow
            key_hit = (g == scale_low(trns, depth)) if trns is not None else None
        out[:, :, 0] = out[:, :, 1] = out[:, :, 2] = g
        out[:, :, 3] = 255 if key_hit is None else np.where(key_hit, 0, 255)
    elif ctype == 4:
        la = np.asarray(im.convert("RGBA")) if im.mode != "LA" else None
        if im.mode == "LA":
            la2 = np.asarray(im)
            out[:, :, 0] = out[:, :, 1] = out[:, :, 2] = la2[:, :, 0]
            out[:, :, 3] = la2[:, :, 1]
        else:
            out[:] = la
        high_only = depth == 16
    elif ctype == 2:
        rgb = np.asarray(im.convert("RGB"))
        out[:, :, :3] = rgb
        if trns is not None and depth == 8:
            out[:, :, 3] = np.where(np.all(rgb == np.array(trns, dtype=np.uint8), axis=2), 0, 255)
        elif trns is not None:
            # only the high byte is known: a pixel equal to the key must have high bytes == key >> 8
            out[:, :, 3] = np.where(np.all(rgb == (np.array(trns) >> 8).astype(np.uint8), axis=2), 0, 255)
        else:
            out[:, :, 3] = 255
        high_only = depth == 16
    elif ctype == 6:
        out[:] = np.asarray(im.convert("RGBA"))
        high_only = depth == 16
    return out, (w, h), high_only


def parse_inventory():
    status = {}
    for line in open(os.path.join(SUITE, "INVENTORY.md"), encoding="utf-8"):
        m = re.match(r"\| `([^`]+\.png)` \| ([^|]+) \|", line)
        if m:
            status[m.group(1)] = "valid" if m.group(2).strip() == "valid" else "corrupt"
    return status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--dump")
    args = ap.parse_args()

    status = parse_inventory()
    files = sorted(f for f in os.listdir(SUITE) if f.endswith(".png"))
    assert set(files) == set(status), set(files) ^ set(status)
    lines = [
        "# PNGCodec goldens: generated by make_goldens.py (see GOLDENS.md); do not edit by hand.",
        "# name: sha256(RGBA8 pixels, row-major) width height bitDepth colorType interlace",
        "# digest 'reject' = PngSuite x* file that must fail to decode; header fields '-' = its",
        "# first 33 bytes are not a valid signature+IHDR, so PNGHeader(parsing:) must fail too.",
    ]
    notes = []
    for name in files:
        path = os.path.join(SUITE, name)
        data = open(path, "rb").read()
        ok, raw = raw_ihdr(data)
        if status[name] == "corrupt":
            assert name.startswith("x"), name
            hdr = " ".join(map(str, raw)) if ok else "- - - - -"
            lines.append(f"{name}: reject {hdr}")
            continue
        assert ok, (name, raw)
        a, hdr_a, raw_samples = decode_pypng(path)
        assert hdr_a == raw, (name, hdr_a, raw)
        w, h, depth, ctype, interlace = raw
        if not np.array_equal(decode_minimal(path), raw_samples):
            sys.exit(f"{name}: pypng raw samples disagree with the minimal reader")
        b, size_b, high_only = decode_pillow(path, depth, ctype)
        assert size_b == (w, h), name
        if high_only:
            # Pillow truncates 16-bit samples: compare it with pypng's raw >> 8
            hi = (raw_samples >> 8).astype(np.uint8)
            if ctype == 2:
                exp = hi[:, :, :3]
                got = b[:, :, :3]
                # alpha from the full 16-bit key (pypng) must imply the high-byte match (Pillow)
                assert np.all(b[:, :, 3][a[:, :, 3] == 0] == 0), name
                n_hi_only = int(np.sum((b[:, :, 3] == 0) & (a[:, :, 3] == 255)))
                if n_hi_only:
                    notes.append(f"{name}: {n_hi_only} pixels match the tRNS key in the high byte only")
            elif ctype == 4:
                exp = np.stack([hi[:, :, 0], hi[:, :, 1]], axis=2)
                got = np.stack([b[:, :, 0], b[:, :, 3]], axis=2)
            else:
                exp, got = hi, b
            if not np.array_equal(exp, got):
                sys.exit(f"{name}: Pillow high bytes disagree with pypng raw >> 8")
            diff = int(np.sum(a != b))
            notes.append(f"{name}: 16-bit; Pillow truncates, {diff} bytes differ from rounded pypng (expected)")
        elif not np.array_equal(a, b):
            n = int(np.sum(np.any(a != b, axis=2)))
            sys.exit(f"{name}: pypng and Pillow disagree on {n} pixels")
        digest = hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
        lines.append(f"{name}: {digest} {w} {h} {depth} {ctype} {interlace}")
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            open(os.path.join(args.dump, name[:-4] + ".rgba"), "wb").write(a.tobytes())

    text = "\n".join(lines) + "\n"
    if args.check:
        if open(OUT).read() != text:
            sys.exit("goldens.txt is stale")
        print("goldens.txt is up to date")
    else:
        open(OUT, "w").write(text)
        print(f"wrote {OUT}: {sum(1 for l in lines if not l.startswith('#'))} entries")
    for n in notes:
        print("note:", n)


if __name__ == "__main__":
    main()
