/* stage.h - one frame of what the CLI shows around crowd's world: the
 * shadow map (when on), the clear colour, the ground, then crowd's colour
 * pass under crowd's default daylight, into an offscreen host_target. This
 * is the application's side of the frame (crowd/gpu.h): the framebuffer,
 * viewport, camera, light and everything drawn besides the characters.
 *
 * stage_draw neither updates the world's clock nor waits for the GPU: the
 * caller calls crowd_world_update first, and waits (or not) after;
 * stage_frame does the three, timed.
 * Ownership: stage_create / stage_release on the current context.
 */
#ifndef CROWD_TOOLS_STAGE_H
#define CROWD_TOOLS_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/gpu.h"
#include "ground.h"
#include "host.h"
#include "shadow.h"

typedef struct stage {
    bool ground, shadows;
    /* LODs chosen by projected error (the target's height, 1 pixel), and
     * characters tinted by their LOD: play and demo turn them on; render
     * and bench keep every character at LOD0. */
    bool lods, lod_tint;
    crowd_frame_fetch frame_fetch; /* crowd_draw_desc.frame_fetch: 0 = auto */
    struct ground floor;
    shadow_map shadow;
    crowd_light light;
} stage;

/* Shadow map side for this context: 2048 on a GPU, 1024 on a software
 * rasterizer (where every texel is the CPU's work). */
uint32_t stage_shadow_size(const host_context *context);

/* Makes the ground's program (unless !with_ground) and the shadow map (when
 * `shadows`, of stage_shadow_size). Errors of ground_create and
 * shadow_map_create. */
crowd_result stage_create(const host_context *context, bool with_ground, bool shadows, stage *out,
                          crowd_error *error);
void stage_release(stage *s);

/* The desc of a world a stage draws: timing on (the CLI prints the times)
 * and CROWD_STATE_RESET. The stage binds what it draws with (its target,
 * the ground's program, vertex array and shadow map) before each of its
 * own draws, so nothing crowd changes needs putting back, and the glGet
 * reads of CROWD_STATE_RESTORE would make Mesa's GL thread (mesa_glthread)
 * finish the queued work, a draw of the frame's earlier pass included, on
 * the calling thread. */
crowd_world_desc stage_world_desc(uint32_t max_instances, crowd_logger logger);

/* Draws `world` as `camera` sees it into `target` (aspect from its size).
 * CROWD_ERROR_INVALID_ARGUMENT for a degenerate camera; errors of
 * crowd_world_draw. */
crowd_result stage_draw(stage *s, crowd_world *world, const host_target *target,
                        const crowd_camera *camera, crowd_error *error);

/* Draws besides crowd's in a frame of this stage (the ground). */
uint32_t stage_extra_draws(const stage *s);

/* What one frame cost the application. */
typedef struct stage_timing {
    double cpu_s;         /* thread CPU time of the update and every draw */
    double wall_s;        /* wall time until the GPU finished, or until the draws returned */
    double process_cpu_s; /* CPU time of every thread of the process over wall_s */
} stage_timing;

/* A whole frame, timed: crowd_world_update(time_s), then stage_draw, then,
 * when `wait`, glFinish, the application's choice of waiting (a frame that
 * goes to a PNG or whose GPU time is measured). Errors of both calls. */
crowd_result stage_frame(stage *s, crowd_world *world, const host_target *target,
                         const crowd_camera *camera, double time_s, bool wait, stage_timing *out,
                         crowd_error *error);

#endif
