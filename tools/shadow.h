/* shadow.h - a shadow map of the crowd: crowd's depth-only pass drawn from
 * the light with an orthographic projection fitted to the crowd, into a
 * depth texture the ground samples (ground.h).
 *
 * The fit covers every instance's box (padded for poses that leave the
 * bind pose's box) and the shadows those boxes throw onto the ground
 * plane at the crowd's feet, so every receiver that can be in shadow lies
 * inside the map, with all of its texels spent on the crowd.
 *
 * Ownership: shadow_map_create / shadow_map_release on the current context.
 */
#ifndef CROWD_TOOLS_SHADOW_H
#define CROWD_TOOLS_SHADOW_H

#include <stdint.h>

#include "crowd/gpu.h"

typedef struct shadow_map {
    uint32_t framebuffer, texture; /* GL names: depth only, compare mode on */
    uint32_t size;                 /* texels per side */
    float view_proj[16];           /* light view-projection of the last draw */
} shadow_map;

/* A size x size depth texture and its framebuffer. CROWD_ERROR_LIMIT
 * beyond GL_MAX_TEXTURE_SIZE, CROWD_ERROR_GPU when incomplete. */
crowd_result shadow_map_create(uint32_t size, shadow_map *out, crowd_error *error);
void shadow_map_release(shadow_map *map);

/* Fits the light looking along -light_direction (towards the light, as in
 * crowd_light) to the world's crowd, clears the map and draws crowd's
 * depth pass into it. Leaves the map's framebuffer bound as the draw
 * framebuffer and the viewport on it: the caller binds its own target
 * next. Errors of crowd_world_draw. */
crowd_result shadow_map_draw(shadow_map *map, crowd_world *world, const float light_direction[3],
                             crowd_error *error);

#endif
