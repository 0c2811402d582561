/* precheck_gltf.h - the glTF 2.0 structural check shared by
 * precheck_gltf*.c: the document, its top-level arrays indexed, what was
 * learned about every bufferView and accessor, and reference checking.
 *
 * Order: buffers (their bytes found and measured), bufferViews, accessors
 * (ranges, sparse indices read), meshes (attribute counts, index values
 * read), images / textures / materials, nodes (a forest: one parent each,
 * no cycle), scenes, skins, skeletons assimp aborts on, animations. The first problem found fails
 * the check with "<object> <index>: <what>". Single-threaded, one per import.
 */
#ifndef CROWD_IMPORT_PRECHECK_GLTF_H
#define CROWD_IMPORT_PRECHECK_GLTF_H

#include "import/gltf_document.h"
#include "import/precheck.h"

enum {
    PG_ACCESSORS,
    PG_ANIMATIONS,
    PG_BUFFERS,
    PG_BUFFER_VIEWS,
    PG_CAMERAS,
    PG_IMAGES,
    PG_MATERIALS,
    PG_MESHES,
    PG_NODES,
    PG_SAMPLERS,
    PG_SCENES,
    PG_SKINS,
    PG_TEXTURES,
    PG_LIST_COUNT
};

enum {
    PG_UNSIGNED_BYTE = 5121,
    PG_UNSIGNED_SHORT = 5123,
    PG_UNSIGNED_INT = 5125,
    PG_FLOAT = 5126,
};

/* One top-level array: its objects, indexed. */
typedef struct pg_list {
    const cJSON **items;
    uint32_t count;
} pg_list;

typedef struct pg_view {
    uint32_t buffer;
    uint64_t offset, length, stride; /* stride 0: tightly packed */
} pg_view;

typedef struct pg_accessor {
    uint32_t count;
    uint32_t components; /* 1..4, 4 for MAT2, 9 MAT3, 16 MAT4 */
    uint32_t component_type;
    uint32_t element_bytes;
    char type[8]; /* "SCALAR", "VEC3", "MAT4", ... */
} pg_accessor;

typedef struct pg_check {
    gltf_document *doc;
    const char *file;
    crowd_error *error;
    pg_list lists[PG_LIST_COUNT];
    pg_view *views;         /* validated, one per bufferView */
    pg_accessor *accessors; /* validated, one per accessor */
    uint32_t *parents;      /* per node, UINT32_MAX for none: a forest once checked */
} pg_check;

/* CROWD_ERROR_INVALID_DATA with the file and the formatted reason. */
crowd_result pg_fail(pg_check *c, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Member `key` of `object` as an index into top-level list `list`. Absent:
 * *present false (an error when `required`). Present but not an integer
 * naming an element: an error that starts with `where`. */
crowd_result pg_ref(pg_check *c, const cJSON *object, const char *key, int list, bool required,
                    const char *where, uint32_t *out, bool *present);

/* Calls `visit(c, i, value, user)` for each of `count` unsigned integers of
 * `component_type` (5121, 5123 or 5125) starting `offset` bytes into view
 * `view`, `stride` bytes apart (0: packed); the range must have been
 * checked. Stops at the first failure `visit` returns. */
typedef crowd_result (*pg_uint_visitor)(pg_check *c, uint64_t i, uint32_t value, void *user);
crowd_result pg_read_uints(pg_check *c, uint32_t view, uint64_t offset, uint64_t stride,
                           uint32_t component_type, uint64_t count, pg_uint_visitor visit,
                           void *user);

/* The stages, in order (precheck_gltf_accessors.c, precheck_gltf_meshes.c,
 * precheck_gltf_nodes.c, precheck_gltf_armature.c). */
crowd_result pg_check_accessors(pg_check *c);
crowd_result pg_check_meshes(pg_check *c);
crowd_result pg_check_materials(pg_check *c);
crowd_result pg_check_nodes(pg_check *c);
crowd_result pg_check_skins(pg_check *c);
crowd_result pg_check_armatures(pg_check *c);
crowd_result pg_check_animations(pg_check *c);

#endif
