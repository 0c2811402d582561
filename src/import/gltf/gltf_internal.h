/* gltf_internal.h - what the stages of crowd's glTF reader share.
 *
 * gltf_import.c runs the stages in this order, each in its own file, and
 * they fill the intermediate scene (scene/scene.h) that the importer's one
 * pipeline turns into the asset:
 *   1. document   container, JSON, top-level arrays, buffers (gltf_document.c);
 *                 every buffer, bufferView and accessor checked (gltf_import.c)
 *   2. nodes      node forest, TRS / matrix, the scene and its pre-order,
 *                 skins with their inverse bind matrices (gltf_nodes.c)
 *   3. meshes     every primitive of every mesh instance of the scene read
 *                 and checked: attributes, normalized forms, indices, and
 *                 identical vertices welded (gltf_meshes.c, gltf_weld.c)
 *   4. scene      the scene's nodes, skins and meshes (gltf_scene.c), the
 *                 materials the meshes use (gltf_materials.c), animations
 *                 with their samplers as the file has them (gltf_animations.c)
 * Accessors (gltf_accessor.c) are read by whichever stage needs them. Each
 * stage checks what it reads against the specification first; a failure
 * names the JSON path. The document stays open until the asset is built
 * (the scene's names point into it).
 */
#ifndef CROWD_IMPORT_GLTF_INTERNAL_H
#define CROWD_IMPORT_GLTF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/import.h"
#include "import/gltf/gltf_document.h"
#include "import/scene/scene.h"

enum {
    GLTF_BYTE = 5120,
    GLTF_UNSIGNED_BYTE = 5121,
    GLTF_SHORT = 5122,
    GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125,
    GLTF_FLOAT = 5126,
};

/* An accessor's validated fields, not yet read. */
typedef struct gltf_accessor {
    uint32_t index;
    uint32_t count;
    uint32_t components; /* 1 SCALAR .. 4 VEC4, 4 MAT2, 9 MAT3, 16 MAT4 */
    uint32_t component_type;
    bool normalized;
    bool is_matrix;
    char path[24]; /* "accessors[12]" */
} gltf_accessor;

/* Bytes of one component of `type`, 0 for an unknown type. */
uint32_t crowd__gltf_component_size(uint32_t type);
/* Accessor `index` (in range) described: type, componentType, normalized
 * only for 8- and 16-bit integers, count >= 1. */
crowd_result crowd__gltf_accessor_describe(gltf_document *doc, uint32_t index, gltf_accessor *out);
/* The accessor that member `key` of `object` (at `path`) names, described;
 * *present false when absent (an error when `required`). */
crowd_result crowd__gltf_accessor_open(gltf_document *doc, const cJSON *object, const char *key,
                                       const char *path, bool required, gltf_accessor *out,
                                       bool *present);
/* count * components values, malloc'ed: floats (normalized integers per
 * the specification: signed max(c / (2^(b-1) - 1), -1), unsigned
 * c / (2^b - 1); others as their value) or unsigned integers (only for
 * unsigned, not normalized types). Honours byteOffset, byteStride, sparse
 * substitution; an accessor without a bufferView reads zeros (at most
 * 64 MiB of them: CROWD_ERROR_LIMIT). */
crowd_result crowd__gltf_accessor_floats(gltf_document *doc, const gltf_accessor *accessor,
                                         float **out);
crowd_result crowd__gltf_accessor_uints(gltf_document *doc, const gltf_accessor *accessor,
                                        uint32_t **out);
/* Checks accessor `index` as a read would, without decoding it: fields,
 * bytes inside its bufferView and buffer, sparse ranges and indices. */
crowd_result crowd__gltf_accessor_check(gltf_document *doc, uint32_t index);
/* The bytes of bufferView `view` (buffer, byteOffset, byteLength and
 * byteStride checked, the range inside the buffer). */
crowd_result crowd__gltf_view_bytes(gltf_document *doc, uint32_t view, const uint8_t **bytes,
                                    uint64_t *length, uint64_t *stride);

