/* test_gpu_cull - culling and LODs (crowd_draw_desc.cull, viewport_height_px).
 *
 * - No visible character is ever culled: along a camera path at eye height
 *   through a field of built-in characters playing clips with large motion
 *   (wave, run), some crossfading, frames culled on the GPU and on the CPU
 *   with LODs forced to 0 are pixel-identical to brute-force frames, in bat
 *   and vat; and culling does drop characters (the CPU path counts them).
 * - The GPU and CPU paths keep the same instances at the same LODs, frame
 *   after frame (their hysteresis included): the GPU's lists and commands
 *   are read back and compared with the CPU's.
 * - LOD quality: one character at the distance where its LOD1 error first
 *   projects to the 1-pixel budget is drawn at LOD1, and that frame differs
 *   from its LOD0 frame in at most 1 % of the character's pixels.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/gl.h>

#include "check.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/import.h"
#include "gpu/internal.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

#define FIELD_SIDE 24 /* characters per row: 576 in all */
#define FIELD_SPACING 1.6f
#ifndef LOD_TEST_BUDGET_PX
#define LOD_TEST_BUDGET_PX 1.0f
#endif

typedef struct field {
    crowd_world *world;
    crowd_archetype archetype;
    crowd_instance ids[FIELD_SIDE * FIELD_SIDE]; /* in the order added */
} field;

/* Deterministic pseudo-random numbers in [0, 1). */
static float unit_random(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f;
}

/* A square field centred on the origin: headings, clips and phases vary,
 * every third character crossfading at the start. */
static bool field_create(const crowd_asset *asset, const crowd_bake *bake, crowd_gpu_mode mode,
                         field *out) {
    crowd_error error;
    out->world = NULL;
    if (crowd_world_create(NULL, &out->world, &error) != CROWD_OK ||
        crowd_world_add_archetype(
            out->world, &(crowd_archetype_desc){.asset = asset, .bake = bake, .mode = mode},
            &out->archetype, &error) != CROWD_OK) {
        fprintf(stderr, "field: %s\n", error.reason);
        crowd_world_destroy(out->world);
        out->world = NULL;
        return false;
    }
    uint32_t wave = 0, run = 0;
    bool has_wave = crowd_archetype_find_clip(out->world, out->archetype, "wave", &wave);
    bool has_run = crowd_archetype_find_clip(out->world, out->archetype, "run", &run);
    uint32_t clips = crowd_archetype_clip_count(out->world, out->archetype);
    uint32_t seed = 12345;
    for (int i = 0; i < FIELD_SIDE * FIELD_SIDE; i++) {
        float jitter_x = unit_random(&seed) - 0.5f, jitter_z = unit_random(&seed) - 0.5f;
        crowd_instance_desc desc = {
            .position = {((float)(i % FIELD_SIDE) - 0.5f * FIELD_SIDE + jitter_x) * FIELD_SPACING,
                         0.0f,
                         ((float)(i / FIELD_SIDE) - 0.5f * FIELD_SIDE + jitter_z) * FIELD_SPACING},
            .heading_rad = 6.2831853f * unit_random(&seed),
            .clip = i % 2 == 0 && has_wave ? wave : (has_run ? run : 0),
            .time_offset_s = 2.0f * unit_random(&seed),
        };
        crowd_instance id;
        if (crowd_world_add_instance(out->world, out->archetype, &desc, &id, &error) != CROWD_OK ||
            (i % 3 == 0 && crowd_instance_play(out->world, id, (desc.clip + 1) % clips, 0.8f,
                                               &error) != CROWD_OK)) {
            fprintf(stderr, "field instance %d: %s\n", i, error.reason);
            return false;
        }
        out->ids[i] = id;
    }
    return true;
}

/* Camera k of the path: eye height, inside the field, turning. */
static crowd_camera path_camera(int k) {
    float angle = 0.9f * (float)k;
    crowd_camera camera = {.eye = {3.0f * cosf(0.5f * angle), 1.6f, 3.0f * sinf(0.7f * angle)},
                           .fov_y_rad = 1.0f,
                           .near_m = 0.1f,
                           .far_m = 200.0f};
    camera.target[0] = camera.eye[0] + 10.0f * sinf(angle);
    camera.target[1] = 1.2f;
    camera.target[2] = camera.eye[2] - 10.0f * cosf(angle);
    return camera;
}

