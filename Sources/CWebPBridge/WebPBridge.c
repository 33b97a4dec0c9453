// See WebPBridge.h: every libwebp call of Masonry.

#include "WebPBridge.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <webp/decode.h>

enum { BLOCK_SIZE = 1 << 16 };

struct mwebp_decoder {
    WebPDecoderConfig config;   // must outlive the incremental decoder, which points at its options
    WebPIDecoder *idec;
    int fd;
    int64_t offset;             // next byte to feed
    int64_t end;
    int done;                   // libwebp said the picture is complete
    int read_errno;
    uint8_t block[BLOCK_SIZE];
};

mwebp_decoder *mwebp_decoder_create(int fd, int64_t start, int64_t length,
                                    int output_width, int output_height, int scale, int alpha) {
    mwebp_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    if (!WebPInitDecoderConfig(&d->config)) {
        free(d);
        return NULL;
    }
    d->config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB;
    d->config.options.use_threads = 0;
    if (scale) {
        d->config.options.use_scaling = 1;
        d->config.options.scaled_width = output_width;
        d->config.options.scaled_height = output_height;
    }
    // No data yet: the bitstream's features are read as it arrives.
    d->idec = WebPIDecode(NULL, 0, &d->config);
    if (d->idec == NULL) {
        free(d);
        return NULL;
    }
    d->fd = fd;
    d->offset = start;
    d->end = start + length;
    return d;
}

void mwebp_decoder_destroy(mwebp_decoder *d) {
    if (d == NULL) return;
    WebPIDelete(d->idec);
    WebPFreeDecBuffer(&d->config.output);
    free(d);
}

static mb_status status_of(VP8StatusCode code) {
    switch (code) {
    case VP8_STATUS_OK:
    case VP8_STATUS_SUSPENDED: return MB_OK;
    case VP8_STATUS_OUT_OF_MEMORY: return MB_LIMIT;
    case VP8_STATUS_UNSUPPORTED_FEATURE: return MB_UNSUPPORTED;
    case VP8_STATUS_NOT_ENOUGH_DATA: return MB_TRUNCATED;
    case VP8_STATUS_INVALID_PARAM: return MB_USAGE;
    default: return MB_MALFORMED;
    }
}

/// Feeds the next block; MB_TRUNCATED once every byte was fed before the picture was complete.
static mb_status feed(mwebp_decoder *d) {
    if (d->offset >= d->end) return MB_TRUNCATED;
    size_t wanted = (size_t)(d->end - d->offset < BLOCK_SIZE ? d->end - d->offset : BLOCK_SIZE);
    ssize_t got = mb_pread_full(d->fd, d->block, wanted, d->offset);
    if (got < 0) {
        d->read_errno = errno;
        return MB_IO;
    }
    if (got == 0) return MB_TRUNCATED;   // the file shrank after its header was read
    d->offset += got;
    VP8StatusCode code = WebPIAppend(d->idec, d->block, (size_t)got);
    if (code == VP8_STATUS_OK) d->done = 1;
    return status_of(code);
}

mb_status mwebp_decoder_row(mwebp_decoder *d, int y, const uint8_t **row) {
    for (;;) {
        int last_y = 0, width = 0, height = 0, stride = 0;
        uint8_t *rgb = WebPIDecGetRGB(d->idec, &last_y, &width, &height, &stride);
        if (rgb != NULL && y < last_y) {
            if (y < 0 || y >= height) return MB_USAGE;
            *row = rgb + (size_t)y * (size_t)stride;
            return MB_OK;
        }
        if (d->done) return MB_USAGE;   // complete, yet the row is not there: y out of range
        mb_status status = feed(d);
        if (status != MB_OK) return status;
    }
}

int mwebp_decoder_errno(const mwebp_decoder *d) { return d->read_errno; }

int mwebp_decoder_version(void) { return WebPGetDecoderVersion(); }
