/* test_gpu_nearest - one-fetch playback (crowd_draw_desc.frame_fetch).
 *
 * A row of built-in characters running away from the camera, 3 to 63 m
 * deep, in bat and vat, on both tiers:
 * - Forced nearest frames are the baked frame itself: at a clock whose
 *   frame weight is 0.3 the one-fetch build (unculled, culled on the GPU,
 *   culled on the CPU) draws exactly the image interpolated playback draws
 *   at that frame's own time, in the colour and the depth pass; and that
 *   image differs from interpolated playback at the clock (so the test sees
 *   a wrong frame).
 * - Automatic choice: the instances counted on the one-fetch path are those
 *   whose clip's largest frame step (crowd_bake_clip.max_step) projects
 *   below half a pixel, worked out here from the camera, on the CPU and
 *   the GPU culling alike; the picture stays within tests/gpu's exact-mode
 *   tolerance of interpolated playback.
 * - Instances in a crossfade never take the one-fetch path, even forced.
 * - An unknown frame_fetch is refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

#define ROW 21
#define ROW_SPACING_M 3.0f
#define FRAME_WEIGHT 0.3f

typedef struct row_scene {
    crowd_world *world;
    crowd_archetype archetype;
    crowd_instance ids[ROW];
    uint32_t clip;
    float positions[ROW][3];
} row_scene;

static crowd_camera row_camera(void) {
    return (crowd_camera){.eye = {0.0f, 1.2f, 4.0f},
                          .target = {0.0f, 0.9f, -20.0f},
                          .fov_y_rad = 0.7853982f,
                          .near_m = 0.5f,
                          .far_m = 200.0f};
}

static const crowd_asset *row_asset; /* the bake's own character */

static bool row_create(crowd_gpu_tier tier, const crowd_bake *bake, crowd_gpu_mode mode,
                       bool timing, row_scene *out) {
    crowd_error error;
    memset(out, 0, sizeof *out);
    if (crowd_world_create(&(crowd_world_desc){.tier = tier, .timing = timing}, &out->world,
                           &error) != CROWD_OK ||
        crowd_world_add_archetype(
            out->world, &(crowd_archetype_desc){.asset = row_asset, .bake = bake, .mode = mode},
            &out->archetype, &error) != CROWD_OK) {
        fprintf(stderr, "nearest row: %s\n", error.reason);
        crowd_world_destroy(out->world);
        out->world = NULL;
        return false;
    }
    if (!crowd_archetype_find_clip(out->world, out->archetype, "run", &out->clip)) {
        out->clip = 0;
    }
    for (int i = 0; i < ROW; i++) {
        crowd_instance_desc desc = {
            .position = {i % 2 == 0 ? -0.7f : 0.7f, 0.0f, 1.0f - ROW_SPACING_M * (float)i},
            .heading_rad = 0.4f * (float)i,
            .clip = out->clip,
        };
        memcpy(out->positions[i], desc.position, sizeof desc.position);
        if (crowd_world_add_instance(out->world, out->archetype, &desc, &out->ids[i], &error) !=
            CROWD_OK) {
            fprintf(stderr, "nearest row instance %d: %s\n", i, error.reason);
            return false;
        }
    }
    return true;
}

/* One frame at clock t (the instances started at 0): its pixels, or its
 * depth values in the depth pass. */
static void *row_frame(row_scene *s, double t, crowd_pass pass, crowd_cull_mode cull,
                       crowd_frame_fetch fetch, crowd_world_stats *stats) {
    crowd_camera camera = row_camera();
    crowd_draw_desc desc = gpu_test_draw_desc(&camera, pass);
    desc.cull = cull;
    desc.frame_fetch = fetch;
    desc.viewport_height_px = (float)GPU_TEST_HEIGHT;
    if (!gpu_test_frame(s->world, t, &desc)) {
        return NULL;
    }
    if (stats != NULL) {
        crowd_world_get_stats(s->world, stats);
    }
    return pass == CROWD_PASS_DEPTH ? (void *)gpu_test_read_depth() : (void *)gpu_test_read_rgba();
}

static size_t frame_bytes(crowd_pass pass) {
    return pass == CROWD_PASS_DEPTH ? GPU_TEST_PIXELS * sizeof(float) : GPU_TEST_PIXELS * 4;
}

/* The clip's frames as the bake has them. */
static crowd_clip_frames clip_frames(const crowd_bake *bake, uint32_t clip) {
    const crowd_bake_clip *c = &bake->clips[clip];
    return (crowd_clip_frames){c->fps, c->duration_s, c->frame_count, c->layout};
}

