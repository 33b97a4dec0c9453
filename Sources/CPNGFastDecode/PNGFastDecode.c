// See PNGFastDecode.h. The chunk rules mirror what CPNGBridge's libpng setup
// accepts without comment; everything else declines, so the two paths never
// disagree about a file (Tests/PNGCodecTests/FastDecodeDifferentialTests).

#include "PNGFastDecode.h"

#include <errno.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

struct mfast_image {
    uint8_t *raw;          // height rows of 1 filter byte + stride bytes, unfiltered in place
    uint8_t *zeros;        // the row "above" the first row
    uint8_t *out;          // the converted row, when conversion is needed
    size_t stride;         // bytes of samples per row
    uint32_t width, height, next;
    int bit_depth, color_type, bpp, channels, has_trns;
    uint16_t trns[3];      // grey or RGB tRNS value, at the image's bit depth
    uint8_t palette[256 * 4];   // RGBA; entries past PLTE are opaque black, past tRNS opaque (as libpng)
};

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int is_letter(uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

static int samples_per_pixel(int color_type) {
    switch (color_type) {
    case 0: case 3: return 1;
    case 2: return 3;
    case 4: return 2;
    case 6: return 4;
    }
    return 0;
}

static int depth_allowed(int color_type, int depth) {
    switch (color_type) {
    case 0: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3: return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case 2: case 4: case 6: return depth == 8 || depth == 16;
    }
    return 0;
}

#define CHUNK(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/// Walks the chunks, fills in the image's header fields, palette and tRNS,
/// and gathers the IDAT data into one run at the start of `idat` (which may be
/// `bytes` itself when the caller allows it to be rewritten). Returns the
/// number of IDAT bytes, or -1 to decline.
static int64_t walk_chunks(const uint8_t *bytes, size_t count, uint8_t *idat, const mfast_options *o,
                           mfast_image *m) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    if (count < 8 + 25 || memcmp(bytes, signature, 8) != 0) return -1;
    size_t pos = 8;
    int idat_state = 0;  // 0 before IDAT, 1 inside the IDAT run, 2 after it
    int seen_plte = 0, seen_trns = 0, palette_count = 0;
    uint64_t raw_size = 0;
    int64_t idat_count = 0;
    for (int first = 1;; first = 0) {
        if (count - pos < 12) return -1;
        uint32_t length = be32(bytes + pos);
        const uint8_t *type_and_data = bytes + pos + 4;
        if (length > 0x7fffffffu || count - pos - 12 < length) return -1;
        for (int i = 0; i < 4; i++) if (!is_letter(type_and_data[i])) return -1;
        if (libdeflate_crc32(0, type_and_data, (size_t)length + 4) != be32(type_and_data + 4 + length)) return -1;
        uint32_t type = be32(type_and_data);
        const uint8_t *data = type_and_data + 4;
        if (first != (type == CHUNK('I', 'H', 'D', 'R'))) return -1;
        if (type != CHUNK('I', 'D', 'A', 'T') && idat_state == 1) idat_state = 2;

        if (type == CHUNK('I', 'H', 'D', 'R')) {
            if (length != 13) return -1;
            m->width = be32(data);
            m->height = be32(data + 4);
            m->bit_depth = data[8];
            m->color_type = data[9];
            if (m->width == 0 || m->height == 0 || m->width > 0x7fffffffu || m->height > 0x7fffffffu) return -1;
            if (!depth_allowed(m->color_type, m->bit_depth) || data[10] != 0 || data[11] != 0 || data[12] != 0) return -1;
            if ((uint64_t)m->width > o->max_width || (uint64_t)m->width * m->height > o->max_pixels) return -1;
            int bits = samples_per_pixel(m->color_type) * m->bit_depth;
            m->stride = ((uint64_t)m->width * bits + 7) / 8;
            m->bpp = bits >= 8 ? bits / 8 : 1;
            raw_size = (uint64_t)m->height * (m->stride + 1);
            if (raw_size > o->budget) return -1;
        } else if (type == CHUNK('I', 'D', 'A', 'T')) {
            if (idat_state == 2) return -1;
            if (m->color_type == 3 && !seen_plte) return -1;
            if (length > o->max_chunk_bytes && length > raw_size) return -1;
            idat_state = 1;
            memmove(idat + idat_count, data, length);
            idat_count += length;
        } else if (type == CHUNK('I', 'E', 'N', 'D')) {
            if (idat_state == 0 || length != 0) return -1;
            break;
        } else if (type == CHUNK('P', 'L', 'T', 'E')) {
            if (idat_state != 0 || seen_plte || seen_trns || m->color_type != 3) return -1;
            if (length == 0 || length % 3 != 0 || length / 3 > (1u << m->bit_depth)) return -1;
            seen_plte = 1;
            palette_count = (int)(length / 3);
            // Indices past the palette are opaque black, as libpng's zeroed 256-entry palette gives.
            for (int i = 0; i < 256; i++) m->palette[4 * i + 3] = 0xff;
            for (int i = 0; i < palette_count; i++) memcpy(m->palette + 4 * i, data + 3 * i, 3);
        } else if (type == CHUNK('t', 'R', 'N', 'S')) {
            if (idat_state != 0 || seen_trns) return -1;
            seen_trns = 1;
            uint32_t most = (1u << m->bit_depth) - 1;
            if (m->color_type == 3) {
                if (!seen_plte || length == 0 || length > (uint32_t)palette_count) return -1;
                for (uint32_t i = 0; i < length; i++) m->palette[4 * i + 3] = data[i];
            } else if (m->color_type == 0 || m->color_type == 2) {
                int values = m->color_type == 0 ? 1 : 3;
                if (length != (uint32_t)values * 2) return -1;
                for (int i = 0; i < values; i++) {
                    m->trns[i] = (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
                    if (m->trns[i] > most) return -1;
                }
            } else {
                return -1;
            }
            m->has_trns = 1;
        } else {
            // Skipped unread, as libpng does with every other chunk; but a
            // critical chunk it does not know is refused, and no chunk may be
            // larger than libpng's per-chunk allocation limit.
            if ((type_and_data[0] & 0x20) == 0 || length > o->max_chunk_bytes) return -1;
        }
        pos += 12 + (size_t)length;
    }
    return idat_count;
}

// ---------------------------------------------------------------------------
// Unfiltering (PNG spec §9): a = left, b = up, c = up-left, one pixel at a
// time, every channel of the pixel in one SSE2 register.

#if defined(__SSE2__)
static inline __m128i load_pixel(const uint8_t *p, int bpp) {
    uint64_t v = 0;
    memcpy(&v, p, (size_t)bpp);
    return _mm_cvtsi64_si128((long long)v);
}

static inline void store_pixel(uint8_t *p, __m128i v, int bpp) {
    uint64_t bits = (uint64_t)_mm_cvtsi128_si64(v);
    memcpy(p, &bits, (size_t)bpp);
}

static inline __m128i abs_epi16(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

static inline void unfilter_sub(uint8_t *row, size_t n, int bpp) {
    __m128i a = _mm_setzero_si128();
    size_t i = 0;
    for (; i + (size_t)bpp <= n; i += (size_t)bpp) {
        a = _mm_add_epi8(a, load_pixel(row + i, bpp));
        store_pixel(row + i, a, bpp);
    }
}

static inline void unfilter_avg(uint8_t *row, const uint8_t *up, size_t n, int bpp) {
    __m128i a = _mm_setzero_si128(), one = _mm_set1_epi8(1);
    for (size_t i = 0; i + (size_t)bpp <= n; i += (size_t)bpp) {
        __m128i b = load_pixel(up + i, bpp);
        // floor((a + b) / 2): avg_epu8 rounds up, so take the lost bit back.
        __m128i mean = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
        a = _mm_add_epi8(load_pixel(row + i, bpp), mean);
        store_pixel(row + i, a, bpp);
    }
}

static inline void unfilter_paeth(uint8_t *row, const uint8_t *up, size_t n, int bpp) {
    __m128i zero = _mm_setzero_si128();
    __m128i a = zero, c = zero;
    for (size_t i = 0; i + (size_t)bpp <= n; i += (size_t)bpp) {
        __m128i b = _mm_unpacklo_epi8(load_pixel(up + i, bpp), zero);
        __m128i x = _mm_unpacklo_epi8(load_pixel(row + i, bpp), zero);
        __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c);
        __m128i pa = abs_epi16(bc), pb = abs_epi16(ac), pc = abs_epi16(_mm_add_epi16(bc, ac));
        __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
        // Ties go to a, then b, then c.
        __m128i use_a = _mm_cmpeq_epi16(smallest, pa), use_b = _mm_cmpeq_epi16(smallest, pb);
        __m128i nearest = _mm_or_si128(_mm_and_si128(use_b, b), _mm_andnot_si128(use_b, c));
        nearest = _mm_or_si128(_mm_and_si128(use_a, a), _mm_andnot_si128(use_a, nearest));
        a = _mm_and_si128(_mm_add_epi16(x, nearest), _mm_set1_epi16(0xff));
        store_pixel(row + i, _mm_packus_epi16(a, a), bpp);
        c = b;
    }
}
#else
static inline void unfilter_sub(uint8_t *row, size_t n, int bpp) {
    for (size_t i = (size_t)bpp; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - (size_t)bpp]);
}

