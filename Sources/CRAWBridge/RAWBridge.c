// The only code in Masonry that calls LibRaw (see RAWBridge.h for why a memory buffer).
//
// LibRaw is loaded on the first RAW file (libraw_functions.h); a machine without it gets a
// one-line reason per RAW file.
#include "RAWBridge.h"

#include <errno.h>
#include <stdbool.h>
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
    bool sized;                           // mraw_decoder_shown_size ran: no demosaic now
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

/// LibRaw's get4 at `at`: four bytes in the given order, each 0xFF past the end (its buffer
/// stream reads nothing there, and get4 starts from 0xFF bytes).
static uint32_t libraw_get4(const uint8_t *bytes, size_t size, uint64_t at, bool little) {
    uint8_t b[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    for (uint64_t k = 0; k < 4 && at + k < size; k++) b[k] = bytes[at + k];
    return little ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
                  : (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/// LibRaw's get2 at `at`, as libraw_get4 reads.
static uint32_t libraw_get2(const uint8_t *bytes, size_t size, uint64_t at, bool little) {
    uint32_t word = libraw_get4(bytes, size, at, little);
    return little ? word & 0xFFFF : word >> 16;
}

/// Where `magic` (4 bytes) first starts in the first `count` bytes, or `count`.
static size_t first_of(const uint8_t *bytes, size_t count, const char *magic) {
    for (size_t at = 0; at + 4 <= count; at++) {
        if (memcmp(bytes + at, magic, 4) == 0) return at;
    }
    return count;
}

/// Whether LibRaw 0.20's Phase One parser (parse_phase_one, which identify runs on any file with
/// "MMMM" or "IIII" in its first 32 bytes) ends soon on these bytes. After its first directory
/// (at most 8192 entries) it walks the metadata directory (tag 0x110's offset, else 0) with a
/// count it never checks: a directory past the end of the file reads as 2^32 - 1 entries, over
/// five minutes of seeks. False when that count is more than the entries the rest of the file
/// holds; the reads below are LibRaw's, in its order.
static bool phase_one_metadata_fits(const uint8_t *bytes, size_t size) {
    size_t head = size < 32 ? size : 32;
    size_t base = first_of(bytes, head, "MMMM");
    if (base == head) base = first_of(bytes, head, "IIII");
    if (base == head) return true;   // no Phase One magic: LibRaw does not run the parser
    bool little = bytes[base] == 'I';
    if (libraw_get4(bytes, size, base + 4, little) >> 8 != 0x526177) return true;   // not "Raw": it returns
    uint32_t offset = libraw_get4(bytes, size, base + 8, little);
    if (offset == 0xbad0bad) return true;
    uint32_t at = offset + (uint32_t)base;   // LibRaw's unsigned sum
    uint32_t entries = libraw_get4(bytes, size, at, little);
    if (entries > 8192) return true;          // LibRaw returns before either walk
    uint64_t meta = 0;
    for (uint64_t entry = at + 8; entries > 0; entries--, entry += 16) {
        // Tag 0x110: the metadata's offset from base, as LibRaw's unsigned sum.
        if (libraw_get4(bytes, size, entry, little) == 0x110) meta = libraw_get4(bytes, size, entry + 12, little) + (uint32_t)base;
    }
    bool metaLittle = meta + 2 <= size && bytes[meta] == 'I' && bytes[meta + 1] == 'I';
    uint64_t directory = meta + libraw_get4(bytes, size, meta + 8, metaLittle);
    uint64_t count = libraw_get4(bytes, size, directory, metaLittle);
    uint64_t room = directory + 8 <= size ? (size - directory - 8) / 12 : 0;
    return count <= room;
}

/// Whether LibRaw 0.20's TIFF directory parser reads its CFA pattern safely from these bytes. A
/// CFAPattern (33422) or Kodak P-series (64777) entry of 36 values, met while LibRaw's `filters`
/// is not yet X-Trans (9), goes to `FORC(36) xtrans[0][c] = ...`, which indexes past the 6-byte
/// row: Debian's -O2 build drops the loop's bound and writes over the LibRaw object until it
/// crashes. A real X-Trans file sets `filters` first with CFARepeatPatternDim (33421) of 6 × 6,
/// the entry just before. Every 12 bytes that read as such an entry, in either byte order,
/// anywhere in the file (LibRaw may take a directory from any offset), must follow a 6 × 6
/// repeat entry; found by memchr on the count's byte 36.
static bool cfa_pattern_is_safe(const uint8_t *bytes, size_t size) {
    size_t at = 0;
    const uint8_t *hit;
    while (at < size && (hit = memchr(bytes + at, 36, size - at)) != NULL) {
        at = (size_t)(hit - bytes);
        for (int little = 0; little <= 1; little++) {
            // The count's byte 36 is its first byte (little-endian) or its last (big-endian).
            size_t back = little ? 4 : 7;
            if (at < back || libraw_get4(bytes, size, at - back + 4, little) != 36) continue;
            size_t entry = at - back;
            uint32_t tag = libraw_get2(bytes, size, entry, little);
            if (tag != 33422 && tag != 64777) continue;
            // Two SHORTs of 6 read the same in either order.
            bool after_repeat = tag == 33422 && entry >= 12 && libraw_get2(bytes, size, entry - 12, little) == 33421
                && libraw_get4(bytes, size, entry - 12 + 8, little) == 0x00060006u;
            if (!after_repeat) return false;
        }
        at++;
    }
    return true;
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
    if (!phase_one_metadata_fits(d->bytes, size)) {
        mb_message_set(&d->message, "malformed Phase One metadata (its directory claims more entries than the file holds)");
        return MB_MALFORMED;
    }
    if (!cfa_pattern_is_safe(d->bytes, size)) {
        mb_message_set(&d->message, "malformed RAW file: a 36-value CFA pattern without a 6×6 repeat before it (LibRaw 0.20 would write past its pattern table)");
        return MB_MALFORMED;
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

mb_status mraw_decoder_shown_size(mraw_decoder *d, uint32_t *width, uint32_t *height) {
    if (d->bytes == NULL || d->image != NULL || d->sized) return MB_USAGE;
    d->sized = true;
    int code = libraw_adjust_sizes_info_only(d->raw);
    if (code != LIBRAW_SUCCESS) return failed(d, code);
    uint32_t shown_width = d->raw->sizes.iwidth, shown_height = d->raw->sizes.iheight;
    if (d->raw->sizes.flip & 4) {   // LibRaw swapped them for its flip, which Masonry applies itself
        uint32_t swap = shown_width;
        shown_width = shown_height;
        shown_height = swap;
    }
    if (shown_width == 0 || shown_height == 0) {
        mb_message_set(&d->message, "RAW file has no picture LibRaw can make");
        return MB_UNSUPPORTED;
    }
    *width = shown_width;
    *height = shown_height;
    return MB_OK;
}

mb_status mraw_decoder_demosaic(mraw_decoder *d, int half_size, uint32_t *width, uint32_t *height) {
    if (d->bytes == NULL || d->image != NULL || d->sized) return MB_USAGE;
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
