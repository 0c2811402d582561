/* How far each LOD is from LOD 0 over the baked frames (bake_lod.h): for
 * every frame, the distance from each LOD0 vertex to the nearest triangle
 * of the LOD, both at that frame's played positions; a LOD's error is the
 * largest over all frames.
 *
 * A vertex the LOD keeps is at distance 0, so only the others are asked.
 * Only the largest distance matters, so a vertex stops being searched as
 * soon as a triangle within the largest distance found so far is: the
 * triangle nearest to it in the bind pose, tested first, mostly is. The
 * others search a uniform grid built per frame and LOD (each triangle
 * listed in every cell its box overlaps, cells about the size of a
 * triangle): rings of cells around the vertex's own, skipping cells and
 * triangles farther than the best distance so far, until no unvisited cell
 * can be closer. Frames run on worker threads. On robot.glb (7068
 * vertices, 589 frames, three LODs) this costs about as much as skinning
 * and encoding the frames.
 *
 * The LOD search tries dozens of candidates, so it screens them instead
 * (crowd__bake_screen_lod): a sample of the frames, decoded once, and for each
 * vertex only whether it is within the limit, which mostly its hint
 * answers; a vertex found over the limit is not asked again. In the bind
 * pose, where each vertex's nearest triangle is searched in full for the
 * hints anyway, the screening also compares its normal with the LOD's
 * there. */
#include "bake/bake_lod.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tri_grid {
    float origin[3], cell, inverse_cell;
    int32_t dims[3];
    uint32_t *first; /* cells + 1: triangles of cell i are entries[first[i] .. first[i + 1]) */
    uint32_t *entries;
    size_t first_capacity, entry_capacity;
} tri_grid;

typedef struct error_worker {
    float *positions, *skin;
    float *corners;  /* 9 floats per triangle of the current LOD */
    float *spheres;  /* 4 floats per triangle: centroid, bounding radius */
    int32_t *ranges; /* 6 per triangle: its cells */
    /* Built when a query first needs it: most frames' queries all stop at
     * their hint, and then the frame needs no grid. */
    tri_grid grid;
    bool grid_ready;
    uint32_t triangles;           /* of the LOD posed */
    float box_min[3], box_max[3]; /* of the pose */
    uint32_t *stamp;              /* per triangle: the last query that tested it */
    /* Per query, the triangle found last time: the bind pose's at first,
     * then that of the frame this worker measured before (mostly the one
     * before it in the clip). */
    uint32_t *hints;
    uint8_t *over; /* screening: per query, farther than the limit in a frame measured */
    uint32_t query;
    /* Squared error of each LOD over the frames this worker measured: a
     * vertex whose first guess is already closer cannot raise it, so its
     * search stops there (the largest-of-smallest pruning of Hausdorff
     * distance algorithms). The maximum over workers is exact whatever the
     * scheduling: only vertices that cannot be the maximum are cut short. */
    float worst2[CROWD_BAKE_MAX_LODS];
    bool failed;
} error_worker;

typedef struct error_job {
    const crowd_bake *bake;
    const bake_played *played;
    uint32_t first_lod, end_lod; /* LODs first_lod .. end_lod - 1 are measured */
    uint32_t frame_step;         /* on frames 0, frame_step, 2 frame_step, ... */
    const float *frames;         /* those frames' positions, or NULL: decoded here */
    /* Screening (limit2 0 when measuring): the squared distance limit,
     * the normal limit, and per LOD0 vertex whether it is over them. */
    float limit2;
    const bake_lod_limits *limits;
    uint8_t *out_over;
    uint32_t *queries; /* per LOD k >= 1: the LOD0 vertices it does not keep */
    uint32_t query_first[CROWD_BAKE_MAX_LODS + 1];
    error_worker *workers;
} error_job;

/* Squared distance from p to triangle abc and the barycentric weights of
 * the closest point (Ericson, Real-Time Collision Detection, 5.1.5: the
 * closest point by Voronoi region). */
