/* anim_math.h - small inline maths shared by the anim jobs (private).
 *
 * Kept inline and free of cglm types so the hot loops of sampling, blending
 * and the hierarchy walk compile to straight-line code without calls.
 * Matrices are column-major float[16]; quaternions (x, y, z, w).
 */
#ifndef CROWD_ANIM_MATH_H
#define CROWD_ANIM_MATH_H

#include <math.h>

static inline float anim_quat_dot(const float *a, const float *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

/* Normalizes q in place; a zero quaternion becomes identity rather than NaN. */
static inline void anim_quat_normalize(float *q) {
    float len2 = anim_quat_dot(q, q);
    if (!(len2 > 0.0f)) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int i = 0; i < 4; i++) {
        q[i] *= inv;
    }
}

/* sin(t * theta) / sin(theta) as a polynomial in x = cos(theta) - 1: the
 * series sum b_i(t) x^i with b_0 = t, b_i = b_{i-1} (t^2 - i^2) / (i (2i + 1))
 * (David Eberly, "A Fast and Accurate Algorithm for Computing SLERP", 2011),
 * cut after `terms` factors. Measured in double precision against the
 * trigonometric formula, the truncation error stays under 1e-7 for theta up
 * to 10.6 degrees with 2 terms, 28.3 with 4 and 54.8 with 8; anim_quat_slerp
 * picks the count from x, so slerp costs a few multiply-adds and no acos or
 * sin for keys as close as animation keys usually are. */
static inline float anim_slerp_weight(float t, float x, int terms) {
    static const float u[8] = {
        1.0f / (1 * 3),  1.0f / (2 * 5),  1.0f / (3 * 7),  1.0f / (4 * 9),
        1.0f / (5 * 11), 1.0f / (6 * 13), 1.0f / (7 * 15), 1.0f / (8 * 17),
    };
    static const float v[8] = {
        1.0f / 3, 2.0f / 5, 3.0f / 7, 4.0f / 9, 5.0f / 11, 6.0f / 13, 7.0f / 15, 8.0f / 17,
    };
    float t2 = t * t;
    float f = 1.0f;
    for (int i = terms - 1; i >= 0; i--) {
        f = 1.0f + (u[i] * t2 - v[i]) * x * f;
    }
    return t * f;
}

/* Spherical linear interpolation from a to b along the shortest arc. On
 * the polynomial paths t == 0 gives a exactly (b_1(1) = 0 makes the weight
 * of a exactly 1, and the weight of b is 0 * ...). Keys further apart than
 * about 53 degrees (a rotation of over 106 degrees between two keys: rare)
 * take the trigonometric formula. */
static inline void anim_quat_slerp(const float *a, const float *b, float t, float *out) {
    float d = anim_quat_dot(a, b);
    float sign = d < 0.0f ? -1.0f : 1.0f;
    float cos_theta = d * sign;
    float x = cos_theta - 1.0f;
    float wa, wb;
    if (cos_theta >= 0.9999996f) {
        /* Equal keys (common: exporters write constant tracks) must give the
         * key bit for bit, which a + (b - a) t does and weights do not. The
         * dot of a unit quaternion with itself is only 1 within a few ulps;
         * below this threshold (under 0.001 rad apart) lerp stays within
         * 1.3e-7 of unit length and of slerp. */
        for (int i = 0; i < 4; i++) {
            out[i] = a[i] + (sign * b[i] - a[i]) * t;
        }
        return;
    }
    if (x >= -0.017f) {
        wa = anim_slerp_weight(1.0f - t, x, 2);
        wb = anim_slerp_weight(t, x, 2);
    } else if (x >= -0.12f) {
        wa = anim_slerp_weight(1.0f - t, x, 4);
        wb = anim_slerp_weight(t, x, 4);
    } else if (x >= -0.4f) {
        wa = anim_slerp_weight(1.0f - t, x, 8);
        wb = anim_slerp_weight(t, x, 8);
    } else {
        float theta = acosf(cos_theta);
        float inv_sin = 1.0f / sinf(theta);
        wa = sinf((1.0f - t) * theta) * inv_sin;
        wb = sinf(t * theta) * inv_sin;
    }
    wb *= sign;
    for (int i = 0; i < 4; i++) {
        out[i] = wa * a[i] + wb * b[i];
    }
}

/* The 3x3 linear part of a joint's local matrix, rotation * scale, as three
 * columns. */
static inline void anim_rotation_scale(const float *q, const float *s, float *m) {
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z;
    float xy = x * y, xz = x * z, yz = y * z;
    float wx = w * x, wy = w * y, wz = w * z;
    m[0] = (1.0f - 2.0f * (yy + zz)) * s[0];
    m[1] = 2.0f * (xy + wz) * s[0];
    m[2] = 2.0f * (xz - wy) * s[0];
    m[3] = 2.0f * (xy - wz) * s[1];
    m[4] = (1.0f - 2.0f * (xx + zz)) * s[1];
    m[5] = 2.0f * (yz + wx) * s[1];
    m[6] = 2.0f * (xz + wy) * s[2];
    m[7] = 2.0f * (yz - wx) * s[2];
    m[8] = (1.0f - 2.0f * (xx + yy)) * s[2];
}

