/* bake_lod.h - the LODs of a bake: the welded copy they are simplified on
 * (bake_lod_weld.c), the search (bake_lod.c), the error each LOD makes over
 * the baked frames (bake_lod_error.c) and where separate pieces of the mesh
 * meet (bake_lod_contact.c), private to the build side of the bake module.
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
void crowd__bake_vertex_materials(const crowd_mesh *mesh, uint32_t *out_materials);

/* ---- the welded copy (bake_lod_weld.c) --------------------------------------- */

/* The mesh's vertices welded over everything but the normal. */
typedef struct bake_lod_weld {
    uint32_t count;
    uint32_t *remap;     /* baked vertex -> welded vertex */
    float *positions;    /* 3 per welded vertex */
    uint32_t *first;     /* count + 1: copies of u are copies[first[u] .. first[u + 1]) */
    uint32_t *copies;    /* baked vertices, grouped by welded vertex */
    uint32_t *materials; /* per baked vertex (crowd__bake_vertex_materials) */
} bake_lod_weld;

/* False when out of memory (free it all the same). */
bool crowd__bake_lod_weld_build(const crowd_mesh *mesh, bake_lod_weld *weld);
void crowd__bake_lod_weld_free(bake_lod_weld *weld);

/* The mesh's triangles in welded vertices into out (index_count room),
 * without those that weld flat; returns the index count. */
uint32_t crowd__bake_lod_weld_triangles(const crowd_mesh *mesh, const bake_lod_weld *weld,
                                        uint32_t *out);

/* Welded triangles back to baked vertices: per corner, the copy whose
 * normal points most along the face. */
void crowd__bake_lod_unweld(const crowd_mesh *mesh, const bake_lod_weld *weld,
                            const uint32_t *welded, uint32_t count, uint32_t *out);

/* Per baked vertex: 1 where every copy of its welded vertex has its
 * normal (to a thousandth), that is off creases. */
void crowd__bake_lod_weld_smooth(const crowd_mesh *mesh, const bake_lod_weld *weld, uint8_t *out);

/* ---- the LODs (bake_lod.c) ----------------------------------------------------- */

/* LOD budgets (why these: bake_lod.c): the first, as a fraction of the
 * bounds diagonal, and the factor from one to the next. */
#define BAKE_LOD_FIRST_BUDGET 0.0015f
#define BAKE_LOD_BUDGET_STEP 5.0f

/* Builds up to `lod_count` LODs below LOD 0 of bake->asset's mesh into
 * bake->lods[1..], lod_vertices and lod_indices, measured (errors set) over
 * the frames as `played`. LOD k is simplified from LOD 0 with the fewest
 * triangles whose error stays within its budget (0.15 % of the bounds
 * diagonal, five times that per level), and at most nine tenths of LOD
 * k-1's; a budget no LOD meets is skipped for the next one. A mesh that
 * cannot be simplified (no triangles, too many vertices, nothing
 * removable within the budgets) keeps the LODs made so far, with a
 * warning through `logger`. Errors: CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__bake_build_lods(crowd_bake *bake, uint32_t lod_count, const bake_played *played,
                                    uint32_t thread_count, const crowd_logger *logger,
                                    crowd_error *error);

/* ---- errors and screenings (bake_lod_error.c) ----------------------------------- */

/* Sets lods[k].error and error_rel of every LOD k >= first_lod (>= 1)
 * from the positions of every baked frame as played
 * (crowd__bake_played_positions). Errors: CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__bake_measure_lods(crowd_bake *bake, const bake_played *played,
                                      uint32_t first_lod, uint32_t thread_count,
                                      crowd_error *error);

/* Frames a screening looks at, at most: evenly spaced over the bake. */
#define BAKE_LOD_SCREEN_FRAMES 64
/* Their played positions are kept for all screenings up to this size. */
#define BAKE_LOD_SAMPLE_BYTES (64u << 20)

/* The frames screenings look at. */
typedef struct bake_lod_sample {
    uint32_t step, count; /* frames 0, step, 2 step, ...: count of them */
    float *positions;     /* count x vertex_count x 3, or NULL: decoded each time */
} bake_lod_sample;

/* Chooses the sample and decodes its positions where they fit. Never
 * fails: without the memory, positions stay NULL. */
void crowd__bake_lod_sample_init(const crowd_bake *bake, const bake_played *played,
                                 bake_lod_sample *out_sample);
void crowd__bake_lod_sample_release(bake_lod_sample *sample);

/* What a screening holds a LOD to. */
typedef struct bake_lod_limits {
    /* How far a LOD0 vertex may be from the LOD's surface, relative to the
     * bounds diagonal. */
    float error_rel;
    /* Cosine of the largest angle between a LOD0 vertex's normal and the
     * LOD's normal interpolated at the point nearest to it, in the bind
     * pose; -1: any. Checked only where smooth[v] (per LOD0 vertex): on a
     * crease a vertex has no one normal to compare. */
    float normal_cos;
    const uint8_t *smooth;
    /* Screen every frame, not the sample. */
    bool every_frame;
} bake_lod_limits;

/* Cheaper than crowd__bake_measure_lods, for the many candidates of a LOD
 * search: which LOD0 vertices LOD `lod` holds to `limits`. out_over, one
 * byte per vertex: 1 for those farther than error_rel from the LOD's
 * surface in a frame of `sample` (or of every frame), or with their normal
 * off. lods[lod].error and error_rel are set to the largest distance
 * found, exact only above the limit (within it, a vertex's search stops at
 * the first triangle within the limit). The result does not depend on
 * thread_count. Errors: CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__bake_screen_lod(crowd_bake *bake, const bake_played *played,
                                    const bake_lod_sample *sample, uint32_t lod,
                                    const bake_lod_limits *limits, uint32_t thread_count,
                                    uint8_t *out_over, crowd_error *error);

/* Squared distance from p to the triangle of corners t[0..2], t[3..5],
 * t[6..8]. */
float crowd__bake_triangle_distance2(const float p[3], const float *t);

/* ---- pieces and contacts (bake_lod_contact.c) ------------------------------------ */

/* Piece of each of `vertex_count` vertices of the triangles `indices` over
 * `positions` (3 floats per vertex): the same number for vertices joined
 * by triangles or a shared position. False when out of memory. */
bool crowd__bake_lod_pieces(const float *positions, uint32_t vertex_count, const uint32_t *indices,
                            uint32_t index_count, uint32_t *out_piece);

/* Of the same triangles, those that another piece comes within `reach` of
 * in the bind pose, nearly parallel: a triangle with a corner within reach
 * of another piece's triangle, or the other piece's triangle nearest such
 * a corner. piece: crowd__bake_lod_pieces'. out_contact: 1 byte per triangle, 1
 * for those. False when out of memory. */
bool crowd__bake_lod_contacts(const float *positions, uint32_t vertex_count,
                              const uint32_t *indices, uint32_t index_count, const uint32_t *piece,
                              float reach, uint8_t *out_contact);

#endif
