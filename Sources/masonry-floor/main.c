// masonry-floor: the decode floors that masonry-bench's process-level stage (issue #34) times
// as whole processes beside masonry itself. A C program with nothing but the decoding library,
// so its start-up is a C tool's and its work is the least any contact-sheet tool must do.
//
//   masonry-floor jpeg THREADS LIST   LIST lines "EIGHTHS PATH": libjpeg-turbo decodes PATH at
//                                     EIGHTHS/8 (the DCT scale masonry chooses, which the bench
//                                     computes with masonry's own rule) to RGB (grey stays grey)
//   masonry-floor png THREADS LIST    LIST lines "PATH": libpng decodes every row as 8-bit RGBA
//   masonry-floor png+sheet THREADS LIST PAGES
//                                     the png floor, then the least a sheet's output costs: each
//                                     page of PAGES (lines "WIDTH HEIGHT CHANNELS RAWPATH", the
//                                     sheet's own pixels, raw, made beforehand) encoded by libpng
//                                     at zlib's fastest level without row filters, one page a worker
//   masonry-floor svg THREADS LIST    LIST lines "WIDTH HEIGHT PATH": librsvg (loaded once at start,
//                                     as rsvg-convert links it) parses PATH and draws it scaled to
//                                     WIDTH × HEIGHT (the tile masonry gave it) on a cairo canvas
//   masonry-floor tiff THREADS LIST   LIST lines "PATH": libtiff (loaded once at start, as masonry
//                                     loads it) decodes every strip or tile of the first page with
//                                     TIFFReadEncodedStrip/Tile into one buffer, no conversion
//   masonry-floor jxl THREADS LIST    LIST lines "PATH": libjxl (loaded once at start, as masonry
//                                     loads it) decodes each file's first frame in full to 8-bit
//                                     RGBA (sRGB for XYB pictures, the stored orientation), one
//                                     decode a thread, no parallel runner
//   masonry-floor spawn quiet|loud PATH ARGS...
//                                     runs PATH and prints "wall user system maxrss-bytes status"
//                                     (what masonry-bench's runChild reads). Linux carries the peak
//                                     RSS of the process that execs into the child's ru_maxrss, so
//                                     the spawner must be smaller than what it measures: a C
//                                     program is (about 1.5 MiB), the Swift bench is not (12 MiB).
//
// THREADS workers take files in list order from one counter. The rows are discarded after a
// checksum that is printed, so no decode can be optimised away. Exit 1 on any failure.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jxl/decode.h>
#include <png.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tiffio.h>
#include <unistd.h>
#include <zlib.h>

typedef struct {
    int eighths;          // JPEG only
    int width, height;    // SVG only
    char *path;
} floor_file;

typedef enum { FLOOR_JPEG, FLOOR_PNG, FLOOR_SVG, FLOOR_TIFF, FLOOR_JXL } floor_kind;

static floor_kind kind;
static floor_file *files;
static size_t file_count;
static atomic_size_t next_file;

// png+sheet: the sheet's pages, encoded after every input is decoded.
typedef struct {
    unsigned width, height, channels;
    char *path;
} floor_page;

static floor_page *pages;
static size_t page_count;
static atomic_size_t next_page;
static pthread_barrier_t decoded;
static atomic_uint_fast64_t checksum;
static atomic_int failed;

static void fail(const char *path, const char *why) {
    fprintf(stderr, "masonry-floor: %s: %s\n", path, why);
    atomic_store(&failed, 1);
}

/// Resolves `count` symbols of `soname` into their slots (dlopen, as masonry loads the library).
typedef struct { void **slot; const char *name; } floor_symbol;

static int load_library(const char *soname, const floor_symbol *symbols, size_t count) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { fail(soname, dlerror()); return -1; }
    for (size_t i = 0; i < count; i++) {
        *symbols[i].slot = dlsym(library, symbols[i].name);
        if (*symbols[i].slot == NULL) { fail(symbols[i].name, "not in the library"); return -1; }
    }
    return 0;
}

