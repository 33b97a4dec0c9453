// See RasterKernels.h. Compiled for the baseline CPU; only the functions marked
// MRK_AVX2 use AVX2 instructions, and they are called only when mrk_avx2_available().

#include "RasterKernels.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <string.h>

#define MRK_AVX2 __attribute__((target("avx2")))

enum { FRACTION_BITS = 14, SAMPLE_OFFSET = 32768 };

int mrk_avx2_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned int osxsave = 1u << 27, avx = 1u << 28;
    if ((ecx & (osxsave | avx)) != (osxsave | avx)) return 0;
    unsigned int xcr0_low, xcr0_high;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6) != 6) return 0;   // the OS saves XMM and YMM state
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx & (1u << 5)) != 0;       // AVX2
}

/// Within each 128-bit lane: (R0 G0 B0 A0 R1 G1 B1 A1) -> (R0 R1 G0 G1 B0 B1 A0 A1), which
/// turns four consecutive pixels into their quad.
MRK_AVX2 static inline __m256i quad_of_pixels(__m256i four) {
    const __m256i interleave = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                                0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    return _mm256_shuffle_epi8(four, interleave);
}

#define MRK_INLINE static inline __attribute__((always_inline))

/// Stores four pixels' quad at `quad`; with `compare` (a constant where this is inlined),
/// clears the lanes of `*unchanged` where it differs from what `quad` held.
MRK_AVX2 MRK_INLINE void store_quad(__m256i *quad, __m256i shuffled, __m256i *unchanged, const int compare) {
    if (compare) *unchanged = _mm256_and_si256(*unchanged, _mm256_cmpeq_epi64(_mm256_loadu_si256(quad), shuffled));
    _mm256_storeu_si256(quad, shuffled);
}

/// 1 when every lane of `unchanged` is set.
MRK_AVX2 static inline int all_unchanged(__m256i unchanged) { return _mm256_movemask_epi8(unchanged) == -1; }

MRK_AVX2 MRK_INLINE int build_quads(const int16_t *pixels, size_t count, int16_t *quads, const int compare) {
    __m256i unchanged = _mm256_set1_epi8(-1);
    for (size_t k = 0; 4 * k < count; k++) {
        __m256i four = _mm256_loadu_si256((const __m256i *)(pixels + 16 * k));
        store_quad((__m256i *)(quads + 16 * k), quad_of_pixels(four), &unchanged, compare);
    }
    return compare && all_unchanged(unchanged);
}

MRK_AVX2 int mrk_build_quads(const int16_t *pixels, size_t count, int16_t *quads, int compare) {
    return compare ? build_quads(pixels, count, quads, 1) : build_quads(pixels, count, quads, 0);
}

/// 8-bit pixel bytes (four pixels, 16 bytes) widened and multiplied by their factors, minus 32768.
MRK_AVX2 static inline __m256i premultiplied4(__m128i bytes, int straight) {
    __m256i wide = _mm256_cvtepu8_epi16(bytes);
    __m256i factors = _mm256_set1_epi16(255);
    if (straight) {
        // Each pixel's alpha into its four lanes, then 255 into the alpha lane: (a, a, a, 255).
        __m256i alphas = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(wide, 0xFF), 0xFF);
        factors = _mm256_blend_epi16(alphas, factors, 0x88);
    }
    return _mm256_sub_epi16(_mm256_mullo_epi16(wide, factors), _mm256_set1_epi16((short)SAMPLE_OFFSET));
}

