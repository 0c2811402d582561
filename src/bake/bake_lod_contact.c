/* Where separate pieces of a mesh meet (bake_lod.h).
 *
 * Characters are often built of pieces that cross or lie close: clothes
 * over a body, limbs pushed into a torso, a robot's rods in their sockets.
 * Where two surfaces cross at a shallow angle, moving one of them by d
 * moves the line where they cross by d / tan(angle): a LOD within its
 * error can still show a patch of trousers through a shirt, or lose one.
 * So triangles near another piece are found here, for the simplifier to
 * keep. Pieces are the triangles connected through shared positions (seams
 * do not split a piece); distances are those of the bind pose. A uniform
 * grid of cells at least `reach` wide lists each triangle in every cell its
 * box overlaps, so a point's query looks at the 8 cells around it. */
#include "bake/bake_lod.h"

#include <float.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

/* Surfaces that cross at more than 30 degrees move where they cross by
 * less than 1.7 times what either moves: those are left to the error
 * budget. */
#define CONTACT_COS 0.866f

typedef struct contact_grid {
    float origin[3], inverse_cell;
    int32_t dims[3];
    uint32_t *first; /* cells + 1: triangles of cell i are entries[first[i] .. first[i + 1]) */
    uint32_t *entries;
} contact_grid;

static uint32_t find_root(uint32_t *parent, uint32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving */
        x = parent[x];
    }
    return x;
}

bool crowd__bake_lod_pieces(const float *positions, uint32_t vertex_count, const uint32_t *indices,
                            uint32_t index_count, uint32_t *out_piece) {
    uint32_t *parent = malloc((size_t)vertex_count * sizeof *parent + 1);
    if (parent == NULL) {
        return false;
    }
    size_t unique = meshopt_generateVertexRemap(out_piece, NULL, vertex_count, positions,
                                                vertex_count, 3 * sizeof(float));
    for (uint32_t i = 0; i < unique; i++) {
        parent[i] = i;
    }
    for (uint32_t i = 0; i + 2 < index_count; i += 3) {
        uint32_t a = find_root(parent, out_piece[indices[i]]);
        for (int k = 1; k < 3; k++) {
            uint32_t b = find_root(parent, out_piece[indices[i + (uint32_t)k]]);
            parent[b] = a;
        }
    }
    for (uint32_t v = 0; v < vertex_count; v++) {
        out_piece[v] = find_root(parent, out_piece[v]);
    }
    free(parent);
    return true;
}

static int32_t cell_of(const contact_grid *g, float value, int axis) {
    float f = (value - g->origin[axis]) * g->inverse_cell;
    int32_t last = g->dims[axis] - 1;
    return f <= 0.0f ? 0 : f >= (float)last ? last : (int32_t)f;
}

/* Cells of the box lo..hi: range[0..2] to range[3..5]. */
static void box_cells(const contact_grid *g, const float lo[3], const float hi[3],
                      int32_t range[6]) {
    for (int a = 0; a < 3; a++) {
        range[a] = cell_of(g, lo[a], a);
        range[3 + a] = cell_of(g, hi[a], a);
    }
}

static void triangle_box(const float *positions, const uint32_t *tri, float lo[3], float hi[3]) {
    for (int a = 0; a < 3; a++) {
        lo[a] = hi[a] = positions[3 * (size_t)tri[0] + (size_t)a];
        for (int k = 1; k < 3; k++) {
            float value = positions[3 * (size_t)tri[k] + (size_t)a];
            lo[a] = value < lo[a] ? value : lo[a];
            hi[a] = value > hi[a] ? value : hi[a];
        }
    }
}

/* Cells at least `reach` wide and about a triangle's size, at most 16 per
 * triangle. */
