#ifndef MASONRY_VIDEO_BRIDGE_H
#define MASONRY_VIDEO_BRIDGE_H

// The only code in Masonry that calls FFmpeg (libavformat, libavcodec, libswscale, libavutil
// 5.1), loaded on first use (libav_functions.h).
//
// - FFmpeg reads the file through an AVIOContext over mb_pread_full on the caller's
//   descriptor; it is given no path, and its io_open (how a demuxer opens another file or
//   URL: HLS, DASH, concat, QuickTime's external data references) refuses every call.
// - Only the demuxer the caller names (from the format table: "mov", "matroska", "avi") is
//   used, never probing, and the format whitelist holds those three alone.
// - FFmpeg never prints: its log callback copies the first error of the calling thread's
//   video into that video's message and drops everything else.
// - Bounded: streams (max_streams), bytes probed, packets read while looking for the poster,
//   one decoder thread, the decoder's max_pixels, and a wall-clock deadline checked by the
//   interrupt callback, every read and every packet. No FFmpeg type crosses this header.

#include <stddef.h>
#include <stdint.h>
#include "bridge_support.h"

/// What the demuxer says of the file's first video stream, for the caller to check against its
/// own reading of the container.
typedef struct {
    int width, height;            ///< coded picture size
    int sar_num, sar_den;         ///< the container's sample aspect ratio (0/1 when it gives none)
    int rotation;                 ///< the display matrix's clockwise rotation: 0, 90, 180 or 270
} mvid_info;

typedef struct mvid_video mvid_video;

/// NULL once FFmpeg is loaded (on the first call), else why it could not be.
const char *mvid_library_failure(void);
/// "libavformat 59.27.100 (FFmpeg 5.1.…)", or "not loaded".
const char *mvid_version(void);

/// A video reading `file_size` bytes of the open descriptor `fd` (not closed), giving up
/// `deadline_ms` milliseconds after creation. NULL when out of memory or FFmpeg is missing.
mvid_video *mvid_create(int fd, int64_t file_size, int deadline_ms);
void mvid_destroy(mvid_video *video);
/// The first failure's words (empty when none). Owned by the video.
const mb_message *mvid_message(const mvid_video *video);

/// Opens the container with the demuxer `demuxer` ("mov", "matroska" or "avi"), refusing more
/// than `max_streams` streams, and reads its header and stream parameters
/// (avformat_find_stream_info, at most 1 MiB and 5 s of the file). MB_UNSUPPORTED when there is
/// no video stream.
mb_status mvid_open(mvid_video *video, const char *demuxer, int max_streams, mvid_info *info);

/// Decodes the poster frame of the opened video: the first frame whose timestamp is at or after
/// 10 % of the duration (seeking to the keyframe before it), or the first frame when the
/// duration is under one second or unknown; the last frame decoded when the stream ends, or
/// `max_packets` packets are read, before. At most `max_packets` packets are read, with one decoder thread and frames of at
/// most `max_pixels`. The frame must be of the opened size; it is converted by swscale with
/// its own matrix (BT.601, BT.709 or BT.2020) and range to `width` × `height` 8-bit RGB; a PQ or
/// HLG frame (the decoder's transfer, else the container's) to 16-bit RGB first, then tone-mapped
/// to sRGB (Hable's curve, reference white 100 cd/m², peak 1000 cd/m², BT.2020 → BT.709 with
/// out-of-gamut components clipped; tone_map.h).
mb_status mvid_decode_poster(mvid_video *video, int width, int height, int max_packets, int64_t max_pixels);

/// Row `y` of the converted poster, width * 3 bytes.
const uint8_t *mvid_row(const mvid_video *video, int y);

#endif
