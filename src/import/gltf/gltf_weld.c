/* gltf_weld.c - one vertex where a primitive has several that only
 * rounding tells apart, and none that no triangle uses.
 *
 * Vertices at the same position (bit for bit) whose normals and texture
 * coordinates lie within 1e-5 of each other (the distance assimp's
 * JoinIdenticalVertices used, which crowd's glTF import went through
 * before) and whose joints are equal and weights within 1e-5 become the
 * first of them; weights are compared too, so welding never changes how a
 * vertex is skinned. The vertex order is otherwise kept.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/gltf/gltf_internal.h"

#define WELD_EPSILON 1e-5f

static uint64_t position_hash(const float *p) {
    uint32_t bits[3];
    memcpy(bits, p, sizeof bits);
    uint64_t h = 1469598103934665603ull;
    for (int c = 0; c < 3; c++) {
        h = (h ^ bits[c]) * 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

static bool within(const float *a, const float *b, uint32_t count) {
    float d2 = 0.0f;
    for (uint32_t c = 0; c < count; c++) {
        d2 += (a[c] - b[c]) * (a[c] - b[c]);
    }
    return d2 <= WELD_EPSILON * WELD_EPSILON;
}

/* Whether vertex a (already kept) can stand for vertex b. */
static bool same_vertex(const gltf_primitive *p, uint32_t a, uint32_t b) {
    if (memcmp(&p->positions[3 * (size_t)a], &p->positions[3 * (size_t)b], 3 * sizeof(float)) !=
            0 ||
        (p->normals && !within(&p->normals[3 * (size_t)a], &p->normals[3 * (size_t)b], 3)) ||
        (p->uv && !within(&p->uv[2 * (size_t)a], &p->uv[2 * (size_t)b], 2))) {
        return false;
    }
    size_t n = p->influence_count;
    for (size_t k = 0; k < n; k++) {
        if (p->joints[n * a + k] != p->joints[n * b + k] ||
            fabsf(p->weights[n * a + k] - p->weights[n * b + k]) > WELD_EPSILON) {
            return false;
        }
    }
    return true;
}

static void move_vertex(gltf_primitive *p, uint32_t from, uint32_t to) {
    memcpy(&p->positions[3 * (size_t)to], &p->positions[3 * (size_t)from], 3 * sizeof(float));
    if (p->normals != NULL) {
        memcpy(&p->normals[3 * (size_t)to], &p->normals[3 * (size_t)from], 3 * sizeof(float));
    }
    if (p->uv != NULL) {
        memcpy(&p->uv[2 * (size_t)to], &p->uv[2 * (size_t)from], 2 * sizeof(float));
    }
    size_t n = p->influence_count;
    if (n > 0) {
        memcpy(&p->weights[n * to], &p->weights[n * from], n * sizeof(float));
        memcpy(&p->joints[n * to], &p->joints[n * from], n * sizeof(uint32_t));
    }
}

crowd_result crowd__gltf_weld(gltf_import *imp, gltf_primitive *p) {
    size_t slots = 16;
    while (slots < 2 * (size_t)p->vertex_count) {
        slots *= 2;
    }
    uint32_t *table = malloc(slots * sizeof *table);
    uint32_t *remap = malloc(((size_t)p->vertex_count + 1) * sizeof *remap);
    if (table == NULL || remap == NULL) {
        free(table);
        free(remap);
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    memset(table, 0xFF, slots * sizeof *table);
    memset(remap, 0xFF, ((size_t)p->vertex_count + 1) * sizeof *remap);
    /* remap[v] == UINT32_MAX - 1: used by a triangle, not yet placed. */
    for (uint32_t i = 0; i < p->index_count; i++) {
        remap[p->indices[i]] = UINT32_MAX - 1;
    }
    uint32_t unique = 0;
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        if (remap[v] == UINT32_MAX) {
            continue;
        }
        size_t slot = (size_t)position_hash(&p->positions[3 * (size_t)v]) & (slots - 1);
        while (table[slot] != UINT32_MAX && !same_vertex(p, table[slot], v)) {
            slot = (slot + 1) & (slots - 1);
        }
        if (table[slot] == UINT32_MAX) {
            if (unique != v) {
                move_vertex(p, v, unique);
            }
            table[slot] = unique++;
        }
        remap[v] = table[slot];
    }
    for (uint32_t i = 0; i < p->index_count; i++) {
        p->indices[i] = remap[p->indices[i]];
    }
    p->vertex_count = unique;
    free(table);
    free(remap);
    return CROWD_OK;
}
