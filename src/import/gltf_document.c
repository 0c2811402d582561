/* gltf_document.c - the glTF 2.0 container: GLB header and chunks, the
 * JSON, and buffer bytes (GLB binary chunk, base64 data: URIs, external
 * files), each range checked before it is read. */
#define _POSIX_C_SOURCE 200809L /* fseeko, fileno, strcasecmp */
#include "import/gltf_document.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */
#define GLB_HEADER_SIZE 12u
#define GLB_CHUNK_HEADER_SIZE 8u

/* The whole input while the container is parsed: bytes in memory or a file. */
typedef struct source {
    const uint8_t *bytes;
    FILE *stream;
    uint64_t size;
} source;

static bool source_read(const source *src, uint64_t offset, uint64_t length, void *out) {
    if (length > src->size || offset > src->size - length) {
        return false;
    }
    if (src->bytes != NULL) {
        memcpy(out, src->bytes + offset, (size_t)length);
        return true;
    }
    return fseeko(src->stream, (off_t)offset, SEEK_SET) == 0 &&
           fread(out, 1, (size_t)length, src->stream) == length;
}

static uint32_t read_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool has_gltf_extension(const char *name) {
    const char *dot = name ? strrchr(name, '.') : NULL;
    return dot != NULL && (strcasecmp(dot, ".gltf") == 0 || strcasecmp(dot, ".glb") == 0);
}

bool gltf_json_uint(const cJSON *object, const char *key, uint64_t fallback, uint64_t max,
                    uint64_t *out) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (item == NULL) {
        *out = fallback;
        return fallback != UINT64_MAX;
    }
    double value = item->valuedouble;
    if (!cJSON_IsNumber(item) || !isfinite(value) || value < 0.0 || value != floor(value) ||
        value > (double)max) {
        return false;
    }
    *out = (uint64_t)value;
    return true;
}

const cJSON *gltf_json_element(const gltf_document *doc, const char *key, uint64_t index) {
    for (int a = 0; a < GLTF_ARRAY_COUNT; a++) {
        const gltf_array *array = &doc->arrays[a];
        if (strcmp(array->key, key) == 0) {
            return index < array->count && cJSON_IsObject(array->items[index]) ? array->items[index]
                                                                               : NULL;
        }
    }
    return NULL;
}

static crowd_result index_arrays(gltf_document *doc) {
    static const char *const keys[GLTF_ARRAY_COUNT] = {"accessors", "animations", "bufferViews",
                                                       "buffers",   "nodes",      "scenes"};
    for (int a = 0; a < GLTF_ARRAY_COUNT; a++) {
        gltf_array *array = &doc->arrays[a];
        array->key = keys[a];
        const cJSON *json = cJSON_GetObjectItemCaseSensitive(doc->json, keys[a]);
        int count = cJSON_IsArray(json) ? cJSON_GetArraySize(json) : 0;
        array->items = malloc(((size_t)count + 1) * sizeof *array->items);
        if (array->items == NULL) {
            return crowd_error_set(doc->error, CROWD_ERROR_OUT_OF_MEMORY, doc->file,
                                   "out of memory");
        }
        for (const cJSON *item = count > 0 ? json->child : NULL; item != NULL; item = item->next) {
            array->items[array->count++] = item;
        }
    }
    return CROWD_OK;
}

/* Parses `length` bytes of JSON at `offset`. CROWD_ERROR_INVALID_DATA, with
 * `error` left to the caller, when they cannot be read or are not a JSON
 * object. A UTF-8 byte-order mark (which the specification forbids) is
 * skipped: assimp has read the file already, and a mark is no reason to fail. */
static crowd_result parse_json(gltf_document *doc, const source *src, uint64_t offset,
                               uint64_t length) {
    char *text = malloc(length + 1);
    if (text == NULL) {
        return crowd_error_set(doc->error, CROWD_ERROR_OUT_OF_MEMORY, doc->file, "out of memory");
    }
    if (source_read(src, offset, length, text)) {
        size_t skip = length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
        doc->json = cJSON_ParseWithLength(text + skip, (size_t)length - skip);
    }
    free(text);
    return cJSON_IsObject(doc->json) ? CROWD_OK : CROWD_ERROR_INVALID_DATA;
}

/* GLB: 12-byte header (magic, version, length), the JSON chunk, then an
 * optional BIN chunk; chunks after it are ignored, as the specification
 * asks. Sets *is_v2 false for GLB version 1 (assimp's glTF 1 reader). */