static void size_grid(contact_grid *g, const float *positions, const uint32_t *indices,
                      uint32_t triangles, float reach) {
    float box_lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, box_hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    double size_sum = 0.0;
    for (uint32_t t = 0; t < triangles; t++) {
        float lo[3], hi[3], extent = 0.0f;
        triangle_box(positions, indices + 3 * (size_t)t, lo, hi);
        for (int a = 0; a < 3; a++) {
            extent = hi[a] - lo[a] > extent ? hi[a] - lo[a] : extent;
            box_lo[a] = lo[a] < box_lo[a] ? lo[a] : box_lo[a];
            box_hi[a] = hi[a] > box_hi[a] ? hi[a] : box_hi[a];
        }
        size_sum += extent;
    }
    double cell = fmax(fmax(size_sum / triangles, (double)reach), 1e-30);
    double limit = 16.0 * triangles + 64.0;
    for (;;) {
        double cells = 1.0;
        for (int a = 0; a < 3; a++) {
            cells *= floor((double)(box_hi[a] - box_lo[a]) / cell) + 1.0;
        }
        if (cells <= limit) {
            break;
        }
        cell *= cbrt(cells / limit) * 1.01;
    }
    g->inverse_cell = (float)(1.0 / cell);
    for (int a = 0; a < 3; a++) {
        g->origin[a] = box_lo[a];
        g->dims[a] = (int32_t)floor((double)(box_hi[a] - box_lo[a]) / cell) + 1;
    }
}

static size_t cell_index(const contact_grid *g, int32_t x, int32_t y, int32_t z) {
    return ((size_t)z * (size_t)g->dims[1] + (size_t)y) * (size_t)g->dims[0] + (size_t)x;
}

static bool build_grid(contact_grid *g, const float *positions, const uint32_t *indices,
                       uint32_t triangles, float reach) {
    size_grid(g, positions, indices, triangles, reach);
    size_t cells = (size_t)g->dims[0] * (size_t)g->dims[1] * (size_t)g->dims[2];
    g->first = calloc(cells + 1, sizeof *g->first);
    if (g->first == NULL) {
        return false;
    }
    /* two passes: count per cell, then fill (first[i] runs ahead while
     * filling and is shifted back after) */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t t = 0; t < triangles; t++) {
            float lo[3], hi[3];
            int32_t r[6];
            triangle_box(positions, indices + 3 * (size_t)t, lo, hi);
            box_cells(g, lo, hi, r);
            for (int32_t z = r[2]; z <= r[5]; z++) {
                for (int32_t y = r[1]; y <= r[4]; y++) {
                    for (int32_t x = r[0]; x <= r[3]; x++) {
                        size_t c = cell_index(g, x, y, z);
                        if (pass == 0) {
                            g->first[c + 1]++;
                        } else {
                            g->entries[g->first[c]++] = t;
                        }
                    }
                }
            }
        }
        if (pass == 0) {
            for (size_t i = 0; i < cells; i++) {
                g->first[i + 1] += g->first[i];
            }
            g->entries = malloc(((size_t)g->first[cells] + 1) * sizeof *g->entries);
            if (g->entries == NULL) {
                return false;
            }
        }
    }
    for (size_t i = cells; i > 0; i--) {
        g->first[i] = g->first[i - 1];
    }
    g->first[0] = 0;
    return true;
}

