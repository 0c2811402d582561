/* fade_render.c - the crossfade reference for the browser test: one
 * instance of a bake folder drawn by crowd's runtime part-way through a
 * crowd_instance_play crossfade, written as a PNG. `crowd render` has no
 * crossfade option; this draws what it would, with the same sky colour,
 * default light and look-at camera (tools/stage.c, tools/cmd_render.c).
 *
 *   fade_render DIR OUT.png vat|bat WIDTH HEIGHT EX,EY,EZ,TX,TY,TZ
 *               FROM_CLIP TO_CLIP PLAY_AT_S FADE_S TIME_S
 *
 * The instance is added at clock 0 playing FROM_CLIP, at clock PLAY_AT_S
 * starts TO_CLIP with a FADE_S crossfade, and is drawn at clock TIME_S.
 * Exit 0 when the PNG was written, 1 on any failure (with the reason).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "host.h"

/* tools/stage.c's sky, linear RGB. */
static const float clear_rgb[3] = {0.32f, 0.38f, 0.46f};

typedef struct job {
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

static int draw(job *j, char **argv) {
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
    uint32_t to_clip = 0;
    if (clip_index(j, archetype, argv[7], &instance_desc.clip) != 0 ||
        clip_index(j, archetype, argv[8], &to_clip) != 0) {
        return 1;
    }
    crowd_instance instance;
    crowd_draw_desc draw = {.pass = CROWD_PASS_COLOR};
    crowd_light_default(&draw.light);
    if (crowd_world_add_instance(j->world, archetype, &instance_desc, &instance, &error) !=
        CROWD_OK) {
        return fail(&error);
    }
    crowd_world_set_time(j->world, atof(argv[9]));
    if (crowd_instance_play(j->world, instance, to_clip, (float)atof(argv[10]), &error) !=
            CROWD_OK ||
        crowd_world_update(j->world, atof(argv[11]), &error) != CROWD_OK ||
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
    if (argc != 12) {
        fprintf(stderr, "usage: fade_render DIR OUT.png vat|bat WIDTH HEIGHT EX,EY,EZ,TX,TY,TZ "
                        "FROM_CLIP TO_CLIP PLAY_AT_S FADE_S TIME_S\n");
        return 1;
    }
    job j = {0};
    int code = draw(&j, argv);
    free(j.pixels);
    host_target_release(&j.target);
    crowd_world_destroy(j.world);
    host_context_destroy(j.context);
    crowd_bake_destroy(j.bake);
    return code;
}
