// See JPEGBridge.h: every libjpeg call of Masonry, each behind its own setjmp.

#include "JPEGBridge.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jpeglib.h>
#include <jerror.h>

enum {
    MESSAGE_CAPACITY = 200,
    IO_BUFFER_SIZE = 1 << 16,
    // A progressive file re-reads every coefficient in each scan; a small file
    // with thousands of scans would cost minutes. libjpeg-turbo's djpeg offers
    // the same guard (-maxscans).
    MAX_SCANS = 1000,
};

// ---------------------------------------------------------------------------
// Errors and messages

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    mb_status status;   // set before ERREXIT when the cause is known (I/O)
    char text[MESSAGE_CAPACITY];
    char warning[MESSAGE_CAPACITY];
} failure;

/// libjpeg's fatal error handler: keep the text, classify it, jump back to the
/// setjmp of the current bridge call. Never returns.
static void on_error_exit(j_common_ptr cinfo) {
    failure *f = (failure *)cinfo->err;
    if (f->status == MB_OK) {
        int code = f->pub.msg_code;
        f->status = (code == JERR_NO_BACKING_STORE || code == JERR_OUT_OF_MEMORY
                     || code == JERR_IMAGE_TOO_BIG || code == JERR_WIDTH_OVERFLOW)
            ? MB_LIMIT : MB_MALFORMED;
        f->pub.format_message(cinfo, f->text);
    }
    longjmp(f->jump, 1);
}

/// Warnings (level -1) are kept, the first one only; trace messages are dropped.
/// Nothing is ever printed.
static void on_emit_message(j_common_ptr cinfo, int level) {
    failure *f = (failure *)cinfo->err;
    if (level >= 0) return;
    f->pub.num_warnings++;
    if (f->warning[0] == '\0') f->pub.format_message(cinfo, f->warning);
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void failure_init(failure *f) {
    memset(f, 0, sizeof *f);
    jpeg_std_error(&f->pub);
    f->pub.error_exit = on_error_exit;
    f->pub.emit_message = on_emit_message;
    f->pub.output_message = on_output_message;
}

// ---------------------------------------------------------------------------
// Decoder

struct mjpg_decoder {
    struct jpeg_decompress_struct cinfo;   // first: the source manager finds the decoder from it
    failure failure;
    struct jpeg_source_mgr source;
    struct jpeg_progress_mgr progress;
    int fd;
    off_t offset;
    off_t end;              // where the JPEG's bytes stop: the file's end, or a range's (a RAW's preview)
    uint8_t *buffer;
    uint8_t *cmyk_row;      // one CMYK output row, converted to RGB for the caller
    int stage;              // 0 created, 1 header read, 2 started, 3 finished, -1 failed
};

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }

/// Reads the next buffer with pread. At the end of the file it inserts an EOI
/// marker and warns, as libjpeg's own sources do: a truncated scan still gives
/// a picture (grey below the cut), with the warning as a trailing problem.
static boolean source_fill(j_decompress_ptr cinfo) {
    mjpg_decoder *d = (mjpg_decoder *)cinfo;
    size_t wanted = IO_BUFFER_SIZE;
    if (d->end >= 0) wanted = d->offset >= d->end ? 0 : (size_t)(d->end - d->offset) < wanted ? (size_t)(d->end - d->offset) : wanted;
    ssize_t got = wanted == 0 ? 0 : mb_pread_full(d->fd, d->buffer, wanted, d->offset);
    if (got < 0) {
        d->failure.status = MB_IO;
        snprintf(d->failure.text, sizeof d->failure.text, "read failed: %s", strerror(errno));
        ERREXIT(cinfo, JERR_FILE_READ);
    }
    if (got == 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        d->buffer[0] = 0xFF;
        d->buffer[1] = JPEG_EOI;
        got = 2;
    } else {
        d->offset += got;
    }
    d->source.next_input_byte = d->buffer;
    d->source.bytes_in_buffer = (size_t)got;
    return TRUE;
}

/// Skips without reading: the offset moves past whatever the buffer does not hold.
static void source_skip(j_decompress_ptr cinfo, long count) {
    mjpg_decoder *d = (mjpg_decoder *)cinfo;
    if (count <= 0) return;
    if ((size_t)count <= d->source.bytes_in_buffer) {
        d->source.next_input_byte += count;
        d->source.bytes_in_buffer -= (size_t)count;
        return;
    }
    d->offset += (off_t)(count - (long)d->source.bytes_in_buffer);
    d->source.next_input_byte = d->buffer;
    d->source.bytes_in_buffer = 0;
}

