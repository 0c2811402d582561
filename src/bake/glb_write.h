/* glb_write.h - writing the mesh of a bake as binary glTF 2.0 (.glb), which
 * the runtime reads back with load/glb_read.h.
 *
 * The asset's vertex buffer exactly as baked (positions, normals,
 * TEXCOORD_0 as float arrays, one primitive per submesh over one shared set
 * of attribute accessors, uint32 indices), optionally TEXCOORD_1 pointing at
 * each vertex's texel in a vertex animation texture (glb_lookup), optionally
 * the skin (JOINTS_0 as uint16, WEIGHTS_0 as float, one node per joint with
 * its rest TRS under a root node carrying skeleton.root_transform, inverse
 * bind matrices), and the materials (baseColorFactor, base-colour texture as
 * an embedded PNG).
 */
#ifndef CROWD_BAKE_GLB_WRITE_H
#define CROWD_BAKE_GLB_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/asset.h"
#include "load/glb_read.h"

typedef struct glb_write_desc {
    const crowd_asset *asset; /* mesh, materials and (with skin) skeleton */
    const char *name;         /* mesh and node name */
    bool skin;
    glb_lookup lookup;
} glb_write_desc;

/* Builds the whole .glb in a malloc'ed buffer. Errors:
 * CROWD_ERROR_INVALID_ARGUMENT (an empty mesh, a submesh beyond the
 * materials), CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result glb_write(const glb_write_desc *desc, uint8_t **out_data, size_t *out_size,
                       crowd_error *error);

#endif
