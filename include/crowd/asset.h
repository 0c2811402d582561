/* crowd/asset.h - crowd's own model of a skinned, animated character.
 *
 * An asset is what every other module works on: one merged mesh (all skinned
 * meshes of a file plus the static meshes hanging from its nodes, rigidly
 * skinned), its materials, a skeleton, clips and sockets. Importers
 * (crowd/import.h) and the built-in generator (crowd/builtin.h) produce it;
 * anim, skin, bake and gpu read it.
 *
 * Conventions: glTF's. Right-handed, +Y up, metres; matrices are 4x4
 * column-major float[16] (cglm's mat4 layout); quaternions are (x, y, z, w);
 * joints are in parent-before-child order (parents[j] < j, roots have -1).
 * "Model space" is the space of the file's scene root: a joint's model matrix
 * is root_transform * local(j0) * ... * local(j).
 *
 * Ownership: crowd_asset_create() returns a zeroed asset; every pointer in it
 * is owned by the asset and released by crowd_asset_destroy(), each a block
 * of its own from asset->allocator, which is zeroed (malloc and free) for
 * crowd_asset_create(): producers fill arrays with malloc/calloc. Only the
 * asset of a bake loaded with an allocator (crowd/bake.h) has another one.
 * Destroy(NULL) is a no-op. An asset is immutable once built and may be read
 * from many threads.
 */
#ifndef CROWD_ASSET_H
#define CROWD_ASSET_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/result.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CROWD_MAX_INFLUENCES 4
/* Joint indices are stored as uint16_t. */
#define CROWD_MAX_JOINTS 65535

/* A texture decoded to RGBA8 as stored in the source (sRGB for colour
 * textures, linear data for the others), or width = height = 0 and rgba8 =
 * NULL when the material has none. Every texture reads uv0. */
typedef struct crowd_image {
    uint32_t width, height;
    uint8_t *rgba8; /* width * height * 4 bytes */
} crowd_image;

/* glTF's alphaMode. */
typedef enum crowd_alpha_mode {
    CROWD_ALPHA_OPAQUE = 0,
    CROWD_ALPHA_MASK = 1, /* alpha < alpha_cutoff is discarded */
    CROWD_ALPHA_BLEND = 2,
} crowd_alpha_mode;

/* The parameters of glTF 2.0's metallic-roughness material, as the source
 * gives them; a producer sets every field (metallic 0 and roughness 0 are a
 * polished dielectric, not "unset"). Importers fill what the file says and
 * the glTF defaults (or, for formats without PBR data, metallic 0 and
 * roughness 1, see crowd/import.h) where it says nothing. */
typedef struct crowd_material {
    char *name;          /* never NULL once built ("" when the file has none) */
    float base_color[4]; /* linear RGBA factor */
    /* Base-colour texture decoded to RGBA8 (sRGB as stored), or NULL. */
    uint32_t texture_width, texture_height;
    uint8_t *texture_rgba8;   /* texture_width * texture_height * 4 bytes */
    float metallic;           /* [0, 1] */
    float roughness;          /* [0, 1], perceptual (glTF's roughnessFactor) */
    float emissive[3];        /* linear RGB factor, >= 0 */
    float normal_scale;       /* normalTexture.scale */
    float occlusion_strength; /* occlusionTexture.strength, [0, 1] */
    crowd_alpha_mode alpha_mode;
    float alpha_cutoff; /* >= 0; used by CROWD_ALPHA_MASK */
    bool double_sided;
    crowd_image metallic_roughness_texture; /* roughness in G, metallic in B (linear) */
    crowd_image normal_texture;             /* tangent space, linear */
    crowd_image emissive_texture;           /* sRGB */
    crowd_image occlusion_texture;          /* occlusion in R, linear */
} crowd_material;

/* A range of the index buffer drawn with one material. */
typedef struct crowd_submesh {
    uint32_t first_index;
    uint32_t index_count; /* multiple of 3 */
    uint32_t material;    /* index into crowd_asset.materials */
} crowd_submesh;

/* Vertex attributes as separate arrays (structure of arrays). */
typedef struct crowd_mesh {
    uint32_t vertex_count;
    float *positions;     /* 3 * vertex_count, bind pose, model space */
    float *normals;       /* 3 * vertex_count, unit length */
    float *tangents;      /* 4 * vertex_count (xyz + handedness w) or NULL */
    float *uv0;           /* 2 * vertex_count; zeros when the file has none */
    uint16_t *joints;     /* 4 * vertex_count */
    float *weights;       /* 4 * vertex_count, each >= 0, summing to 1, unused = 0 */
    uint32_t index_count; /* multiple of 3 */
    uint32_t *indices;    /* triangle list */
    uint32_t submesh_count;
    crowd_submesh *submeshes; /* cover the index buffer in order, no gaps */
} crowd_mesh;

typedef struct crowd_skeleton {
    uint32_t joint_count;    /* >= 1 */
    char **names;            /* joint_count strings */
    int32_t *parents;        /* joint_count; -1 for a root, else < j */
    float *rest_translation; /* 3 * joint_count, local */
    float *rest_rotation;    /* 4 * joint_count, local, unit (x, y, z, w) */
    float *rest_scale;       /* 3 * joint_count, local */
    float *inverse_bind;     /* 16 * joint_count, model space -> joint space */
    /* Transform of the (non-joint) nodes above the root joints, applied before
     * them; identity for most files. */
    float root_transform[16];
} crowd_skeleton;

