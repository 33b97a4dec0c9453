#include "SVGGzip.h"

#include <errno.h>
#include <stdlib.h>
#include <zlib.h>

int msvg_is_gzip(const uint8_t *bytes, size_t count) {
    return count >= 3 && bytes[0] == 0x1f && bytes[1] == 0x8b && bytes[2] == 8;
}

enum { block_bytes = 64 << 10 };

/// The next block of input: from the descriptor at `*offset`, or the whole of `bytes` once.
/// Returns the bytes available at `*next` (0 at the end), or -1 when a read fails.
static ssize_t next_input(int fd, int64_t file_size, const uint8_t *bytes, size_t count,
                          uint8_t *block, int64_t *offset, const uint8_t **next) {
    if (fd < 0) {
        size_t left = *offset < (int64_t)count ? count - (size_t)*offset : 0;
        *next = bytes + *offset;
        *offset += (int64_t)left;
        return (ssize_t)left;
    }
    if (*offset >= file_size) return 0;
    int64_t left = file_size - *offset;
    ssize_t read = mb_pread_full(fd, block, left < block_bytes ? (size_t)left : block_bytes, *offset);
    if (read < 0) return -1;
    *offset += read;
    *next = block;
    return read;
}

mb_status msvg_gunzip(int fd, int64_t file_size, const uint8_t *bytes, size_t count,
                      uint8_t *out, size_t capacity, size_t *produced, mb_message *message) {
    *produced = 0;
    uint8_t *block = fd < 0 ? NULL : malloc(block_bytes);
    z_stream stream = {0};
    if ((fd >= 0 && block == NULL) || inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
        free(block);
        mb_message_set(message, "cannot start inflating the SVGZ file (out of memory)");
        return MB_LIMIT;
    }
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    // Once `out` is full, inflating into one spare byte tells a member that ends there from a
    // longer one.
    uint8_t spare;
    int in_spare = 0, ended = 0, input_ended = 0;
    int64_t offset = 0;
    mb_status status = MB_OK;
    for (;;) {
        if (stream.avail_in == 0 && !input_ended) {
            const uint8_t *next = NULL;
            ssize_t available = next_input(fd, file_size, bytes, count, block, &offset, &next);
            if (available < 0) {
                message->error_number = errno;
                mb_message_set(message, "reading the SVGZ file failed");
                status = MB_IO;
                break;
            }
            input_ended = available == 0;
            stream.next_in = (Bytef *)next;
            stream.avail_in = (uInt)available;
        }
        if (stream.avail_out == 0 && !in_spare) {
            in_spare = 1;
            stream.next_out = &spare;
            stream.avail_out = 1;
        }
        int result = inflate(&stream, Z_NO_FLUSH);
        if (in_spare && stream.avail_out == 0) {
            status = MB_LIMIT;
            break;
        }
        if (result == Z_STREAM_END) {
            ended = 1;
            break;
        }
        if (result == Z_BUF_ERROR && stream.avail_in == 0 && input_ended) {
            mb_message_set(message, "truncated SVGZ file: its gzip stream ends early");
            status = MB_TRUNCATED;
            break;
        }
        if (result != Z_OK && result != Z_BUF_ERROR) {
            mb_message_set(message, "corrupt gzip stream in the SVGZ file (zlib: %s)", stream.msg ? stream.msg : "error");
            status = result == Z_MEM_ERROR ? MB_LIMIT : MB_MALFORMED;
            break;
        }
    }
    *produced = in_spare ? capacity : capacity - stream.avail_out;
    if (ended) {
        int64_t after = (int64_t)stream.avail_in + ((fd < 0 ? (int64_t)count : file_size) - offset);
        if (after > 0) {
            mb_message_set(message, "SVGZ file has %lld bytes after its gzip stream (a second gzip member is not read)", (long long)after);
            status = MB_MALFORMED;
        }
    }
    inflateEnd(&stream);
    free(block);
    return status;
}
