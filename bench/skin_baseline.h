/* skin_baseline.h - the AVX2+FMA skinning kernel as it was before issue 21
 * (src/skin/kernel_avx2.c and its layout at commit 34274ee), kept for
 * bench_skin only: it runs old and new alternating in one process, so the
 * speed-up is measured on the same machine under the same neighbours.
 *
 * The layout differs from today's in one field: joints were stored as u16
 * indices (the kernel multiplied by 12 per influence), where the library
 * now stores palette offsets (12 * joint, u32). Everything here is static
 * (header-only, one including program); it is not a code path of the
 * library and nothing outside bench/ uses it. x86-64 only; on other CPUs
 * the bench has no baseline to run (baseline_supported() is false).
 */
#ifndef CROWD_BENCH_SKIN_BASELINE_H
#define CROWD_BENCH_SKIN_BASELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"

#define BASELINE_LANES 8

typedef struct baseline_group {
    uint32_t influences; /* 1..4 */
    uint32_t vertex_count;
    uint32_t block_count;
    uint32_t block_words;  /* record stride in 32-bit words */
    unsigned char *blocks; /* 32-byte aligned */
} baseline_group;

/* The old prepared mesh: per influence count, blocks of 8 vertices with
 * positions [3][8], normals [3][8], weights [n][8], u16 joints [n][8] and
 * vertex indices [8], padded to a multiple of 8 words. */
typedef struct baseline_prepared {
    void *block;
    baseline_group groups[CROWD_MAX_INFLUENCES];
} baseline_prepared;

static inline const float *baseline_block_positions(const baseline_group *group, uint32_t block) {
    return (const float *)(const void *)(group->blocks + (size_t)block * group->block_words * 4);
}
static inline const float *baseline_block_normals(const baseline_group *group, uint32_t block) {
    return baseline_block_positions(group, block) + 3 * BASELINE_LANES;
}
static inline const float *baseline_block_weights(const baseline_group *group, uint32_t block) {
    return baseline_block_positions(group, block) + 6 * BASELINE_LANES;
}
static inline const uint16_t *baseline_block_joints(const baseline_group *group, uint32_t block) {
    return (const uint16_t *)(const void *)(baseline_block_weights(group, block) +
                                            group->influences * BASELINE_LANES);
}
static inline const uint32_t *baseline_block_vertices(const baseline_group *group, uint32_t block) {
    return (const uint32_t *)(const void *)(baseline_block_weights(group, block) +
                                            group->influences * BASELINE_LANES * 3 / 2);
}
static inline uint32_t baseline_block_lanes(const baseline_group *group, uint32_t block) {
    uint32_t rest = group->vertex_count - block * BASELINE_LANES;
    return rest < BASELINE_LANES ? rest : BASELINE_LANES;
}

/* Non-zero weights of vertex v; unweighted vertices go to the 1-influence
 * group as one zero weight of joint 0 (skinned to the origin). */
static inline uint32_t baseline_group_of(const crowd_mesh *mesh, uint32_t v) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < CROWD_MAX_INFLUENCES; i++) {
        n += mesh->weights[CROWD_MAX_INFLUENCES * (size_t)v + i] != 0.0f;
    }
    return n == 0 ? 0 : n - 1;
}

/* The old layout of `mesh` (positions, normals, joints and weights present,
 * weights finite: the bench's meshes are). False when out of memory. */