static uint8_t *frame_with(crowd_world *world, double time_s, const crowd_camera *camera,
                           crowd_cull_mode cull, float viewport_height_px,
                           crowd_world_stats *stats) {
    crowd_draw_desc desc = gpu_test_draw_desc(camera, CROWD_PASS_COLOR);
    desc.cull = cull;
    desc.viewport_height_px = viewport_height_px;
    if (!gpu_test_frame(world, time_s, &desc)) {
        return NULL;
    }
    crowd_world_get_stats(world, stats);
    return gpu_test_read_rgba();
}

static void test_never_culled_visible(const crowd_asset *asset, const crowd_bake *bake) {
    const crowd_gpu_mode modes[2] = {CROWD_GPU_MODE_BAT, CROWD_GPU_MODE_VAT};
    for (int m = 0; m < 2; m++) {
        field f;
        if (!field_create(asset, bake, modes[m], &f)) {
            CHECK(false);
            crowd_world_destroy(f.world);
            continue;
        }
        int identical = 0, frames = 0;
        uint64_t kept = 0, total = 0;
        for (int k = 0; k < 6; k++) {
            crowd_camera camera = path_camera(k);
            double t = 0.13 + 0.37 * k; /* crossfades run over the first frames */
            crowd_world_stats off_stats, gpu_stats, cpu_stats;
            uint8_t *off = frame_with(f.world, t, &camera, CROWD_CULL_OFF, 0.0f, &off_stats);
            uint8_t *gpu = frame_with(f.world, t, &camera, CROWD_CULL_GPU, 0.0f, &gpu_stats);
            uint8_t *cpu = frame_with(f.world, t, &camera, CROWD_CULL_CPU, 0.0f, &cpu_stats);
            CHECK(off != NULL && gpu != NULL && cpu != NULL);
            if (off != NULL && gpu != NULL && cpu != NULL) {
                bool same = memcmp(off, gpu, GPU_TEST_PIXELS * 4) == 0 &&
                            memcmp(off, cpu, GPU_TEST_PIXELS * 4) == 0;
                if (!same) {
                    char stem[48];
                    snprintf(stem, sizeof stem, "cull_%s_%d", crowd_gpu_mode_name(modes[m]), k);
                    gpu_test_save(stem, "off", off);
                    gpu_test_save(stem, "gpu", gpu);
                    gpu_test_save(stem, "cpu", cpu);
                }
                identical += same;
                frames++;
                kept += cpu_stats.visible_instances;
                total += off_stats.visible_instances;
                CHECK(gpu_stats.draw_calls == 1 && cpu_stats.draw_calls == 1);
            }
            free(off);
            free(gpu);
            free(cpu);
        }
        printf("  %s: %d of %d path frames identical culled (GPU, CPU) and brute force; "
               "culling kept %llu of %llu characters\n",
               crowd_gpu_mode_name(modes[m]), identical, frames, (unsigned long long)kept,
               (unsigned long long)total);
        CHECK(frames == 6 && identical == frames);
        /* The view from inside the field sees a part of it. */
        CHECK(kept > 0 && kept < total / 2);
        crowd_world_destroy(f.world);
    }
}

