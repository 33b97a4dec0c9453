#include "BidiBridge.h"
#include <fribidi.h>
#include <stdlib.h>
#include <string.h>

enum { MB_BIDI_MAX_LENGTH = 1 << 20 };

mb_status mb_bidi_layout(const uint32_t *text, int32_t length, mb_bidi_direction direction, int options,
                         uint32_t *visual, int32_t *visual_to_logical, uint8_t *levels, int *paragraph_level) {
    if (length < 0) return MB_USAGE;
    if (length > MB_BIDI_MAX_LENGTH) return MB_LIMIT;
    if (length == 0) {
        *paragraph_level = direction == MB_BIDI_RIGHT_TO_LEFT;
        return MB_OK;
    }
    size_t count = (size_t)length;
    FriBidiCharType *types = malloc(count * sizeof *types);
    FriBidiBracketType *brackets = malloc(count * sizeof *brackets);
    FriBidiLevel *resolved = malloc(count * sizeof *resolved);
    FriBidiJoiningType *joining = malloc(count * sizeof *joining);
    FriBidiArabicProp *arabic = malloc(count * sizeof *arabic);
    FriBidiStrIndex *map = malloc(count * sizeof *map);
    mb_status status = MB_OK;
    if (!types || !brackets || !resolved || !joining || !arabic || !map) {
        status = MB_LIMIT;
        goto done;
    }
    const FriBidiChar *characters = (const FriBidiChar *)text;
    fribidi_get_bidi_types(characters, length, types);
    fribidi_get_bracket_types(characters, length, types, brackets);
    FriBidiParType base = direction == MB_BIDI_LEFT_TO_RIGHT ? FRIBIDI_PAR_LTR
                        : direction == MB_BIDI_RIGHT_TO_LEFT ? FRIBIDI_PAR_RTL : FRIBIDI_PAR_ON;
    if (fribidi_get_par_embedding_levels_ex(types, brackets, length, &base, resolved) == 0) {
        status = MB_LIMIT;   // FriBidi fails only when it cannot allocate
        goto done;
    }
    memcpy(visual, text, count * sizeof *visual);
    if (options & MB_BIDI_SHAPE) {
        fribidi_get_joining_types(characters, length, joining);
        memcpy(arabic, joining, count * sizeof *arabic);
        fribidi_join_arabic(types, length, resolved, arabic);
        fribidi_shape(FRIBIDI_FLAG_SHAPE_MIRRORING | FRIBIDI_FLAGS_ARABIC, resolved, length, arabic,
                      (FriBidiChar *)visual);
    }
    for (int32_t index = 0; index < length; index++) map[index] = index;
    FriBidiFlags flags = options & MB_BIDI_MARKS_FOLLOW_BASE ? FRIBIDI_FLAG_REORDER_NSM : 0;
    if (fribidi_reorder_line(flags, types, length, 0, base, resolved, (FriBidiChar *)visual, map) == 0) {
        status = MB_LIMIT;
        goto done;
    }
    for (int32_t index = 0; index < length; index++) visual_to_logical[index] = map[index];
    if (levels) for (int32_t index = 0; index < length; index++) levels[index] = resolved[index];
    *paragraph_level = FRIBIDI_DIR_TO_LEVEL(base);
done:
    free(types);
    free(brackets);
    free(resolved);
    free(joining);
    free(arabic);
    free(map);
    return status;
}

int mb_bidi_is_removed_by_x9(uint32_t code_point) {
    return FRIBIDI_IS_EXPLICIT_OR_BN(fribidi_get_bidi_type(code_point)) != 0;
}
