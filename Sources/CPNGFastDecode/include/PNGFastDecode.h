#ifndef MASONRY_PNG_FAST_DECODE_H
#define MASONRY_PNG_FAST_DECODE_H

// A whole-image PNG decoder for the common case: a non-interlaced, well-formed
// PNG whose filtered image data fits a memory budget. It walks the chunks
// itself (every CRC checked), inflates all IDAT data in one libdeflate call
// (Adler-32 checked), unfilters with SSE2 and converts each row to 8 bits the
// way libpng's transformations in CPNGBridge do (expand palette, tRNS and low
// depths, scale 16 bits with libpng's rounding).
//
// It never reports an error: anything unusual (interlace, over a limit or the
// budget, a bad CRC, a chunk out of order, damaged image data...) makes it
// decline, and the caller decodes the file with libpng, which gives the file's
// verdict and wording. No libpng, no setjmp.

#include <stddef.h>
#include <stdint.h>

typedef struct mfast_image mfast_image;

/// What the caller asks for; the same limits as the libpng path.
typedef struct {
    uint64_t max_pixels;
    uint64_t max_width;
    uint64_t max_chunk_bytes;   ///< the largest ancillary chunk libpng would accept
    uint64_t budget;            ///< the most bytes of filtered image data (and of file) to hold
    int compact;                ///< deliver opaque images as RGB (grey: grey) rather than RGBA
} mfast_options;

/// What the image is (as stored) and how its rows are delivered.
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int has_transparency;   ///< an alpha channel or a tRNS chunk
    int channels;           ///< bytes per delivered pixel: 4, 3 or 1
} mfast_info;

/// Decodes the PNG in bytes[0..count). The bytes are only read during the call.
/// NULL: declined (or out of memory); decode with libpng instead.
/* The libdeflate version built against (it has no run-time query), for the thumbnail cache key. */
const char *mfast_library_version(void);

mfast_image *mfast_decode_memory(const uint8_t *bytes, size_t count, const mfast_options *options, mfast_info *info);
/// The same for the regular file open at fd, `size` bytes long, read with pread
/// (the file offset does not move, so libpng can read it afterwards).
mfast_image *mfast_decode_fd(int fd, uint64_t size, const mfast_options *options, mfast_info *info);
/// The next row, top to bottom (width * channels bytes), valid until the next
/// call. Rows are unfiltered as they are taken.
const uint8_t *mfast_next_row(mfast_image *image);
void mfast_destroy(mfast_image *image);

#endif