static float closest_point(const float p[3], const float *t, float bary[3]) {
    const float *a = t, *b = t + 3, *c = t + 6;
    float ab[3], ac[3], ap[3];
    for (int i = 0; i < 3; i++) {
        ab[i] = b[i] - a[i];
        ac[i] = c[i] - a[i];
        ap[i] = p[i] - a[i];
    }
    float d1 = ab[0] * ap[0] + ab[1] * ap[1] + ab[2] * ap[2];
    float d2 = ac[0] * ap[0] + ac[1] * ap[1] + ac[2] * ap[2];
    float bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
    float d3 = ab[0] * bp[0] + ab[1] * bp[1] + ab[2] * bp[2];
    float d4 = ac[0] * bp[0] + ac[1] * bp[1] + ac[2] * bp[2];
    float cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    float d5 = ab[0] * cp[0] + ab[1] * cp[1] + ab[2] * cp[2];
    float d6 = ac[0] * cp[0] + ac[1] * cp[1] + ac[2] * cp[2];
    float vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    float v, w; /* closest = a + v ab + w ac */
    if (d1 <= 0.0f && d2 <= 0.0f) {
        v = w = 0.0f;
    } else if (d3 >= 0.0f && d4 <= d3) {
        v = 1.0f, w = 0.0f;
    } else if (d6 >= 0.0f && d5 <= d6) {
        v = 0.0f, w = 1.0f;
    } else if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
        v = d1 / (d1 - d3), w = 0.0f;
    } else if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
        v = 0.0f, w = d2 / (d2 - d6);
    } else if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) {
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6)), v = 1.0f - w;
    } else {
        float denom = 1.0f / (va + vb + vc);
        v = vb * denom, w = vc * denom;
    }
    bary[0] = 1.0f - v - w, bary[1] = v, bary[2] = w;
    float d2sum = 0.0f;
    for (int i = 0; i < 3; i++) {
        float d = ap[i] - v * ab[i] - w * ac[i];
        d2sum += d * d;
    }
    return d2sum;
}

float crowd__bake_triangle_distance2(const float p[3], const float *t) {
    float bary[3];
    return closest_point(p, t, bary);
}

/* fminf/fmaxf are calls without -ffast-math; these inline. */
static float min_f(float a, float b) {
    return a < b ? a : b;
}

static float max_f(float a, float b) {
    return a > b ? a : b;
}

static int32_t cell_of(const tri_grid *g, float value, int axis) {
    float f = (value - g->origin[axis]) * g->inverse_cell;
    int32_t last = g->dims[axis] - 1;
    return f <= 0.0f ? 0 : f >= (float)last ? last : (int32_t)f;
}

static bool grow(void **array, size_t *capacity, size_t needed, size_t element) {
    if (needed <= *capacity) {
        return true;
    }
    size_t capacity_new = *capacity > 0 ? *capacity : 1024;
    while (capacity_new < needed) {
        capacity_new *= 2;
    }
    void *grown = realloc(*array, capacity_new * element);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    *capacity = capacity_new;
    return true;
}

/* Cell range of triangle t's box: lo[0..2], hi[0..2] in range[0..5]. */
static void triangle_cells(const tri_grid *g, const float *t, int32_t range[6]) {
    for (int a = 0; a < 3; a++) {
        range[a] = cell_of(g, min_f(t[a], min_f(t[3 + a], t[6 + a])), a);
        range[3 + a] = cell_of(g, max_f(t[a], max_f(t[3 + a], t[6 + a])), a);
    }
}

/* Grid over box_min..box_max (which holds every triangle and query) for
 * `triangles` triangles of `corners`; ranges: scratch of 6 per triangle. */