typedef enum crowd_interpolation {
    CROWD_INTERP_STEP,
    CROWD_INTERP_LINEAR,
    /* glTF cubic spline: each key stores in-tangent, value, out-tangent. */
    CROWD_INTERP_CUBIC,
} crowd_interpolation;

/* One animated channel of one joint. key_count == 0 means "not animated":
 * the joint keeps its rest value for this channel. */
typedef struct crowd_track {
    uint32_t key_count;
    crowd_interpolation interpolation;
    float *times_s; /* key_count, non-decreasing, >= 0 */
    /* key_count * components (3 for translation/scale, 4 for rotation); for
     * CROWD_INTERP_CUBIC key_count * 3 * components laid out per key as
     * [in-tangent, value, out-tangent]. */
    float *values;
} crowd_track;

typedef struct crowd_joint_tracks {
    crowd_track translation, rotation, scale;
} crowd_joint_tracks;

typedef struct crowd_clip {
    char *name;                 /* unique within the asset, never empty */
    float duration_s;           /* > 0, or 0 for a single-pose clip */
    bool loop;                  /* wraps at duration_s; else clamps */
    crowd_joint_tracks *tracks; /* skeleton.joint_count entries */
} crowd_clip;

typedef struct crowd_socket {
    char *name;
    uint32_t joint;   /* the joint it follows */
    float offset[16]; /* socket relative to that joint */
} crowd_socket;

/* What the importer had to fix, so the user can be told. Every field is a
 * uint32_t count: the import helper process sends the struct as such. */
typedef struct crowd_repairs {
    uint32_t influences_truncated; /* vertices with > 4 influences (kept the 4 largest) */
    uint32_t weights_renormalized; /* vertices whose weights did not sum to 1 */
    uint32_t vertices_unweighted;  /* vertices with no weight, bound to their mesh's node */
    uint32_t static_meshes_rigid;  /* static meshes bound rigidly to their node */
    uint32_t normals_generated;    /* vertices whose normals were missing, zero or not finite */
    uint32_t clips_renamed;        /* clips with an empty or duplicate name */
    uint32_t keys_dropped;         /* keys out of order or non-finite */
    uint32_t
        clips_extended; /* clips with keys past the file's duration (extended to the last key) */
    uint32_t bones_unbound;   /* bones naming no node (their weights bound to the mesh's node) */
    uint32_t reader_warnings; /* warnings of assimp's reader (it used its defaults; see the log) */
    uint32_t units_converted; /* 1 when the file's unit was converted to metres (unit_scale) */
    /* 1 when crowd's glTF reader lacks an extension the file requires (Draco,
     * meshopt, ...) and assimp read it instead (the log names them). */
    uint32_t gltf_read_by_assimp;
} crowd_repairs;

typedef struct crowd_asset {
    char *name;                 /* base name, e.g. "robot" for robot.glb */
    char *source;               /* what it came from: a file name or "builtin:" */
    uint32_t source_mesh_count; /* meshes merged into `mesh` (informational) */
    crowd_mesh mesh;
    uint32_t material_count;
    crowd_material *materials;
    crowd_skeleton skeleton;
    uint32_t clip_count;
    crowd_clip *clips;
    uint32_t socket_count;
    crowd_socket *sockets;
    bool has_skin; /* false: file had no skin (one joint, rigid) */
    /* Metres per unit of the source file, applied to its coordinates: 0.01
     * for an FBX in centimetres, 1 for a file in metres or without a unit,
     * crowd_import_desc.scale when given; 0 for an asset not read from a file. */
    float unit_scale;
    crowd_repairs repairs;
    /* Where every block of the asset, the struct included, came from and
     * goes back to; zeroed = malloc and free. */
    crowd_allocator allocator;
} crowd_asset;

/* A zeroed asset (skeleton.root_transform = identity), or NULL when out of memory. */
crowd_asset *crowd_asset_create(void);

/* Frees the asset and everything it points to. NULL is a no-op. */
void crowd_asset_destroy(crowd_asset *asset);

/* Checks every invariant stated in this header: counts and pointers agree,
 * indices and joint indices in range, weights finite, >= 0 and summing to 1
 * (within 1e-4), normals finite and non-zero, parents before children, unit
 * rotations, key times finite and non-decreasing, values finite, submeshes
 * covering the indices, material indices in range, unique non-empty clip
 * names, no NaN/Inf anywhere. Returns CROWD_OK or CROWD_ERROR_INVALID_DATA
 * with `error->reason` naming the first broken invariant and where
 * (e.g. "vertex 17: weights sum to 0.5"). */
crowd_result crowd_asset_validate(const crowd_asset *asset, crowd_error *error);

/* Axis-aligned bounds of the bind-pose positions. An empty mesh gives zeros. */
void crowd_asset_bind_bounds(const crowd_asset *asset, float min[3], float max[3]);

/* Index of the clip or joint with that name, or -1. */
int32_t crowd_asset_find_clip(const crowd_asset *asset, const char *name);
int32_t crowd_asset_find_joint(const crowd_asset *asset, const char *name);
int32_t crowd_asset_find_socket(const crowd_asset *asset, const char *name);

#ifdef __cplusplus
}
#endif

#endif