// libjpeg: errors longjmp back to the decode that set the buffer.
typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
} jpeg_failure;

static void jpeg_error_exit(j_common_ptr cinfo) { longjmp(((jpeg_failure *)cinfo->err)->escape, 1); }
static void jpeg_silent(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

static uint64_t decode_jpeg(const floor_file *file) {
    FILE *stream = fopen(file->path, "rb");
    if (stream == NULL) { fail(file->path, strerror(errno)); return 0; }
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    cinfo.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_error_exit;
    failure.manager.emit_message = jpeg_silent;
    JSAMPLE *row = NULL;
    uint64_t sum = 0;
    if (setjmp(failure.escape)) {
        fail(file->path, "libjpeg failed");
        jpeg_destroy_decompress(&cinfo);
        free(row);
        fclose(stream);
        return 0;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_stdio_src(&cinfo, stream);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = (unsigned int)file->eighths;
    cinfo.scale_denom = 8;
    cinfo.dct_method = JDCT_ISLOW;
    if (cinfo.jpeg_color_space != JCS_GRAYSCALE) cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    row = malloc((size_t)cinfo.output_width * (size_t)cinfo.output_components);
    while (cinfo.output_scanline < cinfo.output_height) {
        jpeg_read_scanlines(&cinfo, &row, 1);
        sum += row[cinfo.output_width - 1];
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    fclose(stream);
    return sum;
}

static void png_error_exit(png_structp png, png_const_charp message) { (void)message; png_longjmp(png, 1); }
static void png_silent(png_structp png, png_const_charp message) { (void)png; (void)message; }

static uint64_t decode_png(const floor_file *file) {
    FILE *stream = fopen(file->path, "rb");
    if (stream == NULL) { fail(file->path, strerror(errno)); return 0; }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_exit, png_silent);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep row = NULL;
    uint64_t sum = 0;
    if (png == NULL || info == NULL || setjmp(png_jmpbuf(png))) {
        fail(file->path, "libpng failed");
        png_destroy_read_struct(&png, &info, NULL);
        free(row);
        fclose(stream);
        return 0;
    }
    png_init_io(png, stream);
    png_read_info(png, info);
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    size_t bytes = png_get_rowbytes(png, info);
    if (passes > 1) {
        // An interlaced file is decoded whole, as every decoder must.
        row = malloc(bytes * height);
        png_bytep *rows = malloc(sizeof(png_bytep) * height);
        for (png_uint_32 y = 0; y < height; y++) rows[y] = row + bytes * y;
        png_read_image(png, rows);
        free(rows);
        sum += row[bytes * height - 1];
    } else {
        row = malloc(bytes);
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, row, NULL);
            sum += row[bytes - 1];
        }
    }
    (void)width;
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    fclose(stream);
    return sum;
}

// The encoder's output is counted, not kept: writing it is not the work being measured.
static void count_bytes(png_structp png, png_bytep data, png_size_t length) {
    (void)data;
    *(uint64_t *)png_get_io_ptr(png) += length;
}
static void flush_nothing(png_structp png) { (void)png; }

static uint64_t encode_page(const floor_page *page) {
    int fd = open(page->path, O_RDONLY | O_CLOEXEC);
    size_t row_bytes = (size_t)page->width * page->channels, bytes = row_bytes * page->height;
    struct stat status;
    if (fd < 0 || fstat(fd, &status) != 0 || (size_t)status.st_size != bytes) {
        fail(page->path, "cannot read the raw page, or its size is not WIDTH x HEIGHT x CHANNELS");
        if (fd >= 0) close(fd);
        return 0;
    }
    unsigned char *pixels = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (pixels == MAP_FAILED) { fail(page->path, strerror(errno)); return 0; }
    uint64_t written = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_exit, png_silent);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL || setjmp(png_jmpbuf(png))) {
        fail(page->path, "libpng failed");
        png_destroy_write_struct(&png, &info);
        munmap(pixels, bytes);
        return 0;
    }
    png_set_write_fn(png, &written, count_bytes, flush_nothing);
    png_set_compression_level(png, Z_BEST_SPEED);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_set_IHDR(png, info, page->width, page->height, 8, page->channels == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    for (unsigned y = 0; y < page->height; y++) png_write_row(png, pixels + (size_t)y * row_bytes);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    munmap(pixels, bytes);
    return written;
}

