#ifndef MASONRY_LIBJXL_FUNCTIONS_H
#define MASONRY_LIBJXL_FUNCTIONS_H
// libjxl, loaded on the first JPEG XL file (issue #34): it brings libhwy and libbrotli with it.
// The bridge's calls keep their names: each one below is a macro for the pointer that
// libjxl_library resolved, so a call the list lacks fails to link (nothing links libjxl).
// Every entry point of the bridge calls libjxl_library_load() before its first call.

#include <jxl/decode.h>
#include "bridge_support.h"

#define LIBJXL_LIBRARY_FUNCTIONS(X) \
    X(JxlDecoderCreate) \
    X(JxlDecoderDestroy) \
    X(JxlDecoderGetBasicInfo) \
    X(JxlDecoderGetColorAsEncodedProfile) \
    X(JxlDecoderGetColorAsICCProfile) \
    X(JxlDecoderGetICCProfileSize) \
    X(JxlDecoderImageOutBufferSize) \
    X(JxlDecoderProcessInput) \
    X(JxlDecoderReleaseInput) \
    X(JxlDecoderSetCoalescing) \
    X(JxlDecoderSetImageOutBuffer) \
    X(JxlDecoderSetInput) \
    X(JxlDecoderSetKeepOrientation) \
    X(JxlDecoderSetPreferredColorProfile) \
    X(JxlDecoderSubscribeEvents) \
    X(JxlDecoderVersion)

/// The pointers, once loaded; libjxl_library_load() loads libjxl.so.0.7 on the first call (MB_OK,
/// or MB_UNSUPPORTED with libjxl_library.failure set).
MB_DECLARE_LIBRARY(libjxl, LIBJXL_LIBRARY_FUNCTIONS(MB_FUNCTION_POINTER))

// The defining file (libjxl_functions.c) names the pointers themselves.
#ifndef LIBJXL_FUNCTIONS_DEFINITION
#define JxlDecoderCreate libjxl_functions.JxlDecoderCreate
#define JxlDecoderDestroy libjxl_functions.JxlDecoderDestroy
#define JxlDecoderGetBasicInfo libjxl_functions.JxlDecoderGetBasicInfo
#define JxlDecoderGetColorAsEncodedProfile libjxl_functions.JxlDecoderGetColorAsEncodedProfile
#define JxlDecoderGetColorAsICCProfile libjxl_functions.JxlDecoderGetColorAsICCProfile
#define JxlDecoderGetICCProfileSize libjxl_functions.JxlDecoderGetICCProfileSize
#define JxlDecoderImageOutBufferSize libjxl_functions.JxlDecoderImageOutBufferSize
#define JxlDecoderProcessInput libjxl_functions.JxlDecoderProcessInput
#define JxlDecoderReleaseInput libjxl_functions.JxlDecoderReleaseInput
#define JxlDecoderSetCoalescing libjxl_functions.JxlDecoderSetCoalescing
#define JxlDecoderSetImageOutBuffer libjxl_functions.JxlDecoderSetImageOutBuffer
#define JxlDecoderSetInput libjxl_functions.JxlDecoderSetInput
#define JxlDecoderSetKeepOrientation libjxl_functions.JxlDecoderSetKeepOrientation
#define JxlDecoderSetPreferredColorProfile libjxl_functions.JxlDecoderSetPreferredColorProfile
#define JxlDecoderSubscribeEvents libjxl_functions.JxlDecoderSubscribeEvents
#define JxlDecoderVersion libjxl_functions.JxlDecoderVersion
#endif

#endif