static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static void progress_check(j_common_ptr cinfo) {
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->is_decompressor && d->input_scan_number > MAX_SCANS) {
        mjpg_decoder *decoder = (mjpg_decoder *)d;
        decoder->failure.status = MB_LIMIT;
        snprintf(decoder->failure.text, sizeof decoder->failure.text,
                 "more than %d progressive scans", MAX_SCANS);
        longjmp(decoder->failure.jump, 1);
    }
}

mjpg_decoder *mjpg_decoder_create_fd(int fd, size_t memory_budget) {
    return mjpg_decoder_create_fd_range(fd, 0, -1, memory_budget);
}

mjpg_decoder *mjpg_decoder_create_fd_range(int fd, off_t start, off_t length, size_t memory_budget) {
    if (start < 0) return NULL;
    mjpg_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->buffer = malloc(IO_BUFFER_SIZE);
    if (d->buffer == NULL) { free(d); return NULL; }
    d->fd = fd;
    d->offset = start;
    d->end = length < 0 ? -1 : start + length;
    failure_init(&d->failure);
    d->cinfo.err = &d->failure.pub;
    if (setjmp(d->failure.jump)) {   // jpeg_create_decompress fails only without memory
        free(d->buffer);
        free(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);
    d->cinfo.mem->max_memory_to_use = (long)(memory_budget > 0x7fffffff ? 0x7fffffff : memory_budget);
    d->source.init_source = source_init;
    d->source.fill_input_buffer = source_fill;
    d->source.skip_input_data = source_skip;
    d->source.resync_to_restart = jpeg_resync_to_restart;
    d->source.term_source = source_term;
    d->cinfo.src = &d->source;
    d->progress.progress_monitor = progress_check;
    d->cinfo.progress = &d->progress;
    return d;
}

void mjpg_decoder_destroy(mjpg_decoder *d) {
    if (d == NULL) return;
    jpeg_destroy_decompress(&d->cinfo);   // safe after an error: it only frees
    free(d->cmyk_row);
    free(d->buffer);
    free(d);
}

const char *mjpg_decoder_message(const mjpg_decoder *d) { return d->failure.text; }

const char *mjpg_decoder_warning(const mjpg_decoder *d) { return d->failure.warning; }

static mb_status usage(mjpg_decoder *d, const char *text) {
    d->failure.status = MB_USAGE;
    snprintf(d->failure.text, sizeof d->failure.text, "%s", text);
    return MB_USAGE;
}

static mb_status failed(mjpg_decoder *d) {
    d->stage = -1;
    return d->failure.status == MB_OK ? MB_MALFORMED : d->failure.status;
}

mb_status mjpg_decoder_read_header(mjpg_decoder *d, mjpg_image_info *info) {
    if (d->stage != 0) return usage(d, "header already read");
    if (setjmp(d->failure.jump)) return failed(d);
    jpeg_read_header(&d->cinfo, TRUE);
    d->stage = 1;
    memset(info, 0, sizeof *info);
    info->width = d->cinfo.image_width;
    info->height = d->cinfo.image_height;
    info->components = d->cinfo.num_components;
    info->progressive = d->cinfo.progressive_mode ? 1 : 0;
    return MB_OK;
}

mb_status mjpg_decoder_start(mjpg_decoder *d, int scale_num, mjpg_image_info *info) {
    if (d->stage != 1) return usage(d, "start needs a header and comes once");
    if (scale_num < 1 || scale_num > 8) return usage(d, "scale must be 1...8 eighths");
    if (setjmp(d->failure.jump)) return failed(d);
    struct jpeg_decompress_struct *cinfo = &d->cinfo;
    cinfo->scale_num = (unsigned int)scale_num;
    cinfo->scale_denom = 8;
    cinfo->dct_method = JDCT_ISLOW;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo->out_color_space = JCS_GRAYSCALE;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        // libjpeg converts YCCK to CMYK; CMYK to RGB is done here, per row.
        cinfo->out_color_space = JCS_CMYK;
        break;
    default:
        cinfo->out_color_space = JCS_RGB;
        break;
    }
    jpeg_start_decompress(cinfo);
    if (cinfo->out_color_space == JCS_CMYK) {
        d->cmyk_row = malloc((size_t)cinfo->output_width * 4);
        if (d->cmyk_row == NULL) {
            d->failure.status = MB_LIMIT;
            snprintf(d->failure.text, sizeof d->failure.text, "out of memory");
            return failed(d);
        }
    }
    d->stage = 2;
    info->output_width = cinfo->output_width;
    info->output_height = cinfo->output_height;
    info->output_channels = cinfo->out_color_space == JCS_GRAYSCALE ? 1 : 3;
    return MB_OK;
}