MRK_AVX2 MRK_INLINE int quads_from_row(const uint8_t *row, size_t width, mrk_layout layout, int16_t *quads, const int compare) {
    // Four pixels a step, converted and shuffled into their quad in registers (x stays a
    // multiple of 4, so pixels x...x+3 are quad x / 4).
    size_t x = 0;
    __m256i unchanged = _mm256_set1_epi8(-1);
    const __m128i opaque_alpha = _mm_setr_epi8(0, 0, 0, -1, 0, 0, 0, -1, 0, 0, 0, -1, 0, 0, 0, -1);
    switch (layout) {
    case MRK_RGBA8:
    case MRK_OPAQUE_RGBA8:
        for (; x + 4 <= width; x += 4) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(row + 4 * x));
            store_quad((__m256i *)(quads + 4 * x), quad_of_pixels(premultiplied4(bytes, layout == MRK_RGBA8)), &unchanged, compare);
        }
        break;
    case MRK_RGB8: {
        // 16 bytes are read while at least 6 pixels remain.
        const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
        for (; x + 6 <= width; x += 4) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(row + 3 * x));
            __m128i rgba = _mm_or_si128(_mm_shuffle_epi8(bytes, spread), opaque_alpha);
            store_quad((__m256i *)(quads + 4 * x), quad_of_pixels(premultiplied4(rgba, 0)), &unchanged, compare);
        }
        break;
    }
    case MRK_GREY8: {
        const __m128i spread = _mm_setr_epi8(0, 0, 0, -1, 1, 1, 1, -1, 2, 2, 2, -1, 3, 3, 3, -1);
        for (; x + 4 <= width; x += 4) {
            int32_t four;
            memcpy(&four, row + x, 4);
            __m128i rgba = _mm_or_si128(_mm_shuffle_epi8(_mm_cvtsi32_si128(four), spread), opaque_alpha);
            store_quad((__m256i *)(quads + 4 * x), quad_of_pixels(premultiplied4(rgba, 0)), &unchanged, compare);
        }
        break;
    }
    }
    // The last 0...5 pixels one by one, zero-padded to whole quads (at most two).
    int16_t tail[8 * 4] = {0};
    size_t remaining = width - x;
    for (size_t i = 0; i < remaining; i++) {
        const size_t column = x + i;
        const uint8_t *p = layout == MRK_RGB8 ? row + 3 * column : layout == MRK_GREY8 ? row + column : row + 4 * column;
        int r = p[0], g = layout == MRK_GREY8 ? p[0] : p[1], b = layout == MRK_GREY8 ? p[0] : p[2];
        int a = layout == MRK_RGBA8 || layout == MRK_OPAQUE_RGBA8 ? p[3] : 255;
        int factor = layout == MRK_RGBA8 ? a : 255;
        tail[4 * i + 0] = (int16_t)(r * factor - SAMPLE_OFFSET);
        tail[4 * i + 1] = (int16_t)(g * factor - SAMPLE_OFFSET);
        tail[4 * i + 2] = (int16_t)(b * factor - SAMPLE_OFFSET);
        tail[4 * i + 3] = (int16_t)(a * 255 - SAMPLE_OFFSET);
    }
    return build_quads(tail, remaining, quads + 4 * x, compare) && all_unchanged(unchanged);
}

MRK_AVX2 int mrk_quads_from_row(const uint8_t *row, size_t width, mrk_layout layout, int16_t *quads, int compare) {
    return compare ? quads_from_row(row, width, layout, quads, 1) : quads_from_row(row, width, layout, quads, 0);
}

MRK_AVX2 void mrk_horizontal_avx2(const int16_t *quads, const int64_t *first_quad, const int16_t *weights,
                                  size_t quad_count, size_t output_count, int32_t max_sample, int16_t *output) {
    const __m128i start = _mm_set1_epi32((SAMPLE_OFFSET << FRACTION_BITS) + (1 << (FRACTION_BITS - 1)));
    const __m128i zero = _mm_setzero_si128(), largest = _mm_set1_epi32(max_sample);
    const __m128i offset = _mm_set1_epi32(SAMPLE_OFFSET);
    for (size_t x = 0; x < output_count; x++) {
        const int16_t *taps = quads + 16 * first_quad[x];
        const int16_t *tap_weights = weights + 16 * quad_count * x;
        __m256i sum = _mm256_setzero_si256();
        for (size_t q = 0; q < quad_count; q++) {
            __m256i data = _mm256_loadu_si256((const __m256i *)(taps + 16 * q));
            __m256i w = _mm256_loadu_si256((const __m256i *)(tap_weights + 16 * q));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(data, w));
        }
        __m128i total = _mm_add_epi32(_mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1)), start);
        __m128i sample = _mm_min_epi32(_mm_max_epi32(_mm_srai_epi32(total, FRACTION_BITS), zero), largest);
        __m128i shifted = _mm_sub_epi32(sample, offset);
        _mm_storel_epi64((__m128i *)(output + 4 * x), _mm_packs_epi32(shifted, shifted));
    }
}

