/* Reading the float textures of a bake from OpenEXR files in memory
 * (exr_read.h), through the C core library (layout: exr_texture.h). */
#include "load/exr_read.h"

#include <openexr.h>
#include <string.h>

#include "core/core_internal.h"
#include "load/exr_texture.h"
#include "load/load_limits.h"

/* The allocator of the decode running on this thread. OpenEXR's context
 * takes alloc_fn/free_fn without a user pointer, and its core library
 * calls them only from the thread that calls it, so a thread-local set for
 * the length of one crowd__exr_read_rgba (and restored after it) is the caller's
 * allocator for exactly that context. */
static _Thread_local const crowd_allocator *exr_allocator;

static void *exr_alloc(size_t bytes) {
    return crowd__mem_alloc(exr_allocator, bytes);
}

static void exr_release(void *block) {
    crowd__mem_free(exr_allocator, block);
}

typedef struct exr_read_io {
    exr_texture_message message; /* first: the error handler fills it */
    const uint8_t *data;
    size_t size;
} exr_read_io;

static int64_t read_from_memory(exr_const_context_t context, void *user, void *buffer,
                                uint64_t size, uint64_t offset,
                                exr_stream_error_func_ptr_t error_cb) {
    (void)context;
    (void)error_cb;
    exr_read_io *io = user;
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
    return (int64_t)((exr_read_io *)user)->size;
}

typedef struct exr_read_request {
    const char *name;
    uint32_t width, height;
    crowd_texel_format format;
    crowd_error *error;
} exr_read_request;

/* The header must describe exactly a bake texture (exr_read.h). */
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
        int index = crowd__exr_texture_channel_index(entry->name.str);
        char shown[64];
        crowd__exr_texture_printable(shown, sizeof shown, entry->name.str);
        if (index < 0 || seen[index] || entry->x_sampling != 1 || entry->y_sampling != 1) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, name,
                                   "EXR channel '%s' is not one of R, G, B, A at full resolution",
                                   shown);
        }
        seen[index] = true;
        if (entry->pixel_type != crowd__exr_texture_pixel_type(request->format)) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, name,
                                   "EXR channel '%s' is %s, the manifest's encoding needs %s",
                                   shown,
                                   entry->pixel_type == EXR_PIXEL_HALF    ? "half"
                                   : entry->pixel_type == EXR_PIXEL_FLOAT ? "float"
                                                                          : "uint",
                                   request->format == CROWD_TEXEL_RGBA16F ? "half" : "float");
        }
    }
    uint64_t bytes = (uint64_t)request->width * request->height * 4u *
                     (uint64_t)crowd__exr_texture_component_bytes(request->format);
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
        crowd__exr_texture_point_channels(decoder.channels, decoder.channel_count, texels,
                                          request->width, chunk.start_y, request->format, true);
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

/* The decode proper, on the thread's exr_allocator. */
static crowd_result read_rgba(const uint8_t *data, size_t size, const exr_read_request *request,
                              void **out_texels) {
    const char *name = request->name;
    crowd_error *error = request->error;
    exr_read_io io = {.data = data, .size = size};
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = &io;
    init.read_fn = read_from_memory;
    init.size_fn = memory_size;
    init.error_handler_fn = crowd__exr_texture_on_error;
    init.alloc_fn = exr_alloc;
    init.free_fn = exr_release;
    init.max_image_width = (int)CROWD_BAKE_MAX_TEXTURE_SIZE;
    init.max_image_height = (int)CROWD_BAKE_MAX_TEXTURE_SIZE;
    init.max_tile_width = (int)CROWD_BAKE_MAX_TEXTURE_SIZE;
    init.max_tile_height = (int)CROWD_BAKE_MAX_TEXTURE_SIZE;
    init.flags = EXR_CONTEXT_FLAG_STRICT_HEADER | EXR_CONTEXT_FLAG_DISABLE_CHUNK_RECONSTRUCTION;
    exr_context_t context = NULL;
    exr_result_t rv = exr_start_read(&context, name, &init);
    if (rv != EXR_ERR_SUCCESS) {
        crowd__exr_texture_note_failure(&io.message, rv);
        exr_finish(&context);
        return crowd_error_set(error,
                               rv == EXR_ERR_OUT_OF_MEMORY ? CROWD_ERROR_OUT_OF_MEMORY
                                                           : CROWD_ERROR_INVALID_DATA,
                               name, "not a readable EXR file: %s", io.message.text);
    }
    crowd_result result = check_header(context, request, size);
    uint8_t *texels = NULL;
    if (result == CROWD_OK) {
        texels = exr_alloc((size_t)request->width * request->height * 4u *
                           (size_t)crowd__exr_texture_component_bytes(request->format));
        if (texels == NULL) {
            result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, name,
                                     "out of memory for a %ux%u texture", request->width,
                                     request->height);
        }
    }
    if (result == CROWD_OK) {
        rv = decode_chunks(context, request, texels);
        if (rv != EXR_ERR_SUCCESS) {
            crowd__exr_texture_note_failure(&io.message, rv);
            result = crowd_error_set(error,
                                     rv == EXR_ERR_OUT_OF_MEMORY ? CROWD_ERROR_OUT_OF_MEMORY
                                                                 : CROWD_ERROR_INVALID_DATA,
                                     name, "corrupt or truncated EXR: %s", io.message.text);
        }
    }
    exr_finish(&context);
    if (result != CROWD_OK) {
        exr_release(texels);
        return result;
    }
    *out_texels = texels;
    return CROWD_OK;
}

crowd_result crowd__exr_read_rgba(const uint8_t *data, size_t size, const char *name,
                                  uint32_t width, uint32_t height, crowd_texel_format format,
                                  const crowd_allocator *allocator, void **out_texels,
                                  crowd_error *error) {
    *out_texels = NULL;
    exr_read_request request = {name, width, height, format, error};
    const crowd_allocator *outer = exr_allocator;
    exr_allocator = allocator;
    crowd_result result = read_rgba(data, size, &request, out_texels);
    exr_allocator = outer;
    return result;
}
