// What a planar Y'CbCr path for JPEG tiles would cost, against the RGB decode that the bench's
// floor runs (issue #34, goal 1; Notes/performance.md, "Round 4, fourteenth stop").
//
//   cc -O2 -mavx2 -o jpeg-planar-bound scripts/jpeg-planar-bound.c -ljpeg -lm
//   jpeg-planar-bound ROUNDS LIST
//
// LIST has a line "path tile_width tile_height" per JPEG, the tile in the file's stored orientation
// (its sides swapped for EXIF orientations 5-8). For the bench's 48 photos in 300 px columns:
//   python3 -c 'import glob, PIL.Image as I
//   for f in sorted(glob.glob("DIR/*.jpg")):
//       i = I.open(f); w, h = i.size; turned = i.getexif().get(274, 1) >= 5
//       dw, dh = (h, w) if turned else (w, h); t = round(300 * dh / dw)
//       print(f, *((t, 300) if turned else (300, t)))' > LIST
//
// Every file is read into memory first. Each round runs each mode over all files on one thread:
//   rgb      libjpeg-turbo's decode to RGB at full scale, row by row (what `masonry-floor jpeg` does)
//   raw      the same files decoded to Y'CbCr planes (raw_data_out: no upsampling, no colour conversion)
//   h-first  raw, each plane's rows reduced to the tile's width as they arrive, then each tile row
//            from them (Lanczos-3, 14-bit weights, AVX2), then Y'CbCr to RGB at the tile's size
//   v-first  raw, each tile row made from a ring of the plane's rows as soon as its window has
//            arrived, at full width, then reduced to the tile's width; then Y'CbCr to RGB
// and prints each mode's median CPU time and its ratio to rgb. `PLANAR_DUMP=h` or `=v` writes the
// last tile of that mode to tile.ppm, to compare with another resampler (49.5 dB against Pillow's
// Lanczos on the bench's first photo).
#include <immintrin.h>
#include <stdio.h>
#include <jpeglib.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { unsigned char *bytes; size_t size; int tw, th; } input;

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double lanczos3(double x) {
    if (x == 0) return 1;
    if (x <= -3 || x >= 3) return 0;
    double px = M_PI * x;
    return 3 * sin(px) * sin(px / 3) / (px * px);
}

/// Weights of one axis: taps a side padded to 16 or 32, every output's first input.
typedef struct { int in, out, taps; int *first; int16_t *w; } axis;

static axis make_axis(int in, int out) {
    axis a = { in, out, 0, NULL, NULL };
    double ratio = (double)in / out, support = 3 * (ratio > 1 ? ratio : 1);
    int needed = (int)ceil(2 * support) + 1;
    if (needed > 32 || out < 1) {
        // More than 32 taps is a ratio over 5: libjpeg's DCT scaling would come first.
        fprintf(stderr, "jpeg-planar-bound: %d -> %d px needs %d taps, over the 32 this harness has\n", in, out, needed);
        exit(2);
    }
    a.taps = needed <= 16 ? 16 : 32;
    a.first = malloc(sizeof(int) * out);
    a.w = calloc((size_t)out * a.taps, sizeof(int16_t));
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * ratio;
        int low = (int)(centre - support + 0.5), high = (int)(centre + support + 0.5);
        if (low < 0) low = 0;
        if (high > in) high = in;
        if (high - low > needed) high = low + needed;
        // The window starts where it fits in the padded row.
        int first = low;
        if (first > in + 32 - a.taps) first = in + 32 - a.taps;
        a.first[o] = first;
        double sum = 0, weights[64] = { 0 };
        for (int i = low; i < high; i++) sum += weights[i - first] = lanczos3((i + 0.5 - centre) / (ratio > 1 ? ratio : 1));
        int total = 0, largest = low - first;
        for (int t = 0; t < a.taps; t++) {
            int q = (int)lrint(weights[t] / sum * 16384);
            a.w[o * a.taps + t] = (int16_t)q;
            total += q;
            if (weights[t] > weights[largest]) largest = t;
        }
        a.w[o * a.taps + largest] += (int16_t)(16384 - total);
    }
    return a;
}

/// 16 samples from `p` as 16-bit lanes: 8-bit samples widened, or 16-bit ones as they are.
static inline __m256i sixteen_samples(const void *p, int wide) {
    return wide ? _mm256_loadu_si256((const __m256i *)p) : _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
}

