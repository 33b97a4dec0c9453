#ifndef MASONRY_LIBTIFF_FUNCTIONS_H
#define MASONRY_LIBTIFF_FUNCTIONS_H
// libtiff, loaded on the first TIFF file (issue #34): it brings zstd, lzma, LERC and JBIG with it.
// The bridge's calls keep their names: each one below is a macro for the pointer that
// libtiff_library resolved, so a call the list lacks fails to link (nothing links libtiff).
// Every entry point of the bridge calls libtiff_library_load() before its first call.

#include <tiffio.h>
#include "bridge_support.h"

#define LIBTIFF_LIBRARY_FUNCTIONS(X) \
    X(TIFFClientOpenExt) \
    X(TIFFClose) \
    X(TIFFComputeTile) \
    X(TIFFCurrentDirOffset) \
    X(TIFFGetField) \
    X(TIFFGetFieldDefaulted) \
    X(TIFFGetVersion) \
    X(TIFFIsCODECConfigured) \
    X(TIFFIsTiled) \
    X(TIFFNumberOfStrips) \
    X(TIFFNumberOfTiles) \
    X(TIFFOpenOptionsAlloc) \
    X(TIFFOpenOptionsFree) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) \
    X(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    X(TIFFOpenOptionsSetWarningHandlerExtR) \
    X(TIFFReadEncodedStrip) \
    X(TIFFReadEncodedTile) \
    X(TIFFReadScanline) \
    X(TIFFScanlineSize64) \
    X(TIFFSetErrorHandler) \
    X(TIFFSetErrorHandlerExt) \
    X(TIFFSetField) \
    X(TIFFSetSubDirectory) \
    X(TIFFSetWarningHandler) \
    X(TIFFSetWarningHandlerExt) \
    X(TIFFStripSize) \
    X(TIFFTileRowSize64) \
    X(TIFFTileSize) \
    X(TIFFTileSize64) \
    X(_TIFFfree) \
    X(_TIFFmalloc)

/// The pointers, once loaded; libtiff_library_load() loads libtiff.so.6 on the first call (MB_OK, or
/// MB_UNSUPPORTED with libtiff_library.failure set).
MB_DECLARE_LIBRARY(libtiff, LIBTIFF_LIBRARY_FUNCTIONS(MB_FUNCTION_POINTER))

// The defining file (libtiff_functions.c) names the pointers themselves.
#ifndef LIBTIFF_FUNCTIONS_DEFINITION
#define TIFFClientOpenExt libtiff_functions.TIFFClientOpenExt
#define TIFFClose libtiff_functions.TIFFClose
#define TIFFComputeTile libtiff_functions.TIFFComputeTile
#define TIFFCurrentDirOffset libtiff_functions.TIFFCurrentDirOffset
#define TIFFGetField libtiff_functions.TIFFGetField
#define TIFFGetFieldDefaulted libtiff_functions.TIFFGetFieldDefaulted
#define TIFFGetVersion libtiff_functions.TIFFGetVersion
#define TIFFIsCODECConfigured libtiff_functions.TIFFIsCODECConfigured
#define TIFFIsTiled libtiff_functions.TIFFIsTiled
#define TIFFNumberOfStrips libtiff_functions.TIFFNumberOfStrips
#define TIFFNumberOfTiles libtiff_functions.TIFFNumberOfTiles
#define TIFFOpenOptionsAlloc libtiff_functions.TIFFOpenOptionsAlloc
#define TIFFOpenOptionsFree libtiff_functions.TIFFOpenOptionsFree
#define TIFFOpenOptionsSetErrorHandlerExtR libtiff_functions.TIFFOpenOptionsSetErrorHandlerExtR
#define TIFFOpenOptionsSetMaxSingleMemAlloc libtiff_functions.TIFFOpenOptionsSetMaxSingleMemAlloc
#define TIFFOpenOptionsSetWarningHandlerExtR libtiff_functions.TIFFOpenOptionsSetWarningHandlerExtR
#define TIFFReadEncodedStrip libtiff_functions.TIFFReadEncodedStrip
#define TIFFReadEncodedTile libtiff_functions.TIFFReadEncodedTile
#define TIFFReadScanline libtiff_functions.TIFFReadScanline
#define TIFFScanlineSize64 libtiff_functions.TIFFScanlineSize64
#define TIFFSetErrorHandler libtiff_functions.TIFFSetErrorHandler
#define TIFFSetErrorHandlerExt libtiff_functions.TIFFSetErrorHandlerExt
#define TIFFSetField libtiff_functions.TIFFSetField
#define TIFFSetSubDirectory libtiff_functions.TIFFSetSubDirectory
#define TIFFSetWarningHandler libtiff_functions.TIFFSetWarningHandler
#define TIFFSetWarningHandlerExt libtiff_functions.TIFFSetWarningHandlerExt
#define TIFFStripSize libtiff_functions.TIFFStripSize
#define TIFFTileRowSize64 libtiff_functions.TIFFTileRowSize64
#define TIFFTileSize libtiff_functions.TIFFTileSize
#define TIFFTileSize64 libtiff_functions.TIFFTileSize64
#define _TIFFfree libtiff_functions._TIFFfree
#define _TIFFmalloc libtiff_functions._TIFFmalloc
#endif

#endif
