/* glb_write.h - writing the mesh of a bake as binary glTF 2.0 (.glb), which
 * the runtime reads back with load/glb_read.h.
 *
 * The asset's vertex buffer exactly as baked (positions, normals, tangents
 * when the asset has them, TEXCOORD_0 as float arrays, one primitive per
 * material over one shared set of attribute accessors, the submeshes of one
 * material merged in index order, uint32 indices), optionally TEXCOORD_1 pointing at
 * each vertex's texel in a vertex animation texture (glb_lookup), optionally
 * the skin (JOINTS_0 as uint16, WEIGHTS_0 as float, one node per joint with
 * its rest TRS under a root node carrying skeleton.root_transform, inverse
 * bind matrices), and the materials (every metallic-roughness parameter of
 * crowd_material, textures as embedded PNG; docs/manifest.md).
 *
 * LODs (crowd/bake.h) follow as meshes 1.., mesh k named NAME_LODk on a node
 * of that name (with the skin, outside the scene, so engines that draw the
 * scene draw LOD 0): the attributes of its compacted vertices copied from
 * their LOD0 vertices, TEXCOORD_1 the LOD0 vertex's texel, and
 * _SOURCE_VERTEX (float scalar, an exact integer below 2^24) the LOD0
 * vertex itself; one primitive per run of triangles of one material.
 */
#ifndef CROWD_BAKE_GLB_WRITE_H
#define CROWD_BAKE_GLB_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/bake.h"
#include "load/glb_read.h"

typedef struct glb_write_desc {
    const crowd_asset *asset; /* mesh, materials and (with skin) skeleton */
    const char *name;         /* mesh and node name */
    bool skin;
    glb_lookup lookup;
    /* LODs as crowd_bake holds them; lod_count <= 1 writes none. */
    uint32_t lod_count;
    const crowd_bake_lod *lods;
    const uint32_t *lod_vertices, *lod_indices;
} glb_write_desc;

/* Builds the whole .glb in a malloc'ed buffer. The LOD arrays are trusted
 * (crowd_bake_write checks them). Errors: CROWD_ERROR_INVALID_ARGUMENT (an
 * empty mesh, a submesh beyond the materials), CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__glb_write(const glb_write_desc *desc, uint8_t **out_data, size_t *out_size,
                              crowd_error *error);

#endif
