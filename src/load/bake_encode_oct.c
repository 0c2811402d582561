/* Octahedral unit-normal encoding in 8 + 8 bits (Cigolle et al., "A Survey
 * of Efficient Representations for Independent Unit Vectors", JCGT 2014).
 * Plain rounding of the projected point costs up to 0.95 degrees at 8 bits
 * per axis (measured), too close to the 1 degree the bake promises; trying
 * the four grid points around it and keeping the one that decodes closest
 * (their "precise" variant) brings the worst case to 0.63 degrees. */
#include "load/bake_internal.h"

#include <math.h>

static float sign_not_zero(float v) {
    return v < 0.0f ? -1.0f : 1.0f;
}

static float byte_to_snorm(uint32_t b) {
    return (float)b / 255.0f * 2.0f - 1.0f;
}

/* The point of the octahedron (x, y) stands for, folded back for the lower
 * half; unnormalized. Written with selects: the encoder calls it four times
 * per normal and which half a point lies in is data-dependent. */
static void unfold(float x, float y, float out[3]) {
    float z = 1.0f - fabsf(x) - fabsf(y);
    float folded_x = (1.0f - fabsf(y)) * sign_not_zero(x);
    float folded_y = (1.0f - fabsf(x)) * sign_not_zero(y);
    bool lower = z < 0.0f;
    out[0] = lower ? folded_x : x;
    out[1] = lower ? folded_y : y;
    out[2] = z;
}

void crowd__bake_oct_decode(uint16_t packed, float normal[3]) {
    float v[3];
    unfold(byte_to_snorm((uint32_t)packed >> 8), byte_to_snorm((uint32_t)packed & 0xffu), v);
    float length = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    normal[0] = v[0] / length;
    normal[1] = v[1] / length;
    normal[2] = v[2] / length;
}

uint16_t crowd__bake_oct_encode(const float normal[3]) {
    float x = normal[0], y = normal[1], z = normal[2];
    float l1 = fabsf(x) + fabsf(y) + fabsf(z);
    if (!(l1 > 0.0f) || !isfinite(l1)) {
        return (uint16_t)((128u << 8) | 128u); /* close to +Z: any unit vector beats NaN */
    }
    float u = x / l1, v = y / l1;
    if (z < 0.0f) {
        float folded_u = (1.0f - fabsf(v)) * sign_not_zero(u);
        float folded_v = (1.0f - fabsf(u)) * sign_not_zero(v);
        u = folded_u;
        v = folded_v;
    }
    uint32_t bu = (uint32_t)floorf((u + 1.0f) * 0.5f * 255.0f);
    uint32_t bv = (uint32_t)floorf((v + 1.0f) * 0.5f * 255.0f);
    bu = bu > 254u ? 254u : bu;
    bv = bv > 254u ? 254u : bv;
    const float su[2] = {byte_to_snorm(bu), byte_to_snorm(bu + 1u)};
    const float sv[2] = {byte_to_snorm(bv), byte_to_snorm(bv + 1u)};
    /* The candidate d closest in angle has the largest dot(n, d) / |d|. With
     * dot > 0 that order is the order of dot^2 / |d|^2, compared by cross
     * multiplication: no square root, no division, and n need not be unit.
     * Which candidate wins is data-dependent, so the choice is written as
     * selects rather than branches. */
    uint32_t best = 0;
    float best_dot = 0.0f, best_length2 = 1.0f;
    for (uint32_t i = 0; i < 4; i++) {
        float d[3];
        unfold(su[i & 1u], sv[i >> 1], d);
        float dot = d[0] * x + d[1] * y + d[2] * z;
        float length2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        bool better = dot > 0.0f && dot * dot * best_length2 > best_dot * best_dot * length2;
        best = better ? i : best;
        best_dot = better ? dot : best_dot;
        best_length2 = better ? length2 : best_length2;
    }
    return (uint16_t)(((bu + (best & 1u)) << 8) | (bv + (best >> 1)));
}
