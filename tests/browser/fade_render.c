/* fade_render.c - the crossfade reference for the browser test: one
 * instance of a bake folder drawn by crowd's runtime part-way through a
 * crowd_instance_play crossfade, written as a PNG. `crowd render` has no
 * crossfade option; this draws what it would, with the same sky colour,
 * default light and look-at camera (tools/stage.c, tools/cmd_render.c).
 *
 *   fade_render DIR OUT.png vat|bat WIDTH HEIGHT EX,EY,EZ,TX,TY,TZ
 *               FROM_CLIP TO_CLIP PLAY_AT_S FADE_S TIME_S
 *   fade_render DIR OUT.png vat|bat WIDTH HEIGHT EX,EY,EZ,TX,TY,TZ
 *               FROM_CLIP TIME_S STEP...
 *
 * The instance is added at clock 0 playing FROM_CLIP, at clock PLAY_AT_S
 * starts TO_CLIP with a FADE_S crossfade, and is drawn at clock TIME_S. The
 * second form plays steps instead, each at its clock AT (in order):
 *   p:AT:CLIP:FADE          crowd_instance_play
 *   b:AT:BLEND:PARAM:FADE   crowd_instance_play_blend (BLEND a name)
 *   v:AT:PARAM              crowd_instance_set_blend_parameter
 *   n:CLIP:X:Z              another instance at (X, 0, Z) playing CLIP from 0
 *                           (instances 1, 2, ...; the steps above act on 0)
 *   w:I:SOCKET:MODEL        instance I carries MODEL (crowd_model_load, e.g.
 *                           builtin:sword) on SOCKET (crowd_world_add_prop)
 * Exit 0 when the PNG was written, 1 on any failure (with the reason).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "crowd/import.h"
#include "host.h"

#define MAX_INSTANCES 8

/* tools/stage.c's sky, linear RGB. */
static const float clear_rgb[3] = {0.32f, 0.38f, 0.46f};

typedef struct job {
    crowd_instance instances[MAX_INSTANCES];
    uint32_t instance_count;
    crowd_bake *bake;
    host_context *context;
    crowd_world *world;
    host_target target;
    uint8_t *pixels;
} job;

static int fail(const crowd_error *error) {
    fprintf(stderr, "fade_render: %s%s%s\n", error->file[0] ? error->file : "",
            error->file[0] ? ": " : "", error->reason);
    return 1;
}

static int clip_index(const job *j, crowd_archetype a, const char *name, uint32_t *out) {
    if (!crowd_archetype_find_clip(j->world, a, name, out)) {
        fprintf(stderr, "fade_render: no clip '%s'\n", name);
        return 1;
    }
    return 0;
}

/* The n: and w: steps (instances and their run-time props). */
static int scene_step(job *j, crowd_archetype a, const char *step, crowd_error *error) {
    char name[65], model[65];
    float x, z;
    unsigned i;
    uint32_t clip;
    if (sscanf(step, "n:%64[^:]:%f:%f", name, &x, &z) == 3) {
        crowd_instance_desc desc = {.clip = 0, .position = {x, 0.0f, z}};
        if (clip_index(j, a, name, &clip) != 0 || j->instance_count == MAX_INSTANCES) {
            return 1;
        }
        desc.clip = clip;
        return crowd_world_add_instance(j->world, a, &desc, &j->instances[j->instance_count++],
                                        error) == CROWD_OK
                   ? 0
                   : fail(error);
    }
    if (sscanf(step, "w:%u:%64[^:]:%64s", &i, name, model) != 3 || i >= j->instance_count) {
        fprintf(stderr, "fade_render: bad step '%s'\n", step);
        return 1;
    }
    crowd_asset *asset = NULL;
    crowd_prop prop;
    crowd_result result = crowd_model_load(model, NULL, &asset, error);
    if (result == CROWD_OK) {
        crowd_prop_desc desc = {.asset = asset, .socket = name};
        result = crowd_world_add_prop(j->world, a, &desc, &prop, error);
    }
    crowd_asset_destroy(asset);
    if (result == CROWD_OK) {
        result = crowd_instance_attach_prop(j->world, j->instances[i], prop, error);
    }
    return result == CROWD_OK ? 0 : fail(error);
}

