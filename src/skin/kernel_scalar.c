/* The portable path: the prepared layout walked one lane at a time in plain
 * C. It is what non-x86 CPUs run, and it keeps the layout honest on its own
 * (tests compare it with the reference like the SIMD paths). */
#include <math.h>

#include "skin/prepared.h"

void crowd__skin_kernel_scalar(const skin_group *group, uint32_t begin, uint32_t end,
                               const float *skin_matrices, float *out_positions,
                               float *out_normals) {
    uint32_t influences = group->influences;
    for (uint32_t b = begin; b < end; b++) {
        const float *positions = skin_block_positions(group, b);
        const float *normals = skin_block_normals(group, b);
        const float *weights = skin_block_weights(group, b);
        const uint32_t *offsets = skin_block_offsets(group, b);
        const uint32_t *vertices = skin_block_vertices(group, b);
        uint32_t lanes = skin_block_lanes(group, b);
        for (uint32_t lane = 0; lane < lanes; lane++) {
            float m[12] = {0};
            for (uint32_t i = 0; i < influences; i++) {
                float weight = weights[i * SKIN_LANES + lane];
                const float *joint = skin_matrices + offsets[i * SKIN_LANES + lane];
                for (int k = 0; k < 12; k++) {
                    m[k] += weight * joint[k];
                }
            }
            float px = positions[lane], py = positions[SKIN_LANES + lane],
                  pz = positions[2 * SKIN_LANES + lane];
            float *p = out_positions + 3 * (size_t)vertices[lane];
            for (int r = 0; r < 3; r++) {
                p[r] = m[4 * r] * px + m[4 * r + 1] * py + m[4 * r + 2] * pz + m[4 * r + 3];
            }
            if (out_normals) {
                float nx = normals[lane], ny = normals[SKIN_LANES + lane],
                      nz = normals[2 * SKIN_LANES + lane];
                float n[3];
                for (int r = 0; r < 3; r++) {
                    n[r] = m[4 * r] * nx + m[4 * r + 1] * ny + m[4 * r + 2] * nz;
                }
                float length2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
                /* Zero stays zero (a cancelled-out blend), as in the reference. */
                float scale = length2 > 0.0f ? 1.0f / sqrtf(length2) : 0.0f;
                float *out = out_normals + 3 * (size_t)vertices[lane];
                for (int r = 0; r < 3; r++) {
                    out[r] = n[r] * scale;
                }
            }
        }
    }
}
