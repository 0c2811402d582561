/* load_limits.h - how much memory a bake file may make the loader allocate.
 *
 * Compressed images can claim sizes far beyond their bytes (a few hundred
 * bytes of PNG can say 16384 x 16384). Lossless codecs used by bakes stay far
 * below 4096:1 (deflate's ceiling is about 1032:1), so a decoded size beyond
 * that ratio plus a fixed allowance is refused before anything is allocated.
 */
#ifndef CROWD_LOAD_LOAD_LIMITS_H
#define CROWD_LOAD_LOAD_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOAD_MAX_EXPANSION 4096u
#define LOAD_EXPANSION_ALLOWANCE_BYTES (16u << 20)

static inline bool load_size_plausible(uint64_t decoded_bytes, size_t file_bytes) {
    return decoded_bytes <=
           LOAD_EXPANSION_ALLOWANCE_BYTES + (uint64_t)file_bytes * LOAD_MAX_EXPANSION;
}

#endif
