#ifndef MASONRY_RAW_BRIDGE_H
#define MASONRY_RAW_BRIDGE_H

// The only code in Masonry that calls LibRaw.
//
// LibRaw is C++; its data streams (LibRaw_abstract_datastream) are C++ classes, so a C bridge
// cannot hand it Masonry's descriptor as a stream. It uses LibRaw's C interface (libraw.h) with a
// memory buffer instead: the bridge reads the file's bytes from Masonry's own open descriptor with
// mb_pread_full (after the Swift side has bounded the file's size) and gives them to
// libraw_open_buffer, so LibRaw never opens a path. LibRaw's C interface catches its C++
// exceptions and returns error codes; its data-error and memory-error callbacks, which print to
// stderr by default, are replaced by ones that capture the first message. No LibRaw type crosses
// this header.

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bridge_support.h"

/// What LibRaw read from a file's metadata (libraw_open_buffer; no pixel unpacked).
typedef struct {
    uint32_t raw_width;      ///< the sensor's stored size
    uint32_t raw_height;
    uint32_t width;          ///< LibRaw's picture before its Fuji rotation, stretch and flip
    uint32_t height;         ///< (mraw_decoder_shown_size gives what it makes)
    int flip;                ///< LibRaw's flip: 0 none, 3 180°, 5 90° counter-clockwise, 6 90° clockwise
} mraw_info;

typedef struct mraw_decoder mraw_decoder;

/// The LibRaw version the bridge was built against ("0.20.2-Release"): the library is loaded
/// only when a RAW is opened, so its version is not asked of it.
const char *mraw_library_version(void);

/// Loads LibRaw (libraw_r.so.20) on the first call: NULL once loaded, else why it could not be.
const char *mraw_library_failure(void);

/// A decoder; NULL without memory or without LibRaw (see mraw_library_failure). max_raw_pixels bounds the sensor size LibRaw may unpack,
/// max_memory_mb what LibRaw may allocate at once (its own max_raw_memory_mb).
mraw_decoder *mraw_decoder_create(uint64_t max_raw_pixels, unsigned max_memory_mb);
void mraw_decoder_destroy(mraw_decoder *decoder);
/// The first failure's words.
const mb_message *mraw_decoder_message(const mraw_decoder *decoder);
/// The first damage LibRaw recovered from while unpacking (the picture was still made), or empty.
const mb_message *mraw_decoder_warning(const mraw_decoder *decoder);

/// Reads `size` bytes of `fd` from offset 0 (the caller bounded `size`) and opens them with
/// libraw_open_buffer: the metadata only. A sensor over max_raw_pixels is MB_LIMIT. A Phase One
/// metadata directory claiming more entries than the file holds, which LibRaw 0.20 would walk
/// for minutes, is MB_MALFORMED before LibRaw sees the bytes.
mb_status mraw_decoder_open_fd(mraw_decoder *decoder, int fd, size_t size, mraw_info *info);

/// The picture LibRaw makes at full size, before its flip: a Fuji SuperCCD's diagonal sensor turned
/// upright, and pixels that are not square stretched square (its pixel aspect: a DNG's
/// DefaultScale, a camera model's), as libraw_adjust_sizes_info_only says. mraw_info's width and
/// height are the sensor's layout, which those files do not show. The call changes the handle's
/// state (LibRaw shrinks its Fuji width in place): afterwards the handle can only be destroyed, and
/// mraw_decoder_demosaic is MB_USAGE.
mb_status mraw_decoder_shown_size(mraw_decoder *decoder, uint32_t *width, uint32_t *height);

/// Unpacks the sensor data and demosaics it (libraw_dcraw_process, at half size when half_size:
/// each 2×2 cell one pixel; LibRaw's defaults otherwise: its colour matrices to sRGB, 8 bits,
/// BT.709 gamma), without LibRaw's flip (the caller applies the orientation). On MB_OK the RGB8
/// rows are at mraw_decoder_pixels, *width × *height × 3 bytes.
mb_status mraw_decoder_demosaic(mraw_decoder *decoder, int half_size, uint32_t *width, uint32_t *height);
const uint8_t *mraw_decoder_pixels(const mraw_decoder *decoder);

#endif
