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
 * The fast path works on a crowd_skin_prepared, a copy of the mesh's
 * skinning data rearranged once for SIMD: vertices grouped by influence
 * count (1 to 4, so a rigid vertex pays for one matrix, not four), then
 * blocks of 8 vertices with positions, normals, weights and palette
 * offsets (12 * joint) stored lane by lane. Three code paths share that layout: portable
 * scalar C, SSE2 (the x86-64 baseline) and AVX2+FMA, the last chosen at run
 * time with cpuid, so one binary runs on any x86-64; other CPUs use the
 * scalar path. Outputs are in the mesh's own vertex order and layout, the
 * same as crowd_skin_reference(): tightly packed float3 per vertex,
 * positions and normals in two arrays, ready to upload as two vertex
 * buffers (stride 12 bytes) drawn with the mesh's unchanged index buffer.
 * Tangents are skinned by the reference only.
 *
 * crowd_skin_batch() skins many characters (jobs) on a small thread pool
 * created once with crowd_skin_pool_create().
 *
 * No allocation and no I/O in the skinning calls; callers own every array.
 * A prepared mesh is immutable and may be used by many threads at once;
 * skinning calls are thread-safe on distinct outputs. A pool runs one batch
 * at a time.
 */
#ifndef CROWD_SKIN_H
#define CROWD_SKIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Skins every vertex of `mesh` with `skin_matrices` (12 * joint_count
 * floats): out_positions gets 3 * vertex_count floats; out_normals (may be
 * NULL) 3 * vertex_count unit normals; out_tangents (may be NULL, ignored
 * when the mesh has none) 4 * vertex_count, w copied. Weights are used as
 * stored; zero-weight slots are not read. A direction whose blend cancels
 * to zero stays zero (not NaN). */
void crowd_skin_reference(const crowd_mesh *mesh, const float *skin_matrices, float *out_positions,
                          float *out_normals, float *out_tangents);

/* ---- fast path ---------------------------------------------------------- */

/* Which implementation skins. AUTO picks the fastest this CPU supports;
 * forcing one exists for tests and benchmarks. */
typedef enum crowd_skin_path {
    CROWD_SKIN_PATH_AUTO = 0,
    CROWD_SKIN_PATH_SCALAR, /* portable C, every CPU */
    CROWD_SKIN_PATH_SSE2,   /* x86-64 only */
    CROWD_SKIN_PATH_AVX2,   /* x86-64 CPUs with AVX2 and FMA (checked at run time) */
    CROWD_SKIN_PATH_COUNT
} crowd_skin_path;

/* True when `path` runs on this CPU (AUTO and SCALAR always do). */
bool crowd_skin_path_supported(crowd_skin_path path);

/* The path AUTO resolves to on this CPU (never AUTO). */
crowd_skin_path crowd_skin_path_best(void);

/* Static name of a path ("auto", "scalar", "sse2", "avx2"); "?" if out of range. */
const char *crowd_skin_path_name(crowd_skin_path path);

typedef struct crowd_skin_prepared crowd_skin_prepared;

/* Copies the skinning data of `mesh` (positions, normals, joints, weights;
 * weights as stored, zero weights dropped) into the SIMD layout. The mesh
 * is not referenced afterwards. Fails with CROWD_ERROR_INVALID_ARGUMENT
 * (mesh or out NULL, missing arrays, non-finite weight) or
 * CROWD_ERROR_OUT_OF_MEMORY; *out_prepared is NULL then. */
crowd_result crowd_skin_prepared_create(const crowd_mesh *mesh, crowd_skin_prepared **out_prepared,
                                        crowd_error *error);

/* NULL is a no-op. */
void crowd_skin_prepared_destroy(crowd_skin_prepared *prepared);

uint32_t crowd_skin_prepared_vertex_count(const crowd_skin_prepared *prepared);

/* Skinning matrices a call needs: highest joint index with a non-zero
 * weight, plus one; at least 1 for a non-empty mesh (unweighted vertices
 * read joint 0 with weight 0), 0 for an empty one. */
uint32_t crowd_skin_prepared_joint_count(const crowd_skin_prepared *prepared);

/* Vertices with `influences` (1..4) non-zero weights; vertices with none
 * count as 1 (they skin to the origin, as in the reference). */
uint32_t crowd_skin_prepared_influence_count(const crowd_skin_prepared *prepared,
                                             uint32_t influences);

/* Bytes the prepared mesh holds (for memory reports). */
size_t crowd_skin_prepared_size_bytes(const crowd_skin_prepared *prepared);

/* Skins every vertex with the AUTO path. skin_matrices: 12 floats per joint
 * for at least crowd_skin_prepared_joint_count() joints (crowd/anim.h
 * layout). out_positions: 3 * vertex_count floats; out_normals: the same or
 * NULL to skip normals (they are then neither computed nor written).
 * Results: the scalar and SSE2 paths do the reference's operations in its
 * order (positions equal to the bit on every test character; normals within
 * an ulp or two, as they multiply by 1/length); AVX2 fuses multiply-adds,
 * so it differs by float rounding (about 1e-7 of the bounds diagonal on the
 * test characters). */
void crowd_skin_apply(const crowd_skin_prepared *prepared, const float *skin_matrices,
                      float *out_positions, float *out_normals);

/* Same with a chosen path; CROWD_ERROR_UNSUPPORTED (nothing written) when
 * this CPU cannot run it, CROWD_ERROR_INVALID_ARGUMENT for a path out of range. */
crowd_result crowd_skin_apply_path(const crowd_skin_prepared *prepared, crowd_skin_path path,
                                   const float *skin_matrices, float *out_positions,
                                   float *out_normals);

/* ---- many characters at once -------------------------------------------- */

/* One character of a batch: arguments as for crowd_skin_apply(). Jobs of a
 * batch may share a prepared mesh (and even matrices) but not outputs. */
typedef struct crowd_skin_job {
    const crowd_skin_prepared *prepared;
    const float *skin_matrices;
    float *out_positions;
    float *out_normals; /* may be NULL */
} crowd_skin_job;

typedef struct crowd_skin_pool_desc {
    /* Threads that skin during a batch, counting the caller of
     * crowd_skin_batch(): the pool starts thread_count - 1 workers.
     * 0 means one per online CPU; at most 256. */
    uint32_t thread_count;
    crowd_skin_path path; /* 0 = AUTO */
} crowd_skin_pool_desc;

typedef struct crowd_skin_pool crowd_skin_pool;

/* Starts the worker threads (they sleep between batches). desc may be NULL
 * (defaults). Fails with CROWD_ERROR_UNSUPPORTED (path not supported here),
 * CROWD_ERROR_INVALID_ARGUMENT (thread_count > 256, path out of range) or
 * CROWD_ERROR_OUT_OF_MEMORY (also when a thread cannot be started). */
crowd_result crowd_skin_pool_create(const crowd_skin_pool_desc *desc, crowd_skin_pool **out_pool,
                                    crowd_error *error);

/* Stops and joins the workers. NULL is a no-op. Not during a batch. */
void crowd_skin_pool_destroy(crowd_skin_pool *pool);

/* Threads a batch uses, the caller included. */
uint32_t crowd_skin_pool_thread_count(const crowd_skin_pool *pool);

/* Skins every job and returns when all are done; the calling thread works
 * too. Large jobs are split so that a batch of few characters still uses
 * every thread. pool may be NULL: the jobs run on the calling thread with
 * the AUTO path. One batch at a time per pool. */
void crowd_skin_batch(crowd_skin_pool *pool, const crowd_skin_job *jobs, uint32_t job_count);

#ifdef __cplusplus
}
#endif

#endif
