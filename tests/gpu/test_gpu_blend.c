/* 1D blends (crowd/gpu.h "blends"): the bar's bend (1 s) and slide (2 s)
 * as one blend at weights 0.25, 0.5 and 0.75 in cpu, gpu, bat and vat on
 * both tiers against the CPU reference (the two clips sampled at the same
 * phase, local poses blended by crowd_anim_blend); a parameter change that
 * keeps the phase; crossfades into and out of a blend through the joint
 * queries; bad input; which clip's events fire; a blend declared in the
 * bake, through its manifest; and speed matching on robot.glb's walk and run (the
 * planted foot's world speed on contact frames, when ../shared/models is
 * there). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/ground_measure.h"
#include "check.h"
#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/import.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

enum { BEND = 0, SLIDE = 1, DROP = 2 };

static crowd_blend bend_slide(gpu_scene *s) {
    crowd_blend blend = {0};
    const uint32_t clips[2] = {BEND, SLIDE};
    const float thresholds[2] = {0.0f, 1.0f};
    crowd_blend_desc desc = {
        .name = "bend_slide", .clip_count = 2, .clips = clips, .thresholds = thresholds};
    CHECK(crowd_archetype_add_blend(s->world, s->archetype, &desc, &blend, NULL) == CROWD_OK);
    return blend;
}

/* A scene of the bar in `mode` with the bend_slide blend and one instance
 * at the origin; false (a failed check) when the scene cannot be made. */
static bool blend_scene(const crowd_asset *bar, const crowd_bake *bake, crowd_gpu_mode mode,
                        gpu_scene *s, crowd_blend *blend, crowd_instance *id) {
    if (!gpu_scene_create(bar, bake, mode, s)) {
        CHECK(false);
        return false;
    }
    *blend = bend_slide(s);
    CHECK(crowd_world_add_instance(s->world, s->archetype, &(crowd_instance_desc){0}, id, NULL) ==
          CROWD_OK);
    return true;
}

/* At parameter w from clock 0 to clock t: the cycle lasts D = lerp(1, 2, w),
 * so bend is at t / D and slide at 2 t / D. */
static void test_weights(const crowd_asset *bar, const crowd_bake *bake, crowd_gpu_tier tier) {
    crowd_camera camera = gpu_test_bar_camera();
    const float weights[3] = {0.25f, 0.5f, 0.75f};
    const float t = 0.3f;
    gpu_test_tier = tier;
    for (int k = 0; k < 3; k++) {
        float w = weights[k], cycle = 1.0f + w, palette[24];
        fixture_pose(bar, BEND, t / cycle, SLIDE, 2.0f * t / cycle, w, palette);
        uint8_t *reference = gpu_test_reference(bar, palette, &camera);
        fixture_pose(bar, BEND, t, -1, 0.0f, 0.0f, palette);
        uint8_t *bend_alone = gpu_test_reference(bar, palette, &camera);
        REQUIRE_VOID(reference != NULL && bend_alone != NULL);
        for (int m = CROWD_GPU_MODE_CPU; m < CROWD_GPU_MODE_COUNT; m++) {
            gpu_scene s;
            crowd_blend blend;
            crowd_instance id;
            if (!blend_scene(bar, bake, (crowd_gpu_mode)m, &s, &blend, &id)) {
                continue;
            }
            CHECK(crowd_instance_play_blend(s.world, id, blend, w, 0.0f, NULL) == CROWD_OK);
            uint8_t *image = gpu_test_render(s.world, t, &camera);
            bool baked = m == CROWD_GPU_MODE_BAT || m == CROWD_GPU_MODE_VAT;
            char what[96];
            snprintf(what, sizeof what, "%s %s blend w %.2f vs local-pose blend",
                     crowd_gpu_tier_name(tier), crowd_gpu_mode_name((crowd_gpu_mode)m), (double)w);
            CHECK(image != NULL && gpu_test_close(what, reference, image,
                                                  baked ? GPU_TEST_FADE_BAKED : GPU_TEST_EXACT));
            snprintf(what, sizeof what, "%s %s blend w %.2f vs bend alone",
                     crowd_gpu_tier_name(tier), crowd_gpu_mode_name((crowd_gpu_mode)m), (double)w);
            CHECK(image != NULL && gpu_test_different(what, bend_alone, image, 0.05));
            free(image);
            gpu_scene_destroy(&s);
        }
        free(reference);
        free(bend_alone);
    }
    gpu_test_tier = CROWD_TIER_AUTO;
}

/* The parameter moves from 0.25 to 0.75 at 0.3 s: the phase goes on from
 * 0.3 / 1.25 at the new cycle's rate, 0.2 / 1.75 more by 0.5 s. */
