/* gltf_expect.h - counts read straight from a glTF/GLB file's JSON (cJSON),
 * independently of assimp and of crowd's importer, so the import tests
 * compare against the file itself. */
#ifndef GLTF_EXPECT_H
#define GLTF_EXPECT_H

#include <stdbool.h>
#include <stdint.h>

#define GLTF_EXPECT_MAX 256

typedef struct gltf_expect {
    uint32_t mesh_instances; /* triangle primitives merged: skinned meshes once, static per node */
    uint32_t triangles;      /* index count / 3 (or POSITION count / 3 without indices) */
    uint32_t positions;      /* sum of POSITION counts: an upper bound on vertices */
    uint32_t materials;      /* distinct materials those primitives use (none = one default) */
    bool has_skin;
    /* Joint rule (docs/architecture.md, "Data model"): skin joints +
     * animated nodes + socket_* nodes (+ static mesh nodes when there is a
     * skin), closed up to their lowest common ancestor; 1 when the file has
     * neither skin nor animation. */
    uint32_t joints;
    uint32_t named_joint_count;
    char named_joints[GLTF_EXPECT_MAX][64]; /* names of the skin joints that have one */
    uint32_t clips;
    char clip_names[GLTF_EXPECT_MAX][64];   /* "" when the file gives none */
    double clip_durations[GLTF_EXPECT_MAX]; /* largest sampler input "max" */
    uint32_t sockets;                       /* nodes named socket_* */
} gltf_expect;

/* Fills `out` from a .gltf or .glb file; false when it cannot be read. */
bool gltf_expect_read(const char *path, gltf_expect *out);

#endif
