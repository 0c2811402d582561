/* test_gpu - the renderer on llvmpipe: every mode against images of the
 * same pose skinned on the CPU by the reference functions, crossfades,
 * per-instance phase and speed, draw-call counts, what each change uploads,
 * GPU memory accounting and every error path.
 *
 * Reference images: the posed mesh (crowd_anim_sample / crowd_anim_blend /
 * crowd_skin_reference, computed here) drawn as a rigid character in static
 * mode, so no playback code of the renderer is involved in them.
 *
 * Tolerances (160x120 images, channel values 0..255): a pixel "differs"
 * when a channel differs by more than 24; cpu and gpu skin with the same
 * matrices in another order of float operations and may move a silhouette
 * edge by a pixel, so at most 0.5 % of the pixels may differ (a wrong pose
 * moves whole limbs: tens of percent of the character's pixels). bat and vat
 * interpolate between frames baked at 30 fps and vat quantizes positions to
 * 16 bits and normals to 8+8 bits octahedral: at most 1.5 % of the pixels.
 * A crossfade at mid-fade in bat/vat blends matrices or positions instead
 * of local rotations: at most 3 % (the bar bends 45 degrees at mid-fade).
 *
 * Usage: test_gpu [group]   groups: bar (with api), api, models, cli; none = all
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"
#include "crowd/import.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

crowd_gpu_context *gpu_test_context;

static const int THRESHOLD = 24;

crowd_renderer *gpu_test_renderer(const crowd_asset *asset, const crowd_bake *bake,
                                  crowd_gpu_mode mode) {
    crowd_renderer_desc desc = {0};
    desc.context = gpu_test_context;
    desc.asset = asset;
    desc.bake = bake;
    desc.mode = mode;
    desc.width = GPU_TEST_WIDTH;
    desc.height = GPU_TEST_HEIGHT;
    crowd_renderer *r = NULL;
    crowd_error error;
    if (crowd_renderer_create(&desc, &r, &error) != CROWD_OK) {
        fprintf(stderr, "renderer (%s): %s\n", crowd_gpu_mode_name(mode), error.reason);
        return NULL;
    }
    return r;
}

uint8_t *gpu_test_render(crowd_renderer *r, double time_s, const crowd_camera *camera) {
    crowd_frame_desc frame = {0};
    frame.time_s = time_s;
    frame.camera = *camera;
    crowd_error error;
    if (crowd_renderer_draw(r, &frame, &error) != CROWD_OK) {
        fprintf(stderr, "draw: %s\n", error.reason);
        return NULL;
    }
    uint8_t *pixels = malloc(GPU_TEST_WIDTH * GPU_TEST_HEIGHT * 4);
    if (pixels != NULL &&
        crowd_renderer_read_pixels(r, pixels, GPU_TEST_WIDTH * GPU_TEST_HEIGHT * 4, &error) !=
            CROWD_OK) {
        fprintf(stderr, "read pixels: %s\n", error.reason);
        free(pixels);
        return NULL;
    }
    return pixels;
}

uint8_t *gpu_test_reference(const crowd_asset *asset, const float *skin_matrices,
                            const crowd_camera *camera) {
    crowd_asset *posed = fixture_posed_copy(asset, skin_matrices);
    crowd_renderer *r =
        posed != NULL ? gpu_test_renderer(posed, NULL, CROWD_GPU_MODE_STATIC) : NULL;
    uint8_t *pixels = NULL;
    crowd_instance_id id;
    if (r != NULL && crowd_instance_add(r, &(crowd_instance_desc){0}, &id, NULL) == CROWD_OK) {
        pixels = gpu_test_render(r, 0.0, camera);
    }
    crowd_renderer_destroy(r);
    crowd_asset_destroy(posed);
    return pixels;
}

bool gpu_test_close(const char *what, const uint8_t *a, const uint8_t *b, double max_fraction) {
    image_diff d = image_compare(a, b, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, THRESHOLD);
    double fraction = (double)d.differing / (GPU_TEST_WIDTH * GPU_TEST_HEIGHT);
    bool ok = fraction <= max_fraction && d.foreground > 100;
    printf("  %-40s differing %5.2f %% (max %.2f %%), foreground %u px, mean |d| %.3f, max %d %s\n",
           what, 100.0 * fraction, 100.0 * max_fraction, (unsigned)d.foreground, d.mean_abs,
           d.max_channel, ok ? "" : "FAIL");
    return ok;
}

bool gpu_test_different(const char *what, const uint8_t *a, const uint8_t *b, double min_fraction) {
    image_diff d = image_compare(a, b, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, THRESHOLD);
    double fraction = (double)d.differing / (double)(d.foreground > 0 ? d.foreground : 1);
    bool ok = fraction >= min_fraction;
    printf("  %-40s differing %5.2f %% of the foreground (min %.2f %%) %s\n", what,
           100.0 * fraction, 100.0 * min_fraction, ok ? "" : "FAIL");
    return ok;
}

static int run_group(const char *group, const char *which) {
    return which == NULL || strcmp(group, which) == 0;
}

int main(int argc, char **argv) {
    check_enter_temp_dir("test_gpu");
    const char *which = argc > 1 ? argv[1] : NULL;
    int failed = 0;
    if (run_group("cli", which)) {
        failed |= test_gpu_cli();
    }
    if (which != NULL && strcmp(which, "cli") == 0) {
        return failed;
    }
    crowd_error error;
    if (crowd_gpu_context_create(NULL, &gpu_test_context, &error) != CROWD_OK) {
        printf("SKIP: no OpenGL 4.5 context: %s\n", error.reason);
        return 77;
    }
    crowd_gpu_context_info info;
    crowd_gpu_context_get_info(gpu_test_context, &info);
    printf("GL: %s | %s | %s\n", info.platform, info.renderer, info.version);
    CHECK(strstr(info.version, "4.") != NULL || strstr(info.version, "OpenGL") != NULL);

    if (run_group("bar", which)) {
        failed |= test_gpu_bar();
    }
    if (run_group("bar", which) || run_group("api", which)) {
        failed |= test_gpu_api();
    }
    if (run_group("models", which)) {
        failed |= test_gpu_models();
    }
    crowd_gpu_context_destroy(gpu_test_context);
    crowd_gpu_context_destroy(NULL);
    return failed | check_finish();
}
