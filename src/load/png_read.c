/* PNG reading through libpng (png_read.h). Each libpng call runs in a
 * function of its own that holds the setjmp, with every piece of state in a
 * caller-owned struct, so nothing local is lost by the longjmp. libpng's own
 * memory (its structs, row buffers, zlib's inflate state) comes from the
 * caller's allocator through png_create_read_struct_2. */
#include "load/png_read.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/bake.h"
#include "core/core_internal.h"
#include "load/load_limits.h"

/* Ancillary chunks (text, ICC profiles) a bake never needs stay small. */
#define PNG_CHUNK_MALLOC_MAX_BYTES (8u << 20)

typedef struct png_state {
    const crowd_allocator *allocator;
    png_structp png;
    png_infop info;
    char message[200]; /* libpng's last error */
    bool out_of_memory;
    const uint8_t *data;
    size_t size, offset;
    /* rows */
    uint8_t *row_bytes;
    uint16_t *samples;
    uint8_t **rows;
} png_state;

static void on_error(png_structp png, png_const_charp message) {
    png_state *state = png_get_error_ptr(png);
    snprintf(state->message, sizeof state->message, "%s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void read_from_memory(png_structp png, png_bytep out, size_t length) {
    png_state *state = png_get_io_ptr(png);
    if (length > state->size - state->offset) {
        png_error(png, "file is truncated");
    }
    memcpy(out, state->data + state->offset, length);
    state->offset += length;
}

/* libpng's malloc_fn: a failure is remembered, so the error says "out of
 * memory" rather than libpng's wording of it. */
static png_voidp png_alloc(png_structp png, png_alloc_size_t size) {
    png_state *state = png_get_mem_ptr(png);
    void *block = crowd__mem_alloc(state->allocator, size);
    state->out_of_memory |= block == NULL;
    return block;
}

static void png_release(png_structp png, png_voidp block) {
    png_state *state = png_get_mem_ptr(png);
    crowd__mem_free(state->allocator, block);
}

static void release(png_state *state) {
    png_destroy_read_struct(&state->png, &state->info, NULL);
    crowd__mem_free(state->allocator, state->row_bytes);
    crowd__mem_free(state->allocator, state->samples);
    crowd__mem_free(state->allocator, state->rows);
}

typedef struct png_read_request {
    const char *name;
    uint32_t width, height; /* expected, for the strict 16-bit read */
    crowd_error *error;
    crowd_result result; /* set by checks that fail without a longjmp */
} png_read_request;

static crowd_result start_read(png_state *state, const uint8_t *data, size_t size, const char *name,
                               crowd_error *error) {
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, name, "not a PNG file");
    }
    state->data = data;
    state->size = size;
    state->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, state, on_error, on_warning, state,
                                          png_alloc, png_release);
    state->info = state->png ? png_create_info_struct(state->png) : NULL;
    if (state->info == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, name,
                               "out of memory for the PNG decoder");
    }
    return CROWD_OK;
}

static void configure_read(png_state *state) {
    png_set_read_fn(state->png, state, read_from_memory);
    png_set_user_limits(state->png, CROWD_BAKE_MAX_TEXTURE_SIZE, CROWD_BAKE_MAX_TEXTURE_SIZE);
    png_set_chunk_malloc_max(state->png, PNG_CHUNK_MALLOC_MAX_BYTES);
}

static bool read_rgba16_rows(png_state *state, png_read_request *request, uint16_t **out_samples) {
    if (setjmp(png_jmpbuf(state->png))) {
        return false;
    }
    configure_read(state);
    png_read_info(state->png, state->info);
    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(state->png, state->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    if (width != request->width || height != request->height) {
        request->result =
            crowd_error_set(request->error, CROWD_ERROR_INVALID_DATA, request->name,
                            "image is %ux%u, the manifest says %ux%u", (unsigned)width,
                            (unsigned)height, request->width, request->height);
        return true;
    }
    if (depth != 16 || color != PNG_COLOR_TYPE_RGB_ALPHA) {
        request->result = crowd_error_set(request->error, CROWD_ERROR_INVALID_DATA, request->name,
                                          "image is %d-bit with %d channels, expected 16-bit RGBA",
                                          depth, png_get_channels(state->png, state->info));
        return true;
    }
    if (interlace != PNG_INTERLACE_NONE) {
        request->result = crowd_error_set(request->error, CROWD_ERROR_UNSUPPORTED, request->name,
                                          "interlaced PNG; bakes are stored non-interlaced");
        return true;
    }
    size_t count = (size_t)width * height * 4;
    if (!load_size_plausible(count * 2, state->size)) {
        request->result = crowd_error_set(request->error, CROWD_ERROR_LIMIT, request->name,
                                          "a %ux%u image cannot come from %zu bytes",
                                          (unsigned)width, (unsigned)height, state->size);
        return true;
    }
    state->row_bytes = crowd__mem_alloc(state->allocator, (size_t)width * 8);
    state->samples = crowd__mem_alloc(state->allocator, count * sizeof *state->samples);
    if (state->row_bytes == NULL || state->samples == NULL) {
        state->out_of_memory = true;
        png_error(state->png, "out of memory");
    }
    for (png_uint_32 y = 0; y < height; y++) {
        png_read_row(state->png, state->row_bytes, NULL);
        uint16_t *samples = state->samples + (size_t)y * width * 4;
        for (size_t i = 0; i < (size_t)width * 4; i++) {
            samples[i] = (uint16_t)(state->row_bytes[2 * i] << 8 | state->row_bytes[2 * i + 1]);
        }
    }
    png_read_end(state->png, NULL);
    *out_samples = state->samples;
    state->samples = NULL;
    return true;
}

static crowd_result read_failure(const png_state *state, const char *name, crowd_error *error) {
    if (state->out_of_memory) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, name,
                               "out of memory decoding PNG");
    }
    return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, name, "corrupt PNG: %s",
                           state->message);
}

