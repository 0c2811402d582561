/* Root motion in a world (group rootmotion): crowd_instance_root_motion of
 * instances of a bake of the hand-made walker (tests/bake/
 * bake_test_walker.h, root motion extracted), placed off the origin, turned
 * and scaled: across loops, at speed 2, backwards, a one-shot clip clamped
 * (by hand: 1 m along z a second from the curve's two keys), each against
 * the bake's own crowd_bake_root_motion_delta at the instance's play times
 * turned by its heading and scaled; a bake that kept its root motion, a bad
 * handle and NULL outputs are clear errors that write nothing. */
#define _XOPEN_SOURCE 700

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../bake/bake_test_walker.h"
#include "check.h"
#include "crowd/bake.h"
#include "test_gpu.h"

static const float placed_heading = 0.7f, placed_scale = 1.3f;

/* The world's answer against the bake's, placed by heading and scale. */
static void check_instance(crowd_world *world, const crowd_bake *bake, crowd_archetype archetype,
                           uint32_t clip, float offset, float speed, double from_s, double to_s) {
    crowd_instance_desc desc = {.position = {2.0f, 0.0f, -1.0f},
                                .heading_rad = placed_heading,
                                .scale = placed_scale,
                                .clip = clip,
                                .time_offset_s = offset,
                                .speed = speed};
    crowd_world_set_time(world, 0.0);
    crowd_instance id;
    REQUIRE_VOID(crowd_world_add_instance(world, archetype, &desc, &id, NULL) == CROWD_OK);
    float delta[3], turn, local[3], local_turn;
    crowd_error error = {0};
    CHECK_MSG(crowd_instance_root_motion(world, id, from_s, to_s, delta, &turn, &error) == CROWD_OK,
              "%s", error.reason);
    float from_t = crowd_anim_play_unwrapped((float)from_s, 0.0f, offset, speed);
    float to_t = crowd_anim_play_unwrapped((float)to_s, 0.0f, offset, speed);
    CHECK(crowd_bake_root_motion_delta(bake, clip, from_t, to_t, local, &local_turn, &error) ==
          CROWD_OK);
    double c = cos(placed_heading), s = sin(placed_heading);
    CHECK_NEAR(delta[0], placed_scale * (c * local[0] + s * local[2]), 1e-5);
    CHECK(delta[1] == 0.0f);
    CHECK_NEAR(delta[2], placed_scale * (-s * local[0] + c * local[2]), 1e-5);
    CHECK_NEAR(turn, local_turn, 1e-6);
    printf("  clip %u speed %g, %g..%g s: (%.5f, %.5f) turned %.5f\n", clip, (double)speed, from_s,
           to_s, (double)delta[0], (double)delta[2], (double)turn);
    CHECK(crowd_world_remove_instance(world, id, NULL) == CROWD_OK);
}

static void check_world(const crowd_bake *bake, const crowd_bake *kept) {
    gpu_scene scene;
    if (!gpu_scene_create(NULL, bake, CROWD_GPU_MODE_BAT, &scene)) {
        check_skips++;
        return;
    }
    crowd_world *world = scene.world;
    check_instance(world, bake, scene.archetype, 0, 0.0f, 1.0f, 0.25, 2.75);
    check_instance(world, bake, scene.archetype, 0, 0.1f, 2.0f, 1.0, 3.3);
    check_instance(world, bake, scene.archetype, 0, 0.1f, -1.0f, 0.0, 1.7);
    check_instance(world, bake, scene.archetype, 1, 0.0f, 2.0f, 0.0, 5.0);
    /* the one-shot by hand: 0.5 s at 1 m/s along z, whatever the clock after */
    crowd_instance_desc desc = {.heading_rad = placed_heading, .scale = placed_scale, .clip = 1};
    crowd_instance id;
    crowd_world_set_time(world, 0.0);
    REQUIRE_VOID(crowd_world_add_instance(world, scene.archetype, &desc, &id, NULL) == CROWD_OK);
    float delta[3] = {7, 7, 7}, turn = 7;
    crowd_error error = {0};
    CHECK(crowd_instance_root_motion(world, id, 0.0, 9.0, delta, &turn, &error) == CROWD_OK);
    CHECK_NEAR(delta[0], placed_scale * sin(placed_heading) * 1.0, 1e-5);
    CHECK_NEAR(delta[2], placed_scale * cos(placed_heading) * 1.0, 1e-5);
    CHECK(turn == 0.0f);
    /* bad calls write nothing */
    float untouched[3] = {7, 7, 7};
    memcpy(delta, untouched, sizeof delta);
    CHECK(crowd_instance_root_motion(world, id, 0.0, 1.0, NULL, &turn, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_root_motion(world, id, 0.0, NAN, delta, &turn, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_root_motion(world, (crowd_instance){0}, 0.0, 1.0, delta, &turn, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(memcmp(delta, untouched, sizeof delta) == 0);
    gpu_scene_destroy(&scene);
    if (!gpu_scene_create(NULL, kept, CROWD_GPU_MODE_BAT, &scene)) {
        check_skips++;
        return;
    }
    crowd_world_set_time(scene.world, 0.0);
    REQUIRE_VOID(crowd_world_add_instance(scene.world, scene.archetype, &desc, &id, NULL) ==
                 CROWD_OK);
    CHECK(crowd_instance_root_motion(scene.world, id, 0.0, 1.0, delta, &turn, &error) ==
          CROWD_ERROR_UNSUPPORTED);
    CHECK(strstr(error.reason, "--root-motion extract") != NULL);
    CHECK(memcmp(delta, untouched, sizeof delta) == 0);
    gpu_scene_destroy(&scene);
}

int test_gpu_root_motion(void) {
    printf("root motion\n");
    crowd_asset *asset = make_walker();
    crowd_error error = {0};
    crowd_bake *bake = NULL, *kept = NULL;
    crowd_bake_desc desc = {.fps = RATE, .lods = -1, .root_motion = CROWD_ROOT_MOTION_EXTRACT};
    CHECK_MSG(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_OK, "%s", error.reason);
    desc.root_motion = CROWD_ROOT_MOTION_KEEP;
    CHECK_MSG(crowd_bake_build(asset, &desc, &kept, &error) == CROWD_OK, "%s", error.reason);
    if (bake != NULL && kept != NULL) {
        check_world(bake, kept);
    }
    crowd_bake_destroy(bake);
    crowd_bake_destroy(kept);
    crowd_asset_destroy(asset);
    return check_finish();
}