static bool build_grid(tri_grid *g, const float *corners, uint32_t triangles, int32_t *ranges,
                       const float box_min[3], const float box_max[3]) {
    double size_sum = 0.0;
    for (uint32_t t = 0; t < triangles; t++) {
        const float *c = corners + 9 * (size_t)t;
        float extent = 0.0f;
        for (int a = 0; a < 3; a++) {
            extent = max_f(extent, max_f(c[a], max_f(c[3 + a], c[6 + a])) -
                                       min_f(c[a], min_f(c[3 + a], c[6 + a])));
        }
        size_sum += extent;
    }
    float span = 0.0f;
    for (int a = 0; a < 3; a++) {
        span = fmaxf(span, box_max[a] - box_min[a]);
    }
    /* cells about a triangle's size, at most 16 per triangle */
    double cell = fmax(size_sum / triangles, (double)span * 1e-6 + 1e-30);
    double limit = 16.0 * triangles + 64.0;
    for (;;) {
        double cells = 1.0;
        for (int a = 0; a < 3; a++) {
            cells *= floor((double)(box_max[a] - box_min[a]) / cell) + 1.0;
        }
        if (cells <= limit) {
            break;
        }
        cell *= cbrt(cells / limit) * 1.01;
    }
    g->cell = (float)cell;
    g->inverse_cell = (float)(1.0 / cell);
    size_t cells = 1;
    for (int a = 0; a < 3; a++) {
        g->origin[a] = box_min[a];
        g->dims[a] = (int32_t)floor((double)(box_max[a] - box_min[a]) / cell) + 1;
        cells *= (size_t)g->dims[a];
    }
    if (!grow((void **)&g->first, &g->first_capacity, cells + 1, sizeof *g->first)) {
        return false;
    }
    memset(g->first, 0, (cells + 1) * sizeof *g->first);
    size_t entries = 0;
    for (uint32_t t = 0; t < triangles; t++) {
        int32_t *range = ranges + 6 * (size_t)t;
        triangle_cells(g, corners + 9 * (size_t)t, range);
        for (int32_t z = range[2]; z <= range[5]; z++) {
            for (int32_t y = range[1]; y <= range[4]; y++) {
                for (int32_t x = range[0]; x <= range[3]; x++) {
                    g->first[((size_t)z * g->dims[1] + (size_t)y) * g->dims[0] + (size_t)x + 1]++;
                    entries++;
                }
            }
        }
    }
    if (!grow((void **)&g->entries, &g->entry_capacity, entries, sizeof *g->entries)) {
        return false;
    }
    for (size_t i = 0; i < cells; i++) {
        g->first[i + 1] += g->first[i];
    }
    for (uint32_t t = 0; t < triangles; t++) {
        const int32_t *range = ranges + 6 * (size_t)t;
        for (int32_t z = range[2]; z <= range[5]; z++) {
            for (int32_t y = range[1]; y <= range[4]; y++) {
                for (int32_t x = range[0]; x <= range[3]; x++) {
                    /* first[i] runs ahead while filling and is shifted back below */
                    g->entries[g->first[((size_t)z * g->dims[1] + (size_t)y) * g->dims[0] +
                                        (size_t)x]++] = t;
                }
            }
        }
    }
    for (size_t i = cells; i > 0; i--) {
        g->first[i] = g->first[i - 1];
    }
    g->first[0] = 0;
    return true;
}

static float cell_distance2(const tri_grid *g, const float p[3], int32_t x, int32_t y, int32_t z) {
    int32_t index[3] = {x, y, z};
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++) {
        float lo = g->origin[a] + (float)index[a] * g->cell, hi = lo + g->cell;
        float d = p[a] < lo ? lo - p[a] : p[a] > hi ? p[a] - hi : 0.0f;
        d2 += d * d;
    }
    return d2;
}

typedef struct nearest {
    float d2, d; /* squared distance and distance; FLT_MAX before the first */
    uint32_t triangle;
} nearest;

/* Tests triangle t unless this query did already or its bounding sphere
 * is farther than the best so far. */
static void consider(error_worker *w, const float p[3], uint32_t t, nearest *n) {
    if (w->stamp[t] == w->query) {
        return;
    }
    w->stamp[t] = w->query;
    const float *sphere = w->spheres + 4 * (size_t)t;
    float dx = p[0] - sphere[0], dy = p[1] - sphere[1], dz = p[2] - sphere[2];
    float reach = sphere[3] + n->d;
    if (dx * dx + dy * dy + dz * dz > reach * reach) {
        return;
    }
    float d2 = crowd__bake_triangle_distance2(p, w->corners + 9 * (size_t)t);
    if (d2 < n->d2) {
        *n = (nearest){d2, sqrtf(d2), t};
    }
}

