/* PNG writing and reading through libpng (png_io.h). Each libpng call runs
 * in a function of its own that holds the setjmp, with every piece of state
 * in a caller-owned struct, so nothing local is lost by the longjmp. */
#include "bake/png_io.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bake/load_limits.h"
#include "crowd/bake.h"

/* Ancillary chunks (text, ICC profiles) a bake never needs stay small. */
#define PNG_CHUNK_MALLOC_MAX_BYTES (8u << 20)

typedef struct png_state {
    png_structp png;
    png_infop info;
    char message[200]; /* libpng's last error */
    bool out_of_memory;
    /* writing: to a set's file, a stdio stream, or else memory */
    atomic_file *file;
    FILE *stream;
    uint8_t *buffer; /* growing output of png_encode_rgba8 */
    size_t buffer_size, buffer_capacity;
    /* reading */
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

static void write_to_file(png_structp png, png_bytep data, size_t length) {
    png_state *state = png_get_io_ptr(png);
    if (!atomic_file_write(state->file, data, length)) {
        png_error(png, "write failed");
    }
}

static void write_to_memory(png_structp png, png_bytep data, size_t length) {
    png_state *state = png_get_io_ptr(png);
    if (length > state->buffer_capacity - state->buffer_size) {
        size_t capacity = state->buffer_capacity ? state->buffer_capacity : 4096;
        while (capacity - state->buffer_size < length) {
            capacity *= 2;
        }
        uint8_t *grown = realloc(state->buffer, capacity);
        if (grown == NULL) {
            state->out_of_memory = true;
            png_error(png, "out of memory");
        }
        state->buffer = grown;
        state->buffer_capacity = capacity;
    }
    memcpy(state->buffer + state->buffer_size, data, length);
    state->buffer_size += length;
}

static void flush_nothing(png_structp png) {
    (void)png;
}

static void read_from_memory(png_structp png, png_bytep out, size_t length) {
    png_state *state = png_get_io_ptr(png);
    if (length > state->size - state->offset) {
        png_error(png, "file is truncated");
    }
    memcpy(out, state->data + state->offset, length);
    state->offset += length;
}

static void release(png_state *state, bool reading) {
    if (reading) {
        png_destroy_read_struct(&state->png, &state->info, NULL);
    } else {
        png_destroy_write_struct(&state->png, &state->info);
    }
    free(state->row_bytes);
    free(state->samples);
    free(state->rows);
}

/* ---- writing ---------------------------------------------------------- */

/* What one write encodes: 8-bit images as packed rows in `pixels`, 16-bit
 * ones row by row from `row` in host order. */
typedef struct png_write_request {
    uint32_t width, height;
    int depth;    /* 8 or 16 */
    int channels; /* 3 (RGB) or 4 (RGBA) */
    const uint8_t *pixels;
    png_row_fn row;
    void *row_user;
    bool fast; /* bake textures: see write_rows */
    bool srgb; /* a picture for people, not data */
} png_write_request;

static bool start_write(png_state *state) {
    state->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, state, on_error, on_warning);
    state->info = state->png ? png_create_info_struct(state->png) : NULL;
    return state->info != NULL;
}

/* The one libpng write sequence, to whichever output `state` holds (a set's
 * file, a stdio stream or memory). Fast: level 1 with Z_RLE and the Sub
 * filter: the high bytes of neighbouring texels repeat, which run-length
 * matching catches in about half the time of deflate level 1 and a twelfth
 * of level 6, for 3% and 12% more bytes (measured on robot.glb,
 * docs/manifest.md). */
