/* crowd_example.c - the library from C: the built-in character, baked in
 * memory, 100 instances in vat mode drawn headless into crowd-example.png.
 * Exits 0 when the crowd covers a fair part of the picture, 77 when there is
 * no OpenGL 4.5 context, 1 on any other failure. */
#include <stdio.h>
#include <stdlib.h>

#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"

#define W 320
#define H 180

int main(void) {
    crowd_error e = {0};
    crowd_asset *asset = NULL;
    crowd_bake *bake = NULL;
    crowd_gpu_context *gl = NULL;
    crowd_renderer *r = NULL;
    static uint8_t rgba[W * H * 4];
    int ok = crowd_builtin_create(&asset, &e) == CROWD_OK &&
             crowd_bake_build(asset, NULL, &bake, &e) == CROWD_OK &&
             crowd_gpu_context_create(NULL, &gl, &e) == CROWD_OK &&
             crowd_renderer_create(&(crowd_renderer_desc){.context = gl,
                                                          .asset = asset,
                                                          .bake = bake,
                                                          .mode = CROWD_GPU_MODE_VAT,
                                                          .width = W,
                                                          .height = H},
                                   &r, &e) == CROWD_OK;
    for (uint32_t i = 0; ok && i < 100; i++) {
        crowd_instance_desc d = {.position = {(float)(i % 10) * 1.5f, 0, (float)(i / 10) * 1.5f},
                                 .clip = i % crowd_renderer_clip_count(r),
                                 .time_offset_s = 0.13f * (float)i};
        ok = crowd_instance_add(r, &d, &(crowd_instance_id){0}, &e) == CROWD_OK;
    }
    crowd_frame_desc frame = {.time_s = 1.0};
    float lo[3], hi[3];
    if (ok && crowd_renderer_instance_bounds(r, lo, hi)) {
        crowd_camera_frame_box(lo, hi, (float)W / H, &frame.camera);
    }
    ok = ok && crowd_renderer_draw(r, &frame, &e) == CROWD_OK &&
         crowd_renderer_read_pixels(r, rgba, sizeof rgba, &e) == CROWD_OK &&
         crowd_image_write_png("crowd-example.png", W, H, rgba, &e) == CROWD_OK;
    uint32_t differing = 0;
    for (size_t p = 0; ok && p < W * H; p++) {
        differing +=
            rgba[4 * p] != rgba[0] || rgba[4 * p + 1] != rgba[1] || rgba[4 * p + 2] != rgba[2];
    }
    if (!ok) {
        fprintf(stderr, "crowd_example: error: %s%s%s\n", e.file, e.file[0] ? ": " : "", e.reason);
    } else {
        printf("crowd-example.png: 100 characters, %u of %u pixels drawn\n", differing, W * H);
    }
    crowd_renderer_destroy(r);
    crowd_gpu_context_destroy(gl);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return !ok ? (e.result == CROWD_ERROR_GPU ? 77 : 1) : differing > W * H / 20 ? 0 : 1;
}
