/* builtin_crowd.h - the GL 3.3 examples' crowd: the built-in character
 * (crowd/builtin.h) baked in memory, a world made on the current context
 * with the default tier (auto: the portable tier on OpenGL 3.3, the GL 4.5
 * tier where the driver gives 4.5), and two archetypes of the character,
 * one in vat mode, one in gpu mode (palettes in a texture on the portable
 * tier). Each program places its own instances.
 */
#ifndef CROWD_EXAMPLE_BUILTIN_CROWD_H
#define CROWD_EXAMPLE_BUILTIN_CROWD_H

#include <stdint.h>

#include "crowd/gpu.h"

typedef struct builtin_crowd {
    crowd_asset *character;
    crowd_bake *bake;
    crowd_world *world;
    crowd_archetype kinds[2]; /* vat mode, gpu mode */
    uint32_t walk, idle;      /* the character's clips */
} builtin_crowd;

/* Needs a current OpenGL 3.3 core (or later) context. */
crowd_result builtin_crowd_create(builtin_crowd *c, crowd_error *e);
void builtin_crowd_destroy(builtin_crowd *c);

/* Prints the context's version and profile and the tier crowd chose on it
 * ("context: OpenGL 3.3 core (...); crowd tier: portable"), the line the
 * examples' test reads. */
void builtin_crowd_print_context(const builtin_crowd *c);

#endif