static void visit_ring(error_worker *w, const float p[3], const int32_t c[3], int32_t r,
                       nearest *n) {
    const tri_grid *g = &w->grid;
    for (int32_t z = c[2] - r; z <= c[2] + r; z++) {
        for (int32_t y = c[1] - r; y <= c[1] + r; y++) {
            if (z < 0 || z >= g->dims[2] || y < 0 || y >= g->dims[1]) {
                continue;
            }
            bool face = z == c[2] - r || z == c[2] + r || y == c[1] - r || y == c[1] + r;
            int32_t step = face || r == 0 ? 1 : 2 * r;
            for (int32_t x = c[0] - r; x <= c[0] + r; x += step) {
                if (x < 0 || x >= g->dims[0] || cell_distance2(g, p, x, y, z) >= n->d2) {
                    continue;
                }
                size_t cell = ((size_t)z * g->dims[1] + (size_t)y) * g->dims[0] + (size_t)x;
                for (uint32_t e = g->first[cell]; e < g->first[cell + 1]; e++) {
                    consider(w, p, g->entries[e], n);
                }
            }
        }
    }
}

/* Distance from p to the grid cells outside the block of rings 0..r around
 * cell c; FLT_MAX when the block covers the grid. */
static float outside_distance(const tri_grid *g, const float p[3], const int32_t c[3], int32_t r) {
    float distance = FLT_MAX;
    for (int a = 0; a < 3; a++) {
        if (c[a] - r > 0) {
            distance = min_f(distance, p[a] - (g->origin[a] + (float)(c[a] - r) * g->cell));
        }
        if (c[a] + r + 1 < g->dims[a]) {
            distance = min_f(distance, g->origin[a] + (float)(c[a] + r + 1) * g->cell - p[a]);
        }
    }
    return distance;
}

/* The nearest triangle to p, or as soon as one is found within
 * sqrt(enough) of it, that one. `hint` (a triangle, or UINT32_MAX) is tested
 * first, so that a good guess prunes the search from the start. */
static nearest find_nearest(error_worker *w, const float p[3], uint32_t hint, float enough) {
    const tri_grid *g = &w->grid;
    if (++w->query == 0) {
        memset(w->stamp, 0, w->triangles * sizeof *w->stamp);
        w->query = 1;
    }
    nearest n = {FLT_MAX, FLT_MAX, 0};
    if (hint != UINT32_MAX) {
        /* the hint's centroid is a point of it: often already close enough */
        const float *centre = w->spheres + 4 * (size_t)hint;
        float dx = p[0] - centre[0], dy = p[1] - centre[1], dz = p[2] - centre[2];
        float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 <= enough) {
            return (nearest){d2, sqrtf(d2), hint};
        }
        consider(w, p, hint, &n);
    }
    if (n.d2 <= enough) {
        return n;
    }
    if (!w->grid_ready) {
        w->grid_ready =
            build_grid(&w->grid, w->corners, w->triangles, w->ranges, w->box_min, w->box_max);
        if (!w->grid_ready) {
            w->failed = true;
            return n;
        }
    }
    int32_t c[3] = {cell_of(g, p[0], 0), cell_of(g, p[1], 1), cell_of(g, p[2], 2)};
    for (int32_t r = 0; n.d2 > enough; r++) {
        visit_ring(w, p, c, r, &n);
        float outside = outside_distance(g, p, c, r);
        if (outside == FLT_MAX || n.d2 <= outside * outside) {
            break;
        }
    }
    return n;
}

/* LOD `lod` posed at `positions` (box_min..box_max holding all of them):
 * corners and bounding spheres; the grid follows when needed. */
static void pose_lod(error_worker *w, const crowd_bake *bake, uint32_t lod, const float *positions,
                     const float box_min[3], const float box_max[3]) {
    const crowd_bake_lod *l = &bake->lods[lod];
    const uint32_t *vertices = bake->lod_vertices + l->first_vertex;
    const uint32_t *indices = bake->lod_indices + l->first_index;
    for (uint32_t i = 0; i < l->index_count; i++) {
        memcpy(w->corners + 3 * (size_t)i, positions + 3 * (size_t)vertices[indices[i]],
               3 * sizeof(float));
    }
    for (uint32_t t = 0; t < l->triangle_count; t++) {
        const float *c = w->corners + 9 * (size_t)t;
        float *sphere = w->spheres + 4 * (size_t)t;
        float r2 = 0.0f;
        for (int a = 0; a < 3; a++) {
            sphere[a] = (c[a] + c[3 + a] + c[6 + a]) / 3.0f;
        }
        for (int k = 0; k < 3; k++) {
            float dx = c[3 * k] - sphere[0], dy = c[3 * k + 1] - sphere[1],
                  dz = c[3 * k + 2] - sphere[2];
            r2 = max_f(r2, dx * dx + dy * dy + dz * dz);
        }
        /* a little more than the corner distance, for float rounding */
        sphere[3] = sqrtf(r2) * 1.0001f + 1e-30f;
    }
    w->triangles = l->triangle_count;
    memcpy(w->box_min, box_min, sizeof w->box_min);
    memcpy(w->box_max, box_max, sizeof w->box_max);
    w->grid_ready = false;
}

