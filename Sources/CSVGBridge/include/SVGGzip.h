#ifndef MASONRY_SVG_GZIP_H
#define MASONRY_SVG_GZIP_H

// The only code in Masonry that calls zlib's inflate: gzip-compressed SVG (`.svgz`, Inkscape's
// "compressed SVG"). One gzip member is inflated into a buffer of the caller's size; zlib checks
// the member's CRC-32 and length. zlib never prints, never opens a file and never longjmps.

#include <stddef.h>
#include <stdint.h>

#include "bridge_support.h"

/// Whether `bytes` start as a gzip member of the deflate method (1f 8b 08).
int msvg_is_gzip(const uint8_t *bytes, size_t count);

/// Inflates the gzip member at the start of `fd` (a file of `file_size` bytes, read with pread in
/// 64 KiB blocks; `fd` -1: the `count` bytes at `bytes` instead) into `out`, at most `capacity`
/// bytes; `*produced` is the number written. Returns
///   MB_OK         the member ended within `capacity`, and nothing follows it in the input;
///   MB_LIMIT      `capacity` bytes were written and the member inflates further;
///   MB_TRUNCATED  the input ended inside the member;
///   MB_MALFORMED  zlib refused the stream (its words in `message`), or bytes follow the member;
///   MB_IO         a read failed (errno in `message`).
mb_status msvg_gunzip(int fd, int64_t file_size, const uint8_t *bytes, size_t count,
                      uint8_t *out, size_t capacity, size_t *produced, mb_message *message);

#endif
