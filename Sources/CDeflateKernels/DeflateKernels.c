// See DeflateKernels.h.

#include "DeflateKernels.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { MIN_RUN = 3, MAX_RUN = 258, FIRST_RUN_SYMBOL = 257 };

/// Words of one bitmap: every position of the block, then two zero words, so the 64 bits from
/// any position in the block (bits_at) and a run's scan past the block's end read zeros.
static size_t words_per_bitmap(size_t count) { return count / 64 + 3; }

size_t mdk_bitmap_words(size_t block_bytes) { return 2 * words_per_bitmap(block_bytes); }

/// Sets bit i of `equal` when bytes[i] == bytes[i - distance], for i < count; the rest is zero.
static void mark_repeats(const uint8_t *bytes, size_t count, size_t distance, uint64_t *equal) {
    size_t words = words_per_bitmap(count);
    memset(equal, 0, words * sizeof(uint64_t));
#if defined(__SSE2__)
    // Little-endian: the 16-bit masks laid end to end are the bitmap's words.
    for (size_t i = 0; i < count; i += 16) {
        __m128i here = _mm_loadu_si128((const __m128i *)(bytes + i));
        __m128i before = _mm_loadu_si128((const __m128i *)(bytes + i - distance));
        uint16_t mask = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(here, before));
        memcpy((uint8_t *)equal + i / 8, &mask, sizeof mask);
    }
#else
    for (size_t i = 0; i < count; i++) {
        if (bytes[i] == bytes[i - distance]) equal[i / 64] |= (uint64_t)1 << (i % 64);
    }
#endif
    // Bits from `count` on (the whole groups above read past the block) are cleared.
    if (count % 64 != 0) equal[count / 64] &= ((uint64_t)1 << (count % 64)) - 1;
    for (size_t word = count / 64 + 1; word < words; word++) equal[word] = 0;
}

/// The 64 bits of `bitmap` from `position` on (bit 0 is `position`).
static inline uint64_t bits_at(const uint64_t *bitmap, size_t position) {
    size_t word = position / 64, shift = position % 64;
    uint64_t bits = bitmap[word] >> shift;
    if (shift != 0) bits |= bitmap[word + 1] << (64 - shift);
    return bits;
}

/// Bit i set when positions i, i+1 and i+2 repeat (a run of at least 3 starts at i), for the
/// low 62 bits of `equal`.
static inline uint64_t run_starts(uint64_t equal) { return equal & (equal >> 1) & (equal >> 2); }

/// How many bytes from `position` on repeat, up to `limit` (at least 3 are known to): the
/// distance to the next clear bit of `equal`, scanning word by word.
static inline size_t run_length(const uint64_t *equal, size_t position, size_t limit) {
    size_t word = position / 64;
    uint64_t ends = ~equal[word] & (~(uint64_t)0 << (position % 64));
    while (ends == 0) {
        word++;
        if (word * 64 - position >= limit) return limit;
        ends = ~equal[word];
    }
    size_t length = word * 64 + (size_t)__builtin_ctzll(ends) - position;
    return length < limit ? length : limit;
}

/// Stores the bytes as symbols, widened 16 at a time (may store up to 15 entries past `count`).
static inline void widen(const uint8_t *bytes, size_t count, uint16_t *symbols) {
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (size_t i = 0; i < count; i += 16) {
        __m128i sixteen = _mm_loadu_si128((const __m128i *)(bytes + i));
        _mm_storeu_si128((__m128i *)(symbols + i), _mm_unpacklo_epi8(sixteen, zero));
        _mm_storeu_si128((__m128i *)(symbols + i + 8), _mm_unpackhi_epi8(sixteen, zero));
    }
#else
    for (size_t i = 0; i < count; i++) symbols[i] = bytes[i];
#endif
}

size_t mdk_find_symbols(const uint8_t *bytes, size_t count, size_t first_run_start, size_t pixel,
                        uint16_t *symbols, uint64_t *bitmaps) {
    uint64_t *byte_repeats = bitmaps, *pixel_repeats = bitmaps + words_per_bitmap(count);
    mark_repeats(bytes, count, 1, byte_repeats);
    mark_repeats(bytes, count, pixel, pixel_repeats);

    size_t emitted = 0, position = first_run_start < count ? first_run_start : count;
    widen(bytes, position, symbols);
    emitted = position;
    while (position < count) {
        // Runs need three repeating bytes, so the scan's last two bits are unknown: 62 at a time.
        uint64_t byte_starts = run_starts(bits_at(byte_repeats, position));
        uint64_t pixel_starts = run_starts(bits_at(pixel_repeats, position));
        uint64_t starts = (byte_starts | pixel_starts) & (((uint64_t)1 << 62) - 1);
        size_t literals = starts == 0 ? 62 : (size_t)__builtin_ctzll(starts);
        if (literals > count - position) literals = count - position;
        widen(bytes + position, literals, symbols + emitted);
        emitted += literals;
        position += literals;
        if (starts == 0 || position == count) continue;

        size_t limit = count - position < MAX_RUN ? count - position : MAX_RUN;
        size_t byte_length = (byte_starts >> literals) & 1 ? run_length(byte_repeats, position, limit) : 0;
        // A run at distance 1 as long as allowed wins every tie, so the pixel's is not measured.
        size_t pixel_length = (pixel_starts >> literals) & 1 && byte_length < limit
            ? run_length(pixel_repeats, position, limit) : 0;
        size_t length = byte_length >= pixel_length ? byte_length : pixel_length;
        size_t distance = byte_length >= pixel_length ? 1 : pixel;
        symbols[emitted++] = (uint16_t)(FIRST_RUN_SYMBOL + (distance - 1) * 256 + (length - MIN_RUN));
        position += length;
    }
    return emitted;
}