static void box_of(const float *positions, uint32_t count, float box_min[3], float box_max[3]) {
    for (int a = 0; a < 3; a++) {
        box_min[a] = box_max[a] = positions[a];
    }
    for (uint32_t v = 1; v < count; v++) {
        for (int a = 0; a < 3; a++) {
            box_min[a] = min_f(box_min[a], positions[3 * (size_t)v + (size_t)a]);
            box_max[a] = max_f(box_max[a], positions[3 * (size_t)v + (size_t)a]);
        }
    }
}

static void measure_frame(void *context, uint32_t worker, uint32_t item) {
    error_job *job = context;
    const crowd_bake *bake = job->bake;
    error_worker *w = &job->workers[worker];
    const float *positions = w->positions;
    if (job->frames != NULL) {
        positions = job->frames + 3 * (size_t)bake->vertex_count * item;
    } else {
        crowd__bake_played_positions(job->played, item * job->frame_step, w->skin, w->positions);
    }
    float box_min[3], box_max[3];
    box_of(positions, bake->vertex_count, box_min, box_max);
    for (uint32_t k = job->first_lod; k < job->end_lod && !w->failed; k++) {
        pose_lod(w, bake, k, positions, box_min, box_max);
        for (uint32_t q = job->query_first[k]; q < job->query_first[k + 1]; q++) {
            if (job->limit2 > 0.0f && w->over[q]) {
                continue; /* over already: nothing more to learn */
            }
            const float *p = positions + 3 * (size_t)job->queries[q];
            /* screening asks only whether the limit holds */
            nearest n =
                find_nearest(w, p, w->hints[q], job->limit2 > 0.0f ? job->limit2 : w->worst2[k]);
            w->hints[q] = n.triangle;
            w->worst2[k] = max_f(w->worst2[k], n.d2);
            if (job->limit2 > 0.0f) {
                w->over[q] = n.d2 > job->limit2;
            }
        }
    }
}

/* Each query's nearest triangle in the bind pose, every worker's first
 * guess (limbs move, but mostly with the surface around them). */
/* Whether LOD0 vertex v's normal and LOD `lod`'s interpolated one at
 * the point of `triangle` nearest to v (bind pose, posed in w) are further
 * apart than the screening allows. */
static bool normal_over(const error_job *job, const error_worker *w, uint32_t lod, uint32_t v,
                        uint32_t triangle) {
    const crowd_bake *bake = job->bake;
    const float *normals = bake->asset->mesh.normals;
    if (job->limits == NULL || job->limits->normal_cos <= -1.0f || !job->limits->smooth[v]) {
        return false;
    }
    const crowd_bake_lod *l = &bake->lods[lod];
    const uint32_t *corners = bake->lod_indices + l->first_index + 3 * (size_t)triangle;
    float bary[3], n[3] = {0.0f, 0.0f, 0.0f};
    closest_point(bake->asset->mesh.positions + 3 * (size_t)v, w->corners + 9 * (size_t)triangle,
                  bary);
    for (int k = 0; k < 3; k++) {
        const float *corner =
            normals + 3 * (size_t)bake->lod_vertices[l->first_vertex + corners[k]];
        for (int a = 0; a < 3; a++) {
            n[a] += bary[k] * corner[a];
        }
    }
    const float *own = normals + 3 * (size_t)v;
    float dot = n[0] * own[0] + n[1] * own[1] + n[2] * own[2];
    float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    return dot < job->limits->normal_cos * length;
}

