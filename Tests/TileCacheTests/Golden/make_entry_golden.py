#!/usr/bin/env python3
"""Golden for EntryFormatGoldenTests: the exact bytes and file name of one
cache entry, computed from the format's description (EntryFormat.swift's
table) with Python's struct and zlib, independently of the Swift code.

Run: python3 Tests/TileCacheTests/Golden/make_entry_golden.py
and paste its output into EntryFormatGoldenTests.swift. Uses only the
standard library."""
import struct
import zlib

MASK = (1 << 64) - 1
# The test's key (testKey(0, width: 3, height: 2) in Support.swift) and pixels 0..23.
device, inode, size = 42, 1000, 5000
modified, changed = 1_650_000_000_123_456_789, 1_650_000_100_987_654_321
width, height, variant = 3, 2, 3
pixels = bytes(range(width * height * 4))

header = struct.pack("<8sIIIQQQqqqQ", b"MSNYTHMB", 1, width, height, len(pixels),
                     device, inode, size, modified, changed, variant)
assert len(header) == 76
entry = header + pixels + struct.pack("<I", zlib.crc32(header + pixels))

# File name: FNV-1a 64 over the header, then SplitMix64's finaliser.
h = 0xCBF29CE484222325
for byte in header:
    h = ((h ^ byte) * 0x100000001B3) & MASK
h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & MASK
h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & MASK
h ^= h >> 31
name = f"{h:016x}"

print(f'static let name = "{name[:2]}/{name}.thumb"')
print(f'static let entryHex = "{entry.hex()}"')