/// The filter sums of outputs `o` ... `o + 7` of a row of 8-bit (`wide` 0) or 16-bit samples,
/// readable 32 samples past its end.
static inline __m256i eight_sums(const void *row, int wide, const axis *a, int o) {
    __m256i s[8];
    for (int k = 0; k < 8; k++) {
        const char *p = (const char *)row + (size_t)a->first[o + k] * (wide ? 2 : 1);
        const int16_t *w = a->w + (size_t)(o + k) * a->taps;
        __m256i sum = _mm256_madd_epi16(sixteen_samples(p, wide), _mm256_loadu_si256((const __m256i *)w));
        if (a->taps == 32)
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(sixteen_samples(p + (wide ? 32 : 16), wide),
                                                          _mm256_loadu_si256((const __m256i *)(w + 16))));
        s[k] = sum;
    }
    __m256i h0 = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
    __m256i h1 = _mm256_hadd_epi32(_mm256_hadd_epi32(s[4], s[5]), _mm256_hadd_epi32(s[6], s[7]));
    return _mm256_add_epi32(_mm256_permute2x128_si256(h0, h1, 0x20), _mm256_permute2x128_si256(h0, h1, 0x31));
}

/// One row of 8-bit samples (readable 32 bytes past its end) to `out` 16-bit samples.
static void horizontal(const uint8_t *row, const axis *a, int16_t *out) {
    int o = 0;
    for (; o + 8 <= a->out; o += 8) {
        __m256i samples = _mm256_srai_epi32(_mm256_add_epi32(eight_sums(row, 0, a, o), _mm256_set1_epi32(1 << 7)), 8);   // 6 fraction bits kept
        __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(samples), _mm256_extracti128_si256(samples, 1));
        _mm_storeu_si128((__m128i *)(out + o), packed);
    }
    for (; o < a->out; o++) {
        int sum = 0;
        for (int t = 0; t < a->taps; t++) sum += row[a->first[o] + t] * a->w[(size_t)o * a->taps + t];
        out[o] = (int16_t)((sum + (1 << 7)) >> 8);
    }
}

/// Tile row `y` of a plane from its horizontally reduced rows (6 fraction bits) to 8-bit samples.
static void vertical(int16_t *const *rows, const axis *a, int y, int width, uint8_t *out) {
    const int16_t *w = a->w + (size_t)y * a->taps;
    int first = a->first[y], taps = a->taps;
    while (taps > 0 && w[taps - 1] == 0) taps--;
    int x = 0;
    for (; x + 16 <= width; x += 16) {
        __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
        int t = 0;
        for (; t + 2 <= taps; t += 2) {
            __m256i r0 = _mm256_loadu_si256((const __m256i *)(rows[first + t] + x));
            __m256i r1 = _mm256_loadu_si256((const __m256i *)(rows[first + t + 1] + x));
            __m256i pair = _mm256_set1_epi32((int)((uint16_t)w[t] | ((uint32_t)(uint16_t)w[t + 1] << 16)));
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(r0, r1), pair));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(r0, r1), pair));
        }
        if (t < taps) {
            __m256i r0 = _mm256_loadu_si256((const __m256i *)(rows[first + t] + x));
            __m256i pair = _mm256_set1_epi32((int)(uint16_t)w[t]);
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(r0, r0), pair));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(r0, r0), pair));
        }
        const __m256i round = _mm256_set1_epi32(1 << 19);
        lo = _mm256_srai_epi32(_mm256_add_epi32(lo, round), 20);
        hi = _mm256_srai_epi32(_mm256_add_epi32(hi, round), 20);
        __m256i words = _mm256_packs_epi32(lo, hi);
        __m256i bytes = _mm256_packus_epi16(words, words);
        __m256i ordered = _mm256_permute4x64_epi64(bytes, 0x08);
        _mm_storeu_si128((__m128i *)(out + x), _mm256_castsi256_si128(ordered));
    }
    for (; x < width; x++) {
        int sum = 0;
        for (int t = 0; t < taps; t++) sum += rows[first + t][x] * w[t];
        sum = (sum + (1 << 19)) >> 20;
        out[x] = (uint8_t)(sum < 0 ? 0 : sum > 255 ? 255 : sum);
    }
}

