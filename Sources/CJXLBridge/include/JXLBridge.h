#ifndef MASONRY_JXL_BRIDGE_H
#define MASONRY_JXL_BRIDGE_H

// The only code in Masonry that calls libjxl (0.7's decoder API, loaded on first use).
//
// libjxl reports through status codes and never jumps, so the bridge needs no setjmp; it words
// each failure into the decoder's mb_message, with the first line libjxl tried to print (Debian's
// libjxl prints its failures: they are kept instead, see libjxl_quiet.h). It reads Masonry's descriptor with mb_pread_full in 1 MiB blocks
// (JxlDecoderSetInput / JxlDecoderReleaseInput on JXL_DEC_NEED_MORE_INPUT; the unconsumed tail
// is kept and the block grows only while libjxl needs one section whole). Everything libjxl
// allocates goes through a JxlMemoryManager that refuses what would take it over the budget the
// caller gives (from Masonry's own header), so a hostile file cannot make it eat memory. No
// parallel runner: a decode runs on the calling worker thread. No libjxl type crosses this header.

#include <stddef.h>
#include <stdint.h>
#include "bridge_support.h"

/// What libjxl read of the image header (JXL_DEC_BASIC_INFO), in the stored orientation.
typedef struct {
    uint32_t width;
    uint32_t height;
    uint32_t bits_per_sample;
    uint32_t color_channels;      ///< 1 (grey) or 3
    uint32_t alpha_bits;          ///< 0 without alpha
    uint32_t orientation;         ///< 1…8, as EXIF
    int have_preview;
    int have_animation;
    int xyb;                      ///< XYB-encoded (lossy): decoded to sRGB, not the stored colour space
    int original_is_icc;          ///< the colour encoding is an ICC profile (see mjxl_decoder_icc)
} mjxl_info;

typedef struct mjxl_decoder mjxl_decoder;

/// NULL once libjxl is loaded (on the first call), else why it could not be. Every other entry
/// point loads it too.
const char *mjxl_library_failure(void);

/// libjxl's run-time version, major * 1000000 + minor * 1000 + patch; 0 when not loaded.
uint32_t mjxl_version(void);

/// A decoder of the `size` bytes of the open descriptor `fd` (not closed), whose allocations
/// may total at most `memory_budget` bytes. NULL when out of memory or when libjxl cannot be
/// loaded (mjxl_library_failure says why).
mjxl_decoder *mjxl_decoder_create(int fd, int64_t size, uint64_t memory_budget);
void mjxl_decoder_destroy(mjxl_decoder *decoder);

/// Reads the image header and the colour encoding (no pixel): fills `info`. An XYB image is
/// asked for sRGB output (grey or RGB); any other keeps its samples in the encoded colour
/// space, whose ICC profile, when the file has one, mjxl_decoder_icc gives.
mb_status mjxl_decoder_read_info(mjxl_decoder *decoder, mjxl_info *info);

/// After mjxl_decoder_read_info: the original ICC profile (NULL and 0 when the colour encoding
/// is an enum or the image is XYB). Owned by the decoder.
const uint8_t *mjxl_decoder_icc(const mjxl_decoder *decoder, size_t *size);

/// After mjxl_decoder_read_info: decodes the first frame (animations composited, as libjxl
/// coalesces them) into one buffer of 8-bit interleaved samples, `channels` a pixel (1 grey,
/// 2 grey + alpha, 3 RGB, 4 RGBA with straight alpha), rows top to bottom, stored orientation.
mb_status mjxl_decoder_decode(mjxl_decoder *decoder, int channels);

/// After mjxl_decoder_decode: row `y` of the decoded frame, or NULL out of range.
const uint8_t *mjxl_decoder_row(const mjxl_decoder *decoder, uint32_t y);

/// The most bytes libjxl held at once so far (for measurements).
uint64_t mjxl_decoder_peak_bytes(const mjxl_decoder *decoder);

/// The words of the decoder's first failure (empty when none).
const mb_message *mjxl_decoder_message(const mjxl_decoder *decoder);

/// Counts the frames libjxl shows (coalesced: a frame of zero duration is blended into the next)
/// by its frame headers and tables of contents, no pixel decoded: every byte of the file is
/// read once. Stops with MB_LIMIT past `max_frames`.
mb_status mjxl_count_frames(int fd, int64_t size, uint64_t memory_budget, uint32_t max_frames,
                            uint32_t *frames, mb_message *message);

/// The decode floor of masonry-bench: libjxl alone decodes the first frame to 8-bit RGBA in one
/// buffer, whole, on the calling thread. `*pixels` is the frame's pixel count.
mb_status mjxl_floor_decode(int fd, int64_t size, uint64_t *pixels, mb_message *message);

#endif
