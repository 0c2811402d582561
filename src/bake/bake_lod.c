/* LODs with meshoptimizer (bake_lod.h).
 *
 * Debian 12 ships meshoptimizer 0.18, whose simplifier has neither attribute
 * weights (meshopt_simplifyWithAttributes came with 0.20) nor
 * regularization (0.22). What it has: meshopt_simplify keeps seams, that is
 * vertices that share a position but not an index collapse only together
 * and along the seam, and it never moves a vertex where three or more such
 * copies meet. On the input as baked that locks every hard edge: robot.glb
 * is flat-shaded (7068 vertices at 1820 positions) and does not lose a
 * single triangle. So the simplifier runs on a welded copy: vertices that
 * differ only in their normal are one vertex, while vertices that differ in
 * uv, material or skin weights stay apart and remain seams. UV seams,
 * borders between materials and places where the skinning changes (rigid
 * parts that touch) are kept that way; normal creases may move.
 *
 * Each simplified triangle is then mapped back to baked vertices: of the
 * copies of a welded vertex, the one whose normal is closest to the
 * triangle's face normal, which is the copy of that face's side of a crease.
 * Copies of one welded vertex have the same position and skin, so they play
 * the same VAT and BAT positions; only the normal differs.
 *
 * LOD k simplifies LOD k-1 to half LOD 0's triangles over 2^(k-1), without
 * an error limit: the error is measured over the baked frames afterwards
 * (bake_lod_error.c) and the runtime picks LODs by it. Each LOD's triangles
 * are grouped by material (the mesh file has one primitive per material),
 * each group ordered for the vertex cache, and the vertices compacted in
 * first-use order (meshopt_optimizeVertexFetchRemap). */
#include "bake/bake_lod.h"

#include <float.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

void bake_vertex_materials(const crowd_mesh *mesh, uint32_t *out_materials) {
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        out_materials[v] = UINT32_MAX;
    }
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const crowd_submesh *submesh = &mesh->submeshes[s];
        for (uint32_t i = 0; i < submesh->index_count; i++) {
            uint32_t v = mesh->indices[submesh->first_index + i];
            if (out_materials[v] == UINT32_MAX) {
                out_materials[v] = submesh->material;
            }
        }
    }
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        out_materials[v] = out_materials[v] == UINT32_MAX ? 0 : out_materials[v];
    }
}

/* What welds: everything but the normal. Compared as bytes, so no padding. */
typedef struct weld_key {
    float position[3];
    float uv[2];
    float weights[4];
    uint16_t joints[4];
    uint32_t material;
} weld_key;
_Static_assert(sizeof(weld_key) == 48, "weld keys are compared as bytes");

typedef struct lod_weld {
    uint32_t count;
    uint32_t *remap;     /* baked vertex -> welded vertex */
    float *positions;    /* 3 per welded vertex */
    uint32_t *first;     /* count + 1: copies of u are copies[first[u] .. first[u + 1]) */
    uint32_t *copies;    /* baked vertices, grouped by welded vertex */
    uint32_t *materials; /* per baked vertex */
} lod_weld;

static void free_weld(lod_weld *weld) {
    free(weld->remap);
    free(weld->positions);
    free(weld->first);
    free(weld->copies);
    free(weld->materials);
}

static bool build_weld(const crowd_mesh *mesh, lod_weld *weld) {
    uint32_t count = mesh->vertex_count;
    weld_key *keys = calloc(count, sizeof *keys);
    weld->remap = malloc(count * sizeof *weld->remap);
    weld->materials = malloc(count * sizeof *weld->materials);
    weld->copies = malloc(count * sizeof *weld->copies);
    if (keys == NULL || weld->remap == NULL || weld->materials == NULL || weld->copies == NULL) {
        free(keys);
        return false;
    }
    bake_vertex_materials(mesh, weld->materials);
    for (uint32_t v = 0; v < count; v++) {
        weld_key *key = &keys[v];
        /* + 0.0f makes -0 and +0 the same bytes */
        for (int a = 0; a < 3; a++) {
            key->position[a] = mesh->positions[3 * v + (uint32_t)a] + 0.0f;
        }
        for (int a = 0; a < 2; a++) {
            key->uv[a] = mesh->uv0[2 * v + (uint32_t)a] + 0.0f;
        }
        for (int i = 0; i < 4; i++) {
            key->weights[i] = mesh->weights[4 * v + (uint32_t)i] + 0.0f;
            key->joints[i] = key->weights[i] != 0.0f ? mesh->joints[4 * v + (uint32_t)i] : 0;
        }
        key->material = weld->materials[v];
    }
    weld->count =
        (uint32_t)meshopt_generateVertexRemap(weld->remap, NULL, count, keys, count, sizeof *keys);
    weld->positions = malloc(3 * (size_t)weld->count * sizeof(float));
    weld->first = calloc((size_t)weld->count + 1, sizeof *weld->first);
    if (weld->positions == NULL || weld->first == NULL) {
        free(keys);
        return false;
    }
    for (uint32_t v = 0; v < count; v++) {
        memcpy(weld->positions + 3 * (size_t)weld->remap[v], keys[v].position, 3 * sizeof(float));
        weld->first[weld->remap[v] + 1]++;
    }
    free(keys);
    for (uint32_t u = 0; u < weld->count; u++) {
        weld->first[u + 1] += weld->first[u];
    }
    for (uint32_t v = 0; v < count; v++) {
        /* first[u] runs ahead while filling and is shifted back below */
        weld->copies[weld->first[weld->remap[v]]++] = v;
    }
    for (uint32_t u = weld->count; u > 0; u--) {
        weld->first[u] = weld->first[u - 1];
    }
    weld->first[0] = 0;
    return true;
}

