/* render_layout.h - where `crowd render` puts its instances: a square grid
 * centred on the origin, spaced by the tallest character's height, taking
 * turns among the archetypes; with a seed, random clips (unless one is
 * fixed), phases, speeds, headings and offsets from the seed's splitmix64
 * stream, drawn in instance order.
 *
 * GL-free, on crowd/gpu.h's world calls alone, so the web player
 * (web/player.c) compiles this same file and lays out the scenes that
 * `crowd render` draws (the browser test compares the two pictures).
 */
#ifndef CROWD_TOOLS_RENDER_LAYOUT_H
#define CROWD_TOOLS_RENDER_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/gpu.h"

typedef struct render_layout {
    uint32_t count; /* instances */
    bool seeded;    /* --seed given: random phases, speeds, headings, offsets */
    uint64_t seed;
    bool random_clips; /* seeded and no fixed clip: a random clip each */
} render_layout;

/* Grid spacing: the tallest character's height (a bind pose's arms, a
 * T-pose, make its footprint a poor guide); 1 for a flat cast. */
float render_layout_spacing(const crowd_world *world, const crowd_archetype *archetypes,
                            uint32_t archetype_count);

/* The descs of instances 0 .. layout->count-1 into out (room for count):
 * instance i is of archetypes[i % archetype_count] and plays
 * clips[i % archetype_count] (unless random_clips). */
void render_layout_descs(const crowd_world *world, const crowd_archetype *archetypes,
                         uint32_t archetype_count, const uint32_t *clips,
                         const render_layout *layout, crowd_instance_desc *out);

/* Adds those instances to `world`. Errors of crowd_world_add_instance,
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result render_layout_add(crowd_world *world, const crowd_archetype *archetypes,
                               uint32_t archetype_count, const uint32_t *clips,
                               const render_layout *layout, crowd_error *error);

#endif
