#ifndef MASONRY_LIBRAW_FUNCTIONS_H
#define MASONRY_LIBRAW_FUNCTIONS_H
// LibRaw, loaded on the first RAW file (issue #34): linking it (with its OpenMP runtime and
// libstdc++) raised every run's resident memory past the 32 MiB a sheet of ordinary pictures
// stays under (HostileInputTests). The bridge's calls keep their names: each one below is a
// macro for the pointer libraw_library resolved (bridge_support.h's MB_DECLARE_LIBRARY).

#include <libraw/libraw.h>
#include "bridge_support.h"

#define LIBRAW_LIBRARY_FUNCTIONS(X) \
    X(libraw_init) \
    X(libraw_set_dataerror_handler) \
    X(libraw_set_memerror_handler) \
    X(libraw_open_buffer) \
    X(libraw_adjust_sizes_info_only) \
    X(libraw_unpack) \
    X(libraw_dcraw_process) \
    X(libraw_dcraw_make_mem_image) \
    X(libraw_dcraw_clear_mem) \
    X(libraw_recycle_datastream) \
    X(libraw_close) \
    X(libraw_strerror)

/// The pointers, once loaded; libraw_library_load() loads libraw_r.so.20 (the reentrant build) on
/// the first call (MB_OK, or MB_UNSUPPORTED with libraw_library.failure set).
MB_DECLARE_LIBRARY(libraw, LIBRAW_LIBRARY_FUNCTIONS(MB_FUNCTION_POINTER))

// The defining file (libraw_functions.c) names the pointers themselves.
#ifndef LIBRAW_FUNCTIONS_DEFINITION
#define libraw_init libraw_functions.libraw_init
#define libraw_set_dataerror_handler libraw_functions.libraw_set_dataerror_handler
#define libraw_set_memerror_handler libraw_functions.libraw_set_memerror_handler
#define libraw_open_buffer libraw_functions.libraw_open_buffer
#define libraw_adjust_sizes_info_only libraw_functions.libraw_adjust_sizes_info_only
#define libraw_unpack libraw_functions.libraw_unpack
#define libraw_dcraw_process libraw_functions.libraw_dcraw_process
#define libraw_dcraw_make_mem_image libraw_functions.libraw_dcraw_make_mem_image
#define libraw_dcraw_clear_mem libraw_functions.libraw_dcraw_clear_mem
#define libraw_recycle_datastream libraw_functions.libraw_recycle_datastream
#define libraw_close libraw_functions.libraw_close
#define libraw_strerror libraw_functions.libraw_strerror
#endif

#endif
