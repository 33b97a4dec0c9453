#define LIBHEIF_FUNCTIONS_DEFINITION
#include "libheif_functions.h"

struct libheif_library_functions libheif_functions;

static mb_status resolve_libheif_functions(mb_library *library) {
#define LIBHEIF_RESOLVE(name) \
    if ((libheif_functions.name = (__typeof__(libheif_functions.name))mb_library_symbol(library, #name)) == NULL) return MB_UNSUPPORTED;
    LIBHEIF_LIBRARY_FUNCTIONS(LIBHEIF_RESOLVE)
#undef LIBHEIF_RESOLVE
    return MB_OK;
}

mb_library libheif_library = MB_LIBRARY("libheif.so.1", resolve_libheif_functions);