/* Handles per LOD of what the last pass of `a` kept, sorted; counts[k]. */
static uint32_t *kept_lists(const gpu_archetype *a, uint32_t lod_count, uint32_t counts[]) {
    uint32_t commands[CROWD_BAKE_MAX_LODS * 5];
    glGetNamedBufferSubData(a->cull.command_buffer, 0, (GLsizeiptr)(lod_count * 20), commands);
    uint32_t total = 0;
    for (uint32_t k = 0; k < lod_count; k++) {
        counts[k] = commands[5 * k + 1];
        total += counts[k];
    }
    uint32_t *handles = malloc((total > 0 ? total : 1) * sizeof *handles);
    gpu_instance_record *records =
        malloc(sizeof *records * (a->cull.visible_capacity > 0 ? a->cull.visible_capacity : 1));
    uint32_t at = 0;
    for (uint32_t k = 0; handles != NULL && records != NULL && k < lod_count; k++) {
        if (counts[k] > a->cull.visible_capacity) {
            free(handles);
            free(records);
            return NULL;
        }
        glGetNamedBufferSubData(
            a->cull.visible_buffer,
            (GLintptr)((uint64_t)k * a->cull.visible_capacity * sizeof *records),
            (GLsizeiptr)(counts[k] * sizeof *records), records);
        uint32_t first = at;
        for (uint32_t i = 0; i < counts[k]; i++) {
            handles[at++] = records[i].handle;
        }
        /* Sorted within the LOD: the GPU's order is its atomics'. */
        for (uint32_t i = first + 1; i < at; i++) {
            for (uint32_t j = i; j > first && handles[j - 1] > handles[j]; j--) {
                uint32_t swap = handles[j];
                handles[j] = handles[j - 1];
                handles[j - 1] = swap;
            }
        }
    }
    free(records);
    return handles;
}

static void test_gpu_matches_cpu(const crowd_asset *asset, const crowd_bake *bake) {
    field on_gpu, on_cpu;
    bool made = field_create(asset, bake, CROWD_GPU_MODE_VAT, &on_gpu);
    made = field_create(asset, bake, CROWD_GPU_MODE_VAT, &on_cpu) && made;
    CHECK(made);
    const gpu_archetype *a =
        made ? crowd__gpu_world_archetype(on_gpu.world, on_gpu.archetype) : NULL;
    const gpu_archetype *b =
        made ? crowd__gpu_world_archetype(on_cpu.world, on_cpu.archetype) : NULL;
    int same_frames = 0, frames = 0;
    uint32_t lods_seen = 0;
    for (int k = 0; a != NULL && b != NULL && k < 8; k++) {
        crowd_camera camera = path_camera(k / 2); /* each view twice: the hysteresis holds */
        crowd_world_stats stats;
        uint8_t *x = frame_with(on_gpu.world, 0.1 * k, &camera, CROWD_CULL_GPU, 120.0f, &stats);
        uint32_t gpu_counts[CROWD_BAKE_MAX_LODS], cpu_counts[CROWD_BAKE_MAX_LODS];
        uint32_t *gpu_kept = kept_lists(a, a->mesh.lod_count, gpu_counts);
        uint8_t *y = frame_with(on_cpu.world, 0.1 * k, &camera, CROWD_CULL_CPU, 120.0f, &stats);
        uint32_t *cpu_kept = kept_lists(b, b->mesh.lod_count, cpu_counts);
        bool same = gpu_kept != NULL && cpu_kept != NULL &&
                    memcmp(gpu_counts, cpu_counts, a->mesh.lod_count * sizeof gpu_counts[0]) == 0;
        uint32_t total = 0;
        for (uint32_t l = 0; l < a->mesh.lod_count; l++) {
            total += gpu_counts[l];
            lods_seen |= gpu_counts[l] > 0 ? 1u << l : 0u;
        }
        same = same && memcmp(gpu_kept, cpu_kept, total * sizeof *gpu_kept) == 0;
        same = same && x != NULL && y != NULL && memcmp(x, y, GPU_TEST_PIXELS * 4) == 0;
        if (k == 0 || !same) {
            printf("  frame %d: GPU keeps", k);
            for (uint32_t l = 0; l < a->mesh.lod_count; l++) {
                printf(" %u", gpu_counts[l]);
            }
            printf(" per LOD, CPU");
            for (uint32_t l = 0; l < b->mesh.lod_count; l++) {
                printf(" %u", cpu_counts[l]);
            }
            printf("%s\n", same ? "" : " DIFFER");
        }
        same_frames += same;
        frames++;
        free(x);
        free(y);
        free(gpu_kept);
        free(cpu_kept);
    }
    printf("  GPU and CPU culling: %d of %d frames the same instances at the same LODs "
           "(LODs in use: mask 0x%x)\n",
           same_frames, frames, (unsigned)lods_seen);
    CHECK(frames == 8 && same_frames == frames);
    /* The field spans near and far: more than one LOD is in use. */
    CHECK(bake->lod_count < 2 || (lods_seen & ~1u) != 0);
    crowd_world_destroy(on_gpu.world);
    crowd_world_destroy(on_cpu.world);
}

