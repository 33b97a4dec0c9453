#ifndef MASONRY_HEIF_BRIDGE_H
#define MASONRY_HEIF_BRIDGE_H

// The only code in Masonry that calls libheif.
//
// libheif reports errors as values (struct heif_error), never by printing or jumping: the
// bridge copies each error's message into the decoder object. Of its codecs, dav1d prints to
// stderr on damaged AV1 data, so AV1 is decoded with aom (see mheif_decoder_name). The file is read through a
// heif_reader over pread on the caller's descriptor, so libheif holds only the boxes and
// the coded data it asks for, never a copy of the whole file. No libheif type crosses this
// header.

#include <stddef.h>
#include <stdint.h>
#include "bridge_support.h"

// Every call that can fail returns an mb_status (bridge_support.h): MB_MALFORMED when the file
// breaks the format or its coded data does not decode, MB_LIMIT over the size limit set at
// creation or out of memory, MB_IO when reading failed, MB_UNSUPPORTED for a feature or codec
// this libheif build does not decode. The words are in the decoder's mb_message.

/// The decoded picture, transformations applied.
typedef struct {
    uint32_t width;
    uint32_t height;
    int channels;            ///< 3 (RGB) or 4 (RGBA, straight alpha)
    int bits;                ///< bits per sample as decoded (8, 10 or 12); rows are always 8-bit
} mheif_image_info;

typedef struct mheif_decoder mheif_decoder;

/// NULL once libheif is loaded (on the first call), else why it could not be: "libheif.so.1
/// could not be loaded (…)". Every other entry point loads it too.
const char *mheif_library_failure(void);

/// libheif's run-time version ("1.15.1"), or "not loaded".
const char *mheif_version(void);
/// The name of the decoder the bridge uses for HEVC (`av1` 0) or AV1 (`av1` 1), with its
/// version ("libde265 HEVC decoder, version 1.0.11"), or NULL when this build has none. For AV1
/// it is aom when present (dav1d prints to stderr on damaged data), else libheif's first choice.
const char *mheif_decoder_name(int av1);

/// A decoder reading `file_size` bytes of the open descriptor `fd` with pread (the descriptor
/// is not closed). libheif refuses images with a side of `max_side` or more and decodes grid
/// tiles on the calling thread. NULL when out of memory.
mheif_decoder *mheif_decoder_create_fd(int fd, int64_t file_size, int max_side);
void mheif_decoder_destroy(mheif_decoder *decoder);
/// Before `mheif_decoder_read`: libheif is shown the 4 bytes at `bytes` in place of the file's
/// at `offset` (at most 4 overlays). MB_UNSUPPORTED when out of place or too many.
mb_status mheif_decoder_overlay(mheif_decoder *decoder, int64_t offset, const uint8_t *bytes);
/// Before `mheif_decoder_read`: libheif is shown the `count` bytes at `bytes` (copied) as if they
/// followed the file's last byte. MB_LIMIT when out of memory.
mb_status mheif_decoder_append(mheif_decoder *decoder, const uint8_t *bytes, size_t count);
/// The last error's text (empty when none). Owned by the decoder.
const mb_message *mheif_decoder_message(const mheif_decoder *decoder);

/// Reads the file's boxes and finds the primary image; *primary_id gets its item id.
mb_status mheif_decoder_read(mheif_decoder *decoder, uint32_t *primary_id);
/// Decodes the primary image (`thumbnail_id` 0) or its thumbnail of that item id, coded in AV1
/// (`av1` 1) or HEVC (0), with the file's transformations applied, to interleaved RGB or RGBA,
/// by the decoder `mheif_decoder_name` names. A `monochrome` (4:0:0) item is decoded to its
/// luma plane (and alpha), which the rows turn into grey themselves: libheif 1.15 copies luma
/// into R, G and B whatever its range, so a limited-range picture came out too bright. The
/// range is the `colr` nclx box's, else the coded stream's (as the decoder reports it), else full.
mb_status mheif_decoder_decode(mheif_decoder *decoder, uint32_t thumbnail_id, int av1, int monochrome, mheif_image_info *info);
/// Row `y` of the decoded picture, width * channels bytes of 8-bit samples: a pointer into
/// libheif's plane for 8-bit pictures; deeper samples are scaled with rounding,
/// (v * 255 + max / 2) / max, into a row buffer; a monochrome picture's luma is repeated in R,
/// G and B, limited-range luma expanded, (v - 16·2^(bits-8)) · 255 / (219·2^(bits-8)) rounded
/// and clamped, as libavif does; premultiplied alpha is made straight.
/// Valid until the next call.
const uint8_t *mheif_decoder_row(mheif_decoder *decoder, uint32_t y);

#endif