/* One step of the second form at its clock. */
static int play_step(job *j, crowd_archetype a, crowd_instance instance, const char *step,
                     crowd_error *error) {
    char name[65];
    double at;
    float x, y;
    uint32_t index;
    crowd_blend blend;
    crowd_result result;
    if (step[0] == 'n' || step[0] == 'w') {
        return scene_step(j, a, step, error);
    }
    if (sscanf(step, "p:%lf:%64[^:]:%f", &at, name, &x) == 3 &&
        clip_index(j, a, name, &index) == 0) {
        crowd_world_set_time(j->world, at);
        result = crowd_instance_play(j->world, instance, index, x, error);
    } else if (sscanf(step, "b:%lf:%64[^:]:%f:%f", &at, name, &x, &y) == 4 &&
               crowd_archetype_find_blend(j->world, a, name, &blend)) {
        crowd_world_set_time(j->world, at);
        result = crowd_instance_play_blend(j->world, instance, blend, x, y, error);
    } else if (sscanf(step, "v:%lf:%f", &at, &x) == 2) {
        crowd_world_set_time(j->world, at);
        result = crowd_instance_set_blend_parameter(j->world, instance, x, error);
    } else {
        fprintf(stderr, "fade_render: bad step '%s'\n", step);
        return 1;
    }
    return result == CROWD_OK ? 0 : fail(error);
}

/* The old form's crossfade as a step: p:PLAY_AT:TO_CLIP:FADE. */
static int fade_step(job *j, crowd_archetype a, crowd_instance instance, char **argv,
                     crowd_error *error) {
    char step[128];
    snprintf(step, sizeof step, "p:%s:%s:%s", argv[9], argv[8], argv[10]);
    return play_step(j, a, instance, step, error);
}

static int draw(job *j, int argc, char **argv) {
    crowd_error error = {0};
    crowd_gpu_mode mode;
    uint32_t width = (uint32_t)atoi(argv[4]), height = (uint32_t)atoi(argv[5]);
    crowd_camera camera = {0};
    if (!crowd_gpu_mode_parse(argv[3], &mode) ||
        sscanf(argv[6], "%f,%f,%f,%f,%f,%f", &camera.eye[0], &camera.eye[1], &camera.eye[2],
               &camera.target[0], &camera.target[1], &camera.target[2]) != 6) {
        fprintf(stderr, "fade_render: bad mode or camera\n");
        return 1;
    }
    if (crowd_bake_load(argv[1], NULL, &j->bake, &error) != CROWD_OK ||
        host_context_create(NULL, &j->context, &error) != CROWD_OK ||
        crowd_world_create(NULL, &j->world, &error) != CROWD_OK) {
        return fail(&error);
    }
    crowd_archetype archetype;
    crowd_archetype_desc desc = {.bake = j->bake, .mode = mode};
    if (crowd_world_add_archetype(j->world, &desc, &archetype, &error) != CROWD_OK) {
        return fail(&error);
    }
    crowd_instance_desc instance_desc = {0};
    if (clip_index(j, archetype, argv[7], &instance_desc.clip) != 0) {
        return 1;
    }
    bool steps = argc != 12 || strchr(argv[8], ':') != NULL || strchr(argv[9], ':') != NULL;
    double time_s = atof(argv[steps ? 8 : 11]);
    crowd_draw_desc draw = {.pass = CROWD_PASS_COLOR};
    crowd_light_default(&draw.light);
    if (crowd_world_add_instance(j->world, archetype, &instance_desc, &j->instances[0], &error) !=
        CROWD_OK) {
        return fail(&error);
    }
    j->instance_count = 1;
    crowd_instance instance = j->instances[0];
    for (int k = 9; steps && k < argc; k++) {
        if (play_step(j, archetype, instance, argv[k], &error) != 0) {
            return 1;
        }
    }
    if (!steps && fade_step(j, archetype, instance, argv, &error) != 0) {
        return 1;
    }
    if (crowd_world_update(j->world, time_s, &error) != CROWD_OK ||
        host_target_resize(&j->target, width, height, &error) != CROWD_OK) {
        return fail(&error);
    }
    if (!crowd_camera_matrices(&camera, (float)width / (float)height, draw.view, draw.projection)) {
        fprintf(stderr, "fade_render: degenerate camera\n");
        return 1;
    }
    host_target_begin(&j->target, clear_rgb);
    size_t bytes = (size_t)width * height * 4;
    j->pixels = malloc(bytes);
    if (j->pixels == NULL) {
        fprintf(stderr, "fade_render: out of memory\n");
        return 1;
    }
    if (crowd_world_draw(j->world, &draw, &error) != CROWD_OK ||
        host_target_read_rgba(&j->target, j->pixels, bytes, &error) != CROWD_OK ||
        host_write_png(argv[2], width, height, j->pixels, &error) != CROWD_OK) {
        return fail(&error);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 10) {
        fprintf(stderr, "usage: fade_render DIR OUT.png vat|bat WIDTH HEIGHT EX,EY,EZ,TX,TY,TZ "
                        "FROM_CLIP (TO_CLIP PLAY_AT_S FADE_S TIME_S | TIME_S STEP...)\n");
        return 1;
    }
    job j = {0};
    int code = draw(&j, argc, argv);
    free(j.pixels);
    host_target_release(&j.target);
    crowd_world_destroy(j.world);
    host_context_destroy(j.context);
    crowd_bake_destroy(j.bake);
    return code;
}
