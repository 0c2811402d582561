/* PNG writing through libpng (png_write.h). Each libpng call runs in a
 * function of its own that holds the setjmp, with every piece of state in a
 * caller-owned struct, so nothing local is lost by the longjmp. */
#include "bake/png_write.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct png_state {
    png_structp png;
    png_infop info;
    char message[200]; /* libpng's last error */
    bool out_of_memory;
    /* to a set's file, a stdio stream, or else memory */
    atomic_file *file;
    FILE *stream;
    uint8_t *buffer; /* growing output of crowd__png_encode_rgba8 */
    size_t buffer_size, buffer_capacity;
    /* rows */
    uint8_t *row_bytes;
    uint16_t *samples;
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
    if (!crowd__atomic_file_write(state->file, data, length)) {
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

static void release(png_state *state) {
    png_destroy_write_struct(&state->png, &state->info);
    free(state->row_bytes);
    free(state->samples);
}

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

crowd_result crowd__png_write_u16(atomic_file *file, uint32_t width, uint32_t height, int channels,
                                  png_row_fn row, void *user, crowd_error *error) {
    png_state state = {.file = file};
    png_write_request request = {width, height, 16, channels, NULL, row, user, .fast = true};
    size_t count = (size_t)width * (size_t)channels;
    bool started = start_write(&state);
    state.samples = malloc(count * sizeof *state.samples);
    state.row_bytes = malloc(count * 2);
    crowd_result result = CROWD_OK;
    if (!started || state.samples == NULL || state.row_bytes == NULL) {
        result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, crowd__atomic_file_path(file),
                                 "out of memory for the PNG encoder");
    } else if (!write_rows(&state, &request)) {
        crowd__atomic_file_fail(file, state.message);
        result = crowd__atomic_file_error(file, error);
    }
    release(&state);
    return result;
}

crowd_result crowd__png_encode_rgba8(const uint8_t *pixels, uint32_t width, uint32_t height,
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
    release(&state);
    if (result != CROWD_OK) {
        free(state.buffer);
        return result;
    }
    *out_data = state.buffer;
    *out_size = state.buffer_size;
    return CROWD_OK;
}

crowd_result crowd__png_write_rgba8_srgb(FILE *stream, const char *path, const uint8_t *pixels,
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
    release(&state);
    return result;
}
