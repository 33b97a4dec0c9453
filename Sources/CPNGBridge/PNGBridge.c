// See PNGBridge.h: every libpng call of Masonry, each behind its own setjmp.

#include "PNGBridge.h"
#include "bridge_support.h"

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { IO_BUFFER_SIZE = 1 << 16 };

// ---------------------------------------------------------------------------
// Failures

typedef struct {
    mpng_failure error;     // status set before png_error when the cause is known
    // The first CRC warning: libpng drops an ancillary chunk with a bad CRC
    // and goes on, which is right for the picture, but the file is damaged
    // and the user should hear about it (see mpng_decoder_warning).
    mpng_failure warning;
    mpng_status unclassified;   // what a libpng message none of `mpng_classify`'s rules know means
} failure;

static void failure_set(mpng_failure *f, mpng_status status) {
    memset(f, 0, sizeof *f);
    f->status = status;
}

static void failure_set_detail(mpng_failure *f, mpng_status status, const char *detail) {
    failure_set(f, status);
    snprintf(f->detail, sizeof f->detail, "%s", detail);
}

static int contains(const char *haystack, const char *needle) {
    return strstr(haystack, needle) != NULL;
}

static int is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

/// The chunk name libpng puts before a colon, as in "IHDR: CRC error"; "" when none.
static void copy_chunk_name(const char *message, char name[5]) {
    name[0] = '\0';
    for (int i = 0; i < 4; i++) if (!is_letter(message[i])) return;
    if (message[4] != ':') return;
    memcpy(name, message, 4);
    name[4] = '\0';
}

void mpng_classify(const char *message, mpng_status unclassified, mpng_failure *f) {
    static const struct { const char *fragment; mpng_status status; } known[] = {
        {"Not a PNG file", MPNG_NOT_PNG},
        {"PNG file corrupted by ASCII conversion", MPNG_TEXT_MODE_TRANSFER},
        {"CRC error", MPNG_BAD_CRC},
        {"bad adaptive filter value", MPNG_BAD_FILTER},
        {"Not enough image data", MPNG_TRUNCATED_IMAGE_DATA},
        {"issing IHDR", MPNG_MISSING_IHDR},   // "Missing IHDR before IDAT", "PLTE: missing IHDR"
        {"Invalid IHDR data", MPNG_INVALID_IHDR},
        {"IEND: out of place", MPNG_NO_IMAGE_DATA},
        {"Missing PLTE", MPNG_MISSING_PALETTE},
        {"out of place", MPNG_CHUNK_OUT_OF_PLACE},
        {"duplicate", MPNG_DUPLICATE_CHUNK},
    };
    if (contains(message, "limit") || contains(message, "too large") || contains(message, "exceeds")) {
        failure_set_detail(f, MPNG_CHUNK_LIMIT, message);
        return;
    }
    if (contains(message, "memory") || contains(message, "Out of")) {
        failure_set(f, MPNG_OUT_OF_MEMORY);
        return;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (contains(message, known[i].fragment)) {
            failure_set(f, known[i].status);
            copy_chunk_name(message, f->chunk);
            return;
        }
    }
    if (strncmp(message, "IDAT:", 5) == 0 || strncmp(message, "IDAT ", 5) == 0) {
        const char *detail = message + 5;
        while (*detail == ' ') detail++;
        failure_set_detail(f, MPNG_CORRUPT_IMAGE_DATA, detail);
        return;
    }
    failure_set_detail(f, unclassified, message);
}

/// libpng's error handler: classify the message unless the bridge already
/// said why, jump back to the setjmp of the current bridge call.
static void on_error(png_structp png, png_const_charp message) {
    failure *f = (failure *)png_get_error_ptr(png);
    if (f->error.status == MPNG_OK) mpng_classify(message, f->unclassified, &f->error);
    png_longjmp(png, 1);
}

/// Warnings are not errors and are never printed; the first CRC warning is
/// kept so the caller can report the damaged chunk.
static void on_warning(png_structp png, png_const_charp message) {
    failure *f = (failure *)png_get_error_ptr(png);
    if (f == NULL || f->warning.status != MPNG_OK) return;
    mpng_failure warning;
    mpng_classify(message, MPNG_OTHER_FORMAT_ERROR, &warning);
    if (warning.status == MPNG_BAD_CRC) f->warning = warning;
}

/// Records a failure the bridge itself found and hands control back to libpng's
/// error path (the message is only for libpng; on_error keeps the status).
static void fail(png_structp png, failure *f, mpng_status status) {
    failure_set(&f->error, status);
    png_error(png, "masonry");
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
    int64_t file_offset;   // where the next buffer is read (positioned reads: the descriptor's offset is never used)
    uint8_t *buffer;
    size_t buffer_count;
    size_t buffer_offset;
    int in_image_data;   // truncation there is reported as "truncated image data"
    int started;
};

