/* The game's own poses without images (part of group pose): the bar
 * fixture (joints root and top) with events on "bend" (a at 0.25, b at
 * 0.75), in gpu mode. Joint queries answer the given pose in both forms;
 * removals around posed instances keep each pose with its instance; a
 * posed instance fires nothing and is not read by the events' update; bad
 * poses, handles and modes are clear errors that change nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

typedef struct pose_world {
    crowd_world *world;
    crowd_archetype archetype;
    const crowd_asset *bar;
    uint32_t bend;
} pose_world;

static crowd_bake *bake_with_events(const crowd_asset *bar) {
    crowd_bake *bake = NULL;
    crowd_error error;
    if (crowd_bake_build(bar, &(crowd_bake_desc){.what = CROWD_BAKE_BAT_ONLY, .lods = -1}, &bake,
                         &error) != CROWD_OK ||
        crowd_bake_add_event(bake, "bend", 0.25f, "a", &error) != CROWD_OK ||
        crowd_bake_add_event(bake, "bend", 0.75f, "b", &error) != CROWD_OK) {
        fprintf(stderr, "bake: %s\n", error.reason);
        crowd_bake_destroy(bake);
        return NULL;
    }
    return bake;
}

static bool world_create(const crowd_asset *bar, const crowd_bake *bake, pose_world *p) {
    memset(p, 0, sizeof *p);
    p->bar = bar;
    crowd_error error;
    crowd_archetype_desc desc = {.asset = bar, .bake = bake, .mode = CROWD_GPU_MODE_GPU};
    bool ok = crowd_world_create(NULL, &p->world, &error) == CROWD_OK &&
              crowd_world_add_archetype(p->world, &desc, &p->archetype, &error) == CROWD_OK &&
              crowd_archetype_find_clip(p->world, p->archetype, "bend", &p->bend) &&
              crowd_world_update(p->world, 0.0, &error) == CROWD_OK;
    if (!ok) {
        fprintf(stderr, "pose world: %s\n", error.reason);
        crowd_world_destroy(p->world);
    }
    return ok;
}

static crowd_instance add(pose_world *p, float x) {
    crowd_instance_desc desc = {
        .position = {x, 0.0f, 1.0f}, .heading_rad = 0.4f, .scale = 1.5f, .clip = p->bend};
    crowd_instance instance = {0};
    crowd_error error;
    if (crowd_world_add_instance(p->world, p->archetype, &desc, &instance, &error) != CROWD_OK) {
        fprintf(stderr, "instance: %s\n", error.reason);
    }
    return instance;
}

/* A pose told apart by `mark`: the root moved by mark along x, the top
 * turned by mark / 4 radians about +Z. */
static void marked_pose(float mark, crowd_transform out[2]) {
    memset(out, 0, 2 * sizeof *out);
    for (int j = 0; j < 2; j++) {
        out[j].rotation[3] = 1.0f;
        out[j].scale[0] = out[j].scale[1] = out[j].scale[2] = 1.0f;
    }
    out[0].translation[0] = mark;
    out[1].translation[1] = 1.0f;
    out[1].rotation[2] = sinf(mark / 8.0f);
    out[1].rotation[3] = cosf(mark / 8.0f);
}

static bool joint_is(pose_world *p, crowd_instance instance, uint32_t joint, const float want[16]) {
    float got[16];
    return crowd_instance_joint_transform(p->world, instance, joint, CROWD_SPACE_MODEL, got,
                                          NULL) == CROWD_OK &&
           memcmp(got, want, sizeof got) == 0;
}

/* Whether the instance's joints are those of marked_pose(mark). */
static bool has_marked_pose(pose_world *p, crowd_instance instance, float mark) {
    crowd_transform pose[2];
    float models[32];
    marked_pose(mark, pose);
    crowd_anim_local_to_model(&p->bar->skeleton, pose, models);
    return crowd_instance_has_pose(p->world, instance) && joint_is(p, instance, 0, models) &&
           joint_is(p, instance, 1, models + 16);
}