/// Rounded division by 255 << 14 of clamped sums, as 32-bit levels 0...255.
MRK_AVX2 static inline __m256i levels8(__m256i sum, __m256i largest) {
    const __m256i rounding = _mm256_set1_epi32(255 << (FRACTION_BITS - 1));
    __m256i clamped = _mm256_min_epi32(_mm256_max_epi32(sum, _mm256_setzero_si256()), largest);
    __m256i scaled = _mm256_srai_epi32(_mm256_add_epi32(clamped, rounding), FRACTION_BITS);
    return _mm256_srai_epi32(_mm256_mullo_epi32(scaled, _mm256_set1_epi32(32897)), 23);
}

MRK_AVX2 size_t mrk_same_chunks(const int16_t *row, const int16_t *previous, size_t width, uint64_t *same) {
    uint64_t word = 0;
    size_t chunk = 0, count = 0;
    for (size_t x = 0; x < width; x += 4, chunk++) {
        __m256i equal = _mm256_cmpeq_epi16(_mm256_loadu_si256((const __m256i *)(row + 4 * x)),
                                           _mm256_loadu_si256((const __m256i *)(previous + 4 * x)));
        word |= (uint64_t)(_mm256_movemask_epi8(equal) == -1) << (chunk & 63);
        if ((chunk & 63) == 63) {
            same[chunk >> 6] = word;
            count += (size_t)__builtin_popcountll(word);
            word = 0;
        }
    }
    if (chunk & 63) {
        same[chunk >> 6] = word;
        count += (size_t)__builtin_popcountll(word);
    }
    return count;
}

MRK_AVX2 void mrk_vertical_avx2(const int16_t *const *rows, const int16_t *weights, size_t row_count,
                                const uint64_t *flat_chunks, size_t width, int32_t max_sample, uint8_t *output) {
    const __m256i start = _mm256_set1_epi32(SAMPLE_OFFSET << FRACTION_BITS);
    const __m256i largest = _mm256_set1_epi32(max_sample << FRACTION_BITS);
    const __m256i one_unit = _mm256_set1_epi32(1 << FRACTION_BITS);   // the weights 2^14 and 0, paired
    const __m128i alpha_of_each = _mm_setr_epi8(3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15);
    size_t x = 0;
    // Four pixels a step; the last step may read up to three pixels past the row and
    // stores only the pixels that exist.
    for (; x < width; x += 4) {
        __m256i even = start, odd = start;   // pixels x, x+2 and x+1, x+3
        if (flat_chunks && ((flat_chunks[x >> 8] >> ((x >> 2) & 63)) & 1)) {
            // Every row holds the same four pixels: the weights sum to one unit, so the sum is
            // the first row's samples times one unit, whatever the weights.
            __m256i upper = _mm256_loadu_si256((const __m256i *)(rows[0] + 4 * x)), none = _mm256_setzero_si256();
            even = _mm256_add_epi32(even, _mm256_madd_epi16(_mm256_unpacklo_epi16(upper, none), one_unit));
            odd = _mm256_add_epi32(odd, _mm256_madd_epi16(_mm256_unpackhi_epi16(upper, none), one_unit));
        } else for (size_t p = 0; p + 1 < row_count; p += 2) {
            __m256i upper = _mm256_loadu_si256((const __m256i *)(rows[p] + 4 * x));
            __m256i lower = _mm256_loadu_si256((const __m256i *)(rows[p + 1] + 4 * x));
            __m256i w = _mm256_set1_epi32((int32_t)(((uint32_t)(uint16_t)weights[p + 1] << 16) | (uint16_t)weights[p]));
            even = _mm256_add_epi32(even, _mm256_madd_epi16(_mm256_unpacklo_epi16(upper, lower), w));
            odd = _mm256_add_epi32(odd, _mm256_madd_epi16(_mm256_unpackhi_epi16(upper, lower), w));
        }
        __m256i words = _mm256_packus_epi32(levels8(even, largest), levels8(odd, largest));   // px x, x+1 | x+2, x+3
        __m256i bytes = _mm256_packus_epi16(words, words);
        __m128i four = _mm256_castsi256_si128(_mm256_permute4x64_epi64(bytes, 0x08));      // qwords 0 and 2
        four = _mm_min_epu8(four, _mm_shuffle_epi8(four, alpha_of_each));
        size_t remaining = width - x;
        if (remaining >= 4) {
            _mm_storeu_si128((__m128i *)(output + 4 * x), four);
        } else {
            uint8_t pixels[16];
            _mm_storeu_si128((__m128i *)pixels, four);
            for (size_t i = 0; i < 4 * remaining; i++) output[4 * x + i] = pixels[i];
        }
    }
}

