#include "TIFFBridge.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libtiff_functions.h"

struct mtiff_decoder {
    TIFF *tif;
    int fd;
    int64_t size;
    int64_t position;
    mb_message message;
    mb_message warning;

    mtiff_directory directory;
    mtiff_output output;
    int alpha;              // 0 none, 1 associated, 2 unassociated
    int cmyk;
    int planes;             // 1 contiguous, else samples_per_pixel
    int planes_read;        // 1 contiguous, else the planes drawn: the colour samples' and the alpha's
    int samples_in_plane;   // samples of one pixel in one plane's buffer
    int color_samples;      // samples before the first extra sample
    int scanline_mode;      // a contiguous strip over the budget, read with TIFFReadScanline
    int fast8;              // 8-bit unsigned contiguous samples needing no conversion but a pick
    int stored_as_output;   // fast8 with the output's samples in the output's order: rows are the band's bytes

    uint32_t band_rows;     // rows a strip or a row of tiles holds
    uint32_t band_start;    // first image row of the band held (UINT32_MAX: none)
    uint32_t next_row;
    size_t plane_row_bytes; // one row of one plane in the band buffer
    uint8_t *band;          // planes_read × band_rows × plane_row_bytes
    uint8_t *tile;          // one tile (tiled images)
    size_t tile_bytes;
    size_t tile_row_bytes;

    uint16_t *colormap[3];  // palette images: 2^bits entries each
    uint32_t colormap_size;
};

// MARK: Messages

static _Thread_local mb_message *current_message;

static void capture(mb_message *message, const char *module, const char *format, va_list arguments) {
    if (message == NULL || message->text[0] != '\0') return;
    char text[sizeof message->text];
    vsnprintf(text, sizeof text, format, arguments);
    (void)module;
    mb_message_set(message, "%s", text);
}

static int open_error_handler(TIFF *tif, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tif;
    capture(&((mtiff_decoder *)user_data)->message, module, format, arguments);
    return 1;   // handled: the global handlers are not called
}

static int open_warning_handler(TIFF *tif, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tif;
    capture(&((mtiff_decoder *)user_data)->warning, module, format, arguments);
    return 1;
}

static void global_error_handler(thandle_t client, const char *module, const char *format, va_list arguments) {
    (void)client;
    capture(current_message, module, format, arguments);
}

static void global_warning_handler(thandle_t client, const char *module, const char *format, va_list arguments) {
    (void)client;
    (void)module;
    (void)format;
    (void)arguments;
}

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
/// linear 0...65535 -> sRGB 8-bit, for floating-point samples.
static uint8_t linear_to_srgb[65536];

static void setup(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
    TIFFSetErrorHandlerExt(global_error_handler);
    TIFFSetWarningHandlerExt(global_warning_handler);
    for (int i = 0; i < 65536; i++) {
        double linear = i / 65535.0;
        double encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
        linear_to_srgb[i] = (uint8_t)lrint(encoded * 255);
    }
}

static char library_version[32];

static void read_library_version(void) {
    if (libtiff_library_load() != MB_OK) {
        snprintf(library_version, sizeof library_version, "not loaded");
        return;
    }
    // "LIBTIFF, Version 4.5.0\nCopyright ..."
    const char *text = TIFFGetVersion();
    const char *at = text ? strstr(text, "Version ") : NULL;
    size_t n = 0;
    if (at) {
        at += 8;
        while (at[n] && at[n] != '\n' && n < sizeof library_version - 1) n++;
        memcpy(library_version, at, n);
    }
    library_version[n] = '\0';
}

const char *mtiff_library_version(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_library_version);
    return library_version;
}

// MARK: Client I/O: positioned reads of Masonry's descriptor

static tmsize_t client_read(thandle_t handle, void *buffer, tmsize_t count) {
    mtiff_decoder *d = handle;
    if (count <= 0) return 0;
    ssize_t got = mb_pread_full(d->fd, buffer, (size_t)count, d->position);
    if (got < 0) {
        if (d->message.error_number == 0) d->message.error_number = errno;
        mb_message_set(&d->message, "read failed: %s", strerror(errno));
        return -1;
    }
    d->position += got;
    return got;
}

static tmsize_t client_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle;
    (void)buffer;
    (void)count;
    return -1;
}

