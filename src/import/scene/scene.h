/* scene.h - the one model every reader fills, and the one pipeline that
 * turns it into a crowd_asset (gltfpack's shape).
 *
 * crowd's glTF reader (gltf/) and assimp's side (assimp/import_scene.c,
 * in the helper process or in this one) each fill an import_scene in the
 * file's own terms: nodes in pre-order with their local transforms, mesh
 * instances with their vertices and influences, skins with their inverse
 * bind matrices, materials already decoded, animations as per-node
 * channels of keys (STEP, LINEAR, CUBICSPLINE as the file has them), and
 * the file's unit. Readers check what their format forbids and report it
 * in its terms (JSON paths, assimp names); they repair nothing.
 *
 * crowd__import_scene_convert() then runs the steps, each in its own file, and is
 * the only place that counts repairs (crowd_repairs):
 *   1. marks     which nodes must become joints: skin joints, nodes static
 *                meshes hang from, skinned meshes' nodes when a vertex has
 *                no weight or a bone names no node, animated nodes, sockets
 *                (scene_skeleton.c)
 *   2. skeleton  the marks closed under "nodes between joints", joints in
 *                pre-order, rest TRS, inverse binds placed by each skinned
 *                mesh's bind placement (scene_bind.c), the root transform,
 *                sockets (scene_skeleton.c)
 *   3. mesh      every mesh instance merged into one mesh: rigid props,
 *                4 largest influences, weights renormalized, unweighted
 *                vertices bound to their node, normals made where missing;
 *                materials in order of first use (scene_mesh.c)
 *   4. clips     keys cleaned, durations, loop flags, unique names
 *                (scene_clips.c)
 *   5. units     the file's unit (or desc->scale) to metres (scene_units.c)
 * and crowd_asset_validate(). A file of clips (crowd_asset_add_clips) has
 * no meshes; its skeleton is its skins' joints and animated nodes.
 *
 * Ownership: the scene owns its arrays (crowd__import_scene_free), except names,
 * which point into the reader's data (JSON, aiScene) or a node's
 * own_name and must outlive the conversion. Materials and keys move into
 * the asset.
 */
#ifndef CROWD_IMPORT_SCENE_H
#define CROWD_IMPORT_SCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/import.h"

typedef struct import_scene_node {
    const char *name;  /* never NULL ("" when the file has none) */
    char own_name[24]; /* a name the reader made ("nodes[3]"); point at it once
                        * the node list stops growing (it moves) */
    int32_t parent;    /* < the node's own index; -1 for a root */
    float local[16];   /* column-major */
    float global[16];  /* product of the locals from its root down */
    /* Rest TRS (unit rotation): the file's, or its matrix decomposed the
     * reader's way (shear does not survive). */
    float translation[3], rotation[4], scale[3];
    /* The pipeline's. */
    bool marked;  /* must become a joint */
    bool is_bone; /* a joint of a skin */
    int32_t joint;
} import_scene_node;

/* The joints a skinned mesh is bound to. A joint whose node is -1 names no
 * node (an assimp bone by a name no node has, `name` saying which): its
 * weights are bound to the mesh's node. */
typedef struct import_scene_skin {
    uint32_t joint_count;
    int32_t *nodes;       /* joint_count */
    const char **names;   /* joint_count, for messages; may be NULL */
    float *inverse_binds; /* 16 per joint; NULL in a file of clips (nothing is bound) */
} import_scene_skin;

/* One mesh instance: a node and triangles. Influences of vertex v are
 * [influence_first[v], influence_first[v + 1]) in influence_joint (skin
 * joint) and influence_weight (> 0, finite), in the file's order. */
typedef struct import_scene_mesh {
    const char *name; /* for messages */
    uint32_t node;
    int32_t skin;      /* -1: static, rigid on its node */
    uint32_t material; /* index into import_scene.materials */
    uint32_t vertex_count;
    float *positions;          /* 3 per vertex, finite */
    float *normals;            /* 3 per vertex, or NULL; may be zero or not finite (made then) */
    float *uv;                 /* 2 per vertex, or NULL; finite */
    uint32_t *influence_first; /* vertex_count + 1, skinned meshes only */
    uint32_t *influence_joint;
    float *influence_weight;
    uint32_t index_count; /* 3 per triangle, each below vertex_count */
    uint32_t *indices;
} import_scene_mesh;

typedef enum import_scene_path {
    IMPORT_PATH_TRANSLATION,
    IMPORT_PATH_ROTATION,
    IMPORT_PATH_SCALE,
} import_scene_path;