static inline void unfilter_avg(uint8_t *row, const uint8_t *up, size_t n, int bpp) {
    for (size_t i = 0; i < n; i++) {
        int a = i >= (size_t)bpp ? row[i - (size_t)bpp] : 0;
        row[i] = (uint8_t)(row[i] + ((a + up[i]) >> 1));
    }
}

static inline void unfilter_paeth(uint8_t *row, const uint8_t *up, size_t n, int bpp) {
    for (size_t i = 0; i < n; i++) {
        int a = i >= (size_t)bpp ? row[i - (size_t)bpp] : 0, b = up[i];
        int c = i >= (size_t)bpp ? up[i - (size_t)bpp] : 0;
        int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
        row[i] = (uint8_t)(row[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c));
    }
}
#endif

/// Unfilters one row in place; the constant `bpp` of each call below lets the
/// compiler turn the per-pixel copies into single loads and stores.
static inline void unfilter_with(int type, uint8_t *row, const uint8_t *up, size_t n, int bpp) {
    switch (type) {
    case 1: unfilter_sub(row, n, bpp); break;
    case 2: for (size_t i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + up[i]); break;
    case 3: unfilter_avg(row, up, n, bpp); break;
    case 4: unfilter_paeth(row, up, n, bpp); break;
    default: break;
    }
}

