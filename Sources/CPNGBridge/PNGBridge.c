// See PNGBridge.h: every libpng call of Masonry, each behind its own setjmp.

#include "PNGBridge.h"

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { MESSAGE_CAPACITY = 256, IO_BUFFER_SIZE = 1 << 16 };

// ---------------------------------------------------------------------------
// Messages

typedef struct {
    char text[MESSAGE_CAPACITY];
    mpng_status status;   // set before png_error when the cause is known
    // The first CRC warning: libpng drops an ancillary chunk with a bad CRC
    // and goes on, which is right for the picture, but the file is damaged
    // and the user should hear about it (see mpng_decoder_warning).
    char warning[MESSAGE_CAPACITY];
} failure;

static void failure_set(failure *f, mpng_status status, const char *text) {
    f->status = status;
    snprintf(f->text, sizeof f->text, "%s", text);
}

static int contains(const char *haystack, const char *needle) {
    return strstr(haystack, needle) != NULL;
}

/// libpng's error handler: keep the text, classify it, jump back to the
/// setjmp of the current bridge call.
static void on_error(png_structp png, png_const_charp message) {
    failure *f = (failure *)png_get_error_ptr(png);
    if (f->status == MPNG_OK) {
        mpng_status status = MPNG_MALFORMED;
        if (contains(message, "user limit") || contains(message, "too large")
            || contains(message, "exceeds") || contains(message, "limit")) {
            status = MPNG_LIMIT;
        } else if (contains(message, "memory") || contains(message, "Out of")) {
            status = MPNG_NO_MEMORY;
        }
        failure_set(f, status, message);
    }
    png_longjmp(png, 1);
}

/// Warnings are not errors and are never printed; the first CRC warning is
/// kept so the caller can report the damaged chunk.
static void on_warning(png_structp png, png_const_charp message) {
    failure *f = (failure *)png_get_error_ptr(png);
    if (f != NULL && f->warning[0] == '\0' && contains(message, "CRC")) {
        snprintf(f->warning, sizeof f->warning, "%s", message);
    }
}

// ---------------------------------------------------------------------------
// Decoder

struct mpng_decoder {
    failure failure;
    png_structp png;
    png_infop info;
    // Source: either memory or a file descriptor read through a buffer.
    const uint8_t *memory;
    size_t memory_count;
    size_t memory_offset;
    int fd;
    uint8_t *buffer;
    size_t buffer_count;
    size_t buffer_offset;
    int in_image_data;   // truncation there is reported as "truncated image data"
    int started;
};

static void fail_truncated(png_structp png, mpng_decoder *d) {
    failure_set(&d->failure, MPNG_MALFORMED,
                d->in_image_data ? "truncated image data" : "truncated file");
    png_error(png, d->failure.text);
}

static void read_from_memory(png_structp png, png_bytep out, size_t count) {
    mpng_decoder *d = (mpng_decoder *)png_get_io_ptr(png);
    if (d->memory_count - d->memory_offset < count) fail_truncated(png, d);
    memcpy(out, d->memory + d->memory_offset, count);
    d->memory_offset += count;
}

static void read_from_fd(png_structp png, png_bytep out, size_t count) {
    mpng_decoder *d = (mpng_decoder *)png_get_io_ptr(png);
    while (count > 0) {
        if (d->buffer_offset == d->buffer_count) {
            ssize_t got = read(d->fd, d->buffer, IO_BUFFER_SIZE);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) {
                char text[MESSAGE_CAPACITY];
                snprintf(text, sizeof text, "read failed: %s", strerror(errno));
                failure_set(&d->failure, MPNG_IO, text);
                png_error(png, d->failure.text);
            }
            if (got == 0) fail_truncated(png, d);
            d->buffer_count = (size_t)got;
            d->buffer_offset = 0;
        }
        size_t available = d->buffer_count - d->buffer_offset;
        size_t take = available < count ? available : count;
        memcpy(out, d->buffer + d->buffer_offset, take);
        d->buffer_offset += take;
        out += take;
        count -= take;
    }
}

