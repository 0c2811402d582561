/* test_gpu - the crowd world on llvmpipe: every mode against images of the
 * same pose skinned on the CPU by the reference functions, crossfades,
 * per-instance phase and speed, draw-call counts, what each change uploads,
 * GPU memory accounting and every error path; mixed worlds composited by
 * depth, the depth-only pass, the application's own draws around crowd's,
 * shadow maps, the GL state crowd leaves, and the game's own shading.
 *
 * Reference images: the posed mesh (crowd_anim_sample / crowd_anim_blend /
 * crowd_skin_reference, computed here) drawn as a rigid character in static
 * mode, so no playback code of the world is involved in them.
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
 * Usage: test_gpu [group]   groups: bar (with api and builtin), api,
 *                           builtin, models (../shared/models), world (with
 *                           state and shade), state, shade, cull, cli, time,
 *                           programs, handles, events (with bar), query
 *                           (joint and socket queries), rootmotion
 *                           (crowd_instance_root_motion), blend (1D
 *                           blends, speed matching), pose (the
 *                           game's own poses), props (run-time props),
 *                           state_portable
 *                           (with world), portable, and portable_gl33,
 *                           portable_gles3, state_gl33 and state_gles3
 *                           (each on its own context, run alone); none =
 *                           all but those four
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/gl.h>

#include "check.h"
#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

host_context *gpu_test_context;
host_target gpu_test_target;
crowd_gpu_tier gpu_test_tier = CROWD_TIER_AUTO;
const float gpu_test_clear[3] = {0.32f, 0.38f, 0.46f};

static const int THRESHOLD = 24;

double gpu_test_tolerance(crowd_gpu_mode mode) {
    return mode == CROWD_GPU_MODE_BAT || mode == CROWD_GPU_MODE_VAT ? GPU_TEST_BAKED
                                                                    : GPU_TEST_EXACT;
}

crowd_camera gpu_test_bar_camera(void) {
    const float min[3] = {-1.8f, 0.0f, -0.8f}, max[3] = {1.8f, 2.1f, 0.8f};
    crowd_camera camera;
    crowd_camera_frame_box(min, max, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &camera);
    return camera;
}

bool gpu_scene_create(const crowd_asset *asset, const crowd_bake *bake, crowd_gpu_mode mode,
                      gpu_scene *out) {
    out->world = NULL;
    out->archetype = (crowd_archetype){0};
    crowd_error error;
    if (crowd_world_create(&(crowd_world_desc){.tier = gpu_test_tier}, &out->world, &error) !=
        CROWD_OK) {
        fprintf(stderr, "world: %s\n", error.reason);
        return false;
    }
    crowd_archetype_desc desc = {.asset = asset, .bake = bake, .mode = mode};
    if (crowd_world_add_archetype(out->world, &desc, &out->archetype, &error) != CROWD_OK) {
        fprintf(stderr, "archetype (%s): %s\n", crowd_gpu_mode_name(mode), error.reason);
        gpu_scene_destroy(out);
        return false;
    }
    return true;
}

void gpu_scene_destroy(gpu_scene *scene) {
    crowd_world_destroy(scene->world);
    scene->world = NULL;
}

crowd_draw_desc gpu_test_draw_desc(const crowd_camera *camera, crowd_pass pass) {
    crowd_draw_desc desc = {.pass = pass};
    if (!crowd_camera_matrices(camera, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, desc.view,
                               desc.projection)) {
        fprintf(stderr, "degenerate test camera\n");
    }
    crowd_light_default(&desc.light);
    return desc;
}

bool gpu_test_frame(crowd_world *world, double time_s, const crowd_draw_desc *desc) {
    host_target_begin(&gpu_test_target, gpu_test_clear);
    crowd_error error;
    if (crowd_world_update(world, time_s, &error) != CROWD_OK ||
        crowd_world_draw(world, desc, &error) != CROWD_OK) {
        fprintf(stderr, "frame at %.3f s: %s\n", time_s, error.reason);
        return false;
    }
    return true;
}

uint8_t *gpu_test_read_rgba(void) {
    uint8_t *pixels = malloc(GPU_TEST_PIXELS * 4);
    crowd_error error;
    if (pixels != NULL &&
        host_target_read_rgba(&gpu_test_target, pixels, GPU_TEST_PIXELS * 4, &error) != CROWD_OK) {
        fprintf(stderr, "read pixels: %s\n", error.reason);
        free(pixels);
        return NULL;
    }
    return pixels;
}

float *gpu_test_read_depth(void) {
    float *depth = malloc(GPU_TEST_PIXELS * sizeof(float));
    crowd_error error;
    if (depth != NULL &&
        host_target_read_depth(&gpu_test_target, depth, GPU_TEST_PIXELS, &error) != CROWD_OK) {
        fprintf(stderr, "read depth: %s\n", error.reason);
        free(depth);
        return NULL;
    }
    return depth;
}

uint8_t *gpu_test_render(crowd_world *world, double time_s, const crowd_camera *camera) {
    crowd_draw_desc desc = gpu_test_draw_desc(camera, CROWD_PASS_COLOR);
    return gpu_test_frame(world, time_s, &desc) ? gpu_test_read_rgba() : NULL;
}

uint8_t *gpu_test_reference_at(const crowd_asset *asset, const float *skin_matrices,
                               const float position[3], float heading_rad,
                               const crowd_camera *camera) {
    crowd_asset *posed = fixture_posed_copy(asset, skin_matrices);
    gpu_scene scene;
    uint8_t *pixels = NULL;
    if (posed != NULL && gpu_scene_create(posed, NULL, CROWD_GPU_MODE_STATIC, &scene)) {
        crowd_instance_desc desc = {.heading_rad = heading_rad};
        memcpy(desc.position, position, sizeof desc.position);
        crowd_instance id;
        if (crowd_world_add_instance(scene.world, scene.archetype, &desc, &id, NULL) == CROWD_OK) {
            pixels = gpu_test_render(scene.world, 0.0, camera);
        }
        gpu_scene_destroy(&scene);
    }
    crowd_asset_destroy(posed);
    return pixels;
}

uint8_t *gpu_test_reference(const crowd_asset *asset, const float *skin_matrices,
                            const crowd_camera *camera) {
    const float origin[3] = {0.0f, 0.0f, 0.0f};
    return gpu_test_reference_at(asset, skin_matrices, origin, 0.0f, camera);
}

bool gpu_test_close(const char *what, const uint8_t *a, const uint8_t *b, double max_fraction) {
    image_diff d = image_compare(a, b, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, THRESHOLD);
    double fraction = (double)d.differing / GPU_TEST_PIXELS;
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

void gpu_test_save(const char *stem, const char *suffix, const uint8_t *pixels) {
    char name[192];
    snprintf(name, sizeof name, "%s_%s.png", stem, suffix);
    image_save(name, pixels, GPU_TEST_WIDTH, GPU_TEST_HEIGHT);
}

uint32_t gpu_test_live_programs(void) {
    uint32_t count = 0;
    for (GLuint name = 1; name < 4096; name++) {
        count += glIsProgram(name) ? 1u : 0u;
    }
    return count;
}

static bool run_group(const char *which, const char *group, const char *parent) {
    return which == NULL || strcmp(which, group) == 0 ||
           (parent != NULL && strcmp(which, parent) == 0);
}

/* Groups' results together: failed when any failed, skipped only when every
 * group that ran checked nothing. */
