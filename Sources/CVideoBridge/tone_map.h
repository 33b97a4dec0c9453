#ifndef MASONRY_TONE_MAP_H
#define MASONRY_TONE_MAP_H
// HDR to SDR for video posters (issue #30): plain C arithmetic on the rows swscale converted to
// 16-bit non-linear RGB, the same bytes on every machine (no threads, no contraction into fused
// multiply-adds, tables built once from the formulas).

#include <stdint.h>

/// The HDR transfers Masonry tone-maps (ITU-T H.273 code points).
typedef enum {
    mvid_transfer_sdr = 0,   ///< anything else: converted as SDR, untouched
    mvid_transfer_pq = 16,   ///< SMPTE ST 2084 (AVCOL_TRC_SMPTE2084)
    mvid_transfer_hlg = 18   ///< ARIB STD-B67 (AVCOL_TRC_ARIB_STD_B67)
} mvid_transfer;

/// The nominal peak of an HLG display (BT.2100's OOTF gamma 1.2 is for 1000 cd/m²), and the
/// tone curve's peak for both transfers: what is brighter is clipped to white.
#define MVID_HDR_PEAK_NITS 1000.0f
/// SDR reference white (FFmpeg's `npl=100`, REFERENCE_WHITE in its tonemap filter): linear 1.0.
#define MVID_REFERENCE_WHITE_NITS 100.0f

/// Tone-maps one row of `width` pixels of 16-bit R'G'B' (the stream's transfer, full range) to
/// 8-bit sRGB: linearised (PQ EOTF; HLG inverse OETF then BT.2100's OOTF for a 1000 cd/m²
/// display), BT.2020 primaries converted to BT.709 when `bt2020_primaries`, Hable's filmic curve
/// (FFmpeg's `tonemap=hable:desat=0:peak=10`) applied to the largest component and scaled
/// into all three, negative (out-of-gamut) components and overshoots clipped to 0…1, then the
/// sRGB curve.
void mvid_tone_map_row(const uint16_t *in, uint8_t *out, int width, mvid_transfer transfer, int bt2020_primaries);

#endif
