/* precheck_gltf.c - the glTF 2.0 / GLB structural check: the container
 * (gltf_document: GLB header and chunk lengths, the JSON), the top-level
 * arrays, buffers (every byteLength against the bytes actually present:
 * GLB binary chunk, data: URI, external file) and bufferViews (inside
 * their buffer), then the stages of precheck_gltf.h in order.
 *
 * assimp 5.2's glTF reader checks some of these numbers and trusts others
 * (precheck.h has what it crashed on): everything it would follow is
 * followed here first, with every index and byte range checked, and the
 * first problem named. A file named .glb or .gltf that holds neither is
 * rejected too: assimp would hand it to each of its other readers in turn,
 * by content, and some of those read past their buffers (OpenGEX). */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import/precheck_gltf.h"

/* The specification's upper bound of bufferView.byteStride. */
#define PG_MAX_STRIDE 252u

static const char *const list_keys[PG_LIST_COUNT] = {
    "accessors", "animations", "buffers",  "bufferViews", "cameras", "images",  "materials",
    "meshes",    "nodes",      "samplers", "scenes",      "skins",   "textures"};
/* One element of each, for messages. */
static const char *const list_names[PG_LIST_COUNT] = {
    "accessor", "animation", "buffer",  "bufferView", "camera", "image",  "material",
    "mesh",     "node",      "sampler", "scene",      "skin",   "texture"};

crowd_result pg_fail(pg_check *c, const char *format, ...) {
    char reason[sizeof c->error->reason];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    return crowd_error_set(c->error, CROWD_ERROR_INVALID_DATA, c->file, "%s", reason);
}

crowd_result pg_ref(pg_check *c, const cJSON *object, const char *key, int list, bool required,
                    const char *where, uint32_t *out, bool *present) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    *present = item != NULL;
    if (item == NULL) {
        return required ? pg_fail(c, "%s: %s is missing", where, key) : CROWD_OK;
    }
    uint64_t index = 0;
    if (!gltf_json_uint(object, key, 0, UINT32_MAX, &index)) {
        return pg_fail(c, "%s: %s is not an index", where, key);
    }
    if (index >= c->lists[list].count) {
        return pg_fail(c, "%s: %s names %s %llu, which does not exist (the file has %u)", where,
                       key, list_names[list], (unsigned long long)index, c->lists[list].count);
    }
    *out = (uint32_t)index;
    return CROWD_OK;
}

static crowd_result index_lists(pg_check *c) {
    for (int l = 0; l < PG_LIST_COUNT; l++) {
        const cJSON *array = cJSON_GetObjectItemCaseSensitive(c->doc->json, list_keys[l]);
        if (array == NULL) {
            continue;
        }
        if (!cJSON_IsArray(array)) {
            return pg_fail(c, "'%s' is not an array", list_keys[l]);
        }
        int count = cJSON_GetArraySize(array);
        pg_list *list = &c->lists[l];
        list->items = malloc(((size_t)count + 1) * sizeof *list->items);
        if (list->items == NULL) {
            return crowd_error_set(c->error, CROWD_ERROR_OUT_OF_MEMORY, c->file, "out of memory");
        }
        for (const cJSON *item = array->child; item != NULL; item = item->next) {
            if (!cJSON_IsObject(item)) {
                return pg_fail(c, "%s %u is not an object", list_names[l], list->count);
            }
            list->items[list->count++] = item;
        }
    }
    return CROWD_OK;
}