// librsvg 2.54 and the cairo and GLib functions it needs, resolved from librsvg-2.so.2 (and
// its dependencies) with dlopen, so the other floors do not load it.
typedef struct { double length; int unit; } rsvg_length;
typedef struct { double x, y, width, height; } rsvg_rectangle;
static struct {
    void *(*handle_new_from_data)(const uint8_t *, size_t, void **);
    void (*handle_set_dpi)(void *, double);
    int (*handle_get_intrinsic_size_in_pixels)(void *, double *, double *);
    void (*handle_get_intrinsic_dimensions)(void *, int *, rsvg_length *, int *, rsvg_length *, int *, rsvg_rectangle *);
    int (*handle_render_document)(void *, void *, const rsvg_rectangle *, void **);
    void (*object_unref)(void *);
    void (*error_free)(void *);
    void *(*image_surface_create)(int, int, int);
    unsigned char *(*image_surface_get_data)(void *);
    void (*surface_flush)(void *);
    void (*surface_destroy)(void *);
    void *(*create)(void *);
    void (*scale)(void *, double, double);
    void (*destroy)(void *);
} rsvg;

static int load_librsvg(void) {
    floor_symbol symbols[] = {
        { (void **)&rsvg.handle_new_from_data, "rsvg_handle_new_from_data" },
        { (void **)&rsvg.handle_set_dpi, "rsvg_handle_set_dpi" },
        { (void **)&rsvg.handle_get_intrinsic_size_in_pixels, "rsvg_handle_get_intrinsic_size_in_pixels" },
        { (void **)&rsvg.handle_get_intrinsic_dimensions, "rsvg_handle_get_intrinsic_dimensions" },
        { (void **)&rsvg.handle_render_document, "rsvg_handle_render_document" },
        { (void **)&rsvg.object_unref, "g_object_unref" },
        { (void **)&rsvg.error_free, "g_error_free" },
        { (void **)&rsvg.image_surface_create, "cairo_image_surface_create" },
        { (void **)&rsvg.image_surface_get_data, "cairo_image_surface_get_data" },
        { (void **)&rsvg.surface_flush, "cairo_surface_flush" },
        { (void **)&rsvg.surface_destroy, "cairo_surface_destroy" },
        { (void **)&rsvg.create, "cairo_create" },
        { (void **)&rsvg.scale, "cairo_scale" },
        { (void **)&rsvg.destroy, "cairo_destroy" },
    };
    return load_library("librsvg-2.so.2", symbols, sizeof symbols / sizeof symbols[0]);
}

