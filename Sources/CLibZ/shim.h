// The system zlib (Debian: zlib1g-dev), found through pkg-config. PNGCodec
// calls only its checksums (crc32, adler32) from Swift; the tests also use
// `uncompress` to check our deflate streams independently of libpng.
#include <zlib.h>
