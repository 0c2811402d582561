/* gltf_document.c - the glTF 2.0 container: GLB header and chunks, the
 * JSON parsed once, the top-level arrays, and buffer bytes (GLB binary
 * chunk, base64 data: URIs, external files), each range checked before it
 * is read. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "import/gltf/gltf_document.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core_internal.h"

#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */
#define GLB_HEADER_SIZE 12u
#define GLB_CHUNK_HEADER_SIZE 8u
/* An external buffer or image larger than this is no character's. */
#define GLTF_MAX_EXTERNAL_BYTES ((size_t)1 << 31)

static const char *const list_keys[GLTF_LIST_COUNT] = {
    "accessors", "animations", "buffers",  "bufferViews", "cameras", "images",  "materials",
    "meshes",    "nodes",      "samplers", "scenes",      "skins",   "textures"};

crowd_result crowd__gltf_fail(const gltf_document *doc, const char *format, ...) {
    char reason[sizeof doc->error->reason];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file, "%s", reason);
}

bool crowd__gltf_json_uint(const cJSON *object, const char *key, uint64_t fallback, uint64_t max,
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

bool crowd__gltf_json_floats(const cJSON *object, const char *key, uint32_t count, float *out) {
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(object, key);
    if (array == NULL) {
        return true;
    }
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != (int)count) {
        return false;
    }
    float values[16];
    uint32_t i = 0;
    for (const cJSON *item = array->child; item != NULL && i < 16; item = item->next, i++) {
        values[i] = (float)item->valuedouble;
        if (!cJSON_IsNumber(item) || !isfinite(values[i])) {
            return false;
        }
    }
    memcpy(out, values, count * sizeof *out);
    return true;
}

const char *crowd__gltf_json_string(const cJSON *object, const char *key, bool *ok) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    *ok = item == NULL || cJSON_IsString(item);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

crowd_result crowd__gltf_ref(const gltf_document *doc, const cJSON *object, const char *key,
                             gltf_list_id list, bool required, const char *path, uint32_t *out,
                             bool *present) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (present != NULL) {
        *present = item != NULL;
    }
    const char *dot = path[0] != '\0' ? "." : "";
    if (item == NULL) {
        return required ? crowd__gltf_fail(doc, "%s%s%s is missing", path, dot, key) : CROWD_OK;
    }
    uint64_t index = 0;
    if (!crowd__gltf_json_uint(object, key, 0, UINT32_MAX, &index)) {
        return crowd__gltf_fail(doc, "%s%s%s is not an index", path, dot, key);
    }
    if (index >= doc->lists[list].count) {
        return crowd__gltf_fail(
            doc, "%s%s%s names %s[%llu], which does not exist (the file has %u)", path, dot, key,
            list_keys[list], (unsigned long long)index, doc->lists[list].count);
    }
    *out = (uint32_t)index;
    return CROWD_OK;
}

static uint32_t read_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool named_gltf(const char *name) {
    const char *dot = name ? strrchr(name, '.') : NULL;
    return dot != NULL && (strcasecmp(dot, ".gltf") == 0 || strcasecmp(dot, ".glb") == 0);
}

/* Parses JSON text; *at is where cJSON stopped when it fails. */
static cJSON *parse_json(const uint8_t *text, size_t length, const gltf_document *doc,
                         const crowd_logger *logger, size_t *at) {
    size_t skip = length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    const char *end = NULL;
    cJSON *json = cJSON_ParseWithLengthOpts((const char *)text + skip, length - skip, &end, false);
    crowd_log(logger, CROWD_LOG_DEBUG, "%s: glTF JSON parsed (%zu bytes)", doc->file, length);
    *at = end != NULL ? (size_t)(end - (const char *)text) : 0;
    return json;
}

/* GLB: 12-byte header (magic, version, length), the JSON chunk, then an
 * optional BIN chunk; chunks after it are ignored, as the specification
 * asks. */