static uint64_t draw_svg(const floor_file *file) {
    FILE *stream = fopen(file->path, "rb");
    if (stream == NULL) { fail(file->path, strerror(errno)); return 0; }
    uint8_t *bytes = NULL;
    size_t count = 0, capacity = 0;
    for (;;) {
        if (count == capacity) { capacity = capacity ? capacity * 2 : 65536; bytes = realloc(bytes, capacity); }
        size_t got = fread(bytes + count, 1, capacity - count, stream);
        if (got == 0) break;
        count += got;
    }
    fclose(stream);
    void *error = NULL;
    void *handle = rsvg.handle_new_from_data(bytes, count, &error);
    free(bytes);
    if (handle == NULL) { fail(file->path, "librsvg cannot read it"); if (error) rsvg.error_free(error); return 0; }
    rsvg.handle_set_dpi(handle, 96.0);
    // The natural size as rsvg-convert takes it: in pixels, else the viewBox's, else 300×150.
    double natural_width = 300, natural_height = 150;
    if (!rsvg.handle_get_intrinsic_size_in_pixels(handle, &natural_width, &natural_height)) {
        int has_width, has_height, has_viewbox;
        rsvg_length width, height;
        rsvg_rectangle viewbox;
        rsvg.handle_get_intrinsic_dimensions(handle, &has_width, &width, &has_height, &height, &has_viewbox, &viewbox);
        if (has_viewbox && viewbox.width > 0 && viewbox.height > 0) { natural_width = viewbox.width; natural_height = viewbox.height; }
        else { natural_width = 300; natural_height = 150; }
    }
    void *surface = rsvg.image_surface_create(0 /* CAIRO_FORMAT_ARGB32 */, file->width, file->height);
    void *cr = rsvg.create(surface);
    rsvg.scale(cr, file->width / natural_width, file->height / natural_height);
    rsvg_rectangle viewport = { 0, 0, natural_width, natural_height };
    if (!rsvg.handle_render_document(handle, cr, &viewport, &error)) { fail(file->path, "librsvg cannot draw it"); if (error) rsvg.error_free(error); }
    rsvg.destroy(cr);
    rsvg.surface_flush(surface);
    uint64_t sum = rsvg.image_surface_get_data(surface)[(size_t)file->width * file->height * 4 - 1];
    rsvg.surface_destroy(surface);
    rsvg.object_unref(handle);
    return sum;
}

// libtiff 4.5's functions the tiff floor calls, from libtiff.so.6.
static struct {
    __typeof__(TIFFOpen) *open;
    __typeof__(TIFFClose) *close;
    __typeof__(TIFFIsTiled) *is_tiled;
    __typeof__(TIFFTileSize) *tile_size;
    __typeof__(TIFFStripSize) *strip_size;
    __typeof__(TIFFNumberOfTiles) *number_of_tiles;
    __typeof__(TIFFNumberOfStrips) *number_of_strips;
    __typeof__(TIFFReadEncodedTile) *read_encoded_tile;
    __typeof__(TIFFReadEncodedStrip) *read_encoded_strip;
    __typeof__(TIFFSetErrorHandler) *set_error_handler;
    __typeof__(TIFFSetWarningHandler) *set_warning_handler;
} tiff;

static int load_libtiff(void) {
    floor_symbol symbols[] = {
        { (void **)&tiff.open, "TIFFOpen" },
        { (void **)&tiff.close, "TIFFClose" },
        { (void **)&tiff.is_tiled, "TIFFIsTiled" },
        { (void **)&tiff.tile_size, "TIFFTileSize" },
        { (void **)&tiff.strip_size, "TIFFStripSize" },
        { (void **)&tiff.number_of_tiles, "TIFFNumberOfTiles" },
        { (void **)&tiff.number_of_strips, "TIFFNumberOfStrips" },
        { (void **)&tiff.read_encoded_tile, "TIFFReadEncodedTile" },
        { (void **)&tiff.read_encoded_strip, "TIFFReadEncodedStrip" },
        { (void **)&tiff.set_error_handler, "TIFFSetErrorHandler" },
        { (void **)&tiff.set_warning_handler, "TIFFSetWarningHandler" },
    };
    if (load_library("libtiff.so.6", symbols, sizeof symbols / sizeof symbols[0]) != 0) return -1;
    tiff.set_error_handler(NULL);     // a failure is reported by the return values
    tiff.set_warning_handler(NULL);
    return 0;
}

