// The system libjpeg-turbo (Debian: libjpeg62-turbo-dev), found through pkg-config.
// Only CJPEGBridge includes it: libjpeg reports errors through error_exit, which
// must longjmp, so no libjpeg function may be called from Swift directly.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