static void test_parameter_change(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_camera camera = gpu_test_bar_camera();
    float phase = 0.3f / 1.25f + 0.2f / 1.75f, palette[24];
    fixture_pose(bar, BEND, phase, SLIDE, 2.0f * phase, 0.75f, palette);
    uint8_t *reference = gpu_test_reference(bar, palette, &camera);
    REQUIRE_VOID(reference != NULL);
    const crowd_gpu_mode modes[2] = {CROWD_GPU_MODE_CPU, CROWD_GPU_MODE_BAT};
    for (int m = 0; m < 2; m++) {
        gpu_scene s;
        REQUIRE_VOID(gpu_scene_create(bar, bake, modes[m], &s));
        crowd_blend blend = bend_slide(&s);
        crowd_instance id;
        CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id,
                                       NULL) == CROWD_OK);
        CHECK(crowd_instance_play_blend(s.world, id, blend, 0.25f, 0.0f, NULL) == CROWD_OK);
        CHECK(crowd_world_update(s.world, 0.3, NULL) == CROWD_OK);
        crowd_world_stats before;
        crowd_world_get_stats(s.world, &before);
        CHECK(crowd_instance_set_blend_parameter(s.world, id, 0.75f, NULL) == CROWD_OK);
        float parameter = 0.0f;
        CHECK(crowd_instance_get_blend(s.world, id, NULL, &parameter) && parameter == 0.75f);
        uint8_t *image = gpu_test_render(s.world, 0.5, &camera);
        char what[80];
        snprintf(what, sizeof what, "%s: parameter 0.25 -> 0.75 at 0.3 s, phase kept",
                 crowd_gpu_mode_name(modes[m]));
        CHECK(image != NULL && gpu_test_close(what, reference, image,
                                              m == 0 ? GPU_TEST_EXACT : GPU_TEST_FADE_BAKED));
        free(image);
        gpu_scene_destroy(&s);
    }
    free(reference);
}

/* A local pose of the bar: clip a at ta blended with b at tb (weight wb),
 * then that faded with c at tc (weight of the first wf); the joint's model
 * matrix into out. */
static void reference_joint(const crowd_asset *bar, int a, float ta, int b, float tb, float wb,
                            int c, float tc, float wf, uint32_t joint, float out[16]) {
    crowd_transform pa[2], pb[2], pc[2];
    float models[32];
    crowd_anim_sample(&bar->skeleton, &bar->clips[a], ta, NULL, pa);
    if (b >= 0) {
        crowd_anim_sample(&bar->skeleton, &bar->clips[b], tb, NULL, pb);
        const crowd_transform *poses[2] = {pa, pb};
        crowd_anim_blend(&bar->skeleton, poses, (const float[2]){1.0f - wb, wb}, 2, pa);
    }
    if (c >= 0) {
        crowd_anim_sample(&bar->skeleton, &bar->clips[c], tc, NULL, pc);
        const crowd_transform *poses[2] = {pa, pc};
        crowd_anim_blend(&bar->skeleton, poses, (const float[2]){wf, 1.0f - wf}, 2, pa);
    }
    crowd_anim_local_to_model(&bar->skeleton, pa, models);
    memcpy(out, models + 16 * joint, 16 * sizeof *out);
}

static bool near16(const float *a, const float *b) {
    float worst = 0.0f;
    for (int i = 0; i < 16; i++) {
        worst = fmaxf(worst, fabsf(a[i] - b[i]));
    }
    return worst < 1e-5f;
}

/* Into a blend: bend from 0, at 0.05 s the blend at 0.5 with a 0.3 s fade;
 * at 0.2 s the fade is half way: the blend (phase 0.15 / 1.5) against bend
 * at 0.2 s. Out of one: at 0.5 s play drop with a 0.2 s fade; at 0.6 s
 * drop at 0.1 s weighs 0.5 against the blend, phase 0.45 / 1.5. */
static void test_crossfades(const crowd_asset *bar, const crowd_bake *bake) {
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_CPU, &s));
    crowd_blend blend = bend_slide(&s);
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){.clip = BEND}, &id,
                                   NULL) == CROWD_OK);
    crowd_world_set_time(s.world, 0.05);
    CHECK(crowd_instance_play_blend(s.world, id, blend, 0.5f, 0.3f, NULL) == CROWD_OK);
    crowd_world_set_time(s.world, 0.2);
    float got[16], want[16];
    CHECK(crowd_instance_joint_transform(s.world, id, 1, CROWD_SPACE_MODEL, got, NULL) == CROWD_OK);
    float phase = 0.15f / 1.5f;
    reference_joint(bar, BEND, phase, SLIDE, 2.0f * phase, 0.5f, BEND, 0.2f, 0.5f, 1, want);
    CHECK_MSG(near16(got, want), "crossfade into a blend: the top joint differs");
    crowd_world_set_time(s.world, 0.5);
    CHECK(crowd_instance_play(s.world, id, DROP, 0.2f, NULL) == CROWD_OK);
    CHECK(!crowd_instance_get_blend(s.world, id, NULL, NULL));
    crowd_world_set_time(s.world, 0.6);
    CHECK(crowd_instance_joint_transform(s.world, id, 1, CROWD_SPACE_MODEL, got, NULL) == CROWD_OK);
    phase = 0.55f / 1.5f;
    reference_joint(bar, DROP, 0.1f, -1, 0.0f, 0.0f, BEND, phase, 0.5f, 1, want);
    /* the clip left is the blend: rebuild it in the third slot */
    crowd_transform pa[2], pb[2], pc[2];
    float models[32];
    crowd_anim_sample(&bar->skeleton, &bar->clips[BEND], phase, NULL, pb);
    crowd_anim_sample(&bar->skeleton, &bar->clips[SLIDE], 2.0f * phase, NULL, pc);
    const crowd_transform *pair[2] = {pb, pc};
    crowd_anim_blend(&bar->skeleton, pair, (const float[2]){0.5f, 0.5f}, 2, pb);
    crowd_anim_sample(&bar->skeleton, &bar->clips[DROP], 0.1f, NULL, pa);
    const crowd_transform *fade[2] = {pa, pb};
    crowd_anim_blend(&bar->skeleton, fade, (const float[2]){0.5f, 0.5f}, 2, pa);
    crowd_anim_local_to_model(&bar->skeleton, pa, models);
    CHECK_MSG(near16(got, models + 16), "crossfade out of a blend: the top joint differs");
    gpu_scene_destroy(&s);
}