static void unfilter(int type, uint8_t *row, const uint8_t *up, size_t n, int bpp) {
    switch (bpp) {
    case 1: unfilter_with(type, row, up, n, 1); break;
    case 2: unfilter_with(type, row, up, n, 2); break;
    case 3: unfilter_with(type, row, up, n, 3); break;
    case 4: unfilter_with(type, row, up, n, 4); break;
    case 6: unfilter_with(type, row, up, n, 6); break;
    default: unfilter_with(type, row, up, n, 8); break;
    }
}

// ---------------------------------------------------------------------------
// Conversion to 8 bits, as libpng's png_set_expand, png_set_scale_16,
// png_set_gray_to_rgb and png_set_add_alpha do it.

/// libpng's png_do_scale_16_to_8: the 16-bit value × 255 / 65535, rounded.
static inline uint8_t scale16(const uint8_t *p) {
    int32_t high = p[0];
    return (uint8_t)(high + (((int32_t)p[1] - high + 128) * 65535 >> 24));
}

static inline uint32_t sample16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

/// Sample x of a row of 1, 2 or 4-bit samples (most significant bits first).
static inline uint32_t packed_sample(const uint8_t *row, uint32_t x, int depth) {
    uint32_t bit = x * (uint32_t)depth;
    return (uint32_t)(row[bit >> 3] >> (8 - depth - (int)(bit & 7))) & ((1u << depth) - 1);
}

/// Returns the delivered row: `src` itself when no conversion is needed.
static const uint8_t *convert(mfast_image *m, const uint8_t *src) {
    uint8_t *out = m->out;
    uint32_t w = m->width;
    int depth = m->bit_depth, ch = m->channels;
    switch (m->color_type) {
    case 0: {
        uint32_t scale = depth == 1 ? 0xff : depth == 2 ? 0x55 : depth == 4 ? 0x11 : 1;
        for (uint32_t x = 0; x < w; x++) {
            uint32_t raw = depth == 16 ? sample16(src + 2 * x) : depth == 8 ? src[x] : packed_sample(src, x, depth);
            uint8_t grey = depth == 16 ? scale16(src + 2 * x) : (uint8_t)(raw * scale);
            if (ch == 1) {
                out[x] = grey;
            } else {
                out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = grey;
                out[4 * x + 3] = m->has_trns && raw == m->trns[0] ? 0 : 0xff;
            }
        }
        return out;
    }
    case 2:
        if (depth == 8 && ch == 3) return src;
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *d = out + (size_t)ch * x;
            if (depth == 8) {
                const uint8_t *s = src + 3 * x;
                d[0] = s[0]; d[1] = s[1]; d[2] = s[2];
                if (ch == 4) d[3] = m->has_trns && s[0] == m->trns[0] && s[1] == m->trns[1] && s[2] == m->trns[2] ? 0 : 0xff;
            } else {
                const uint8_t *s = src + 6 * x;
                d[0] = scale16(s); d[1] = scale16(s + 2); d[2] = scale16(s + 4);
                if (ch == 4) {
                    d[3] = m->has_trns && sample16(s) == m->trns[0] && sample16(s + 2) == m->trns[1]
                        && sample16(s + 4) == m->trns[2] ? 0 : 0xff;
                }
            }
        }
        return out;
    case 3:
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *entry = m->palette + 4 * (depth == 8 ? src[x] : packed_sample(src, x, depth));
            memcpy(out + (size_t)ch * x, entry, (size_t)ch);
        }
        return out;
    case 4:
        for (uint32_t x = 0; x < w; x++) {
            uint8_t grey = depth == 8 ? src[2 * x] : scale16(src + 4 * x);
            uint8_t alpha = depth == 8 ? src[2 * x + 1] : scale16(src + 4 * x + 2);
            out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = grey;
            out[4 * x + 3] = alpha;
        }
        return out;
    default:  // 6
        if (depth == 8) return src;
        for (size_t i = 0; i < (size_t)w * 4; i++) out[i] = scale16(src + 2 * i);
        return out;
    }
}

