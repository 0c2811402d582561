/* tube.c - one body part: a closed tube with rounded ends, skinned to a
 * chain of joints.
 *
 * Rings are spaced by angle over the rounded ends (so a cap gets as many
 * rings as it needs to look round) and evenly along the middle. Each ring
 * has sides + 1 vertices: the first and last share position and normal and
 * differ in u, the usual texture seam. The two end rings collapse to a point
 * (a pole); the triangles that would have zero area there are left out.
 * Normals come from the surface itself (central differences of the
 * parametric surface), so tapers, offsets and boxy sections shade right. */
#include <math.h>
#include <string.h>

#include "builtin/builtin_internal.h"

#define PI 3.14159265358979323846

typedef struct tube_frame {
    double d[3], u[3], v[3]; /* axis, across, towards `front` */
    double length_m;
} tube_frame;

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double normalize3(double *a) {
    double len = sqrt(dot3(a, a));
    if (len > 0.0) {
        for (int i = 0; i < 3; i++) {
            a[i] /= len;
        }
    }
    return len;
}

static double smoothstep01(double x) {
    x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
    return x * x * (3.0 - 2.0 * x);
}

/* 0 at a, 1 at b, smooth in between; a > b ramps the other way. */
static double ramp(double x, double a, double b) {
    return smoothstep01((x - a) / (b - a));
}

static void part_frame(const builtin_part *p, tube_frame *f) {
    for (int i = 0; i < 3; i++) {
        f->d[i] = p->end[i] - p->start[i];
    }
    f->length_m = normalize3(f->d);
    double along = dot3(p->front, f->d);
    for (int i = 0; i < 3; i++) {
        f->v[i] = p->front[i] - along * f->d[i];
    }
    normalize3(f->v);
    cross3(f->v, f->d, f->u);
}

static uint32_t ring_count(const builtin_part *p) {
    return 2 * p->cap_rings + p->body_rings + 1;
}

/* Distance along the axis of ring i. */
static double ring_s(const builtin_part *p, const tube_frame *f, uint32_t i) {
    uint32_t last = ring_count(p) - 1;
    double body = f->length_m - p->cap_start_m - p->cap_end_m;
    if (i < p->cap_rings) {
        double phi = 0.5 * PI * i / p->cap_rings;
        return p->cap_start_m * (1.0 - cos(phi));
    }
    if (i > p->cap_rings + p->body_rings) {
        double phi = 0.5 * PI * (last - i) / p->cap_rings;
        return f->length_m - p->cap_end_m * (1.0 - cos(phi));
    }
    if (p->body_rings == 0) {
        return p->cap_start_m;
    }
    return p->cap_start_m + body * (i - p->cap_rings) / p->body_rings;
}

static void knot_eval(const builtin_part *p, double t, double *su, double *sv, double *dv) {
    *su = *sv = 1.0;
    *dv = 0.0;
    if (p->knot_count == 0) {
        return;
    }
    const builtin_knot *k = p->knots;
    uint32_t n = p->knot_count;
    if (t <= k[0].t || n == 1) {
        *su = k[0].scale_u, *sv = k[0].scale_v, *dv = k[0].offset_v_m;
        return;
    }
    if (t >= k[n - 1].t) {
        *su = k[n - 1].scale_u, *sv = k[n - 1].scale_v, *dv = k[n - 1].offset_v_m;
        return;
    }
    uint32_t i = 0;
    while (t >= k[i + 1].t) {
        i++;
    }
    double w = smoothstep01((t - k[i].t) / (k[i + 1].t - k[i].t));
    *su = k[i].scale_u + (k[i + 1].scale_u - k[i].scale_u) * w;
    *sv = k[i].scale_v + (k[i + 1].scale_v - k[i].scale_v) * w;
    *dv = k[i].offset_v_m + (k[i + 1].offset_v_m - k[i].offset_v_m) * w;
}

/* The rounded ends: a quarter ellipse from the pole to full radius. */
static double cap_scale(const builtin_part *p, const tube_frame *f, double s) {
    double a = 0.0;
    if (s < p->cap_start_m) {
        a = (p->cap_start_m - s) / p->cap_start_m;
    } else if (s > f->length_m - p->cap_end_m) {
        a = (s - (f->length_m - p->cap_end_m)) / p->cap_end_m;
    }
    double c = 1.0 - a * a;
    return c > 0.0 ? sqrt(c) : 0.0;
}

static double signed_pow(double x, double e) {
    return x < 0.0 ? -pow(-x, e) : pow(x, e);
}