static crowd_result parse_glb(gltf_document *doc, const uint8_t *bytes, uint64_t size,
                              const crowd_logger *logger, gltf_kind *kind) {
    if (size < GLB_HEADER_SIZE + GLB_CHUNK_HEADER_SIZE) {
        return crowd__gltf_fail(doc, "GLB shorter than its %u-byte header",
                                GLB_HEADER_SIZE + GLB_CHUNK_HEADER_SIZE);
    }
    uint32_t version = read_u32(bytes + 4);
    if (version == 1) {
        *kind = GLTF_KIND_GLTF1;
        return CROWD_OK;
    }
    if (version != 2) {
        return crowd__gltf_fail(doc, "GLB version %u (crowd reads version 2)", version);
    }
    uint64_t total = read_u32(bytes + 8);
    if (total > size) {
        return crowd__gltf_fail(doc, "GLB header says %llu bytes, the file has %llu",
                                (unsigned long long)total, (unsigned long long)size);
    }
    uint64_t json_length = read_u32(bytes + 12);
    uint64_t json_start = GLB_HEADER_SIZE + GLB_CHUNK_HEADER_SIZE;
    if (read_u32(bytes + 16) != GLB_CHUNK_JSON || total < json_start ||
        json_length > total - json_start) {
        return crowd__gltf_fail(doc, "GLB first chunk is not a JSON chunk inside the file");
    }
    size_t at = 0;
    doc->json = parse_json(bytes + json_start, (size_t)json_length, doc, logger, &at);
    if (!cJSON_IsObject(doc->json)) {
        return crowd__gltf_fail(doc, "GLB JSON chunk is malformed (at byte %zu of the chunk)", at);
    }
    uint64_t next = json_start + json_length;
    if (total - next < GLB_CHUNK_HEADER_SIZE || read_u32(bytes + next + 4) != GLB_CHUNK_BIN) {
        return CROWD_OK;
    }
    uint64_t bin_length = read_u32(bytes + next);
    if (bin_length > total - next - GLB_CHUNK_HEADER_SIZE) {
        return crowd__gltf_fail(doc, "GLB binary chunk of %llu bytes runs past the end of the file",
                                (unsigned long long)bin_length);
    }
    doc->bin = bytes + next + GLB_CHUNK_HEADER_SIZE;
    doc->bin_size = bin_length;
    return CROWD_OK;
}

static bool looks_like_json(const uint8_t *bytes, size_t size) {
    size_t at = size >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (at < size &&
           (bytes[at] == ' ' || bytes[at] == '\t' || bytes[at] == '\r' || bytes[at] == '\n')) {
        at++;
    }
    return at < size && bytes[at] == '{';
}

/* JSON text: glTF 2.0 unless asset.version says 1; text without an asset
 * that is not named glTF is some other reader's. */
static crowd_result parse_text(gltf_document *doc, const uint8_t *bytes, size_t size,
                               const crowd_logger *logger, gltf_kind *kind) {
    bool named = named_gltf(doc->file);
    if (!looks_like_json(bytes, size)) {
        *kind = named ? GLTF_KIND_BROKEN : GLTF_KIND_OTHER;
        return named ? crowd__gltf_fail(doc, "named %s but neither a GLB nor glTF JSON",
                                        strrchr(doc->file, '.'))
                     : CROWD_OK;
    }
    size_t at = 0;
    doc->json = parse_json(bytes, size, doc, logger, &at);
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(doc->json, "asset");
    if (!cJSON_IsObject(doc->json) || (asset == NULL && !named)) {
        *kind = named ? GLTF_KIND_BROKEN : GLTF_KIND_OTHER;
        return named
                   ? crowd__gltf_fail(doc, "starts as JSON but is not valid JSON (at byte %zu)", at)
                   : CROWD_OK;
    }
    /* glTF 1.0 files wrote "1.0", and early ones the number 1. */
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if ((cJSON_IsString(version) && version->valuestring[0] == '1') ||
        (cJSON_IsNumber(version) && version->valuedouble < 2.0)) {
        *kind = GLTF_KIND_GLTF1;
    }
    return CROWD_OK;
}

static crowd_result index_lists(gltf_document *doc) {
    for (int l = 0; l < GLTF_LIST_COUNT; l++) {
        const cJSON *array = cJSON_GetObjectItemCaseSensitive(doc->json, list_keys[l]);
        if (array != NULL && !cJSON_IsArray(array)) {
            return crowd__gltf_fail(doc, "%s is not an array", list_keys[l]);
        }
        int count = array != NULL ? cJSON_GetArraySize(array) : 0;
        gltf_list *list = &doc->lists[l];
        list->items = malloc(((size_t)count + 1) * sizeof *list->items);
        if (list->items == NULL) {
            return crowd_error_set(doc->error, CROWD_ERROR_OUT_OF_MEMORY, doc->file,
                                   "out of memory");
        }
        for (const cJSON *item = count > 0 ? array->child : NULL; item != NULL; item = item->next) {
            if (!cJSON_IsObject(item)) {
                return crowd__gltf_fail(doc, "%s[%u] is not an object", list_keys[l], list->count);
            }
            list->items[list->count++] = item;
        }
    }
    doc->buffers = calloc((size_t)doc->lists[GLTF_BUFFERS].count + 1, sizeof *doc->buffers);
    if (doc->buffers == NULL) {
        return crowd_error_set(doc->error, CROWD_ERROR_OUT_OF_MEMORY, doc->file, "out of memory");
    }
    return CROWD_OK;
}