static bool find_hints(error_job *job, uint32_t thread_count) {
    const crowd_bake *bake = job->bake;
    const float *positions = bake->asset->mesh.positions;
    error_worker *w = &job->workers[0];
    float box_min[3], box_max[3];
    box_of(positions, bake->vertex_count, box_min, box_max);
    for (uint32_t k = job->first_lod; k < job->end_lod && !w->failed; k++) {
        pose_lod(w, bake, k, positions, box_min, box_max);
        for (uint32_t q = job->query_first[k]; q < job->query_first[k + 1]; q++) {
            const float *p = positions + 3 * (size_t)job->queries[q];
            w->hints[q] = find_nearest(w, p, UINT32_MAX, 0.0f).triangle;
            /* the normal is screened here, in the bind pose only */
            w->over[q] = normal_over(job, w, k, job->queries[q], w->hints[q]);
        }
    }
    size_t bytes = (size_t)job->query_first[job->end_lod] * sizeof *w->hints;
    for (uint32_t t = 1; t < thread_count; t++) {
        memcpy(job->workers[t].hints, w->hints, bytes);
    }
    return !w->failed;
}

/* Per LOD, the LOD0 vertices it does not keep. */
static bool list_queries(error_job *job) {
    const crowd_bake *bake = job->bake;
    uint8_t *kept = malloc(bake->vertex_count);
    job->queries =
        malloc((size_t)bake->vertex_count * (job->end_lod - job->first_lod) * sizeof *job->queries);
    if (kept == NULL || job->queries == NULL) {
        free(kept);
        return false;
    }
    uint32_t count = 0;
    job->query_first[job->first_lod] = 0;
    for (uint32_t k = job->first_lod; k < job->end_lod; k++) {
        const crowd_bake_lod *lod = &bake->lods[k];
        memset(kept, 0, bake->vertex_count);
        for (uint32_t i = 0; i < lod->vertex_count; i++) {
            kept[bake->lod_vertices[lod->first_vertex + i]] = 1;
        }
        job->query_first[k] = count;
        for (uint32_t v = 0; v < bake->vertex_count; v++) {
            if (!kept[v]) {
                job->queries[count++] = v;
            }
        }
        job->query_first[k + 1] = count;
    }
    free(kept);
    return true;
}

static bool alloc_workers(error_job *job, uint32_t thread_count) {
    const crowd_bake *bake = job->bake;
    uint32_t most = 0;
    for (uint32_t k = job->first_lod; k < job->end_lod; k++) {
        most = bake->lods[k].triangle_count > most ? bake->lods[k].triangle_count : most;
    }
    for (uint32_t t = 0; t < thread_count; t++) {
        error_worker *w = &job->workers[t];
        w->positions = malloc(3 * (size_t)bake->vertex_count * sizeof(float));
        w->skin = malloc(12 * (size_t)bake->joint_count * sizeof(float));
        w->corners = malloc(9 * (size_t)most * sizeof(float));
        w->spheres = malloc(4 * (size_t)most * sizeof(float));
        w->ranges = malloc(6 * (size_t)most * sizeof *w->ranges);
        w->stamp = calloc(most, sizeof *w->stamp);
        size_t queries = job->query_first[job->end_lod];
        w->hints = malloc(queries * sizeof *w->hints + 1);
        w->over = calloc(queries + 1, sizeof *w->over);
        if (!w->positions || !w->skin || !w->corners || !w->spheres || !w->ranges || !w->stamp ||
            !w->hints || !w->over) {
            return false;
        }
    }
    return true;
}

static void free_job(error_job *job, uint32_t thread_count) {
    for (uint32_t t = 0; job->workers != NULL && t < thread_count; t++) {
        error_worker *w = &job->workers[t];
        free(w->positions);
        free(w->skin);
        free(w->corners);
        free(w->spheres);
        free(w->ranges);
        free(w->stamp);
        free(w->hints);
        free(w->over);
        free(w->grid.first);
        free(w->grid.entries);
    }
    free(job->workers);
    free(job->queries);
}

static double diagonal_of(const crowd_bake *bake) {
    double diagonal = 0.0;
    for (int a = 0; a < 3; a++) {
        double d = (double)bake->bounds_max[a] - bake->bounds_min[a];
        diagonal += d * d;
    }
    return sqrt(diagonal);
}