static toff_t client_seek(thandle_t handle, toff_t offset, int whence) {
    mtiff_decoder *d = handle;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? d->position : d->size;
    if (offset > (toff_t)INT64_MAX - (toff_t)(base < 0 ? 0 : base)) return (toff_t)-1;
    int64_t target = base + (int64_t)offset;
    if (target < 0) return (toff_t)-1;
    d->position = target;
    return (toff_t)target;
}

static int client_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t client_size(thandle_t handle) {
    return (toff_t)((mtiff_decoder *)handle)->size;
}

static int client_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0;
}

static void client_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

// MARK: Opening

static mb_status failure(mtiff_decoder *d, mb_status status, const char *fallback) {
    if (d->message.error_number != 0) return MB_IO;
    mb_message_set(&d->message, "%s", fallback);
    return status;
}

mb_status mtiff_open(int fd, int64_t size, uint64_t ifd_offset, int64_t max_allocation,
                     mtiff_decoder **decoder, mtiff_directory *directory, mb_message *message) {
    *decoder = NULL;
    if (libtiff_library_load() != MB_OK) {
        mb_message_set(message, "%s", libtiff_library.failure.text);
        return MB_UNSUPPORTED;
    }
    pthread_once(&setup_once, setup);
    mtiff_decoder *d = calloc(1, sizeof *d);
    if (!d) {
        mb_message_set(message, "out of memory");
        return MB_LIMIT;
    }
    d->fd = fd;
    d->size = size;
    d->band_start = UINT32_MAX;
    current_message = &d->message;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) {
        free(d);
        mb_message_set(message, "out of memory");
        return MB_LIMIT;
    }
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_allocation);
    TIFFOpenOptionsSetErrorHandlerExtR(options, open_error_handler, d);
    TIFFOpenOptionsSetWarningHandlerExtR(options, open_warning_handler, d);
    // "r": read; "m": no memory mapping; "h": read the header only (the first directory is
    // read below, or the one asked for).
    d->tif = TIFFClientOpenExt("masonry-input", "rm", (thandle_t)d, client_read, client_write, client_seek,
                               client_close, client_size, client_map, client_unmap, options);
    TIFFOpenOptionsFree(options);
    mb_status status = MB_OK;
    if (!d->tif) {
        status = failure(d, MB_MALFORMED, "libtiff could not open the file");
    } else if (ifd_offset != 0 && TIFFCurrentDirOffset(d->tif) != ifd_offset && !TIFFSetSubDirectory(d->tif, ifd_offset)) {
        status = failure(d, MB_MALFORMED, "libtiff could not read the image directory");
    }
    if (status == MB_OK) {
        TIFF *tif = d->tif;
        mtiff_directory *info = &d->directory;
        uint32_t value32 = 0;
        uint16_t value16 = 0;
        TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &value32); info->width = value32;
        value32 = 0;
        TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &value32); info->height = value32;
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &value16); info->samples_per_pixel = value16;
        TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &value16); info->bits_per_sample = value16;
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &value16); info->sample_format = value16;
        if (TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &value16)) {
            info->photometric = value16;
        } else {
            // No tag: the header walk's guess (libtiff's and Pillow's), RGB for three colour
            // samples or more, else min-is-black; set, so that libtiff's sizes follow it.
            uint16_t extra_count = 0, *extra = NULL;
            TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
            info->photometric = info->samples_per_pixel - extra_count >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
            TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, info->photometric);
        }
        TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &value16); info->planar_configuration = value16;
        TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &value16); info->compression = value16;
        if (TIFFIsTiled(tif)) {
            TIFFGetField(tif, TIFFTAG_TILEWIDTH, &info->tile_width);
            TIFFGetField(tif, TIFFTAG_TILELENGTH, &info->tile_height);
        }
        if (!TIFFIsCODECConfigured(info->compression)) {
            mb_message_set(&d->message, "TIFF compression %u is not supported by this libtiff", info->compression);
            status = MB_UNSUPPORTED;
        } else {
            *directory = *info;
        }
    }
    current_message = NULL;
    if (status != MB_OK) {
        *message = d->message;
        mtiff_destroy(d);
        return status;
    }
    *decoder = d;
    return MB_OK;
}

void mtiff_destroy(mtiff_decoder *d) {
    if (!d) return;
    if (d->tif) TIFFClose(d->tif);
    free(d->band);
    free(d->tile);
    free(d->colormap[0]);
    free(d->colormap[1]);
    free(d->colormap[2]);
    free(d);
}

const mb_message *mtiff_message(const mtiff_decoder *d) {
    return &d->message;
}

// MARK: Starting

