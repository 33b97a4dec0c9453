#define LIBTIFF_FUNCTIONS_DEFINITION
#include "libtiff_functions.h"

struct libtiff_library_functions libtiff_functions;

static mb_status resolve_libtiff_functions(mb_library *library) {
#define LIBTIFF_RESOLVE(name) \
    if ((libtiff_functions.name = (__typeof__(libtiff_functions.name))mb_library_symbol(library, #name)) == NULL) return MB_UNSUPPORTED;
    LIBTIFF_LIBRARY_FUNCTIONS(LIBTIFF_RESOLVE)
#undef LIBTIFF_RESOLVE
    return MB_OK;
}

mb_library libtiff_library = MB_LIBRARY("libtiff.so.6", resolve_libtiff_functions);
