/* glb_read.h - reading the mesh of a bake, a binary glTF 2.0 file (.glb)
 * as bake/glb_write.h writes it, and the TEXCOORD_1 convention both share.
 *
 * A strict reader for what such a file says. Every accessor, bufferView and
 * buffer bound, component type, element type and count is checked before a
 * byte is read; features a bake never contains (sparse accessors, external
 * buffers or images, non-triangle primitives, joints given as matrices) are
 * refused as unsupported rather than half-read.
 */
#ifndef CROWD_LOAD_GLB_READ_H
#define CROWD_LOAD_GLB_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/asset.h"

/* TEXCOORD_1 convention: vertex v looks up texel column v % width, row
 * (v / width) * row_step of a width x height texture, at the texel centre:
 * u = (v % width + 0.5) / width, v = ((v / width) * row_step + 0.5) / height.
 * A crowd VAT uses row_step 1 (the rows of one frame are adjacent); OpenVAT
 * stacks all frames of one row of vertices, so its row_step is the frame
 * count. Players add frame * rows_per_frame / height (crowd) or
 * frame / height (OpenVAT) to v. Computed in double, stored as float. */
typedef struct glb_lookup {
    uint32_t width, height; /* 0: no TEXCOORD_1 */
    uint32_t row_step;
} glb_lookup;

void crowd__glb_lookup_uv(const glb_lookup *lookup, uint32_t vertex, float uv[2]);

/* A LOD mesh of the file (meshes 1.., bake/glb_write.h), as far as the
 * runtime uses it: which LOD0 vertex each vertex is, its texel lookup and
 * the triangles. The other attributes are copies for engines, not read. */
typedef struct glb_lod_mesh {
    uint32_t vertex_count, index_count;
    uint32_t *source;  /* _SOURCE_VERTEX: vertex_count LOD0 vertices, each < the mesh's */
    float *uv1;        /* TEXCOORD_1, 2 floats per vertex; NULL when absent */
    uint32_t *indices; /* the primitives' indices in order, each < vertex_count */
} glb_lod_mesh;

/* Frees the arrays of `count` LOD meshes (not the array itself), which
 * crowd__glb_read took from `allocator` (the asset's). */
void crowd__glb_lod_meshes_free(const crowd_allocator *allocator, glb_lod_mesh *lods,
                                uint32_t count);

/* Reads a .glb written by crowd__glb_write into `asset` (mesh, materials,
 * skeleton; has_skin set), which must be freshly created; every block it
 * takes, kept or scratch, comes from asset->allocator (cJSON's parse of the
 * JSON chunk aside: its hooks are process-wide). When out_uv1 is not NULL it
 * receives the TEXCOORD_1 array (2 floats per vertex, from the same
 * allocator) or NULL when the file has none. The file must hold 1 + lod_count meshes;
 * meshes 1.. are read into out_lods[0 .. lod_count) (freed with
 * crowd__glb_lod_meshes_free, also on failure). `name` is the file named in
 * errors. Errors: CROWD_ERROR_INVALID_DATA, CROWD_ERROR_UNSUPPORTED,
 * CROWD_ERROR_LIMIT, CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__glb_read(const uint8_t *data, size_t size, const char *name, crowd_asset *asset,
                             float **out_uv1, uint32_t lod_count, glb_lod_mesh *out_lods,
                             crowd_error *error);

#endif