static crowd_result parse_glb(gltf_document *doc, const source *src, bool *is_v2) {
    uint8_t header[GLB_HEADER_SIZE + GLB_CHUNK_HEADER_SIZE];
    if (!source_read(src, 0, sizeof header, header)) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "GLB shorter than its %zu-byte header", sizeof header);
    }
    *is_v2 = read_u32(header + 4) == 2;
    if (!*is_v2) {
        return CROWD_OK;
    }
    uint64_t total = read_u32(header + 8);
    if (total > src->size) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "GLB header says %llu bytes, the file has %llu",
                               (unsigned long long)total, (unsigned long long)src->size);
    }
    uint64_t json_length = read_u32(header + 12);
    uint64_t json_start = sizeof header;
    if (read_u32(header + 16) != GLB_CHUNK_JSON || total < json_start ||
        json_length > total - json_start) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "GLB first chunk is not a JSON chunk inside the file");
    }
    crowd_result result = parse_json(doc, src, json_start, json_length);
    if (result == CROWD_ERROR_INVALID_DATA) {
        return crowd_error_set(doc->error, result, doc->file, "GLB JSON chunk is malformed");
    }
    uint64_t next = json_start + json_length;
    uint8_t chunk[GLB_CHUNK_HEADER_SIZE];
    if (result != CROWD_OK || total - next < sizeof chunk ||
        !source_read(src, next, sizeof chunk, chunk) || read_u32(chunk + 4) != GLB_CHUNK_BIN) {
        return result;
    }
    uint64_t bin_length = read_u32(chunk);
    if (bin_length > total - next - sizeof chunk) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "GLB binary chunk of %llu bytes runs past the end of the file",
                               (unsigned long long)bin_length);
    }
    doc->has_bin = true;
    doc->bin_offset = next + sizeof chunk;
    doc->bin_size = bin_length;
    doc->bin = src->bytes != NULL ? src->bytes + doc->bin_offset : NULL;
    return CROWD_OK;
}

/* Parses the container; *out stays NULL when it is not glTF 2.0 with
 * animations or, with `any`, not glTF 2.0 as assimp 5.2 decides: a GLB of
 * version 2 whatever its asset says, text whose asset.version starts with '2'. */
static crowd_result open_source(const source *src, const char *file, const char *dir,
                                const char *path, bool any, gltf_document **out,
                                crowd_error *error) {
    gltf_document *doc = calloc(1, sizeof *doc);
    if (doc == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    }
    doc->file = file;
    doc->dir = dir;
    doc->path = path;
    doc->error = error;
    uint8_t magic[4];
    bool is_v2 = true, is_glb = false;
    crowd_result result = CROWD_OK;
    if (source_read(src, 0, sizeof magic, magic) && read_u32(magic) == GLB_MAGIC) {
        is_glb = true;
        result = parse_glb(doc, src, &is_v2);
    } else {
        /* assimp read this file, so text that is not JSON is another format
         * with a glTF name (assimp also guesses by content). */
        result = parse_json(doc, src, 0, src->size);
        if (result == CROWD_ERROR_INVALID_DATA) {
            result = CROWD_OK;
            is_v2 = false;
        }
    }
    if (result == CROWD_OK && is_v2) {
        const cJSON *asset = cJSON_GetObjectItemCaseSensitive(doc->json, "asset");
        const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
        const cJSON *animations = cJSON_GetObjectItemCaseSensitive(doc->json, "animations");
        bool animated = cJSON_IsArray(animations) && cJSON_GetArraySize(animations) > 0;
        const char *text = cJSON_IsString(version) ? version->valuestring : "";
        is_v2 = any ? is_glb || text[0] == '2' : strncmp(text, "2.", 2) == 0 && animated;
    }
    if (result == CROWD_OK && is_v2) {
        result = index_arrays(doc);
    }
    if (result == CROWD_OK && is_v2) {
        const cJSON *buffers = cJSON_GetObjectItemCaseSensitive(doc->json, "buffers");
        int count = cJSON_IsArray(buffers) ? cJSON_GetArraySize(buffers) : 0;
        doc->buffer_count = (uint32_t)count;
        doc->buffers = calloc((size_t)count + 1, sizeof *doc->buffers);
        if (doc->buffers == NULL) {
            result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
        }
    }
    if (result != CROWD_OK || !is_v2) {
        gltf_document_close(doc);
        return result;
    }
    *out = doc;
    return CROWD_OK;
}