crowd_result crowd__gltf_document_open(const void *bytes, size_t size, const char *file,
                                       const char *dir, const crowd_logger *logger, gltf_kind *kind,
                                       gltf_document **out, crowd_error *error) {
    *out = NULL;
    *kind = GLTF_KIND_GLTF2;
    gltf_document *doc = calloc(1, sizeof *doc);
    if (doc == NULL) {
        *kind = GLTF_KIND_BROKEN;
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    }
    doc->file = file;
    doc->dir = dir;
    doc->error = error;
    crowd_result result = CROWD_OK;
    if (size >= 4 && read_u32(bytes) == GLB_MAGIC) {
        result = parse_glb(doc, bytes, size, logger, kind);
    } else {
        result = parse_text(doc, bytes, size, logger, kind);
    }
    if (result != CROWD_OK) {
        *kind = GLTF_KIND_BROKEN;
    } else if (*kind == GLTF_KIND_GLTF2) {
        result = index_lists(doc);
        *kind = result == CROWD_OK ? GLTF_KIND_GLTF2 : GLTF_KIND_BROKEN;
    }
    if (result != CROWD_OK || *kind != GLTF_KIND_GLTF2) {
        crowd__gltf_document_close(doc);
        return result;
    }
    *out = doc;
    return CROWD_OK;
}

void crowd__gltf_document_close(gltf_document *doc) {
    if (doc == NULL) {
        return;
    }
    for (uint32_t b = 0; doc->buffers != NULL && b < doc->lists[GLTF_BUFFERS].count; b++) {
        free(doc->buffers[b].owned);
    }
    free(doc->buffers);
    for (int l = 0; l < GLTF_LIST_COUNT; l++) {
        free(doc->lists[l].items);
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

/* "scheme:" before any '/' makes a URI absolute (http:, file:, ...). */
static bool uri_has_scheme(const char *uri) {
    for (const char *c = uri; *c != '\0' && *c != '/'; c++) {
        if (*c == ':') {
            return true;
        }
    }
    return false;
}

static int hex_value(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* doc->dir + "/" + uri, percent-decoded when `decode` (URIs are encoded by
 * the specification; many exporters write plain names). */
static char *uri_path(const gltf_document *doc, const char *uri, bool decode) {
    size_t dir_length = strlen(doc->dir), uri_length = strlen(uri);
    char *path = malloc(dir_length + uri_length + 2);
    if (path == NULL) {
        return NULL;
    }
    memcpy(path, doc->dir, dir_length);
    path[dir_length] = '/';
    char *out = path + dir_length + 1;
    for (size_t i = 0; i < uri_length; i++) {
        int high = decode && uri[i] == '%' && i + 2 < uri_length ? hex_value(uri[i + 1]) : -1;
        int low = high >= 0 ? hex_value(uri[i + 2]) : -1;
        if (low >= 0 && (high != 0 || low != 0)) {
            *out++ = (char)(high << 4 | low);
            i += 2;
        } else {
            *out++ = uri[i];
        }
    }
    *out = '\0';
    return path;
}

crowd_result crowd__gltf_uri_read(const gltf_document *doc, const char *uri, uint8_t **out_owned,
                                  uint64_t *out_size, const char *path, crowd_error *error) {
    *out_owned = NULL;
    if (strncmp(uri, "data:", 5) == 0) {
        const char *comma = strchr(uri, ',');
        size_t header = comma ? (size_t)(comma - uri) : 0;
        if (comma == NULL || header < 7 || memcmp(comma - 7, ";base64", 7) != 0) {
            return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, doc->file,
                                   "%s: data: URI is not base64", path);
        }
        *out_owned = base64_decode(comma + 1, strlen(comma + 1), out_size);
        return *out_owned != NULL ? CROWD_OK
                                  : crowd_error_set(error, CROWD_ERROR_INVALID_DATA, doc->file,
                                                    "%s: data: URI is not valid base64", path);
    }
    if (doc->dir == NULL || uri_has_scheme(uri)) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, doc->file,
                               "%s: '%s' cannot be read (%s)", path, uri,
                               doc->dir == NULL ? "external files are not read from memory"
                                                : "not a relative file name");
    }
    crowd_result result = CROWD_ERROR_IO;
    crowd_error missing;
    for (int decode = 0; decode < 2 && result == CROWD_ERROR_IO; decode++) {
        char *file = uri_path(doc, uri, decode == 1);
        if (file == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, doc->file, "out of memory");
        }
        size_t size = 0;
        result = crowd__core_file_read(file, GLTF_MAX_EXTERNAL_BYTES, out_owned, &size, &missing);
        *out_size = size;
        free(file);
    }
    if (result != CROWD_OK) {
        return crowd_error_set(error, result, doc->file, "%s: %s: %s", path, missing.file,
                               missing.reason);
    }
    return CROWD_OK;
}