static inline bool baseline_prepare(const crowd_mesh *mesh, baseline_prepared *out) {
    memset(out, 0, sizeof *out);
    uint32_t counts[CROWD_MAX_INFLUENCES] = {0};
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        counts[baseline_group_of(mesh, v)]++;
    }
    size_t total = 0;
    for (uint32_t g = 0; g < CROWD_MAX_INFLUENCES; g++) {
        baseline_group *group = &out->groups[g];
        group->influences = g + 1;
        group->vertex_count = counts[g];
        group->block_count = (counts[g] + BASELINE_LANES - 1) / BASELINE_LANES;
        group->block_words =
            (6 * BASELINE_LANES + group->influences * BASELINE_LANES * 3 / 2 + BASELINE_LANES + 7) /
            8 * 8;
        total += (size_t)group->block_count * group->block_words * 4;
    }
    out->block = calloc(1, total + 32);
    if (!out->block) {
        return false;
    }
    unsigned char *cursor = (unsigned char *)(((uintptr_t)out->block + 31) & ~(uintptr_t)31);
    for (uint32_t g = 0; g < CROWD_MAX_INFLUENCES; g++) {
        out->groups[g].blocks = cursor;
        cursor += (size_t)out->groups[g].block_count * out->groups[g].block_words * 4;
    }
    uint32_t filled[CROWD_MAX_INFLUENCES] = {0};
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        baseline_group *group = &out->groups[baseline_group_of(mesh, v)];
        uint32_t index = filled[group->influences - 1]++;
        uint32_t block = index / BASELINE_LANES, lane = index % BASELINE_LANES;
        float *positions = (float *)baseline_block_positions(group, block);
        float *normals = (float *)baseline_block_normals(group, block);
        float *weights = (float *)baseline_block_weights(group, block);
        uint16_t *joints = (uint16_t *)baseline_block_joints(group, block);
        for (int c = 0; c < 3; c++) {
            positions[c * BASELINE_LANES + lane] = mesh->positions[3 * (size_t)v + c];
            normals[c * BASELINE_LANES + lane] = mesh->normals[3 * (size_t)v + c];
        }
        uint32_t slot = 0;
        for (uint32_t i = 0; i < CROWD_MAX_INFLUENCES; i++) {
            float weight = mesh->weights[CROWD_MAX_INFLUENCES * (size_t)v + i];
            if (weight != 0.0f) {
                weights[slot * BASELINE_LANES + lane] = weight;
                joints[slot * BASELINE_LANES + lane] =
                    mesh->joints[CROWD_MAX_INFLUENCES * (size_t)v + i];
                slot++;
            }
        }
        ((uint32_t *)baseline_block_vertices(group, block))[lane] = v;
    }
    return true;
}

static inline void baseline_release(baseline_prepared *prepared) {
    free(prepared->block);
    prepared->block = NULL;
}

#if defined(__x86_64__)
#include <immintrin.h>

static inline bool baseline_supported(void) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

#define BASELINE_AVX2 __attribute__((target("avx2,fma")))
#define BASELINE_INLINE static inline __attribute__((always_inline)) BASELINE_AVX2

BASELINE_INLINE void baseline_store3(float *dst, __m128 v) {
    _mm_storel_pi((__m64 *)(void *)dst, v);
    _mm_store_ss(dst + 2, _mm_movehl_ps(v, v));
}

/* In-lane 4x4 transposes of (a, b, c, d): the two 128-bit halves independently. */
BASELINE_INLINE void baseline_transpose4x2(__m256 *a, __m256 *b, __m256 *c, __m256 *d) {
    __m256 t0 = _mm256_unpacklo_ps(*a, *b), t1 = _mm256_unpackhi_ps(*a, *b);
    __m256 t2 = _mm256_unpacklo_ps(*c, *d), t3 = _mm256_unpackhi_ps(*c, *d);
    *a = _mm256_shuffle_ps(t0, t2, 0x44);
    *b = _mm256_shuffle_ps(t0, t2, 0xEE);
    *c = _mm256_shuffle_ps(t1, t3, 0x44);
    *d = _mm256_shuffle_ps(t1, t3, 0xEE);
}