/* The shaders' side of crossfades out of and into a blend: bend+slide at
 * 0.5 fading into drop, and bend fading into the blend, drawn in every
 * mode on both tiers against the local-pose reference (the blend's pair
 * blended, then faded: three poses). At 0.5 s the blend started at 0 is at
 * phase 0.5 / 1.5; drop started at 0.4 s over a 0.2 s fade is at 0.1 s,
 * weight 0.5. Into: bend from 0, the blend from 0.4 s over 0.2 s: at 0.5 s
 * bend at 0.5 s and the blend at phase 0.1 / 1.5, halves. */
static void fade_palette(const crowd_asset *bar, bool into, float *out) {
    crowd_transform pair[2][2], alone[2];
    float models[32];
    float phase = into ? 0.1f / 1.5f : 0.5f / 1.5f;
    crowd_anim_sample(&bar->skeleton, &bar->clips[BEND], phase, NULL, pair[0]);
    crowd_anim_sample(&bar->skeleton, &bar->clips[SLIDE], 2.0f * phase, NULL, pair[1]);
    const crowd_transform *two[2] = {pair[0], pair[1]};
    crowd_anim_blend(&bar->skeleton, two, (const float[2]){0.5f, 0.5f}, 2, pair[0]);
    crowd_anim_sample(&bar->skeleton, &bar->clips[into ? BEND : DROP], into ? 0.5f : 0.1f, NULL,
                      alone);
    const crowd_transform *fade[2] = {pair[0], alone};
    crowd_anim_blend(&bar->skeleton, fade, (const float[2]){0.5f, 0.5f}, 2, pair[0]);
    crowd_anim_local_to_model(&bar->skeleton, pair[0], models);
    crowd_anim_skin_matrices(&bar->skeleton, models, NULL, out);
}

static void test_fade_images(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_camera camera = gpu_test_bar_camera();
    const crowd_gpu_tier tiers[2] = {CROWD_TIER_GL45, CROWD_TIER_PORTABLE};
    for (int into = 0; into < 2; into++) {
        float palette[24];
        fade_palette(bar, into == 1, palette);
        uint8_t *reference = gpu_test_reference(bar, palette, &camera);
        REQUIRE_VOID(reference != NULL);
        for (int t = 0; t < 2; t++) {
            gpu_test_tier = tiers[t];
            for (int m = CROWD_GPU_MODE_CPU; m < CROWD_GPU_MODE_COUNT; m++) {
                gpu_scene s;
                crowd_blend blend;
                crowd_instance id;
                if (!blend_scene(bar, bake, (crowd_gpu_mode)m, &s, &blend, &id)) {
                    continue;
                }
                if (into == 0) {
                    CHECK(crowd_instance_play_blend(s.world, id, blend, 0.5f, 0.0f, NULL) ==
                          CROWD_OK);
                    crowd_world_set_time(s.world, 0.4);
                    CHECK(crowd_instance_play(s.world, id, DROP, 0.2f, NULL) == CROWD_OK);
                } else {
                    crowd_world_set_time(s.world, 0.4);
                    CHECK(crowd_instance_play_blend(s.world, id, blend, 0.5f, 0.2f, NULL) ==
                          CROWD_OK);
                }
                uint8_t *image = gpu_test_render(s.world, 0.5, &camera);
                bool baked = m == CROWD_GPU_MODE_BAT || m == CROWD_GPU_MODE_VAT;
                char what[96];
                snprintf(what, sizeof what, "%s %s: fade %s a blend", crowd_gpu_tier_name(tiers[t]),
                         crowd_gpu_mode_name((crowd_gpu_mode)m), into ? "into" : "out of");
                CHECK(image != NULL &&
                      gpu_test_close(what, reference, image,
                                     baked ? GPU_TEST_FADE_BAKED : GPU_TEST_EXACT));
                free(image);
                gpu_scene_destroy(&s);
            }
        }
        gpu_test_tier = CROWD_TIER_AUTO;
        free(reference);
    }
}