/// x * y / 255 rounded, exactly as Pillow's MULDIV255.
static inline int multiply_255(int x, int y) {
    int t = x * y + 128;
    return ((t >> 8) + t) >> 8;
}

/// CMYK to RGB as Pillow does it. The samples are read as inverted (0 is full
/// ink), Photoshop's convention, which Pillow and most readers assume for every
/// CMYK JPEG whether or not it has an Adobe APP14 marker. Each channel is then
/// (255 - K) - colour * (255 - K) / 255, rounded as Pillow rounds.
static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, size_t width) {
    for (size_t x = 0; x < width; x++) {
        int c = 255 - cmyk[4 * x], m = 255 - cmyk[4 * x + 1], y = 255 - cmyk[4 * x + 2];
        int nk = cmyk[4 * x + 3];   // 255 - K, with K inverted
        rgb[3 * x] = (uint8_t)(nk - multiply_255(c, nk));
        rgb[3 * x + 1] = (uint8_t)(nk - multiply_255(m, nk));
        rgb[3 * x + 2] = (uint8_t)(nk - multiply_255(y, nk));
    }
}

mb_status mjpg_decoder_read_row(mjpg_decoder *d, uint8_t *row) {
    if (d->stage != 2) return usage(d, "read_row needs a started decoder");
    if (d->cinfo.output_scanline >= d->cinfo.output_height) return usage(d, "every row was already read");
    if (setjmp(d->failure.jump)) return failed(d);
    JSAMPROW target = d->cmyk_row != NULL ? d->cmyk_row : row;
    while (jpeg_read_scanlines(&d->cinfo, &target, 1) != 1) {
        // Only a suspending source returns 0 rows; this one never suspends.
    }
    if (d->cmyk_row != NULL) cmyk_to_rgb(d->cmyk_row, row, d->cinfo.output_width);
    return MB_OK;
}

mb_status mjpg_decoder_read_cmyk_row(mjpg_decoder *d, uint8_t *row) {
    if (d->stage != 2 || d->cmyk_row == NULL) return usage(d, "read_cmyk_row needs a started CMYK decoder");
    if (d->cinfo.output_scanline >= d->cinfo.output_height) return usage(d, "every row was already read");
    if (setjmp(d->failure.jump)) return failed(d);
    while (jpeg_read_scanlines(&d->cinfo, &row, 1) != 1) {
        // Only a suspending source returns 0 rows; this one never suspends.
    }
    return MB_OK;
}

mb_status mjpg_decoder_finish(mjpg_decoder *d) {
    if (d->stage != 2 || d->cinfo.output_scanline < d->cinfo.output_height) {
        return usage(d, "finish needs every row read");
    }
    if (setjmp(d->failure.jump)) return failed(d);
    jpeg_finish_decompress(&d->cinfo);
    d->stage = 3;
    return MB_OK;
}

// ---------------------------------------------------------------------------
// Encoder (the benchmark's JPEG corpus)

mb_status mjpg_encode_rgb(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                            int progressive, uint8_t **output, size_t *count, char *message) {
    struct jpeg_compress_struct cinfo;
    failure f;
    // libjpeg's memory destination writes here. On the heap, so its value is
    // still known after a longjmp (a local written after setjmp would not be).
    struct { unsigned char *bytes; unsigned long size; } *destination = calloc(1, sizeof *destination);
    if (destination == NULL) {
        snprintf(message, MESSAGE_CAPACITY, "out of memory");
        return MB_LIMIT;
    }
    failure_init(&f);
    message[0] = '\0';
    cinfo.err = &f.pub;
    if (setjmp(f.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(destination->bytes);
        free(destination);
        snprintf(message, MESSAGE_CAPACITY, "%s", f.text);
        return f.status == MB_OK ? MB_MALFORMED : f.status;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &destination->bytes, &destination->size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)cinfo.next_scanline * width * 3);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *output = destination->bytes;
    *count = destination->size;
    free(destination);
    return MB_OK;
}

int mjpg_library_version(void) { return LIBJPEG_TURBO_VERSION_NUMBER; }
