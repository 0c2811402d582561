/* glb_io.h - the mesh of a bake as binary glTF 2.0 (.glb).
 *
 * Writing: the asset's vertex buffer exactly as baked (positions, normals,
 * TEXCOORD_0 as float arrays, one primitive per submesh over one shared set
 * of attribute accessors, uint32 indices), optionally TEXCOORD_1 pointing at
 * each vertex's texel in a vertex animation texture, optionally the skin
 * (JOINTS_0 as uint16, WEIGHTS_0 as float, one node per joint with its rest
 * TRS under a root node carrying skeleton.root_transform, inverse bind
 * matrices), and the materials (baseColorFactor, base-colour texture as an
 * embedded PNG).
 *
 * Reading: a strict reader for what such a file says. Every accessor,
 * bufferView and buffer bound, component type, element type and count is
 * checked before a byte is read; features a bake never contains (sparse
 * accessors, external buffers or images, non-triangle primitives, joints
 * given as matrices) are refused as unsupported rather than half-read.
 */
#ifndef CROWD_BAKE_GLB_IO_H
#define CROWD_BAKE_GLB_IO_H

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

void glb_lookup_uv(const glb_lookup *lookup, uint32_t vertex, float uv[2]);

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

/* Reads a .glb written by glb_write into `asset` (mesh, materials,
 * skeleton; has_skin set), which must be freshly created. When out_uv1 is
 * not NULL it receives the TEXCOORD_1 array (2 floats per vertex, malloc'ed)
 * or NULL when the file has none. `name` is the file named in errors.
 * Errors: CROWD_ERROR_INVALID_DATA, CROWD_ERROR_UNSUPPORTED,
 * CROWD_ERROR_LIMIT, CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result glb_read(const uint8_t *data, size_t size, const char *name, crowd_asset *asset,
                      float **out_uv1, crowd_error *error);

#endif