/* Surface point at axis distance s and angle theta; `centre` gets the point
 * of the (offset) axis it was built around. */
static void surface_point(const builtin_part *p, const tube_frame *f, double s, double theta,
                          double out[3], double centre[3]) {
    double su, sv, dv;
    knot_eval(p, s / f->length_m, &su, &sv, &dv);
    double c = cap_scale(p, f, s);
    double e = 2.0 / p->exponent;
    double x = p->radius_u_m * su * c * signed_pow(cos(theta), e);
    double y = p->radius_v_m * sv * c * signed_pow(sin(theta), e);
    for (int i = 0; i < 3; i++) {
        centre[i] = p->start[i] + f->d[i] * s + f->v[i] * dv;
        out[i] = centre[i] + f->u[i] * x + f->v[i] * y;
    }
}

static double side_angle(const builtin_part *p, uint32_t j) {
    /* The seam column (j == sides) uses angle 0 exactly, so it matches column 0. */
    return 2.0 * PI * (double)(j % p->sides) / p->sides;
}

static void surface_normal(const builtin_part *p, const tube_frame *f, uint32_t ring, double s,
                           double theta, double out[3]) {
    uint32_t last = ring_count(p) - 1;
    if (ring == 0 || ring == last) {
        double sign = ring == 0 ? -1.0 : 1.0;
        for (int i = 0; i < 3; i++) {
            out[i] = sign * f->d[i];
        }
        return;
    }
    double hs = 1e-5 * f->length_m, ht = 1e-5;
    double ps0[3], ps1[3], pt0[3], pt1[3], centre[3], here[3];
    surface_point(p, f, s - hs, theta, ps0, centre);
    surface_point(p, f, s + hs, theta, ps1, centre);
    surface_point(p, f, s, theta - ht, pt0, centre);
    surface_point(p, f, s, theta + ht, pt1, centre);
    surface_point(p, f, s, theta, here, centre);
    double ds[3], dt[3], radial[3];
    for (int i = 0; i < 3; i++) {
        ds[i] = ps1[i] - ps0[i];
        dt[i] = pt1[i] - pt0[i];
        radial[i] = here[i] - centre[i];
    }
    cross3(dt, ds, out);
    if (normalize3(out) == 0.0) {
        for (int i = 0; i < 3; i++) {
            out[i] = radial[i];
        }
        normalize3(out);
    }
    if (dot3(out, radial) < 0.0) {
        for (int i = 0; i < 3; i++) {
            out[i] = -out[i];
        }
    }
}

typedef struct influence {
    uint32_t joint;
    double weight;
} influence;

/* Chain weights at axis distance s: joint k owns [s_k, s_k+1), and the
 * hand-over at each s_k is a smoothstep over +-falloff. Written as
 * differences of those steps, the weights sum to 1 exactly and stay >= 0
 * (the steps are ordered), even where falloffs overlap (3+ influences). */
static uint32_t chain_weights(const builtin_part *p, const tube_frame *f, double s,
                              influence *out) {
    double step[BUILTIN_MAX_CHAIN + 1];
    for (uint32_t k = 0; k <= p->chain_count; k++) {
        if (k == 0) {
            step[k] = 1.0;
        } else if (k == p->chain_count) {
            step[k] = 0.0;
        } else {
            double rel[3];
            for (int i = 0; i < 3; i++) {
                rel[i] = p->chain_points[k][i] - p->start[i];
            }
            double sk = dot3(rel, f->d);
            step[k] = smoothstep01((s - (sk - p->falloff_m)) / (2.0 * p->falloff_m));
        }
    }
    for (uint32_t k = 0; k < p->chain_count; k++) {
        out[k].joint = p->chain_joints[k];
        out[k].weight = step[k] - step[k + 1];
    }
    return p->chain_count;
}