/* Each refused, the instance as it was. */
static void test_bad_input(const crowd_asset *bar, const crowd_bake *bake) {
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_BAT, &s));
    crowd_archetype other;
    crowd_archetype_desc desc = {.asset = bar, .bake = bake, .mode = CROWD_GPU_MODE_BAT};
    REQUIRE_VOID(crowd_world_add_archetype(s.world, &desc, &other, NULL) == CROWD_OK);
    crowd_blend blend = bend_slide(&s), out = {0};
    crowd_error error;
    const uint32_t clips[2] = {BEND, SLIDE}, far[2] = {BEND, 7};
    const float down[2] = {1.0f, 0.0f}, nan_first[2] = {NAN, 1.0f};
    crowd_blend_desc bad[4] = {{.clip_count = 2, .clips = clips, .thresholds = down},
                               {.clip_count = 2, .clips = far, .thresholds = NULL},
                               {.clip_count = 1, .clips = clips, .thresholds = down},
                               {.clip_count = 2, .clips = clips, .thresholds = nan_first}};
    const char *labels[4] = {"thresholds not increasing", "clip out of range", "one clip",
                             "a NaN threshold"};
    for (int b = 0; b < 4; b++) {
        crowd_result r = crowd_archetype_add_blend(s.world, s.archetype, &bad[b], &out, &error);
        printf("  %s: %s\n", labels[b], r != CROWD_OK ? error.reason : "accepted");
        CHECK(r == CROWD_ERROR_INVALID_ARGUMENT && out.index == 0);
    }
    CHECK(crowd_archetype_blend_count(s.world, s.archetype) == 1);
    crowd_instance mine, theirs;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &mine, NULL) ==
          CROWD_OK);
    CHECK(crowd_world_add_instance(s.world, other, &(crowd_instance_desc){0}, &theirs, NULL) ==
          CROWD_OK);
    CHECK(crowd_instance_set_blend_parameter(s.world, mine, 0.5f, NULL) ==
          CROWD_ERROR_INVALID_ARGUMENT); /* plays no blend yet */
    CHECK(crowd_instance_play_blend(s.world, mine, blend, 0.5f, 0.0f, NULL) == CROWD_OK);
    crowd_world_stats stats;
    CHECK(crowd_world_update(s.world, 0.1, NULL) == CROWD_OK);
    crowd_world_get_stats(s.world, &stats);
    /* The other archetype's instance, a blend not declared, NaN: refused. */
    crowd_result r = crowd_instance_play_blend(s.world, theirs, blend, 0.5f, 0.0f, &error);
    printf("  a blend of another archetype: %s\n", error.reason);
    CHECK(r == CROWD_ERROR_INVALID_ARGUMENT &&
          !crowd_instance_get_blend(s.world, theirs, NULL, NULL));
    crowd_blend undeclared = {blend.archetype, 9};
    CHECK(crowd_instance_play_blend(s.world, mine, undeclared, 0.5f, 0.0f, NULL) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_play_blend(s.world, mine, blend, NAN, 0.0f, NULL) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_play_blend(s.world, mine, blend, 0.5f, -1.0f, NULL) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_blend_parameter(s.world, mine, NAN, NULL) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_ground_speed(s.world, mine, INFINITY, NULL) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_ground_speed(s.world, mine, -1.0f, NULL) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    float parameter = 0.0f;
    CHECK(crowd_instance_get_blend(s.world, mine, &out, &parameter) && parameter == 0.5f &&
          out.index == blend.index && out.archetype == blend.archetype);
    /* Nothing was written by the refused calls; a change writes one record
     * (40 bytes; its side-table entry goes with the next draw). */
    CHECK(crowd_world_update(s.world, 0.2, NULL) == CROWD_OK);
    crowd_world_get_stats(s.world, &stats);
    CHECK_MSG(stats.uploaded_bytes == 0, "refused calls uploaded %llu bytes",
              (unsigned long long)stats.uploaded_bytes);
    CHECK(crowd_instance_set_blend_parameter(s.world, mine, 0.7f, NULL) == CROWD_OK);
    CHECK(crowd_world_update(s.world, 0.3, NULL) == CROWD_OK);
    crowd_world_get_stats(s.world, &stats);
    CHECK_MSG(stats.uploaded_bytes == 40, "a parameter change uploaded %llu bytes",
              (unsigned long long)stats.uploaded_bytes);
    gpu_scene_destroy(&s);
}

/* Events of a blend: the markers of its clock's clip, the segment's lower
 * one (crowd/gpu.h "blends"). bend marks 0.25 s of its 1 s and slide
 * 0.5 s of its 2 s: both at phase 0.25. At parameter 0.5 (cycle 1.5 s)
 * bend's fires at 0.375 s and slide's not; at parameter 1 (slide alone,
 * 2 s) slide's fires at 0.5 s. */