#if defined(__SSE__) && !defined(CROWD_ANIM_SCALAR)
/* SSE on x86 (every x86-64 has it), where a column-at-a-time product halves
 * the cost of the hierarchy walk and the skinning matrices; plain C
 * elsewhere, or when CROWD_ANIM_SCALAR is defined (tests build both). */
#include <xmmintrin.h>

/* The four columns of a * b (column-major 4x4s) in registers. */
static inline void anim_mat4_mul_columns(const float *a, const float *b, __m128 col[4]) {
    __m128 a0 = _mm_loadu_ps(a);
    __m128 a1 = _mm_loadu_ps(a + 4);
    __m128 a2 = _mm_loadu_ps(a + 8);
    __m128 a3 = _mm_loadu_ps(a + 12);
    for (int c = 0; c < 4; c++) {
        col[c] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(b[4 * c])),
                                       _mm_mul_ps(a1, _mm_set1_ps(b[4 * c + 1]))),
                            _mm_add_ps(_mm_mul_ps(a2, _mm_set1_ps(b[4 * c + 2])),
                                       _mm_mul_ps(a3, _mm_set1_ps(b[4 * c + 3]))));
    }
}

/* out = a * b for general column-major 4x4 matrices; out may alias a or b. */
static inline void anim_mat4_mul(const float *a, const float *b, float *out) {
    __m128 col[4];
    anim_mat4_mul_columns(a, b, col);
    for (int c = 0; c < 4; c++) {
        _mm_storeu_ps(out + 4 * c, col[c]);
    }
}

/* out = a * [l t; 0 1], the local matrix given as its 3x3 linear part (three
 * columns l) and translation t; out may alias a. */
static inline void anim_mat4_mul_local(const float *a, const float *l, const float *t, float *out) {
    __m128 a0 = _mm_loadu_ps(a);
    __m128 a1 = _mm_loadu_ps(a + 4);
    __m128 a2 = _mm_loadu_ps(a + 8);
    __m128 a3 = _mm_loadu_ps(a + 12);
    __m128 col[4];
    for (int c = 0; c < 3; c++) {
        col[c] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(l[3 * c])),
                                       _mm_mul_ps(a1, _mm_set1_ps(l[3 * c + 1]))),
                            _mm_mul_ps(a2, _mm_set1_ps(l[3 * c + 2])));
    }
    col[3] =
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(t[0])), _mm_mul_ps(a1, _mm_set1_ps(t[1]))),
                   _mm_add_ps(_mm_mul_ps(a2, _mm_set1_ps(t[2])), a3));
    for (int c = 0; c < 4; c++) {
        _mm_storeu_ps(out + 4 * c, col[c]);
    }
}

/* The top three rows of a * b (column-major 4x4s), written row-major as a
 * 3x4: the skinning-matrix layout. */
static inline void anim_mat4_mul_rows(const float *a, const float *b, float *out_rows) {
    __m128 col[4];
    anim_mat4_mul_columns(a, b, col);
    _MM_TRANSPOSE4_PS(col[0], col[1], col[2], col[3]);
    for (int r = 0; r < 3; r++) {
        _mm_storeu_ps(out_rows + 4 * r, col[r]);
    }
}
#else
static inline void anim_mat4_mul(const float *a, const float *b, float *out) {
    float result[16];
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            result[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] +
                                a[8 + r] * b[4 * c + 2] + a[12 + r] * b[4 * c + 3];
        }
    }
    for (int i = 0; i < 16; i++) {
        out[i] = result[i];
    }
}

static inline void anim_mat4_mul_local(const float *a, const float *l, const float *t, float *out) {
    float result[16];
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 4; r++) {
            result[4 * c + r] = a[r] * l[3 * c] + a[4 + r] * l[3 * c + 1] + a[8 + r] * l[3 * c + 2];
        }
    }
    for (int r = 0; r < 4; r++) {
        result[12 + r] = a[r] * t[0] + a[4 + r] * t[1] + a[8 + r] * t[2] + a[12 + r];
    }
    for (int i = 0; i < 16; i++) {
        out[i] = result[i];
    }
}

static inline void anim_mat4_mul_rows(const float *a, const float *b, float *out_rows) {
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 4; c++) {
            out_rows[4 * r + c] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] +
                                  a[8 + r] * b[4 * c + 2] + a[12 + r] * b[4 * c + 3];
        }
    }
}
#endif

#endif
