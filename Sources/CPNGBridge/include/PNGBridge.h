#ifndef MASONRY_PNG_BRIDGE_H
#define MASONRY_PNG_BRIDGE_H

// The only code in Masonry that calls libpng.
//
// libpng reports errors by longjmp-ing out of the failing call. Swift cannot
// call setjmp, and a longjmp across Swift frames is undefined behaviour, so
// every libpng call lives here: each entry point owns its setjmp, installs
// error and warning handlers that copy libpng's message instead of printing
// it, and returns a status. No libpng type crosses this header.

#include <stddef.h>
#include <stdint.h>

/// Outcome of a bridge call. The message text is available from the object.
typedef enum {
    MPNG_OK = 0,
    MPNG_MALFORMED = 1,   ///< the file breaks the PNG format
    MPNG_LIMIT = 2,       ///< the file asks for more than the configured limits
    MPNG_IO = 3,          ///< reading or writing the underlying file failed
    MPNG_NO_MEMORY = 4,   ///< an allocation failed
    MPNG_USAGE = 5        ///< the caller broke the API contract (a bug)
} mpng_status;

/// What the decoder learned from IHDR (as stored, before transformations).
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
    int has_transparency;   ///< an alpha channel or a tRNS chunk: some alpha may be below 255
    int channels;           ///< bytes per delivered pixel: 4 (RGBA), 3 (RGB) or 1 (grey)
} mpng_image_info;

typedef struct mpng_decoder mpng_decoder;

/// A decoder reading from an open file descriptor (not closed by the bridge).
mpng_decoder *mpng_decoder_create_fd(int fd);
/// A decoder reading from memory; the bytes must outlive the decoder.
mpng_decoder *mpng_decoder_create_memory(const uint8_t *bytes, size_t count);
void mpng_decoder_destroy(mpng_decoder *decoder);
/// The last error's text (empty when none). Owned by the decoder.
const char *mpng_decoder_message(const mpng_decoder *decoder);
/// The first non-fatal CRC problem libpng met (an ancillary chunk with a bad
/// CRC, dropped); empty when none. Owned by the decoder.
const char *mpng_decoder_warning(const mpng_decoder *decoder);

/// Reads the signature and every chunk up to the image data, rejects images
/// over max_pixels or wider than max_width, and files too short to hold the
/// image data their header claims, then sets up the transformations to 8-bit
/// RGBA, or with compact set, for an image without alpha or tRNS, to 8-bit RGB
/// (grey: 8-bit grey), which skips libpng's filler pass. max_chunk_bytes caps any ancillary-chunk allocation.
mpng_status mpng_decoder_start(mpng_decoder *decoder, uint64_t max_pixels, uint64_t max_width,
                               size_t max_chunk_bytes, int compact, mpng_image_info *info);
/// Non-interlaced images: reads the next row (width * channels bytes).
mpng_status mpng_decoder_read_row(mpng_decoder *decoder, uint8_t *row);
/// Any image: reads all rows into rows[0..height).
mpng_status mpng_decoder_read_image(mpng_decoder *decoder, uint8_t **rows);
/// Reads the chunks after the image data up to IEND.
mpng_status mpng_decoder_finish(mpng_decoder *decoder);

typedef struct mpng_encoder mpng_encoder;

/// The filter rows are written with.
typedef enum {
    MPNG_FILTER_NONE = 0, MPNG_FILTER_SUB = 1, MPNG_FILTER_UP = 2,
    MPNG_FILTER_AVERAGE = 3, MPNG_FILTER_PAETH = 4, MPNG_FILTER_ADAPTIVE = 5
} mpng_filter;

/// An encoder writing to an open file descriptor (not closed by the bridge).
mpng_encoder *mpng_encoder_create_fd(int fd);
/// An encoder collecting the file in memory (see mpng_encoder_memory).
mpng_encoder *mpng_encoder_create_memory(void);
void mpng_encoder_destroy(mpng_encoder *encoder);
const char *mpng_encoder_message(const mpng_encoder *encoder);

/// Writes the signature and IHDR of an 8-bit, non-interlaced RGBA (channels 4), RGB (3)
/// or grey (1) image. strategy is a zlib strategy (Z_DEFAULT_STRATEGY,
/// Z_FILTERED, Z_RLE...).
mpng_status mpng_encoder_start(mpng_encoder *encoder, uint32_t width, uint32_t height,
                               int channels, int level, int strategy, mpng_filter filter);
mpng_status mpng_encoder_write_row(mpng_encoder *encoder, const uint8_t *row);
/// Writes IEND and flushes.
mpng_status mpng_encoder_finish(mpng_encoder *encoder);
/// The bytes written so far by a memory encoder.
const uint8_t *mpng_encoder_memory(const mpng_encoder *encoder, size_t *count);

#endif
