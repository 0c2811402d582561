/* demo_march.h - `crowd demo`'s marching crowd: characters walking forward
 * at varied speeds on their archetype's locomotion blend (its travelling
 * clips by ground speed, locomotion.h), each moved by the demo as a game
 * moves its characters, at the speed whose blend and rate keep the planted
 * foot still (crowd_instance_set_ground_speed), carrying a mix of the
 * built-in props attached at run time (crowd_world_add_prop). */
#ifndef CROWD_TOOLS_DEMO_MARCH_H
#define CROWD_TOOLS_DEMO_MARCH_H

#include "crowd/gpu.h"

/* What demo_march_add made. */
typedef struct demo_march {
    uint32_t walkers;
    float slowest, fastest; /* the walkers' ground speeds, m/s */
    uint32_t prop_types;    /* of the archetype */
    uint32_t carried[3];    /* swords, shields, hats */
} demo_march;

/* Adds `count` walkers of `archetype` (the built-in character, or any
 * archetype with a locomotion blend and the built-in sockets) in lanes
 * beside the world's other instances, each lane at its own speed between
 * the blend's slowest and fastest clip, placed where they are at clock
 * time_s having walked from clock 0; their handles into ids[count]. */
crowd_result demo_march_add(crowd_world *world, crowd_archetype archetype, uint32_t count,
                            double time_s, crowd_instance *ids, demo_march *out,
                            crowd_error *error);

#endif