MRK_AVX2 size_t mrk_composite_rgb_avx2(const uint8_t *source, uint8_t *destination, size_t count,
                                      uint8_t red, uint8_t green, uint8_t blue) {
    const __m256i alpha_mask = _mm256_set1_epi32((int32_t)0xFF000000u);
    const int32_t background_word = red | (green << 8) | (blue << 16);
    const __m256i background_bytes = _mm256_set1_epi32(background_word);
    const __m256i background = _mm256_cvtepu8_epi16(_mm_set1_epi32(background_word));
    const __m256i all = _mm256_set1_epi16(255), half = _mm256_set1_epi16(127), one = _mm256_set1_epi16(1);
    const __m256i drop_alpha = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                                0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    size_t x = 0;
    for (; x + 10 <= count; x += 8) {
        __m256i pixels = _mm256_loadu_si256((const __m256i *)(source + 4 * x));
        __m256i alphas = _mm256_and_si256(pixels, alpha_mask);
        __m256i result;
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(alphas, alpha_mask)) == -1) {
            result = pixels;
        } else if (_mm256_testz_si256(pixels, alpha_mask)) {
            result = background_bytes;
        } else {
            __m256i halves[2] = {_mm256_cvtepu8_epi16(_mm256_castsi256_si128(pixels)),
                                 _mm256_cvtepu8_epi16(_mm256_extracti128_si256(pixels, 1))};
            for (int i = 0; i < 2; i++) {
                __m256i alpha = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(halves[i], 0xFF), 0xFF);
                // At most 255·255 + 127 = 65152, so 16-bit lanes hold it, and
                // (t + 1 + (t >> 8)) >> 8 is t / 255 exactly for every t below 65535.
                __m256i total = _mm256_add_epi16(_mm256_add_epi16(_mm256_mullo_epi16(halves[i], all),
                    _mm256_mullo_epi16(background, _mm256_sub_epi16(all, alpha))), half);
                halves[i] = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(total, one), _mm256_srli_epi16(total, 8)), 8);
            }
            // packus pairs the halves lane by lane: qwords hold pixels 0-1, 4-5, 2-3, 6-7.
            result = _mm256_permute4x64_epi64(_mm256_packus_epi16(halves[0], halves[1]), 0xD8);
        }
        __m256i colours = _mm256_shuffle_epi8(result, drop_alpha);   // 12 bytes at the start of each lane
        _mm_storeu_si128((__m128i *)(destination + 3 * x), _mm256_castsi256_si128(colours));
        _mm_storeu_si128((__m128i *)(destination + 3 * x + 12), _mm256_extracti128_si256(colours, 1));
    }
    return x;
}

