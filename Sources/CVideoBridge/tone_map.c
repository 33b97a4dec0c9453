#include "tone_map.h"
#include <math.h>
#include <pthread.h>

// The same bytes on every machine: no a * b + c may become a fused multiply-add on one
// architecture and not on another.
#pragma STDC FP_CONTRACT OFF

enum { codes = 65536 };

/// PQ code value → linear light in units of reference white (nits / 100).
static float pq_linear[codes];
/// HLG code value → scene light 0…1 (BT.2100's inverse OETF), before the OOTF.
static float hlg_scene[codes];
/// Linear light 0…1 in steps of 1/65535 → sRGB 8-bit, rounded.
static uint8_t srgb_code[codes];

static void build_tables(void) {
    // SMPTE ST 2084 EOTF.
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128;
    const double c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32;
    // ARIB STD-B67 (BT.2100 HLG) inverse OETF.
    const double a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a);
    for (int code = 0; code < codes; code++) {
        double signal = code / 65535.0;
        double power = pow(signal, 1 / m2);
        double numerator = power - c1 > 0 ? power - c1 : 0;
        pq_linear[code] = (float)(pow(numerator / (c2 - c3 * power), 1 / m1) * 10000 / MVID_REFERENCE_WHITE_NITS);
        hlg_scene[code] = (float)(signal <= 0.5 ? signal * signal / 3 : (exp((signal - c) / a) + b) / 12);
        double linear = signal;
        double encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
        srgb_code[code] = (uint8_t)floor(encoded * 255 + 0.5);
    }
}

static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/// John Hable's filmic curve, as FFmpeg's tonemap filter writes it.
static float hable(float x) {
    const float a = 0.15f, b = 0.50f, c = 0.10f, d = 0.20f, e = 0.02f, f = 0.30f;
    return (x * (x * a + b * c) + d * e) / (x * (x * a + b) + d * f) - e / f;
}

static uint8_t encode(float linear) {
    if (!(linear > 0)) return 0;   // negatives (out of gamut) and NaN
    if (linear >= 1) return 255;
    return srgb_code[(int)(linear * 65535.0f + 0.5f)];
}

void mvid_tone_map_row(const uint16_t *in, uint8_t *out, int width, mvid_transfer transfer, int bt2020_primaries) {
    pthread_once(&tables_once, build_tables);
    const float peak = MVID_HDR_PEAK_NITS / MVID_REFERENCE_WHITE_NITS;
    const float curve_at_peak = hable(peak);
    // BT.2020 → BT.709 in linear light (ITU-R BT.2087, from the two sets of primaries and D65).
    static const float to_bt709[3][3] = {
        { 1.660491f, -0.587641f, -0.072850f },
        { -0.124550f, 1.132900f, -0.008349f },
        { -0.018151f, -0.100579f, 1.118730f },
    };
    for (int x = 0; x < width; x++) {
        const uint16_t *pixel = in + 3 * x;
        float rgb[3];
        if (transfer == mvid_transfer_hlg) {
            float scene[3] = { hlg_scene[pixel[0]], hlg_scene[pixel[1]], hlg_scene[pixel[2]] };
            // BT.2100's OOTF: display light = peak · Ys^(γ − 1) · scene, γ = 1.2 at 1000 cd/m²,
            // Ys the scene luminance of BT.2020's primaries.
            float luminance = 0.2627f * scene[0] + 0.6780f * scene[1] + 0.0593f * scene[2];
            float gain = luminance > 0 ? peak * powf(luminance, 0.2f) : 0;
            for (int i = 0; i < 3; i++) rgb[i] = scene[i] * gain;
        } else {
            for (int i = 0; i < 3; i++) rgb[i] = pq_linear[pixel[i]];
        }
        if (bt2020_primaries) {
            float source[3] = { rgb[0], rgb[1], rgb[2] };
            for (int i = 0; i < 3; i++) rgb[i] = to_bt709[i][0] * source[0] + to_bt709[i][1] * source[1] + to_bt709[i][2] * source[2];
        }
        // The curve on the brightest component, the same scale on all three (hue kept).
        float signal = rgb[0] > rgb[1] ? rgb[0] : rgb[1];
        if (rgb[2] > signal) signal = rgb[2];
        if (signal < 1e-6f) signal = 1e-6f;
        float scale = hable(signal) / curve_at_peak / signal;
        for (int i = 0; i < 3; i++) out[3 * x + i] = encode(rgb[i] * scale);
    }
}
