// The only code in Masonry that calls librsvg (see SVGBridge.h for what it is handed).
//
// librsvg is loaded on the first SVG file (librsvg_functions.h); a machine without it gets a
// one-line reason per SVG file.
#include "SVGBridge.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "librsvg_functions.h"

struct msvg_document {
    RsvgHandle *handle;
    mb_message message;
};

/// The message of the document this thread is loading or rendering: GLib's log handler is
/// process-wide, so each thread names where its own messages go.
static __thread mb_message *thread_message;

/// GLib's default log handler, replaced once: a message goes into the current document's
/// message (the first one wins), never to stderr. Messages logged outside a bridge call (no
/// document on this thread) are dropped.
static void capture_log(const char *domain, GLogLevelFlags level, const char *text, void *user_data) {
    (void)level; (void)user_data;
    if (thread_message != NULL) mb_message_set(thread_message, "%s%s%s", domain ? domain : "", domain ? ": " : "", text ? text : "");
}

static pthread_once_t handler_once = PTHREAD_ONCE_INIT;
static void install_log_handler(void) { g_log_set_default_handler(capture_log, NULL); }

/// Loads librsvg and, once, the log handler.
static mb_status load_library(void) {
    mb_status status = librsvg_library_load();
    if (status == MB_OK) pthread_once(&handler_once, install_log_handler);
    return status;
}

const char *msvg_library_failure(void) {
    return load_library() == MB_OK ? NULL : librsvg_library.failure.text;
}

static char version_text[32];
static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static void make_version(void) {
    if (load_library() != MB_OK) { snprintf(version_text, sizeof version_text, "unavailable"); return; }
    snprintf(version_text, sizeof version_text, "%u.%u.%u", rsvg_major_version, rsvg_minor_version, rsvg_micro_version);
}

const char *msvg_library_version(void) {
    pthread_once(&version_once, make_version);
    return version_text;
}

msvg_document *msvg_document_create(void) {
    if (load_library() != MB_OK) return NULL;
    return calloc(1, sizeof(msvg_document));
}

void msvg_document_destroy(msvg_document *d) {
    if (d == NULL) return;
    if (d->handle) g_object_unref(d->handle);
    free(d);
}

const mb_message *msvg_document_message(const msvg_document *d) { return &d->message; }

/// Keeps a GLib error's words (librsvg's first line: "XML parse error: …"), then frees it.
static void keep_error(msvg_document *d, GError *error, const char *fallback) {
    if (error != NULL && error->message != NULL) {
        size_t length = strcspn(error->message, "\n");
        mb_message_set(&d->message, "%.*s", (int)(length < 200 ? length : 200), error->message);
    } else {
        mb_message_set(&d->message, "%s", fallback);
    }
    if (error != NULL) g_error_free(error);
}

mb_status msvg_document_load(msvg_document *d, const uint8_t *bytes, size_t count, msvg_intrinsic *intrinsic) {
    if (d == NULL || d->handle != NULL || bytes == NULL || intrinsic == NULL) return MB_USAGE;
    thread_message = &d->message;
    GError *error = NULL;
    d->handle = rsvg_handle_new_from_data(bytes, count, &error);
    if (d->handle == NULL) {
        keep_error(d, error, "librsvg cannot read the SVG");
        thread_message = NULL;
        return MB_MALFORMED;
    }
    rsvg_handle_set_dpi(d->handle, 96.0);
    memset(intrinsic, 0, sizeof *intrinsic);
    RsvgLength width = {0}, height = {0};
    RsvgRectangle viewbox = {0};
    rsvg_handle_get_intrinsic_dimensions(d->handle, &intrinsic->has_width, &width, &intrinsic->has_height, &height,
                                         &intrinsic->has_viewbox, &viewbox);
    intrinsic->width = (msvg_length){ width.length, width.unit };
    intrinsic->height = (msvg_length){ height.length, height.unit };
    intrinsic->viewbox_x = viewbox.x;
    intrinsic->viewbox_y = viewbox.y;
    intrinsic->viewbox_width = viewbox.width;
    intrinsic->viewbox_height = viewbox.height;
    intrinsic->has_pixel_size = rsvg_handle_get_intrinsic_size_in_pixels(d->handle, &intrinsic->pixel_width,
                                                                         &intrinsic->pixel_height);
    thread_message = NULL;
    return MB_OK;
}