static uint64_t decode_tiff(const floor_file *file) {
    // "m": read(2) into libtiff's buffers, as masonry's client reads do (no memory mapping).
    TIFF *tif = tiff.open(file->path, "rm");
    if (tif == NULL) { fail(file->path, "libtiff cannot open it"); return 0; }
    int tiled = tiff.is_tiled(tif);
    tmsize_t chunk = tiled ? tiff.tile_size(tif) : tiff.strip_size(tif);
    uint32_t chunks = tiled ? tiff.number_of_tiles(tif) : tiff.number_of_strips(tif);
    uint8_t *buffer = chunk > 0 ? malloc((size_t)chunk) : NULL;
    uint64_t sum = 0;
    if (buffer == NULL) fail(file->path, "out of memory");
    for (uint32_t i = 0; buffer != NULL && i < chunks; i++) {
        tmsize_t got = tiled ? tiff.read_encoded_tile(tif, i, buffer, chunk) : tiff.read_encoded_strip(tif, i, buffer, chunk);
        if (got < 0) { fail(file->path, "libtiff cannot decode a strip or tile"); break; }
        if (got > 0) sum += buffer[got - 1];
    }
    free(buffer);
    tiff.close(tif);
    return sum;
}

// libjxl 0.7's decoder functions the jxl floor calls, from libjxl.so.0.7.
static struct {
    __typeof__(JxlDecoderCreate) *create;
    __typeof__(JxlDecoderDestroy) *destroy;
    __typeof__(JxlDecoderSubscribeEvents) *subscribe_events;
    __typeof__(JxlDecoderSetKeepOrientation) *set_keep_orientation;
    __typeof__(JxlDecoderSetInput) *set_input;
    __typeof__(JxlDecoderCloseInput) *close_input;
    __typeof__(JxlDecoderProcessInput) *process_input;
    __typeof__(JxlDecoderGetBasicInfo) *get_basic_info;
    __typeof__(JxlDecoderSetPreferredColorProfile) *set_preferred_color_profile;
    __typeof__(JxlDecoderImageOutBufferSize) *image_out_buffer_size;
    __typeof__(JxlDecoderSetImageOutBuffer) *set_image_out_buffer;
} jxl;

static int load_libjxl(void) {
    floor_symbol symbols[] = {
        { (void **)&jxl.create, "JxlDecoderCreate" },
        { (void **)&jxl.destroy, "JxlDecoderDestroy" },
        { (void **)&jxl.subscribe_events, "JxlDecoderSubscribeEvents" },
        { (void **)&jxl.set_keep_orientation, "JxlDecoderSetKeepOrientation" },
        { (void **)&jxl.set_input, "JxlDecoderSetInput" },
        { (void **)&jxl.close_input, "JxlDecoderCloseInput" },
        { (void **)&jxl.process_input, "JxlDecoderProcessInput" },
        { (void **)&jxl.get_basic_info, "JxlDecoderGetBasicInfo" },
        { (void **)&jxl.set_preferred_color_profile, "JxlDecoderSetPreferredColorProfile" },
        { (void **)&jxl.image_out_buffer_size, "JxlDecoderImageOutBufferSize" },
        { (void **)&jxl.set_image_out_buffer, "JxlDecoderSetImageOutBuffer" },
    };
    return load_library("libjxl.so.0.7", symbols, sizeof symbols / sizeof symbols[0]);
}

