/* gltf_document.h - the glTF 2.0 container, parsed once: GLB header and
 * chunks, the JSON (cJSON), the top-level arrays indexed, and buffer bytes
 * (the GLB binary chunk, base64 data: URIs, external files relative to the
 * model's folder, not from memory).
 *
 * The document is the first stage of crowd's glTF reader (gltf_import.h
 * lists the others). It reads nothing it has not checked: every top-level
 * array must be an array of objects, every buffer's byteLength must be
 * backed by bytes, and every index or range taken from the JSON goes
 * through crowd__gltf_ref / crowd__gltf_buffer_bytes, which name the JSON path of what
 * is wrong ("nodes[1].mesh: names meshes[4], which does not exist (the
 * file has 1)"). Failures are CROWD_ERROR_INVALID_DATA unless said
 * otherwise, never a read out of bounds.
 *
 * Ownership: the document keeps pointers to the input bytes (they must
 * outlive it) and owns the JSON and decoded buffers. Single-threaded: one
 * document belongs to one import.
 */
#ifndef CROWD_IMPORT_GLTF_DOCUMENT_H
#define CROWD_IMPORT_GLTF_DOCUMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "crowd/result.h"

/* The top-level arrays crowd reads or checks references into. */
typedef enum gltf_list_id {
    GLTF_ACCESSORS,
    GLTF_ANIMATIONS,
    GLTF_BUFFERS,
    GLTF_BUFFER_VIEWS,
    GLTF_CAMERAS,
    GLTF_IMAGES,
    GLTF_MATERIALS,
    GLTF_MESHES,
    GLTF_NODES,
    GLTF_SAMPLERS,
    GLTF_SCENES,
    GLTF_SKINS,
    GLTF_TEXTURES,
    GLTF_LIST_COUNT
} gltf_list_id;

/* One top-level array, indexed once: files have thousands of accessors and
 * cJSON's arrays are lists. */
typedef struct gltf_list {
    const cJSON **items;
    uint32_t count;
} gltf_list;

/* Where one buffer's bytes are, found on first use. */
typedef struct gltf_buffer {
    bool resolved;        /* looked for (successfully or not) */
    uint64_t byte_length; /* as declared; every view must fit in it */
    const uint8_t *bytes; /* NULL when it could not be found */
    uint8_t *owned;       /* a decoded data: URI or an external file */
} gltf_buffer;

typedef struct gltf_document {
    cJSON *json;
    gltf_list lists[GLTF_LIST_COUNT];
    const char *file; /* for messages */
    const char *dir;  /* folder of external files; NULL from memory */
    crowd_error *error;
    const uint8_t *bin; /* the GLB binary chunk, or NULL */
    uint64_t bin_size;
    gltf_buffer *buffers; /* lists[GLTF_BUFFERS].count entries */
} gltf_document;

/* What the bytes are, as far as crowd's reader is concerned. */
typedef enum gltf_kind {
    GLTF_KIND_OTHER,  /* not glTF: another reader's */
    GLTF_KIND_GLTF1,  /* glTF 1.0 (GLB version 1, asset.version "1.x" or 1): assimp's */
    GLTF_KIND_GLTF2,  /* parsed: *out is the document */
    GLTF_KIND_BROKEN, /* meant as glTF (name or GLB magic) but unreadable: error set */
} gltf_kind;

/* Parses `size` bytes as glTF 2.0. `file` names it in messages and its
 * extension (.gltf, .glb) says glTF was meant; `dir` is where external
 * buffers and images are (NULL: in memory, they cannot be read). The
 * result's kind says what was found; only GLTF_KIND_GLTF2 gives a document
 * (and CROWD_OK), GLTF_KIND_BROKEN sets the error. A UTF-8 byte-order mark
 * (which the specification forbids) is skipped. `logger` (may be NULL)
 * hears one debug line per JSON parse, so tests can count them. */
crowd_result crowd__gltf_document_open(const void *bytes, size_t size, const char *file,
                                       const char *dir, const crowd_logger *logger, gltf_kind *kind,
                                       gltf_document **out, crowd_error *error);

/* Frees the document and its decoded buffers. NULL is a no-op. */
void crowd__gltf_document_close(gltf_document *doc);

/* CROWD_ERROR_INVALID_DATA with the file and the formatted reason. */
crowd_result crowd__gltf_fail(const gltf_document *doc, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Member `key` of `object` (at JSON path `path`) as an index into `list`.
 * Absent: *present false, CROWD_OK unless `required`. Present, but not an
 * integer naming an element: an error. `present` may be NULL. */
crowd_result crowd__gltf_ref(const gltf_document *doc, const cJSON *object, const char *key,
                             gltf_list_id list, bool required, const char *path, uint32_t *out,
                             bool *present);

/* Member `key` of `object` as an integer in [0, max]: `fallback` when absent
 * (pass UINT64_MAX to mean "required"); false when present but not such an
 * integer, or required and absent. */
bool crowd__gltf_json_uint(const cJSON *object, const char *key, uint64_t fallback, uint64_t max,
                           uint64_t *out);

/* Member `key` of `object` as `count` finite numbers in `out` (floats):
 * left unchanged when absent; false when present but not an array of
 * exactly `count` finite numbers. */
bool crowd__gltf_json_floats(const cJSON *object, const char *key, uint32_t count, float *out);

/* Member `key` as a string: NULL when absent; false (through *ok) when
 * present and not a string. */
const char *crowd__gltf_json_string(const cJSON *object, const char *key, bool *ok);

/* bytes [offset, offset + length) of buffer `index`, in memory: *out points
 * into the document. `path` starts the message when the range is outside
 * the declared buffer or the bytes behind it. */
crowd_result crowd__gltf_buffer_bytes(gltf_document *doc, uint32_t index, uint64_t offset,
                                      uint64_t length, const uint8_t **out, const char *path);

/* Bytes of a data: URI (base64) or a file relative to doc->dir, for buffers
 * and images: *out_owned is malloc'ed. Failures go to `error` (images pass
 * their own: a missing texture is no reason to fail); `path` starts them. */
crowd_result crowd__gltf_uri_read(const gltf_document *doc, const char *uri, uint8_t **out_owned,
                                  uint64_t *out_size, const char *path, crowd_error *error);

#endif