static void test_events(const crowd_asset *bar) {
    crowd_bake *bake = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK);
    CHECK(crowd_bake_add_event(bake, "bend", 0.25f, "bend_mark", &error) == CROWD_OK);
    CHECK(crowd_bake_add_event(bake, "slide", 0.5f, "slide_mark", &error) == CROWD_OK);
    gpu_scene s;
    if (!gpu_scene_create(bar, bake, CROWD_GPU_MODE_BAT, &s)) {
        crowd_bake_destroy(bake);
        REQUIRE_VOID(false);
    }
    crowd_blend blend = bend_slide(&s);
    const float parameters[2] = {0.5f, 1.0f};
    const double before[2] = {0.37, 0.49}, after[2] = {0.38, 0.51};
    const char *expected[2] = {"bend_mark", "slide_mark"};
    for (int k = 0; k < 2; k++) {
        crowd_world_set_time(s.world, 0.0);
        crowd_instance id;
        CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id,
                                       NULL) == CROWD_OK);
        CHECK(crowd_instance_play_blend(s.world, id, blend, parameters[k], 0.0f, NULL) == CROWD_OK);
        uint32_t count = 0;
        CHECK(crowd_world_update(s.world, 0.001, NULL) == CROWD_OK);
        CHECK(crowd_world_update(s.world, before[k], NULL) == CROWD_OK);
        crowd_world_events(s.world, &count);
        CHECK_MSG(count == 0, "parameter %g: %u events before %g s", (double)parameters[k], count,
                  before[k]);
        CHECK(crowd_world_update(s.world, after[k], NULL) == CROWD_OK);
        const crowd_event *events = crowd_world_events(s.world, &count);
        CHECK_MSG(count == 1 && strcmp(events[0].name, expected[k]) == 0,
                  "parameter %g: %u events by %g s, the first %s", (double)parameters[k], count,
                  after[k], count > 0 ? events[0].name : "none");
        CHECK(crowd_world_remove_instance(s.world, id, NULL) == CROWD_OK);
    }
    gpu_scene_destroy(&s);
    crowd_bake_destroy(bake);
}

/* A blend given to the bake: written, loaded alone (runtime clips, no
 * asset), declared on the archetype made from it, found by name, and it
 * plays as the same blend declared by the API does; a manifest whose
 * blend's thresholds fall is refused by the loader. */
static void test_baked_blend(const crowd_asset *bar) {
    crowd_bake *bake = NULL, *loaded = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK);
    const char *clips[2] = {"bend", "slide"};
    const float thresholds[2] = {0.0f, 1.0f};
    CHECK(crowd_bake_add_blend(bake, "bend_slide", 2, clips, thresholds, &error) == CROWD_OK);
    CHECK(crowd_bake_add_blend(bake, "bend_slide", 2, clips, thresholds, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(crowd_bake_write(bake, "baked_blend", NULL, &error) == CROWD_OK, "%s", error.reason);
    CHECK_MSG(crowd_bake_load("baked_blend", NULL, &loaded, &error) == CROWD_OK, "%s",
              error.reason);
    crowd_bake_destroy(bake);
    REQUIRE_VOID(loaded != NULL && loaded->blend_count == 1);
    gpu_scene s;
    if (!gpu_scene_create(NULL, loaded, CROWD_GPU_MODE_CPU, &s)) {
        crowd_bake_destroy(loaded);
        REQUIRE_VOID(false);
    }
    crowd_blend blend = {0};
    CHECK(crowd_archetype_blend_count(s.world, s.archetype) == 1);
    CHECK(crowd_archetype_find_blend(s.world, s.archetype, "bend_slide", &blend) &&
          blend.index == 1 && !crowd_archetype_find_blend(s.world, s.archetype, "nope", NULL));
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id, NULL) ==
          CROWD_OK);
    CHECK(crowd_instance_play_blend(s.world, id, blend, 0.5f, 0.0f, NULL) == CROWD_OK);
    crowd_world_set_time(s.world, 0.3);
    float got[16], want[16];
    CHECK(crowd_instance_joint_transform(s.world, id, 1, CROWD_SPACE_MODEL, got, NULL) == CROWD_OK);
    reference_joint(bar, BEND, 0.3f / 1.5f, SLIDE, 0.6f / 1.5f, 0.5f, -1, 0.0f, 1.0f, 1, want);
    CHECK_MSG(near16(got, want), "the loaded bake's blend poses the top joint otherwise");
    gpu_scene_destroy(&s);
    crowd_bake_destroy(loaded);

    /* thresholds 0, 1 -> 1, 0 in the manifest */
    FILE *f = fopen("baked_blend/bar.crowd.json", "rb");
    REQUIRE_VOID(f != NULL);
    static char json[1 << 20];
    size_t size = fread(json, 1, sizeof json - 1, f);
    fclose(f);
    json[size] = '\0';
    char *at = strstr(json, "\"thresholds\"");
    char *zero = at != NULL ? strchr(at, '0') : NULL;
    char *one = zero != NULL ? strchr(zero, '1') : NULL;
    REQUIRE_VOID(one != NULL);
    *zero = '1';
    *one = '0';
    f = fopen("baked_blend/bar.crowd.json", "wb");
    REQUIRE_VOID(f != NULL);
    fwrite(json, 1, size, f);
    fclose(f);
    crowd_result r = crowd_bake_load("baked_blend", NULL, &loaded, &error);
    printf("  a manifest blend with falling thresholds: %s\n", error.reason);
    CHECK(r == CROWD_ERROR_INVALID_DATA && strstr(error.reason, "blends[0]") != NULL);
}

