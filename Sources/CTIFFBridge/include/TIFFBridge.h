#ifndef MASONRY_TIFF_BRIDGE_H
#define MASONRY_TIFF_BRIDGE_H

// The only code in Masonry that calls libtiff.
//
// libtiff reads Masonry's descriptor through TIFFClientOpen's callbacks (mb_pread_full at the
// bridge's own position; no memory mapping, no path is ever opened). Its messages never print:
// every open gets its own error and warning handlers (libtiff 4.5's TIFFOpenOptions), which write
// into the decoder's mb_message, and the process-wide handlers are replaced once by ones that
// print nothing and write into the calling thread's current message (libtiff's handlers are
// global; the current message is thread-local, so decoders on several threads never mix their
// words). libtiff never longjmps (its JPEG codec keeps libjpeg's setjmp inside libtiff).
//
// Rows come out top to bottom, converted to 8-bit samples here: one strip (or one row of tiles,
// or one scanline of an over-budget strip) is decoded at a time. No libtiff type crosses this header.

#include <stddef.h>
#include <stdint.h>
#include "bridge_support.h"

/// What the rows are converted to.
typedef enum {
    MTIFF_GREY8 = 1,            ///< one sample a pixel
    MTIFF_RGB8 = 3,             ///< grey, RGB, palette, YCbCr (as RGB) and CMYK (naively) as RGB
    MTIFF_RGBA8 = 4,            ///< the same with straight alpha (opaque when the file has none)
    MTIFF_CMYK8_INVERTED = 5    ///< CMYK with 0 = full ink, for a CMYK profile's transform
} mtiff_output;

/// The directory libtiff read, for the caller to check against its own header walk.
typedef struct {
    uint32_t width;
    uint32_t height;
    uint16_t samples_per_pixel;
    uint16_t bits_per_sample;
    uint16_t sample_format;
    uint16_t photometric;
    uint16_t planar_configuration;
    uint16_t compression;
    uint32_t tile_width;        ///< 0 for strips
    uint32_t tile_height;
} mtiff_directory;

typedef struct mtiff_decoder mtiff_decoder;

/// The libtiff that runs, "4.5.0".
const char *mtiff_library_version(void);

/// Opens `fd` (`size` bytes; not closed by the bridge) and selects the directory at
/// `ifd_offset` (0, or the first one's offset: the one the open itself reads). libtiff allocates at most
/// `max_allocation` bytes at once. On success `*decoder` is set and `directory` filled in.
mb_status mtiff_open(int fd, int64_t size, uint64_t ifd_offset, int64_t max_allocation,
                     mtiff_decoder **decoder, mtiff_directory *directory, mb_message *message);

/// Prepares the row conversion: `alpha` is 0 (none), 1 (associated) or 2 (unassociated) for
/// the first extra sample; `cmyk` says the four colour samples are C, M, Y, K. The buffers of
/// one strip or tile row must fit in `max_band_bytes` (else a contiguous strip is read scanline
/// by scanline, and anything else is refused with MB_LIMIT).
mb_status mtiff_start(mtiff_decoder *decoder, mtiff_output output, int alpha, int cmyk, size_t max_band_bytes);

/// The next row (width × the output's bytes a pixel) in `*row`: the decoded strip's or tile
/// row's own bytes when they are already the output's (8-bit samples in the output's order),
/// else converted into `scratch` (as many bytes). Valid until the next call or mtiff_destroy.
mb_status mtiff_read_row(mtiff_decoder *decoder, uint8_t *scratch, const uint8_t **row);

/// The words of the decoder's first failure (empty when none).
const mb_message *mtiff_message(const mtiff_decoder *decoder);

void mtiff_destroy(mtiff_decoder *decoder);

/// The decode floor of masonry-bench: libtiff alone decodes every strip or tile of the first
/// directory (TIFFReadEncodedStrip / TIFFReadEncodedTile into one buffer; no conversion).
/// `*pixels` is the directory's pixel count.
mb_status mtiff_floor_decode(int fd, int64_t size, uint64_t *pixels, mb_message *message);

#endif