mb_status mtiff_start(mtiff_decoder *d, mtiff_output output, int alpha, int cmyk, size_t max_band_bytes) {
    TIFF *tif = d->tif;
    const mtiff_directory *info = &d->directory;
    current_message = &d->message;
    mb_status status = MB_OK;
    d->output = output;
    d->alpha = alpha;
    d->cmyk = cmyk;
    if (info->compression == COMPRESSION_JPEG && info->photometric == PHOTOMETRIC_YCBCR) {
        // libjpeg converts YCbCr to RGB, upsampling the chroma: the rows are RGB.
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    }
    d->planes = info->planar_configuration == PLANARCONFIG_SEPARATE ? info->samples_per_pixel : 1;
    d->samples_in_plane = d->planes == 1 ? info->samples_per_pixel : 1;
    uint16_t extra_count = 0, *extra = NULL;
    TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
    d->color_samples = info->samples_per_pixel - extra_count;
    if (d->color_samples < 1) d->color_samples = 1;
    // Another extra sample is never drawn: its plane is not decoded (it may even be empty).
    d->planes_read = d->planes == 1 ? 1 : d->color_samples + (alpha ? 1 : 0);
    if (d->planes_read > d->planes) d->planes_read = d->planes;
    if (info->photometric == PHOTOMETRIC_PALETTE) {
        uint16_t *red = NULL, *green = NULL, *blue = NULL;
        if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &red, &green, &blue) || !red || !green || !blue) {
            current_message = NULL;
            return failure(d, MB_MALFORMED, "TIFF palette image has no colour map");
        }
        d->colormap_size = 1u << info->bits_per_sample;
        for (int c = 0; c < 3; c++) {
            d->colormap[c] = malloc(d->colormap_size * sizeof(uint16_t));
            if (!d->colormap[c]) {
                current_message = NULL;
                return failure(d, MB_LIMIT, "out of memory");
            }
        }
        memcpy(d->colormap[0], red, d->colormap_size * sizeof(uint16_t));
        memcpy(d->colormap[1], green, d->colormap_size * sizeof(uint16_t));
        memcpy(d->colormap[2], blue, d->colormap_size * sizeof(uint16_t));
    }
    int minIsWhite = info->photometric == PHOTOMETRIC_MINISWHITE;
    d->fast8 = info->bits_per_sample == 8 && info->sample_format == SAMPLEFORMAT_UINT && d->planes == 1
        && !minIsWhite && info->photometric != PHOTOMETRIC_PALETTE && !cmyk && alpha != 1;
    const int channels = output == MTIFF_GREY8 ? 1 : output == MTIFF_RGB8 ? 3 : 4;
    d->stored_as_output = d->fast8 && info->samples_per_pixel == channels && (channels == 1 || d->color_samples == 3);

    uint64_t row_bytes = TIFFScanlineSize64(tif);
    if (TIFFIsTiled(tif)) {
        d->band_rows = info->tile_height;
        d->tile_row_bytes = (size_t)TIFFTileRowSize64(tif);
        d->tile_bytes = (size_t)TIFFTileSize64(tif);
        uint64_t across = (info->width + info->tile_width - 1) / info->tile_width;
        d->plane_row_bytes = (size_t)(across * d->tile_row_bytes);
    } else {
        uint32_t rows_per_strip = info->height;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
        if (rows_per_strip == 0 || rows_per_strip > info->height) rows_per_strip = info->height;
        d->band_rows = rows_per_strip;
        d->plane_row_bytes = (size_t)row_bytes;
    }
    if (d->plane_row_bytes == 0) {
        current_message = NULL;
        return failure(d, MB_MALFORMED, "libtiff gives no scanline size");
    }
    double band_bytes = (double)d->planes_read * d->band_rows * d->plane_row_bytes + (double)d->tile_bytes;
    if (band_bytes > (double)max_band_bytes) {
        if (!TIFFIsTiled(tif) && d->planes == 1 && d->plane_row_bytes <= max_band_bytes) {
            d->scanline_mode = 1;
            d->band_rows = 1;
        } else {
            mb_message_set(&d->message, "a TIFF %s needs %.0f bytes to decode, over the %zu-byte budget",
                           TIFFIsTiled(tif) ? "row of tiles" : "strip", band_bytes, max_band_bytes);
            current_message = NULL;
            return MB_LIMIT;
        }
    }
    d->band = malloc((size_t)d->planes_read * d->band_rows * d->plane_row_bytes);
    if (d->tile_bytes) d->tile = malloc(d->tile_bytes);
    if (!d->band || (d->tile_bytes && !d->tile)) status = failure(d, MB_LIMIT, "out of memory");
    current_message = NULL;
    return status;
}

