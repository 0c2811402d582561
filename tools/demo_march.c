/* demo_march.c - see demo_march.h. */
#include "demo_march.h"

#include <math.h>

#include "crowd/builtin.h"
#include "locomotion.h"

#define LANES 12u
#define LANE_SPACING_M 1.1f
#define ROW_SPACING_M 1.8f

/* The built-in props as prop types of the archetype, in the order of
 * crowd_builtin_prop_name (sword, shield, hat). */
static crowd_result add_props(crowd_world *world, crowd_archetype archetype, crowd_prop *props,
                              crowd_error *error) {
    crowd_result result = CROWD_OK;
    for (uint32_t i = 0; i < 3 && result == CROWD_OK; i++) {
        crowd_asset *asset = NULL;
        result = crowd_builtin_prop_create(crowd_builtin_prop_name(i), &asset, error);
        if (result == CROWD_OK) {
            crowd_prop_desc desc = {asset, crowd_builtin_prop_socket(i)};
            result = crowd_world_add_prop(world, archetype, &desc, &props[i], error);
        }
        crowd_asset_destroy(asset);
    }
    return result;
}

/* Which props walker i carries: sword and shield, a hat, a sword and a hat,
 * nothing, in turn. */
static bool carries(uint32_t walker, uint32_t prop) {
    static const bool mix[4][3] = {
        {true, true, false}, {false, false, true}, {true, false, true}, {false, false, false}};
    return mix[walker % 4][prop];
}

static crowd_result add_walker(crowd_world *world, crowd_archetype archetype,
                               const locomotion *walk, const crowd_prop *props, uint32_t i,
                               float x0, double time_s, crowd_instance *out, demo_march *march,
                               crowd_error *error) {
    uint32_t lane = i % LANES, row = i / LANES;
    /* Lanes from slow (left) to fast (right), so they spread out as they go. */
    float v = walk->slowest + (walk->fastest - walk->slowest) * (float)lane / (float)(LANES - 1);
    crowd_instance_desc desc = {.scale = 1.0f};
    desc.position[0] = x0 + (float)lane * LANE_SPACING_M;
    desc.position[2] = -(float)row * ROW_SPACING_M + v * (float)time_s;
    crowd_result result = crowd_world_add_instance(world, archetype, &desc, out, error);
    if (result == CROWD_OK) {
        result = crowd_instance_play_blend(world, *out, walk->blend, v, 0.0f, error);
    }
    if (result == CROWD_OK) {
        result = crowd_instance_set_ground_speed(world, *out, v, error);
    }
    for (uint32_t p = 0; p < 3 && result == CROWD_OK; p++) {
        if (carries(i, p)) {
            result = crowd_instance_attach_prop(world, *out, props[p], error);
            march->carried[p] += result == CROWD_OK;
        }
    }
    return result;
}

crowd_result demo_march_add(crowd_world *world, crowd_archetype archetype, uint32_t count,
                            double time_s, crowd_instance *ids, demo_march *out,
                            crowd_error *error) {
    *out = (demo_march){0};
    locomotion walk;
    crowd_result result = locomotion_declare(world, archetype, &walk, error);
    if (result == CROWD_OK && walk.blend.index == 0) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED,
                               crowd_archetype_name(world, archetype),
                               "no two travelling clips to blend by speed");
    }
    crowd_prop props[3] = {{0}};
    if (result == CROWD_OK) {
        result = add_props(world, archetype, props, error);
    }
    /* Beside what the world holds already, towards +x. */
    float lo[3], hi[3];
    float x0 = crowd_world_instance_bounds(world, lo, hi) ? hi[0] + LANE_SPACING_M : 0.0f;
    for (uint32_t i = 0; i < count && result == CROWD_OK; i++) {
        result = add_walker(world, archetype, &walk, props, i, x0, time_s, &ids[i], out, error);
        out->walkers += result == CROWD_OK;
    }
    out->slowest = walk.slowest;
    out->fastest = walk.fastest;
    out->prop_types = crowd_archetype_prop_count(world, archetype);
    return result;
}