/* Replaces the first `from` in file `path` by `to`; false when absent. */
static bool edit_file(const char *path, const char *from, const char *to) {
    static char json[1 << 20], out[1 << 20];
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return false;
    }
    size_t size = fread(json, 1, sizeof json - 1, f);
    fclose(f);
    json[size] = '\0';
    char *at = strstr(json, from);
    if (at == NULL || size + strlen(to) >= sizeof out) {
        return false;
    }
    size_t head = (size_t)(at - json);
    memcpy(out, json, head);
    strcpy(out + head, to);
    strcat(out + head, at + strlen(from));
    f = fopen(path, "wb");
    if (f == NULL) {
        return false;
    }
    fwrite(out, 1, strlen(out), f);
    fclose(f);
    return true;
}

/* A written bake carries what speed matching needs (clips[].ground_speed,
 * blends[].strides): exactly what a world made from the built bake
 * measures, read back by the loader and used by the loaded bake's world
 * (players without a skeleton, the three.js player, match on them).
 * Malformed ones are refused; a manifest without them loads and its world
 * measures. */
static void test_baked_measures(const crowd_asset *bar) {
    crowd_bake *bake = NULL, *loaded = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK);
    const char *clips[2] = {"bend", "slide"};
    const float thresholds[2] = {0.0f, 1.0f};
    CHECK(crowd_bake_add_blend(bake, "bend_slide", 2, clips, thresholds, &error) == CROWD_OK);
    CHECK_MSG(crowd_bake_write(bake, "baked_measures", NULL, &error) == CROWD_OK, "%s",
              error.reason);
    gpu_scene built;
    float speeds[8] = {0};
    uint32_t clip_count = bake->clip_count < 8 ? bake->clip_count : 8;
    if (gpu_scene_create(NULL, bake, CROWD_GPU_MODE_CPU, &built)) {
        for (uint32_t c = 0; c < clip_count; c++) {
            speeds[c] = crowd_archetype_clip_ground_speed(built.world, built.archetype, c);
        }
        gpu_scene_destroy(&built);
    }
    crowd_bake_destroy(bake);
    CHECK_MSG(crowd_bake_load("baked_measures", NULL, &loaded, &error) == CROWD_OK, "%s",
              error.reason);
    REQUIRE_VOID(loaded != NULL && loaded->blend_count == 1);
    int same = 0, moving = 0;
    for (uint32_t c = 0; c < clip_count; c++) {
        same += loaded->clips[c].has_ground_speed && loaded->clips[c].ground_speed == speeds[c];
        moving += speeds[c] > 0.0f;
    }
    printf("  %u clips' ground speeds in the manifest, %d as the world measures, %d moving\n",
           (unsigned)clip_count, same, moving);
    CHECK(same == (int)clip_count && moving > 0);
    /* The strides, against a measure on the source clips. */
    const uint32_t sources[2] = {BEND, SLIDE};
    const float durations[2] = {bar->clips[BEND].duration_s, bar->clips[SLIDE].duration_s};
    float strides[CROWD_BAKE_BLEND_MAX_CLIPS - 1][CROWD__GROUND_STRIDE_STEPS + 1];
    CHECK(crowd__ground_measure_strides(NULL, bar, &bar->mesh, sources, durations, 2, strides,
                                        NULL) == CROWD_OK);
    CHECK(loaded->blends[0].has_strides &&
          memcmp(loaded->blends[0].strides[0], strides[0], sizeof strides[0]) == 0);
    gpu_scene s;
    if (gpu_scene_create(NULL, loaded, CROWD_GPU_MODE_CPU, &s)) {
        for (uint32_t c = 0; c < clip_count; c++) {
            CHECK(crowd_archetype_clip_ground_speed(s.world, s.archetype, c) == speeds[c]);
        }
        gpu_scene_destroy(&s);
    }
    crowd_bake_destroy(loaded);

    const char *manifest = "baked_measures/bar.crowd.json";
    CHECK(edit_file(manifest, "\"ground_speed\":\t", "\"ground_speed\":\t-1"));
    crowd_result r = crowd_bake_load("baked_measures", NULL, &loaded, &error);
    printf("  a negative ground speed: %s\n", error.reason);
    CHECK(r == CROWD_ERROR_INVALID_DATA && strstr(error.reason, "ground_speed is negative"));
    CHECK(edit_file(manifest, "\"ground_speed\":\t-1", "\"ground_speed_old\":\t"));
    CHECK(edit_file(manifest, "\"strides\":\t[[", "\"strides\":\t[[1, "));
    r = crowd_bake_load("baked_measures", NULL, &loaded, &error);
    printf("  strides of 10 numbers: %s\n", error.reason);
    CHECK(r == CROWD_ERROR_INVALID_DATA && strstr(error.reason, "strides must hold"));
    /* Without them (a bake of before): loads, and its world measures. */
    CHECK(edit_file(manifest, "\"strides\":\t[[1, ", "\"strides_old\":\t[["));
    while (edit_file(manifest, "\"ground_speed\":\t", "\"ground_speed_old\":\t")) {
    }
    REQUIRE_VOID(crowd_bake_load("baked_measures", NULL, &loaded, &error) == CROWD_OK);
    CHECK(!loaded->clips[0].has_ground_speed && !loaded->blends[0].has_strides);
    if (gpu_scene_create(NULL, loaded, CROWD_GPU_MODE_CPU, &s)) {
        float g = crowd_archetype_clip_ground_speed(s.world, s.archetype, SLIDE);
        CHECK_MSG(fabsf(g - speeds[SLIDE]) <= 1e-3f * speeds[SLIDE] + 1e-6f,
                  "measured on the runtime clips: %g, at bake time %g", (double)g,
                  (double)speeds[SLIDE]);
        gpu_scene_destroy(&s);
    }
    crowd_bake_destroy(loaded);
}

