#ifndef MASONRY_COLOR_BRIDGE_H
#define MASONRY_COLOR_BRIDGE_H

// The only code in Masonry that calls Little CMS (lcms2).
//
// Every transform is built in a context of its own whose error handler copies
// lcms's message into the transform object instead of printing it (lcms never
// prints). The profile bytes have been validated by ColorManagement's profile
// reader before they get here. No lcms type crosses this header.

#include <stddef.h>
#include <stdint.h>

/// The pixel layouts a transform reads or writes (8 bits a sample).
typedef enum {
    MCMS_RGB8 = 0,            ///< R, G, B
    MCMS_RGBA8_PREMULTIPLIED, ///< R, G, B premultiplied by A, then A (A is copied)
    MCMS_GREY8,               ///< one grey sample
    MCMS_CMYK8_INVERTED,      ///< C, M, Y, K with 0 = full ink (Adobe's JPEG convention); input only
    MCMS_RGBA8,               ///< R, G, B, A not premultiplied (A is copied)
} mcms_layout;

/// The curve of a profile built from parameters (`mcms_build_rgb_profile`).
typedef enum {
    MCMS_CURVE_GAMMA = 0,     ///< value^gamma (a PNG gAMA of 1/2.2 is gamma 2.2)
    MCMS_CURVE_SRGB,          ///< IEC 61966-2.1's piecewise curve
} mcms_curve;

typedef struct mcms_transform mcms_transform;

/// The running Little CMS's version (2140 for 2.14).
int mcms_library_version(void);

/// Builds a transform from the ICC profile in `profile` (`size` bytes) to sRGB
/// (IEC 61966-2.1, built by lcms), with `intent` (ICC: 0 perceptual, 1 relative
/// colorimetric, ...), reading `input` rows and writing `output` rows. The transform
/// may be applied from several threads at once (no pixel cache). On failure returns
/// NULL and copies lcms's message (or the reason) into `message` (`capacity` bytes).
mcms_transform *mcms_transform_create(const uint8_t *profile, size_t size, int intent,
                                      mcms_layout input, mcms_layout output,
                                      char *message, size_t capacity);

/// Converts `pixels` pixels from `input` to `output` (they may be the same buffer
/// when both layouts have the same size). Premultiplied rows are written to `output`
/// straightened, converted and premultiplied again.
void mcms_transform_apply(const mcms_transform *transform, const void *input, void *output, size_t pixels);

void mcms_transform_destroy(mcms_transform *transform);

/// For a transform from a grey profile (`MCMS_GREY8` rows): the sRGB value of each of the 256
/// grey levels, converted in floating point and rounded. Returns 0 (levels untouched) for
/// other transforms, or when lcms could not build the floating-point transform.
int mcms_transform_grey_levels(const mcms_transform *transform, uint8_t levels[256]);

/// Writes an RGB matrix/shaper ICC profile (white point and primaries as CIE xy:
/// wx, wy, rx, ry, gx, gy, bx, by; `curve` with `gamma` for MCMS_CURVE_GAMMA)
/// described as `description`, into a malloc'ed buffer (*size bytes, release it
/// with free()). Returns NULL on failure.
uint8_t *mcms_build_rgb_profile(const double chromaticities[8], mcms_curve curve, double gamma,
                                const char *description, size_t *size);

/// Writes a grey ICC profile (D50 white, value^gamma) described as `description`.
uint8_t *mcms_build_grey_profile(double gamma, const char *description, size_t *size);

#endif