crowd_result gltf_document_open_file(const char *path, const char *dir, gltf_document **out,
                                     crowd_error *error) {
    *out = NULL;
    if (!has_gltf_extension(path)) {
        return CROWD_OK;
    }
    FILE *stream = fopen(path, "rb");
    struct stat st;
    if (stream == NULL || fstat(fileno(stream), &st) != 0) {
        crowd_result result =
            crowd_error_set(error, CROWD_ERROR_IO, path, "cannot open: %s", strerror(errno));
        if (stream != NULL) {
            fclose(stream);
        }
        return result;
    }
    source src = {NULL, stream, (uint64_t)st.st_size};
    crowd_result result = open_source(&src, path, dir, path, false, out, error);
    fclose(stream);
    return result;
}

crowd_result gltf_document_open_memory(const void *bytes, size_t size, const char *name,
                                       gltf_document **out, crowd_error *error) {
    *out = NULL;
    if (!has_gltf_extension(name)) {
        return CROWD_OK;
    }
    source src = {bytes, NULL, size};
    return open_source(&src, name, NULL, NULL, false, out, error);
}

crowd_result gltf_document_open_bytes(const void *bytes, size_t size, const char *name,
                                      const char *dir, gltf_document **out, crowd_error *error) {
    *out = NULL;
    source src = {bytes, NULL, size};
    return open_source(&src, name, dir, NULL, true, out, error);
}

void gltf_document_close(gltf_document *doc) {
    if (doc == NULL) {
        return;
    }
    for (uint32_t b = 0; b < doc->buffer_count; b++) {
        free(doc->buffers[b].decoded);
        if (doc->buffers[b].stream != NULL) {
            fclose(doc->buffers[b].stream);
        }
    }
    free(doc->buffers);
    for (int a = 0; a < GLTF_ARRAY_COUNT; a++) {
        free(doc->arrays[a].items);
    }
    cJSON_Delete(doc->json);
    free(doc);
}

static int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Standard base64 with optional '=' padding; NULL when a character is not base64. */
static uint8_t *base64_decode(const char *text, size_t length, uint64_t *out_size) {
    uint8_t *out = malloc(length / 4 * 3 + 3);
    if (out == NULL) {
        return NULL;
    }
    uint32_t bits = 0, pending = 0;
    size_t size = 0, padding = 0;
    for (size_t i = 0; i < length; i++) {
        if (text[i] == '=' && padding < 2) {
            padding++;
            continue;
        }
        int value = base64_value(text[i]);
        if (value < 0 || padding > 0) {
            free(out);
            return NULL;
        }
        bits = (bits << 6 | (uint32_t)value) & 0xFFFFu;
        pending += 6;
        if (pending >= 8) {
            pending -= 8;
            out[size++] = (uint8_t)(bits >> pending);
        }
    }
    *out_size = size;
    return out;
}

/* A relative URI as a path under doc->dir. Not percent-decoded: assimp 5.2
 * opens the name as written, and the bytes must be the ones it read. */
static char *uri_path(const gltf_document *doc, const char *uri) {
    size_t dir_length = strlen(doc->dir), uri_length = strlen(uri);
    char *path = malloc(dir_length + uri_length + 2);
    if (path != NULL) {
        memcpy(path, doc->dir, dir_length);
        path[dir_length] = '/';
        memcpy(path + dir_length + 1, uri, uri_length + 1);
    }
    return path;
}

/* "scheme:" before any '/' makes a URI absolute (http:, file:, ...). */
static bool uri_has_scheme(const char *uri) {
    for (const char *c = uri; *c != '\0' && *c != '/'; c++) {
        if (*c == ':') {
            return true;
        }
    }
    return false;
}

static crowd_result resolve_data_uri(gltf_document *doc, uint32_t index, gltf_buffer *buffer,
                                     const char *uri) {
    const char *comma = strchr(uri, ',');
    size_t header = comma ? (size_t)(comma - uri) : 0;
    if (comma == NULL || header < 7 || memcmp(comma - 7, ";base64", 7) != 0) {
        return crowd_error_set(doc->error, CROWD_ERROR_UNSUPPORTED, doc->file,
                               "buffer %u: data: URI is not base64", index);
    }
    uint64_t size = 0;
    buffer->decoded = base64_decode(comma + 1, strlen(comma + 1), &size);
    if (buffer->decoded == NULL) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "buffer %u: data: URI is not valid base64", index);
    }
    if (size < buffer->byte_length) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "buffer %u: data: URI holds %llu bytes, byteLength says %llu", index,
                               (unsigned long long)size, (unsigned long long)buffer->byte_length);
    }
    buffer->bytes = buffer->decoded;
    return CROWD_OK;
}