/* Finds where buffer `index`'s bytes are (once). */
static crowd_result resolve_buffer(gltf_document *doc, uint32_t index) {
    gltf_buffer *buffer = &doc->buffers[index];
    buffer->resolved = true;
    const cJSON *json = doc->lists[GLTF_BUFFERS].items[index];
    char path[32];
    snprintf(path, sizeof path, "buffers[%u]", index);
    if (!crowd__gltf_json_uint(json, "byteLength", UINT64_MAX, UINT64_MAX >> 12,
                               &buffer->byte_length)) {
        return crowd__gltf_fail(doc, "%s.byteLength is missing or not a byte count", path);
    }
    bool ok = true;
    const char *uri = crowd__gltf_json_string(json, "uri", &ok);
    if (!ok) {
        return crowd__gltf_fail(doc, "%s.uri is not a string", path);
    }
    if (uri != NULL) {
        uint64_t size = 0;
        crowd_result result =
            crowd__gltf_uri_read(doc, uri, &buffer->owned, &size, path, doc->error);
        if (result == CROWD_OK && size < buffer->byte_length) {
            result =
                crowd__gltf_fail(doc, "%s: %s holds %llu bytes, byteLength says %llu", path,
                                 strncmp(uri, "data:", 5) == 0 ? "data: URI" : uri,
                                 (unsigned long long)size, (unsigned long long)buffer->byte_length);
        }
        buffer->bytes = result == CROWD_OK ? buffer->owned : NULL;
        return result;
    }
    if (index != 0 || doc->bin == NULL) {
        return crowd__gltf_fail(doc, "%s has no uri and there is no GLB binary chunk", path);
    }
    if (buffer->byte_length > doc->bin_size) {
        return crowd__gltf_fail(doc, "%s.byteLength %llu exceeds the GLB binary chunk (%llu bytes)",
                                path, (unsigned long long)buffer->byte_length,
                                (unsigned long long)doc->bin_size);
    }
    buffer->bytes = doc->bin;
    return CROWD_OK;
}

crowd_result crowd__gltf_buffer_bytes(gltf_document *doc, uint32_t index, uint64_t offset,
                                      uint64_t length, const uint8_t **out, const char *path) {
    if (index >= doc->lists[GLTF_BUFFERS].count) {
        return crowd__gltf_fail(doc,
                                "%s: names buffers[%u], which does not exist (the file has %u)",
                                path, index, doc->lists[GLTF_BUFFERS].count);
    }
    gltf_buffer *buffer = &doc->buffers[index];
    if (!buffer->resolved) {
        crowd_result result = resolve_buffer(doc, index);
        if (result != CROWD_OK) {
            return result;
        }
    }
    if (buffer->bytes == NULL) {
        return crowd__gltf_fail(doc, "%s: buffers[%u] cannot be read", path, index);
    }
    if (length > buffer->byte_length || offset > buffer->byte_length - length) {
        return crowd__gltf_fail(doc, "%s: bytes [%llu, %llu) are outside buffers[%u] (%llu bytes)",
                                path, (unsigned long long)offset,
                                (unsigned long long)(offset + length), index,
                                (unsigned long long)buffer->byte_length);
    }
    *out = buffer->bytes + offset;
    return CROWD_OK;
}
