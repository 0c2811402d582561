/* The AVX2+FMA path: one block of 8 vertices at a time.
 *
 * Each vertex's matrix is blended with FMAs as one 8-float register (rows 0
 * and 1, which are contiguous in the palette) plus one 4-float register
 * (row 2), so a joint costs two loads and two FMAs. The 8 blended matrices
 * are then transposed to one register per matrix element, the transform and
 * the normalization run across the 8 vertices, and the results are
 * transposed back and stored as float3 at each vertex's own index.
 *
 * What makes it fast (issue 21: 1.04-1.21x the kernel before it, 1.20x at
 * 4 influences with normals; bench_skin still runs the old one from
 * bench/skin_baseline.h, alternating with this one): the palette offsets
 * are precomputed in the layout, each matrix address is one add kept out
 * of the FMAs' operands (joint_matrix), the 8-lane blend is unrolled so
 * the blended rows stay in registers, rigid blocks skip the blend, the
 * translation is an FMA addend, and blocks of 2+ influences are blended
 * two at a time (skin_blocks).
 *
 * Every function carries target("avx2,fma") instead of the whole file being
 * compiled with -mavx2, so this object links into binaries for any x86-64;
 * prepared.c only calls it after cpuid said yes. */
#include "skin/prepared.h"

#if SKIN_X86
#include <immintrin.h>
#include <stdbool.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define INLINE static inline __attribute__((always_inline)) AVX2

INLINE void store3(float *dst, __m128 v) {
    _mm_storel_pi((__m64 *)(void *)dst, v);
    _mm_store_ss(dst + 2, _mm_movehl_ps(v, v));
}

/* In-lane 4x4 transposes of (a, b, c, d): the two 128-bit halves independently. */
INLINE void transpose4x2(__m256 *a, __m256 *b, __m256 *c, __m256 *d) {
    __m256 t0 = _mm256_unpacklo_ps(*a, *b), t1 = _mm256_unpackhi_ps(*a, *b);
    __m256 t2 = _mm256_unpacklo_ps(*c, *d), t3 = _mm256_unpackhi_ps(*c, *d);
    *a = _mm256_shuffle_ps(t0, t2, 0x44);
    *b = _mm256_shuffle_ps(t0, t2, 0xEE);
    *c = _mm256_shuffle_ps(t1, t3, 0x44);
    *d = _mm256_shuffle_ps(t1, t3, 0xEE);
}