static uint64_t decode_jxl(const floor_file *file) {
    // The whole file in one read: libjxl is given all its input at once.
    int fd = open(file->path, O_RDONLY | O_CLOEXEC);
    struct stat status;
    if (fd < 0 || fstat(fd, &status) != 0 || status.st_size <= 0) {
        fail(file->path, "cannot read it");
        if (fd >= 0) close(fd);
        return 0;
    }
    size_t size = (size_t)status.st_size;
    uint8_t *bytes = malloc(size), *pixels = NULL;
    ssize_t got = bytes ? read(fd, bytes, size) : -1;
    close(fd);
    JxlDecoder *decoder = got == (ssize_t)size ? jxl.create(NULL) : NULL;
    uint64_t sum = 0;
    int done = 0;
    if (decoder != NULL
        && jxl.subscribe_events(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE) == JXL_DEC_SUCCESS
        && jxl.set_keep_orientation(decoder, JXL_TRUE) == JXL_DEC_SUCCESS
        && jxl.set_input(decoder, bytes, size) == JXL_DEC_SUCCESS) {
        jxl.close_input(decoder);
        JxlPixelFormat format = { .num_channels = 4, .data_type = JXL_TYPE_UINT8, .endianness = JXL_NATIVE_ENDIAN, .align = 0 };
        size_t pixel_bytes = 0;
        JxlBasicInfo info;
        memset(&info, 0, sizeof info);   // libjxl reports the basic info before the colour encoding
        for (;;) {
            JxlDecoderStatus event = jxl.process_input(decoder);
            if (event == JXL_DEC_BASIC_INFO) {
                if (jxl.get_basic_info(decoder, &info) != JXL_DEC_SUCCESS) break;
            } else if (event == JXL_DEC_COLOR_ENCODING) {
                if (!info.uses_original_profile) {
                    // XYB: libjxl converts to sRGB, as masonry asks it to.
                    JxlColorEncoding srgb = {
                        .color_space = info.num_color_channels == 1 ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB,
                        .white_point = JXL_WHITE_POINT_D65, .primaries = JXL_PRIMARIES_SRGB,
                        .transfer_function = JXL_TRANSFER_FUNCTION_SRGB, .rendering_intent = JXL_RENDERING_INTENT_RELATIVE,
                    };
                    if (jxl.set_preferred_color_profile(decoder, &srgb) != JXL_DEC_SUCCESS) break;
                }
            } else if (event == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
                if (jxl.image_out_buffer_size(decoder, &format, &pixel_bytes) != JXL_DEC_SUCCESS || pixel_bytes == 0) break;
                pixels = malloc(pixel_bytes);
                if (pixels == NULL || jxl.set_image_out_buffer(decoder, &format, pixels, pixel_bytes) != JXL_DEC_SUCCESS) break;
            } else if (event == JXL_DEC_FULL_IMAGE) {
                sum = pixels[pixel_bytes - 1];
                done = 1;
                break;
            } else {
                break;   // an error, or the end before a frame
            }
        }
    }
    if (!done) fail(file->path, "libjxl cannot decode its first frame");
    if (decoder != NULL) jxl.destroy(decoder);
    free(pixels);
    free(bytes);
    return sum;
}

static void *worker(void *unused) {
    (void)unused;
    uint64_t sum = 0;
    for (;;) {
        size_t index = atomic_fetch_add(&next_file, 1);
        if (index >= file_count) break;
        const floor_file *file = &files[index];
        switch (kind) {
        case FLOOR_JPEG: sum += decode_jpeg(file); break;
        case FLOOR_PNG: sum += decode_png(file); break;
        case FLOOR_SVG: sum += draw_svg(file); break;
        case FLOOR_TIFF: sum += decode_tiff(file); break;
        case FLOOR_JXL: sum += decode_jxl(file); break;
        }
    }
    if (page_count > 0) {
        // A sheet is written once its pictures are read: every worker waits for the last decode.
        pthread_barrier_wait(&decoded);
        for (;;) {
            size_t index = atomic_fetch_add(&next_page, 1);
            if (index >= page_count) break;
            sum += encode_page(&pages[index]);
        }
    }
    atomic_fetch_add(&checksum, sum);
    return NULL;
}

static int read_pages(const char *path) {
    FILE *list = fopen(path, "r");
    if (list == NULL) { fail(path, strerror(errno)); return -1; }
    unsigned width, height, channels;
    char raw[4096];
    while (fscanf(list, "%u %u %u %4095s", &width, &height, &channels, raw) == 4) {
        if (width == 0 || height == 0 || (channels != 3 && channels != 4)) { fail(path, "a line is not \"WIDTH HEIGHT 3|4 RAWPATH\""); break; }
        pages = realloc(pages, (page_count + 1) * sizeof *pages);
        pages[page_count++] = (floor_page){ width, height, channels, strdup(raw) };
    }
    fclose(list);
    if (page_count == 0 && !atomic_load(&failed)) fail(path, "no page");
    return atomic_load(&failed) ? -1 : 0;
}