/* Pixels that are not the clear colour. */
static uint32_t foreground(const uint8_t *rgba, const uint8_t *background) {
    uint32_t n = 0;
    for (uint32_t p = 0; p < GPU_TEST_PIXELS; p++) {
        n += memcmp(rgba + 4 * p, background, 3) != 0;
    }
    return n;
}

static void test_lod_switch(const char *name, const crowd_asset *asset, const crowd_bake *bake,
                            const char *clip_name) {
    if (bake->lod_count < 2) {
        printf("SKIP: %s has no LODs\n", name);
        check_skips++;
        return;
    }
    gpu_scene scene;
    REQUIRE_VOID(gpu_scene_create(asset, bake, CROWD_GPU_MODE_VAT, &scene));
    uint32_t clip = 0; /* the first clip when there is none of that name */
    crowd_archetype_find_clip(scene.world, scene.archetype, clip_name, &clip);
    crowd_instance id;
    CHECK(crowd_world_add_instance(scene.world, scene.archetype,
                                   &(crowd_instance_desc){.clip = clip}, &id, NULL) == CROWD_OK);
    /* The view looks at the character's middle. Its LOD1 error projects to
     * the pixel budget at clip w = error x projection[5] x height / 2 /
     * budget; the world leaves LOD0 only once it projects 20 % under the
     * budget (the hysteresis), so coming from near, LOD1 is first chosen at
     * that w / 0.8 (w measured at the clip's bounding sphere's centre). */
    uint32_t c = clip;
    float centre_y = bake->clips[c].sphere_center[1];
    crowd_camera camera = {.eye = {0, centre_y, 1},
                           .target = {0, centre_y, 0},
                           .fov_y_rad = 0.25f,
                           .near_m = 0.05f,
                           .far_m = 500.0f};
    crowd_draw_desc probe = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    float budget_px = LOD_TEST_BUDGET_PX;
    float switch_w = bake->lods[1].error * probe.projection[5] * 0.5f * (float)GPU_TEST_HEIGHT /
                     budget_px / 0.8f;
    float sphere_z = bake->clips[c].sphere_center[2];
    crowd_world_stats stats;
    uint8_t *at_lod1 = NULL, *at_lod0 = NULL;
    /* Walking out: just inside the switch, then just past it. */
    const float steps[2] = {0.99f, 1.01f};
    for (int s = 0; s < 2; s++) {
        camera.eye[2] = sphere_z + switch_w * steps[s];
        crowd_draw_desc lod = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
        lod.cull = CROWD_CULL_CPU;
        lod.viewport_height_px = (float)GPU_TEST_HEIGHT;
        lod.lod_error_px = budget_px;
        CHECK(gpu_test_frame(scene.world, 0.4, &lod));
        crowd_world_get_stats(scene.world, &stats);
        uint32_t expected = bake->lods[s].index_count;
        CHECK_MSG(stats.vertices_drawn == expected,
                  "%s at %.2f of the switch: %llu vertices drawn, LOD%d has %u", name,
                  (double)steps[s], (unsigned long long)stats.vertices_drawn, s, expected);
        /* The per-LOD counts say the same: the one instance at LOD s. */
        for (int k = 0; k < CROWD_BAKE_MAX_LODS; k++) {
            CHECK_MSG(stats.visible_per_lod[k] == (k == s ? 1u : 0u),
                      "%s at %.2f of the switch: %llu drawn at LOD%d", name, (double)steps[s],
                      (unsigned long long)stats.visible_per_lod[k], k);
        }
        if (s == 1) {
            at_lod1 = gpu_test_read_rgba();
            lod.debug_lod_tint = true; /* LOD1 tinted green: red and blue drop to 30 % */
            uint8_t *tinted = gpu_test_frame(scene.world, 0.4, &lod) ? gpu_test_read_rgba() : NULL;
            lod.debug_lod_tint = false;
            uint32_t green = 0, covered = 0;
            for (uint32_t p = 0; tinted != NULL && at_lod1 != NULL && p < GPU_TEST_PIXELS; p++) {
                const uint8_t *a = at_lod1 + 4 * p, *b = tinted + 4 * p;
                if (memcmp(a, at_lod1, 3) != 0) { /* not the clear colour (a corner) */
                    covered++;
                    green += b[0] < a[0] && b[2] <= a[2] && b[1] + 2 >= a[1];
                }
            }
            CHECK_MSG(covered > 20 && green * 10 >= covered * 9, "%s: %u of %u px tinted green",
                      name, (unsigned)green, (unsigned)covered);
            free(tinted);
            lod.viewport_height_px = 0.0f; /* LOD0 from the same place */
            if (gpu_test_frame(scene.world, 0.4, &lod)) {
                at_lod0 = gpu_test_read_rgba();
            }
        }
    }
    REQUIRE_VOID(at_lod1 != NULL && at_lod0 != NULL);
    uint8_t background[4];
    memcpy(background, at_lod0, 4); /* a corner: the clear colour */
    uint32_t character = foreground(at_lod0, background);
    image_diff d = image_compare(at_lod0, at_lod1, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 24);
    double fraction = (double)d.differing / (double)(character > 0 ? character : 1);
    printf("  %s: LOD1 (error %.4g, %.2e of the diagonal) first chosen %.2f m away: "
           "%u of the character's %u px differ from LOD0 (%.2f %%, at most 1 %%)\n",
           name, (double)bake->lods[1].error, (double)bake->lods[1].error_rel,
           (double)camera.eye[2], (unsigned)d.differing, (unsigned)character, 100.0 * fraction);
    gpu_test_save(name, "lod1", at_lod1);
    gpu_test_save(name, "lod0", at_lod0);
    CHECK(character > 20 && fraction <= 0.01);
    free(at_lod1);
    free(at_lod0);
    gpu_scene_destroy(&scene);
}