typedef struct gltf_node {
    const char *name; /* the file's (owned by the JSON), NULL when it has none */
    int32_t parent;   /* -1 for a root */
    int32_t mesh;     /* -1 when none */
    int32_t skin;     /* -1 when none */
    float translation[3], rotation[4], scale[3]; /* rest TRS (a matrix decomposed) */
    float local[16];
    bool in_scene;
    int32_t scene_node; /* its index among the scene's nodes, -1 when not in the scene */
} gltf_node;

typedef struct gltf_skin {
    uint32_t joint_count;
    uint32_t *joints;     /* node indices */
    float *inverse_binds; /* 16 per joint; identity where the file gives none */
} gltf_skin;

/* One primitive of one mesh instance, read and welded. */
typedef struct gltf_primitive {
    uint32_t node;
    int32_t material; /* -1: none (the default material) */
    bool skinned;     /* its node has a skin and it has JOINTS_0 and WEIGHTS_0 */
    char path[64];    /* "meshes[2].primitives[0]" */
    uint32_t vertex_count;
    float *positions;         /* 3 per vertex */
    float *normals;           /* 3 per vertex, or NULL */
    float *uv;                /* 2 per vertex, or NULL */
    uint32_t influence_count; /* per vertex: 4 per JOINTS_n / WEIGHTS_n set */
    uint32_t *joints;         /* skin joint indices (checked where the weight is > 0) */
    float *weights;           /* >= 0, finite */
    uint32_t index_count;     /* 3 per triangle */
    uint32_t *indices;
} gltf_primitive;

typedef struct gltf_import {
    gltf_document *doc;
    const char *file;
    const crowd_import_desc *desc; /* never NULL */
    const crowd_logger *logger;
    crowd_error *error;
    bool skeleton_only; /* a file of clips: no mesh needed, none read */
    /* A required extension crowd's reader lacks: the file is not claimed
     * (gltf_import.h), the error says which. */
    bool handed_over;
    import_scene scene; /* what the stages fill */

    uint32_t node_count;
    gltf_node *nodes;
    uint32_t order_count;
    uint32_t *order; /* the scene's nodes, parents before children */
    uint32_t skin_count;
    gltf_skin *skins;
    uint32_t primitive_count;
    gltf_primitive *primitives; /* mesh instances in node order */
} gltf_import;

/* The name a node goes by: its own, or "nodes[N]" (written to `buffer`). */
const char *crowd__gltf_node_name(const gltf_import *imp, uint32_t node, char buffer[24]);

/* Stage 2 (gltf_nodes.c). */
crowd_result crowd__gltf_nodes_read(gltf_import *imp);
crowd_result crowd__gltf_skins_read(gltf_import *imp);
/* Stage 3 (gltf_meshes.c); crowd__gltf_weld merges bit-identical vertices of one
 * primitive (gltf_weld.c). */
crowd_result crowd__gltf_meshes_read(gltf_import *imp);
void crowd__gltf_primitives_free(gltf_import *imp);
crowd_result crowd__gltf_weld(gltf_import *imp, gltf_primitive *primitive);
/* Stage 4 (gltf_scene.c): the scene's nodes (its pre-order), skins and
 * meshes (the primitives move into it; the materials they use are built
 * in order of first use). */
crowd_result crowd__gltf_scene_fill(gltf_import *imp);
/* gltf_materials.c: every material checked first (stage 1); then the
 * scene's material for the file's material `file_material` (-1: the
 * default one). */
crowd_result crowd__gltf_materials_check(gltf_import *imp);
crowd_result crowd__gltf_material_build(gltf_import *imp, int32_t file_material,
                                        crowd_material *out);
/* Which TEXCOORD_n the primitive's base-colour texture reads and the
 * KHR_texture_transform to apply to it (2x3, column-major: u' = m[0] u +
 * m[2] v + m[4]). */
void crowd__gltf_material_uv(const gltf_import *imp, int32_t material, uint32_t *set,
                             float transform[6]);
/* Stage 4 (gltf_animations.c): every animation checked, then those moving
 * a node of the scene added to it. */
crowd_result crowd__gltf_animations_read(gltf_import *imp);

#endif
