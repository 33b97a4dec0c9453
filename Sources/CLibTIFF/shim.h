// The system libtiff (Debian: libtiff-dev), found through pkg-config. Only CTIFFBridge
// includes it, so that every libtiff call of Masonry sits in one small C file.
#include <tiffio.h>
