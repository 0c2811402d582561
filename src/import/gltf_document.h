/* gltf_document.h - crowd's own reading of a glTF 2.0 file, for what
 * assimp 5.2's C API loses: the interpolation of animation samplers (STEP
 * comes back as linear keys, CUBICSPLINE without its tangents) and
 * integer-typed sampler outputs (normalized rotations, whose bytes assimp
 * copies into floats unconverted).
 *
 * The document is opened after assimp has read the same file, and only when
 * it is glTF 2.0 (by name: .gltf or .glb) with animations. It parses the
 * JSON (cJSON) and reads buffer bytes on demand: the GLB binary chunk, base64
 * data: URIs, and external files relative to the model's folder (not from
 * memory). Every offset, length, count and index taken from the file is
 * checked before use; a malformed file gives CROWD_ERROR_INVALID_DATA with
 * the file and what is wrong, never a read out of bounds.
 *
 * gltf_samplers.c turns the animation samplers into crowd tracks.
 * Single-threaded: one document belongs to one import.
 */
#ifndef CROWD_IMPORT_GLTF_DOCUMENT_H
#define CROWD_IMPORT_GLTF_DOCUMENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "crowd/result.h"

/* Where one glTF buffer's bytes are, found on first use. */
typedef struct gltf_buffer {
    bool resolved;
    uint64_t byte_length; /* as declared; every view must fit in it */
    const uint8_t *bytes; /* in memory: the GLB chunk, or `decoded` */
    uint8_t *decoded;     /* a base64 data: URI, owned */
    FILE *stream;         /* or a file, read from `stream_offset` */
    uint64_t stream_offset;
} gltf_buffer;

/* The top-level arrays, indexed once: files have thousands of accessors
 * and cJSON's arrays are lists. */
enum { GLTF_ARRAY_COUNT = 6 };

typedef struct gltf_array {
    const char *key; /* "accessors", ... */
    const cJSON **items;
    uint32_t count;
} gltf_array;

typedef struct gltf_document {
    cJSON *json;
    gltf_array arrays[GLTF_ARRAY_COUNT];
    const char *file; /* for messages */
    const char *dir;  /* folder of external buffers; NULL from memory */
    crowd_error *error;
    /* The GLB binary chunk: in memory (`bin`) or at `bin_offset` of `path`. */
    bool has_bin;
    const uint8_t *bin;
    const char *path;
    uint64_t bin_offset, bin_size;
    uint32_t buffer_count;
    gltf_buffer *buffers;
} gltf_document;

/* Opens the glTF 2.0 file `path` (read again after assimp). *out is NULL,
 * with CROWD_OK, when the file is no glTF 2.0 with animations (by extension,
 * GLB version and asset.version), so other formats pass through untouched.
 * `path` and `dir` must outlive the document; `error` is kept for later calls. */
crowd_result gltf_document_open_file(const char *path, const char *dir, gltf_document **out,
                                     crowd_error *error);

/* Same from bytes in memory (kept, not copied: they must outlive the
 * document); `name` gives the extension and the name in messages. External
 * buffers cannot be read from memory. */
crowd_result gltf_document_open_memory(const void *bytes, size_t size, const char *name,
                                       gltf_document **out, crowd_error *error);

/* Opens any glTF 2.0 document in `bytes` (kept, not copied), animated or
 * not, whatever `name` says: for the pre-check (precheck_gltf.c), which
 * reads the structure before assimp does. glTF 2.0 is what assimp 5.2's
 * reader takes: a GLB of version 2, whatever its asset says, or JSON text
 * whose asset.version starts with '2'. External buffers are read from `dir`
 * (NULL: they cannot be read). *out is NULL, with CROWD_OK, for anything
 * else (text that is not a JSON object, another version). */
crowd_result gltf_document_open_bytes(const void *bytes, size_t size, const char *name,
                                      const char *dir, gltf_document **out, crowd_error *error);

/* Frees the document, its decoded buffers and closes its files. NULL is a no-op. */
void gltf_document_close(gltf_document *doc);

/* Copies bytes [offset, offset + length) of buffer `index` into `out`
 * (out NULL: only checks the range). CROWD_ERROR_INVALID_DATA when the range
 * is outside the declared buffer or the data behind it (a short file, chunk
 * or data: URI); `what` starts the message. */
crowd_result gltf_buffer_read(gltf_document *doc, uint32_t index, uint64_t offset, uint64_t length,
                              void *out, const char *what);

/* Member `key` of `object` as an integer in [0, max]: `fallback` when absent
 * (pass UINT64_MAX to mean "required"); false when present but not such an
 * integer, or required and absent. */
bool gltf_json_uint(const cJSON *object, const char *key, uint64_t fallback, uint64_t max,
                    uint64_t *out);

/* Element `index` of the top-level array `key` ("accessors", "animations",
 * "bufferViews", "buffers", "nodes" or "scenes"), or NULL when absent or
 * not an object. */
const cJSON *gltf_json_element(const gltf_document *doc, const char *key, uint64_t index);

/* An accessor as the samplers need it: validated fields, not yet read. */
typedef struct gltf_accessor {
    uint32_t index;
    uint32_t count;
    uint32_t components;     /* 1 SCALAR .. 4 VEC4; 0 for the matrix types (not read) */
    uint32_t component_type; /* 5120 BYTE ... 5126 FLOAT */
    bool normalized;
} gltf_accessor;

/* Reads and validates accessor `index`'s fields (type, componentType,
 * normalized only with integer types, count >= 1 and at most `max_count`). */
crowd_result gltf_accessor_describe(gltf_document *doc, uint64_t index, uint32_t max_count,
                                    gltf_accessor *out, const char *what);

/* Reads the accessor's count * components values into `out` as floats:
 * normalized integers per the glTF specification (signed: max(c / (2^(b-1) - 1), -1),
 * unsigned: c / (2^b - 1)), others as their value. Honours bufferView
 * byteOffset and byteStride and sparse substitution; an accessor without a
 * bufferView reads zeros (before sparse values). Every range is checked. */
crowd_result gltf_accessor_read(gltf_document *doc, const gltf_accessor *accessor, float *out,
                                const char *what);

#endif