/* Stores the x, y, z vectors of 8 lanes as float3 at out + 3 * vertices[k]. */
BASELINE_INLINE void baseline_store_lanes(float *out, const uint32_t *vertices, uint32_t lanes,
                                          __m256 x, __m256 y, __m256 z) {
    if (lanes == BASELINE_LANES &&
        vertices[BASELINE_LANES - 1] - vertices[0] == BASELINE_LANES - 1) {
        /* Lanes are consecutive vertices (increasing within a block), the
         * common case: interleave in registers, then three 8-float stores.
         * In each 128-bit half (vertices 0-3 | 4-7): o0 = (x0 y0 z0 x1),
         * o1 = (y1 z1 x2 y2), o2 = (z2 x3 y3 z3). */
        __m256 xy_lo = _mm256_unpacklo_ps(x, y), xy_hi = _mm256_unpackhi_ps(x, y);
        __m256 zx = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0));
        __m256 o0 = _mm256_shuffle_ps(xy_lo, zx, _MM_SHUFFLE(2, 0, 1, 0));
        __m256 yz = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1));
        __m256 o1 = _mm256_shuffle_ps(yz, xy_hi, _MM_SHUFFLE(1, 0, 2, 0));
        __m256 zx3 = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(3, 3, 2, 2));
        __m256 yz3 = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(3, 3, 3, 3));
        __m256 o2 = _mm256_shuffle_ps(zx3, yz3, _MM_SHUFFLE(2, 0, 2, 0));
        float *dst = out + 3 * (size_t)vertices[0];
        _mm256_storeu_ps(dst, _mm256_permute2f128_ps(o0, o1, 0x20));
        _mm256_storeu_ps(dst + 8, _mm256_permute2f128_ps(o2, o0, 0x30));
        _mm256_storeu_ps(dst + 16, _mm256_permute2f128_ps(o1, o2, 0x31));
        return;
    }
    __m256 w = _mm256_setzero_ps();
    baseline_transpose4x2(&x, &y, &z, &w);
    /* Now x = (lane 0 | lane 4), y = (1 | 5), z = (2 | 6), w = (3 | 7). */
    __m128 v[8] = {_mm256_castps256_ps128(x),   _mm256_castps256_ps128(y),
                   _mm256_castps256_ps128(z),   _mm256_castps256_ps128(w),
                   _mm256_extractf128_ps(x, 1), _mm256_extractf128_ps(y, 1),
                   _mm256_extractf128_ps(z, 1), _mm256_extractf128_ps(w, 1)};
    for (uint32_t k = 0; k < lanes; k++) {
        baseline_store3(out + 3 * (size_t)vertices[k], v[k]);
    }
}

BASELINE_INLINE void baseline_skin_block(const baseline_group *group, uint32_t block,
                                         const float *skin_matrices, float *out_positions,
                                         float *out_normals, const uint32_t influences,
                                         const bool normals) {
    const float *weights = baseline_block_weights(group, block);
    const uint16_t *joints = baseline_block_joints(group, block);
    __m256 rows01[8];
    __m128 rows2[8];
    for (int v = 0; v < BASELINE_LANES; v++) {
        const float *m = skin_matrices + 12 * (size_t)joints[v];
        __m256 w = _mm256_broadcast_ss(weights + v);
        __m256 a = _mm256_mul_ps(w, _mm256_loadu_ps(m));
        __m128 b = _mm_mul_ps(_mm256_castps256_ps128(w), _mm_loadu_ps(m + 8));
        for (uint32_t i = 1; i < influences; i++) {
            m = skin_matrices + 12 * (size_t)joints[i * BASELINE_LANES + v];
            w = _mm256_broadcast_ss(weights + i * BASELINE_LANES + v);
            a = _mm256_fmadd_ps(w, _mm256_loadu_ps(m), a);
            b = _mm_fmadd_ps(_mm256_castps256_ps128(w), _mm_loadu_ps(m + 8), b);
        }
        rows01[v] = a;
        rows2[v] = b;
    }
    /* Element k of the blended matrices of all 8 lanes into e[k]. Rows 0-1:
     * in-lane transposes of lanes 0-3 and 4-7 give (row 0 | row 1) halves,
     * recombined across halves. Row 2: pair lanes v and v + 4 first. */
    __m256 e[12];
    baseline_transpose4x2(&rows01[0], &rows01[1], &rows01[2], &rows01[3]);
    baseline_transpose4x2(&rows01[4], &rows01[5], &rows01[6], &rows01[7]);
    for (int k = 0; k < 4; k++) {
        e[k] = _mm256_permute2f128_ps(rows01[k], rows01[4 + k], 0x20);
        e[4 + k] = _mm256_permute2f128_ps(rows01[k], rows01[4 + k], 0x31);
    }
    for (int k = 0; k < 4; k++) {
        e[8 + k] = _mm256_insertf128_ps(_mm256_castps128_ps256(rows2[k]), rows2[4 + k], 1);
    }
    baseline_transpose4x2(&e[8], &e[9], &e[10], &e[11]);

    const float *positions = baseline_block_positions(group, block);
    const uint32_t *vertices = baseline_block_vertices(group, block);
    uint32_t lanes = baseline_block_lanes(group, block);
    __m256 px = _mm256_load_ps(positions), py = _mm256_load_ps(positions + BASELINE_LANES),
           pz = _mm256_load_ps(positions + 2 * BASELINE_LANES);
    /* The reference's order (x, y, z terms, then the translation): real
     * meshes far from their origin cancel large terms, and summing in
     * another order doubles the (tiny) disagreement there. */
    __m256 x = _mm256_add_ps(
        _mm256_fmadd_ps(e[2], pz, _mm256_fmadd_ps(e[1], py, _mm256_mul_ps(e[0], px))), e[3]);
    __m256 y = _mm256_add_ps(
        _mm256_fmadd_ps(e[6], pz, _mm256_fmadd_ps(e[5], py, _mm256_mul_ps(e[4], px))), e[7]);
    __m256 z = _mm256_add_ps(
        _mm256_fmadd_ps(e[10], pz, _mm256_fmadd_ps(e[9], py, _mm256_mul_ps(e[8], px))), e[11]);
    baseline_store_lanes(out_positions, vertices, lanes, x, y, z);
    if (normals) {
        const float *nrm = baseline_block_normals(group, block);
        __m256 nx = _mm256_load_ps(nrm), ny = _mm256_load_ps(nrm + BASELINE_LANES),
               nz = _mm256_load_ps(nrm + 2 * BASELINE_LANES);
        x = _mm256_fmadd_ps(e[2], nz, _mm256_fmadd_ps(e[1], ny, _mm256_mul_ps(e[0], nx)));
        y = _mm256_fmadd_ps(e[6], nz, _mm256_fmadd_ps(e[5], ny, _mm256_mul_ps(e[4], nx)));
        z = _mm256_fmadd_ps(e[10], nz, _mm256_fmadd_ps(e[9], ny, _mm256_mul_ps(e[8], nx)));
        __m256 length2 = _mm256_fmadd_ps(z, z, _mm256_fmadd_ps(y, y, _mm256_mul_ps(x, x)));
        /* A zero-length result stays zero instead of 0 * inf = NaN. */
        __m256 scale = _mm256_and_ps(_mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(length2)),
                                     _mm256_cmp_ps(length2, _mm256_setzero_ps(), _CMP_GT_OQ));
        baseline_store_lanes(out_normals, vertices, lanes, _mm256_mul_ps(x, scale),
                             _mm256_mul_ps(y, scale), _mm256_mul_ps(z, scale));
    }
}

