/* import_internal.h - what the steps of the importer share.
 *
 * crowd_import_file()/crowd_import_memory() (import_file.c) send a file to
 * the helper process (process/import_child.c), whose main
 * (helper/crowd_import_helper.c) imports it in process like desc.in_process
 * does: import_assimp.c gets an assimp scene and hands it to
 * import_scene_to_asset() (import_scene.c), which runs the steps in this
 * order, each in its own file:
 *   1. nodes    flatten the node tree (pre-order, so parents come first),
 *               each node under the parent its transform is relative to
 *   2. marks    which nodes must become joints: bone nodes, nodes static
 *               meshes hang from, skinned meshes' nodes when a vertex has no
 *               weight (import_mesh.c), animated nodes (import_clips.c),
 *               socket nodes (import_skeleton.c)
 *   3. skeleton close the marks under "nodes between joints", order, rest
 *               TRS, inverse binds (placed by import_bind.c), root
 *               transform, sockets
 *   4. mesh     merge every mesh instance, repair weights, normals
 *   5. clips    channels to tracks, ticks to seconds
 *   6. materials and their base-colour textures
 *   7. units    the file's length unit to metres (import_units.c)
 * A file of clips (import_clips_file, import_run.h: crowd_asset_add_clips)
 * runs steps 1, 2 with its bones and animated nodes only, 3 (inverse binds
 * from the rest pose), 5 and 7: no mesh is needed or read, no socket made,
 * and the asset's mesh is empty.
 * Only files in this folder include assimp; the scene is released by the
 * caller of import_scene_to_asset() before the asset is returned.
 */
#ifndef CROWD_IMPORT_INTERNAL_H
#define CROWD_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <assimp/scene.h>

#include "crowd/import.h"
#include "core/core_internal.h"
#include "import/scene/import_png.h"

typedef struct import_node {
    const struct aiNode *node;
    int32_t parent;   /* index into import_context.nodes, -1 for the tree root */
    float local[16];  /* column-major, as in the file */
    float global[16]; /* product of the locals from the tree root down */
    int32_t joint;    /* joint index, or -1 */
    bool marked;      /* must be a joint (step 2) */
    bool is_bone;     /* some aiBone names this node */
} import_node;

/* The file's length unit (import_units.c): metres per unit of the file,
 * and the part of that factor assimp already applied to the scene. */
typedef struct import_units {
    double file_m;
    double applied_by_assimp;
    const char *source; /* what declared the unit; NULL when nothing did */
} import_units;

typedef struct import_context {
    const struct aiScene *scene;
    const char *file;              /* for messages */
    const char *dir;               /* folder of the file (textures next to it); NULL from memory */
    const crowd_import_desc *desc; /* never NULL (defaults substituted) */
    const crowd_logger *logger;
    crowd_error *error;
    bool clips_only; /* a file of clips: skeleton and clips, no mesh */
    crowd_asset *asset;
    import_units units;
    uint32_t reader_warnings; /* assimp reader lines taken as repairs (import_log_watch) */

    uint32_t node_count;
    import_node *nodes;

    /* No bone and no usable animation: the whole file is one rigid joint and
     * every mesh is baked into model space. */
    bool static_only;
    int32_t *joint_node;          /* joint -> node index (-1 for the static-only joint) */
    float *joint_global;          /* 16 per joint: rest model matrix from rest TRS */
    bool *inverse_bind_from_bone; /* inverse_bind[j] came from a bone's offset matrix */
} import_context;

/* Step 1 (import_scene.c). */
crowd_result import_nodes_flatten(import_context *ctx);
/* Step 1, after flattening (import_hierarchy.c): moves each node under the
 * node its aiNode::mParent names where that is not the node listing it (a
 * loader bug that leaves transforms relative to mParent), restoring
 * pre-order and global transforms. */
crowd_result import_nodes_follow_parents(import_context *ctx);
/* Node index of `node` (must be in the tree). */
int32_t import_node_index(const import_context *ctx, const struct aiNode *node);
/* Node an animation channel or a socket name means: the node with that name,
 * and where several share it, the one that is a bone or a marked node. -1 if none. */
int32_t import_node_find(const import_context *ctx, const char *name);
/* Node an aiBone refers to: aiBone::mNode (set by PopulateArmatureData), or
 * by name where an importer left it unset. -1 if none. */
int32_t import_bone_node(const import_context *ctx, const struct aiBone *bone);

/* Step 2 (import_mesh.c, import_clips.c, import_skeleton.c). */
crowd_result import_mesh_mark(import_context *ctx, bool *out_has_bones);
bool import_clips_mark(import_context *ctx);
crowd_result import_sockets_mark(import_context *ctx);
/* A file of clips's step 2 for bones (import_skeleton.c): the nodes every
 * aiBone of every mesh names, marked without reading the meshes' vertices
 * or weights. Returns whether there was one. */
bool import_bones_mark(import_context *ctx);

/* Step 3 (import_skeleton.c). */
crowd_result import_skeleton_build(import_context *ctx);
crowd_result import_sockets_build(import_context *ctx);
/* Where skinned `mesh`, referenced by node `node`, sat when its skin was
 * bound (import_bind.c): the matrix B from its space to model space, read
 * from its bones' offsets and the rest pose (joint_global must be filled),
 * and B^-1. Bind positions are B * v and a bone's inverse bind is
 * offset * B^-1. B is always invertible; returns true when it is exactly
 * identity (the file's values are then to be kept bit for bit). */
bool import_mesh_bind(const import_context *ctx, uint32_t node, const struct aiMesh *mesh,
                      float bind[16], float bind_inverse[16]);

/* Steps 4-6. */
crowd_result import_mesh_build(import_context *ctx);
crowd_result import_clips_build(import_context *ctx);
crowd_result import_materials_build(import_context *ctx, const uint32_t *scene_material_of,
                                    uint32_t material_count);


/* Step 7 (import_units.c): the unit of the file whose scene this is,
 * from the scene's metadata (FBX) or the file's first bytes `head`
 * (Collada; NULL when not at hand). */
void import_units_find(const struct aiScene *scene, const uint8_t *head, size_t head_size,
                       import_units *out);
/* Scales ctx->asset to metres, or by desc->scale when given; sets
 * unit_scale and counts the conversion as a repair. */
void import_units_apply(import_context *ctx);

/* Runs steps 1-7 and crowd_asset_validate() (import_scene.c). */
crowd_result import_scene_convert(import_context *ctx);
/* Creates the asset named after ctx->file, converts ctx->scene into it
 * (ctx: scene, file, dir, desc, logger, error, units and
 * reader_warnings filled in) and frees the steps' scratch; *out_asset
 * only on success. */
crowd_result import_scene_to_asset(import_context *ctx, crowd_asset **out_asset);

/* What assimp's log lines mean (import_assimp_log.c). The watch sees every
 * line of one import, in order. */
typedef struct import_log_watch {
    const crowd_logger *logger;
    const char *file;
    bool post_processing; /* past "Entering post processing pipeline" */
    bool repeat;          /* a second read of the file: count, do not log again */
    uint32_t reader_warnings;
    char refusal[400];    /* the first line saying data was dropped against the format */
    char last_error[400]; /* the last error line (why assimp gave up) */
} import_log_watch;
void import_log_watch_line(import_log_watch *watch, const char *message);

#endif