static void fail_truncated(png_structp png, mpng_decoder *d) {
    fail(png, &d->failure, d->in_image_data ? MPNG_TRUNCATED_IMAGE_DATA : MPNG_TRUNCATED_FILE);
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
            ssize_t got = mb_pread_full(d->fd, d->buffer, IO_BUFFER_SIZE, d->file_offset);
            if (got < 0) {
                int error_number = errno;
                failure_set(&d->failure.error, MPNG_READ_FAILED);
                d->failure.error.error_number = error_number;
                png_error(png, "masonry");
            }
            if (got == 0) fail_truncated(png, d);
            d->file_offset += got;
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
    d->failure.unclassified = MPNG_OTHER_FORMAT_ERROR;
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

const mpng_failure *mpng_decoder_failure(const mpng_decoder *d) {
    return &d->failure.error;
}

const mpng_failure *mpng_decoder_warning(const mpng_decoder *d) {
    return &d->failure.warning;
}

/// The status after a longjmp: on_error or the bridge always set one.
static mpng_status failed(failure *f) {
    if (f->error.status == MPNG_OK) failure_set_detail(&f->error, f->unclassified, "unknown error");
    return f->error.status;
}

/// Records a refusal of an image of width x height measured against `limit`.
static mpng_status refuse(mpng_decoder *d, mpng_status status, uint64_t width, uint64_t height, uint64_t limit) {
    failure_set(&d->failure.error, status);
    d->failure.error.width = width;
    d->failure.error.height = height;
    d->failure.error.limit = limit;
    return status;
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
        failure_set_detail(&d->failure.error, MPNG_MISUSE, "decoder already started");
        return MPNG_MISUSE;
    }
    d->started = 1;
    png_structp png = d->png;
    png_infop info = d->info;
    if (setjmp(png_jmpbuf(png))) return failed(&d->failure);

    // Keep nothing a sheet does not need: every ancillary chunk except tRNS
    // is skipped without being stored, and no chunk may allocate much.
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_chunk_malloc_max(png, max_chunk_bytes);
    png_set_chunk_cache_max(png, 32);
    png_set_benign_errors(png, 1);
    // libpng's own side limits would only call a wide image an "Invalid IHDR";
    // the checks below refuse it with its size and the limit.
    png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);

    png_read_info(png, info);
    uint64_t width = png_get_image_width(png, info);
    uint64_t height = png_get_image_height(png, info);
    if (width * height > max_pixels) return refuse(d, MPNG_PIXEL_LIMIT, width, height, max_pixels);
    // Every buffer of a row-streaming decode (libpng's rows, ours, the
    // resampler's) grows with the width, so the width has its own cap.
    if (width > max_width) return refuse(d, MPNG_WIDTH_LIMIT, width, height, max_width);
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
        return refuse(d, MPNG_IMAGE_DATA_CANNOT_FIT, width, height, source_size);
    }

    int channels = request_8bit(png, info, !has_transparency, compact);
    int interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    if (interlaced) png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != width * (uint64_t)channels) {
        failure_set_detail(&d->failure.error, MPNG_MISUSE, "unexpected row size after transformations");
        return MPNG_MISUSE;
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
    if (setjmp(png_jmpbuf(d->png))) return failed(&d->failure);
    png_read_row(d->png, row, NULL);
    return MPNG_OK;
}

mpng_status mpng_decoder_read_image(mpng_decoder *d, uint8_t **rows) {
    if (setjmp(png_jmpbuf(d->png))) return failed(&d->failure);
    png_read_image(d->png, rows);
    return MPNG_OK;
}

mpng_status mpng_decoder_finish(mpng_decoder *d) {
    d->in_image_data = 0;
    if (setjmp(png_jmpbuf(d->png))) return failed(&d->failure);
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
    int srgb;            // write an sRGB chunk (mpng_encoder_set_srgb)
};

static int flush_to_fd(mpng_encoder *e) {
    size_t done = 0;
    while (done < e->count) {
        ssize_t wrote = write(e->fd, e->bytes + done, e->count - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            int error_number = wrote < 0 ? errno : 0;
            failure_set(&e->failure.error, MPNG_WRITE_FAILED);
            e->failure.error.error_number = error_number;
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
        if (!flush_to_fd(e)) png_error(png, "masonry");
    }
    if (e->count + length > e->capacity) {
        size_t capacity = e->capacity;
        while (capacity < e->count + length) capacity *= 2;
        uint8_t *grown = realloc(e->bytes, capacity);
        if (grown == NULL) fail(png, &e->failure, MPNG_OUT_OF_MEMORY);
        e->bytes = grown;
        e->capacity = capacity;
    }
    memcpy(e->bytes + e->count, data, length);
    e->count += length;
}

static void flush_bytes(png_structp png) {
    mpng_encoder *e = (mpng_encoder *)png_get_io_ptr(png);
    if (e->fd >= 0 && !flush_to_fd(e)) png_error(png, "masonry");
}

static mpng_encoder *encoder_create(int fd) {
    mpng_encoder *e = calloc(1, sizeof *e);
    if (e == NULL) return NULL;
    e->fd = fd;
    e->failure.unclassified = MPNG_MISUSE;   // libpng refusing what it is asked to write
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

const mpng_failure *mpng_encoder_failure(const mpng_encoder *e) { return &e->failure.error; }

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
    if (setjmp(png_jmpbuf(png))) return failed(&e->failure);
    int color_type = channels == 4 ? PNG_COLOR_TYPE_RGBA : channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY;
    png_set_IHDR(png, e->info, width, height, 8, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_set_compression_strategy(png, strategy);
    png_set_compression_buffer_size(png, 1 << 17);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, png_filter_flags(filter));
    if (e->srgb) png_set_sRGB(png, e->info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, e->info);
    return MPNG_OK;
}

void mpng_encoder_set_srgb(mpng_encoder *e) { e->srgb = 1; }

mpng_status mpng_encoder_write_row(mpng_encoder *e, const uint8_t *row) {
    if (setjmp(png_jmpbuf(e->png))) return failed(&e->failure);
    png_write_row(e->png, (png_const_bytep)row);
    return MPNG_OK;
}

mpng_status mpng_encoder_finish(mpng_encoder *e) {
    if (setjmp(png_jmpbuf(e->png))) return failed(&e->failure);
    png_write_end(e->png, NULL);
    if (e->fd >= 0 && !flush_to_fd(e)) return e->failure.error.status;
    return MPNG_OK;
}

const uint8_t *mpng_encoder_memory(const mpng_encoder *e, size_t *count) {
    *count = e->count;
    return e->bytes;
}

const char *mpng_library_version(void) { return png_get_libpng_ver(NULL); }