/* CULL_OFF and CULL_CPU draw the same pixels at camera 0 (looking along -z
 * from inside the field). */
static bool cpu_cull_exact(crowd_world *world, double t, const char *what) {
    crowd_camera camera = path_camera(0);
    crowd_world_stats off_stats, cpu_stats;
    uint8_t *off = frame_with(world, t, &camera, CROWD_CULL_OFF, 0.0f, &off_stats);
    uint8_t *cpu = frame_with(world, t, &camera, CROWD_CULL_CPU, 0.0f, &cpu_stats);
    bool same = off != NULL && cpu != NULL && memcmp(off, cpu, GPU_TEST_PIXELS * 4) == 0;
    CHECK_MSG(same && cpu_stats.visible_instances > 0,
              "%s: the CPU culling (%llu kept) draws other pixels than none", what,
              (unsigned long long)cpu_stats.visible_instances);
    free(off);
    free(cpu);
    return same;
}

/* The CPU culling tests blocks of GPU_CULL_BLOCK records first, each
 * around its members: records that change after a culling must reach their
 * blocks. Blocks of characters in a tight group behind the camera (culled
 * as a whole) and in front of it; then one from behind moves in front, one
 * in front is removed (the swap-remove moves the last record into its
 * place), one is added, one plays another clip with a crossfade, and the
 * mode goes to static (the bind pose's sphere) and back: each time the CPU
 * culling draws exactly what drawing everyone does. */