BASELINE_INLINE void baseline_skin_blocks(const baseline_group *group, uint32_t begin, uint32_t end,
                                          const float *skin_matrices, float *out_positions,
                                          float *out_normals, const uint32_t influences,
                                          const bool normals) {
    for (uint32_t b = begin; b < end; b++) {
        baseline_skin_block(group, b, skin_matrices, out_positions, out_normals, influences,
                            normals);
    }
}

/* Skins every vertex of the old layout; out_normals may be NULL. Not
 * inlined, so that callgrind can count it alone (--toggle-collect). */
__attribute__((noinline)) BASELINE_AVX2 static void
baseline_skin_avx2(const baseline_prepared *prepared, const float *skin_matrices,
                   float *out_positions, float *out_normals) {
    for (uint32_t g = 0; g < CROWD_MAX_INFLUENCES; g++) {
        const baseline_group *group = &prepared->groups[g];
#define BASELINE_CASE(n)                                                                           \
    case n:                                                                                        \
        if (out_normals) {                                                                         \
            baseline_skin_blocks(group, 0, group->block_count, skin_matrices, out_positions,       \
                                 out_normals, n, true);                                            \
        } else {                                                                                   \
            baseline_skin_blocks(group, 0, group->block_count, skin_matrices, out_positions, NULL, \
                                 n, false);                                                        \
        }                                                                                          \
        break;
        switch (group->influences) {
            BASELINE_CASE(1)
            BASELINE_CASE(2)
            BASELINE_CASE(3)
            BASELINE_CASE(4)
        default:
            break;
        }
#undef BASELINE_CASE
    }
}

#else
static inline bool baseline_supported(void) {
    return false;
}
static inline void baseline_skin_avx2(const baseline_prepared *prepared, const float *skin_matrices,
                                      float *out_positions, float *out_normals) {
    (void)prepared, (void)skin_matrices, (void)out_positions, (void)out_normals;
}
#endif

#endif
