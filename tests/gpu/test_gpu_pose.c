/* The game's own poses (group pose; crowd/gpu.h, "The game's own poses"):
 * - an instance given, every frame, the pose crowd_anim_sample computes
 *   for its clip at its clip time renders bit for bit what an instance
 *   playing that clip renders, beside an instance that plays it, in gpu
 *   and cpu modes, on the GL 4.5 tier and the portable tier (forced on the
 *   4.5 context), for builtin:'s five clips; the model-matrix form and a
 *   rotation given at twice its length (normalized) render the same bits;
 * - the pose with the head turned differs from the clip's image, and only
 *   above the neck; clear_pose returns to the clip, and so does play;
 * - joint queries answer the given pose (model and world space, both
 *   forms); the pool stays right as instances are removed around posed
 *   ones (the slots' swap-remove);
 * - a posed instance fires no events and leaves the events' index; after
 *   clear_pose its clip fires on from the clock;
 * - NaN, infinity, a zero rotation, a wrong joint count, a NULL pose, a
 *   non-affine matrix, a dead handle: CROWD_ERROR_INVALID_ARGUMENT; static
 *   and bat modes: CROWD_ERROR_UNSUPPORTED; each with nothing changed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

/* The two instances of a scene stand this far either side of the origin. */
#define POSE_SIDE 0.45f

typedef struct pose_scene {
    crowd_world *world;
    crowd_archetype archetype;
    crowd_instance left, right; /* right is the one posed */
    crowd_camera camera;
} pose_scene;

static bool pose_scene_create(const crowd_asset *asset, const crowd_bake *bake, crowd_gpu_mode mode,
                              uint32_t clip, pose_scene *s) {
    memset(s, 0, sizeof *s);
    crowd_error error;
    crowd_archetype_desc desc = {.asset = asset, .bake = bake, .mode = mode};
    bool ok = crowd_world_create(&(crowd_world_desc){.tier = gpu_test_tier}, &s->world, &error) ==
                  CROWD_OK &&
              crowd_world_add_archetype(s->world, &desc, &s->archetype, &error) == CROWD_OK;
    crowd_instance_desc instance = {.position = {-POSE_SIDE, 0.0f, 0.0f}, .clip = clip};
    ok = ok &&
         crowd_world_add_instance(s->world, s->archetype, &instance, &s->left, &error) == CROWD_OK;
    instance.position[0] = POSE_SIDE;
    ok = ok &&
         crowd_world_add_instance(s->world, s->archetype, &instance, &s->right, &error) == CROWD_OK;
    if (!ok) {
        fprintf(stderr, "pose scene: %s\n", error.reason);
        crowd_world_destroy(s->world);
        s->world = NULL;
        return false;
    }
    float min[3], max[3];
    crowd_archetype_bind_bounds(s->world, s->archetype, min, max);
    min[0] -= POSE_SIDE + 0.3f;
    max[0] += POSE_SIDE + 0.3f;
    crowd_camera_frame_box(min, max, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &s->camera);
    return true;
}

/* The pose the CPU sampler gives clip `clip` of `asset` at world time
 * time_s for an instance added at clock 0 playing at speed 1. */
static void sampled_pose(const crowd_asset *asset, uint32_t clip, double time_s,
                         crowd_transform *out) {
    const crowd_clip *c = &asset->clips[clip];
    float t = crowd_anim_play_time((float)time_s, 0.0f, 0.0f, 1.0f, c->duration_s, c->loop);
    crowd_anim_sample(&asset->skeleton, c, t, NULL, out);
}

static bool set_pose(pose_scene *s, const crowd_transform *pose, uint32_t joints) {
    crowd_error error;
    if (crowd_instance_set_pose(s->world, s->right, pose, joints, &error) != CROWD_OK) {
        fprintf(stderr, "set_pose: %s\n", error.reason);
        return false;
    }
    return true;
}

/* Renders the scene at time_s: first with both instances playing (the
 * reference), then with the right one given the sampled pose: the images
 * must be equal bit for bit. */
