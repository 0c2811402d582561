/* import_internal.h - what the steps of assimp's side of the importer share.
 *
 * crowd_import_file()/crowd_import_memory() (import_file.c) send a file to
 * the helper process (process/import_child.c), whose main
 * (helper/crowd_import_helper.c) imports it in process like desc.in_process
 * does: import_assimp.c gets an assimp scene and hands it to
 * crowd__import_assimp_convert() (import_scene.c), which fills the importer's
 * intermediate scene (scene/scene.h) in this order, each in its own file:
 *   1. nodes      flatten the node tree (pre-order, so parents come first),
 *                 each node under the parent its transform is relative to
 *                 (import_scene.c, import_hierarchy.c)
 *   2. meshes     every mesh instance checked and read with its bones as a
 *                 skin (aiBone::mNode, or its name for the pipeline to look
 *                 up), materials in order of first use (import_mesh.c,
 *                 import_material.c)
 *   3. animations channels by node name, ticks to seconds (import_clips.c)
 *   4. units      the file's length unit (import_units.c)
 * and then the one pipeline (scene/) makes the asset. A file of clips
 * (crowd__import_clips_file, import_run.h: crowd_asset_add_clips) gets the bones
 * of every mesh as skins instead of step 2: no mesh is needed or read.
 * Only files in this folder include assimp; the aiScene is released by the
 * caller of crowd__import_assimp_convert() after the asset is made (the scene's
 * names point into it).
 */
#ifndef CROWD_IMPORT_INTERNAL_H
#define CROWD_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <assimp/scene.h>

#include "core/core_internal.h"
#include "crowd/import.h"
#include "import/scene/import_png.h"
#include "import/scene/scene.h"

typedef struct import_node {
    const struct aiNode *node;
    int32_t parent;   /* index into import_context.nodes, -1 for the tree root */
    float local[16];  /* column-major, as in the file */
    float global[16]; /* product of the locals from the tree root down */
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
    import_units units;
    uint32_t reader_warnings; /* assimp reader lines taken as repairs (import_log_watch) */

    uint32_t node_count;
    import_node *nodes;
    import_scene *out; /* what the steps fill */
} import_context;

/* Step 1 (import_scene.c). */
crowd_result crowd__import_nodes_flatten(import_context *ctx);
/* Step 1, after flattening (import_hierarchy.c): moves each node under the
 * node its aiNode::mParent names where that is not the node listing it (a
 * loader bug that leaves transforms relative to mParent), restoring
 * pre-order and global transforms. */
crowd_result crowd__import_nodes_follow_parents(import_context *ctx);
/* Node index of `node` (must be in the tree), -1 if none. */
int32_t crowd__import_node_index(const import_context *ctx, const struct aiNode *node);

/* Step 2 (import_mesh.c); for a file of clips, crowd__import_bones_fill. */
crowd_result crowd__import_meshes_fill(import_context *ctx);
crowd_result crowd__import_bones_fill(import_context *ctx);
/* Scene material `index` of the aiScene (any index when it has none) as
 * crowd's (import_material.c). */
crowd_result crowd__import_material_convert(import_context *ctx, uint32_t index,
                                            crowd_material *out);

/* Step 3 (import_clips.c). */
crowd_result crowd__import_animations_fill(import_context *ctx);

/* Step 4 (import_units.c): the unit of the file whose scene this is,
 * from the scene's metadata (FBX) or the file's first bytes `head`
 * (Collada; NULL when not at hand). */
void crowd__import_units_find(const struct aiScene *scene, const uint8_t *head, size_t head_size,
                              import_units *out);

/* Fills the intermediate scene from ctx->scene (ctx: scene, file, dir,
 * desc, logger, error, units and reader_warnings filled in) and runs the
 * pipeline on it; *out_asset only on success (import_scene.c). */
crowd_result crowd__import_assimp_convert(import_context *ctx, crowd_asset **out_asset);

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
void crowd__import_log_watch_line(import_log_watch *watch, const char *message);

#endif