static mpng_decoder *decoder_create(png_rw_ptr read_function) {
    mpng_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->fd = -1;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d->failure, on_error, on_warning);
    if (d->png == NULL) { free(d); return NULL; }
    d->info = png_create_info_struct(d->png);
    if (d->info == NULL) { mpng_decoder_destroy(d); return NULL; }
    png_set_read_fn(d->png, d, read_function);
    return d;
}

mpng_decoder *mpng_decoder_create_fd(int fd) {
    mpng_decoder *d = decoder_create(read_from_fd);
    if (d == NULL) return NULL;
    d->fd = fd;
    d->buffer = malloc(IO_BUFFER_SIZE);
    if (d->buffer == NULL) { mpng_decoder_destroy(d); return NULL; }
    return d;
}

mpng_decoder *mpng_decoder_create_memory(const uint8_t *bytes, size_t count) {
    mpng_decoder *d = decoder_create(read_from_memory);
    if (d == NULL) return NULL;
    d->memory = bytes;
    d->memory_count = count;
    return d;
}

void mpng_decoder_destroy(mpng_decoder *d) {
    if (d == NULL) return;
    png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    free(d->buffer);
    free(d);
}

const char *mpng_decoder_message(const mpng_decoder *d) {
    return d->failure.text;
}

const char *mpng_decoder_warning(const mpng_decoder *d) {
    return d->failure.warning;
}

static mpng_status decoder_failed(mpng_decoder *d) {
    return d->failure.status == MPNG_OK ? MPNG_MALFORMED : d->failure.status;
}

/// The transformations to 8-bit RGBA, for every colour type and bit depth;
/// with compact, an opaque image stays 8-bit RGB (grey: 8-bit grey).
/// Returns the bytes per delivered pixel.
static int request_8bit(png_structp png, png_infop info, int opaque, int compact) {
    int color_type = png_get_color_type(png, info);
    png_set_expand(png);                 // palette -> RGB, grey < 8 -> 8, tRNS -> alpha
    png_set_scale_16(png);               // 16 -> 8 bits, rounded
    if (compact && opaque) return color_type == PNG_COLOR_TYPE_GRAY ? 1 : 3;
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
        png_set_gray_to_rgb(png);
    }
    if (opaque) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    return 4;
}