static void test_cpu_blocks_follow_changes(const crowd_asset *asset, const crowd_bake *bake) {
    crowd_world *world = NULL;
    crowd_archetype archetype;
    REQUIRE_VOID(crowd_world_create(NULL, &world, NULL) == CROWD_OK);
    CHECK(crowd_world_add_archetype(
              world,
              &(crowd_archetype_desc){.asset = asset, .bake = bake, .mode = CROWD_GPU_MODE_VAT},
              &archetype, NULL) == CROWD_OK);
    enum { GROUP = 2 * GPU_CULL_BLOCK };
    crowd_instance behind[GROUP], front[GROUP];
    for (uint32_t i = 0; i < GROUP; i++) {
        float x = 0.3f * (float)(i % 8), z = 0.3f * (float)(i / 8);
        crowd_instance_desc desc = {.position = {2.0f + x, 0.0f, 40.0f + z}};
        CHECK(crowd_world_add_instance(world, archetype, &desc, &behind[i], NULL) == CROWD_OK);
    }
    for (uint32_t i = 0; i < GROUP; i++) {
        float x = 0.9f * (float)(i % 8), z = 0.9f * (float)(i / 8);
        crowd_instance_desc desc = {.position = {-0.5f + x, 0.0f, -4.0f - z}};
        CHECK(crowd_world_add_instance(world, archetype, &desc, &front[i], NULL) == CROWD_OK);
    }
    crowd_world_set_time(world, 0.0);
    crowd_camera camera = path_camera(0);
    crowd_world_stats stats;
    uint8_t *first = frame_with(world, 0.2, &camera, CROWD_CULL_CPU, 0.0f, &stats);
    free(first);
    CHECK_MSG(stats.visible_instances > 0 && stats.visible_instances <= GROUP,
              "%llu kept of the group in front (%u)", (unsigned long long)stats.visible_instances,
              (unsigned)GROUP);
    const float near_eye[3] = {3.0f, 0.0f, -2.0f};
    CHECK(crowd_instance_set_transform(world, behind[GROUP - 1], near_eye, 0.0f, 1.0f, NULL) ==
          CROWD_OK);
    cpu_cull_exact(world, 0.4, "one from behind moved in front");
    CHECK(crowd_world_remove_instance(world, front[3], NULL) == CROWD_OK);
    cpu_cull_exact(world, 0.6, "after a removal");
    crowd_instance added;
    CHECK(crowd_world_add_instance(world, archetype,
                                   &(crowd_instance_desc){.position = {4.0f, 0.0f, -3.0f}}, &added,
                                   NULL) == CROWD_OK);
    CHECK(crowd_instance_play(world, front[10], 1, 0.5f, NULL) == CROWD_OK);
    cpu_cull_exact(world, 0.8, "added, crossfading");
    CHECK(crowd_archetype_set_mode(world, archetype, CROWD_GPU_MODE_STATIC, NULL) == CROWD_OK);
    cpu_cull_exact(world, 1.0, "static");
    CHECK(crowd_archetype_set_mode(world, archetype, CROWD_GPU_MODE_VAT, NULL) == CROWD_OK);
    cpu_cull_exact(world, 1.2, "vat again");
    crowd_world_destroy(world);
}

int test_gpu_cull(void) {
    printf("cull: culling and LODs\n");
    crowd_error error;
    crowd_asset *builtin = NULL;
    crowd_bake *bake = NULL;
    REQUIRE(crowd_builtin_create(&builtin, &error) == CROWD_OK);
    REQUIRE(crowd_bake_build(builtin, NULL, &bake, &error) == CROWD_OK);
    printf("  builtin: %u LODs\n", bake->lod_count);
    test_never_culled_visible(builtin, bake);
    test_gpu_matches_cpu(builtin, bake);
    test_cpu_blocks_follow_changes(builtin, bake);
    test_lod_switch("builtin", builtin, bake, "wave");
    crowd_bake_destroy(bake);
    crowd_asset_destroy(builtin);
    const char *robot_path = check_shared_model("robot.glb");
    crowd_asset *robot = NULL;
    crowd_bake *robot_bake = NULL;
    if (robot_path != NULL && crowd_import_file(robot_path, NULL, &robot, &error) == CROWD_OK &&
        crowd_bake_build(robot, NULL, &robot_bake, &error) == CROWD_OK) {
        test_lod_switch("robot", robot, robot_bake, "Robot_Dance");
    } else if (robot_path != NULL) {
        CHECK_MSG(false, "robot.glb: %s", error.reason);
    }
    crowd_bake_destroy(robot_bake);
    crowd_asset_destroy(robot);
    return check_finish();
}
