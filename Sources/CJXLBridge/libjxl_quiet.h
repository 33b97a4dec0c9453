#ifndef MASONRY_LIBJXL_QUIET_H
#define MASONRY_LIBJXL_QUIET_H
// libjxl 0.7 as Debian builds it prints a line to stderr for every failure it meets in a damaged
// file ("./lib/jxl/...: JXL_FAILURE: Tree is too large"; its JXL_DEBUG_ON_ERROR is on), from any
// thread, with no setting to stop it. Once libjxl is loaded, its own imports of the printing
// functions (__vfprintf_chk, __fprintf_chk, __printf_chk: its GOT slots) are pointed at functions
// that keep the calling thread's first line instead (libjxl_words). Nothing else in the process
// changes: every other library keeps glibc's functions, and libjxl's snprintf stays glibc's.

#include "bridge_support.h"

/// Loads libjxl (libjxl_library_load) and, the first time, silences it as above. MB_OK or MB_UNSUPPORTED.
mb_status libjxl_load_quietly(void);

/// Forgets the calling thread's kept line (at the start of each bridge call).
void libjxl_words_clear(void);

/// The calling thread's first line libjxl tried to print since libjxl_words_clear, without its
/// source-file prefix and line break ("Tree is too large: 1601 nodes vs 1600 max nodes"), or "".
const char *libjxl_words(void);

#endif
