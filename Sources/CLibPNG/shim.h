// The system libpng (Debian: libpng-dev), found through pkg-config.
// Only CPNGBridge includes it: libpng reports errors with longjmp, so no
// libpng function may be called from Swift directly.
#include <png.h>
#include <zlib.h>