/// Vertical first: tile row `y` of a plane from its raw 8-bit rows, at every column, as 16-bit samples
/// with 4 fraction bits.
static void vertical_raw(uint8_t *const *rows, const axis *a, int y, int width, int16_t *out) {
    const int16_t *w = a->w + (size_t)y * a->taps;
    int first = 0, taps = a->taps;
    while (taps > 0 && w[taps - 1] == 0) taps--;
    for (int x = 0; x < width; x += 16) {
        __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
        int t = 0;
        for (; t < taps; t += 2) {
            __m256i r0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(rows[first + t] + x)));
            __m256i r1 = t + 1 < taps ? _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(rows[first + t + 1] + x))) : _mm256_setzero_si256();
            __m256i pair = _mm256_set1_epi32((int)((uint16_t)w[t] | ((uint32_t)(uint16_t)(t + 1 < taps ? w[t + 1] : 0) << 16)));
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(r0, r1), pair));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(r0, r1), pair));
        }
        const __m256i round = _mm256_set1_epi32(1 << 9);
        lo = _mm256_srai_epi32(_mm256_add_epi32(lo, round), 10);
        hi = _mm256_srai_epi32(_mm256_add_epi32(hi, round), 10);
        _mm256_storeu_si256((__m256i *)(out + x), _mm256_packs_epi32(lo, hi));   // unpack and pack undo each other's lane order
    }
}

/// Then one row of 16-bit samples (4 fraction bits) to the tile's width, 8-bit.
static void horizontal16(const int16_t *row, const axis *a, uint8_t *out) {
    int o = 0;
    for (; o + 8 <= a->out; o += 8) {
        __m256i samples = _mm256_srai_epi32(_mm256_add_epi32(eight_sums(row, 1, a, o), _mm256_set1_epi32(1 << 17)), 18);
        __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(samples), _mm256_extracti128_si256(samples, 1));
        _mm_storel_epi64((__m128i *)(out + o), _mm_packus_epi16(words, words));
    }
    for (; o < a->out; o++) {
        int sum = 0;
        for (int t = 0; t < a->taps; t++) sum += row[a->first[o] + t] * a->w[(size_t)o * a->taps + t];
        sum = (sum + (1 << 17)) >> 18;
        out[o] = (uint8_t)(sum < 0 ? 0 : sum > 255 ? 255 : sum);
    }
}

/// Y'CbCr to RGB at the tile's size, 16 pixels a step (JFIF, 16-bit fixed point).
static void ycc_to_rgb(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int width, uint8_t *out) {
    int x = 0;
    for (; x + 16 <= width; x += 16) {
        __m256i Y = _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(y + x))), 5);
        __m256i B = _mm256_slli_epi16(_mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(cb + x))), _mm256_set1_epi16(128)), 5);
        __m256i R = _mm256_slli_epi16(_mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(cr + x))), _mm256_set1_epi16(128)), 5);
        __m256i r = _mm256_add_epi16(Y, _mm256_add_epi16(R, _mm256_mulhrs_epi16(R, _mm256_set1_epi16(13173))));
        __m256i g = _mm256_sub_epi16(Y, _mm256_add_epi16(_mm256_mulhrs_epi16(B, _mm256_set1_epi16(11277)), _mm256_mulhrs_epi16(R, _mm256_set1_epi16(23401))));
        __m256i b = _mm256_add_epi16(Y, _mm256_add_epi16(B, _mm256_mulhrs_epi16(B, _mm256_set1_epi16(25297))));
        uint8_t rr[32], gg[32], bb[32];
        _mm256_storeu_si256((__m256i *)rr, _mm256_packus_epi16(_mm256_srai_epi16(r, 5), _mm256_setzero_si256()));
        _mm256_storeu_si256((__m256i *)gg, _mm256_packus_epi16(_mm256_srai_epi16(g, 5), _mm256_setzero_si256()));
        _mm256_storeu_si256((__m256i *)bb, _mm256_packus_epi16(_mm256_srai_epi16(b, 5), _mm256_setzero_si256()));
        for (int k = 0; k < 16; k++) {
            int lane = k < 8 ? k : k + 8;
            out[3 * (x + k)] = rr[lane]; out[3 * (x + k) + 1] = gg[lane]; out[3 * (x + k) + 2] = bb[lane];
        }
    }
    for (; x < width; x++) {
        int Y = y[x] << 16, b = cb[x] - 128, r = cr[x] - 128;
        int R = (Y + 91881 * r + 32768) >> 16, G = (Y - 22554 * b - 46802 * r + 32768) >> 16, B = (Y + 116130 * b + 32768) >> 16;
        out[3 * x] = (uint8_t)(R < 0 ? 0 : R > 255 ? 255 : R);
        out[3 * x + 1] = (uint8_t)(G < 0 ? 0 : G > 255 ? 255 : G);
        out[3 * x + 2] = (uint8_t)(B < 0 ? 0 : B > 255 ? 255 : B);
    }
}

struct failure { struct jpeg_error_mgr manager; jmp_buf escape; };
static void fail(j_common_ptr c) { longjmp(((struct failure *)c->err)->escape, 1); }
static void quiet(j_common_ptr c, int l) { (void)c; (void)l; }

