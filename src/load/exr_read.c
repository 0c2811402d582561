/* OpenEXR files of a bake through the C core library (exr_io.h). Texels are
 * interleaved RGBA in memory; OpenEXR stores channels planar per scanline
 * chunk, so each chunk is encoded or decoded with per-channel pointers into
 * the interleaved rows (pixel stride = one texel). */
#include "bake/exr_io.h"

#include <openexr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bake/load_limits.h"

/* Measured on robot's textures (docs/manifest.md): ZIP at zlib level 1
 * stores a float VAT in about 28% of its size (a BAT in about 53%) at
 * roughly 60 MB/s; higher levels cost several times more for a few percent. */
#define EXR_WRITE_COMPRESSION EXR_COMPRESSION_ZIP
#define EXR_WRITE_ZIP_LEVEL 1

typedef struct exr_io {
    atomic_file *file;   /* writing */
    const uint8_t *data; /* reading */
    size_t size;
    char message[200]; /* OpenEXR's first error message */
} exr_io;

static void on_error(exr_const_context_t context, exr_result_t code, const char *message) {
    void *user = NULL;
    if (exr_get_user_data(context, &user) != EXR_ERR_SUCCESS || user == NULL) {
        return;
    }
    exr_io *io = user;
    if (io->message[0] == '\0') {
        snprintf(io->message, sizeof io->message, "%s (%s)", message,
                 exr_get_error_code_as_string(code));
    }
}

static void note_failure(exr_io *io, exr_result_t code) {
    if (io->message[0] == '\0') {
        snprintf(io->message, sizeof io->message, "%s", exr_get_default_error_message(code));
    }
}