/* Resolving a buffer measures its data (GLB chunk, data: URI, external file). */
static crowd_result check_buffers(pg_check *c) {
    for (uint32_t b = 0; b < c->lists[PG_BUFFERS].count; b++) {
        char where[32];
        snprintf(where, sizeof where, "buffer %u", b);
        crowd_result result = gltf_buffer_read(c->doc, b, 0, 0, NULL, where);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

static crowd_result check_views(pg_check *c) {
    uint32_t count = c->lists[PG_BUFFER_VIEWS].count;
    c->views = calloc((size_t)count + 1, sizeof *c->views);
    if (c->views == NULL) {
        return crowd_error_set(c->error, CROWD_ERROR_OUT_OF_MEMORY, c->file, "out of memory");
    }
    for (uint32_t v = 0; v < count; v++) {
        const cJSON *json = c->lists[PG_BUFFER_VIEWS].items[v];
        pg_view *view = &c->views[v];
        char where[32];
        snprintf(where, sizeof where, "bufferView %u", v);
        bool present;
        crowd_result result =
            pg_ref(c, json, "buffer", PG_BUFFERS, true, where, &view->buffer, &present);
        if (result != CROWD_OK) {
            return result;
        }
        if (!gltf_json_uint(json, "byteOffset", 0, UINT64_MAX >> 12, &view->offset) ||
            !gltf_json_uint(json, "byteLength", UINT64_MAX, UINT64_MAX >> 12, &view->length)) {
            return pg_fail(c, "%s: byteOffset or byteLength is missing or not a byte count", where);
        }
        if (!gltf_json_uint(json, "byteStride", 0, PG_MAX_STRIDE, &view->stride)) {
            return pg_fail(c, "%s: byteStride is not an integer in [4, %u]", where, PG_MAX_STRIDE);
        }
        result = gltf_buffer_read(c->doc, view->buffer, view->offset, view->length, NULL, where);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

crowd_result pg_read_uints(pg_check *c, uint32_t view, uint64_t offset, uint64_t stride,
                           uint32_t component_type, uint64_t count, pg_uint_visitor visit,
                           void *user) {
    uint32_t size = component_type == PG_UNSIGNED_BYTE    ? 1
                    : component_type == PG_UNSIGNED_SHORT ? 2
                                                          : 4;
    stride = stride ? stride : size;
    uint8_t chunk[4096];
    uint64_t per_chunk = (sizeof chunk - size) / stride + 1;
    const pg_view *v = &c->views[view];
    for (uint64_t first = 0; first < count; first += per_chunk) {
        uint64_t n = count - first < per_chunk ? count - first : per_chunk;
        uint64_t span = stride * (n - 1) + size;
        crowd_result result = gltf_buffer_read(
            c->doc, v->buffer, v->offset + offset + first * stride, span, chunk, "bufferView");
        for (uint64_t i = 0; result == CROWD_OK && i < n; i++) {
            const uint8_t *p = chunk + i * stride;
            uint32_t value = size == 1   ? p[0]
                             : size == 2 ? (uint32_t)(p[0] | p[1] << 8)
                                         : (uint32_t)p[0] | (uint32_t)p[1] << 8 |
                                               (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            result = visit(c, first + i, value, user);
        }
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

static crowd_result check_document(pg_check *c) {
    crowd_result result = index_lists(c);
    if (result == CROWD_OK) {
        uint32_t scene = 0;
        bool present;
        result =
            pg_ref(c, c->doc->json, "scene", PG_SCENES, false, "the document", &scene, &present);
    }
    crowd_result (*const stages[])(pg_check *) = {
        check_buffers,  check_views,    pg_check_accessors, pg_check_meshes,    pg_check_materials,
        pg_check_nodes, pg_check_skins, pg_check_armatures, pg_check_animations};
    for (size_t s = 0; result == CROWD_OK && s < sizeof stages / sizeof stages[0]; s++) {
        result = stages[s](c);
    }
    return result;
}

static bool is_glb(const precheck_input *in) {
    return in->size >= 4 && memcmp(in->bytes, "glTF", 4) == 0;
}

/* Text that is no glTF 2.0 for gltf_document: another JSON document, or
 * JSON cJSON cannot parse, which assimp's parser might still take (nesting
 * deeper than cJSON's limit) and then read unchecked. */
static crowd_result check_parses(const precheck_input *in) {
    size_t skip = in->size >= 3 && memcmp(in->bytes, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    const char *end = NULL;
    cJSON *json =
        cJSON_ParseWithLengthOpts((const char *)in->bytes + skip, in->size - skip, &end, false);
    if (json == NULL) {
        size_t at = end != NULL ? (size_t)(end - (const char *)in->bytes) : 0;
        return crowd_error_set(in->error, CROWD_ERROR_INVALID_DATA, in->file,
                               "starts as JSON but is not valid JSON (at byte %zu)", at);
    }
    cJSON_Delete(json);
    return CROWD_OK;
}

crowd_result precheck_gltf(const precheck_input *in) {
    pg_check c;
    memset(&c, 0, sizeof c);
    c.file = in->file;
    c.error = in->error;
    crowd_result result =
        gltf_document_open_bytes(in->bytes, in->size, in->file, in->dir, &c.doc, in->error);
    if (result == CROWD_OK && c.doc != NULL) {
        result = check_document(&c);
    } else if (result == CROWD_OK && precheck_looks_like_json(in)) {
        result = check_parses(in);
    } else if (result == CROWD_OK && !is_glb(in) &&
               (strcasecmp(in->ext, "glb") == 0 || strcasecmp(in->ext, "gltf") == 0)) {
        /* assimp would try every other reader on it, by content. */
        result = crowd_error_set(in->error, CROWD_ERROR_INVALID_DATA, in->file,
                                 "named .%s but neither a GLB nor glTF JSON", in->ext);
    }
    for (int l = 0; l < PG_LIST_COUNT; l++) {
        free(c.lists[l].items);
    }
    free(c.views);
    free(c.accessors);
    free(c.parents);
    gltf_document_close(c.doc);
    return result;
}
