// The only code in Masonry that calls Little CMS: see include/ColorBridge.h.
#include "ColorBridge.h"
#include <lcms2.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <math.h>

#define MCMS_MESSAGE_CAPACITY 256

#define MCMS_ENCODE_STEPS 16384

/// A matrix/shaper profile's transform to sRGB as three curves, a matrix and sRGB's curve, in
/// tables lcms filled: about five times lcms's own 8-bit path on this machine (measured with
/// masonry-bench's colour stage), used only when it gives lcms's bytes within one step.
typedef struct {
    float linear[3][256];                  // each channel's sample through its curve
    float matrix[9];                       // linear source RGB to linear sRGB, row major
    uint8_t encode[MCMS_ENCODE_STEPS + 1]; // linear sRGB in 0...1 to an 8-bit sRGB sample
} shaper_model;

struct mcms_transform {
    int premultiplied;                     // RGBA rows premultiplied by alpha
    int channels;                          // 3 or 4 for RGB rows the model can convert, else 0
    shaper_model *model;                   // NULL: lcms converts every pixel
    cmsContext context;
    cmsHTRANSFORM transform;
    char message[MCMS_MESSAGE_CAPACITY];   // lcms's first error, kept while the context lives
    int has_grey_levels;                   // grey profiles: grey_levels holds each level's sRGB value
    uint8_t grey_levels[256];
};

/// lcms's error handler: keeps the first message of the context's owner, prints nothing.
static void capture_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    char *message = cmsGetContextUserData(context);
    if (message != NULL && message[0] == 0 && text != NULL) {
        snprintf(message, MCMS_MESSAGE_CAPACITY, "%s", text);
    }
}

int mcms_library_version(void) { return cmsGetEncodedCMMversion(); }

static cmsUInt32Number lcms_format(mcms_layout layout) {
    switch (layout) {
    case MCMS_RGB8: return TYPE_RGB_8;
    case MCMS_RGBA8_PREMULTIPLIED: return TYPE_RGBA_8;   // straightened around the transform, see apply
    case MCMS_GREY8: return TYPE_GRAY_8;
    case MCMS_CMYK8_INVERTED: return TYPE_CMYK_8_REV;
    case MCMS_RGBA8: return TYPE_RGBA_8;
    }
    return 0;
}

static cmsColorSpaceSignature layout_space(mcms_layout layout) {
    switch (layout) {
    case MCMS_GREY8: return cmsSigGrayData;
    case MCMS_CMYK8_INVERTED: return cmsSigCmykData;
    default: return cmsSigRgbData;
    }
}

static void copy_reason(char *message, size_t capacity, const char *captured, const char *fallback) {
    if (capacity == 0) return;
    snprintf(message, capacity, "%s", captured != NULL && captured[0] != 0 ? captured : fallback);
}

static inline void model_apply(const shaper_model *m, uint8_t *pixels, size_t count, int channels) {
    for (size_t i = 0; i < count; i++, pixels += channels) {
        float r = m->linear[0][pixels[0]], g = m->linear[1][pixels[1]], b = m->linear[2][pixels[2]];
        for (int c = 0; c < 3; c++) {
            float v = m->matrix[3 * c] * r + m->matrix[3 * c + 1] * g + m->matrix[3 * c + 2] * b;
            v = v > 0 ? (v < 1 ? v : 1) : 0;   /* NaN (a profile's curves or matrix) becomes 0: (int)NaN is undefined */
            pixels[c] = m->encode[(int)(v * MCMS_ENCODE_STEPS + 0.5f)];
        }
    }
}