/* Per LOD0 vertex, whether any worker found it over the limit. */
static void gather_over(const error_job *job, uint32_t thread_count) {
    memset(job->out_over, 0, job->bake->vertex_count);
    for (uint32_t t = 0; t < thread_count; t++) {
        for (uint32_t q = 0; q < job->query_first[job->end_lod]; q++) {
            job->out_over[job->queries[q]] |= job->workers[t].over[q];
        }
    }
}

/* Sets the errors of LODs first_lod .. end_lod - 1 from job's frames. */
static crowd_result measure(error_job *job, uint32_t thread_count, crowd_error *error) {
    crowd_bake *bake = (crowd_bake *)job->bake;
    job->workers = calloc(thread_count, sizeof *job->workers);
    bool ok = job->workers != NULL && list_queries(job) && alloc_workers(job, thread_count) &&
              find_hints(job, thread_count);
    if (ok) {
        uint32_t items = (bake->frame_count + job->frame_step - 1) / job->frame_step;
        crowd__bake_parallel_for(items, thread_count, measure_frame, NULL, job);
        for (uint32_t t = 0; t < thread_count; t++) {
            ok = ok && !job->workers[t].failed;
        }
    }
    if (ok && job->out_over != NULL) {
        gather_over(job, thread_count);
    }
    double diagonal = diagonal_of(bake);
    for (uint32_t k = job->first_lod; ok && k < job->end_lod; k++) {
        float worst2 = 0.0f;
        for (uint32_t t = 0; t < thread_count; t++) {
            worst2 = fmaxf(worst2, job->workers[t].worst2[k]);
        }
        float worst = sqrtf(worst2);
        bake->lods[k].error = worst;
        bake->lods[k].error_rel = diagonal > 0.0 ? (float)(worst / diagonal) : 0.0f;
    }
    free_job(job, thread_count);
    return ok ? CROWD_OK : crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}

crowd_result crowd__bake_measure_lods(crowd_bake *bake, const bake_played *played,
                                      uint32_t first_lod, uint32_t thread_count,
                                      crowd_error *error) {
    if (bake->lod_count <= first_lod) {
        return CROWD_OK;
    }
    error_job job = {.bake = bake,
                     .played = played,
                     .first_lod = first_lod,
                     .end_lod = bake->lod_count,
                     .frame_step = 1};
    return measure(&job, thread_count, error);
}

void crowd__bake_lod_sample_init(const crowd_bake *bake, const bake_played *played,
                                 bake_lod_sample *out_sample) {
    uint32_t step = bake->frame_count > BAKE_LOD_SCREEN_FRAMES
                        ? (bake->frame_count + BAKE_LOD_SCREEN_FRAMES - 1) / BAKE_LOD_SCREEN_FRAMES
                        : 1;
    *out_sample = (bake_lod_sample){.step = step, .count = (bake->frame_count + step - 1) / step};
    size_t floats = 3 * (size_t)bake->vertex_count * out_sample->count;
    float *skin = malloc(12 * (size_t)bake->joint_count * sizeof *skin + 1);
    if (floats * sizeof(float) <= BAKE_LOD_SAMPLE_BYTES && skin != NULL) {
        out_sample->positions = malloc(floats * sizeof(float));
    }
    for (uint32_t i = 0; out_sample->positions != NULL && i < out_sample->count; i++) {
        crowd__bake_played_positions(played, i * step, skin,
                                     out_sample->positions + 3 * (size_t)bake->vertex_count * i);
    }
    free(skin);
}

void crowd__bake_lod_sample_release(bake_lod_sample *sample) {
    free(sample->positions);
    sample->positions = NULL;
}

crowd_result crowd__bake_screen_lod(crowd_bake *bake, const bake_played *played,
                                    const bake_lod_sample *sample, uint32_t lod,
                                    const bake_lod_limits *limits, uint32_t thread_count,
                                    uint8_t *out_over, crowd_error *error) {
    float limit = (float)(limits->error_rel * diagonal_of(bake));
    error_job job = {
        .bake = bake,
        .played = played,
        .first_lod = lod,
        .end_lod = lod + 1,
        .frame_step = limits->every_frame ? 1 : sample->step,
        .frames = limits->every_frame ? NULL : sample->positions,
        /* a limit of 0 would be taken for measuring */
        .limit2 = fmaxf(limit * limit, FLT_MIN),
        .limits = limits,
        .out_over = out_over,
    };
    return measure(&job, thread_count, error);
}
