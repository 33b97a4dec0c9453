#define LIBHEIF_FUNCTIONS_DEFINITION
#include "libheif_functions.h"

#define RESOLVE(name) MB_RESOLVE_FUNCTION(libheif_functions, name)
MB_DEFINE_LIBRARY(libheif, "libheif.so.1", LIBHEIF_LIBRARY_FUNCTIONS(RESOLVE))
