// The system libheif (Debian: libheif-dev 1.15, with libde265 for HEVC and dav1d/aom for AV1),
// found through pkg-config. Only CHEIFBridge includes it: every libheif call, and the copying of
// its error messages, stays in that C target.
#include <libheif/heif.h>