static bool write_rows(png_state *state, const png_write_request *request) {
    if (setjmp(png_jmpbuf(state->png))) {
        return false;
    }
    if (state->stream != NULL) {
        png_init_io(state->png, state->stream);
    } else {
        png_set_write_fn(state->png, state, state->file != NULL ? write_to_file : write_to_memory,
                         flush_nothing);
    }
    if (request->fast) {
        png_set_compression_level(state->png, 1);
        png_set_compression_strategy(state->png, Z_RLE);
        png_set_filter(state->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
        png_set_compression_buffer_size(state->png, 1u << 20);
    }
    png_set_IHDR(state->png, state->info, request->width, request->height, request->depth,
                 request->channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (request->srgb) {
        png_set_sRGB_gAMA_and_cHRM(state->png, state->info, PNG_sRGB_INTENT_PERCEPTUAL);
    }
    png_write_info(state->png, state->info);
    size_t count = (size_t)request->width * (size_t)request->channels;
    for (uint32_t y = 0; y < request->height; y++) {
        if (request->depth == 8) {
            png_write_row(state->png, request->pixels + (size_t)y * count);
            continue;
        }
        request->row(request->row_user, y, state->samples);
        for (size_t i = 0; i < count; i++) {
            state->row_bytes[2 * i] = (uint8_t)(state->samples[i] >> 8);
            state->row_bytes[2 * i + 1] = (uint8_t)(state->samples[i] & 0xff);
        }
        png_write_row(state->png, state->row_bytes);
    }
    png_write_end(state->png, state->info);
    return true;
}

crowd_result png_write_u16(atomic_file *file, uint32_t width, uint32_t height, int channels,
                           png_row_fn row, void *user, crowd_error *error) {
    png_state state = {.file = file};
    png_write_request request = {width, height, 16, channels, NULL, row, user, .fast = true};
    size_t count = (size_t)width * (size_t)channels;
    bool started = start_write(&state);
    state.samples = malloc(count * sizeof *state.samples);
    state.row_bytes = malloc(count * 2);
    crowd_result result = CROWD_OK;
    if (!started || state.samples == NULL || state.row_bytes == NULL) {
        result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, atomic_file_path(file),
                                 "out of memory for the PNG encoder");
    } else if (!write_rows(&state, &request)) {
        atomic_file_fail(file, state.message);
        result = atomic_file_error(file, error);
    }
    release(&state, false);
    return result;
}

crowd_result png_encode_rgba8(const uint8_t *pixels, uint32_t width, uint32_t height,
                              uint8_t **out_data, size_t *out_size, crowd_error *error) {
    png_state state = {0};
    png_write_request request = {width, height, 8, 4, pixels, NULL, NULL, .fast = false};
    crowd_result result = CROWD_OK;
    if (!start_write(&state)) {
        result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL,
                                 "out of memory for the PNG encoder");
    } else if (!write_rows(&state, &request)) {
        result = crowd_error_set(
            error, state.out_of_memory ? CROWD_ERROR_OUT_OF_MEMORY : CROWD_ERROR_INVALID_ARGUMENT,
            NULL, "cannot encode a %ux%u texture as PNG: %s", width, height, state.message);
    }
    release(&state, false);
    if (result != CROWD_OK) {
        free(state.buffer);
        return result;
    }
    *out_data = state.buffer;
    *out_size = state.buffer_size;
    return CROWD_OK;
}

crowd_result png_write_rgba8_srgb(FILE *stream, const char *path, const uint8_t *pixels,
                                  uint32_t width, uint32_t height, crowd_error *error) {
    png_state state = {.stream = stream};
    png_write_request request = {width, height, 8, 4, pixels, NULL, NULL, .srgb = true};
    crowd_result result = CROWD_OK;
    if (!start_write(&state)) {
        result =
            crowd_error_set(error, CROWD_ERROR_OUTPUT, path, "cannot write PNG: out of memory");
    } else if (!write_rows(&state, &request)) {
        result =
            crowd_error_set(error, CROWD_ERROR_OUTPUT, path, "cannot write PNG: %s", state.message);
    }
    release(&state, false);
    return result;
}

/* ---- reading ---------------------------------------------------------- */

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
    state->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, state, on_error, on_warning);
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
    state->row_bytes = malloc((size_t)width * 8);
    state->samples = malloc(count * sizeof *state->samples);
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

crowd_result png_read_rgba16(const uint8_t *data, size_t size, const char *name, uint32_t width,
                             uint32_t height, uint16_t **out_samples, crowd_error *error) {
    *out_samples = NULL;
    png_state state = {0};
    png_read_request request = {name, width, height, error, CROWD_OK};
    crowd_result result = start_read(&state, data, size, name, error);
    if (result == CROWD_OK) {
        result = read_rgba16_rows(&state, &request, out_samples)
                     ? request.result
                     : read_failure(&state, name, error);
    }
    if (result != CROWD_OK) {
        free(*out_samples);
        *out_samples = NULL;
    }
    release(&state, true);
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
    state->row_bytes = malloc(bytes);
    state->rows = malloc((size_t)height * sizeof *state->rows);
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

crowd_result png_decode_rgba8(const uint8_t *data, size_t size, const char *name,
                              uint32_t *out_width, uint32_t *out_height, uint8_t **out_pixels,
                              crowd_error *error) {
    *out_pixels = NULL;
    png_state state = {0};
    png_read_request request = {name, 0, 0, error, CROWD_OK};
    crowd_result result = start_read(&state, data, size, name, error);
    if (result == CROWD_OK) {
        result = decode_rgba8_rows(&state, &request, out_width, out_height, out_pixels)
                     ? request.result
                     : read_failure(&state, name, error);
    }
    if (result != CROWD_OK) {
        free(*out_pixels);
        *out_pixels = NULL;
    }
    release(&state, true);
    return result;
}