crowd_result crowd__png_read_rgba16(const uint8_t *data, size_t size, const char *name,
                                    uint32_t width, uint32_t height,
                                    const crowd_allocator *allocator, uint16_t **out_samples,
                                    crowd_error *error) {
    *out_samples = NULL;
    png_state state = {.allocator = allocator};
    png_read_request request = {name, width, height, error, CROWD_OK};
    crowd_result result = start_read(&state, data, size, name, error);
    if (result == CROWD_OK) {
        result = read_rgba16_rows(&state, &request, out_samples)
                     ? request.result
                     : read_failure(&state, name, error);
    }
    if (result != CROWD_OK) {
        crowd__mem_free(allocator, *out_samples);
        *out_samples = NULL;
    }
    release(&state);
    return result;
}

static bool decode_rgba8_rows(png_state *state, png_read_request *request, uint32_t *out_width,
                              uint32_t *out_height, uint8_t **out_pixels) {
    if (setjmp(png_jmpbuf(state->png))) {
        return false;
    }
    configure_read(state);
    png_read_info(state->png, state->info);
    png_uint_32 width = png_get_image_width(state->png, state->info);
    png_uint_32 height = png_get_image_height(state->png, state->info);
    int color = png_get_color_type(state->png, state->info);
    png_set_expand(state->png);
    png_set_scale_16(state->png);
    png_set_gray_to_rgb(state->png);
    if (!(color & PNG_COLOR_MASK_ALPHA) && !png_get_valid(state->png, state->info, PNG_INFO_tRNS)) {
        png_set_add_alpha(state->png, 0xff, PNG_FILLER_AFTER);
    }
    png_set_interlace_handling(state->png);
    png_read_update_info(state->png, state->info);
    size_t bytes = (size_t)width * height * 4;
    if (png_get_rowbytes(state->png, state->info) != (size_t)width * 4 ||
        !load_size_plausible(bytes, state->size)) {
        request->result = crowd_error_set(request->error, CROWD_ERROR_LIMIT, request->name,
                                          "a %ux%u image cannot come from %zu bytes",
                                          (unsigned)width, (unsigned)height, state->size);
        return true;
    }
    state->row_bytes = crowd__mem_alloc(state->allocator, bytes);
    state->rows = crowd__mem_alloc(state->allocator, (size_t)height * sizeof *state->rows);
    if (state->row_bytes == NULL || state->rows == NULL) {
        state->out_of_memory = true;
        png_error(state->png, "out of memory");
    }
    for (png_uint_32 y = 0; y < height; y++) {
        state->rows[y] = state->row_bytes + (size_t)y * width * 4;
    }
    png_read_image(state->png, state->rows);
    png_read_end(state->png, NULL);
    *out_width = width;
    *out_height = height;
    *out_pixels = state->row_bytes;
    state->row_bytes = NULL;
    return true;
}

crowd_result crowd__png_decode_rgba8(const uint8_t *data, size_t size, const char *name,
                                     const crowd_allocator *allocator, uint32_t *out_width,
                                     uint32_t *out_height, uint8_t **out_pixels,
                                     crowd_error *error) {
    *out_pixels = NULL;
    png_state state = {.allocator = allocator};
    png_read_request request = {name, 0, 0, error, CROWD_OK};
    crowd_result result = start_read(&state, data, size, name, error);
    if (result == CROWD_OK) {
        result = decode_rgba8_rows(&state, &request, out_width, out_height, out_pixels)
                     ? request.result
                     : read_failure(&state, name, error);
    }
    if (result != CROWD_OK) {
        crowd__mem_free(allocator, *out_pixels);
        *out_pixels = NULL;
    }
    release(&state);
    return result;
}
