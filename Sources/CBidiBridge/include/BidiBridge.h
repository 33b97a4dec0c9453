#ifndef MASONRY_BIDI_BRIDGE_H
#define MASONRY_BIDI_BRIDGE_H
// The only code that calls GNU FriBidi: the Unicode bidirectional algorithm (UAX #9 up to
// rule L2) over one line of text, and Arabic joining and shaping. FriBidi prints nothing and
// reads no file; this bridge only allocates its scratch arrays (bounded by the caller's length).

#include <stdint.h>
#include "bridge_support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// How the paragraph's base direction is chosen.
typedef enum {
    MB_BIDI_LEFT_TO_RIGHT = 0,
    MB_BIDI_RIGHT_TO_LEFT = 1,
    MB_BIDI_FIRST_STRONG = 2   ///< rules P2-P3: the first strong character's, left to right when none
} mb_bidi_direction;

/// What `mb_bidi_layout` does beyond resolving levels and reordering (bits).
enum {
    /// Arabic joining (initial, medial, final, isolated presentation forms, lam-alef
    /// ligatures; the second letter of a ligature becomes U+FEFF) and mirrored glyphs
    /// (brackets) at right-to-left levels: what a line is drawn with.
    MB_BIDI_SHAPE = 1,
    /// Keeps each run of combining marks after its base in visual order (so a mark is drawn
    /// over the glyph to its left) instead of reversing it with the right-to-left run.
    MB_BIDI_MARKS_FOLLOW_BASE = 2
};

/// Lays out the `length` code points of one paragraph that is one line. Writes, for each
/// visual position from left to right, the code point drawn there (`visual`, shaped when
/// `options` has MB_BIDI_SHAPE) and the logical index it came from (`visual_to_logical`);
/// `levels` (logical order, may be NULL) gets each character's resolved embedding level
/// after rule L1, and `paragraph_level` the paragraph's. Returns MB_OK, MB_LIMIT when
/// `length` is over 1 << 20 or memory runs out, MB_USAGE for a negative length.
mb_status mb_bidi_layout(const uint32_t *text, int32_t length, mb_bidi_direction direction, int options,
                         uint32_t *visual, int32_t *visual_to_logical, uint8_t *levels, int *paragraph_level);

/// Whether rule X9 removes `code_point` (explicit embedding controls and boundary neutrals,
/// which BidiCharacterTest.txt leaves out of the visual order).
int mb_bidi_is_removed_by_x9(uint32_t code_point);

#ifdef __cplusplus
}
#endif

#endif