static unsigned long checksum;

typedef struct { int w, h; axis hx, vy; } plane_plan;
/// Plans made once per size pair (masonry keeps them too: AxisPlan.shared).
typedef struct { int w, h, tw, th; plane_plan planes[3]; } size_plan;
static size_plan kept[8];
static int kept_count;

typedef enum { RGB, RAW_ONLY, HORIZONTAL_FIRST, VERTICAL_FIRST } decode_mode;

/// Ring rows a plane keeps for the vertical-first pass: the widest window (32 taps) and an iMCU row.
#define RING 64

/// Decodes `in` as `mode` says: to RGB rows, or to Y'CbCr planes, resampled to the tile or not.
static void decode(const input *in, decode_mode mode) {
    struct jpeg_decompress_struct c;
    struct failure f;
    c.err = jpeg_std_error(&f.manager);
    f.manager.error_exit = fail;
    f.manager.emit_message = quiet;
    if (setjmp(f.escape)) { jpeg_destroy_decompress(&c); return; }
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, in->bytes, in->size);
    jpeg_read_header(&c, TRUE);
    if (mode == RGB) {
        c.out_color_space = JCS_RGB;
        jpeg_start_decompress(&c);
        unsigned char *row = malloc((size_t)c.output_width * 3);
        while (c.output_scanline < c.output_height) {
            jpeg_read_scanlines(&c, &row, 1);
            checksum += row[0];
        }
        free(row);
        jpeg_finish_decompress(&c);
        jpeg_destroy_decompress(&c);
        return;
    }
    if (c.num_components != 3) { jpeg_destroy_decompress(&c); return; }
    c.raw_data_out = TRUE;
    jpeg_start_decompress(&c);
    plane_plan *plans = NULL;
    for (int i = 0; i < kept_count; i++)
        if (kept[i].w == (int)c.image_width && kept[i].h == (int)c.image_height && kept[i].tw == in->tw && kept[i].th == in->th) plans = kept[i].planes;
    if (!plans) {
        if (kept_count == (int)(sizeof kept / sizeof kept[0])) {
            fprintf(stderr, "jpeg-planar-bound: more than %d pairs of picture and tile sizes\n", kept_count);
            exit(2);
        }
        size_plan *made = &kept[kept_count++];
        made->w = (int)c.image_width; made->h = (int)c.image_height; made->tw = in->tw; made->th = in->th;
        plans = made->planes;
        for (int k = 0; k < 3; k++) {
            plans[k].w = (int)((c.image_width * c.comp_info[k].h_samp_factor + c.max_h_samp_factor - 1) / c.max_h_samp_factor);
            plans[k].h = (int)((c.image_height * c.comp_info[k].v_samp_factor + c.max_v_samp_factor - 1) / c.max_v_samp_factor);
            plans[k].hx = make_axis(plans[k].w, in->tw);
            plans[k].vy = make_axis(plans[k].h, in->th);
        }
    }
    // Each plane's rows: a ring whose pointers are listed twice, so that any iMCU row's are consecutive.
    JSAMPROW ring[3][2 * RING];
    int16_t **reduced[3] = { NULL, NULL, NULL };
    int received[3] = { 0, 0, 0 }, emitted[3] = { 0, 0, 0 };
    uint8_t *tile = malloc((size_t)in->tw * in->th * 3);
    uint8_t *tile_planes[3];
    int16_t *column = malloc(sizeof(int16_t) * ((size_t)c.comp_info[0].width_in_blocks * DCTSIZE + 64));
    for (int k = 0; k < 3; k++) {
        size_t width = (size_t)c.comp_info[k].width_in_blocks * DCTSIZE + 64;
        for (int i = 0; i < RING; i++) ring[k][i] = ring[k][i + RING] = malloc(width);
        tile_planes[k] = malloc((size_t)in->tw * in->th + 16);
        if (mode == HORIZONTAL_FIRST) {
            int rows = c.comp_info[k].height_in_blocks * DCTSIZE + 64;
            reduced[k] = malloc(sizeof(int16_t *) * (size_t)rows);
            for (int i = 0; i < rows; i++) reduced[k][i] = malloc(sizeof(int16_t) * ((size_t)in->tw + 16));
        }
    }
    while (c.output_scanline < c.output_height) {
        JSAMPARRAY arrays[3];
        for (int k = 0; k < 3; k++) arrays[k] = &ring[k][received[k] % RING];
        jpeg_read_raw_data(&c, arrays, (JDIMENSION)(c.max_v_samp_factor * DCTSIZE));
        int last = c.output_scanline >= c.output_height;
        for (int k = 0; k < 3; k++) {
            int lines = c.comp_info[k].v_samp_factor * DCTSIZE;
            for (int i = 0; i < lines; i++) {
                JSAMPROW row = ring[k][(received[k] + i) % RING];
                if (mode == RAW_ONLY) checksum += row[0];
                else if (mode == HORIZONTAL_FIRST) horizontal(row, &plans[k].hx, reduced[k][received[k] + i]);
            }
            received[k] += lines;
            if (mode != VERTICAL_FIRST) continue;
            const axis *v = &plans[k].vy;
            // Every tile row whose window has arrived (all that are left after the last iMCU row).
            while (emitted[k] < in->th && (last || v->first[emitted[k]] + v->taps <= received[k])) {
                uint8_t *window[32];
                for (int t = 0; t < v->taps; t++) window[t] = ring[k][(v->first[emitted[k]] + t) % RING];
                vertical_raw(window, v, emitted[k], plans[k].w, column);
                horizontal16(column, &plans[k].hx, tile_planes[k] + (size_t)emitted[k] * in->tw);
                emitted[k]++;
            }
        }
    }
    if (mode == HORIZONTAL_FIRST)
        for (int y = 0; y < in->th; y++)
            for (int k = 0; k < 3; k++) vertical(reduced[k], &plans[k].vy, y, in->tw, tile_planes[k] + (size_t)y * in->tw);
    if (mode != RAW_ONLY)
        for (int y = 0; y < in->th; y++) {
            size_t at = (size_t)y * in->tw;
            ycc_to_rgb(tile_planes[0] + at, tile_planes[1] + at, tile_planes[2] + at, in->tw, tile + at * 3);
        }
    checksum += tile[0];
    if (mode != RAW_ONLY && getenv("PLANAR_DUMP") && !strcmp(getenv("PLANAR_DUMP"), mode == VERTICAL_FIRST ? "v" : "h")) {
        FILE *dump = fopen("tile.ppm", "wb");
        fprintf(dump, "P6\n%d %d\n255\n", in->tw, in->th);
        fwrite(tile, 3, (size_t)in->tw * in->th, dump);
        fclose(dump);
    }
    free(tile);
    free(column);
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < RING; i++) free(ring[k][i]);
        free(tile_planes[k]);
        if (reduced[k]) {
            for (int i = 0; i < (int)c.comp_info[k].height_in_blocks * DCTSIZE + 64; i++) free(reduced[k][i]);
            free(reduced[k]);
        }
    }
    jpeg_finish_decompress(&c);
    jpeg_destroy_decompress(&c);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: jpeg-planar-bound ROUNDS LIST\n"); return 2; }
    int rounds = atoi(argv[1]);
    FILE *list = fopen(argv[2], "r");
    if (rounds < 1 || rounds > 256 || list == NULL) {
        fprintf(stderr, "jpeg-planar-bound: ROUNDS is 1 to 256, and LIST must be readable\n");
        return 2;
    }
    input inputs[4096];
    int count = 0;
    char path[4096];
    while (count < 4096 && fscanf(list, "%4095s %d %d", path, &inputs[count].tw, &inputs[count].th) == 3) {
        FILE *file = fopen(path, "rb");
        if (file == NULL) { fprintf(stderr, "jpeg-planar-bound: cannot open %s\n", path); return 1; }
        fseek(file, 0, SEEK_END);
        inputs[count].size = (size_t)ftell(file);
        fseek(file, 0, SEEK_SET);
        inputs[count].bytes = malloc(inputs[count].size);
        if (fread(inputs[count].bytes, 1, inputs[count].size, file) != inputs[count].size) return 1;
        fclose(file);
        count++;
    }
    enum { MODES = 4 };
    const char *names[MODES] = { "rgb", "raw", "h-first", "v-first" };
    double times[MODES][256], median[MODES];
    for (int r = 0; r < rounds; r++)
        for (int mode = 0; mode < MODES; mode++) {
            double start = cpu_seconds();
            for (int i = 0; i < count; i++) decode(&inputs[i], (decode_mode)mode);
            times[mode][r] = cpu_seconds() - start;
        }
    for (int mode = 0; mode < MODES; mode++) {
        qsort(times[mode], (size_t)rounds, sizeof(double), by_value);
        median[mode] = times[mode][rounds / 2];
        printf("%-8s %.4f s CPU, %.3f × rgb (median of %d rounds, %d files; fastest %.4f s)\n", names[mode], median[mode],
               median[mode] / median[0], rounds, count, times[mode][0]);
    }
    printf("(checksum %lu)\n", checksum % 1000);
    return 0;
}
