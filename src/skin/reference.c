/* The oracle: linear blend skinning written the plain way, one vertex at a
 * time, in the order the maths is usually written down. Fast paths and the
 * baker are checked against it, so it favours clarity over speed. */
#include <math.h>

#include "crowd/skin.h"

/* blended = sum_i weight_i * skin[joint_i], over the 12 floats of the 3x4 rows. */
static void blend_matrix(const crowd_mesh *mesh, const float *skin_matrices, uint32_t v,
                         float blended[12]) {
    for (int k = 0; k < 12; k++) {
        blended[k] = 0.0f;
    }
    for (int i = 0; i < CROWD_MAX_INFLUENCES; i++) {
        float weight = mesh->weights[CROWD_MAX_INFLUENCES * v + i];
        if (weight == 0.0f) {
            continue;
        }
        const float *m = skin_matrices + 12 * (size_t)mesh->joints[CROWD_MAX_INFLUENCES * v + i];
        for (int k = 0; k < 12; k++) {
            blended[k] += weight * m[k];
        }
    }
}

/* Rows of the 3x4 matrix times (x, y, z, w): w = 1 for points, 0 for directions. */
static void transform(const float m[12], const float in[3], float w, float out[3]) {
    for (int r = 0; r < 3; r++) {
        out[r] =
            m[4 * r + 0] * in[0] + m[4 * r + 1] * in[1] + m[4 * r + 2] * in[2] + m[4 * r + 3] * w;
    }
}

/* A degenerate blend (opposing joints cancelling out) can collapse a
 * direction to zero; it stays zero rather than becoming NaN. */
static void normalize3(float v[3]) {
    float length = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (length > 0.0f) {
        v[0] /= length;
        v[1] /= length;
        v[2] /= length;
    }
}

void crowd_skin_reference(const crowd_mesh *mesh, const float *skin_matrices, float *out_positions,
                          float *out_normals, float *out_tangents) {
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        float m[12];
        blend_matrix(mesh, skin_matrices, v, m);
        transform(m, mesh->positions + 3 * (size_t)v, 1.0f, out_positions + 3 * (size_t)v);
        if (out_normals) {
            float *n = out_normals + 3 * (size_t)v;
            transform(m, mesh->normals + 3 * (size_t)v, 0.0f, n);
            normalize3(n);
        }
        if (out_tangents && mesh->tangents) {
            const float *t_in = mesh->tangents + 4 * (size_t)v;
            float *t = out_tangents + 4 * (size_t)v;
            transform(m, t_in, 0.0f, t);
            normalize3(t);
            t[3] = t_in[3];
        }
    }
}