/* Position of channel `name` in an RGBA texel, or -1. */
static int rgba_index(const char *name) {
    static const char *const names[4] = {"R", "G", "B", "A"};
    for (int i = 0; i < 4; i++) {
        if (name != NULL && strcmp(name, names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

static exr_pixel_type_t pixel_type(crowd_texel_format format) {
    return format == CROWD_TEXEL_RGBA16F ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT;
}

static int32_t component_bytes(crowd_texel_format format) {
    return format == CROWD_TEXEL_RGBA16F ? 2 : 4;
}

/* Points each channel of a chunk at its component inside the interleaved rows. */
static void point_channels(exr_coding_channel_info_t *channels, int16_t count, uint8_t *texels,
                           uint32_t width, int32_t start_y, crowd_texel_format format,
                           bool decoding) {
    int32_t component = component_bytes(format);
    for (int16_t c = 0; c < count; c++) {
        int index = rgba_index(channels[c].channel_name);
        uint8_t *base =
            texels + ((size_t)start_y * width) * 4 * (size_t)component + (size_t)index * component;
        channels[c].user_bytes_per_element = (int16_t)component;
        channels[c].user_data_type = (uint16_t)pixel_type(format);
        channels[c].user_pixel_stride = 4 * component;
        channels[c].user_line_stride = (int32_t)(width * 4u * (uint32_t)component);
        if (decoding) {
            channels[c].decode_to_ptr = base;
        } else {
            channels[c].encode_from_ptr = base;
        }
    }
}

/* ---- writing ---------------------------------------------------------- */

static int64_t write_to_file(exr_const_context_t context, void *user, const void *buffer,
                             uint64_t size, uint64_t offset, exr_stream_error_func_ptr_t error_cb) {
    exr_io *io = user;
    if (!atomic_file_pwrite(io->file, buffer, size, offset)) {
        error_cb(context, EXR_ERR_WRITE_IO, "write failed");
        return -1;
    }
    return (int64_t)size;
}

static exr_result_t encode_chunks(exr_context_t context, int part, const crowd_texture *texture) {
    int32_t lines = 0;
    exr_result_t rv = exr_get_scanlines_per_chunk(context, part, &lines);
    exr_encode_pipeline_t encoder = EXR_ENCODE_PIPELINE_INITIALIZER;
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
        point_channels(encoder.channels, encoder.channel_count, texture->texels, texture->width,
                       chunk.start_y, texture->format, false);
        if (!started) {
            rv = exr_encoding_choose_default_routines(context, part, &encoder);
            started = true;
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

crowd_result exr_write_rgba(atomic_file *file, const crowd_texture *texture, crowd_error *error) {
    exr_io io = {.file = file};
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = &io;
    init.write_fn = write_to_file;
    init.error_handler_fn = on_error;
    exr_context_t context = NULL;
    int part = 0;
    exr_result_t rv =
        exr_start_write(&context, atomic_file_path(file), EXR_WRITE_FILE_DIRECTLY, &init);
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
        rv = exr_add_channel(context, part, names[c], pixel_type(texture->format),
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
        note_failure(&io, rv);
        if (rv == EXR_ERR_OUT_OF_MEMORY) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, atomic_file_path(file),
                                   "out of memory encoding EXR");
        }
        atomic_file_fail(file, io.message);
        return atomic_file_error(file, error);
    }
    return CROWD_OK;
}

/* ---- reading ---------------------------------------------------------- */

static int64_t read_from_memory(exr_const_context_t context, void *user, void *buffer,
                                uint64_t size, uint64_t offset,
                                exr_stream_error_func_ptr_t error_cb) {
    (void)context;
    (void)error_cb;
    exr_io *io = user;
    if (offset >= io->size) {
        return 0;
    }
    uint64_t available = io->size - offset;
    uint64_t count = size < available ? size : available;
    memcpy(buffer, io->data + offset, (size_t)count);
    return (int64_t)count;
}

static int64_t memory_size(exr_const_context_t context, void *user) {
    (void)context;
    return (int64_t)((exr_io *)user)->size;
}

typedef struct exr_read_request {
    const char *name;
    uint32_t width, height;
    crowd_texel_format format;
    crowd_error *error;
} exr_read_request;

/* The header must describe exactly a bake texture (exr_io.h). */
static crowd_result check_header(exr_context_t context, const exr_read_request *request,
                                 size_t size) {
    const char *name = request->name;
    crowd_error *error = request->error;
    int parts = 0;
    exr_storage_t storage = EXR_STORAGE_LAST_TYPE;
    exr_compression_t compression = EXR_COMPRESSION_LAST_TYPE;
    exr_attr_box2i_t window;
    const exr_attr_chlist_t *channels = NULL;
    if (exr_get_count(context, &parts) != EXR_ERR_SUCCESS || parts != 1 ||
        exr_get_storage(context, 0, &storage) != EXR_ERR_SUCCESS ||
        storage != EXR_STORAGE_SCANLINE) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, name,
                               "EXR is multi-part, tiled or deep; bakes use one scanline part");
    }
    if (exr_get_compression(context, 0, &compression) != EXR_ERR_SUCCESS ||
        !(compression == EXR_COMPRESSION_NONE || compression == EXR_COMPRESSION_RLE ||
          compression == EXR_COMPRESSION_ZIPS || compression == EXR_COMPRESSION_ZIP ||
          compression == EXR_COMPRESSION_PIZ)) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, name,
                               "EXR uses a lossy or unknown compression (%d)", (int)compression);
    }
    if (exr_get_data_window(context, 0, &window) != EXR_ERR_SUCCESS || window.min.x != 0 ||
        window.min.y != 0 || (int64_t)window.max.x + 1 != request->width ||
        (int64_t)window.max.y + 1 != request->height) {
        return crowd_error_set(
            error, CROWD_ERROR_INVALID_DATA, name,
            "image window is (%d,%d)-(%d,%d), the manifest says %ux%u from (0,0)", window.min.x,
            window.min.y, window.max.x, window.max.y, request->width, request->height);
    }
    if (exr_get_channels(context, 0, &channels) != EXR_ERR_SUCCESS || channels->num_channels != 4) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, name,
                               "EXR has %d channels, expected R, G, B, A",
                               channels ? channels->num_channels : 0);
    }
    bool seen[4] = {false, false, false, false};
    for (int c = 0; c < 4; c++) {
        const exr_attr_chlist_entry_t *entry = &channels->entries[c];
        int index = rgba_index(entry->name.str);
        if (index < 0 || seen[index] || entry->x_sampling != 1 || entry->y_sampling != 1) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, name,
                                   "EXR channel '%s' is not one of R, G, B, A at full resolution",
                                   entry->name.str ? entry->name.str : "");
        }
        seen[index] = true;
        if (entry->pixel_type != pixel_type(request->format)) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, name,
                                   "EXR channel '%s' is %s, the manifest's encoding needs %s",
                                   entry->name.str,
                                   entry->pixel_type == EXR_PIXEL_HALF    ? "half"
                                   : entry->pixel_type == EXR_PIXEL_FLOAT ? "float"
                                                                          : "uint",
                                   request->format == CROWD_TEXEL_RGBA16F ? "half" : "float");
        }
    }
    uint64_t bytes = (uint64_t)request->width * request->height * 4u *
                     (uint64_t)component_bytes(request->format);
    if (!load_size_plausible(bytes, size)) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, name,
                               "a %ux%u image cannot come from %zu bytes", request->width,
                               request->height, size);
    }
    return CROWD_OK;
}