/// The shaper model of `source`'s transform (lcms answers for linear sRGB output in floats),
/// kept only if it gives the 8-bit transform's bytes within one step on a spread of colours
/// (a LUT profile, or anything else that is not three curves and a matrix, fails that).
static shaper_model *build_model(const mcms_transform *t, cmsHPROFILE source, int intent) {
    if (!cmsIsMatrixShaper(source) || cmsGetColorSpace(source) != cmsSigRgbData) return NULL;
    shaper_model *m = calloc(1, sizeof *m);
    if (m == NULL) return NULL;
    cmsCIExyY d65 = { 0.3127, 0.3290, 1.0 };
    cmsCIExyYTRIPLE primaries = { { 0.64, 0.33, 1.0 }, { 0.30, 0.60, 1.0 }, { 0.15, 0.06, 1.0 } };
    cmsToneCurve *identity = cmsBuildGamma(t->context, 1.0);
    cmsToneCurve *curves[3] = { identity, identity, identity };
    cmsHPROFILE linear = identity != NULL ? cmsCreateRGBProfileTHR(t->context, &d65, &primaries, curves) : NULL;
    cmsHTRANSFORM exact = linear != NULL ? cmsCreateTransformTHR(t->context, source, TYPE_RGB_8, linear, TYPE_RGB_FLT,
                                                                 (cmsUInt32Number)intent, cmsFLAGS_NOCACHE) : NULL;
    int usable = exact != NULL;
    if (usable) {
        // Each primary at full strength gives a column of the matrix; each ramp, its curve.
        for (int c = 0; c < 3 && usable; c++) {
            uint8_t one[3] = { 0, 0, 0 };
            float column[3];
            one[c] = 255;
            cmsDoTransform(exact, one, column, 1);
            float norm = column[0] * column[0] + column[1] * column[1] + column[2] * column[2];
            usable = norm > 1e-6f;
            for (int row = 0; row < 3; row++) m->matrix[3 * row + c] = column[row];
            for (int v = 0; v < 256 && usable; v++) {
                uint8_t ramp[3] = { 0, 0, 0 };
                float out[3];
                ramp[c] = (uint8_t)v;
                cmsDoTransform(exact, ramp, out, 1);
                m->linear[c][v] = (out[0] * column[0] + out[1] * column[1] + out[2] * column[2]) / norm;
            }
        }
        for (int i = 0; i <= MCMS_ENCODE_STEPS; i++) {
            double v = (double)i / MCMS_ENCODE_STEPS;
            double e = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
            m->encode[i] = (uint8_t)(e * 255 + 0.5);
        }
        // Checked against lcms's own 8-bit transform on 4096 colours spread over the cube.
        uint8_t samples[4096 * 4], reference[4096 * 4], fast[4096 * 4];
        uint32_t seed = 0x9E3779B9u;
        for (int i = 0; i < 4096 * 4; i++) {
            seed = seed * 1664525u + 1013904223u;
            samples[i] = (uint8_t)(seed >> 24);
            if (i % 4 == 3) samples[i] = 255;
        }
        int stride = t->channels;
        uint8_t packed[4096 * 4];
        for (int i = 0; i < 4096; i++) for (int c = 0; c < stride; c++) packed[stride * i + c] = samples[4 * i + (c < 3 ? c : 3)];
        memcpy(fast, packed, (size_t)4096 * stride);
        cmsDoTransform(t->transform, packed, reference, 4096);
        model_apply(m, fast, 4096, stride);
        for (int i = 0; i < 4096 * stride && usable; i++) {
            if (i % stride == 3) continue;
            int difference = (int)fast[i] - (int)reference[i];
            usable = difference >= -1 && difference <= 1;
        }
    }
    if (exact != NULL) cmsDeleteTransform(exact);
    if (linear != NULL) cmsCloseProfile(linear);
    if (identity != NULL) cmsFreeToneCurve(identity);
    if (!usable) {
        free(m);
        return NULL;
    }
    return m;
}

/// Each 8-bit grey level through the profile in floating point (lcms's optimised 8-bit grey
/// path is coarse where a curve is steep: a gAMA 2.5 picture's level 1 came out 17, not 93).
static int build_grey_levels(mcms_transform *t, cmsHPROFILE source, cmsHPROFILE target, int intent) {
    cmsHTRANSFORM exact = cmsCreateTransformTHR(t->context, source, TYPE_GRAY_FLT, target, TYPE_RGB_FLT,
                                                (cmsUInt32Number)intent, cmsFLAGS_NOCACHE);
    if (exact == NULL) return 0;
    for (int v = 0; v < 256; v++) {
        float grey = (float)v / 255.0f, rgb[3];
        cmsDoTransform(exact, &grey, rgb, 1);
        // A neutral grey is neutral in sRGB: the green sample stands for all three.
        float value = rgb[1] * 255.0f + 0.5f;
        t->grey_levels[v] = (uint8_t)(value <= 0 ? 0 : value >= 255 ? 255 : value);
    }
    cmsDeleteTransform(exact);
    return 1;
}

int mcms_transform_grey_levels(const mcms_transform *t, uint8_t levels[256]) {
    if (!t->has_grey_levels) return 0;
    memcpy(levels, t->grey_levels, 256);
    return 1;
}