/* Stores the x, y, z vectors of 8 lanes as float3 at out + 3 * vertices[k]. */
INLINE void store_lanes(float *out, const uint32_t *vertices, uint32_t lanes, __m256 x, __m256 y,
                        __m256 z) {
    if (lanes == SKIN_LANES && vertices[SKIN_LANES - 1] - vertices[0] == SKIN_LANES - 1) {
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
    transpose4x2(&x, &y, &z, &w);
    /* Now x = (lane 0 | lane 4), y = (1 | 5), z = (2 | 6), w = (3 | 7). */
    __m128 v[8] = {_mm256_castps256_ps128(x),   _mm256_castps256_ps128(y),
                   _mm256_castps256_ps128(z),   _mm256_castps256_ps128(w),
                   _mm256_extractf128_ps(x, 1), _mm256_extractf128_ps(y, 1),
                   _mm256_extractf128_ps(z, 1), _mm256_extractf128_ps(w, 1)};
    for (uint32_t k = 0; k < lanes; k++) {
        store3(out + 3 * (size_t)vertices[k], v[k]);
    }
}

/* The start of one lane's matrix for one influence, in a register of its
 * own. WHY the empty asm: GCC would otherwise fold base + offset into both
 * palette loads as an indexed address ([base + index * 4]); on Intel cores
 * a VEX FMA with an indexed memory operand is split back into two uops
 * ("unlaminated"), one more per load. Computing the pointer once (one add)
 * lets both FMAs take a plain [pointer] operand and stay single uops. */
INLINE const float *joint_matrix(const float *skin_matrices, uint32_t offset) {
    const float *m = skin_matrices + offset;
    __asm__("" : "+r"(m));
    return m;
}

/* Element k of the blended matrices of all 8 lanes into e[k]. Rows 0-1:
 * in-lane transposes of lanes 0-3 and 4-7 give (row 0 | row 1) halves,
 * recombined across halves. Row 2: pair lanes v and v + 4 first. */
INLINE void transpose_matrices(__m256 rows01[8], const __m128 rows2[8], __m256 e[12]) {
    transpose4x2(&rows01[0], &rows01[1], &rows01[2], &rows01[3]);
    transpose4x2(&rows01[4], &rows01[5], &rows01[6], &rows01[7]);
    for (int k = 0; k < 4; k++) {
        e[k] = _mm256_permute2f128_ps(rows01[k], rows01[4 + k], 0x20);
        e[4 + k] = _mm256_permute2f128_ps(rows01[k], rows01[4 + k], 0x31);
    }
    for (int k = 0; k < 4; k++) {
        e[8 + k] = _mm256_insertf128_ps(_mm256_castps128_ps256(rows2[k]), rows2[4 + k], 1);
    }
    transpose4x2(&e[8], &e[9], &e[10], &e[11]);
}

/* The blended matrices of one block's 8 lanes, element by element: e[k]
 * holds matrix element k (row-major 3x4) of every lane. */
INLINE void blend_block(const skin_group *group, uint32_t block, const float *skin_matrices,
                        const uint32_t influences, __m256 e[12]) {
    const float *weights = skin_block_weights(group, block);
    const uint32_t *offsets = skin_block_offsets(group, block);
    __m256 rows01[8];
    __m128 rows2[8];
    /* Rigid vertices (one influence of weight 1, most of a typical
     * character: 89 % of robot.glb) take their joint's matrix as it is:
     * 1 * x == x, so this is the same result without the broadcasts and
     * multiplies. A partial block's padding lanes weigh 0 and take the
     * general path. */
    if (influences == 1 &&
        _mm256_movemask_ps(
            _mm256_cmp_ps(_mm256_load_ps(weights), _mm256_set1_ps(1.0f), _CMP_EQ_OQ)) == 0xFF) {
        for (int v = 0; v < SKIN_LANES; v++) {
            const float *m = joint_matrix(skin_matrices, offsets[v]);
            rows01[v] = _mm256_loadu_ps(m);
            rows2[v] = _mm_loadu_ps(m + 8);
        }
        transpose_matrices(rows01, rows2, e);
        return;
    }
    /* Fully unrolled on purpose: GCC keeps the 4-influence loop rolled,
     * which sends all 16 blended rows through the stack and back, a sixth
     * more loads on the ports this kernel is bound by. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
    for (int v = 0; v < SKIN_LANES; v++) {
        const float *m = joint_matrix(skin_matrices, offsets[v]);
        __m256 w = _mm256_broadcast_ss(weights + v);
        __m256 a = _mm256_mul_ps(w, _mm256_loadu_ps(m));
        __m128 b = _mm_mul_ps(_mm256_castps256_ps128(w), _mm_loadu_ps(m + 8));
        for (uint32_t i = 1; i < influences; i++) {
            m = joint_matrix(skin_matrices, offsets[i * SKIN_LANES + v]);
            w = _mm256_broadcast_ss(weights + i * SKIN_LANES + v);
            a = _mm256_fmadd_ps(w, _mm256_loadu_ps(m), a);
            b = _mm_fmadd_ps(_mm256_castps256_ps128(w), _mm_loadu_ps(m + 8), b);
        }
        rows01[v] = a;
        rows2[v] = b;
    }
    transpose_matrices(rows01, rows2, e);
}

/* Transforms one block's positions (and normals) by its blended matrices
 * and stores them at the lanes' vertices. */
INLINE void transform_block(const skin_group *group, uint32_t block, const __m256 e[12],
                            float *out_positions, float *out_normals, const bool normals) {
    const float *positions = skin_block_positions(group, block);
    const uint32_t *vertices = skin_block_vertices(group, block);
    uint32_t lanes = skin_block_lanes(group, block);
    __m256 px = _mm256_load_ps(positions), py = _mm256_load_ps(positions + SKIN_LANES),
           pz = _mm256_load_ps(positions + 2 * SKIN_LANES);
    /* The translation first, as the FMAs' addend: three operations per
     * coordinate instead of four (and one step less of latency). Not the
     * reference's order (terms, then the translation), so it rounds a
     * little differently where large terms cancel: 1.8e-7 of the bounds
     * diagonal at worst on the real characters, against 1.6e-7. */
    __m256 x =
        _mm256_fmadd_ps(e[2], pz, _mm256_fmadd_ps(e[1], py, _mm256_fmadd_ps(e[0], px, e[3])));
    __m256 y =
        _mm256_fmadd_ps(e[6], pz, _mm256_fmadd_ps(e[5], py, _mm256_fmadd_ps(e[4], px, e[7])));
    __m256 z =
        _mm256_fmadd_ps(e[10], pz, _mm256_fmadd_ps(e[9], py, _mm256_fmadd_ps(e[8], px, e[11])));
    store_lanes(out_positions, vertices, lanes, x, y, z);
    if (normals) {
        const float *nrm = skin_block_normals(group, block);
        __m256 nx = _mm256_load_ps(nrm), ny = _mm256_load_ps(nrm + SKIN_LANES),
               nz = _mm256_load_ps(nrm + 2 * SKIN_LANES);
        x = _mm256_fmadd_ps(e[2], nz, _mm256_fmadd_ps(e[1], ny, _mm256_mul_ps(e[0], nx)));
        y = _mm256_fmadd_ps(e[6], nz, _mm256_fmadd_ps(e[5], ny, _mm256_mul_ps(e[4], nx)));
        z = _mm256_fmadd_ps(e[10], nz, _mm256_fmadd_ps(e[9], ny, _mm256_mul_ps(e[8], nx)));
        __m256 length2 = _mm256_fmadd_ps(z, z, _mm256_fmadd_ps(y, y, _mm256_mul_ps(x, x)));
        /* A zero-length result stays zero instead of 0 * inf = NaN. */
        __m256 scale = _mm256_and_ps(_mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(length2)),
                                     _mm256_cmp_ps(length2, _mm256_setzero_ps(), _CMP_GT_OQ));
        store_lanes(out_normals, vertices, lanes, _mm256_mul_ps(x, scale), _mm256_mul_ps(y, scale),
                    _mm256_mul_ps(z, scale));
    }
}

INLINE void skin_blocks(const skin_group *group, uint32_t begin, uint32_t end,
                        const float *skin_matrices, float *out_positions, float *out_normals,
                        const uint32_t influences, const bool normals) {
    uint32_t b = begin;
    /* Two blocks per turn, both blends first: one block is a long chain
     * (loads, blend, transposes, transform, square root, division), and
     * starting the next block's independent loads and FMAs before the
     * chain's tail gives the out-of-order core work when its window is
     * short (a hyperthread sibling busy, or a smaller core): measured 1.1x
     * at 2 and 4 influences then, the same otherwise. One influence gains
     * nothing (its blend is short), so it keeps the simple loop. */
    for (; influences >= 2 && b + 1 < end; b += 2) {
        __m256 first[12], second[12];
        blend_block(group, b, skin_matrices, influences, first);
        blend_block(group, b + 1, skin_matrices, influences, second);
        transform_block(group, b, first, out_positions, out_normals, normals);
        transform_block(group, b + 1, second, out_positions, out_normals, normals);
    }
    for (; b < end; b++) {
        __m256 e[12];
        blend_block(group, b, skin_matrices, influences, e);
        transform_block(group, b, e, out_positions, out_normals, normals);
    }
}

AVX2 void crowd__skin_kernel_avx2(const skin_group *group, uint32_t begin, uint32_t end,
                                  const float *skin_matrices, float *out_positions,
                                  float *out_normals) {
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