mpng_status mpng_decoder_start(mpng_decoder *d, uint64_t max_pixels, uint64_t max_width,
                               size_t max_chunk_bytes, int compact, mpng_image_info *out) {
    if (d->started) {
        failure_set(&d->failure, MPNG_USAGE, "decoder already started");
        return MPNG_USAGE;
    }
    d->started = 1;
    png_structp png = d->png;
    png_infop info = d->info;
    if (setjmp(png_jmpbuf(png))) return decoder_failed(d);

    // Keep nothing a sheet does not need: every ancillary chunk except tRNS
    // is skipped without being stored, and no chunk may allocate much.
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_chunk_malloc_max(png, max_chunk_bytes);
    png_set_chunk_cache_max(png, 32);
    png_set_benign_errors(png, 1);
    png_uint_32 side_limit = max_pixels < 0x7fffffffu ? (png_uint_32)max_pixels : 0x7fffffffu;
    png_set_user_limits(png, side_limit, side_limit);

    png_read_info(png, info);
    uint64_t width = png_get_image_width(png, info);
    uint64_t height = png_get_image_height(png, info);
    if (width * height > max_pixels) {
        char text[MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "image is %llu\u00d7%llu, over the %llu-pixel limit",
                 (unsigned long long)width, (unsigned long long)height,
                 (unsigned long long)max_pixels);
        failure_set(&d->failure, MPNG_LIMIT, text);
        return MPNG_LIMIT;
    }
    // Every buffer of a row-streaming decode (libpng's rows, ours, the
    // resampler's) grows with the width, so the width has its own cap.
    if (width > max_width) {
        char text[MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "image is %llu px wide, over the %llu-pixel width limit",
                 (unsigned long long)width, (unsigned long long)max_width);
        failure_set(&d->failure, MPNG_LIMIT, text);
        return MPNG_LIMIT;
    }
    int bit_depth = png_get_bit_depth(png, info);
    int color_type = png_get_color_type(png, info);
    // Read before png_read_update_info, which may fold tRNS into the expanded alpha.
    int has_transparency = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS) != 0;

    // A header can claim far more image data than the file could ever hold:
    // a 60-byte file saying 2147483647x2 made png_read_update_info allocate
    // and memset two 8 GiB row buffers (seconds and gigabytes before the
    // first byte of image data was read). Deflate cannot expand more than
    // 1032:1 (a 258-byte match costs at least 2 bits), and every image row,
    // interlaced or not, is at least ceil(width * bits per pixel / 8) bytes
    // before compression, so such a file is certainly truncated: say so
    // before anything is allocated for it.
    uint64_t source_size = d->memory_count;
    if (d->fd >= 0) {
        struct stat status;
        source_size = fstat(d->fd, &status) == 0 && status.st_size > 0 ? (uint64_t)status.st_size : 0;
    }
    uint64_t row_bytes = (width * (uint64_t)bit_depth * png_get_channels(png, info) + 7) / 8;
    uint64_t most_inflated = source_size * 1032 + 1024;
    if (row_bytes > 0 && height > most_inflated / row_bytes) {
        char text[MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "truncated image data (a %llu\u00d7%llu image cannot fit in %llu bytes)",
                 (unsigned long long)width, (unsigned long long)height, (unsigned long long)source_size);
        failure_set(&d->failure, MPNG_MALFORMED, text);
        return MPNG_MALFORMED;
    }

    int channels = request_8bit(png, info, !has_transparency, compact);
    int interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    if (interlaced) png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != width * (uint64_t)channels) {
        failure_set(&d->failure, MPNG_USAGE, "unexpected row size after transformations");
        return MPNG_USAGE;
    }
    out->width = (uint32_t)width;
    out->height = (uint32_t)height;
    out->bit_depth = bit_depth;
    out->color_type = color_type;
    out->interlaced = interlaced;
    out->has_transparency = has_transparency;
    out->channels = channels;
    d->in_image_data = 1;
    return MPNG_OK;
}

mpng_status mpng_decoder_read_row(mpng_decoder *d, uint8_t *row) {
    if (setjmp(png_jmpbuf(d->png))) return decoder_failed(d);
    png_read_row(d->png, row, NULL);
    return MPNG_OK;
}

mpng_status mpng_decoder_read_image(mpng_decoder *d, uint8_t **rows) {
    if (setjmp(png_jmpbuf(d->png))) return decoder_failed(d);
    png_read_image(d->png, rows);
    return MPNG_OK;
}

mpng_status mpng_decoder_finish(mpng_decoder *d) {
    d->in_image_data = 0;
    if (setjmp(png_jmpbuf(d->png))) return decoder_failed(d);
    png_read_end(d->png, NULL);
    return MPNG_OK;
}

// ---------------------------------------------------------------------------
// Encoder

struct mpng_encoder {
    failure failure;
    png_structp png;
    png_infop info;
    int fd;              // -1: collect in memory
    uint8_t *bytes;      // output buffer (fd: pending bytes; memory: everything)
    size_t count;
    size_t capacity;
};

static int flush_to_fd(mpng_encoder *e) {
    size_t done = 0;
    while (done < e->count) {
        ssize_t wrote = write(e->fd, e->bytes + done, e->count - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            char text[MESSAGE_CAPACITY];
            snprintf(text, sizeof text, "write failed: %s",
                     wrote < 0 ? strerror(errno) : "no progress");
            failure_set(&e->failure, MPNG_IO, text);
            return 0;
        }
        done += (size_t)wrote;
    }
    e->count = 0;
    return 1;
}