mcms_transform *mcms_transform_create(const uint8_t *profile, size_t size, int intent,
                                      mcms_layout input, mcms_layout output,
                                      char *message, size_t capacity) {
    if (capacity > 0) message[0] = 0;
    mcms_transform *t = calloc(1, sizeof *t);
    if (t == NULL) {
        copy_reason(message, capacity, NULL, "out of memory");
        return NULL;
    }
    t->context = cmsCreateContext(NULL, t->message);
    if (t->context == NULL) {
        free(t);
        copy_reason(message, capacity, NULL, "out of memory");
        return NULL;
    }
    cmsSetLogErrorHandlerTHR(t->context, capture_error);
    cmsHPROFILE source = cmsOpenProfileFromMemTHR(t->context, profile, (cmsUInt32Number)size);
    cmsHPROFILE target = cmsCreate_sRGBProfileTHR(t->context);
    const char *reason = "the profile cannot be read";
    if (source != NULL && target != NULL) {
        if (cmsGetColorSpace(source) != layout_space(input)) {
            reason = "the profile's colour space does not match the picture";
        } else {
            cmsUInt32Number flags = cmsFLAGS_NOCACHE;   // no shared one-pixel cache: safe on many threads
            if (input == MCMS_RGBA8_PREMULTIPLIED || input == MCMS_RGBA8) flags |= cmsFLAGS_COPY_ALPHA;
            t->premultiplied = input == MCMS_RGBA8_PREMULTIPLIED;
            t->channels = input == MCMS_RGB8 ? 3 : input == MCMS_GREY8 || input == MCMS_CMYK8_INVERTED ? 0 : 4;
            t->transform = cmsCreateTransformTHR(t->context, source, lcms_format(input), target,
                                                 lcms_format(output), (cmsUInt32Number)intent, flags);
            reason = "the profile cannot be used for a transform";
        }
    }
    if (t->transform != NULL && t->channels != 0) t->model = build_model(t, source, intent);
    if (t->transform != NULL && input == MCMS_GREY8) t->has_grey_levels = build_grey_levels(t, source, target, intent);
    if (source != NULL) cmsCloseProfile(source);
    if (target != NULL) cmsCloseProfile(target);
    if (t->transform == NULL) {
        copy_reason(message, capacity, t->message, reason);
        cmsDeleteContext(t->context);
        free(t);
        return NULL;
    }
    return t;
}