static bool pose_marked(pose_world *p, crowd_instance instance, float mark) {
    crowd_transform pose[2];
    marked_pose(mark, pose);
    return crowd_instance_set_pose(p->world, instance, pose, 2, NULL) == CROWD_OK;
}

static void test_queries(pose_world *p) {
    crowd_instance a = add(p, 0.5f);
    crowd_transform pose[2];
    marked_pose(0.8f, pose);
    float models[32], placed[16];
    crowd_anim_local_to_model(&p->bar->skeleton, pose, models);
    CHECK(pose_marked(p, a, 0.8f) && has_marked_pose(p, a, 0.8f));
    /* World space: the instance's placement times the given pose. */
    CHECK(crowd_instance_joint_transform(p->world, a, 1, CROWD_SPACE_WORLD, placed, NULL) ==
          CROWD_OK);
    float c = cosf(0.4f), s = sinf(0.4f);
    const float *m = models + 16;
    float want_x = 0.5f + 1.5f * (c * m[12] + s * m[14]), want_y = 1.5f * m[13],
          want_z = 1.0f + 1.5f * (-s * m[12] + c * m[14]);
    CHECK_NEAR(placed[12], want_x, 1e-5);
    CHECK_NEAR(placed[13], want_y, 1e-5);
    CHECK_NEAR(placed[14], want_z, 1e-5);
    /* The model-matrix form: answered as given, the fourth row exact. */
    float given[32];
    memcpy(given, models, sizeof given);
    given[16 + 12] = 0.3f;
    given[16 + 15] = 1.0f + 5e-6f;
    given[3] = -4e-6f;
    crowd_error error;
    CHECK(crowd_instance_set_pose_models(p->world, a, given, 2, &error) == CROWD_OK);
    given[16 + 15] = 1.0f;
    given[3] = 0.0f;
    CHECK(joint_is(p, a, 0, given) && joint_is(p, a, 1, given + 16));
    /* Batch queries answer poses too. */
    crowd_instance b = add(p, -0.5f);
    CHECK(pose_marked(p, b, 1.6f));
    crowd_instance both[2] = {a, b};
    float out[32];
    CHECK(crowd_archetype_joint_transforms(p->world, p->archetype, both, 2, 1, CROWD_SPACE_MODEL,
                                           out, NULL) == CROWD_OK &&
          memcmp(out, given + 16, 64) == 0 && has_marked_pose(p, b, 1.6f));
    crowd_world_clear_instances(p->world);
}

/* Removing instances moves the last slot into the hole and frees pool
 * entries the same way: every pose stays with its instance. */
static void test_removal(pose_world *p) {
    crowd_instance i[5];
    for (int k = 0; k < 5; k++) {
        i[k] = add(p, (float)k);
    }
    CHECK(pose_marked(p, i[1], 1.0f) && pose_marked(p, i[2], 2.0f) && pose_marked(p, i[4], 4.0f));
    CHECK(crowd_world_remove_instance(p->world, i[0], NULL) == CROWD_OK); /* i[4] moves to 0 */
    CHECK(has_marked_pose(p, i[1], 1.0f) && has_marked_pose(p, i[2], 2.0f) &&
          has_marked_pose(p, i[4], 4.0f) && !crowd_instance_has_pose(p->world, i[3]));
    CHECK(crowd_world_remove_instance(p->world, i[1], NULL) == CROWD_OK); /* entry 0 freed */
    CHECK(has_marked_pose(p, i[2], 2.0f) && has_marked_pose(p, i[4], 4.0f));
    /* A new pose takes the pool's next entry: nobody else's. */
    crowd_instance added = add(p, 7.0f);
    CHECK(pose_marked(p, added, 7.0f) && has_marked_pose(p, added, 7.0f) &&
          has_marked_pose(p, i[2], 2.0f) && has_marked_pose(p, i[4], 4.0f));
    CHECK(crowd_instance_clear_pose(p->world, i[2], NULL) == CROWD_OK &&
          !crowd_instance_has_pose(p->world, i[2]) && has_marked_pose(p, i[4], 4.0f));
    CHECK(pose_marked(p, i[2], 2.5f) && has_marked_pose(p, i[2], 2.5f) &&
          has_marked_pose(p, i[4], 4.0f));
    /* A slot used again starts without a pose. */
    crowd_instance fresh = add(p, 9.0f);
    CHECK(!crowd_instance_has_pose(p->world, fresh));
    crowd_world_clear_instances(p->world);
    fresh = add(p, 9.0f);
    CHECK(!crowd_instance_has_pose(p->world, fresh) && pose_marked(p, fresh, 3.0f) &&
          has_marked_pose(p, fresh, 3.0f));
    crowd_world_clear_instances(p->world);
}