// MARK: Decoding bands

static mb_status read_band(mtiff_decoder *d, uint32_t band_start) {
    TIFF *tif = d->tif;
    const mtiff_directory *info = &d->directory;
    uint32_t rows = info->height - band_start < d->band_rows ? info->height - band_start : d->band_rows;
    size_t plane_bytes = (size_t)d->band_rows * d->plane_row_bytes;
    if (d->scanline_mode) {
        if (TIFFReadScanline(tif, d->band, band_start, 0) < 0) {
            return failure(d, MB_MALFORMED, "libtiff could not decode a scanline");
        }
    } else if (!TIFFIsTiled(tif)) {
        uint32_t strip_in_plane = band_start / d->band_rows;
        uint32_t strips_per_plane = (info->height + d->band_rows - 1) / d->band_rows;
        for (int p = 0; p < d->planes_read; p++) {
            uint32_t strip = strip_in_plane + (uint32_t)p * strips_per_plane;
            tmsize_t wanted = (tmsize_t)(rows * d->plane_row_bytes);
            tmsize_t got = TIFFReadEncodedStrip(tif, strip, d->band + p * plane_bytes, wanted);
            if (got < 0) return failure(d, MB_MALFORMED, "libtiff could not decode a strip");
            if (got < wanted) memset(d->band + p * plane_bytes + got, 0, (size_t)(wanted - got));
        }
    } else {
        uint32_t across = (info->width + info->tile_width - 1) / info->tile_width;
        for (int p = 0; p < d->planes_read; p++) {
            for (uint32_t column = 0; column < across; column++) {
                uint32_t tile = TIFFComputeTile(tif, column * info->tile_width, band_start, 0, (uint16_t)p);
                tmsize_t got = TIFFReadEncodedTile(tif, tile, d->tile, (tmsize_t)d->tile_bytes);
                if (got < 0) return failure(d, MB_MALFORMED, "libtiff could not decode a tile");
                if ((size_t)got < d->tile_bytes) memset(d->tile + got, 0, d->tile_bytes - (size_t)got);
                uint8_t *target = d->band + p * plane_bytes + column * d->tile_row_bytes;
                for (uint32_t y = 0; y < rows; y++) {
                    memcpy(target + y * d->plane_row_bytes, d->tile + y * d->tile_row_bytes, d->tile_row_bytes);
                }
            }
        }
    }
    d->band_start = band_start;
    return MB_OK;
}

// MARK: Converting samples

/// The unsigned integer sample `index` of a row of `bits`-bit samples (packed most significant
/// bit first, as libtiff hands them over whatever the FillOrder; 8, 16 and 32 bits in the
/// machine's byte order). Reads only the bytes the sample covers.
static inline uint32_t raw_bits(const uint8_t *row, size_t index, int bits) {
    if (bits == 8) return row[index];
    if (bits == 16) return ((const uint16_t *)row)[index];
    size_t bit = index * (size_t)bits;
    size_t byte = bit >> 3;
    int shift = (int)(bit & 7);
    int count = (shift + bits + 7) / 8;
    uint32_t window = 0;
    for (int i = 0; i < count; i++) window = window << 8 | row[byte + i];
    return (window >> (count * 8 - shift - bits)) & ((1u << bits) - 1);
}

/// The value of an IEEE 754 half (binary16), exactly (every half is a float): a subnormal is
/// its mantissa × 2^-24; a normal number gets the float's exponent bias; the largest exponent
/// holds the infinities and NaNs, as in a float.
static inline float half_to_float(uint16_t half) {
    const uint32_t exponent = half >> 10 & 0x1F, mantissa = half & 0x3FF;
    float magnitude;
    if (exponent == 0) {
        magnitude = (float)mantissa * 0x1p-24f;
    } else {
        uint32_t bits = (exponent == 0x1F ? 0xFFu : exponent - 15 + 127) << 23 | mantissa << 13;
        memcpy(&magnitude, &bits, sizeof magnitude);
    }
    return half & 0x8000 ? -magnitude : magnitude;
}