static int combine(int so_far, int group) {
    if (so_far == 1 || group == 1) {
        return 1;
    }
    return so_far == 0 || group == 0 ? 0 : 77;
}

int main(int argc, char **argv) {
    check_enter_temp_dir("test_gpu");
    const char *which = argc > 1 ? argv[1] : NULL;
    int result = 77;
    if (run_group(which, "cli", NULL)) {
        result = combine(result, test_gpu_cli());
    }
    if (which != NULL && strcmp(which, "cli") == 0) {
        return result;
    }
    /* Contexts of their own kind, made by the group (no 4.5 context first:
     * Mesa fixes a process's GL version at its first context). */
    if (which != NULL && strcmp(which, "portable_gl33") == 0) {
        return test_gpu_portable_context(HOST_CONTEXT_GL33);
    }
    if (which != NULL && strcmp(which, "portable_gles3") == 0) {
        return test_gpu_portable_context(HOST_CONTEXT_GLES3);
    }
    if (which != NULL && strcmp(which, "state_gl33") == 0) {
        return test_gpu_state_context(HOST_CONTEXT_GL33);
    }
    if (which != NULL && strcmp(which, "state_gles3") == 0) {
        return test_gpu_state_context(HOST_CONTEXT_GLES3);
    }
    crowd_error error;
    if (host_context_create(NULL, &gpu_test_context, &error) != CROWD_OK) {
        printf("SKIP: no OpenGL 4.5 context: %s\n", error.reason);
        return result;
    }
    host_context_info info;
    host_context_get_info(gpu_test_context, &info);
    printf("GL: %s | %s | %s\n", info.platform, info.renderer, info.version);
    if (strstr(info.version, "4.") == NULL && strstr(info.version, "OpenGL") == NULL) {
        fprintf(stderr, "not an OpenGL 4 context: %s\n", info.version);
        result = 1;
    }
    if (host_target_resize(&gpu_test_target, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, &error) != CROWD_OK) {
        fprintf(stderr, "test target: %s\n", error.reason);
        host_context_destroy(gpu_test_context);
        return 1;
    }
    if (run_group(which, "bar", NULL)) {
        result = combine(result, test_gpu_bar());
    }
    if (run_group(which, "api", "bar")) {
        result = combine(result, test_gpu_api());
    }
    if (run_group(which, "time", "bar")) {
        result = combine(result, test_gpu_time());
    }
    if (run_group(which, "programs", "bar")) {
        result = combine(result, test_gpu_programs());
    }
    if (run_group(which, "handles", "bar")) {
        result = combine(result, test_gpu_handles());
    }
    if (run_group(which, "events", "bar")) {
        result = combine(result, test_gpu_events());
    }
    if (run_group(which, "builtin", "bar")) {
        result = combine(result, test_gpu_builtin());
    }
    if (run_group(which, "models", NULL)) {
        result = combine(result, test_gpu_models());
    }
    if (run_group(which, "world", NULL)) {
        result = combine(result, test_gpu_world());
    }
    if (run_group(which, "state", "world")) {
        result = combine(result, test_gpu_state());
    }
    if (run_group(which, "state_portable", "world")) {
        result = combine(result, test_gpu_state_portable());
    }
    if (run_group(which, "portable", NULL)) {
        result = combine(result, test_gpu_portable());
    }
    if (run_group(which, "shade", "world")) {
        result = combine(result, test_gpu_shade());
    }
    if (run_group(which, "cull", NULL)) {
        result = combine(result, test_gpu_cull());
    }
    if (run_group(which, "query", NULL)) {
        result = combine(result, test_gpu_query());
    }
    if (run_group(which, "blend", NULL)) {
        result = combine(result, test_gpu_blend());
    }
    if (run_group(which, "rootmotion", NULL)) {
        result = combine(result, test_gpu_root_motion());
    }
    if (run_group(which, "props", NULL)) {
        result = combine(result, test_gpu_props());
    }
    if (run_group(which, "record", NULL)) {
        result = combine(result, test_gpu_record());
    }
    if (run_group(which, "nearest", NULL)) {
        result = combine(result, test_gpu_nearest());
    }
    if (run_group(which, "pose", NULL)) {
        result = combine(result, test_gpu_pose());
        result = combine(result, test_gpu_pose_api());
    }
    host_target_release(&gpu_test_target);
    host_context_destroy(gpu_test_context);
    host_context_destroy(NULL);
    return result;
}
