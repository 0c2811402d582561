/* The SSE2 path, the x86-64 baseline: 4 vertices at a time (half a block).
 *
 * Each vertex's 3x4 matrix is blended row by row from its joints' matrices
 * (loads straight from the caller's palette, no per-frame conversion), then
 * the four blended matrices are transposed so that the transform, the
 * normalization and the normal maths run across the 4 vertices. Results are
 * transposed back and stored as float3 at each vertex's own index. The
 * influence count and whether normals are wanted are compile-time constants
 * of each loop instance (always_inline helpers called with literals). */
#include "skin/prepared.h"

#if SKIN_X86
#include <emmintrin.h>
#include <stdbool.h>

#define INLINE static inline __attribute__((always_inline))

INLINE void store3(float *dst, __m128 v) {
    _mm_storel_pi((__m64 *)(void *)dst, v);
    _mm_store_ss(dst + 2, _mm_movehl_ps(v, v));
}

/* Stores the x, y, z vectors of 4 lanes as float3 at out + 3 * vertices[k]. */
INLINE void store_lanes(float *out, const uint32_t *vertices, uint32_t count, __m128 x, __m128 y,
                        __m128 z) {
    if (count == 4 && vertices[3] - vertices[0] == 3) {
        /* Consecutive vertices (increasing within a block), the common case:
         * interleave to (x0 y0 z0 x1) (y1 z1 x2 y2) (z2 x3 y3 z3), three stores. */
        __m128 xy_lo = _mm_unpacklo_ps(x, y), xy_hi = _mm_unpackhi_ps(x, y);
        __m128 zx = _mm_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0));
        __m128 yz = _mm_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1));
        __m128 zx3 = _mm_shuffle_ps(z, x, _MM_SHUFFLE(3, 3, 2, 2));
        __m128 yz3 = _mm_shuffle_ps(y, z, _MM_SHUFFLE(3, 3, 3, 3));
        float *dst = out + 3 * (size_t)vertices[0];
        _mm_storeu_ps(dst, _mm_shuffle_ps(xy_lo, zx, _MM_SHUFFLE(2, 0, 1, 0)));
        _mm_storeu_ps(dst + 4, _mm_shuffle_ps(yz, xy_hi, _MM_SHUFFLE(1, 0, 2, 0)));
        _mm_storeu_ps(dst + 8, _mm_shuffle_ps(zx3, yz3, _MM_SHUFFLE(2, 0, 2, 0)));
        return;
    }
    __m128 w = _mm_setzero_ps();
    _MM_TRANSPOSE4_PS(x, y, z, w);
    store3(out + 3 * (size_t)vertices[0], x);
    if (count > 1) {
        store3(out + 3 * (size_t)vertices[1], y);
    }
    if (count > 2) {
        store3(out + 3 * (size_t)vertices[2], z);
    }
    if (count > 3) {
        store3(out + 3 * (size_t)vertices[3], w);
    }
}

