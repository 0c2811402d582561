/* gltf_internal.h - what the stages of crowd's glTF reader share.
 *
 * gltf_import.c runs the stages in this order, each in its own file:
 *   1. document   container, JSON, top-level arrays, buffers (gltf_document.c);
 *                 every buffer, bufferView and accessor checked (gltf_import.c)
 *   2. nodes      node forest, TRS / matrix, the scene and its pre-order,
 *                 skins with their inverse bind matrices (gltf_nodes.c)
 *   3. meshes     every primitive of every mesh instance of the scene read
 *                 and checked: attributes, normalized forms, indices, and
 *                 identical vertices welded (gltf_meshes.c, gltf_weld.c)
 *   4. skeleton   which nodes become joints (skin joints, animated nodes,
 *                 nodes static meshes hang from, sockets), rest pose,
 *                 inverse binds, sockets (gltf_skeleton.c, gltf_bind.c)
 *   5. mesh       primitives merged into the asset's one mesh (gltf_merge.c)
 *   6. materials  base colour and its texture (gltf_materials.c)
 *   7. clips      animation samplers to tracks (gltf_animations.c)
 * Accessors (gltf_accessor.c) are read by whichever stage needs them. Each
 * stage checks what it reads against the specification first; a failure
 * names the JSON path. The document stays open until the asset is built.
 */
#ifndef CROWD_IMPORT_GLTF_INTERNAL_H
#define CROWD_IMPORT_GLTF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/import.h"
#include "import/gltf/gltf_document.h"

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
uint32_t gltf_component_size(uint32_t type);
/* Accessor `index` (in range) described: type, componentType, normalized
 * only for 8- and 16-bit integers, count >= 1. */
crowd_result gltf_accessor_describe(gltf_document *doc, uint32_t index, gltf_accessor *out);
/* The accessor that member `key` of `object` (at `path`) names, described;
 * *present false when absent (an error when `required`). */
crowd_result gltf_accessor_open(gltf_document *doc, const cJSON *object, const char *key,
                                const char *path, bool required, gltf_accessor *out, bool *present);
/* count * components values, malloc'ed: floats (normalized integers per
 * the specification: signed max(c / (2^(b-1) - 1), -1), unsigned
 * c / (2^b - 1); others as their value) or unsigned integers (only for
 * unsigned, not normalized types). Honours byteOffset, byteStride, sparse
 * substitution; an accessor without a bufferView reads zeros (at most
 * 64 MiB of them: CROWD_ERROR_LIMIT). */
crowd_result gltf_accessor_floats(gltf_document *doc, const gltf_accessor *accessor, float **out);
crowd_result gltf_accessor_uints(gltf_document *doc, const gltf_accessor *accessor, uint32_t **out);
/* Checks accessor `index` as a read would, without decoding it: fields,
 * bytes inside its bufferView and buffer, sparse ranges and indices. */
crowd_result gltf_accessor_check(gltf_document *doc, uint32_t index);
/* The bytes of bufferView `view` (buffer, byteOffset, byteLength and
 * byteStride checked, the range inside the buffer). */
crowd_result gltf_view_bytes(gltf_document *doc, uint32_t view, const uint8_t **bytes,
                             uint64_t *length, uint64_t *stride);

typedef struct gltf_node {
    const char *name; /* the file's (owned by the JSON), NULL when it has none */
    int32_t parent;   /* -1 for a root */
    int32_t mesh;     /* -1 when none */
    int32_t skin;     /* -1 when none */
    float translation[3], rotation[4], scale[3]; /* rest TRS (a matrix decomposed) */
    float local[16];
    float global[16]; /* product of the locals from its root down (in_scene only) */
    bool in_scene;
    bool marked;  /* must become a joint */
    bool is_bone; /* a joint of a skin */
    int32_t joint;
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
    crowd_asset *asset;
    bool skeleton_only; /* a file of clips: no mesh needed, none read */
    /* A required extension crowd's reader lacks: the file is not claimed
     * (gltf_import.h), the error says which. */
    bool handed_over;
    /* Metres per unit: 1 (glTF's unit is the metre), or desc->scale. Every
     * length read (translations, inverse binds, positions, keys) is scaled. */
    float scale;

    uint32_t node_count;
    gltf_node *nodes;
    uint32_t order_count;
    uint32_t *order; /* the scene's nodes, parents before children */
    uint32_t skin_count;
    gltf_skin *skins;
    uint32_t primitive_count;
    gltf_primitive *primitives; /* mesh instances in node order */

    /* No skinned mesh and no animation: one rigid joint, meshes baked into
     * model space. */
    bool static_only;
    int32_t *joint_node;    /* joint -> node (-1 for the static-only joint) */
    float *joint_global;    /* 16 per joint: rest model matrix */
    bool *inverse_bind_set; /* inverse_bind[j] came from a skin */
} gltf_import;

/* The name a node goes by: its own, or "nodes[N]" (written to `buffer`). */
const char *gltf_node_name(const gltf_import *imp, uint32_t node, char buffer[24]);
/* The scene node called `name`, preferring a skin joint or a marked node
 * where several share it; -1 if none. */
int32_t gltf_node_find(const gltf_import *imp, const char *name);

/* Stage 2 (gltf_nodes.c). */
crowd_result gltf_nodes_read(gltf_import *imp);
crowd_result gltf_skins_read(gltf_import *imp);
/* Stage 3 (gltf_meshes.c); gltf_weld merges bit-identical vertices of one
 * primitive (gltf_weld.c). */
crowd_result gltf_meshes_read(gltf_import *imp);
void gltf_primitives_free(gltf_import *imp);
crowd_result gltf_weld(gltf_import *imp, gltf_primitive *primitive);
/* Stage 4 (gltf_skeleton.c); animated nodes are marked by gltf_animations_mark. */
crowd_result gltf_skeleton_build(gltf_import *imp);
bool gltf_animations_mark(gltf_import *imp, crowd_result *result);
/* Where skinned `primitive` sat when its skin was bound (gltf_bind.c): B
 * from its space to model space, chosen by its skin's weight among
 * identity, its node's transform and model_rest(joint) * inverse_bind(joint)
 * products (joint_global must be filled), and B^-1. True when B is exactly
 * identity (the file's values are then kept bit for bit). */
bool gltf_bind_placement(const gltf_import *imp, const gltf_primitive *primitive, float bind[16],
                         float bind_inverse[16]);
/* Stage 5 (gltf_merge.c): also fills the material list (stage 6). */
crowd_result gltf_mesh_build(gltf_import *imp);
/* Stage 6 (gltf_materials.c): `file_material[m]` is the file's material
 * index of asset material m, -1 for the default one. */
crowd_result gltf_materials_check(gltf_import *imp);
crowd_result gltf_materials_build(gltf_import *imp, const int32_t *file_material, uint32_t count);
/* Which TEXCOORD_n the primitive's base-colour texture reads and the
 * KHR_texture_transform to apply to it (2x3, column-major: u' = m[0] u +
 * m[2] v + m[4]). */
void gltf_material_uv(const gltf_import *imp, int32_t material, uint32_t *set, float transform[6]);
/* Stage 7 (gltf_animations.c). */
crowd_result gltf_animations_build(gltf_import *imp);

#endif