/// Premultiplied RGBA rows are made straight for lcms and premultiplied again after (lcms
/// 2.14's premultiplied formats give wrong colours on its optimised 8-bit path). Opaque pixels
/// are untouched by both steps; transparent ones stay 0.
static void straighten(uint8_t *rgba, size_t pixels) {
    for (size_t i = 0; i < pixels; i++, rgba += 4) {
        unsigned a = rgba[3];
        if (a == 255 || a == 0) continue;
        for (int c = 0; c < 3; c++) {
            unsigned v = (rgba[c] * 255u + a / 2) / a;
            rgba[c] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

static void premultiply(uint8_t *rgba, size_t pixels) {
    for (size_t i = 0; i < pixels; i++, rgba += 4) {
        unsigned a = rgba[3];
        if (a == 255) continue;
        for (int c = 0; c < 3; c++) rgba[c] = (uint8_t)((rgba[c] * a + 127) / 255);
    }
}

void mcms_transform_apply(const mcms_transform *transform, const void *input, void *output, size_t pixels) {
    cmsUInt32Number in_format = cmsGetTransformInputFormat(transform->transform);
    cmsUInt32Number out_format = cmsGetTransformOutputFormat(transform->transform);
    size_t in_bytes = T_BYTES(in_format) * (T_CHANNELS(in_format) + T_EXTRA(in_format));
    size_t out_bytes = T_BYTES(out_format) * (T_CHANNELS(out_format) + T_EXTRA(out_format));
    if (transform->premultiplied && input != output) {
        memcpy(output, input, pixels * in_bytes);
        input = output;
    }
    // lcms takes a 32-bit count: long rows go in pieces.
    const size_t step = 1u << 24;
    for (size_t done = 0; done < pixels; done += step) {
        size_t count = pixels - done < step ? pixels - done : step;
        uint8_t *target = (uint8_t *)output + done * out_bytes;
        if (transform->premultiplied) straighten(target, count);
        if (transform->model != NULL && input == output) {
            model_apply(transform->model, target, count, transform->channels);
        } else {
            cmsDoTransform(transform->transform, (const uint8_t *)input + done * in_bytes, target, (cmsUInt32Number)count);
        }
        if (transform->premultiplied) premultiply(target, count);
    }
}

void mcms_transform_destroy(mcms_transform *transform) {
    if (transform == NULL) return;
    cmsDeleteTransform(transform->transform);
    cmsDeleteContext(transform->context);
    free(transform->model);
    free(transform);
}

/// lcms stamps every profile it creates with the time of day (the ICC header's creation date,
/// bytes 24-35, six big-endian 16-bit fields). A built profile must be the same bytes for the
/// same parameters at any time: its digest is part of the thumbnail cache key and of the header a
/// decoder compares with the header pass's (a profile built a second later read as a changed
/// file). The date is therefore a fixed one, 2000-01-01 00:00:00.
static void fix_creation_date(uint8_t *bytes, size_t length) {
    static const uint8_t date[12] = { 0x07, 0xD0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0 };
    if (length >= 36) memcpy(bytes + 24, date, sizeof date);
}

/// Saves `profile` (closed here) with `description` as its desc tag, into malloc'ed bytes.
static uint8_t *save_profile(cmsContext context, cmsHPROFILE profile, const char *description, size_t *size) {
    uint8_t *bytes = NULL;
    cmsUInt32Number length = 0;
    cmsMLU *text = cmsMLUalloc(context, 1);
    if (profile != NULL && text != NULL && cmsMLUsetASCII(text, "en", "US", description) &&
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, text) &&
        cmsSaveProfileToMem(profile, NULL, &length) && length > 0) {
        bytes = malloc(length);
        if (bytes != NULL && !cmsSaveProfileToMem(profile, bytes, &length)) {
            free(bytes);
            bytes = NULL;
        }
        if (bytes != NULL) fix_creation_date(bytes, length);
    }
    if (text != NULL) cmsMLUfree(text);
    if (profile != NULL) cmsCloseProfile(profile);
    *size = bytes != NULL ? length : 0;
    return bytes;
}

static cmsToneCurve *build_curve(cmsContext context, mcms_curve curve, double gamma) {
    if (curve == MCMS_CURVE_SRGB) {
        // IEC 61966-2.1: Y = ((X + 0.055) / 1.055)^2.4 above 0.04045, X / 12.92 below.
        const cmsFloat64Number parameters[5] = { 2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045 };
        return cmsBuildParametricToneCurve(context, 4, parameters);
    }
    return cmsBuildGamma(context, gamma);
}

uint8_t *mcms_build_rgb_profile(const double c[8], mcms_curve curve, double gamma,
                                const char *description, size_t *size) {
    *size = 0;
    char message[MCMS_MESSAGE_CAPACITY] = {0};
    cmsContext context = cmsCreateContext(NULL, message);
    if (context == NULL) return NULL;
    cmsSetLogErrorHandlerTHR(context, capture_error);
    cmsCIExyY white = { c[0], c[1], 1.0 };
    cmsCIExyYTRIPLE primaries = { { c[2], c[3], 1.0 }, { c[4], c[5], 1.0 }, { c[6], c[7], 1.0 } };
    cmsToneCurve *tone = build_curve(context, curve, gamma);
    uint8_t *bytes = NULL;
    if (tone != NULL) {
        cmsToneCurve *curves[3] = { tone, tone, tone };
        bytes = save_profile(context, cmsCreateRGBProfileTHR(context, &white, &primaries, curves), description, size);
        cmsFreeToneCurve(tone);
    }
    cmsDeleteContext(context);
    return bytes;
}

uint8_t *mcms_build_grey_profile(double gamma, const char *description, size_t *size) {
    *size = 0;
    char message[MCMS_MESSAGE_CAPACITY] = {0};
    cmsContext context = cmsCreateContext(NULL, message);
    if (context == NULL) return NULL;
    cmsSetLogErrorHandlerTHR(context, capture_error);
    cmsToneCurve *tone = cmsBuildGamma(context, gamma);
    uint8_t *bytes = NULL;
    if (tone != NULL) {
        bytes = save_profile(context, cmsCreateGrayProfileTHR(context, cmsD50_xyY(), tone), description, size);
        cmsFreeToneCurve(tone);
    }
    cmsDeleteContext(context);
    return bytes;
}