static crowd_result resolve_file_uri(gltf_document *doc, uint32_t index, gltf_buffer *buffer,
                                     const char *uri) {
    if (doc->dir == NULL || uri_has_scheme(uri)) {
        return crowd_error_set(doc->error, CROWD_ERROR_UNSUPPORTED, doc->file,
                               "buffer %u: '%s' cannot be read (%s)", index, uri,
                               doc->dir == NULL ? "external files are not read from memory"
                                                : "not a relative file name");
    }
    char *path = uri_path(doc, uri);
    if (path == NULL) {
        return crowd_error_set(doc->error, CROWD_ERROR_OUT_OF_MEMORY, doc->file, "out of memory");
    }
    struct stat st;
    buffer->stream = fopen(path, "rb");
    crowd_result result = CROWD_OK;
    if (buffer->stream == NULL || fstat(fileno(buffer->stream), &st) != 0) {
        result = crowd_error_set(doc->error, CROWD_ERROR_IO, doc->file,
                                 "buffer %u: cannot open '%s': %s", index, path, strerror(errno));
    } else if ((uint64_t)st.st_size < buffer->byte_length) {
        result = crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                                 "buffer %u: '%s' has %llu bytes, byteLength says %llu", index,
                                 path, (unsigned long long)st.st_size,
                                 (unsigned long long)buffer->byte_length);
    }
    if (result != CROWD_OK && buffer->stream != NULL) {
        fclose(buffer->stream);
        buffer->stream = NULL;
    }
    free(path);
    return result;
}

/* Finds where buffer `index`'s bytes are (once). */
static crowd_result resolve_buffer(gltf_document *doc, uint32_t index) {
    gltf_buffer *buffer = &doc->buffers[index];
    if (buffer->resolved) {
        return CROWD_OK;
    }
    buffer->resolved = true;
    const cJSON *json = gltf_json_element(doc, "buffers", index);
    if (json == NULL ||
        !gltf_json_uint(json, "byteLength", UINT64_MAX, UINT64_MAX >> 12, &buffer->byte_length)) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "buffer %u: no valid byteLength", index);
    }
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(json, "uri");
    if (cJSON_IsString(uri)) {
        return strncmp(uri->valuestring, "data:", 5) == 0
                   ? resolve_data_uri(doc, index, buffer, uri->valuestring)
                   : resolve_file_uri(doc, index, buffer, uri->valuestring);
    }
    if (uri != NULL || index != 0 || !doc->has_bin) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "buffer %u: no uri and no GLB binary chunk", index);
    }
    if (buffer->byte_length > doc->bin_size) {
        return crowd_error_set(
            doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
            "buffer 0: byteLength %llu exceeds the GLB binary chunk (%llu bytes)",
            (unsigned long long)buffer->byte_length, (unsigned long long)doc->bin_size);
    }
    if (doc->bin != NULL) {
        buffer->bytes = doc->bin;
        return CROWD_OK;
    }
    buffer->stream = fopen(doc->path, "rb");
    buffer->stream_offset = doc->bin_offset;
    if (buffer->stream == NULL) {
        return crowd_error_set(doc->error, CROWD_ERROR_IO, doc->file, "cannot open: %s",
                               strerror(errno));
    }
    return CROWD_OK;
}

crowd_result gltf_buffer_read(gltf_document *doc, uint32_t index, uint64_t offset, uint64_t length,
                              void *out, const char *what) {
    if (index >= doc->buffer_count) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: buffer %u does not exist (%u buffers)", what, index,
                               doc->buffer_count);
    }
    crowd_result result = resolve_buffer(doc, index);
    if (result != CROWD_OK) {
        return result;
    }
    const gltf_buffer *buffer = &doc->buffers[index];
    if (buffer->bytes == NULL && buffer->stream == NULL) {
        /* A buffer that failed to resolve earlier keeps failing. */
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: buffer %u cannot be read", what, index);
    }
    if (length > buffer->byte_length || offset > buffer->byte_length - length) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: bytes [%llu, %llu) are outside buffer %u (%llu bytes)", what,
                               (unsigned long long)offset, (unsigned long long)(offset + length),
                               index, (unsigned long long)buffer->byte_length);
    }
    if (out == NULL || length == 0) {
        return CROWD_OK;
    }
    if (buffer->bytes != NULL) {
        memcpy(out, buffer->bytes + offset, (size_t)length);
        return CROWD_OK;
    }
    source src = {NULL, buffer->stream, UINT64_MAX};
    if (!source_read(&src, buffer->stream_offset + offset, length, out)) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: buffer %u is shorter than declared", what, index);
    }
    return CROWD_OK;
}