// ---------------------------------------------------------------------------

void mfast_destroy(mfast_image *m) {
    if (m == NULL) return;
    free(m->raw);
    free(m->zeros);
    free(m->out);
    free(m);
}

/// Decodes from `bytes`; `idat` receives the gathered image data (it may be `bytes`).
static mfast_image *decode(const uint8_t *bytes, size_t count, uint8_t *idat, const mfast_options *o, mfast_info *info) {
    mfast_image *m = calloc(1, sizeof *m);
    if (m == NULL) return NULL;
    int64_t idat_count = walk_chunks(bytes, count, idat, o, m);
    size_t raw_size = (size_t)m->height * (m->stride + 1);
    int opaque = !m->has_trns && (m->color_type & 4) == 0;
    m->channels = o->compact && opaque ? (m->color_type == 0 ? 1 : 3) : 4;
    if (idat_count < 0
        || (m->raw = malloc(raw_size)) == NULL
        || (m->zeros = calloc(m->stride + 1, 1)) == NULL
        || (m->out = malloc((size_t)m->width * (size_t)m->channels)) == NULL) {
        mfast_destroy(m);
        return NULL;
    }
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    size_t used_in = 0, used_out = 0;
    enum libdeflate_result result = inflater == NULL ? LIBDEFLATE_BAD_DATA
        : libdeflate_zlib_decompress_ex(inflater, idat, (size_t)idat_count, m->raw, raw_size, &used_in, &used_out);
    libdeflate_free_decompressor(inflater);
    // Short, long, damaged, or followed by extra bytes: libpng's business.
    int declined = result != LIBDEFLATE_SUCCESS || used_out != raw_size || used_in != (size_t)idat_count;
    for (uint32_t y = 0; !declined && y < m->height; y++) declined = m->raw[(size_t)y * (m->stride + 1)] > 4;
    if (declined) {
        mfast_destroy(m);
        return NULL;
    }
    info->width = m->width;
    info->height = m->height;
    info->bit_depth = m->bit_depth;
    info->color_type = m->color_type;
    info->has_transparency = !opaque;
    info->channels = m->channels;
    return m;
}

mfast_image *mfast_decode_memory(const uint8_t *bytes, size_t count, const mfast_options *o, mfast_info *info) {
    if (count > o->budget) return NULL;
    uint8_t *idat = malloc(count > 0 ? count : 1);
    if (idat == NULL) return NULL;
    mfast_image *m = decode(bytes, count, idat, o, info);
    free(idat);
    return m;
}

/// True when the IHDR at the start of a file (33 bytes) describes image data within the
/// budget: an image that is too big is declined before the file is read.
static int header_fits_budget(const uint8_t *start, uint64_t budget) {
    uint64_t width = be32(start + 16), height = be32(start + 20);
    uint64_t row = (width * (uint64_t)(samples_per_pixel(start[25]) * start[24]) + 7) / 8;
    return height <= budget / (row + 1);
}

mfast_image *mfast_decode_fd(int fd, uint64_t size, const mfast_options *o, mfast_info *info) {
    if (size > o->budget || size < 33) return NULL;
    uint8_t start[33];
    if (pread(fd, start, sizeof start, 0) != (ssize_t)sizeof start || !header_fits_budget(start, o->budget)) return NULL;
    uint8_t *bytes = malloc((size_t)size);
    if (bytes == NULL) return NULL;
    size_t done = 0;
    while (done < size) {
        ssize_t got = pread(fd, bytes + done, (size_t)size - done, (off_t)done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        done += (size_t)got;
    }
    // The image data is gathered over the file's own bytes: it only ever moves left.
    mfast_image *m = done == size ? decode(bytes, done, bytes, o, info) : NULL;
    free(bytes);
    return m;
}

const uint8_t *mfast_next_row(mfast_image *m) {
    size_t line = m->stride + 1;
    uint8_t *row = m->raw + (size_t)m->next * line;
    const uint8_t *up = m->next == 0 ? m->zeros + 1 : row - line + 1;
    unfilter(row[0], row + 1, up, m->stride, m->bpp);
    m->next++;
    return convert(m, row + 1);
}

const char *mfast_library_version(void) { return LIBDEFLATE_VERSION_STRING; }
