#ifndef MASONRY_RASTER_KERNELS_H
#define MASONRY_RASTER_KERNELS_H

// AVX2 versions of Raster's hot loops (the resampler's filter passes, RGB compositing, the
// same-size pass-through's premultiply),
// chosen at run time when the CPU has AVX2; the portable Swift code remains for every other
// CPU. Same integer arithmetic, so the same bytes: tests compare both on random rows.
// The resampler's layouts are StreamingResampler's: a pixel is four int16 samples (R, G, B, A)
// stored minus 32768; weights are 14-bit fixed point.

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU and OS run AVX2 code.
int mrk_avx2_available(void);

/// Builds the horizontal pass's input for one row: quad k holds pixels 4k, 4k+1 interleaved
/// channel by channel, then 4k+2, 4k+3 likewise (16 int16), for k < ceil(count / 4). `pixels`
/// must hold count + 3 pixels (zeros past the row). Each pixel is in one quad: an output whose
/// taps start inside a quad gets zero weights for the pixels before them. With `compare`,
/// returns 1 when `quads` held these quads already (a row equal to the one before it);
/// otherwise 0.
int mrk_build_quads(const int16_t *pixels, size_t count, int16_t *quads, int compare);

/// The layouts of 8-bit source rows (StreamingResampler's PixelFormat).
typedef enum { MRK_RGBA8 = 0, MRK_OPAQUE_RGBA8 = 1, MRK_RGB8 = 2, MRK_GREY8 = 3 } mrk_layout;

/// One source row straight to quads (see mrk_build_quads), for images with no box shrink:
/// each pixel premultiplied and minus 32768, exactly as StreamingResampler's unshrunk rows
/// ((c·a, c·a, c·a, 255·a) for straight RGBA8, (c·255, ..., 255·255) for the opaque layouts).
/// Each group of four pixels goes from the row into its quad in registers (no pixel row in
/// between); the last quad is zero-padded. With `compare`, returns 1 when `quads` held these
/// quads already; otherwise 0.
int mrk_quads_from_row(const uint8_t *row, size_t width, mrk_layout layout, int16_t *quads, int compare);

/// The box shrink of an opaque layout, step 1: adds a source row's `count` bytes to 16-bit
/// column sums, one lane a byte (`first`: the group's first row, whose bytes replace the sums),
/// 32 bytes a step. A group of at most 257 rows keeps every lane within 257 · 255 < 2^16.
void mrk_box_add_columns_avx2(const uint8_t *row, size_t count, uint16_t *sums, int first);

/// Step 2, once a group of `group_height` rows is summed: each block of `block_width` columns
/// of the `width`-pixel row (the last block holds what is left) becomes one shrunk pixel, each
/// of its R, G, B, A sums s giving ((s · reciprocals[k] + 2^(bits − 1)) >> bits) − 32768 in
/// `output` (StreamingResampler's shrunk samples); RGB and grey count alpha 255 a pixel, opaque
/// RGBA sums its alpha bytes. `sums` must be readable for one lane past the last pixel.
void mrk_box_averages_from_columns_avx2(const uint16_t *sums, size_t width, mrk_layout layout, size_t block_width,
                                        size_t group_height, const int64_t *reciprocals, int bits, int16_t *output);

/// The horizontal pass: for each output x, the sum over its taps (quad_count quads of four,
/// weights in `weights` as 16 int16 per quad: w0 w1 repeated four times, then w2 w3) of
/// quads starting at quad `first_quad[x]`, rounded, shifted by 14 bits, clamped to
/// 0...max_sample and stored minus 32768 as four int16.
void mrk_horizontal_avx2(const int16_t *quads, const int64_t *first_quad, const int16_t *weights,
                         size_t quad_count, size_t output_count, int32_t max_sample, int16_t *output);

/// Sets bit k of `same` (bit k % 64 of word k / 64) when pixels 4k...4k+3 of `row` equal those
/// of `previous` (rows of `width` pixels of four int16, readable for width + 3 pixels), and
/// returns how many bits it set.
size_t mrk_same_chunks(const int16_t *row, const int16_t *previous, size_t width, uint64_t *same);

/// The vertical pass: `row_count` (even) rows of `width` pixels, each pair of rows weighted
/// by `weights[2p]`, `weights[2p + 1]`; each output pixel is the sum plus 32768 units, clamped,
/// divided by 255 << 14 with rounding, its colour clamped to its alpha, as RGBA8. Every row
/// must be readable for width + 3 pixels. Bit k of `flat_chunks` (or NULL) says that pixels
/// 4k...4k+3 are the same in every row: their sum is then the first row's times one unit.
void mrk_vertical_avx2(const int16_t *const *rows, const int16_t *weights, size_t row_count,
                       const uint64_t *flat_chunks, size_t width, int32_t max_sample, uint8_t *output);

/// RGB "over" for compositing: each of the first pixels of `source` (premultiplied RGBA8,
/// colour never above alpha) becomes (colour·255 + background·(255 − alpha) + 127) / 255 in
/// `destination` (RGB8), eight pixels a step while at least ten remain (a step writes 28 bytes,
/// of which 24 are its own). Returns the number of pixels done; the caller does the rest.
size_t mrk_composite_rgb_avx2(const uint8_t *source, uint8_t *destination, size_t count,
                              uint8_t red, uint8_t green, uint8_t blue);

/// Straight RGBA8 to premultiplied, as the resampler rounds it: each colour sample becomes
/// (colour·alpha + 127) / 255, alpha is kept; eight pixels a step while at least eight remain.
/// Returns the number of pixels done; the caller does the rest.
size_t mrk_premultiply_rgba_avx2(const uint8_t *source, uint8_t *destination, size_t count);

#endif
