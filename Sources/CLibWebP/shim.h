// The system libwebp (Debian: libwebp-dev), found through pkg-config. Only CWebPBridge
// includes it, so that every libwebp call of Masonry sits in one small C file.
#include <webp/decode.h>
