#ifndef MASONRY_PNG_BRIDGE_H
#define MASONRY_PNG_BRIDGE_H

// The only code in Masonry that calls libpng.
//
// libpng reports errors by longjmp-ing out of the failing call. Swift cannot
// call setjmp, and a longjmp across Swift frames is undefined behaviour, so
// every libpng call lives here: each entry point owns its setjmp, installs
// error and warning handlers that copy libpng's message instead of printing
// it, and returns a status saying why. No libpng type crosses this header.
//
// Unlike the other bridges, whose mb_status (bridge_support.h) says only whose fault a failure
// is, libpng's failures are classified here into PNG's own causes (mpng_status, mapped to
// PNGFailure in Swift), since its tests pin each corrupt file's cause. Reads go through the
// shared mb_pread_full like every bridge's.

#include <stddef.h>
#include <stdint.h>

/// Outcome of a bridge call: MPNG_OK, or why it failed. libpng's message text is
/// read here and nowhere else (`mpng_classify`); the Swift side maps each
/// reason to one `PNGFailure` case, and the details to its associated values.
typedef enum {
    MPNG_OK = 0,
    // The file breaks the PNG format.
    MPNG_NOT_PNG,                  ///< no PNG signature
    MPNG_TEXT_MODE_TRANSFER,       ///< a signature damaged by newline conversion
    MPNG_TRUNCATED_FILE,           ///< the file ends before the image data
    MPNG_TRUNCATED_IMAGE_DATA,     ///< the file ends inside the image data
    MPNG_IMAGE_DATA_CANNOT_FIT,    ///< width x height could not be inflated from a file of `limit` bytes
    MPNG_BAD_CRC,                  ///< a chunk's CRC is wrong (`chunk`)
    MPNG_BAD_FILTER,               ///< a row's filter type is not 0...4
    MPNG_MISSING_IHDR,
    MPNG_INVALID_IHDR,             ///< size, bit depth, colour type or a method out of range
    MPNG_NO_IMAGE_DATA,            ///< IEND before any IDAT
    MPNG_MISSING_PALETTE,
    MPNG_CHUNK_OUT_OF_PLACE,       ///< `chunk`, when libpng names it
    MPNG_DUPLICATE_CHUNK,          ///< `chunk`, when libpng names it
    MPNG_CORRUPT_IMAGE_DATA,       ///< the IDAT stream does not inflate (`detail`: zlib's words)
    MPNG_OTHER_FORMAT_ERROR,       ///< any other libpng verdict on the file (`detail`)
    // The file asks for more than the limits allow.
    MPNG_PIXEL_LIMIT,              ///< width x height over `limit` pixels
    MPNG_WIDTH_LIMIT,              ///< width over `limit`
    MPNG_CHUNK_LIMIT,              ///< a chunk over libpng's allocation limits (`detail`)
    MPNG_OUT_OF_MEMORY,            ///< an allocation failed
    // The system.
    MPNG_READ_FAILED,              ///< `error_number` is read(2)'s errno
    MPNG_WRITE_FAILED,             ///< `error_number` is write(2)'s errno, 0 when it made no progress
    // The caller broke the API contract (a bug), or libpng refused what it was asked to write.
    MPNG_MISUSE                    ///< `detail`
} mpng_status;

/// The details of a failure, beside its status.
typedef struct {
    mpng_status status;
    char chunk[5];          ///< the four-letter chunk name libpng gave, or ""
    int error_number;       ///< errno of a read or write failure
    uint64_t width;         ///< the image's size, for a limit or cannot-fit refusal
    uint64_t height;
    uint64_t limit;         ///< the limit exceeded, or the file size of a cannot-fit refusal
    char detail[256];       ///< words that are not ours (libpng's, zlib's), for statuses that carry them
} mpng_failure;

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

/// Which failure a libpng error or warning message names: the one place Masonry
/// reads libpng's text (the bridge's handlers call it; tests pin it). A message
/// none of its rules knows becomes `unclassified`, with the text as detail.
/* The version of libpng this process runs, for the thumbnail cache key. */
const char *mpng_library_version(void);

void mpng_classify(const char *message, mpng_status unclassified, mpng_failure *out);

typedef struct mpng_decoder mpng_decoder;

/// A decoder reading from an open file descriptor (not closed by the bridge).
mpng_decoder *mpng_decoder_create_fd(int fd);
/// A decoder reading from memory; the bytes must outlive the decoder.
mpng_decoder *mpng_decoder_create_memory(const uint8_t *bytes, size_t count);
void mpng_decoder_destroy(mpng_decoder *decoder);
/// The last failure (status MPNG_OK when none). Owned by the decoder.
const mpng_failure *mpng_decoder_failure(const mpng_decoder *decoder);
/// The first non-fatal CRC problem libpng met (an ancillary chunk with a bad
/// CRC, dropped), as an MPNG_BAD_CRC failure; status MPNG_OK when none.
const mpng_failure *mpng_decoder_warning(const mpng_decoder *decoder);

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
/// The last failure (status MPNG_OK when none). Owned by the encoder.
const mpng_failure *mpng_encoder_failure(const mpng_encoder *encoder);

/// Writes the signature and IHDR of an 8-bit, non-interlaced RGBA (channels 4), RGB (3)
/// or grey (1) image. strategy is a zlib strategy (Z_DEFAULT_STRATEGY,
/// Z_FILTERED, Z_RLE...).
mpng_status mpng_encoder_start(mpng_encoder *encoder, uint32_t width, uint32_t height,
                               int channels, int level, int strategy, mpng_filter filter);
/// Before mpng_encoder_start: also write an sRGB chunk (perceptual intent).
void mpng_encoder_set_srgb(mpng_encoder *encoder);
mpng_status mpng_encoder_write_row(mpng_encoder *encoder, const uint8_t *row);
/// Writes IEND and flushes.
mpng_status mpng_encoder_finish(mpng_encoder *encoder);
/// The bytes written so far by a memory encoder.
const uint8_t *mpng_encoder_memory(const mpng_encoder *encoder, size_t *count);

#endif
