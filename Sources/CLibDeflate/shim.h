// libdeflate from Debian (libdeflate-dev): whole-buffer inflate, and the
// vectorised Adler-32 and CRC-32 that Debian's zlib lacks.
#include <libdeflate.h>
