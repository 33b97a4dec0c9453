#define LIBRSVG_FUNCTIONS_DEFINITION
#include "librsvg_functions.h"

#define RESOLVE(name) MB_RESOLVE_FUNCTION(librsvg_functions, name)
MB_DEFINE_LIBRARY(librsvg, "librsvg-2.so.2", LIBRSVG_LIBRARY_FUNCTIONS(RESOLVE))
