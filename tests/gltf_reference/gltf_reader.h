/* gltf_reader.h - a minimal glTF 2.0 reader for the reference test.
 *
 * Written from the specification, independently of assimp and of crowd's
 * importer: .gltf (buffers as files or base64 data URIs) and .glb, node
 * hierarchies, meshes (triangles), skins and animations. Only what the
 * reference skinner needs; anything it does not understand (sparse
 * accessors, other primitive modes) is reported, not guessed.
 */
#ifndef GLTF_READER_H
#define GLTF_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct gltf_node {
    int parent;     /* -1 for scene roots and nodes outside the scene */
    int in_scene;   /* reached from the default scene */
    int mesh, skin; /* -1 when absent */
    double translation[3], rotation[4], scale[3];
    int has_matrix;
    double matrix[16]; /* column-major, when has_matrix */
    char name[128];
} gltf_node;

typedef struct gltf_primitive {
    uint32_t vertex_count;
    double *positions;   /* 3 per vertex */
    uint32_t *joints;    /* 4 per vertex, or NULL */
    double *weights;     /* 4 per vertex, or NULL */
    uint8_t *referenced; /* 1 where a triangle of nonzero area uses the vertex */
} gltf_primitive;

typedef struct gltf_mesh {
    int primitive_count;
    gltf_primitive *primitives;
} gltf_mesh;

typedef struct gltf_skin {
    int joint_count;
    int *joints;          /* node indices */
    double *inverse_bind; /* 16 per joint, column-major; identity when absent */
} gltf_skin;

typedef enum gltf_path { GLTF_TRANSLATION, GLTF_ROTATION, GLTF_SCALE } gltf_path;
typedef enum gltf_interp { GLTF_STEP, GLTF_LINEAR, GLTF_CUBIC } gltf_interp;

typedef struct gltf_channel {
    int node;
    gltf_path path;
    gltf_interp interpolation;
    uint32_t key_count;
    double *times;
    double *values; /* components per key, x3 for cubic (in, value, out) */
} gltf_channel;

typedef struct gltf_animation {
    char name[128];
    int channel_count;
    gltf_channel *channels;
} gltf_animation;

typedef struct gltf_file {
    int node_count, mesh_count, skin_count, animation_count;
    gltf_node *nodes;
    gltf_mesh *meshes;
    gltf_skin *skins;
    gltf_animation *animations;
    int *order; /* scene nodes, parents before children */
    int order_count;
} gltf_file;

/* Reads a .gltf or .glb from memory; `dir` resolves relative buffer URIs
 * (may be NULL for .glb). Returns NULL and fills `reason` on failure. */
gltf_file *gltf_read(const uint8_t *bytes, size_t size, const char *dir, char *reason,
                     size_t reason_size);
gltf_file *gltf_read_file(const char *path, char *reason, size_t reason_size);
void gltf_free(gltf_file *file);

#endif