/* Root motion of a blend: the two clips' displacements mixed by the
 * weight, the partner's at the main's phase. The bar baked with its root
 * motion extracted: slide moves the root +x 0.6 m in its first second,
 * bend not at all. At weight 0.5 (cycle 1.5 s) from 0 to 0.3 s slide goes
 * from 0 to 0.4 s: 0.24 m, half of it counted. */
static void test_root_motion(const crowd_asset *bar) {
    crowd_bake *bake = NULL;
    crowd_error error;
    crowd_bake_desc desc = {.lods = -1, .root_motion = CROWD_ROOT_MOTION_EXTRACT};
    REQUIRE_VOID(crowd_bake_build(bar, &desc, &bake, &error) == CROWD_OK);
    gpu_scene s;
    if (!gpu_scene_create(NULL, bake, CROWD_GPU_MODE_BAT, &s)) {
        crowd_bake_destroy(bake);
        REQUIRE_VOID(false);
    }
    crowd_blend blend = bend_slide(&s);
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id, NULL) ==
          CROWD_OK);
    CHECK(crowd_instance_play_blend(s.world, id, blend, 0.5f, 0.0f, NULL) == CROWD_OK);
    float delta[3] = {0}, turn = 1.0f;
    crowd_result r = crowd_instance_root_motion(s.world, id, 0.0, 0.3, delta, &turn, &error);
    CHECK_MSG(r == CROWD_OK, "%s", error.reason);
    printf("  blend root motion over 0.3 s at weight 0.5: (%.5f, %.5f, %.5f), turn %.5f\n",
           (double)delta[0], (double)delta[1], (double)delta[2], (double)turn);
    CHECK(fabsf(delta[0] - 0.12f) < 1e-4f && fabsf(delta[2]) < 1e-5f && fabsf(turn) < 1e-5f);
    /* At the slide's threshold it is slide's alone: 0.3 s of it, 0.18 m. */
    CHECK(crowd_instance_set_blend_parameter(s.world, id, 1.0f, NULL) == CROWD_OK);
    r = crowd_instance_root_motion(s.world, id, 0.0, 0.3, delta, &turn, &error);
    CHECK_MSG(r == CROWD_OK && fabsf(delta[0] - 0.18f) < 1e-4f, "slide alone: %.5f",
              (double)delta[0]);
    gpu_scene_destroy(&s);
    crowd_bake_destroy(bake);
}