/* The last update's events as "a b". */
static void events_text(const crowd_world *world, char *out, size_t size) {
    uint32_t count = 0;
    const crowd_event *events = crowd_world_events(world, &count);
    out[0] = '\0';
    for (uint32_t e = 0; e < count; e++) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s", used > 0 ? " " : "",
                 events[e].kind == CROWD_EVENT_END ? "END" : events[e].name);
    }
}

static void expect_events(pose_world *p, double time_s, const char *want, uint32_t read) {
    char got[128];
    crowd_world_stats stats;
    CHECK(crowd_world_update(p->world, time_s, NULL) == CROWD_OK);
    events_text(p->world, got, sizeof got);
    crowd_world_get_stats(p->world, &stats);
    CHECK_MSG(strcmp(got, want) == 0 && stats.event_instances == read,
              "update %.2f: \"%s\", %u read; expected \"%s\", %u", time_s, got,
              (unsigned)stats.event_instances, want, (unsigned)read);
}

static void test_events(pose_world *p) {
    CHECK(crowd_world_update(p->world, 0.0, NULL) == CROWD_OK);
    crowd_instance a = add(p, 0.0f);
    expect_events(p, 0.5, "a", 1);
    CHECK(pose_marked(p, a, 1.0f));
    expect_events(p, 1.0, "", 0); /* b at 0.75 passed under the pose */
    expect_events(p, 1.5, "", 0);
    CHECK(crowd_instance_clear_pose(p->world, a, NULL) == CROWD_OK);
    expect_events(p, 1.8, "b", 1); /* from clip time 0.5 at 1.5 on */
    /* Posed at once after play: the start fires nothing either. */
    CHECK(pose_marked(p, a, 1.0f));
    expect_events(p, 2.3, "", 0);
    CHECK(crowd_instance_play(p->world, a, p->bend, 0.0f, NULL) == CROWD_OK &&
          !crowd_instance_has_pose(p->world, a));
    expect_events(p, 2.6, "a", 1);
    crowd_world_clear_instances(p->world);
}

/* Each bad call: the error, and the posed and the unposed instance as
 * they were. */
static void expect_refused(pose_world *p, crowd_result got, crowd_result want, crowd_instance posed,
                           crowd_instance plain, const char *what, const crowd_error *error) {
    CHECK_MSG(got == want && has_marked_pose(p, posed, 2.0f) &&
                  !crowd_instance_has_pose(p->world, plain),
              "%s: result %d (expected %d), or an instance changed", what, (int)got, (int)want);
    if (got != CROWD_OK) {
        printf("  %s: %s\n", what, error->reason);
    }
}

