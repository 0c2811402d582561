/* Writing the float textures of a bake as OpenEXR files (exr_write.h),
 * through the C core library; the texture's layout in the file is the one
 * the runtime's reader accepts (load/exr_texture.h). */
#include "bake/exr_write.h"

#include <openexr.h>
#include <string.h>

#include "load/exr_texture.h"

/* Measured on robot's textures (docs/manifest.md): ZIP at zlib level 1
 * stores a float VAT in about 28% of its size (a BAT in about 53%) at
 * roughly 60 MB/s; higher levels cost several times more for a few percent. */
#define EXR_WRITE_COMPRESSION EXR_COMPRESSION_ZIP
#define EXR_WRITE_ZIP_LEVEL 1

typedef struct exr_write_io {
    exr_texture_message message; /* first: the error handler fills it */
    atomic_file *file;
} exr_write_io;

static int64_t write_to_file(exr_const_context_t context, void *user, const void *buffer,
                             uint64_t size, uint64_t offset, exr_stream_error_func_ptr_t error_cb) {
    exr_write_io *io = user;
    if (!crowd__atomic_file_pwrite(io->file, buffer, size, offset)) {
        error_cb(context, EXR_ERR_WRITE_IO, "write failed");
        return -1;
    }
    return (int64_t)size;
}

/* The library's own compress step, which compress_stored wraps. */
typedef struct compress_step {
    exr_result_t (*compress)(exr_encode_pipeline_t *encoder);
} compress_step;

/* OpenEXR 3.1's C core (Debian 12) stores a chunk that ZIP cannot shrink
 * as it is, but one whose deflate output is exactly as long as the chunk
 * keeps the deflate bytes, which every reader then takes for the plain
 * pixels (OpenEXR issue 2306, fixed upstream in 3.4): garbage in a
 * loaded bake (a socket-tracks file of 9x122 texels had such a chunk).
 * Here that chunk is stored as it is, as the format says. */
static exr_result_t compress_stored(exr_encode_pipeline_t *encoder) {
    const compress_step *step = encoder->encoding_user_data;
    exr_result_t rv = step->compress(encoder);
    if (rv == EXR_ERR_SUCCESS && encoder->compressed_bytes == encoder->packed_bytes &&
        encoder->compressed_buffer != encoder->packed_buffer) {
        memcpy(encoder->compressed_buffer, encoder->packed_buffer, encoder->packed_bytes);
    }
    return rv;
}

static exr_result_t encode_chunks(exr_context_t context, int part, const crowd_texture *texture) {
    int32_t lines = 0;
    exr_result_t rv = exr_get_scanlines_per_chunk(context, part, &lines);
    exr_encode_pipeline_t encoder = EXR_ENCODE_PIPELINE_INITIALIZER;
    compress_step step = {NULL};
    bool started = false;
    for (uint32_t y = 0; rv == EXR_ERR_SUCCESS && y < texture->height; y += (uint32_t)lines) {
        exr_chunk_info_t chunk;
        rv = exr_write_scanline_chunk_info(context, part, (int)y, &chunk);
        if (rv == EXR_ERR_SUCCESS) {
            rv = started ? exr_encoding_update(context, part, &chunk, &encoder)
                         : exr_encoding_initialize(context, part, &chunk, &encoder);
        }
        if (rv != EXR_ERR_SUCCESS) {
            break;
        }
        crowd__exr_texture_point_channels(encoder.channels, encoder.channel_count, texture->texels,
                                          texture->width, chunk.start_y, texture->format, false);
        if (!started) {
            rv = exr_encoding_choose_default_routines(context, part, &encoder);
            started = true;
            if (rv == EXR_ERR_SUCCESS && encoder.compress_fn != NULL) {
                step.compress = encoder.compress_fn;
                encoder.compress_fn = compress_stored;
                encoder.encoding_user_data = &step;
            }
        }
        if (rv == EXR_ERR_SUCCESS) {
            rv = exr_encoding_run(context, part, &encoder);
        }
    }
    if (started) {
        exr_result_t destroyed = exr_encoding_destroy(context, &encoder);
        if (rv == EXR_ERR_SUCCESS) {
            rv = destroyed;
        }
    }
    return rv;
}

crowd_result crowd__exr_write_rgba(atomic_file *file, const crowd_texture *texture,
                                   crowd_error *error) {
    exr_write_io io = {.file = file};
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = &io;
    init.write_fn = write_to_file;
    init.error_handler_fn = crowd__exr_texture_on_error;
    exr_context_t context = NULL;
    int part = 0;
    exr_result_t rv =
        exr_start_write(&context, crowd__atomic_file_path(file), EXR_WRITE_FILE_DIRECTLY, &init);
    if (rv == EXR_ERR_SUCCESS) {
        rv = exr_add_part(context, NULL, EXR_STORAGE_SCANLINE, &part);
    }
    if (rv == EXR_ERR_SUCCESS) {
        rv = exr_initialize_required_attr_simple(context, part, (int32_t)texture->width,
                                                 (int32_t)texture->height, EXR_WRITE_COMPRESSION);
    }
    if (rv == EXR_ERR_SUCCESS) {
        rv = exr_set_zip_compression_level(context, part, EXR_WRITE_ZIP_LEVEL);
    }
    static const char *const names[4] = {"R", "G", "B", "A"};
    for (int c = 0; c < 4 && rv == EXR_ERR_SUCCESS; c++) {
        rv =
            exr_add_channel(context, part, names[c], crowd__exr_texture_pixel_type(texture->format),
                            EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1);
    }
    if (rv == EXR_ERR_SUCCESS) {
        rv = exr_write_header(context);
    }
    if (rv == EXR_ERR_SUCCESS) {
        rv = encode_chunks(context, part, texture);
    }
    if (context != NULL) {
        exr_result_t finished = exr_finish(&context);
        if (rv == EXR_ERR_SUCCESS) {
            rv = finished;
        }
    }
    if (rv != EXR_ERR_SUCCESS) {
        crowd__exr_texture_note_failure(&io.message, rv);
        if (rv == EXR_ERR_OUT_OF_MEMORY) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, crowd__atomic_file_path(file),
                                   "out of memory encoding EXR");
        }
        crowd__atomic_file_fail(file, io.message.text);
        return crowd__atomic_file_error(file, error);
    }
    return CROWD_OK;
}