static void test_forced(crowd_gpu_tier tier, const crowd_bake *bake, crowd_gpu_mode mode) {
    const char *name = crowd_gpu_mode_name(mode);
    const char *tier_name = tier == CROWD_TIER_PORTABLE ? "portable" : "gl45";
    row_scene s;
    REQUIRE_VOID(row_create(tier, bake, mode, false, &s));
    crowd_clip_frames frames = clip_frames(bake, s.clip);
    uint32_t frame = frames.frame_count / 3;
    double frame_time = crowd_anim_frame_time(&frames, frame);
    double t = frame_time + FRAME_WEIGHT / frames.fps;
    CHECK(crowd_anim_frame_nearest(&frames, (float)t) == frame);
    const crowd_cull_mode culls[3] = {CROWD_CULL_OFF, CROWD_CULL_GPU, CROWD_CULL_CPU};
    const char *const cull_names[3] = {"unculled", "GPU-culled", "CPU-culled"};
    for (int p = 0; p < 2; p++) {
        crowd_pass pass = p == 0 ? CROWD_PASS_COLOR : CROWD_PASS_DEPTH;
        for (int c = 0; c < 3; c++) {
            if (tier == CROWD_TIER_PORTABLE && culls[c] == CROWD_CULL_GPU) {
                continue; /* the portable tier culls on the CPU whatever is asked */
            }
            /* Culled passes pick LODs: the reference is culled the same way. */
            void *baked =
                row_frame(&s, frame_time, pass, culls[c], CROWD_FRAME_FETCH_INTERPOLATE, NULL);
            void *between = row_frame(&s, t, pass, culls[c], CROWD_FRAME_FETCH_INTERPOLATE, NULL);
            crowd_world_stats stats;
            void *nearest = row_frame(&s, t, pass, culls[c], CROWD_FRAME_FETCH_NEAREST, &stats);
            CHECK(baked != NULL && between != NULL && nearest != NULL);
            if (baked == NULL || between == NULL || nearest == NULL) {
                free(baked);
                free(between);
                free(nearest);
                continue;
            }
            CHECK_MSG(memcmp(baked, between, frame_bytes(pass)) != 0,
                      "%s %s: frame %u and 0.3 past it draw the same image", tier_name, name,
                      frame);
            bool same = memcmp(baked, nearest, frame_bytes(pass)) == 0;
            printf("  %s %s %s pass, %s: forced nearest at weight %.1f %s frame %u's image "
                   "(%llu of %llu one-fetch)\n",
                   tier_name, name, p == 0 ? "colour" : "depth", cull_names[c],
                   (double)FRAME_WEIGHT, same ? "is" : "IS NOT", frame,
                   (unsigned long long)stats.nearest_instances,
                   (unsigned long long)stats.visible_instances);
            CHECK(same);
            if (!same && pass == CROWD_PASS_COLOR) {
                gpu_test_save("nearest_forced", "want", baked);
                gpu_test_save("nearest_forced", "got", nearest);
            }
            if (culls[c] != CROWD_CULL_GPU) { /* the GPU's count is timing's */
                CHECK(stats.nearest_instances == stats.visible_instances &&
                      stats.visible_instances > 0);
            }
            free(baked);
            free(between);
            free(nearest);
        }
    }
    crowd_world_destroy(s.world);
}

/* Instances of the row whose step projects below half a pixel, from the
 * camera's matrices: w of the sphere centre against max_step x scale x
 * pixels per unit. */
static uint32_t expected_one_fetch(const crowd_bake *bake, const row_scene *s) {
    crowd_camera camera = row_camera();
    float view[16], projection[16];
    crowd_camera_matrices(&camera, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, view, projection);
    const crowd_bake_clip *clip = &bake->clips[s->clip];
    float pixels_per_unit = projection[5] * 0.5f * (float)GPU_TEST_HEIGHT;
    uint32_t count = 0;
    for (int i = 0; i < ROW; i++) {
        /* The sphere's centre sits near the character's middle; w is the
         * distance along the view axis, which the row's depth dominates. */
        float depth = camera.eye[2] - (s->positions[i][2] + clip->sphere_center[2]);
        float step_px = clip->max_step * pixels_per_unit / depth;
        count += step_px < 0.45f ? 1u : 0u; /* 10 % short of 0.5: no instance on the edge */
    }
    return count;
}

