/* Building the prepared (SIMD) layout of a mesh, choosing a code path and
 * running it. The layout is described in prepared.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "skin/prepared.h"

static const char *const path_names[CROWD_SKIN_PATH_COUNT] = {"auto", "scalar", "sse2", "avx2"};

const char *crowd_skin_path_name(crowd_skin_path path) {
    return (unsigned)path < CROWD_SKIN_PATH_COUNT ? path_names[path] : "?";
}

bool crowd_skin_path_supported(crowd_skin_path path) {
    switch (path) {
    case CROWD_SKIN_PATH_AUTO:
    case CROWD_SKIN_PATH_SCALAR:
        return true;
#if SKIN_X86
    case CROWD_SKIN_PATH_SSE2:
        return true;
    case CROWD_SKIN_PATH_AVX2:
        /* libgcc also checks that the OS saves the AVX registers (XGETBV). */
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    default:
        return false;
    }
}

crowd_skin_path crowd_skin_path_best(void) {
    if (crowd_skin_path_supported(CROWD_SKIN_PATH_AVX2)) {
        return CROWD_SKIN_PATH_AVX2;
    }
    if (crowd_skin_path_supported(CROWD_SKIN_PATH_SSE2)) {
        return CROWD_SKIN_PATH_SSE2;
    }
    return CROWD_SKIN_PATH_SCALAR;
}

skin_kernel crowd__skin_kernel_for(crowd_skin_path path) {
    switch (path) {
#if SKIN_X86
    case CROWD_SKIN_PATH_SSE2:
        return crowd__skin_kernel_sse2;
    case CROWD_SKIN_PATH_AVX2:
        return crowd__skin_kernel_avx2;
#endif
    default:
        return crowd__skin_kernel_scalar;
    }
}

/* Non-zero weights of vertex v, at most 4; 0 for an unweighted vertex. */
static uint32_t influences_of(const crowd_mesh *mesh, uint32_t v) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < CROWD_MAX_INFLUENCES; i++) {
        n += mesh->weights[CROWD_MAX_INFLUENCES * (size_t)v + i] != 0.0f;
    }
    return n;
}

static uint32_t group_of(const crowd_mesh *mesh, uint32_t v) {
    uint32_t n = influences_of(mesh, v);
    /* An unweighted vertex becomes one zero-weight influence of joint 0, which
     * skins it to the origin like the reference's all-zero blend. */
    return n == 0 ? 0 : n - 1;
}

static size_t round_up(size_t value, size_t multiple) {
    return (value + multiple - 1) / multiple * multiple;
}

/* Writes vertex v of the mesh into lane `lane` of a block of `group`. */
static void fill_lane(const crowd_mesh *mesh, uint32_t v, skin_group *group, uint32_t block,
                      uint32_t lane) {
    float *positions = (float *)skin_block_positions(group, block);
    float *normals = (float *)skin_block_normals(group, block);
    float *weights = (float *)skin_block_weights(group, block);
    uint32_t *offsets = (uint32_t *)skin_block_offsets(group, block);
    uint32_t *vertices = (uint32_t *)skin_block_vertices(group, block);
    for (int c = 0; c < 3; c++) {
        positions[c * SKIN_LANES + lane] = mesh->positions[3 * (size_t)v + c];
        normals[c * SKIN_LANES + lane] = mesh->normals[3 * (size_t)v + c];
    }
    uint32_t slot = 0;
    for (uint32_t i = 0; i < CROWD_MAX_INFLUENCES; i++) {
        float weight = mesh->weights[CROWD_MAX_INFLUENCES * (size_t)v + i];
        if (weight != 0.0f) {
            weights[slot * SKIN_LANES + lane] = weight;
            offsets[slot * SKIN_LANES + lane] =
                12u * mesh->joints[CROWD_MAX_INFLUENCES * (size_t)v + i];
            slot++;
        }
    }
    vertices[lane] = v;
}

crowd_result crowd_skin_prepared_create(const crowd_mesh *mesh, crowd_skin_prepared **out_prepared,
                                        crowd_error *error) {
    return crowd__skin_prepared_create(mesh, NULL, out_prepared, error);
}