static void face_normal(const float *positions, const uint32_t *tri, float out[3]) {
    const float *a = positions + 3 * (size_t)tri[0], *b = positions + 3 * (size_t)tri[1],
                *c = positions + 3 * (size_t)tri[2];
    float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    out[0] = e1[1] * e2[2] - e1[2] * e2[1];
    out[1] = e1[2] * e2[0] - e1[0] * e2[2];
    out[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

static void normalize(float v[3]) {
    float length = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int a = 0; a < 3; a++) {
        v[a] = length > 0.0f ? v[a] / length : 0.0f;
    }
}

/* Per vertex, the area-weighted mean of its triangles' normals, unit. */
static void vertex_normals(const float *positions, uint32_t vertex_count, const uint32_t *indices,
                           uint32_t index_count, float *out) {
    memset(out, 0, 3 * (size_t)vertex_count * sizeof *out);
    for (uint32_t i = 0; i + 2 < index_count; i += 3) {
        float n[3];
        face_normal(positions, indices + i, n);
        for (int k = 0; k < 3; k++) {
            for (int a = 0; a < 3; a++) {
                out[3 * (size_t)indices[i + (uint32_t)k] + (size_t)a] += n[a];
            }
        }
    }
    for (uint32_t v = 0; v < vertex_count; v++) {
        normalize(out + 3 * (size_t)v);
    }
}

/* The triangle of another piece than `piece` nearest to p within reach
 * whose plane lies within LOD_CONTACT_ANGLE of `normal`'s, or UINT32_MAX. */
static uint32_t nearest_other(const contact_grid *g, const float *positions,
                              const uint32_t *indices, const uint32_t *vertex_piece,
                              const float p[3], const float normal[3], uint32_t piece,
                              float reach) {
    float lo[3] = {p[0] - reach, p[1] - reach, p[2] - reach};
    float hi[3] = {p[0] + reach, p[1] + reach, p[2] + reach};
    int32_t r[6];
    box_cells(g, lo, hi, r);
    float best2 = reach * reach;
    uint32_t best = UINT32_MAX;
    for (int32_t z = r[2]; z <= r[5]; z++) {
        for (int32_t y = r[1]; y <= r[4]; y++) {
            for (int32_t x = r[0]; x <= r[3]; x++) {
                size_t c = cell_index(g, x, y, z);
                for (uint32_t e = g->first[c]; e < g->first[c + 1]; e++) {
                    const uint32_t *tri = indices + 3 * (size_t)g->entries[e];
                    float n[3];
                    face_normal(positions, tri, n);
                    normalize(n);
                    float cosine = fabsf(n[0] * normal[0] + n[1] * normal[1] + n[2] * normal[2]);
                    if (vertex_piece[tri[0]] == piece || cosine < CONTACT_COS) {
                        continue;
                    }
                    float corners[9];
                    for (int k = 0; k < 3; k++) {
                        memcpy(corners + 3 * k, positions + 3 * (size_t)tri[k], 3 * sizeof(float));
                    }
                    float d2 = crowd__bake_triangle_distance2(p, corners);
                    if (d2 <= best2) {
                        best2 = d2;
                        best = g->entries[e];
                    }
                }
            }
        }
    }
    return best;
}

bool crowd__bake_lod_contacts(const float *positions, uint32_t vertex_count,
                              const uint32_t *indices, uint32_t index_count, const uint32_t *piece,
                              float reach, uint8_t *out_contact) {
    uint32_t triangles = index_count / 3;
    memset(out_contact, 0, triangles);
    if (triangles == 0) {
        return true;
    }
    uint8_t *state = calloc(vertex_count, 1); /* 1: asked, 2: near another piece */
    float *normals = malloc(3 * (size_t)vertex_count * sizeof *normals);
    contact_grid grid = {0};
    bool ok = state != NULL && normals != NULL;
    if (ok) {
        vertex_normals(positions, vertex_count, indices, index_count, normals);
        ok = build_grid(&grid, positions, indices, triangles, reach);
    }
    for (uint32_t i = 0; ok && i < index_count; i++) {
        uint32_t v = indices[i];
        if (state[v] == 0) {
            uint32_t t = nearest_other(&grid, positions, indices, piece, positions + 3 * (size_t)v,
                                       normals + 3 * (size_t)v, piece[v], reach);
            state[v] = t == UINT32_MAX ? 1 : 2;
            if (t != UINT32_MAX) {
                out_contact[t] = 1;
            }
        }
    }
    for (uint32_t t = 0; ok && t < triangles; t++) {
        for (int k = 0; k < 3; k++) {
            out_contact[t] |= state[indices[3 * (size_t)t + (size_t)k]] == 2;
        }
    }
    free(state);
    free(normals);
    free(grid.first);
    free(grid.entries);
    return ok;
}
