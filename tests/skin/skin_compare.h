/* skin_compare.h - how the skin tests compare skinned outputs: the largest
 * element difference (a NaN counts as the worst) and the bounds diagonal that
 * scales a position tolerance to the model's size (0 for no vertices). */
#ifndef CROWD_TEST_SKIN_COMPARE_H
#define CROWD_TEST_SKIN_COMPARE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

static inline float compare_max_abs_diff(const float *a, const float *b, size_t n) {
    float worst = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float d = fabsf(a[i] - b[i]);
        if (!(d <= worst)) {
            worst = d; /* NaN sticks */
        }
    }
    return worst;
}

static inline float compare_bounds_diagonal(const float *positions, uint32_t count) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < count; v++) {
        for (int c = 0; c < 3; c++) {
            lo[c] = fminf(lo[c], positions[3 * v + c]);
            hi[c] = fmaxf(hi[c], positions[3 * v + c]);
        }
    }
    if (count == 0) {
        return 0.0f;
    }
    return sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                 (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

#endif
