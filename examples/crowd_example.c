/* crowd_example.c - the library from C: the built-in character, baked in
 * memory, 100 instances in vat mode in one world, drawn headless (the
 * context and the offscreen target come from crowd's host helpers,
 * tools/host/host.h, standing in for the application's own) into the PNG
 * named on the command line.
 *
 * Usage: crowd_example OUT.png
 * Exits 0 when the crowd covers a fair part of the picture, 77 when there is
 * no OpenGL 4.5 context, 1 on any other failure. */
#include <stdio.h>
#include <stdlib.h>

#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"
#include "host.h"

#define W 320
#define H 180

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: crowd_example OUT.png\n");
        return 1;
    }
    crowd_error e = {0};
    crowd_asset *asset = NULL;
    crowd_bake *bake = NULL;
    host_context *gl = NULL;
    host_target target = {0};
    crowd_world *world = NULL;
    crowd_archetype walker = {0};
    static uint8_t rgba[W * H * 4];
    int ok = crowd_builtin_create(&asset, &e) == CROWD_OK &&
             crowd_bake_build(asset, NULL, &bake, &e) == CROWD_OK &&
             host_context_create(NULL, &gl, &e) == CROWD_OK &&
             host_target_resize(&target, W, H, &e) == CROWD_OK &&
             crowd_world_create(NULL, &world, &e) == CROWD_OK &&
             crowd_world_add_archetype(
                 world,
                 &(crowd_archetype_desc){.asset = asset, .bake = bake, .mode = CROWD_GPU_MODE_VAT},
                 &walker, &e) == CROWD_OK;
    for (uint32_t i = 0; ok && i < 100; i++) {
        crowd_instance_desc d = {.position = {(float)(i % 10) * 1.5f, 0, (float)(i / 10) * 1.5f},
                                 .clip = i % crowd_archetype_clip_count(world, walker),
                                 .time_offset_s = 0.13f * (float)i};
        ok = crowd_world_add_instance(world, walker, &d, &(crowd_instance){0}, &e) == CROWD_OK;
    }
    crowd_camera camera;
    crowd_draw_desc frame = {.pass = CROWD_PASS_COLOR};
    float lo[3], hi[3];
    ok = ok && crowd_world_instance_bounds(world, lo, hi);
    if (ok) {
        crowd_camera_frame_box(lo, hi, (float)W / H, &camera);
        crowd_camera_matrices(&camera, (float)W / H, frame.view, frame.projection);
        crowd_light_default(&frame.light);
        const float sky[3] = {0.32f, 0.38f, 0.46f};
        host_target_begin(&target, sky);
    }
    ok = ok && crowd_world_update(world, 1.0, &e) == CROWD_OK &&
         crowd_world_draw(world, &frame, &e) == CROWD_OK &&
         host_target_read_rgba(&target, rgba, sizeof rgba, &e) == CROWD_OK &&
         host_write_png(argv[1], W, H, rgba, &e) == CROWD_OK;
    uint32_t differing = 0;
    for (size_t p = 0; ok && p < W * H; p++) {
        differing +=
            rgba[4 * p] != rgba[0] || rgba[4 * p + 1] != rgba[1] || rgba[4 * p + 2] != rgba[2];
    }
    if (!ok) {
        fprintf(stderr, "crowd_example: error: %s%s%s\n", e.file, e.file[0] ? ": " : "", e.reason);
    } else {
        printf("%s: 100 characters, %u of %u pixels drawn\n", argv[1], differing, W * H);
    }
    crowd_world_destroy(world);
    host_target_release(&target);
    host_context_destroy(gl);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return !ok ? (e.result == CROWD_ERROR_GPU ? 77 : 1) : differing > W * H / 20 ? 0 : 1;
}
