// The system LibRaw (Debian: libraw-dev 0.20), its C interface. Only CRAWBridge includes it, so
// that every LibRaw call of Masonry sits in one small C file.
#include <libraw/libraw.h>
