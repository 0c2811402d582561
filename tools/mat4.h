/* mat4.h - the two column-major 4x4 matrix operations the CLI's own
 * drawing needs (crowd takes view and projection apart; the ground and the
 * shadow map want them multiplied, and points carried into light space). */
#ifndef CROWD_TOOLS_MAT4_H
#define CROWD_TOOLS_MAT4_H

/* out = a x b (out may not alias a or b). */
static inline void mat4_mul(const float a[16], const float b[16], float out[16]) {
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++) {
                sum += a[k * 4 + r] * b[c * 4 + k];
            }
            out[c * 4 + r] = sum;
        }
    }
}

/* out = the affine part of m applied to point p (w = 1, no divide). */
static inline void mat4_point(const float m[16], const float p[3], float out[3]) {
    for (int r = 0; r < 3; r++) {
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    }
}

#endif