static void write_bytes(png_structp png, png_bytep data, size_t length) {
    mpng_encoder *e = (mpng_encoder *)png_get_io_ptr(png);
    if (e->fd >= 0 && e->count + length > e->capacity) {
        if (!flush_to_fd(e)) png_error(png, e->failure.text);
    }
    if (e->count + length > e->capacity) {
        size_t capacity = e->capacity;
        while (capacity < e->count + length) capacity *= 2;
        uint8_t *grown = realloc(e->bytes, capacity);
        if (grown == NULL) {
            failure_set(&e->failure, MPNG_NO_MEMORY, "out of memory");
            png_error(png, e->failure.text);
        }
        e->bytes = grown;
        e->capacity = capacity;
    }
    memcpy(e->bytes + e->count, data, length);
    e->count += length;
}

static void flush_bytes(png_structp png) {
    mpng_encoder *e = (mpng_encoder *)png_get_io_ptr(png);
    if (e->fd >= 0 && !flush_to_fd(e)) png_error(png, e->failure.text);
}

static mpng_encoder *encoder_create(int fd) {
    mpng_encoder *e = calloc(1, sizeof *e);
    if (e == NULL) return NULL;
    e->fd = fd;
    e->capacity = IO_BUFFER_SIZE * 4;
    e->bytes = malloc(e->capacity);
    e->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &e->failure, on_error, on_warning);
    if (e->bytes == NULL || e->png == NULL) { mpng_encoder_destroy(e); return NULL; }
    e->info = png_create_info_struct(e->png);
    if (e->info == NULL) { mpng_encoder_destroy(e); return NULL; }
    png_set_write_fn(e->png, e, write_bytes, flush_bytes);
    return e;
}

mpng_encoder *mpng_encoder_create_fd(int fd) { return encoder_create(fd); }

mpng_encoder *mpng_encoder_create_memory(void) { return encoder_create(-1); }

void mpng_encoder_destroy(mpng_encoder *e) {
    if (e == NULL) return;
    if (e->png != NULL) png_destroy_write_struct(&e->png, e->info ? &e->info : NULL);
    free(e->bytes);
    free(e);
}

const char *mpng_encoder_message(const mpng_encoder *e) { return e->failure.text; }

static mpng_status encoder_failed(mpng_encoder *e) {
    return e->failure.status == MPNG_OK ? MPNG_USAGE : e->failure.status;
}

static int png_filter_flags(mpng_filter filter) {
    switch (filter) {
    case MPNG_FILTER_NONE: return PNG_FILTER_NONE;
    case MPNG_FILTER_SUB: return PNG_FILTER_SUB;
    case MPNG_FILTER_UP: return PNG_FILTER_UP;
    case MPNG_FILTER_AVERAGE: return PNG_FILTER_AVG;
    case MPNG_FILTER_PAETH: return PNG_FILTER_PAETH;
    case MPNG_FILTER_ADAPTIVE: return PNG_ALL_FILTERS;
    }
    return PNG_FILTER_UP;
}

mpng_status mpng_encoder_start(mpng_encoder *e, uint32_t width, uint32_t height, int channels,
                               int level, int strategy, mpng_filter filter) {
    png_structp png = e->png;
    if (setjmp(png_jmpbuf(png))) return encoder_failed(e);
    int color_type = channels == 4 ? PNG_COLOR_TYPE_RGBA : channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY;
    png_set_IHDR(png, e->info, width, height, 8, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_set_compression_strategy(png, strategy);
    png_set_compression_buffer_size(png, 1 << 17);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, png_filter_flags(filter));
    png_write_info(png, e->info);
    return MPNG_OK;
}

mpng_status mpng_encoder_write_row(mpng_encoder *e, const uint8_t *row) {
    if (setjmp(png_jmpbuf(e->png))) return encoder_failed(e);
    png_write_row(e->png, (png_const_bytep)row);
    return MPNG_OK;
}

mpng_status mpng_encoder_finish(mpng_encoder *e) {
    if (setjmp(png_jmpbuf(e->png))) return encoder_failed(e);
    png_write_end(e->png, NULL);
    if (e->fd >= 0 && !flush_to_fd(e)) return e->failure.status;
    return MPNG_OK;
}

const uint8_t *mpng_encoder_memory(const mpng_encoder *e, size_t *count) {
    *count = e->count;
    return e->bytes;
}
