/* scene_random.h - the generator of the CLI's crowds (scene.c, render_layout.c),
 * GL-free and without the offline library, so the web player (web/player.c)
 * compiles it too and draws the crowds `crowd render --seed` draws.
 */
#ifndef CROWD_TOOLS_SCENE_RANDOM_H
#define CROWD_TOOLS_SCENE_RANDOM_H

#include <stdint.h>

/* splitmix64: a well-mixed stream from any seed, the same on every
 * machine, so (seed, index) pairs that differ in one bit still give
 * unrelated instances. scene_random_unit is uniform in [0, 1) with 24 bits. */
uint64_t scene_random_u64(uint64_t *state);
float scene_random_unit(uint64_t *state);

#endif
