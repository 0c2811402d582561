/* The welded copy of a mesh that the LODs are simplified on (bake_lod.h).
 *
 * meshopt_simplify keeps seams, that is vertices that share a position but
 * not an index collapse only together and along the seam, and it never
 * moves a vertex where three or more such copies meet. On the mesh as
 * baked that locks every hard edge: robot.glb is flat-shaded (7068
 * vertices at 1820 positions) and does not lose a single triangle. So the
 * simplifier runs on a welded copy: vertices that differ only in their
 * normal are one vertex, while vertices that differ in uv, material or
 * skin weights stay apart and remain seams. UV seams, borders between
 * materials and places where the skinning changes (rigid parts that
 * touch) are kept that way; normal creases may move.
 *
 * Each simplified triangle is then mapped back to baked vertices: of the
 * copies of a welded vertex, the one whose normal is closest to the
 * triangle's face normal, which is the copy of that face's side of a
 * crease. Copies of one welded vertex have the same position and skin, so
 * they play the same VAT and BAT positions; only the normal differs. */
#include "bake/bake_lod.h"

#include <float.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

void crowd__bake_vertex_materials(const crowd_mesh *mesh, uint32_t *out_materials) {
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

void crowd__bake_lod_weld_free(bake_lod_weld *weld) {
    free(weld->remap);
    free(weld->positions);
    free(weld->first);
    free(weld->copies);
    free(weld->materials);
}

static void fill_keys(const crowd_mesh *mesh, const uint32_t *materials, weld_key *keys) {
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
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
        key->material = materials[v];
    }
}

/* copies and first from remap (a counting sort by welded vertex). */
static void group_copies(bake_lod_weld *weld, uint32_t vertex_count) {
    for (uint32_t v = 0; v < vertex_count; v++) {
        weld->first[weld->remap[v] + 1]++;
    }
    for (uint32_t u = 0; u < weld->count; u++) {
        weld->first[u + 1] += weld->first[u];
    }
    for (uint32_t v = 0; v < vertex_count; v++) {
        /* first[u] runs ahead while filling and is shifted back below */
        weld->copies[weld->first[weld->remap[v]]++] = v;
    }
    for (uint32_t u = weld->count; u > 0; u--) {
        weld->first[u] = weld->first[u - 1];
    }
    weld->first[0] = 0;
}

bool crowd__bake_lod_weld_build(const crowd_mesh *mesh, bake_lod_weld *weld) {
    uint32_t count = mesh->vertex_count;
    weld_key *keys = calloc(count, sizeof *keys);
    weld->remap = malloc(count * sizeof *weld->remap);
    weld->materials = malloc(count * sizeof *weld->materials);
    weld->copies = malloc(count * sizeof *weld->copies);
    if (keys == NULL || weld->remap == NULL || weld->materials == NULL || weld->copies == NULL) {
        free(keys);
        return false;
    }
    crowd__bake_vertex_materials(mesh, weld->materials);
    fill_keys(mesh, weld->materials, keys);
    weld->count =
        (uint32_t)meshopt_generateVertexRemap(weld->remap, NULL, count, keys, count, sizeof *keys);
    weld->positions = malloc(3 * (size_t)weld->count * sizeof(float));
    weld->first = calloc((size_t)weld->count + 1, sizeof *weld->first);
    if (weld->positions != NULL && weld->first != NULL) {
        for (uint32_t v = 0; v < count; v++) {
            memcpy(weld->positions + 3 * (size_t)weld->remap[v], keys[v].position,
                   3 * sizeof(float));
        }
        group_copies(weld, count);
    }
    free(keys);
    return weld->positions != NULL && weld->first != NULL;
}

uint32_t crowd__bake_lod_weld_triangles(const crowd_mesh *mesh, const bake_lod_weld *weld,
                                        uint32_t *out) {
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

void crowd__bake_lod_unweld(const crowd_mesh *mesh, const bake_lod_weld *weld,
                            const uint32_t *welded, uint32_t count, uint32_t *out) {
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

void crowd__bake_lod_weld_smooth(const crowd_mesh *mesh, const bake_lod_weld *weld, uint8_t *out) {
    for (uint32_t u = 0; u < weld->count; u++) {
        const float *n0 = mesh->normals + 3 * (size_t)weld->copies[weld->first[u]];
        bool smooth = true;
        for (uint32_t m = weld->first[u] + 1; m < weld->first[u + 1]; m++) {
            const float *n = mesh->normals + 3 * (size_t)weld->copies[m];
            smooth = smooth && n[0] * n0[0] + n[1] * n0[1] + n[2] * n0[2] > 0.999f;
        }
        for (uint32_t m = weld->first[u]; m < weld->first[u + 1]; m++) {
            out[weld->copies[m]] = smooth;
        }
    }
}