MRK_AVX2 size_t mrk_premultiply_rgba_avx2(const uint8_t *source, uint8_t *destination, size_t count) {
    const __m256i alpha_mask = _mm256_set1_epi32((int32_t)0xFF000000u);
    const __m256i all = _mm256_set1_epi16(255), half = _mm256_set1_epi16(127), one = _mm256_set1_epi16(1);
    size_t x = 0;
    for (; x + 8 <= count; x += 8) {
        __m256i pixels = _mm256_loadu_si256((const __m256i *)(source + 4 * x));
        __m256i result;
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_and_si256(pixels, alpha_mask), alpha_mask)) == -1) {
            result = pixels;
        } else if (_mm256_testz_si256(pixels, alpha_mask)) {
            result = _mm256_setzero_si256();
        } else {
            __m256i halves[2] = {_mm256_cvtepu8_epi16(_mm256_castsi256_si128(pixels)),
                                 _mm256_cvtepu8_epi16(_mm256_extracti128_si256(pixels, 1))};
            for (int i = 0; i < 2; i++) {
                // Colour lanes times alpha, the alpha lane times 255 (which gives alpha back):
                // t = c·a + 127 is at most 65152, and (t + 1 + (t >> 8)) >> 8 is t / 255 exactly.
                __m256i alpha = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(halves[i], 0xFF), 0xFF);
                __m256i factor = _mm256_blend_epi16(alpha, all, 0x88);
                __m256i total = _mm256_add_epi16(_mm256_mullo_epi16(halves[i], factor), half);
                halves[i] = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(total, one), _mm256_srli_epi16(total, 8)), 8);
            }
            // packus pairs the halves lane by lane: qwords hold pixels 0-1, 4-5, 2-3, 6-7.
            result = _mm256_permute4x64_epi64(_mm256_packus_epi16(halves[0], halves[1]), 0xD8);
        }
        _mm256_storeu_si256((__m256i *)(destination + 4 * x), result);
    }
    return x;
}

MRK_AVX2 MRK_INLINE void box_add_columns(const uint8_t *row, size_t count, uint16_t *sums, const int first) {
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i low = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(row + i)));
        __m256i high = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(row + i + 16)));
        if (!first) {
            low = _mm256_add_epi16(low, _mm256_loadu_si256((const __m256i *)(sums + i)));
            high = _mm256_add_epi16(high, _mm256_loadu_si256((const __m256i *)(sums + i + 16)));
        }
        _mm256_storeu_si256((__m256i *)(sums + i), low);
        _mm256_storeu_si256((__m256i *)(sums + i + 16), high);
    }
    for (; i < count; i++) sums[i] = (uint16_t)((first ? 0 : sums[i]) + row[i]);
}

MRK_AVX2 void mrk_box_add_columns_avx2(const uint8_t *row, size_t count, uint16_t *sums, int first) {
    if (first) box_add_columns(row, count, sums, 1);
    else box_add_columns(row, count, sums, 0);
}

/// Column x's four sums (R, G, B, A) widened to 32-bit lanes; the alpha lane of RGB and grey
/// is left for the caller. RGB reads one lane past its pixel, grey reads its one lane.
MRK_AVX2 MRK_INLINE __m128i column_sums(const uint16_t *sums, size_t x, const mrk_layout layout) {
    switch (layout) {
    case MRK_RGB8: return _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(sums + 3 * x)));
    case MRK_GREY8: return _mm_set1_epi32(sums[x]);
    default: return _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(sums + 4 * x)));
    }
}

MRK_AVX2 MRK_INLINE void box_averages_from_columns(const uint16_t *sums, size_t width, const mrk_layout layout,
                                                   size_t block_width, size_t group_height, const int64_t *reciprocals,
                                                   int bits, int16_t *output) {
    // The average in 64-bit lanes: s · r + 2^(bits − 1) >> bits with s < 2^31, r < 2^62 and
    // s · r < 2^63 (StreamingResampler's bound), as s · r_low + (s · r_high << 32), which wraps
    // to the same 64 bits.
    const __m256i half = _mm256_set1_epi64x((long long)1 << (bits - 1));
    const __m256i low_words = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    const __m128i offset = _mm_set1_epi16((short)0x8000);
    size_t x = 0;
    for (size_t k = 0; x < width; k++) {
        const size_t end = width - x > block_width ? x + block_width : width, columns = end - x;
        __m128i block = _mm_setzero_si128();
        for (; x < end; x++) block = _mm_add_epi32(block, column_sums(sums, x, layout));
        // At most 32768 columns of 257 rows of 255: < 2^31. Opaque RGB and grey count 255 a pixel.
        if (layout == MRK_RGB8 || layout == MRK_GREY8) block = _mm_insert_epi32(block, (int)(255 * columns * group_height), 3);
        const __m256i wide = _mm256_cvtepu32_epi64(block);
        const uint64_t reciprocal = (uint64_t)reciprocals[k];
        const __m256i product = _mm256_add_epi64(
            _mm256_mul_epu32(wide, _mm256_set1_epi64x((long long)(reciprocal & 0xFFFFFFFFu))),
            _mm256_slli_epi64(_mm256_mul_epu32(wide, _mm256_set1_epi64x((long long)(reciprocal >> 32))), 32));
        const __m256i average = _mm256_srli_epi64(_mm256_add_epi64(product, half), bits);
        // Averages are at most 255 · 255: their low words, packed to 16 bits, minus 32768.
        const __m128i words = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(average, low_words));
        _mm_storel_epi64((__m128i *)(output + 4 * k), _mm_xor_si128(_mm_packus_epi32(words, words), offset));
    }
}

