// The system LibRaw (Debian: libraw-dev 0.20), its C interface: the headers only. CRAWBridge,
// the one C file that calls it, loads the library itself with dlopen when a RAW is opened, so
// nothing links it.
#include <libraw/libraw.h>