static int compare_floats(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* Speed matching: robot.glb's walk and run as a blend by ground speed; at
 * v the instance moves +Z at v (the clips face +Z) and the lowest foot
 * joint's world velocity on contact frames is measured. */
static void test_speed_matching(void) {
    const char *path = check_shared_model("robot.glb");
    if (path == NULL) {
        printf("blend: no ../shared/models/robot.glb, speed matching skipped\n");
        return;
    }
    crowd_asset *robot = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_import_file(path, NULL, &robot, &error) == CROWD_OK);
    gpu_scene s;
    if (!gpu_scene_create(robot, NULL, CROWD_GPU_MODE_CPU, &s)) {
        crowd_asset_destroy(robot);
        REQUIRE_VOID(false);
    }
    uint32_t walk = 0, run = 0;
    CHECK(crowd_archetype_find_clip(s.world, s.archetype, "Robot_Walking", &walk));
    CHECK(crowd_archetype_find_clip(s.world, s.archetype, "Robot_Running", &run));
    float g_walk = crowd_archetype_clip_ground_speed(s.world, s.archetype, walk);
    float g_run = crowd_archetype_clip_ground_speed(s.world, s.archetype, run);
    printf("robot: ground speed walk %.4f, run %.4f units/s\n", (double)g_walk, (double)g_run);
    CHECK(g_walk > 1.0f && g_run > g_walk);
    const uint32_t clips[2] = {walk, run};
    crowd_blend blend;
    crowd_blend_desc desc = {.name = "locomotion", .clip_count = 2, .clips = clips};
    CHECK(crowd_archetype_add_blend(s.world, s.archetype, &desc, &blend, NULL) == CROWD_OK);
    uint32_t joints = robot->skeleton.joint_count;
    crowd_transform *pose = malloc(joints * sizeof *pose);
    float *models = malloc(16 * sizeof(float) * joints);
    uint8_t *feet = malloc(joints);
    REQUIRE_VOID(pose && models && feet &&
                 crowd_anim_foot_joints(&robot->skeleton, &robot->mesh, pose, models, feet) > 0);
    const float speeds[4] = {g_walk, 0.5f * (g_walk + g_run), 0.8f * g_run + 0.2f * g_walk, g_run};
    for (int v_at = 0; v_at < 4; v_at++) {
        float v = speeds[v_at];
        crowd_instance id;
        crowd_world_set_time(s.world, 0.0);
        CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id,
                                       NULL) == CROWD_OK);
        CHECK(crowd_instance_play_blend(s.world, id, blend, v, 0.0f, NULL) == CROWD_OK);
        CHECK(crowd_instance_set_ground_speed(s.world, id, v, NULL) == CROWD_OK);
        /* Two seconds at 240 Hz: the feet's world positions. */
        enum { STEPS = 480 };
        static float y[STEPS], x[STEPS], z[STEPS];
        static uint32_t foot[STEPS];
        float h = 1.0f / 240.0f, min_y = INFINITY, extent = 0.0f;
        for (int k = 0; k < STEPS; k++) {
            double t = k * (double)h;
            crowd_world_set_time(s.world, t);
            const float position[3] = {0.0f, 0.0f, (float)(v * t)};
            crowd_instance_set_transform(s.world, id, position, 0.0f, 1.0f, NULL);
            y[k] = INFINITY;
            float low = INFINITY, high = -INFINITY;
            for (uint32_t j = 0; j < joints; j++) {
                float m[16];
                crowd_instance_joint_transform(s.world, id, j, CROWD_SPACE_WORLD, m, NULL);
                low = fminf(low, m[13]);
                high = fmaxf(high, m[13]);
                if (feet[j] && m[13] < y[k]) {
                    foot[k] = j;
                    y[k] = m[13];
                    x[k] = m[12];
                    z[k] = m[14];
                }
            }
            min_y = fminf(min_y, y[k]);
            extent = fmaxf(extent, high - low);
        }
        /* Contact frames as the ground speed takes them: the lowest foot
         * within 3 % of the height above the lowest, at the frame and both
         * its neighbours (the same foot at all three), moving in model
         * space (world velocity less the instance's) the way the deepest
         * contact does. The foot's net world velocity over them (the mean
         * of the vectors) must be at most 2 % of v: it ends each stance
         * where it began. Frame by frame the clips themselves move a
         * planted foot unevenly (the median printed is that). */
        static float slides[STEPS], vx[STEPS], vz[STEPS];
        static bool low[STEPS];
        float tolerance = min_y + 0.03f * extent;
        int deepest = 1;
        for (int k = 1; k + 1 < STEPS; k++) {
            low[k] = y[k] <= tolerance && y[k - 1] <= tolerance && y[k + 1] <= tolerance &&
                     foot[k - 1] == foot[k] && foot[k + 1] == foot[k];
            vx[k] = (x[k + 1] - x[k - 1]) / (2.0f * h);
            vz[k] = (z[k + 1] - z[k - 1]) / (2.0f * h);
            deepest = low[k] && (!low[deepest] || y[k] < y[deepest]) ? k : deepest;
        }
        double sum[2] = {0.0, 0.0};
        int contacts = 0;
        for (int k = 1; k + 1 < STEPS; k++) {
            if (low[k] && vx[k] * vx[deepest] + (vz[k] - v) * (vz[deepest] - v) >= 0.0f) {
                sum[0] += vx[k];
                sum[1] += vz[k];
                slides[contacts++] = sqrtf(vx[k] * vx[k] + vz[k] * vz[k]);
            }
        }
        qsort(slides, (size_t)contacts, sizeof *slides, compare_floats);
        float median = contacts > 0 ? slides[contacts / 2] : INFINITY;
        float net = contacts > 0 ? (float)(hypot(sum[0], sum[1]) / contacts) : INFINITY;
        printf("robot at %.3f units/s: the planted foot's net world speed %.4f units/s (%.2f %% "
               "of v) over %d contact frames; frame by frame median %.3f\n",
               (double)v, (double)net, 100.0 * net / v, contacts, (double)median);
        CHECK_MSG(contacts >= 10 && net <= 0.02f * v, "foot slides %.4f at v %.4f", (double)net,
                  (double)v);
        CHECK(crowd_world_remove_instance(s.world, id, NULL) == CROWD_OK);
    }
    free(pose);
    free(models);
    free(feet);
    gpu_scene_destroy(&s);
    crowd_asset_destroy(robot);
}

int test_gpu_blend(void) {
    crowd_asset *bar = fixture_bar_create();
    REQUIRE(bar != NULL);
    crowd_bake *bake = NULL;
    crowd_error error;
    CHECK_MSG(crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK, "%s", error.reason);
    if (bake != NULL) {
        printf("blend: weights, both tiers\n");
        test_weights(bar, bake, CROWD_TIER_GL45);
        test_weights(bar, bake, CROWD_TIER_PORTABLE);
        printf("blend: a parameter change keeps the phase\n");
        test_parameter_change(bar, bake);
        printf("blend: crossfades into and out of a blend\n");
        test_crossfades(bar, bake);
        test_fade_images(bar, bake);
        printf("blend: bad input\n");
        test_bad_input(bar, bake);
        printf("blend: events\n");
        test_events(bar);
        printf("blend: declared in the bake\n");
        test_baked_blend(bar);
        printf("blend: speed matching's measures in the bake\n");
        test_baked_measures(bar);
        printf("blend: root motion\n");
        test_root_motion(bar);
    }
    test_speed_matching();
    crowd_bake_destroy(bake);
    crowd_asset_destroy(bar);
    return check_finish();
}