/* The mesh's triangles in welded vertices, without those that weld flat. */
static uint32_t welded_indices(const crowd_mesh *mesh, const lod_weld *weld, uint32_t *out) {
    uint32_t count = 0;
    for (uint32_t i = 0; i + 2 < mesh->index_count; i += 3) {
        uint32_t a = weld->remap[mesh->indices[i]], b = weld->remap[mesh->indices[i + 1]],
                 c = weld->remap[mesh->indices[i + 2]];
        if (a != b && b != c && a != c) {
            out[count++] = a;
            out[count++] = b;
            out[count++] = c;
        }
    }
    return count;
}

/* Welded triangles back to baked vertices: per corner, the copy whose
 * normal points most along the face. */
static void unweld(const crowd_mesh *mesh, const lod_weld *weld, const uint32_t *welded,
                   uint32_t count, uint32_t *out) {
    for (uint32_t t = 0; t < count; t += 3) {
        const float *a = weld->positions + 3 * (size_t)welded[t];
        const float *b = weld->positions + 3 * (size_t)welded[t + 1];
        const float *c = weld->positions + 3 * (size_t)welded[t + 2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float face[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                         e1[0] * e2[1] - e1[1] * e2[0]};
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t u = welded[t + k];
            uint32_t best = weld->copies[weld->first[u]];
            float best_dot = -FLT_MAX;
            for (uint32_t m = weld->first[u]; m < weld->first[u + 1]; m++) {
                const float *n = mesh->normals + 3 * (size_t)weld->copies[m];
                float dot = n[0] * face[0] + n[1] * face[1] + n[2] * face[2];
                if (dot > best_dot) {
                    best_dot = dot;
                    best = weld->copies[m];
                }
            }
            out[t + k] = best;
        }
    }
}

/* Triangles grouped by material in material order, each group ordered for
 * the vertex cache. scratch: count indices. */
static bool order_by_material(const lod_weld *weld, uint32_t material_count, uint32_t vertex_count,
                              uint32_t *indices, uint32_t count, uint32_t *scratch) {
    uint32_t *first = calloc((size_t)material_count + 1, sizeof *first);
    if (first == NULL) {
        return false;
    }
    for (uint32_t t = 0; t < count; t += 3) {
        first[weld->materials[indices[t]] + 1] += 3;
    }
    for (uint32_t m = 0; m < material_count; m++) {
        first[m + 1] += first[m];
    }
    for (uint32_t t = 0; t < count; t += 3) {
        uint32_t *slot = &first[weld->materials[indices[t]]];
        memcpy(scratch + *slot, indices + t, 3 * sizeof *indices);
        *slot += 3;
    }
    uint32_t start = 0;
    for (uint32_t m = 0; m < material_count; m++) {
        /* first[m] now ends group m */
        if (first[m] > start) {
            meshopt_optimizeVertexCache(indices + start, scratch + start, first[m] - start,
                                        vertex_count);
        }
        start = first[m];
    }
    free(first);
    return true;
}

/* Appends LOD `lod` (indices into the baked vertices) to the bake with its
 * vertices compacted. remap: scratch of vertex_count entries. */