/// Sample `index` of a row (samples counted across the row), as 0...65535. Unsigned integers
/// of `bits` are scaled exactly (rounded); 32-bit ones keep their top 16 bits. Signed ones
/// (two's complement, `SAMPLEFORMAT_INT`) have their sign bit flipped first, which adds half
/// the range (-2^(b-1) is 0, 0 is 2^(b-1), 2^(b-1) - 1 is 2^b - 1), and are then scaled as the
/// unsigned ones of `bits`. Floats of 16, 32 or 64 bits are clamped to 0...1 (NaN is 0), a
/// double rounded to the nearest float on the way, so every float is scaled as a 32-bit one.
static inline uint32_t sample16(const uint8_t *row, size_t index, int bits, int format) {
    if (format == SAMPLEFORMAT_IEEEFP) {
        float value;
        if (bits == 64) {
            // Rounded to a float inside 0...1 only, where it cannot overflow.
            double wide = ((const double *)row)[index];
            value = wide > 0 ? (wide < 1 ? (float)wide : 1.0f) : 0.0f;
        } else {
            value = bits == 16 ? half_to_float(((const uint16_t *)row)[index]) : ((const float *)row)[index];
        }
        if (!(value > 0)) return 0;
        if (value >= 1) return 65535;
        return (uint32_t)(value * 65535.0f + 0.5f);
    }
    const uint32_t sign = format == SAMPLEFORMAT_INT ? 1u << (bits - 1) : 0;
    switch (bits) {
    case 8: return (row[index] ^ sign) * 257u;
    case 16: return ((const uint16_t *)row)[index] ^ sign;
    case 32: return (((const uint32_t *)row)[index] ^ sign) >> 16;
    default: break;
    }
    uint32_t max = (1u << bits) - 1;
    return ((raw_bits(row, index, bits) ^ sign) * 65535u + max / 2) / max;
}

/// 0...65535 to 8 bits: integers rounded; floating-point samples (linear light) to sRGB.
static inline uint8_t to8(uint32_t value, int is_float) {
    return is_float ? linear_to_srgb[value] : (uint8_t)((value * 255u + 32767u) / 65535u);
}

/// a × b / 255, rounded as Pillow's MULDIV255.
static inline uint32_t muldiv255(uint32_t a, uint32_t b) {
    uint32_t t = a * b + 128;
    return ((t >> 8) + t) >> 8;
}

/// Row `y` (inside the band held) of plane `plane` in the band buffer.
static const uint8_t *band_row(const mtiff_decoder *d, uint32_t y, int plane) {
    return d->band + (size_t)plane * d->band_rows * d->plane_row_bytes + (size_t)(y - d->band_start) * d->plane_row_bytes;
}