/* Keys of one property of one node. `node` -1: the node is the one named
 * `node_name` (assimp names a channel's node; where several share the
 * name, the joint is meant). Times in seconds as the file has them (not
 * yet checked for order or finiteness); values `components` per key
 * (3 per element for CUBIC: in-tangent, value, out-tangent). */
typedef struct import_scene_channel {
    int32_t node;
    const char *node_name;
    import_scene_path path;
    crowd_interpolation interpolation;
    uint32_t key_count;
    float *times_s;
    float *values;
} import_scene_channel;

typedef struct import_scene_animation {
    const char *name;  /* never NULL */
    char label[32];    /* how messages name it: "animations[2]", "animation 2" */
    double duration_s; /* what the file states; 0 when it states none */
    uint32_t channel_count;
    import_scene_channel *channels;
} import_scene_animation;

typedef struct import_scene {
    const char *file;              /* for messages */
    const crowd_import_desc *desc; /* never NULL */
    const crowd_logger *logger;
    crowd_error *error;
    bool clips_only; /* a file of clips: skins and animations, no meshes */

    uint32_t node_count;
    import_scene_node *nodes;
    uint32_t skin_count;
    import_scene_skin *skins;
    uint32_t mesh_count;
    import_scene_mesh *meshes;
    uint32_t material_count;
    crowd_material *materials; /* decoded, in order of first use by the meshes */
    uint32_t animation_count;
    import_scene_animation *animations;

    /* Metres per unit of the file, the part of it the reader already
     * applied, and what declared it (NULL when nothing did). */
    double unit_m;
    double unit_applied;
    const char *unit_source;
    uint32_t reader_warnings;  /* the reader's warnings taken as repairs */
    const char *summary_extra; /* NULL, or appended to the summary line */
} import_scene;

/* An empty scene for `file` (unit 1 m, nothing applied). */
void crowd__import_scene_init(import_scene *scene, const char *file, const crowd_import_desc *desc,
                              crowd_error *error);
void crowd__import_scene_free(import_scene *scene);
/* Growing the lists; NULL when out of memory (the error set). The new
 * element is zeroed and counted. */
import_scene_node *crowd__import_scene_add_node(import_scene *scene);
import_scene_mesh *crowd__import_scene_add_mesh(import_scene *scene);
/* The scene material of the reader's material `key`, in order of first
 * use: `slot_of[key]` (zeroed by the reader, one entry per key) is its
 * index + 1; at the first use *out_new is the new zeroed material for the
 * reader to fill, else NULL. */
crowd_result crowd__import_scene_material_slot(import_scene *scene, uint32_t *slot_of, uint32_t key,
                                               uint32_t *out_slot, crowd_material **out_new);
import_scene_channel *crowd__import_scene_add_channel(import_scene *scene,
                                                      import_scene_animation *animation);
/* Node globals from the locals (parents come first). */
void crowd__import_scene_nodes_finish(import_scene *scene);
/* The node called `name`, preferring a bone or a marked node where several
 * share it; -1 if none. */
int32_t crowd__import_scene_node_find(const import_scene *scene, const char *name);

/* The pipeline: the asset named after scene->file, or an error. */
crowd_result crowd__import_scene_convert(import_scene *scene, crowd_asset **out_asset);

/* The steps (scene_skeleton.c, scene_bind.c, scene_mesh.c, scene_clips.c,
 * scene_units.c), over what the conversion holds. */
typedef struct import_build {
    import_scene *scene;
    crowd_asset *asset;
    /* No skin and no animation: one rigid joint, meshes baked into model space. */
    bool static_only;
    int32_t *joint_node;    /* joint -> node (-1 for the static-only joint) */
    float *joint_global;    /* 16 per joint: rest model matrix */
    bool *inverse_bind_set; /* inverse_bind[j] came from a skin */
} import_build;

crowd_result crowd__import_build_skeleton(import_build *build);
/* Where skinned `mesh` sat when its skin was bound: B from its space to
 * model space, and B^-1. True when B is exactly identity (the file's
 * values are then kept bit for bit). */
bool crowd__import_build_bind(const import_build *build, const import_scene_mesh *mesh,
                              float bind[16], float bind_inverse[16]);
crowd_result crowd__import_build_mesh(import_build *build);
crowd_result crowd__import_build_clips(import_build *build);
void crowd__import_build_units(import_build *build);

#endif
