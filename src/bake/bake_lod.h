/* bake_lod.h - the LODs of a bake: simplification (bake_lod.c) and the
 * error each LOD makes over the baked frames (bake_lod_error.c), private to
 * the build side of the bake module.
 *
 * Data model in crowd/bake.h: LOD k >= 1 is an index buffer over a
 * compacted vertex range, each vertex naming its LOD0 vertex, so that all
 * LODs play from LOD0's texels.
 */
#ifndef CROWD_BAKE_LOD_H
#define CROWD_BAKE_LOD_H

#include "bake/bake_build.h"

/* A _SOURCE_VERTEX in the mesh file is a float (glb_write.h), exact below
 * 2^24; meshes with more vertices get no LODs. */
#define BAKE_LOD_MAX_VERTICES (1u << 24)

/* Material of each vertex of `mesh` (vertex_count entries): that of the
 * first submesh that uses it, 0 for a vertex no triangle uses. The gpu
 * module shades by the same rule. */
void bake_vertex_materials(const crowd_mesh *mesh, uint32_t *out_materials);

/* Builds up to `lod_count` LODs below LOD 0 of bake->asset's mesh into
 * bake->lods[1..], lod_vertices and lod_indices, each targeting half the
 * triangles of the one before; lod_count becomes 1 + the LODs made, their
 * errors 0 (bake_measure_lods fills them). A mesh that cannot be simplified
 * that far (no triangles, too many vertices, a simplification that removes
 * less than a quarter of the triangles) keeps the LODs made so far, with a
 * warning through `logger`. Errors: CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result bake_build_lods(crowd_bake *bake, uint32_t lod_count, const crowd_logger *logger,
                             crowd_error *error);

/* Sets lods[k].error and error_rel of every LOD k >= 1 from the positions
 * of every baked frame as played (bake_played_positions). Errors:
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result bake_measure_lods(crowd_bake *bake, const bake_played *played, uint32_t thread_count,
                               crowd_error *error);

#endif