static void check_identical(pose_scene *s, const crowd_asset *asset, uint32_t clip,
                            const char *what) {
    const double times[] = {0.0, 0.37, 0.81, 1.43, 2.9};
    uint32_t joints = asset->skeleton.joint_count;
    crowd_transform *pose = calloc(joints, sizeof *pose);
    REQUIRE_VOID(pose != NULL);
    for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
        crowd_instance_clear_pose(s->world, s->right, NULL);
        uint8_t *played = gpu_test_render(s->world, times[i], &s->camera);
        sampled_pose(asset, clip, times[i], pose);
        CHECK(set_pose(s, pose, joints) && crowd_instance_has_pose(s->world, s->right));
        uint8_t *posed = gpu_test_render(s->world, times[i], &s->camera);
        bool same =
            played != NULL && posed != NULL && memcmp(played, posed, GPU_TEST_PIXELS * 4) == 0;
        CHECK_MSG(same, "%s clip %u at %.2f s: the posed instance renders other pixels", what,
                  (unsigned)clip, times[i]);
        if (!same && played != NULL && posed != NULL) {
            gpu_test_save(what, "played", played);
            gpu_test_save(what, "posed", posed);
        }
        free(played);
        free(posed);
    }
    free(pose);
}

/* The model-matrix form and a rotation at twice its length give the same
 * image as the local pose. */
static void check_forms(pose_scene *s, const crowd_asset *asset, uint32_t clip, const char *what) {
    const double time_s = 0.6;
    uint32_t joints = asset->skeleton.joint_count;
    crowd_transform *pose = calloc(joints, sizeof *pose);
    float *models = calloc(16 * (size_t)joints, sizeof *models);
    REQUIRE_VOID(pose != NULL && models != NULL);
    sampled_pose(asset, clip, time_s, pose);
    CHECK(set_pose(s, pose, joints));
    uint8_t *local = gpu_test_render(s->world, time_s, &s->camera);
    crowd_anim_local_to_model(&asset->skeleton, pose, models);
    crowd_error error;
    CHECK(crowd_instance_set_pose_models(s->world, s->right, models, joints, &error) == CROWD_OK);
    uint8_t *matrices = gpu_test_render(s->world, time_s, &s->camera);
    for (uint32_t j = 0; j < joints; j++) {
        for (int k = 0; k < 4; k++) {
            pose[j].rotation[k] *= 2.0f; /* normalized back exactly: a power of 2 */
        }
    }
    CHECK(set_pose(s, pose, joints));
    uint8_t *doubled = gpu_test_render(s->world, time_s, &s->camera);
    CHECK_MSG(local != NULL && matrices != NULL &&
                  memcmp(local, matrices, GPU_TEST_PIXELS * 4) == 0,
              "%s: the model-matrix form renders other pixels", what);
    CHECK_MSG(local != NULL && doubled != NULL && memcmp(local, doubled, GPU_TEST_PIXELS * 4) == 0,
              "%s: a rotation at twice its length renders other pixels", what);
    free(local);
    free(matrices);
    free(doubled);
    free(models);
    free(pose);
}

/* The image row (top first) where world point p lands. */
static double screen_row(const crowd_camera *camera, const float p[3]) {
    float view[16], projection[16];
    crowd_camera_matrices(camera, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, view, projection);
    double eye[4], clip[4];
    for (int r = 0; r < 4; r++) {
        eye[r] = view[r] * p[0] + view[4 + r] * p[1] + view[8 + r] * p[2] + view[12 + r];
    }
    for (int r = 0; r < 4; r++) {
        clip[r] = projection[r] * eye[0] + projection[4 + r] * eye[1] + projection[8 + r] * eye[2] +
                  projection[12 + r] * eye[3];
    }
    return (1.0 - clip[1] / clip[3]) * 0.5 * GPU_TEST_HEIGHT;
}

/* The head turned 50 degrees about +X: the image differs from the clip's,
 * and only above the neck (less 0.12 m for the skin weighted to both);
 * clear_pose then renders the clip's bits again. */