/* Lanes [base, base + 4) of one block: `count` of them are real vertices. */
INLINE void skin_half(const skin_group *group, uint32_t block, uint32_t base, uint32_t count,
                      const float *skin_matrices, float *out_positions, float *out_normals,
                      const uint32_t influences, const bool normals) {
    const float *weights = skin_block_weights(group, block) + base;
    const uint32_t *offsets = skin_block_offsets(group, block) + base;
    __m128 r0[4], r1[4], r2[4];
    for (int v = 0; v < 4; v++) {
        const float *m = skin_matrices + offsets[v];
        __m128 w = _mm_set1_ps(weights[v]);
        r0[v] = _mm_mul_ps(w, _mm_loadu_ps(m));
        r1[v] = _mm_mul_ps(w, _mm_loadu_ps(m + 4));
        r2[v] = _mm_mul_ps(w, _mm_loadu_ps(m + 8));
        for (uint32_t i = 1; i < influences; i++) {
            m = skin_matrices + offsets[i * SKIN_LANES + v];
            w = _mm_set1_ps(weights[i * SKIN_LANES + v]);
            r0[v] = _mm_add_ps(r0[v], _mm_mul_ps(w, _mm_loadu_ps(m)));
            r1[v] = _mm_add_ps(r1[v], _mm_mul_ps(w, _mm_loadu_ps(m + 4)));
            r2[v] = _mm_add_ps(r2[v], _mm_mul_ps(w, _mm_loadu_ps(m + 8)));
        }
    }
    /* After these, r0[k] holds element (0, k) of the 4 lanes' matrices. */
    _MM_TRANSPOSE4_PS(r0[0], r0[1], r0[2], r0[3]);
    _MM_TRANSPOSE4_PS(r1[0], r1[1], r1[2], r1[3]);
    _MM_TRANSPOSE4_PS(r2[0], r2[1], r2[2], r2[3]);

    const float *positions = skin_block_positions(group, block) + base;
    const uint32_t *vertices = skin_block_vertices(group, block) + base;
    __m128 px = _mm_load_ps(positions), py = _mm_load_ps(positions + SKIN_LANES),
           pz = _mm_load_ps(positions + 2 * SKIN_LANES);
    /* The reference's order of operations, so results agree to the bit:
     * real meshes far from their origin (FBX in centimetres) cancel large
     * terms, and a different order would show as errors of 1e-5 there. */
    __m128 x = _mm_add_ps(
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(r0[0], px), _mm_mul_ps(r0[1], py)), _mm_mul_ps(r0[2], pz)),
        r0[3]);
    __m128 y = _mm_add_ps(
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(r1[0], px), _mm_mul_ps(r1[1], py)), _mm_mul_ps(r1[2], pz)),
        r1[3]);
    __m128 z = _mm_add_ps(
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(r2[0], px), _mm_mul_ps(r2[1], py)), _mm_mul_ps(r2[2], pz)),
        r2[3]);
    store_lanes(out_positions, vertices, count, x, y, z);
    if (normals) {
        const float *nrm = skin_block_normals(group, block) + base;
        __m128 nx = _mm_load_ps(nrm), ny = _mm_load_ps(nrm + SKIN_LANES),
               nz = _mm_load_ps(nrm + 2 * SKIN_LANES);
        x = _mm_add_ps(_mm_add_ps(_mm_mul_ps(r0[0], nx), _mm_mul_ps(r0[1], ny)),
                       _mm_mul_ps(r0[2], nz));
        y = _mm_add_ps(_mm_add_ps(_mm_mul_ps(r1[0], nx), _mm_mul_ps(r1[1], ny)),
                       _mm_mul_ps(r1[2], nz));
        z = _mm_add_ps(_mm_add_ps(_mm_mul_ps(r2[0], nx), _mm_mul_ps(r2[1], ny)),
                       _mm_mul_ps(r2[2], nz));
        __m128 length2 =
            _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z));
        /* A zero-length result stays zero instead of 0 * inf = NaN. */
        __m128 scale = _mm_and_ps(_mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(length2)),
                                  _mm_cmpgt_ps(length2, _mm_setzero_ps()));
        store_lanes(out_normals, vertices, count, _mm_mul_ps(x, scale), _mm_mul_ps(y, scale),
                    _mm_mul_ps(z, scale));
    }
}

INLINE void skin_blocks(const skin_group *group, uint32_t begin, uint32_t end,
                        const float *skin_matrices, float *out_positions, float *out_normals,
                        const uint32_t influences, const bool normals) {
    for (uint32_t b = begin; b < end; b++) {
        uint32_t lanes = skin_block_lanes(group, b);
        skin_half(group, b, 0, lanes < 4 ? lanes : 4, skin_matrices, out_positions, out_normals,
                  influences, normals);
        if (lanes > 4) {
            skin_half(group, b, 4, lanes - 4, skin_matrices, out_positions, out_normals, influences,
                      normals);
        }
    }
}

void crowd__skin_kernel_sse2(const skin_group *group, uint32_t begin, uint32_t end,
                             const float *skin_matrices, float *out_positions, float *out_normals) {
#define SKIN_CASE(n)                                                                               \
    case n:                                                                                        \
        if (out_normals) {                                                                         \
            skin_blocks(group, begin, end, skin_matrices, out_positions, out_normals, n, true);    \
        } else {                                                                                   \
            skin_blocks(group, begin, end, skin_matrices, out_positions, NULL, n, false);          \
        }                                                                                          \
        break;
    switch (group->influences) {
        SKIN_CASE(1)
        SKIN_CASE(2)
        SKIN_CASE(3)
        SKIN_CASE(4)
    default:
        break;
    }
#undef SKIN_CASE
}

#endif
