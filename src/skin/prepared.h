/* prepared.h - the SIMD layout of a prepared mesh, shared by the kernels.
 *
 * Vertices are grouped by influence count (1..4). Each group is a run of
 * blocks of SKIN_LANES vertices; a block is one record of 32-bit words:
 *
 *   positions  [3][8]  x of the 8 lanes, then y, then z
 *   normals    [3][8]
 *   weights    [n][8]  weight i of the 8 lanes, for i < n influences
 *   offsets    [n][8]  uint32_t, same order: 12 * joint, where that joint's
 *                      matrix starts in the palette (in floats)
 *   vertices   [8]     uint32_t, each lane's index in the original mesh
 *
 * padded to a multiple of 8 words so every record starts 32-byte aligned.
 * Only the group's last block may be partial; its unused lanes hold zero
 * weights and joint 0 and are never stored.
 *
 * Offsets rather than u16 joint indices: the kernels then address a matrix
 * with one load and one add per influence instead of a load, a multiply by
 * 12 and an add (in the AVX2 kernel at 4 influences that multiply was a
 * sixth of all instructions). It costs 2 more bytes per influence.
 */
#ifndef CROWD_SKIN_PREPARED_H
#define CROWD_SKIN_PREPARED_H

#include <stdint.h>

#include "crowd/skin.h"

#define SKIN_LANES 8

/* The SSE2 and AVX2 paths exist on x86-64. Defining CROWD_SKIN_PORTABLE
 * builds what other CPUs get (scalar only), so that configuration can be
 * compiled and tested on an x86-64 machine too. */
#if defined(__x86_64__) && !defined(CROWD_SKIN_PORTABLE)
#define SKIN_X86 1
#else
#define SKIN_X86 0
#endif

typedef struct skin_group {
    uint32_t influences; /* 1..4 */
    uint32_t vertex_count;
    uint32_t block_count;
    uint32_t first_block;  /* index of this group's first block over the whole mesh */
    uint32_t block_words;  /* record stride in 32-bit words */
    unsigned char *blocks; /* block_count records, 32-byte aligned */
} skin_group;

struct crowd_skin_prepared {
    crowd_allocator allocator; /* what the blocks below came from */
    void *block;               /* the allocation `memory` lies in */
    uint32_t vertex_count;
    uint32_t joint_count;
    uint32_t block_count;                    /* over all groups */
    skin_group groups[CROWD_MAX_INFLUENCES]; /* groups[n - 1] has n influences */
    void *memory;
    size_t size_bytes;
};

static inline const float *skin_block_positions(const skin_group *group, uint32_t block) {
    return (const float *)(const void *)(group->blocks + (size_t)block * group->block_words * 4);
}
static inline const float *skin_block_normals(const skin_group *group, uint32_t block) {
    return skin_block_positions(group, block) + 3 * SKIN_LANES;
}
static inline const float *skin_block_weights(const skin_group *group, uint32_t block) {
    return skin_block_positions(group, block) + 6 * SKIN_LANES;
}
static inline const uint32_t *skin_block_offsets(const skin_group *group, uint32_t block) {
    return (const uint32_t *)(const void *)(skin_block_weights(group, block) +
                                            group->influences * SKIN_LANES);
}
static inline const uint32_t *skin_block_vertices(const skin_group *group, uint32_t block) {
    return skin_block_offsets(group, block) + group->influences * SKIN_LANES;
}
/* Valid lanes of a block: SKIN_LANES except maybe in the last one. */
static inline uint32_t skin_block_lanes(const skin_group *group, uint32_t block) {
    uint32_t rest = group->vertex_count - block * SKIN_LANES;
    return rest < SKIN_LANES ? rest : SKIN_LANES;
}

/* crowd_skin_prepared_create with its memory from `allocator` (NULL or
 * zeroed: malloc), freed through it by crowd_skin_prepared_destroy. */
crowd_result crowd__skin_prepared_create(const crowd_mesh *mesh, const crowd_allocator *allocator,
                                         crowd_skin_prepared **out_prepared, crowd_error *error);

/* Skins blocks [begin, end) of one group. out_normals may be NULL. */
typedef void (*skin_kernel)(const skin_group *group, uint32_t begin, uint32_t end,
                            const float *skin_matrices, float *out_positions, float *out_normals);

void crowd__skin_kernel_scalar(const skin_group *group, uint32_t begin, uint32_t end,
                               const float *skin_matrices, float *out_positions,
                               float *out_normals);
#if SKIN_X86
void crowd__skin_kernel_sse2(const skin_group *group, uint32_t begin, uint32_t end,
                             const float *skin_matrices, float *out_positions, float *out_normals);
void crowd__skin_kernel_avx2(const skin_group *group, uint32_t begin, uint32_t end,
                             const float *skin_matrices, float *out_positions, float *out_normals);
#endif

/* Kernel of a supported, resolved path (not AUTO). */
skin_kernel crowd__skin_kernel_for(crowd_skin_path path);

/* Skins the blocks [begin, end) counted over the whole mesh (see first_block). */
void crowd__skin_run_blocks(const crowd_skin_prepared *prepared, skin_kernel kernel, uint32_t begin,
                            uint32_t end, const float *skin_matrices, float *out_positions,
                            float *out_normals);

#endif
