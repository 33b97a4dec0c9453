#ifndef MASONRY_LIBRSVG_FUNCTIONS_H
#define MASONRY_LIBRSVG_FUNCTIONS_H
// librsvg 2.54 (with the cairo and GLib functions the bridge calls), loaded on the first SVG file
// (issue #34): librsvg-2.so.2 brings cairo, Pango, fontconfig, GIO and libxml2 with it.
//
// The declarations are the bridge's own, copied from the public C API (rsvg.h, cairo.h,
// glib's gerror.h and gmessages.h): those headers include GLib's, cairo's and gdk-pixbuf's from
// folders only pkg-config names, and pkg-config would also link the libraries, which a run that
// reads no SVG must not map. Only the types the bridge touches are spelled out; the handle and
// cairo's objects stay opaque. dlsym on librsvg's handle finds cairo's and GLib's functions too
// (they are its dependencies, loaded with it).

#include <stddef.h>
#include <stdint.h>
#include "bridge_support.h"

typedef int gboolean;
typedef struct _RsvgHandle RsvgHandle;
typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
/// GLib's error: the message is what the bridge keeps.
typedef struct { uint32_t domain; int code; char *message; } GError;
/// An RsvgRectangle (the viewport).
typedef struct { double x, y, width, height; } RsvgRectangle;
/// An RsvgLength: a value and its RsvgUnit (0 %, 1 px, 2 em, 3 ex, 4 in, 5 cm, 6 mm, 7 pt, 8 pc).
typedef struct { double length; int unit; } RsvgLength;
typedef int GLogLevelFlags;
typedef void (*GLogFunc)(const char *log_domain, GLogLevelFlags log_level, const char *message, void *user_data);

enum { CAIRO_FORMAT_ARGB32 = 0, CAIRO_STATUS_SUCCESS = 0 };

RsvgHandle *rsvg_handle_new_from_data(const uint8_t *data, size_t data_len, GError **error);
void rsvg_handle_set_dpi(RsvgHandle *handle, double dpi);
gboolean rsvg_handle_get_intrinsic_size_in_pixels(RsvgHandle *handle, double *out_width, double *out_height);
void rsvg_handle_get_intrinsic_dimensions(RsvgHandle *handle, gboolean *out_has_width, RsvgLength *out_width,
                                          gboolean *out_has_height, RsvgLength *out_height,
                                          gboolean *out_has_viewbox, RsvgRectangle *out_viewbox);
gboolean rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport, GError **error);
extern const unsigned int rsvg_major_version, rsvg_minor_version, rsvg_micro_version;

cairo_surface_t *cairo_image_surface_create_for_data(unsigned char *data, int format, int width, int height, int stride);
int cairo_surface_status(cairo_surface_t *surface);
void cairo_surface_flush(cairo_surface_t *surface);
void cairo_surface_destroy(cairo_surface_t *surface);
cairo_t *cairo_create(cairo_surface_t *target);
int cairo_status(cairo_t *cr);
void cairo_scale(cairo_t *cr, double sx, double sy);
void cairo_destroy(cairo_t *cr);

void g_object_unref(void *object);
void g_error_free(GError *error);
GLogFunc g_log_set_default_handler(GLogFunc log_func, void *user_data);

#define LIBRSVG_LIBRARY_FUNCTIONS(X) \
    X(rsvg_handle_new_from_data) \
    X(rsvg_handle_set_dpi) \
    X(rsvg_handle_get_intrinsic_size_in_pixels) \
    X(rsvg_handle_get_intrinsic_dimensions) \
    X(rsvg_handle_render_document) \
    X(rsvg_major_version) \
    X(rsvg_minor_version) \
    X(rsvg_micro_version) \
    X(cairo_image_surface_create_for_data) \
    X(cairo_surface_status) \
    X(cairo_surface_flush) \
    X(cairo_surface_destroy) \
    X(cairo_create) \
    X(cairo_status) \
    X(cairo_scale) \
    X(cairo_destroy) \
    X(g_object_unref) \
    X(g_error_free) \
    X(g_log_set_default_handler)

/// The pointers, once loaded; librsvg_library_load() loads librsvg-2.so.2 on the first call (MB_OK,
/// or MB_UNSUPPORTED with librsvg_library.failure set).
MB_DECLARE_LIBRARY(librsvg, LIBRSVG_LIBRARY_FUNCTIONS(MB_FUNCTION_POINTER))

// The defining file (librsvg_functions.c) names the pointers themselves.
#ifndef LIBRSVG_FUNCTIONS_DEFINITION
#define rsvg_handle_new_from_data librsvg_functions.rsvg_handle_new_from_data
#define rsvg_handle_set_dpi librsvg_functions.rsvg_handle_set_dpi
#define rsvg_handle_get_intrinsic_size_in_pixels librsvg_functions.rsvg_handle_get_intrinsic_size_in_pixels
#define rsvg_handle_get_intrinsic_dimensions librsvg_functions.rsvg_handle_get_intrinsic_dimensions
#define rsvg_handle_render_document librsvg_functions.rsvg_handle_render_document
#define rsvg_major_version (*librsvg_functions.rsvg_major_version)
#define rsvg_minor_version (*librsvg_functions.rsvg_minor_version)
#define rsvg_micro_version (*librsvg_functions.rsvg_micro_version)
#define cairo_image_surface_create_for_data librsvg_functions.cairo_image_surface_create_for_data
#define cairo_surface_status librsvg_functions.cairo_surface_status
#define cairo_surface_flush librsvg_functions.cairo_surface_flush
#define cairo_surface_destroy librsvg_functions.cairo_surface_destroy
#define cairo_create librsvg_functions.cairo_create
#define cairo_status librsvg_functions.cairo_status
#define cairo_scale librsvg_functions.cairo_scale
#define cairo_destroy librsvg_functions.cairo_destroy
#define g_object_unref librsvg_functions.g_object_unref
#define g_error_free librsvg_functions.g_error_free
#define g_log_set_default_handler librsvg_functions.g_log_set_default_handler
#endif

#endif