static void check_modified(pose_scene *s, const crowd_asset *asset, uint32_t clip) {
    const double time_s = 0.5;
    uint32_t joints = asset->skeleton.joint_count, head = 0, neck = 0;
    REQUIRE_VOID(crowd_archetype_find_joint(s->world, s->archetype, "head", &head) &&
                 crowd_archetype_find_joint(s->world, s->archetype, "neck", &neck));
    crowd_transform *pose = calloc(joints, sizeof *pose);
    float *models = calloc(16 * (size_t)joints, sizeof *models);
    REQUIRE_VOID(pose != NULL && models != NULL);
    crowd_instance_clear_pose(s->world, s->right, NULL);
    uint8_t *played = gpu_test_render(s->world, time_s, &s->camera);
    sampled_pose(asset, clip, time_s, pose);
    crowd_anim_local_to_model(&asset->skeleton, pose, models);
    const float h = 0.4226183f, c = 0.9063078f; /* sin, cos of 25 degrees */
    float *q = pose[head].rotation, turned[4] = {
                                        c * q[0] + h * q[3],
                                        c * q[1] + h * q[2],
                                        c * q[2] - h * q[1],
                                        c * q[3] - h * q[0],
                                    };
    memcpy(q, turned, sizeof turned);
    CHECK(set_pose(s, pose, joints));
    uint8_t *posed = gpu_test_render(s->world, time_s, &s->camera);
    float below[3] = {POSE_SIDE + models[16 * neck + 12], models[16 * neck + 13] - 0.12f,
                      models[16 * neck + 14]};
    double limit = screen_row(&s->camera, below);
    uint32_t differing = 0, below_neck = 0;
    for (uint32_t y = 0; played != NULL && posed != NULL && y < GPU_TEST_HEIGHT; y++) {
        for (uint32_t x = 0; x < GPU_TEST_WIDTH; x++) {
            size_t at = 4 * ((size_t)y * GPU_TEST_WIDTH + x);
            if (memcmp(played + at, posed + at, 4) != 0) {
                differing++;
                below_neck += (double)y >= limit ? 1u : 0u;
            }
        }
    }
    printf("head turned: %u pixels differ, %u of them below row %.1f (the neck)\n",
           (unsigned)differing, (unsigned)below_neck, limit);
    CHECK(played != NULL && posed != NULL && differing >= 10 && below_neck == 0);
    CHECK(crowd_instance_clear_pose(s->world, s->right, NULL) == CROWD_OK &&
          !crowd_instance_has_pose(s->world, s->right));
    uint8_t *cleared = gpu_test_render(s->world, time_s, &s->camera);
    CHECK_MSG(played != NULL && cleared != NULL &&
                  memcmp(played, cleared, GPU_TEST_PIXELS * 4) == 0,
              "clear_pose does not render the clip's pixels again");
    /* play ends a pose too. */
    CHECK(set_pose(s, pose, joints));
    CHECK(crowd_instance_play(s->world, s->right, clip, 0.0f, NULL) == CROWD_OK &&
          !crowd_instance_has_pose(s->world, s->right));
    free(played);
    free(posed);
    free(cleared);
    free(models);
    free(pose);
}

static void check_render(const crowd_asset *human, crowd_gpu_tier tier, crowd_gpu_mode mode) {
    gpu_test_tier = tier;
    char what[64];
    snprintf(what, sizeof what, "pose_%s_%s", crowd_gpu_tier_name(tier), crowd_gpu_mode_name(mode));
    printf("%s\n", what);
    for (uint32_t clip = 0; clip < human->clip_count; clip++) {
        pose_scene s;
        if (!pose_scene_create(human, NULL, mode, clip, &s)) {
            CHECK_MSG(false, "%s: no scene", what);
            break;
        }
        check_identical(&s, human, clip, what);
        if (clip == 1) {
            check_forms(&s, human, clip, what);
            check_modified(&s, human, clip);
        }
        crowd_world_destroy(s.world);
    }
    gpu_test_tier = CROWD_TIER_AUTO;
}

int test_gpu_pose(void) {
    crowd_asset *human = NULL;
    crowd_error error;
    REQUIRE(crowd_builtin_create(&human, &error) == CROWD_OK && human->clip_count >= 2);
    const crowd_gpu_tier tiers[2] = {CROWD_TIER_GL45, CROWD_TIER_PORTABLE};
    const crowd_gpu_mode modes[2] = {CROWD_GPU_MODE_GPU, CROWD_GPU_MODE_CPU};
    for (int t = 0; t < 2; t++) {
        for (int m = 0; m < 2; m++) {
            check_render(human, tiers[t], modes[m]);
        }
    }
    crowd_asset_destroy(human);
    return check_finish();
}