static int read_list(const char *path) {
    FILE *list = fopen(path, "r");
    if (list == NULL) { fail(path, strerror(errno)); return -1; }
    size_t capacity = 0;
    char *line = NULL;
    size_t line_capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &line_capacity, list)) > 0) {
        if (line[length - 1] == '\n') line[--length] = 0;
        if (length == 0) continue;
        if (file_count == capacity) {
            capacity = capacity ? capacity * 2 : 256;
            files = realloc(files, capacity * sizeof *files);
        }
        floor_file *file = &files[file_count++];
        char *path_start = line;
        file->eighths = 8;
        if (kind == FLOOR_JPEG) {
            file->eighths = (int)strtol(line, &path_start, 10);
            if (file->eighths < 1 || file->eighths > 8 || *path_start != ' ') { fail(path, "a line is not \"EIGHTHS PATH\""); break; }
            path_start++;
        }
        if (kind == FLOOR_SVG) {
            int consumed = 0;
            if (sscanf(line, "%d %d %n", &file->width, &file->height, &consumed) != 2 || consumed == 0
                || file->width < 1 || file->height < 1 || file->width > 32767 || file->height > 32767) {
                fail(path, "a line is not \"WIDTH HEIGHT PATH\"");
                break;
            }
            path_start = line + consumed;
        }
        file->path = strdup(path_start);
    }
    free(line);
    fclose(list);
    return atomic_load(&failed) ? -1 : 0;
}

extern char **environ;

static double seconds_of(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

static int spawn_and_report(int quiet, char **argv) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (quiet) {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    } else {
        posix_spawn_file_actions_adddup2(&actions, 2, 1);   // the child's output to stderr: stdout is the report
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid;
    int spawned = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) { fprintf(stderr, "masonry-floor: cannot start %s: %s\n", argv[0], strerror(spawned)); return 1; }
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) { perror("masonry-floor: wait4"); return 1; }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double wall = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    printf("%.6f %.6f %.6f %ld %d\n", wall, seconds_of(usage.ru_utime), seconds_of(usage.ru_stime), usage.ru_maxrss * 1024L, code);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "spawn") == 0) return spawn_and_report(strcmp(argv[2], "quiet") == 0, argv + 3);
    int with_sheet = argc == 5 && strcmp(argv[1], "png+sheet") == 0;
    static const struct { const char *name; floor_kind kind; } kinds[] = {
        { "jpeg", FLOOR_JPEG }, { "png", FLOOR_PNG }, { "png+sheet", FLOOR_PNG }, { "svg", FLOOR_SVG },
        { "tiff", FLOOR_TIFF }, { "jxl", FLOOR_JXL },
    };
    int known = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (argc >= 2 && strcmp(argv[1], kinds[i].name) == 0) { kind = kinds[i].kind; known = 1; }
    }
    if (!known || argc != (with_sheet ? 5 : 4)) {
        fprintf(stderr, "usage: masonry-floor jpeg|png|svg|tiff|jxl THREADS LIST | png+sheet THREADS LIST PAGES | spawn quiet|loud PATH ARGS...\n");
        return 64;
    }
    if (kind == FLOOR_SVG && load_librsvg() != 0) return 1;
    if (kind == FLOOR_TIFF && load_libtiff() != 0) return 1;
    if (kind == FLOOR_JXL && load_libjxl() != 0) return 1;
    int threads = atoi(argv[2]);
    if (threads < 1 || threads > 256) { fprintf(stderr, "masonry-floor: THREADS is 1...256\n"); return 64; }
    if (read_list(argv[3]) != 0) return 1;
    if (with_sheet && read_pages(argv[4]) != 0) return 1;
    if (with_sheet) pthread_barrier_init(&decoded, NULL, (unsigned)threads);
    pthread_t ids[256];
    for (int i = 1; i < threads; i++) pthread_create(&ids[i], NULL, worker, NULL);
    worker(NULL);
    for (int i = 1; i < threads; i++) pthread_join(ids[i], NULL);
    printf("%zu files, checksum %llu\n", file_count, (unsigned long long)atomic_load(&checksum));
    return atomic_load(&failed) ? 1 : 0;
}
