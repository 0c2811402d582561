/* stage.c - a frame of the CLI's scene (stage.h). */
#define _POSIX_C_SOURCE 200809L

#include <string.h>
#include <time.h>

#include <epoxy/gl.h>

#include "mat4.h"
#include "stage.h"

/* The sky behind the crowd, linear RGB. */
static const float clear_rgb[3] = {0.32f, 0.38f, 0.46f};

uint32_t stage_shadow_size(const host_context *context) {
    host_context_info info;
    host_context_get_info(context, &info);
    return info.software ? 1024u : 2048u;
}

crowd_world_desc stage_world_desc(uint32_t max_instances, crowd_logger logger) {
    return (crowd_world_desc){.max_instances = max_instances,
                              .timing = true,
                              .state = CROWD_STATE_RESET,
                              .logger = logger};
}

crowd_result stage_create(const host_context *context, bool with_ground, bool shadows, stage *out,
                          crowd_error *error) {
    memset(out, 0, sizeof *out);
    out->ground = with_ground;
    out->shadows = shadows;
    crowd_light_default(&out->light);
    crowd_result result = with_ground ? ground_create(shadows, &out->floor, error) : CROWD_OK;
    if (result == CROWD_OK && shadows) {
        result = shadow_map_create(stage_shadow_size(context), &out->shadow, error);
    }
    if (result != CROWD_OK) {
        stage_release(out);
    }
    return result;
}

void stage_release(stage *s) {
    ground_release(&s->floor);
    shadow_map_release(&s->shadow);
}

crowd_result stage_draw(stage *s, crowd_world *world, const host_target *target,
                        const crowd_camera *camera, crowd_error *error) {
    crowd_draw_desc draw = {.pass = CROWD_PASS_COLOR,
                            .light = s->light,
                            .viewport_height_px = s->lods ? (float)target->height : 0.0f,
                            .debug_lod_tint = s->lod_tint,
                            .frame_fetch = s->frame_fetch};
    if (!crowd_camera_matrices(camera, (float)target->width / (float)target->height, draw.view,
                               draw.projection)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "degenerate camera (eye on target, or bad field of view or planes)");
    }
    if (s->shadows) {
        crowd_result result = shadow_map_draw(&s->shadow, world, s->light.direction, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    host_target_begin(target, clear_rgb);
    if (s->ground) {
        float view_proj[16];
        mat4_mul(draw.projection, draw.view, view_proj);
        ground_draw(&s->floor, world, view_proj, camera->eye, s->shadow.texture,
                    s->shadow.view_proj);
    }
    return crowd_world_draw(world, &draw, error);
}

uint32_t stage_extra_draws(const stage *s) {
    return s->ground ? 1u : 0u;
}

static double clock_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

crowd_result stage_frame(stage *s, crowd_world *world, const host_target *target,
                         const crowd_camera *camera, double time_s, bool wait, stage_timing *out,
                         crowd_error *error) {
    double wall = clock_s(CLOCK_MONOTONIC);
    double process = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    double thread = clock_s(CLOCK_THREAD_CPUTIME_ID);
    crowd_result result = crowd_world_update(world, time_s, error);
    if (result == CROWD_OK) {
        result = stage_draw(s, world, target, camera, error);
    }
    out->cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - thread;
    if (wait) {
        glFinish();
    }
    out->process_cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - process;
    out->wall_s = clock_s(CLOCK_MONOTONIC) - wall;
    return result;
}
