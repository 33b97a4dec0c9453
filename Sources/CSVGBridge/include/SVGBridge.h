#ifndef MASONRY_SVG_BRIDGE_H
#define MASONRY_SVG_BRIDGE_H

// The only code in Masonry that calls librsvg (and the cairo and GLib functions it needs).
//
// librsvg is handed bytes Masonry read and checked itself (SVGCodec's SVGHeader and
// SVGDocumentScan bound the document before a byte gets here), through
// rsvg_handle_new_from_data: no base file or URL is ever set and RSVG_HANDLE_FLAG_UNLIMITED is
// never passed, so librsvg's URL resolver refuses every external reference (file, http, a path
// beside the file, XInclude) and allows only `data:` URLs, whose own base refuses every other
// scheme. GLib's log messages (librsvg, GIO) are captured into the document's message, never
// printed. No librsvg, cairo or GLib type crosses this header.

#include <stddef.h>
#include <stdint.h>

#include "bridge_support.h"

/// A length as librsvg read it from the root element: a value and librsvg's unit
/// (0 percent, 1 px, 2 em, 3 ex, 4 in, 5 cm, 6 mm, 7 pt, 8 pc).
typedef struct {
    double value;
    int unit;
} msvg_length;

/// The root element's size as librsvg read it (rsvg_handle_get_intrinsic_dimensions), and
/// its size in pixels at 96 dpi when width and height are both absolute
/// (rsvg_handle_get_intrinsic_size_in_pixels).
typedef struct {
    int has_width, has_height, has_viewbox;
    msvg_length width, height;
    double viewbox_x, viewbox_y, viewbox_width, viewbox_height;
    int has_pixel_size;
    double pixel_width, pixel_height;
} msvg_intrinsic;

typedef struct msvg_document msvg_document;

/// Loads librsvg (librsvg-2.so.2) on the first call: NULL once loaded, else why it could not be.
const char *msvg_library_failure(void);

/// librsvg's version as it runs ("2.54.7"); loads the library. "unavailable" without it.
const char *msvg_library_version(void);

/// A document: NULL without memory or without librsvg (see msvg_library_failure).
msvg_document *msvg_document_create(void);
void msvg_document_destroy(msvg_document *document);
/// The first failure's words (librsvg's error, or a GLib message logged meanwhile).
const mb_message *msvg_document_message(const msvg_document *document);

/// Parses `count` bytes of SVG (librsvg copies them) at 96 dpi and reports the root's size.
/// MB_MALFORMED with librsvg's words when it refuses the document.
mb_status msvg_document_load(msvg_document *document, const uint8_t *bytes, size_t count, msvg_intrinsic *intrinsic);

/// Renders the whole document, whose natural size is `natural_width` × `natural_height` pixels,
/// scaled to exactly `width` × `height` (each axis on its own, as rsvg-convert --width --height)
/// over a transparent canvas, into `rgba`: width × height × 4 bytes of straight-alpha RGBA, top
/// row first (cairo's premultiplied pixels unpremultiplied as cairo's PNG writer does).
/// MB_LIMIT when cairo cannot make the canvas; MB_MALFORMED with librsvg's words when it
/// refuses to render (over its referenced-element limit, an invalid document).
mb_status msvg_document_render(msvg_document *document, double natural_width, double natural_height,
                               uint32_t width, uint32_t height, uint8_t *rgba);

#endif
