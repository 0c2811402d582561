#include "import/scene/import_math.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

void crowd__import_m4_identity(float out[16]) {
    memset(out, 0, 16 * sizeof *out);
    out[0] = out[5] = out[10] = out[15] = 1.0f;
}

void crowd__import_m4_from_ai(const struct aiMatrix4x4 *m, float out[16]) {
    const float rows[16] = {m->a1, m->a2, m->a3, m->a4, m->b1, m->b2, m->b3, m->b4,
                            m->c1, m->c2, m->c3, m->c4, m->d1, m->d2, m->d3, m->d4};
    for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 4; c++) {
            out[c * 4 + r] = rows[r * 4 + c];
        }
    }
}

void crowd__import_m4_mul(const float a[16], const float b[16], float out[16]) {
    mat4 ma, mb, mo;
    memcpy(ma, a, sizeof ma);
    memcpy(mb, b, sizeof mb);
    glm_mat4_mul(ma, mb, mo);
    memcpy(out, mo, sizeof mo);
}

bool crowd__import_m4_is_finite(const float m[16]) {
    for (int i = 0; i < 16; i++) {
        if (!isfinite(m[i])) {
            return false;
        }
    }
    return true;
}

bool crowd__import_m4_invert(const float m[16], float out[16]) {
    mat4 mm, mi;
    memcpy(mm, m, sizeof mm);
    float det = glm_mat4_det(mm);
    if (!crowd__import_m4_is_finite(m) || !isfinite(det) || fabsf(det) < 1e-12f) {
        crowd__import_m4_identity(out);
        return false;
    }
    glm_mat4_inv_precise(mm, mi);
    memcpy(out, mi, sizeof mi);
    return crowd__import_m4_is_finite(out);
}

bool crowd__import_m4_near(const float a[16], const float b[16], float tolerance) {
    for (int i = 0; i < 16; i++) {
        if (!(fabsf(a[i] - b[i]) <= tolerance)) {
            return false;
        }
    }
    return true;
}

void crowd__import_m4_from_trs(const float translation[3], const float rotation_xyzw[4],
                               const float scale[3], float out[16]) {
    float x = rotation_xyzw[0], y = rotation_xyzw[1], z = rotation_xyzw[2], w = rotation_xyzw[3];
    float rot[9] = {
        1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
        2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
        2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y),
    };
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++) {
            out[c * 4 + r] = rot[c * 3 + r] * scale[c];
        }
        out[c * 4 + 3] = 0.0f;
    }
    out[12] = translation[0];
    out[13] = translation[1];
    out[14] = translation[2];
    out[15] = 1.0f;
}

void crowd__import_m4_point(const float m[16], const float p[3], float out[3]) {
    float r[3];
    for (int i = 0; i < 3; i++) {
        r[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
    }
    memcpy(out, r, sizeof r);
}

bool crowd__import_m4_normal(const float m[16], const float n[3], float out[3]) {
    /* Inverse transpose of the 3x3 = cofactor matrix / det; the 1/det only
     * scales (and maybe flips) the result, so cofactors with det's sign do. */
    const float a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6],
                i = m[10];
    const float cof[9] = {e * i - f * h,    -(d * i - f * g), d * h - e * g,
                          -(b * i - c * h), a * i - c * g,    -(a * h - b * g),
                          b * f - c * e,    -(a * f - c * d), a * e - b * d};
    const float det = a * cof[0] + b * cof[1] + c * cof[2];
    const float sign = det < 0.0f ? -1.0f : 1.0f;
    float r[3];
    for (int row = 0; row < 3; row++) {
        r[row] =
            sign * (cof[row * 3 + 0] * n[0] + cof[row * 3 + 1] * n[1] + cof[row * 3 + 2] * n[2]);
    }
    float len = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (!isfinite(len) || len < 1e-20f) {
        return false;
    }
    for (int k = 0; k < 3; k++) {
        out[k] = r[k] / len;
    }
    return true;
}
