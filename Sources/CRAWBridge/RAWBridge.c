// The only code in Masonry that calls LibRaw (see RAWBridge.h for why a memory buffer).
//
// LibRaw is loaded on the first RAW file (libraw_functions.h); a machine without it gets a
// one-line reason per RAW file.
#include "RAWBridge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libraw_functions.h"

const char *mraw_library_failure(void) {
    return libraw_library_load() == MB_OK ? NULL : libraw_library.failure.text;
}

struct mraw_decoder {
    libraw_data_t *raw;
    uint8_t *bytes;                       // the file's bytes, alive while LibRaw holds them
    libraw_processed_image_t *image;      // the demosaiced picture
    uint64_t max_raw_pixels;
    mb_message message;                   // the first failure
    mb_message warning;                   // the first data error LibRaw recovered from
};

const char *mraw_library_version(void) { return LIBRAW_VERSION_STR; }

/// LibRaw's data-error callback (its default prints to stderr): damaged or missing sensor data,
/// which LibRaw fills and carries on from.
static void on_data_error(void *context, const char *file, const int offset) {
    (void)file;
    mraw_decoder *d = context;
    if (offset < 0) mb_message_set(&d->warning, "truncated RAW sensor data");
    else mb_message_set(&d->warning, "corrupt RAW sensor data at offset %d", offset);
}

/// LibRaw's memory-error callback (its default prints to stderr).
static void on_memory_error(void *context, const char *file, const char *where) {
    (void)file;
    mraw_decoder *d = context;
    mb_message_set(&d->message, "out of memory in LibRaw (%s)", where ? where : "?");
}

mraw_decoder *mraw_decoder_create(uint64_t max_raw_pixels, unsigned max_memory_mb) {
    if (libraw_library_load() != MB_OK) return NULL;
    mraw_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->raw = libraw_init(LIBRAW_OPTIONS_NONE);
    if (d->raw == NULL) { free(d); return NULL; }
    d->max_raw_pixels = max_raw_pixels;
    libraw_set_dataerror_handler(d->raw, on_data_error, d);
    libraw_set_memerror_handler(d->raw, on_memory_error, d);
    d->raw->params.max_raw_memory_mb = max_memory_mb;
    return d;
}

void mraw_decoder_destroy(mraw_decoder *d) {
    if (d == NULL) return;
    if (d->image) libraw_dcraw_clear_mem(d->image);
    libraw_close(d->raw);
    free(d->bytes);
    free(d);
}

const mb_message *mraw_decoder_message(const mraw_decoder *d) { return &d->message; }
const mb_message *mraw_decoder_warning(const mraw_decoder *d) { return &d->warning; }

/// A LibRaw error code as a status, its words in the message.
static mb_status failed(mraw_decoder *d, int code) {
    // LibRaw reads past the end of its buffer as an I/O error: from memory, only a short file does that.
    if (code == LIBRAW_IO_ERROR) mb_message_set(&d->message, "truncated RAW file (LibRaw read past its end)");
    mb_message_set(&d->message, "%s", libraw_strerror(code));
    switch (code) {
    case LIBRAW_FILE_UNSUPPORTED: return MB_UNSUPPORTED;
    case LIBRAW_UNSUFFICIENT_MEMORY:
    case LIBRAW_MEMPOOL_OVERFLOW:
    case LIBRAW_TOO_BIG: return MB_LIMIT;
    case LIBRAW_IO_ERROR: return MB_TRUNCATED;
    default: return MB_MALFORMED;
    }
}

mb_status mraw_decoder_open_fd(mraw_decoder *d, int fd, size_t size, mraw_info *info) {
    if (d->bytes != NULL || size == 0) return MB_USAGE;
    d->bytes = malloc(size);
    if (d->bytes == NULL) {
        mb_message_set(&d->message, "out of memory reading the RAW file (%zu bytes)", size);
        return MB_LIMIT;
    }
    ssize_t got = mb_pread_full(fd, d->bytes, size, 0);
    if (got < 0) {
        d->message.error_number = errno;
        mb_message_set(&d->message, "read failed: %s", strerror(errno));
        return MB_IO;
    }
    if ((size_t)got != size) {
        mb_message_set(&d->message, "the RAW file shrank while it was read");
        return MB_IO;
    }
    int code = libraw_open_buffer(d->raw, d->bytes, size);
    if (code != LIBRAW_SUCCESS) return failed(d, code);
    const libraw_image_sizes_t *sizes = &d->raw->sizes;
    memset(info, 0, sizeof *info);
    info->raw_width = sizes->raw_width;
    info->raw_height = sizes->raw_height;
    info->width = sizes->width;
    info->height = sizes->height;
    info->flip = sizes->flip;
    if (sizes->width == 0 || sizes->height == 0) {
        mb_message_set(&d->message, "RAW file has no picture LibRaw can make");
        return MB_UNSUPPORTED;
    }
    if ((uint64_t)sizes->raw_width * sizes->raw_height > d->max_raw_pixels) {
        mb_message_set(&d->message, "RAW sensor of %u×%u is over the limit", sizes->raw_width, sizes->raw_height);
        return MB_LIMIT;
    }
    return MB_OK;
}

mb_status mraw_decoder_demosaic(mraw_decoder *d, int half_size, uint32_t *width, uint32_t *height) {
    if (d->bytes == NULL || d->image != NULL) return MB_USAGE;
    d->raw->params.half_size = half_size ? 1 : 0;
    d->raw->params.user_flip = 0;     // stored orientation: Masonry turns the tile
    d->raw->params.output_bps = 8;
    int code = libraw_unpack(d->raw);
    if (code != LIBRAW_SUCCESS) return failed(d, code);
    code = libraw_dcraw_process(d->raw);
    if (code != LIBRAW_SUCCESS) return failed(d, code);
    int error = 0;
    d->image = libraw_dcraw_make_mem_image(d->raw, &error);
    if (d->image == NULL) return failed(d, error ? error : LIBRAW_UNSUFFICIENT_MEMORY);
    if (d->image->type != LIBRAW_IMAGE_BITMAP || d->image->colors != 3 || d->image->bits != 8
        || (size_t)d->image->width * d->image->height * 3 > d->image->data_size) {
        mb_message_set(&d->message, "LibRaw made a %d-colour %d-bit picture, not RGB8", d->image->colors, d->image->bits);
        return MB_UNSUPPORTED;
    }
    // The sensor data and the working image are no longer needed: only the RGB rows are read.
    libraw_recycle_datastream(d->raw);
    *width = d->image->width;
    *height = d->image->height;
    return MB_OK;
}

const uint8_t *mraw_decoder_pixels(const mraw_decoder *d) { return d->image ? d->image->data : NULL; }
