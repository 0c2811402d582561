/* Texel sizes and the unorm16 position encoding (docs/encodings.md). */
#include "load/bake_internal.h"

#include <math.h>

size_t crowd__bake_texel_size_bytes(crowd_texel_format format) {
    switch (format) {
    case CROWD_TEXEL_RGBA32F:
        return 4 * sizeof(float);
    case CROWD_TEXEL_RGBA16F:
    case CROWD_TEXEL_RGBA16_UNORM:
        return 4 * sizeof(uint16_t);
    case CROWD_TEXEL_NONE:
        break;
    }
    return 0;
}

float crowd__bake_unorm16_decode(uint16_t q, float min, float max) {
    return min + (max - min) * ((float)q / 65535.0f);
}

uint16_t crowd__bake_unorm16_encode(float value, float min, float max) {
    float extent = max - min;
    if (!(extent > 0.0f) || !isfinite(value)) {
        return 0;
    }
    float scaled = (value - min) / extent * 65535.0f;
    long nearest = lroundf(scaled < 0.0f ? 0.0f : scaled > 65535.0f ? 65535.0f : scaled);
    /* The decode runs in float, so the real-number nearest code can lose to a
     * neighbour by an ulp: keep whichever decodes closest. */
    long best = nearest;
    float best_error = fabsf(crowd__bake_unorm16_decode((uint16_t)nearest, min, max) - value);
    for (long q = nearest - 1; q <= nearest + 1; q += 2) {
        if (q < 0 || q > 65535) {
            continue;
        }
        float error = fabsf(crowd__bake_unorm16_decode((uint16_t)q, min, max) - value);
        if (error < best_error) {
            best = q;
            best_error = error;
        }
    }
    return (uint16_t)best;
}
