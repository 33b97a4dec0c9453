#ifndef MASONRY_JPEG_BRIDGE_H
#define MASONRY_JPEG_BRIDGE_H

// The only code in Masonry that calls libjpeg(-turbo).
//
// libjpeg reports a fatal error by calling error_exit, which must not return:
// the bridge's error_exit longjmps back to the setjmp of the current entry
// point, so a longjmp never crosses a Swift frame. Messages (errors and
// warnings) are formatted into the object instead of being printed. No
// libjpeg type crosses this header.

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bridge_support.h"


/// What libjpeg read from the markers before the first scan.
typedef struct {
    uint32_t width;          ///< as stored
    uint32_t height;
    int components;          ///< in the file: 1 (grey), 3 (YCbCr/RGB) or 4 (CMYK/YCCK)
    int progressive;
    uint32_t output_width;   ///< after mjpg_decoder_start: at the chosen scale
    uint32_t output_height;
    int output_channels;     ///< after mjpg_decoder_start: 1 (grey) or 3 (RGB)
} mjpg_image_info;

typedef struct mjpg_decoder mjpg_decoder;

/// A decoder reading an open file descriptor from offset 0 with pread (the
/// descriptor is not closed). memory_budget caps what libjpeg may allocate in
/// total (a progressive file's coefficient buffer is the large part).
/* The libjpeg-turbo version built against (LIBJPEG_TURBO_VERSION_NUMBER; the library has no
   run-time query), for the thumbnail cache key. */
int mjpg_library_version(void);

mjpg_decoder *mjpg_decoder_create_fd(int fd, size_t memory_budget);
/// A decoder reading only `length` bytes from `start` of the descriptor (a JPEG inside another
/// file: a camera RAW's embedded preview); past them it sees the end of the file. A negative
/// `length` reads to the file's end.
mjpg_decoder *mjpg_decoder_create_fd_range(int fd, off_t start, off_t length, size_t memory_budget);
void mjpg_decoder_destroy(mjpg_decoder *decoder);
/// The last error's text (empty when none). Owned by the decoder.
const char *mjpg_decoder_message(const mjpg_decoder *decoder);
/// The first warning libjpeg gave (corrupt or truncated image data: the
/// picture was still produced); empty when none. Owned by the decoder.
const char *mjpg_decoder_warning(const mjpg_decoder *decoder);

/// Reads the markers up to the first scan.
mb_status mjpg_decoder_read_header(mjpg_decoder *decoder, mjpg_image_info *info);
/// Chooses DCT scaling scale_num/8 (1...8) and the output colour (grey, or RGB
/// for YCbCr, RGB, CMYK and YCCK), then starts decompression (a progressive
/// file's scans are all read here).
mb_status mjpg_decoder_start(mjpg_decoder *decoder, int scale_num, mjpg_image_info *info);
/// Reads the next output row (output_width * output_channels bytes).
mb_status mjpg_decoder_read_row(mjpg_decoder *decoder, uint8_t *row);
/// For a CMYK or YCCK file: reads the next row as libjpeg gives it, C, M, Y, K
/// (output_width * 4 bytes, Adobe's inverted samples), for a colour profile to convert.
mb_status mjpg_decoder_read_cmyk_row(mjpg_decoder *decoder, uint8_t *row);
/// Reads what follows the image data up to EOI.
mb_status mjpg_decoder_finish(mjpg_decoder *decoder);

/// Compresses an RGB8 image (width * 3 bytes a row) into a baseline or
/// progressive JFIF with 4:2:0 chroma at `quality` (1...100). On MJPG_OK,
/// *output holds *count bytes to release with free(). message gets the
/// reason on failure (capacity at least 200 bytes).
mb_status mjpg_encode_rgb(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                            int progressive, uint8_t **output, size_t *count, char *message);

#endif
