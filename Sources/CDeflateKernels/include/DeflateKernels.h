#ifndef MASONRY_DEFLATE_KERNELS_H
#define MASONRY_DEFLATE_KERNELS_H

// The run search of Deflate's RunLengthDeflater, in C: one pass marks, 16 bytes at a time, which
// bytes repeat the byte before and the pixel before (two bitmaps), then a walk over the bitmaps
// finds each run's start and length with bit scans instead of byte compares. The symbols are
// those of the deflater's greedy rule, whatever the CPU (SSE2 on x86-64, plain C elsewhere).

#include <stddef.h>
#include <stdint.h>

/// 64-bit words of bitmap scratch that mdk_find_symbols needs for blocks of up to `block_bytes`.
size_t mdk_bitmap_words(size_t block_bytes);

/// Turns `count` bytes at `bytes` into the deflater's symbols (DeflateSymbol: 0-255 a literal,
/// 257 + (distance - 1) * 256 + (length - 3) a run of 3-258 bytes at distance 1 or `pixel`),
/// greedily: at each position the longer of the runs at distances 1 and `pixel` (distance 1 on a
/// tie), when one of at least 3 bytes starts there; else a literal. Positions before
/// `first_run_start` are literals. Returns the number of symbols.
///
/// `bytes` must be readable from 4 bytes before it (the history runs may refer to; `pixel` is
/// 1-4) to 16 bytes after `count`; `symbols` must hold count + 16 entries (whole groups of 16
/// are stored); `bitmaps` must hold mdk_bitmap_words(count) words.
size_t mdk_find_symbols(const uint8_t *bytes, size_t count, size_t first_run_start, size_t pixel,
                        uint16_t *symbols, uint64_t *bitmaps);

#endif
