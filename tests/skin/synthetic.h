/* synthetic.h - random but reproducible skinned meshes and skinning matrices
 * for the skin tests and benchmark. Header-only so each executable gets its
 * own copy; everything is deterministic for a given seed. */
#ifndef CROWD_TEST_SKIN_SYNTHETIC_H
#define CROWD_TEST_SKIN_SYNTHETIC_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"

typedef struct synth_rng {
    uint64_t state;
} synth_rng;

/* Uniform in [0, 1), splitmix64. */
static inline float synth_uniform(synth_rng *rng) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) / (float)(1u << 24);
}

static inline float synth_range(synth_rng *rng, float lo, float hi) {
    return lo + (hi - lo) * synth_uniform(rng);
}

/* A mesh of vertex_count vertices; each has `influences` (1..4) non-zero
 * weights, or a random count in 1..4 when influences is 0. The non-zero
 * slots are spread over the four slots and the zero ones name joint 60000,
 * so a skinner that reads a zero-weight joint reads far out of bounds.
 * Only the arrays skinning reads are filled. Free with synth_mesh_free(). */
static inline crowd_mesh synth_mesh(uint32_t vertex_count, uint32_t influences,
                                    uint32_t joint_count, uint64_t seed) {
    synth_rng rng = {seed};
    crowd_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = vertex_count;
    size_t n = vertex_count ? vertex_count : 1;
    mesh.positions = malloc(3 * n * sizeof(float));
    mesh.normals = malloc(3 * n * sizeof(float));
    mesh.tangents = malloc(4 * n * sizeof(float));
    mesh.joints = malloc(4 * n * sizeof(uint16_t));
    mesh.weights = malloc(4 * n * sizeof(float));
    for (uint32_t v = 0; v < vertex_count; v++) {
        float normal[3], length;
        do {
            for (int c = 0; c < 3; c++) {
                normal[c] = synth_range(&rng, -1.0f, 1.0f);
            }
            length = sqrtf(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
        } while (length < 0.1f);
        for (int c = 0; c < 3; c++) {
            mesh.positions[3 * v + c] = synth_range(&rng, -1.0f, 1.0f);
            mesh.normals[3 * v + c] = normal[c] / length;
            mesh.tangents[4 * v + c] = normal[(c + 1) % 3] / length;
        }
        mesh.tangents[4 * v + 3] = v % 2 ? 1.0f : -1.0f;
        uint32_t count = influences ? influences : 1 + (uint32_t)(synth_uniform(&rng) * 4.0f) % 4;
        /* Choose `count` of the 4 slots. */
        int used[4] = {0, 0, 0, 0};
        for (uint32_t k = 0; k < count;) {
            int slot = (int)(synth_uniform(&rng) * 4.0f) % 4;
            if (!used[slot]) {
                used[slot] = 1;
                k++;
            }
        }
        float sum = 0.0f;
        for (int i = 0; i < 4; i++) {
            float w = used[i] ? synth_range(&rng, 0.05f, 1.0f) : 0.0f;
            mesh.weights[4 * v + i] = w;
            mesh.joints[4 * v + i] =
                used[i]
                    ? (uint16_t)((uint32_t)(synth_uniform(&rng) * (float)joint_count) % joint_count)
                    : 60000;
            sum += w;
        }
        for (int i = 0; i < 4; i++) {
            mesh.weights[4 * v + i] /= sum;
        }
    }
    return mesh;
}

static inline void synth_mesh_free(crowd_mesh *mesh) {
    free(mesh->positions);
    free(mesh->normals);
    free(mesh->tangents);
    free(mesh->joints);
    free(mesh->weights);
    memset(mesh, 0, sizeof *mesh);
}

/* joint_count 3x4 row-major skinning matrices: a rotation of up to 1 radian
 * about a random axis, a scale in [0.5, 2] per axis, a translation in
 * [-1, 1]^3. Rotations within 2 radians of each other keep every blend far
 * from singular, so normals stay well conditioned. */
static inline void synth_matrices(float *out, uint32_t joint_count, uint64_t seed) {
    synth_rng rng = {seed};
    for (uint32_t j = 0; j < joint_count; j++) {
        float axis[3], length;
        do {
            for (int c = 0; c < 3; c++) {
                axis[c] = synth_range(&rng, -1.0f, 1.0f);
            }
            length = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        } while (length < 0.1f);
        float x = axis[0] / length, y = axis[1] / length, z = axis[2] / length;
        float angle = synth_range(&rng, -1.0f, 1.0f), c = cosf(angle), s = sinf(angle), t = 1 - c;
        float r[3][3] = {{t * x * x + c, t * x * y - s * z, t * x * z + s * y},
                         {t * x * y + s * z, t * y * y + c, t * y * z - s * x},
                         {t * x * z - s * y, t * y * z + s * x, t * z * z + c}};
        float scale[3];
        for (int k = 0; k < 3; k++) {
            scale[k] = synth_range(&rng, 0.5f, 2.0f);
        }
        float *m = out + 12 * (size_t)j;
        for (int row = 0; row < 3; row++) {
            for (int col = 0; col < 3; col++) {
                m[4 * row + col] = r[row][col] * scale[col];
            }
            m[4 * row + 3] = synth_range(&rng, -1.0f, 1.0f);
        }
    }
}

#endif