/// The pixel at `bytes`, native-endian premultiplied ARGB32, rewritten as straight RGBA bytes,
/// as cairo's PNG writer unpremultiplies: each colour (c·255 + a/2) / a.
static inline void straighten(uint8_t *bytes) {
    uint32_t pixel;
    memcpy(&pixel, bytes, 4);
    uint32_t alpha = pixel >> 24, red = (pixel >> 16) & 0xff, green = (pixel >> 8) & 0xff, blue = pixel & 0xff;
    if (alpha == 0) {
        red = green = blue = 0;
    } else if (alpha < 255) {
        red = (red * 255 + alpha / 2) / alpha;
        green = (green * 255 + alpha / 2) / alpha;
        blue = (blue * 255 + alpha / 2) / alpha;
    }
    bytes[0] = (uint8_t)red;
    bytes[1] = (uint8_t)green;
    bytes[2] = (uint8_t)blue;
    bytes[3] = (uint8_t)alpha;
}

/// `count` pixels of cairo's premultiplied ARGB32 to straight RGBA, in place. With SSE2 (x86,
/// little-endian), four pixels that are all transparent (all zero: cairo's colour never exceeds
/// its alpha) or all opaque (red and blue swapped) are done a vector at a time; the others one
/// by one.
static void unpremultiply_argb32(uint8_t *pixels, size_t count) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i alpha_mask = _mm_set1_epi32((int)0xFF000000u), green_alpha = _mm_set1_epi32((int)0xFF00FF00u);
    const __m128i low_byte = _mm_set1_epi32(0xFF);
    for (; i + 4 <= count; i += 4) {
        __m128i four = _mm_loadu_si128((const __m128i *)(pixels + 4 * i));
        __m128i alphas = _mm_and_si128(four, alpha_mask);
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(alphas, alpha_mask)) == 0xFFFF) {
            __m128i swapped = _mm_or_si128(_mm_and_si128(four, green_alpha),
                                           _mm_or_si128(_mm_and_si128(_mm_srli_epi32(four, 16), low_byte),
                                                        _mm_slli_epi32(_mm_and_si128(four, low_byte), 16)));
            _mm_storeu_si128((__m128i *)(pixels + 4 * i), swapped);
        } else if (_mm_movemask_epi8(_mm_cmpeq_epi32(four, _mm_setzero_si128())) != 0xFFFF) {
            for (size_t k = i; k < i + 4; k++) straighten(pixels + 4 * k);
        }
    }
#endif
    for (; i < count; i++) straighten(pixels + 4 * i);
}

mb_status msvg_document_render(msvg_document *d, double natural_width, double natural_height,
                               uint32_t width, uint32_t height, uint8_t *rgba) {
    if (d == NULL || d->handle == NULL || rgba == NULL || !(natural_width > 0) || !(natural_height > 0)) return MB_USAGE;
    // cairo's image surfaces hold at most 32767 pixels a side, with an int stride.
    if (width == 0 || height == 0 || width > 32767 || height > 32767) {
        mb_message_set(&d->message, "cannot render an SVG at %u×%u (cairo's sides are 1 to 32767)", width, height);
        return MB_LIMIT;
    }
    size_t stride = (size_t)width * 4;
    memset(rgba, 0, stride * height);
    cairo_surface_t *surface = cairo_image_surface_create_for_data(rgba, CAIRO_FORMAT_ARGB32, (int)width, (int)height, (int)stride);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        mb_message_set(&d->message, "cairo cannot make a %u×%u canvas", width, height);
        return MB_LIMIT;
    }
    cairo_t *cr = cairo_create(surface);
    cairo_scale(cr, width / natural_width, height / natural_height);
    RsvgRectangle viewport = { 0, 0, natural_width, natural_height };
    thread_message = &d->message;
    GError *error = NULL;
    gboolean drawn = rsvg_handle_render_document(d->handle, cr, &viewport, &error);
    thread_message = NULL;
    int cairo_failure = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    cairo_surface_destroy(surface);
    if (!drawn) {
        keep_error(d, error, "librsvg cannot render the SVG");
        return MB_MALFORMED;
    }
    if (cairo_failure != CAIRO_STATUS_SUCCESS) {
        mb_message_set(&d->message, "cairo failed while drawing the SVG (status %d)", cairo_failure);
        return MB_MALFORMED;
    }
    unpremultiply_argb32(rgba, (size_t)width * height);
    return MB_OK;
}
