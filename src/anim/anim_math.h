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

/* sin(t * theta) / sin(theta) as a polynomial in x = cos(theta) - 1, for
 * x in [-1, 0] (theta in [0, pi/2] once on the shortest arc). This is David
 * Eberly's "A Fast and Accurate Algorithm for Computing SLERP" (2011): the
 * series sum b_i(t) x^i with b_0 = t, b_i = b_{i-1} (t^2 - i^2) / (i (2i + 1)),
 * cut after 8 terms with the last one scaled by mu to cancel most of the
 * truncation error. It avoids acos/sin (the cost of slerp) while staying
 * within about 1e-6 of trigonometric slerp for theta up to about 53 degrees
 * (checked in tests/anim). */
static inline float anim_slerp_weight(float t, float x) {
    static const float u[8] = {
        1.0f / (1 * 3), 1.0f / (2 * 5), 1.0f / (3 * 7),  1.0f / (4 * 9),
        1.0f / (5 * 11), 1.0f / (6 * 13), 1.0f / (7 * 15), 1.85298109240830f / (8 * 17),
    };
    static const float v[8] = {
        1.0f / 3, 2.0f / 5, 3.0f / 7,  4.0f / 9,
        5.0f / 11, 6.0f / 13, 7.0f / 15, 1.85298109240830f * 8 / 17,
    };
    float t2 = t * t;
    float f = 1.0f;
    for (int i = 7; i >= 0; i--) {
        f = 1.0f + (u[i] * t2 - v[i]) * x * f;
    }
    return t * f;
}

/* Spherical linear interpolation from a to b along the shortest arc. At
 * t == 0 the result is a exactly (the polynomial's first factor vanishes
 * at t = 1 and the weight of b is 0 * ...). Keys further apart than about
 * 53 degrees (rare: a rotation of over 106 degrees between two keys) take
 * the trigonometric formula, where the polynomial's error would pass 1e-6. */
static inline void anim_quat_slerp(const float *a, const float *b, float t, float *out) {
    float d = anim_quat_dot(a, b);
    float sign = d < 0.0f ? -1.0f : 1.0f;
    float cos_theta = d * sign;
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
    if (cos_theta >= 0.6f) {
        float x = cos_theta - 1.0f;
        wa = anim_slerp_weight(1.0f - t, x);
        wb = anim_slerp_weight(t, x) * sign;
    } else {
        float theta = acosf(cos_theta);
        float inv_sin = 1.0f / sinf(theta);
        wa = sinf((1.0f - t) * theta) * inv_sin;
        wb = sinf(t * theta) * inv_sin * sign;
    }
    for (int i = 0; i < 4; i++) {
        out[i] = wa * a[i] + wb * b[i];
    }
}

/* Column-major matrix of translation * rotation * scale. */
static inline void anim_trs_to_mat4(const float *t, const float *q, const float *s, float *m) {
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z;
    float xy = x * y, xz = x * z, yz = y * z;
    float wx = w * x, wy = w * y, wz = w * z;
    m[0] = (1.0f - 2.0f * (yy + zz)) * s[0];
    m[1] = 2.0f * (xy + wz) * s[0];
    m[2] = 2.0f * (xz - wy) * s[0];
    m[3] = 0.0f;
    m[4] = 2.0f * (xy - wz) * s[1];
    m[5] = (1.0f - 2.0f * (xx + zz)) * s[1];
    m[6] = 2.0f * (yz + wx) * s[1];
    m[7] = 0.0f;
    m[8] = 2.0f * (xz + wy) * s[2];
    m[9] = 2.0f * (yz - wx) * s[2];
    m[10] = (1.0f - 2.0f * (xx + yy)) * s[2];
    m[11] = 0.0f;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1.0f;
}

/* out = a * b for a general a and an affine b (last row 0 0 0 1). out must
 * not alias a or b. */
static inline void anim_mat4_mul_affine(const float *a, const float *b, float *out) {
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 4; r++) {
            out[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2];
        }
    }
    for (int r = 0; r < 4; r++) {
        out[12 + r] = a[r] * b[12] + a[4 + r] * b[13] + a[8 + r] * b[14] + a[12 + r];
    }
}

/* out = a * b for general 4x4 matrices; out must not alias a or b. */
static inline void anim_mat4_mul(const float *a, const float *b, float *out) {
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            out[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] +
                             a[12 + r] * b[4 * c + 3];
        }
    }
}

#endif
