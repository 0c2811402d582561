/* ground.h - the ground under the crowd: the CLI's own GL program, drawn
 * into the bound framebuffer before crowd's colour pass so the crowd is
 * depth-tested against it. A 1 m checkerboard fading out towards its edge,
 * sized to the crowd; made with shadows, it darkens where a shadow map
 * (shadow.h) says the crowd blocks the light.
 *
 * Ownership: ground_create / ground_release on the current context.
 */
#ifndef CROWD_TOOLS_GROUND_H
#define CROWD_TOOLS_GROUND_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/gpu.h"

typedef struct ground {
    uint32_t program, vao; /* GL names */
    bool shadows;
} ground;

/* Compiles the program (sampling a shadow map when `shadows`).
 * CROWD_ERROR_GPU with the compiler's log. */
crowd_result ground_create(bool shadows, ground *out, crowd_error *error);
void ground_release(ground *g);

/* Draws the ground of `world` seen through view_proj from `eye`, depth
 * tested (GL_DEPTH_TEST is left on). With shadows, shadow_texture is the
 * depth texture and light_view_proj the matrix it was drawn with. */
void ground_draw(const ground *g, const crowd_world *world, const float view_proj[16],
                 const float eye[3], uint32_t shadow_texture, const float light_view_proj[16]);

#endif
