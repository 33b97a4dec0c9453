#define LIBAV_FUNCTIONS_DEFINITION
#include "libav_functions.h"

struct libav_library_functions libav_functions;

static mb_status resolve_libswscale_functions(mb_library *library) {
#define LIBAV_RESOLVE(name) MB_RESOLVE_FUNCTION(libav_functions, name)
    LIBSWSCALE_LIBRARY_FUNCTIONS(LIBAV_RESOLVE)
    return MB_OK;
}

static mb_library libswscale_library = MB_LIBRARY("libswscale.so.6", resolve_libswscale_functions);

/// libavformat's functions and its dependencies' (dlsym searches a handle's dependency tree),
/// then libswscale, whose failure becomes libavformat's.
static mb_status resolve_libavformat_functions(mb_library *library) {
    LIBAVFORMAT_LIBRARY_FUNCTIONS(LIBAV_RESOLVE)
#undef LIBAV_RESOLVE
    if (mb_library_load(&libswscale_library) != MB_OK) {
        mb_message_set(&library->failure, "%s", libswscale_library.failure.text);
        return MB_UNSUPPORTED;
    }
    return MB_OK;
}

mb_library libavformat_library = MB_LIBRARY("libavformat.so.59", resolve_libavformat_functions);
