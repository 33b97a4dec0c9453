#define LIBRAW_FUNCTIONS_DEFINITION
#include "libraw_functions.h"

#define RESOLVE(name) MB_RESOLVE_FUNCTION(libraw_functions, name)
MB_DEFINE_LIBRARY(libraw, "libraw_r.so.20", LIBRAW_LIBRARY_FUNCTIONS(RESOLVE))
