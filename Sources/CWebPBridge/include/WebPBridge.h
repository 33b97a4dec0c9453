#ifndef MASONRY_WEBP_BRIDGE_H
#define MASONRY_WEBP_BRIDGE_H

// The only code in Masonry that calls libwebp.
//
// libwebp's decoder reports through status codes and never prints, so this
// bridge needs no setjmp; it owns the incremental decoder, feeds it blocks
// read with pread, and hands out rows as they are decoded. No libwebp type
// crosses this header.

#include <stddef.h>
#include <stdint.h>

#include "bridge_support.h"

typedef struct mwebp_decoder mwebp_decoder;

/// An incremental decoder of the bitstream at [start, start + length) of the
/// open descriptor fd (not closed): a "VP8 " or "VP8L" chunk, optionally led
/// by an "ALPH" chunk. Rows are RGBA with straight alpha when `alpha` is
/// non-zero, else RGB; the picture's stored size, or, when `scale` is non-zero,
/// output_width * output_height (libwebp scales while decoding). NULL when out
/// of memory.
mwebp_decoder *mwebp_decoder_create(int fd, int64_t start, int64_t length,
                                    int output_width, int output_height, int scale, int alpha);
void mwebp_decoder_destroy(mwebp_decoder *decoder);

/// Decodes until output row `y` is complete (reading more of the file as
/// needed) and points *row at it; the row stays valid until the decoder is
/// destroyed.
mb_status mwebp_decoder_row(mwebp_decoder *decoder, int y, const uint8_t **row);
/// The errno of the failed read after MB_IO.
int mwebp_decoder_errno(const mwebp_decoder *decoder);

/// libwebp's run-time decoder version: 0xMMmmpp (1.2.4 is 0x010204).
int mwebp_decoder_version(void);

#endif
