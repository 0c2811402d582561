/* floor.h - the floor every crowd mode is measured against: the cheapest
 * instanced draw of the same mesh an application could write without
 * crowd, in its bind pose. Position, normal and uv per vertex, one 4x4
 * matrix per instance (four per-instance attributes), one directional light
 * and a flat colour: no animation, no materials, no culling. `crowd bench
 * --scene field` draws it beside crowd's variants so that every ratio can
 * also be read against it.
 * Ownership: floor_create / floor_release on the current context.
 */
#ifndef CROWD_TOOLS_FLOOR_H
#define CROWD_TOOLS_FLOOR_H

#include <stdint.h>

#include "crowd/asset.h"

typedef struct floor_draw {
    uint32_t program, vertex_array, vertices, indices, instances; /* GL names */
    uint32_t index_count, instance_count;
    uint64_t gpu_memory_bytes;
} floor_draw;

/* Uploads `mesh` and one matrix per instance (positions, headings about +Y,
 * uniform scales: the instance_count entries of each array). Errors:
 * CROWD_ERROR_GPU (a shader that does not build), CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result floor_create(const crowd_mesh *mesh, const float *positions, const float *headings,
                          const float *scales, uint32_t instance_count, floor_draw *out,
                          crowd_error *error);
void floor_release(floor_draw *f);

/* One instanced draw into the bound framebuffer, depth-tested. */
void floor_render(const floor_draw *f, const float view_proj[16]);

#endif
