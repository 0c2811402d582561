/* A bake folder loaded alone plays every mode: from version 4 its runtime
 * clips (NAME.G.anim.bin) give the loaded asset the skeleton and clips, so
 * cpu and gpu modes of an archetype made from the loaded bake alone draw
 * what the same modes draw from the imported asset and the bake in memory
 * (the tolerances of test_gpu.c), at three times of both clips and at
 * mid-crossfade. A folder rewritten as version 3 (no runtime clips) still
 * loads and refuses cpu and gpu with a clear message. */
#define _XOPEN_SOURCE 700

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/bake.h"
#include "test_files.h"
#include "test_json.h"
#include "test_gpu.h"

/* Both worlds drawn in `mode` at time_s. */
void gpu_test_old_bake_refuses(const char *dir, const char *name) {
    CHECK(test_strip_runtime_clips(dir, name));
    crowd_bake *loaded = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK, "%s", error.reason);
    gpu_scene old = {0};
    if (loaded != NULL && gpu_scene_create(NULL, loaded, CROWD_GPU_MODE_STATIC, &old)) {
        CHECK(!loaded->anim.present);
        const crowd_gpu_mode refused[] = {CROWD_GPU_MODE_CPU, CROWD_GPU_MODE_GPU};
        for (int m = 0; m < 2; m++) {
            CHECK(!crowd_archetype_has_mode(old.world, old.archetype, refused[m]));
            CHECK(crowd_archetype_set_mode(old.world, old.archetype, refused[m], &error) ==
                  CROWD_ERROR_UNSUPPORTED);
            CHECK_MSG(strstr(error.reason, "runtime clips") != NULL &&
                          strstr(error.reason, "older bake folder") != NULL,
                      "%s", error.reason);
        }
    } else {
        CHECK(false);
    }
    gpu_scene_destroy(&old);
    crowd_bake_destroy(loaded);
}

static void compare(gpu_scene *loaded, gpu_scene *imported, crowd_gpu_mode mode, const char *what,
                    double time_s, const crowd_camera *camera) {
    CHECK(crowd_archetype_set_mode(loaded->world, loaded->archetype, mode, NULL) == CROWD_OK);
    CHECK(crowd_archetype_set_mode(imported->world, imported->archetype, mode, NULL) == CROWD_OK);
    uint8_t *got = gpu_test_render(loaded->world, time_s, camera);
    uint8_t *want = gpu_test_render(imported->world, time_s, camera);
    CHECK(got != NULL && want != NULL);
    if (got != NULL && want != NULL) {
        char name[200];
        snprintf(name, sizeof name, "%s %s: loaded bake vs imported asset", what,
                 crowd_gpu_mode_name(mode));
        CHECK(gpu_test_close(name, want, got, gpu_test_tolerance(mode)));
        gpu_test_save(what, crowd_gpu_mode_name(mode), got);
    }
    free(got);
    free(want);
}

static void play(gpu_scene *s, crowd_instance id, uint32_t clip) {
    crowd_world_set_time(s->world, 0.0);
    CHECK(crowd_instance_update(s->world, id, &(crowd_instance_desc){.clip = clip}, NULL) ==
          CROWD_OK);
}

static void compare_clips(gpu_scene *loaded, gpu_scene *imported, const char *label,
                          const crowd_camera *camera) {
    crowd_instance a, b;
    CHECK(crowd_world_add_instance(loaded->world, loaded->archetype, &(crowd_instance_desc){0}, &a,
                                   NULL) == CROWD_OK);
    CHECK(crowd_world_add_instance(imported->world, imported->archetype, &(crowd_instance_desc){0},
                                   &b, NULL) == CROWD_OK);
    const float times[3] = {0.2f, 0.55f, 1.1f};
    const crowd_gpu_mode modes[2] = {CROWD_GPU_MODE_CPU, CROWD_GPU_MODE_GPU};
    for (uint32_t c = 0; c < 2; c++) {
        play(loaded, a, c);
        play(imported, b, c);
        for (int k = 0; k < 3; k++) {
            char what[128];
            snprintf(what, sizeof what, "%s_loaded_clip%u_%.2f", label, c, (double)times[k]);
            for (int m = 0; m < 2; m++) {
                compare(loaded, imported, modes[m], what, times[k], camera);
            }
        }
    }
    /* clip 0, then at 0.4 s clip 1 with a 0.3 s fade: half way at 0.55 s */
    play(loaded, a, 0);
    play(imported, b, 0);
    crowd_world_set_time(loaded->world, 0.4);
    crowd_world_set_time(imported->world, 0.4);
    CHECK(crowd_instance_play(loaded->world, a, 1, 0.3f, NULL) == CROWD_OK);
    CHECK(crowd_instance_play(imported->world, b, 1, 0.3f, NULL) == CROWD_OK);
    char what[128];
    snprintf(what, sizeof what, "%s_loaded_fade", label);
    for (int m = 0; m < 2; m++) {
        compare(loaded, imported, modes[m], what, 0.55, camera);
    }
}

void gpu_test_loaded_bake(const char *label, const crowd_asset *asset, const crowd_bake *bake) {
    printf("%s: a loaded bake alone against the imported asset\n", label);
    char dir[128];
    snprintf(dir, sizeof dir, "gpu_loaded_%s_XXXXXX", label);
    REQUIRE_VOID(mkdtemp(dir) != NULL);
    crowd_error error = {0};
    crowd_bake *loaded = NULL;
    CHECK_MSG(crowd_bake_write(bake, dir, NULL, &error) == CROWD_OK, "%s", error.reason);
    CHECK_MSG(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK, "%s", error.reason);
    REQUIRE_VOID(loaded != NULL);
    CHECK(loaded->anim.present && loaded->anim.error_max_rel <= 1e-5);
    crowd_camera camera;
    crowd_camera_frame_box(bake->bounds_min, bake->bounds_max,
                           (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &camera);
    gpu_scene from_disk = {0}, imported = {0};
    if (gpu_scene_create(NULL, loaded, CROWD_GPU_MODE_STATIC, &from_disk) &&
        gpu_scene_create(asset, bake, CROWD_GPU_MODE_STATIC, &imported)) {
        for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
            CHECK_MSG(
                crowd_archetype_has_mode(from_disk.world, from_disk.archetype, (crowd_gpu_mode)m),
                "%s: the loaded bake cannot play %s", label,
                crowd_gpu_mode_name((crowd_gpu_mode)m));
        }
        compare_clips(&from_disk, &imported, label, &camera);
    } else {
        CHECK(false);
    }
    gpu_scene_destroy(&from_disk);
    gpu_scene_destroy(&imported);
    crowd_bake_destroy(loaded);
    loaded = NULL;

    /* As version 3: no runtime clips, cpu and gpu refused. */
    gpu_test_old_bake_refuses(dir, bake->name);
    test_remove_tree(dir);
}