static void test_errors(pose_world *p) {
    crowd_instance posed = add(p, 0.0f), plain = add(p, 1.0f), gone = add(p, 2.0f);
    CHECK(pose_marked(p, posed, 2.0f) &&
          crowd_world_remove_instance(p->world, gone, NULL) == CROWD_OK);
    const crowd_result bad = CROWD_ERROR_INVALID_ARGUMENT;
    crowd_error error;
    crowd_transform pose[3];
    marked_pose(0.5f, pose);
    pose[2] = pose[1];
    crowd_instance targets[2] = {posed, plain};
    for (int t = 0; t < 2; t++) {
        crowd_instance i = targets[t];
        crowd_transform broken[2];
        memcpy(broken, pose, sizeof broken);
        broken[1].translation[2] = NAN;
        expect_refused(p, crowd_instance_set_pose(p->world, i, broken, 2, &error), bad, posed,
                       plain, "NaN translation", &error);
        memcpy(broken, pose, sizeof broken);
        broken[0].scale[1] = INFINITY;
        expect_refused(p, crowd_instance_set_pose(p->world, i, broken, 2, &error), bad, posed,
                       plain, "infinite scale", &error);
        memcpy(broken, pose, sizeof broken);
        memset(broken[1].rotation, 0, sizeof broken[1].rotation);
        expect_refused(p, crowd_instance_set_pose(p->world, i, broken, 2, &error), bad, posed,
                       plain, "zero rotation", &error);
        expect_refused(p, crowd_instance_set_pose(p->world, i, pose, 3, &error), bad, posed, plain,
                       "3 joints", &error);
        expect_refused(p, crowd_instance_set_pose(p->world, i, pose, 1, &error), bad, posed, plain,
                       "1 joint", &error);
        expect_refused(p, crowd_instance_set_pose(p->world, i, NULL, 2, &error), bad, posed, plain,
                       "NULL pose", &error);
        float models[32];
        crowd_anim_local_to_model(&p->bar->skeleton, pose, models);
        models[20] = NAN;
        expect_refused(p, crowd_instance_set_pose_models(p->world, i, models, 2, &error), bad,
                       posed, plain, "NaN matrix", &error);
        crowd_anim_local_to_model(&p->bar->skeleton, pose, models);
        models[16 + 7] = 0.5f;
        expect_refused(p, crowd_instance_set_pose_models(p->world, i, models, 2, &error), bad,
                       posed, plain, "non-affine matrix", &error);
        expect_refused(p, crowd_instance_set_pose_models(p->world, i, models, 3, &error), bad,
                       posed, plain, "3 matrices", &error);
    }
    expect_refused(p, crowd_instance_set_pose(p->world, gone, pose, 2, &error), bad, posed, plain,
                   "removed instance", &error);
    expect_refused(p, crowd_instance_set_pose(NULL, posed, pose, 2, &error), bad, posed, plain,
                   "NULL world", &error);
    expect_refused(p, crowd_instance_clear_pose(p->world, gone, &error), bad, posed, plain,
                   "clear_pose of a removed instance", &error);
    CHECK(!crowd_instance_has_pose(p->world, gone) && !crowd_instance_has_pose(NULL, posed));
    /* Baked frames and the bind pose cannot show a pose; a switch keeps it. */
    const crowd_gpu_mode refusing[2] = {CROWD_GPU_MODE_BAT, CROWD_GPU_MODE_STATIC};
    for (int m = 0; m < 2; m++) {
        CHECK(crowd_archetype_set_mode(p->world, p->archetype, refusing[m], NULL) == CROWD_OK);
        expect_refused(p, crowd_instance_set_pose(p->world, plain, pose, 2, &error),
                       CROWD_ERROR_UNSUPPORTED, posed, plain, crowd_gpu_mode_name(refusing[m]),
                       &error);
    }
    CHECK(crowd_archetype_set_mode(p->world, p->archetype, CROWD_GPU_MODE_CPU, NULL) == CROWD_OK);
    CHECK(has_marked_pose(p, posed, 2.0f) && pose_marked(p, plain, 0.5f) &&
          has_marked_pose(p, plain, 0.5f));
    CHECK(crowd_archetype_set_mode(p->world, p->archetype, CROWD_GPU_MODE_GPU, NULL) == CROWD_OK);
    crowd_world_clear_instances(p->world);
}

int test_gpu_pose_api(void) {
    crowd_asset *bar = fixture_bar_create();
    crowd_bake *bake = bar != NULL ? bake_with_events(bar) : NULL;
    pose_world p;
    if (bake != NULL && world_create(bar, bake, &p)) {
        test_queries(&p);
        test_removal(&p);
        test_events(&p);
        test_errors(&p);
        crowd_world_destroy(p.world);
    } else {
        CHECK_MSG(false, "no pose world");
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(bar);
    return check_finish();
}