MRK_AVX2 void mrk_box_averages_from_columns_avx2(const uint16_t *sums, size_t width, mrk_layout layout, size_t block_width,
                                                 size_t group_height, const int64_t *reciprocals, int bits, int16_t *output) {
    switch (layout) {
    case MRK_RGB8:
        box_averages_from_columns(sums, width, MRK_RGB8, block_width, group_height, reciprocals, bits, output);
        break;
    case MRK_GREY8:
        box_averages_from_columns(sums, width, MRK_GREY8, block_width, group_height, reciprocals, bits, output);
        break;
    default:
        box_averages_from_columns(sums, width, MRK_OPAQUE_RGBA8, block_width, group_height, reciprocals, bits, output);
        break;
    }
}

#else

int mrk_avx2_available(void) { return 0; }
size_t mrk_premultiply_rgba_avx2(const uint8_t *source, uint8_t *destination, size_t count) {
    (void)source; (void)destination; (void)count;
    return 0;
}
size_t mrk_composite_rgb_avx2(const uint8_t *source, uint8_t *destination, size_t count,
                              uint8_t red, uint8_t green, uint8_t blue) {
    (void)source; (void)destination; (void)count; (void)red; (void)green; (void)blue;
    return 0;
}
int mrk_build_quads(const int16_t *pixels, size_t count, int16_t *quads, int compare) {
    (void)pixels; (void)count; (void)quads; (void)compare;
    return 0;
}
int mrk_quads_from_row(const uint8_t *row, size_t width, mrk_layout layout, int16_t *quads, int compare) {
    (void)row; (void)width; (void)layout; (void)quads; (void)compare;
    return 0;
}
void mrk_horizontal_avx2(const int16_t *quads, const int64_t *first_quad, const int16_t *weights,
                         size_t quad_count, size_t output_count, int32_t max_sample, int16_t *output) {
    (void)quads; (void)first_quad; (void)weights; (void)quad_count; (void)output_count; (void)max_sample; (void)output;
}
size_t mrk_same_chunks(const int16_t *row, const int16_t *previous, size_t width, uint64_t *same) {
    (void)row; (void)previous; (void)width; (void)same;
    return 0;
}
void mrk_vertical_avx2(const int16_t *const *rows, const int16_t *weights, size_t row_count,
                       const uint64_t *flat_chunks, size_t width, int32_t max_sample, uint8_t *output) {
    (void)rows; (void)weights; (void)row_count; (void)flat_chunks; (void)width; (void)max_sample; (void)output;
}

void mrk_box_add_columns_avx2(const uint8_t *row, size_t count, uint16_t *sums, int first) {
    (void)row; (void)count; (void)sums; (void)first;
}
void mrk_box_averages_from_columns_avx2(const uint16_t *sums, size_t width, mrk_layout layout, size_t block_width,
                                        size_t group_height, const int64_t *reciprocals, int bits, int16_t *output) {
    (void)sums; (void)width; (void)layout; (void)block_width; (void)group_height; (void)reciprocals; (void)bits; (void)output;
}

#endif
