/* cast.h - the characters of a (possibly mixed) crowd: one per MODEL|DIR
 * argument of render or play, each one archetype of the command's world.
 *
 * Each archetype plays the mode asked for. A lone character that cannot is
 * an error (CROWD_ERROR_UNSUPPORTED: cpu and gpu need the source asset);
 * in a mixed crowd it plays the nearest mode it has instead
 * (scene_nearest_mode), and the cast says so on stderr, so one bake folder
 * among models does not stop the crowd.
 *
 * Ownership: the cast owns its characters; cast_release after the world.
 */
#ifndef CROWD_TOOLS_CAST_H
#define CROWD_TOOLS_CAST_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/gpu.h"
#include "scene.h"

#define CAST_MAX_CHARACTERS 16u

typedef struct cast {
    scene_character characters[CAST_MAX_CHARACTERS];
    crowd_archetype archetypes[CAST_MAX_CHARACTERS]; /* once added to a world */
    uint32_t count;
} cast;

/* Loads every spec (count <= CAST_MAX_CHARACTERS), baking models in memory
 * when `bake` is set. On failure nothing stays loaded. Errors of
 * scene_character_load. */
crowd_result cast_load(cast *c, const char *const *specs, uint32_t count, bool bake,
                       const crowd_logger *logger, crowd_error *error);
void cast_release(cast *c);

/* The mode character `index` plays when `wanted` is asked for (see above);
 * false (with the error set) when a lone character cannot play it. Prints
 * the fallback to stderr when `tell` is set. */
bool cast_mode(const cast *c, uint32_t index, crowd_gpu_mode wanted, bool tell, crowd_gpu_mode *out,
               crowd_error *error);

/* Adds every character to `world` in cast_mode(wanted[i]) (`wanted` has
 * one mode per character). Errors of cast_mode and scene_archetype_add. */
crowd_result cast_add_archetypes(cast *c, crowd_world *world, const crowd_gpu_mode *wanted,
                                 crowd_error *error);

/* Puts every archetype in cast_mode(wanted), silently; *fell_back tells
 * whether some character plays another mode. Errors of cast_mode and
 * crowd_archetype_set_mode. */
crowd_result cast_set_mode(cast *c, crowd_world *world, crowd_gpu_mode wanted, bool *fell_back,
                           crowd_error *error);

#endif