static void convert_row(const mtiff_decoder *d, uint32_t y, uint8_t *out) {
    const mtiff_directory *info = &d->directory;
    const uint32_t width = info->width;
    const uint8_t *rows[64];
    for (int p = 0; p < d->planes_read && p < 64; p++) rows[p] = band_row(d, y, p);
    const int spp = info->samples_per_pixel;
    const int channels = d->output == MTIFF_GREY8 ? 1 : d->output == MTIFF_RGB8 ? 3 : 4;
    if (d->fast8) {
        const uint8_t *row = rows[0];
        for (uint32_t x = 0; x < width; x++) {
            const uint8_t *pixel = row + (size_t)x * spp;
            uint8_t *target = out + (size_t)x * channels;
            if (d->color_samples >= 3) {
                target[0] = pixel[0];
                if (channels == 1) continue;
                target[1] = pixel[1];
                target[2] = pixel[2];
                if (channels == 4) target[3] = d->alpha ? pixel[d->color_samples] : 255;
            } else {
                target[0] = pixel[0];
                if (channels == 1) continue;
                target[1] = target[2] = pixel[0];
                if (channels == 4) target[3] = d->alpha ? pixel[d->color_samples] : 255;
            }
        }
        return;
    }
    const int bits = info->bits_per_sample;
    const int format = info->sample_format;
    const int is_float = format == SAMPLEFORMAT_IEEEFP;
    const int palette = info->photometric == PHOTOMETRIC_PALETTE;
    const int invert = info->photometric == PHOTOMETRIC_MINISWHITE;
    const int colors = palette || d->color_samples < 3 ? 1 : d->cmyk ? 4 : 3;
    for (uint32_t x = 0; x < width; x++) {
        uint32_t c[4] = {0, 0, 0, 0};
        uint8_t c8[4];
        int have8 = 0;
        if (palette) {
            uint32_t index = raw_bits(rows[0], d->planes == 1 ? (size_t)x * spp : x, bits);
            if (index >= d->colormap_size) index = d->colormap_size - 1;
            // libtiff's and Pillow's reading of a 16-bit colour map: the high byte.
            for (int k = 0; k < 3; k++) c8[k] = (uint8_t)(d->colormap[k][index] >> 8);
            have8 = 1;
        } else {
            for (int k = 0; k < colors; k++) {
                c[k] = d->planes == 1 ? sample16(rows[0], (size_t)x * spp + k, bits, format) : sample16(rows[k], x, bits, format);
                if (invert) c[k] = 65535 - c[k];
            }
        }
        uint32_t a = 65535;
        if (d->alpha) {
            int s = d->color_samples;
            a = d->planes == 1 ? sample16(rows[0], (size_t)x * spp + s, bits, format) : sample16(rows[s], x, bits, format);
            if (d->alpha == 1 && !have8) {
                for (int k = 0; k < colors; k++) {
                    uint32_t v = a == 0 ? 0 : (uint32_t)(((uint64_t)c[k] * 65535 + a / 2) / a);
                    c[k] = v > 65535 ? 65535 : v;
                }
            }
        }
        uint8_t *target = out + (size_t)x * channels;
        if (d->cmyk) {
            uint8_t ink[4];
            for (int k = 0; k < 4; k++) ink[k] = to8(c[k], 0);
            if (d->output == MTIFF_CMYK8_INVERTED) {
                for (int k = 0; k < 4; k++) target[k] = 255 - ink[k];
                continue;
            }
            // Pillow's CMYK to RGB: (255 - C)(255 - K) / 255, and so on.
            uint32_t nk = 255 - ink[3];
            for (int k = 0; k < 3; k++) target[k] = (uint8_t)(nk - muldiv255(ink[k], nk));
        } else if (have8) {
            if (channels == 1) {
                target[0] = c8[1];
                continue;
            }
            target[0] = c8[0];
            target[1] = c8[1];
            target[2] = c8[2];
        } else if (colors == 1) {
            uint8_t grey = to8(c[0], is_float);
            target[0] = grey;
            if (channels == 1) continue;
            target[1] = target[2] = grey;
        } else {
            target[0] = to8(c[0], is_float);
            if (channels == 1) continue;
            target[1] = to8(c[1], is_float);
            target[2] = to8(c[2], is_float);
        }
        if (channels == 4) target[3] = to8(a, 0);
    }
}

mb_status mtiff_read_row(mtiff_decoder *d, uint8_t *scratch, const uint8_t **row) {
    if (!d->band || d->next_row >= d->directory.height) {
        mb_message_set(&d->message, "row read past the last row or before mtiff_start");
        return MB_USAGE;
    }
    uint32_t y = d->next_row;
    uint32_t band_start = y - y % d->band_rows;
    if (band_start != d->band_start) {
        current_message = &d->message;
        mb_status status = read_band(d, band_start);
        current_message = NULL;
        if (status != MB_OK) return status;
    }
    if (d->stored_as_output) {
        *row = band_row(d, y, 0);
    } else {
        convert_row(d, y, scratch);
        *row = scratch;
    }
    d->next_row++;
    return MB_OK;
}

// MARK: The floor

mb_status mtiff_floor_decode(int fd, int64_t size, uint64_t *pixels, mb_message *message) {
    mtiff_decoder *d = NULL;
    mtiff_directory directory;
    mb_status status = mtiff_open(fd, size, 0, INT64_MAX / 2, &d, &directory, message);
    if (status != MB_OK) return status;
    TIFF *tif = d->tif;
    current_message = &d->message;
    int tiled = TIFFIsTiled(tif);
    tmsize_t chunk = tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
    uint32_t chunks = tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    void *buffer = chunk > 0 ? _TIFFmalloc(chunk) : NULL;
    if (!buffer) status = failure(d, MB_LIMIT, "out of memory");
    for (uint32_t i = 0; status == MB_OK && i < chunks; i++) {
        tmsize_t got = tiled ? TIFFReadEncodedTile(tif, i, buffer, chunk) : TIFFReadEncodedStrip(tif, i, buffer, chunk);
        if (got < 0) status = failure(d, MB_MALFORMED, "libtiff could not decode a strip or tile");
    }
    current_message = NULL;
    if (buffer) _TIFFfree(buffer);
    *pixels = (uint64_t)directory.width * directory.height;
    if (status != MB_OK) *message = d->message;
    mtiff_destroy(d);
    return status;
}
