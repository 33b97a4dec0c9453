#define LIBTIFF_FUNCTIONS_DEFINITION
#include "libtiff_functions.h"

#define RESOLVE(name) MB_RESOLVE_FUNCTION(libtiff_functions, name)
MB_DEFINE_LIBRARY(libtiff, "libtiff.so.6", LIBTIFF_LIBRARY_FUNCTIONS(RESOLVE))
