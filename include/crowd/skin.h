/* crowd/skin.h - CPU linear blend skinning.
 *
 * Two implementations of the same maths: crowd_skin_reference(), plain and
 * obviously right, kept as the oracle for tests and the baker; and a fast
 * path (see below in this header) for the `cpu` playback mode and
 * benchmarks. Skinning matrices are the 3x4 row-major float[12] per joint
 * made by crowd_anim_skin_matrices(). Normals are transformed by the same
 * blended matrix and renormalized (exact for rigid and uniformly scaled
 * joints, the convention of every real-time skinner).
 *
 * No allocation, no I/O; callers own every array. Thread-safe on distinct
 * outputs.
 */
#ifndef CROWD_SKIN_H
#define CROWD_SKIN_H

#include "crowd/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Skins every vertex of `mesh` with `skin_matrices` (12 * joint_count
 * floats): out_positions gets 3 * vertex_count floats; out_normals (may be
 * NULL) 3 * vertex_count unit normals; out_tangents (may be NULL, ignored
 * when the mesh has none) 4 * vertex_count. Weights are used as stored. */
void crowd_skin_reference(const crowd_mesh *mesh, const float *skin_matrices, float *out_positions,
                          float *out_normals, float *out_tangents);

#ifdef __cplusplus
}
#endif

#endif
