/* scene_random.c - splitmix64 (scene_random.h). */
#include "scene_random.h"

uint64_t scene_random_u64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float scene_random_unit(uint64_t *state) {
    return (float)(scene_random_u64(state) >> 40) * (1.0f / 16777216.0f);
}