static void vertex_weights(const builtin_part *p, const tube_frame *f, double s,
                           const double pos[3], uint16_t joints[4], float weights[4]) {
    influence inf[BUILTIN_MAX_CHAIN + 1];
    uint32_t n = chain_weights(p, f, s, inf);
    if (p->lateral) {
        double w = p->lateral_max * ramp(fabs(pos[0]), p->lateral_x0, p->lateral_x1) *
                   ramp(pos[1], p->lateral_y0, p->lateral_y1);
        if (w > 0.0) {
            for (uint32_t k = 0; k < n; k++) {
                inf[k].weight *= 1.0 - w;
            }
            inf[n].joint = pos[0] > 0.0 ? p->lateral_joint_pos_x : p->lateral_joint_neg_x;
            inf[n].weight = w;
            n++;
        }
    }
    /* Largest first (ties: lower joint first), so the 4 kept are the 4 that
     * matter; weights too small to see are dropped rather than kept as noise. */
    for (uint32_t a = 1; a < n; a++) {
        influence key = inf[a];
        uint32_t b = a;
        while (b > 0 && (inf[b - 1].weight < key.weight ||
                         (inf[b - 1].weight == key.weight && inf[b - 1].joint > key.joint))) {
            inf[b] = inf[b - 1];
            b--;
        }
        inf[b] = key;
    }
    float sum = 0.0f;
    for (int i = 0; i < CROWD_MAX_INFLUENCES; i++) {
        bool used = (uint32_t)i < n && (i == 0 || inf[i].weight >= 1e-3);
        joints[i] = used ? (uint16_t)inf[i].joint : 0;
        weights[i] = used ? (float)inf[i].weight : 0.0f;
        sum += weights[i];
    }
    for (int i = 0; i < CROWD_MAX_INFLUENCES; i++) {
        weights[i] /= sum;
    }
}

/* Whether triangles (a, b, c) in ring/side order face inwards and must be
 * flipped to be counter-clockwise seen from outside (glTF front faces). */
static bool winding_flipped(const builtin_part *p, const tube_frame *f) {
    uint32_t ring = ring_count(p) / 2;
    double s0 = ring_s(p, f, ring), s1 = ring_s(p, f, ring + 1);
    double a[3], b[3], c[3], centre[3], n[3];
    surface_point(p, f, s0, side_angle(p, 0), a, centre);
    surface_point(p, f, s1, side_angle(p, 0), b, centre);
    surface_point(p, f, s1, side_angle(p, 1), c, centre);
    surface_normal(p, f, ring, s0, side_angle(p, 0), n);
    double ab[3], ac[3], face[3];
    for (int i = 0; i < 3; i++) {
        ab[i] = b[i] - a[i];
        ac[i] = c[i] - a[i];
    }
    cross3(ab, ac, face);
    return dot3(face, n) < 0.0;
}

static void emit_vertices(const builtin_part *p, const tube_frame *f, crowd_mesh *mesh) {
    uint32_t rings = ring_count(p);
    uint32_t v = mesh->vertex_count;
    for (uint32_t r = 0; r < rings; r++) {
        double s = ring_s(p, f, r);
        for (uint32_t j = 0; j <= p->sides; j++, v++) {
            double theta = side_angle(p, j);
            double pos[3], centre[3], n[3];
            surface_point(p, f, s, theta, pos, centre);
            surface_normal(p, f, r, s, theta, n);
            for (int i = 0; i < 3; i++) {
                mesh->positions[3 * v + i] = (float)pos[i];
                mesh->normals[3 * v + i] = (float)n[i];
            }
            mesh->uv0[2 * v] = (float)j / (float)p->sides;
            mesh->uv0[2 * v + 1] = (float)(s / f->length_m);
            vertex_weights(p, f, s, pos, mesh->joints + 4 * v, mesh->weights + 4 * v);
        }
    }
}

static void emit_triangle(crowd_mesh *mesh, bool flip, uint32_t a, uint32_t b, uint32_t c) {
    if (mesh->indices) {
        uint32_t *out = mesh->indices + mesh->index_count;
        out[0] = a;
        out[1] = flip ? c : b;
        out[2] = flip ? b : c;
    }
    mesh->index_count += 3;
}

void crowd__builtin_tube_emit(const builtin_part *p, crowd_mesh *mesh) {
    tube_frame f;
    part_frame(p, &f);
    uint32_t rings = ring_count(p);
    uint32_t row = p->sides + 1;
    uint32_t base = mesh->vertex_count;
    if (mesh->positions) {
        emit_vertices(p, &f, mesh);
    }
    bool flip = winding_flipped(p, &f);
    for (uint32_t r = 0; r + 1 < rings; r++) {
        for (uint32_t j = 0; j < p->sides; j++) {
            uint32_t a = base + r * row + j, b = a + row, c = b + 1, d = a + 1;
            if (r + 1 != rings - 1) {
                emit_triangle(mesh, flip, a, b, c);
            }
            if (r != 0) {
                emit_triangle(mesh, flip, a, c, d);
            }
        }
    }
    mesh->vertex_count += rings * row;
}
