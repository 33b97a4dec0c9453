#define LIBJXL_FUNCTIONS_DEFINITION
#include "libjxl_functions.h"

#define RESOLVE(name) MB_RESOLVE_FUNCTION(libjxl_functions, name)
MB_DEFINE_LIBRARY(libjxl, "libjxl.so.0.7", LIBJXL_LIBRARY_FUNCTIONS(RESOLVE))