static void test_auto(crowd_gpu_tier tier, const crowd_bake *bake, crowd_gpu_mode mode) {
    const char *name = crowd_gpu_mode_name(mode);
    const char *tier_name = tier == CROWD_TIER_PORTABLE ? "portable" : "gl45";
    row_scene s;
    REQUIRE_VOID(row_create(tier, bake, mode, true, &s));
    uint32_t expected = expected_one_fetch(bake, &s);
    printf("  %s %s: clip max_step %.4f m, %u of %d instances expected under half a pixel\n",
           tier_name, name, (double)bake->clips[s.clip].max_step, expected, ROW);
    CHECK(expected > 0 && expected < ROW);
    for (int c = 0; c < 2; c++) {
        crowd_cull_mode cull = c == 0 ? CROWD_CULL_CPU : CROWD_CULL_GPU;
        if (tier == CROWD_TIER_PORTABLE && cull == CROWD_CULL_GPU) {
            continue;
        }
        double t = 0.5;
        uint8_t *interpolated =
            row_frame(&s, t, CROWD_PASS_COLOR, cull, CROWD_FRAME_FETCH_INTERPOLATE, NULL);
        uint8_t *automatic = NULL;
        crowd_world_stats stats = {0};
        /* GPU culling's counts arrive frames later (timing's read-back):
         * the same frame again until they are this frame's kind. */
        for (int k = 0; k < 6; k++) {
            free(automatic);
            automatic = row_frame(&s, t, CROWD_PASS_COLOR, cull, CROWD_FRAME_FETCH_AUTO, &stats);
        }
        printf("  %s %s cull %d: %llu of %llu visible on the one-fetch path\n", tier_name, name,
               (int)cull, (unsigned long long)stats.nearest_instances,
               (unsigned long long)stats.visible_instances);
        /* At most the instances within 10 % of the half-pixel edge differ. */
        CHECK(stats.nearest_instances >= expected && stats.nearest_instances <= expected + 2);
        CHECK(stats.visible_instances == ROW);
        CHECK(interpolated != NULL && automatic != NULL &&
              gpu_test_close("automatic vs interpolated frames", interpolated, automatic,
                             GPU_TEST_EXACT));
        free(interpolated);
        free(automatic);
    }
    crowd_world_destroy(s.world);
}

static void test_crossfades_interpolate(const crowd_bake *bake) {
    row_scene s;
    REQUIRE_VOID(row_create(gpu_test_tier, bake, CROWD_GPU_MODE_VAT, false, &s));
    crowd_error error;
    uint32_t clips = crowd_archetype_clip_count(s.world, s.archetype);
    for (int i = 0; i < ROW; i++) {
        CHECK(crowd_instance_play(s.world, s.ids[i], (s.clip + 1) % clips, 1.0f, &error) ==
              CROWD_OK);
    }
    crowd_world_stats stats;
    uint8_t *interpolated =
        row_frame(&s, 0.4, CROWD_PASS_COLOR, CROWD_CULL_CPU, CROWD_FRAME_FETCH_INTERPOLATE, NULL);
    uint8_t *forced =
        row_frame(&s, 0.4, CROWD_PASS_COLOR, CROWD_CULL_CPU, CROWD_FRAME_FETCH_NEAREST, &stats);
    printf("  mid-crossfade, forced nearest: %llu of %llu one-fetch\n",
           (unsigned long long)stats.nearest_instances,
           (unsigned long long)stats.visible_instances);
    CHECK(stats.nearest_instances == 0 && stats.visible_instances == ROW);
    CHECK(interpolated != NULL && forced != NULL &&
          memcmp(interpolated, forced, GPU_TEST_PIXELS * 4) == 0);
    free(interpolated);
    free(forced);
    crowd_camera camera = row_camera();
    crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    desc.frame_fetch = (crowd_frame_fetch)7;
    CHECK(crowd_world_draw(s.world, &desc, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "frame_fetch") != NULL);
    crowd_world_destroy(s.world);
}

int test_gpu_nearest(void) {
    printf("nearest: one-fetch playback of the nearest baked frame\n");
    crowd_error error;
    crowd_asset *builtin = NULL;
    crowd_bake *bake = NULL;
    REQUIRE(crowd_builtin_create(&builtin, &error) == CROWD_OK);
    REQUIRE(crowd_bake_build(builtin, NULL, &bake, &error) == CROWD_OK);
    row_asset = builtin;
    const crowd_gpu_mode modes[2] = {CROWD_GPU_MODE_BAT, CROWD_GPU_MODE_VAT};
    const crowd_gpu_tier tiers[2] = {CROWD_TIER_GL45, CROWD_TIER_PORTABLE};
    for (int t = 0; t < 2; t++) {
        for (int m = 0; m < 2; m++) {
            test_forced(tiers[t], bake, modes[m]);
            test_auto(tiers[t], bake, modes[m]);
        }
    }
    test_crossfades_interpolate(bake);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(builtin);
    return check_finish();
}
