#include "gltf_skinner.h"

#include <math.h>
#include <string.h>

static void mat4_mul(const double *a, const double *b, double *out) {
    double r[16];
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            r[4 * c + row] = a[row] * b[4 * c] + a[4 + row] * b[4 * c + 1] +
                             a[8 + row] * b[4 * c + 2] + a[12 + row] * b[4 * c + 3];
        }
    }
    memcpy(out, r, sizeof r);
}

/* 3.5.2: T * R * S. */
static void trs_matrix(const double *t, const double *q, const double *s, double *m) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) {
            m[4 * c + row] = r[3 * c + row] * s[c];
        }
        m[4 * c + 3] = 0;
    }
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

/* Appendix C: slerp along the shortest path. */
static void slerp(const double *a, const double *b, double u, double *out) {
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double sign = d < 0 ? -1 : 1;
    d *= sign;
    double wa, wb;
    if (d > 1 - 1e-12) {
        wa = 1 - u;
        wb = u;
    } else {
        double theta = acos(d);
        wa = sin((1 - u) * theta) / sin(theta);
        wb = sin(u * theta) / sin(theta);
    }
    for (int i = 0; i < 4; i++) {
        out[i] = wa * a[i] + wb * sign * b[i];
    }
}

static void sample_channel(const gltf_channel *c, double t, double *out) {
    int n = c->path == GLTF_ROTATION ? 4 : 3;
    int cubic = c->interpolation == GLTF_CUBIC;
    size_t stride = (size_t)(cubic ? 3 * n : n), offset = (size_t)(cubic ? n : 0);
    uint32_t last = c->key_count - 1;
    if (t <= c->times[0] || c->key_count == 1) {
        memcpy(out, c->values + offset, (size_t)n * sizeof *out);
        return;
    }
    if (t >= c->times[last]) {
        memcpy(out, c->values + stride * last + offset, (size_t)n * sizeof *out);
        return;
    }
    uint32_t k = 0;
    while (k + 1 < last && c->times[k + 1] <= t) {
        k++;
    }
    const double *a = c->values + stride * k + offset, *b = a + stride;
    double dt = c->times[k + 1] - c->times[k];
    double u = (t - c->times[k]) / dt;
    if (c->interpolation == GLTF_STEP) {
        memcpy(out, a, (size_t)n * sizeof *out);
    } else if (c->interpolation == GLTF_LINEAR) {
        if (n == 4) {
            slerp(a, b, u, out);
        } else {
            for (int i = 0; i < n; i++) {
                out[i] = a[i] * (1 - u) + b[i] * u;
            }
        }
    } else {
        /* p(t) = (2t^3 - 3t^2 + 1) v_k + td (t^3 - 2t^2 + t) b_k
         *      + (-2t^3 + 3t^2) v_k+1 + td (t^3 - t^2) a_k+1 */
        const double *b_k = a + n, *a_k1 = b - n;
        double u2 = u * u, u3 = u2 * u;
        double len = 0;
        for (int i = 0; i < n; i++) {
            out[i] = (2 * u3 - 3 * u2 + 1) * a[i] + dt * (u3 - 2 * u2 + u) * b_k[i] +
                     (-2 * u3 + 3 * u2) * b[i] + dt * (u3 - u2) * a_k1[i];
            len += out[i] * out[i];
        }
        if (n == 4) {
            for (int i = 0; i < 4; i++) {
                out[i] /= sqrt(len);
            }
        }
    }
}

void gltf_globals(const gltf_file *file, const gltf_animation *animation, double time_s,
                  double *globals) {
    for (int o = 0; o < file->order_count; o++) {
        int i = file->order[o];
        const gltf_node *node = &file->nodes[i];
        double t[3], r[4], s[3], local[16];
        memcpy(t, node->translation, sizeof t);
        memcpy(r, node->rotation, sizeof r);
        memcpy(s, node->scale, sizeof s);
        int animated = 0;
        for (int c = 0; animation != NULL && c < animation->channel_count; c++) {
            const gltf_channel *ch = &animation->channels[c];
            if (ch->node != i) {
                continue;
            }
            animated = 1;
            sample_channel(ch, time_s,
                           ch->path == GLTF_TRANSLATION ? t
                           : ch->path == GLTF_ROTATION  ? r
                                                        : s);
        }
        /* A node with a matrix is never animated (3.5.2). */
        if (node->has_matrix && !animated) {
            memcpy(local, node->matrix, sizeof local);
        } else {
            trs_matrix(t, r, s, local);
        }
        if (node->parent >= 0) {
            mat4_mul(globals + 16 * node->parent, local, globals + 16 * i);
        } else {
            memcpy(globals + 16 * i, local, sizeof local);
        }
    }
}

void gltf_vertices(const gltf_file *file, const double *globals, int node_index, int primitive,
                   double *out) {
    const gltf_node *node = &file->nodes[node_index];
    const gltf_primitive *prim = &file->meshes[node->mesh].primitives[primitive];
    const gltf_skin *skin =
        node->skin >= 0 && prim->joints != NULL ? &file->skins[node->skin] : NULL;
    for (uint32_t v = 0; v < prim->vertex_count; v++) {
        const double *p = prim->positions + 3 * v;
        double m[16] = {0};
        double total = 0;
        for (int i = 0; skin != NULL && i < 4; i++) {
            total += prim->weights[4 * v + i];
        }
        /* No weight at all: the vertex follows the mesh's node, crowd's
         * convention (the specification leaves it undefined). */
        if (skin == NULL || !(total > 0)) {
            memcpy(m, globals + 16 * node_index, sizeof m);
        } else {
            for (int i = 0; i < 4; i++) {
                double w = prim->weights[4 * v + i] / total;
                uint32_t j = prim->joints[4 * v + i];
                if (w == 0 || j >= (uint32_t)skin->joint_count) {
                    continue;
                }
                double joint_matrix[16];
                mat4_mul(globals + 16 * skin->joints[j], skin->inverse_bind + 16 * j, joint_matrix);
                for (int e = 0; e < 16; e++) {
                    m[e] += w * joint_matrix[e];
                }
            }
        }
        for (int r = 0; r < 3; r++) {
            out[3 * v + r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
        }
    }
}

double gltf_animation_duration(const gltf_animation *animation) {
    double end = 0;
    for (int c = 0; c < animation->channel_count; c++) {
        const gltf_channel *ch = &animation->channels[c];
        end = fmax(end, ch->times[ch->key_count - 1]);
    }
    return end;
}