crowd_result crowd__skin_prepared_create(const crowd_mesh *mesh, const crowd_allocator *allocator,
                                         crowd_skin_prepared **out_prepared, crowd_error *error) {
    if (out_prepared) {
        *out_prepared = NULL;
    }
    if (!mesh || !out_prepared) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crowd_skin_prepared_create: mesh and out_prepared are required");
    }
    if (mesh->vertex_count > 0 &&
        (!mesh->positions || !mesh->normals || !mesh->joints || !mesh->weights)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crowd_skin_prepared_create: mesh lacks positions, normals, joints "
                               "or weights");
    }
    uint32_t group_vertices[CROWD_MAX_INFLUENCES] = {0};
    uint32_t joint_count = mesh->vertex_count > 0 ? 1 : 0;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        for (uint32_t i = 0; i < CROWD_MAX_INFLUENCES; i++) {
            float weight = mesh->weights[CROWD_MAX_INFLUENCES * (size_t)v + i];
            if (!isfinite(weight)) {
                return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                                       "crowd_skin_prepared_create: vertex %u: weight %u is not "
                                       "finite",
                                       v, i);
            }
            uint32_t joint = mesh->joints[CROWD_MAX_INFLUENCES * (size_t)v + i];
            if (weight != 0.0f && joint + 1 > joint_count) {
                joint_count = joint + 1;
            }
        }
        group_vertices[group_of(mesh, v)]++;
    }

    crowd_skin_prepared *prepared = crowd__mem_alloc_zeroed(allocator, 1, sizeof *prepared);
    if (!prepared) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    if (allocator != NULL) {
        prepared->allocator = *allocator;
    }
    size_t total_bytes = 0;
    uint32_t first_block = 0;
    for (uint32_t g = 0; g < CROWD_MAX_INFLUENCES; g++) {
        skin_group *group = &prepared->groups[g];
        group->influences = g + 1;
        group->vertex_count = group_vertices[g];
        group->block_count = (group_vertices[g] + SKIN_LANES - 1) / SKIN_LANES;
        group->first_block = first_block;
        group->block_words =
            (uint32_t)round_up(6 * SKIN_LANES + group->influences * SKIN_LANES * 2 + SKIN_LANES, 8);
        first_block += group->block_count;
        total_bytes += (size_t)group->block_count * group->block_words * 4;
    }
    prepared->vertex_count = mesh->vertex_count;
    prepared->joint_count = joint_count;
    prepared->block_count = first_block;
    prepared->size_bytes = sizeof *prepared + total_bytes;
    if (total_bytes > 0) {
        /* The kernels load 32-byte aligned records; an allocator promises
         * malloc's alignment only, so the block has room to align within. */
        prepared->block = crowd__mem_alloc(allocator, total_bytes + 31);
        if (!prepared->block) {
            crowd__mem_free(allocator, prepared);
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
        prepared->memory = (void *)(((uintptr_t)prepared->block + 31) & ~(uintptr_t)31);
        /* Zero padding lanes: zero weight, joint 0, position and normal 0. */
        memset(prepared->memory, 0, total_bytes);
    }
    unsigned char *cursor = prepared->memory;
    for (uint32_t g = 0; g < CROWD_MAX_INFLUENCES; g++) {
        prepared->groups[g].blocks = cursor;
        cursor += (size_t)prepared->groups[g].block_count * prepared->groups[g].block_words * 4;
    }
    uint32_t filled[CROWD_MAX_INFLUENCES] = {0};
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        uint32_t g = group_of(mesh, v);
        fill_lane(mesh, v, &prepared->groups[g], filled[g] / SKIN_LANES, filled[g] % SKIN_LANES);
        filled[g]++;
    }
    *out_prepared = prepared;
    return CROWD_OK;
}

void crowd_skin_prepared_destroy(crowd_skin_prepared *prepared) {
    if (prepared) {
        const crowd_allocator allocator = prepared->allocator;
        crowd__mem_free(&allocator, prepared->block);
        crowd__mem_free(&allocator, prepared);
    }
}

uint32_t crowd_skin_prepared_vertex_count(const crowd_skin_prepared *prepared) {
    return prepared->vertex_count;
}

uint32_t crowd_skin_prepared_joint_count(const crowd_skin_prepared *prepared) {
    return prepared->joint_count;
}

uint32_t crowd_skin_prepared_influence_count(const crowd_skin_prepared *prepared,
                                             uint32_t influences) {
    if (influences < 1 || influences > CROWD_MAX_INFLUENCES) {
        return 0;
    }
    return prepared->groups[influences - 1].vertex_count;
}

size_t crowd_skin_prepared_size_bytes(const crowd_skin_prepared *prepared) {
    return prepared->size_bytes;
}

void crowd__skin_run_blocks(const crowd_skin_prepared *prepared, skin_kernel kernel, uint32_t begin,
                            uint32_t end, const float *skin_matrices, float *out_positions,
                            float *out_normals) {
    for (uint32_t g = 0; g < CROWD_MAX_INFLUENCES; g++) {
        const skin_group *group = &prepared->groups[g];
        uint32_t group_end = group->first_block + group->block_count;
        uint32_t lo = begin > group->first_block ? begin : group->first_block;
        uint32_t hi = end < group_end ? end : group_end;
        if (lo < hi) {
            kernel(group, lo - group->first_block, hi - group->first_block, skin_matrices,
                   out_positions, out_normals);
        }
    }
}

void crowd_skin_apply(const crowd_skin_prepared *prepared, const float *skin_matrices,
                      float *out_positions, float *out_normals) {
    crowd__skin_run_blocks(prepared, crowd__skin_kernel_for(crowd_skin_path_best()), 0,
                           prepared->block_count, skin_matrices, out_positions, out_normals);
}

crowd_result crowd_skin_apply_path(const crowd_skin_prepared *prepared, crowd_skin_path path,
                                   const float *skin_matrices, float *out_positions,
                                   float *out_normals) {
    if ((unsigned)path >= CROWD_SKIN_PATH_COUNT) {
        return CROWD_ERROR_INVALID_ARGUMENT;
    }
    if (!crowd_skin_path_supported(path)) {
        return CROWD_ERROR_UNSUPPORTED;
    }
    if (path == CROWD_SKIN_PATH_AUTO) {
        path = crowd_skin_path_best();
    }
    crowd__skin_run_blocks(prepared, crowd__skin_kernel_for(path), 0, prepared->block_count,
                           skin_matrices, out_positions, out_normals);
    return CROWD_OK;
}