static exr_result_t decode_chunks(exr_context_t context, const exr_read_request *request,
                                  uint8_t *texels) {
    int32_t chunks = 0, lines = 0;
    exr_result_t rv = exr_get_chunk_count(context, 0, &chunks);
    if (rv == EXR_ERR_SUCCESS) {
        rv = exr_get_scanlines_per_chunk(context, 0, &lines);
    }
    exr_decode_pipeline_t decoder = EXR_DECODE_PIPELINE_INITIALIZER;
    bool started = false;
    for (int32_t i = 0; rv == EXR_ERR_SUCCESS && i < chunks; i++) {
        exr_chunk_info_t chunk;
        rv = exr_read_scanline_chunk_info(context, 0, i * lines, &chunk);
        if (rv != EXR_ERR_SUCCESS) {
            break;
        }
        if (chunk.start_y < 0 || chunk.height < 0 || chunk.width != (int32_t)request->width ||
            (int64_t)chunk.start_y + chunk.height > (int64_t)request->height) {
            rv = EXR_ERR_CORRUPT_CHUNK;
            break;
        }
        rv = started ? exr_decoding_update(context, 0, &chunk, &decoder)
                     : exr_decoding_initialize(context, 0, &chunk, &decoder);
        if (rv != EXR_ERR_SUCCESS) {
            break;
        }
        point_channels(decoder.channels, decoder.channel_count, texels, request->width,
                       chunk.start_y, request->format, true);
        if (!started) {
            rv = exr_decoding_choose_default_routines(context, 0, &decoder);
            started = true;
        }
        if (rv == EXR_ERR_SUCCESS) {
            rv = exr_decoding_run(context, 0, &decoder);
        }
    }
    if (started) {
        exr_result_t destroyed = exr_decoding_destroy(context, &decoder);
        if (rv == EXR_ERR_SUCCESS) {
            rv = destroyed;
        }
    }
    return rv;
}

crowd_result exr_read_rgba(const uint8_t *data, size_t size, const char *name, uint32_t width,
                           uint32_t height, crowd_texel_format format, void **out_texels,
                           crowd_error *error) {
    *out_texels = NULL;
    exr_io io = {.data = data, .size = size};
    exr_read_request request = {name, width, height, format, error};
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = &io;
    init.read_fn = read_from_memory;
    init.size_fn = memory_size;
    init.error_handler_fn = on_error;
    init.max_image_width = (int)CROWD_BAKE_MAX_TEXTURE_SIZE;
    init.max_image_height = (int)CROWD_BAKE_MAX_TEXTURE_SIZE;
    init.max_tile_width = (int)CROWD_BAKE_MAX_TEXTURE_SIZE;
    init.max_tile_height = (int)CROWD_BAKE_MAX_TEXTURE_SIZE;
    init.flags = EXR_CONTEXT_FLAG_STRICT_HEADER | EXR_CONTEXT_FLAG_DISABLE_CHUNK_RECONSTRUCTION;
    exr_context_t context = NULL;
    exr_result_t rv = exr_start_read(&context, name, &init);
    if (rv != EXR_ERR_SUCCESS) {
        note_failure(&io, rv);
        exr_finish(&context);
        return crowd_error_set(error,
                               rv == EXR_ERR_OUT_OF_MEMORY ? CROWD_ERROR_OUT_OF_MEMORY
                                                           : CROWD_ERROR_INVALID_DATA,
                               name, "not a readable EXR file: %s", io.message);
    }
    crowd_result result = check_header(context, &request, size);
    uint8_t *texels = NULL;
    if (result == CROWD_OK) {
        texels = malloc((size_t)width * height * 4u * (size_t)component_bytes(format));
        if (texels == NULL) {
            result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, name,
                                     "out of memory for a %ux%u texture", width, height);
        }
    }
    if (result == CROWD_OK) {
        rv = decode_chunks(context, &request, texels);
        if (rv != EXR_ERR_SUCCESS) {
            note_failure(&io, rv);
            result = crowd_error_set(error,
                                     rv == EXR_ERR_OUT_OF_MEMORY ? CROWD_ERROR_OUT_OF_MEMORY
                                                                 : CROWD_ERROR_INVALID_DATA,
                                     name, "corrupt or truncated EXR: %s", io.message);
        }
    }
    exr_finish(&context);
    if (result != CROWD_OK) {
        free(texels);
        return result;
    }
    *out_texels = texels;
    return CROWD_OK;
}