static bool append_lod(crowd_bake *bake, uint32_t lod, const uint32_t *indices, uint32_t count,
                       uint32_t *remap) {
    uint32_t vertex_count = bake->vertex_count;
    uint32_t used = (uint32_t)meshopt_optimizeVertexFetchRemap(remap, indices, count, vertex_count);
    uint32_t *vertices =
        realloc(bake->lod_vertices, ((size_t)bake->lod_vertex_total + used) * sizeof *vertices);
    if (vertices == NULL) {
        return false;
    }
    bake->lod_vertices = vertices;
    uint32_t *lod_indices =
        realloc(bake->lod_indices, ((size_t)bake->lod_index_total + count) * sizeof *lod_indices);
    if (lod_indices == NULL) {
        return false;
    }
    bake->lod_indices = lod_indices;
    for (uint32_t v = 0; v < vertex_count; v++) {
        if (remap[v] != UINT32_MAX) {
            vertices[bake->lod_vertex_total + remap[v]] = v;
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        lod_indices[bake->lod_index_total + i] = remap[indices[i]];
    }
    bake->lods[lod] = (crowd_bake_lod){
        .first_index = bake->lod_index_total,
        .index_count = count,
        .first_vertex = bake->lod_vertex_total,
        .vertex_count = used,
        .triangle_count = count / 3,
    };
    bake->lod_vertex_total += used;
    bake->lod_index_total += count;
    bake->lod_count = lod + 1;
    return true;
}

typedef struct lod_scratch {
    lod_weld weld;
    uint32_t *welded, *simplified, *baked, *ordered, *remap;
} lod_scratch;

static void free_scratch(lod_scratch *s) {
    free_weld(&s->weld);
    free(s->welded);
    free(s->simplified);
    free(s->baked);
    free(s->ordered);
    free(s->remap);
}

static const char *source_of(const crowd_bake *bake) {
    return bake->source != NULL && bake->source[0] != '\0' ? bake->source : bake->name;
}

static crowd_result simplify_all(crowd_bake *bake, uint32_t lod_count, lod_scratch *s,
                                 const crowd_logger *logger, crowd_error *error) {
    const crowd_asset *asset = bake->asset;
    const crowd_mesh *mesh = &asset->mesh;
    size_t n = mesh->index_count;
    s->welded = malloc(n * sizeof *s->welded);
    s->simplified = malloc(n * sizeof *s->simplified);
    s->baked = malloc(n * sizeof *s->baked);
    s->ordered = malloc(n * sizeof *s->ordered);
    s->remap = malloc((size_t)mesh->vertex_count * sizeof *s->remap);
    if (!s->welded || !s->simplified || !s->baked || !s->ordered || !s->remap ||
        !build_weld(mesh, &s->weld)) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    uint32_t count = welded_indices(mesh, &s->weld, s->welded);
    uint32_t triangles0 = mesh->index_count / 3;
    for (uint32_t k = 1; k <= lod_count; k++) {
        uint32_t before = bake->lods[k - 1].triangle_count;
        size_t target = 3 * (size_t)(triangles0 >> k > 0 ? triangles0 >> k : 1);
        size_t got = count == 0
                         ? 0
                         : meshopt_simplify(s->simplified, s->welded, count, s->weld.positions,
                                            s->weld.count, 3 * sizeof(float),
                                            target < count ? target : count, FLT_MAX, 0, NULL);
        uint32_t triangles = (uint32_t)(got / 3);
        if (triangles == 0 || 4 * (uint64_t)triangles > 3 * (uint64_t)before) {
            crowd_log(logger, CROWD_LOG_WARNING,
                      "%s: LOD %u not made: simplifying the %u triangles of LOD %u keeps %u (a "
                      "LOD needs at most three quarters of the one before); %u LOD%s below LOD 0",
                      source_of(bake), k, before, k - 1, triangles, k - 1, k == 2 ? "" : "s");
            return CROWD_OK;
        }
        unweld(mesh, &s->weld, s->simplified, (uint32_t)got, s->baked);
        if (!order_by_material(&s->weld, asset->material_count, mesh->vertex_count, s->baked,
                               (uint32_t)got, s->ordered) ||
            !append_lod(bake, k, s->baked, (uint32_t)got, s->remap)) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
        memcpy(s->welded, s->simplified, got * sizeof *s->welded);
        count = (uint32_t)got;
    }
    return CROWD_OK;
}

crowd_result bake_build_lods(crowd_bake *bake, uint32_t lod_count, const crowd_logger *logger,
                             crowd_error *error) {
    const crowd_mesh *mesh = &bake->asset->mesh;
    bake->lod_count = 1;
    bake->lods[0] = (crowd_bake_lod){
        .index_count = mesh->index_count,
        .vertex_count = mesh->vertex_count,
        .triangle_count = mesh->index_count / 3,
    };
    if (lod_count == 0) {
        return CROWD_OK;
    }
    if (mesh->index_count == 0) {
        crowd_log(logger, CROWD_LOG_WARNING, "%s: the mesh has no triangles: no LODs",
                  source_of(bake));
        return CROWD_OK;
    }
    if (mesh->vertex_count >= BAKE_LOD_MAX_VERTICES) {
        crowd_log(logger, CROWD_LOG_WARNING,
                  "%s: %u vertices, over the %u a LOD's mesh file can name: no LODs",
                  source_of(bake), mesh->vertex_count, BAKE_LOD_MAX_VERTICES);
        return CROWD_OK;
    }
    lod_scratch scratch = {0};
    crowd_result result = simplify_all(bake, lod_count, &scratch, logger, error);
    free_scratch(&scratch);
    return result;
}
