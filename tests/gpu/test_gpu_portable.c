/* test_gpu_portable - the portable tier (GL 3.3 core, GLES 3.0, WebGL2)
 * against the GL 4.5 tier.
 *
 * - Images: one scene per mode (static, cpu, gpu, bat, vat) - a field of
 *   built-in characters, some out of view, near and far (several LODs),
 *   every third crossfading - drawn at mid-fade culled with LODs, after the
 *   fade unculled, and culled with a depth pre-pass (depth pass, then the
 *   colour pass with GL_LEQUAL). The portable tier's frames must match the
 *   GL 4.5 tier's within the mode's tolerance (test_gpu.c), forced on a GL
 *   4.5 context (group portable), on a GL 3.3 core context (portable_gl33)
 *   and on a GLES 3.0 context (portable_gles3). On the last two the GL 4.5
 *   images come from a child process on a 4.5 context (Mesa fixes a
 *   process's context version at its first context).
 * - Selection: on one field along a camera path, the GL 4.5 tier's compute
 *   pass and the portable tier's CPU culling keep the same instances at the
 *   same LODs, frame after frame.
 * - Stats: the portable tier says so, and draws one call per LOD in use.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <epoxy/gl.h>

#include "check.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "gpu/internal.h"
#include "test_gpu.h"

#define ROWS 4
#define COLUMNS 6
#define FRAMES_PER_MODE 3
#define IMAGE_COUNT (CROWD_GPU_MODE_COUNT * FRAMES_PER_MODE)

static const char *const frame_names[FRAMES_PER_MODE] = {"mid-fade, culled, LODs", "unculled",
                                                         "depth pre-pass, culled"};

/* The characters: COLUMNS across (the outer ones out of view), ROWS deep
 * from near to far; every third starts a 0.8 s crossfade at time 0. */
static bool field_create(crowd_gpu_tier tier, const crowd_asset *asset, const crowd_bake *bake,
                         crowd_gpu_mode mode, crowd_world **out) {
    crowd_error error;
    crowd_archetype archetype;
    *out = NULL;
    if (crowd_world_create(&(crowd_world_desc){.tier = tier}, out, &error) != CROWD_OK ||
        crowd_world_add_archetype(
            *out, &(crowd_archetype_desc){.asset = asset, .bake = bake, .mode = mode}, &archetype,
            &error) != CROWD_OK) {
        printf("  field (%s, %s): %s\n", crowd_gpu_tier_name(tier), crowd_gpu_mode_name(mode),
               error.reason);
        crowd_world_destroy(*out);
        *out = NULL;
        return false;
    }
    uint32_t clips = crowd_archetype_clip_count(*out, archetype);
    for (int i = 0; i < ROWS * COLUMNS; i++) {
        int column = i % COLUMNS, row = i / COLUMNS;
        crowd_instance_desc desc = {
            .position = {((float)column - 0.5f * (COLUMNS - 1)) * (2.5f + 2.5f * (float)row), 0.0f,
                         -3.5f * (float)row * (float)row},
            .heading_rad = 0.7f * (float)i,
            .clip = (uint32_t)i % (clips > 0 ? clips : 1),
            .time_offset_s = 0.13f * (float)i,
        };
        crowd_instance id;
        if (crowd_world_add_instance(*out, archetype, &desc, &id, &error) != CROWD_OK ||
            (i % 3 == 0 && clips > 1 &&
             crowd_instance_play(*out, id, (desc.clip + 1) % clips, 0.8f, &error) != CROWD_OK)) {
            printf("  field instance %d: %s\n", i, error.reason);
            crowd_world_destroy(*out);
            *out = NULL;
            return false;
        }
    }
    return true;
}

static crowd_camera field_camera(float turn) {
    crowd_camera camera = {.eye = {0.0f, 1.6f, 7.0f},
                           .target = {turn, 1.1f, -10.0f},
                           .fov_y_rad = 0.9f,
                           .near_m = 0.1f,
                           .far_m = 120.0f};
    return camera;
}

/* Frame f of a mode's scene, read back; the world's stats after it. */
static uint8_t *render_frame(crowd_world *world, int f, crowd_world_stats *stats) {
    crowd_camera camera = field_camera(0.0f);
    crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    desc.viewport_height_px = (float)GPU_TEST_HEIGHT;
    desc.cull = f == 1 ? CROWD_CULL_OFF : CROWD_CULL_GPU;
    double time_s = f == 0 ? 0.4 : 1.5;
    crowd_error error;
    host_target_begin(&gpu_test_target, gpu_test_clear);
    bool ok = crowd_world_update(world, time_s, &error) == CROWD_OK;
    if (ok && f == 2) {
        crowd_draw_desc depth = desc;
        depth.pass = CROWD_PASS_DEPTH;
        ok = crowd_world_draw(world, &depth, &error) == CROWD_OK;
        glDepthFunc(GL_LEQUAL);
    }
    ok = ok && crowd_world_draw(world, &desc, &error) == CROWD_OK;
    glDepthFunc(GL_LESS);
    if (!ok) {
        printf("  frame %d: %s\n", f, error.reason);
        return NULL;
    }
    crowd_world_get_stats(world, stats);
    return gpu_test_read_rgba();
}

/* Every scene's frames on the current context; false when one failed. */
static bool render_set(crowd_gpu_tier tier, uint8_t *images[IMAGE_COUNT]) {
    crowd_error error;
    crowd_asset *asset = NULL;
    crowd_bake *bake = NULL;
    memset(images, 0, IMAGE_COUNT * sizeof images[0]);
    if (crowd_builtin_create(&asset, &error) != CROWD_OK ||
        crowd_bake_build(asset, NULL, &bake, &error) != CROWD_OK) {
        printf("  builtin: %s\n", error.reason);
        crowd_asset_destroy(asset);
        return false;
    }
    bool ok = true;
    for (int m = 0; m < CROWD_GPU_MODE_COUNT && ok; m++) {
        crowd_world *world = NULL;
        ok = field_create(tier, asset, bake, (crowd_gpu_mode)m, &world);
        for (int f = 0; ok && f < FRAMES_PER_MODE; f++) {
            crowd_world_stats stats;
            images[m * FRAMES_PER_MODE + f] = render_frame(world, f, &stats);
            ok = images[m * FRAMES_PER_MODE + f] != NULL;
            if (ok && tier != CROWD_TIER_GL45) {
                CHECK_MSG(stats.tier == CROWD_TIER_PORTABLE, "%s runs the %s tier",
                          crowd_gpu_mode_name((crowd_gpu_mode)m), crowd_gpu_tier_name(stats.tier));
            }
            if (ok && f == 0 && m != CROWD_GPU_MODE_CPU && m != CROWD_GPU_MODE_GPU) {
                /* Culled: some characters dropped, a draw per LOD in use. */
                printf("  %-8s %-9s culled frame: %llu of %u drawn, %u draws\n",
                       crowd_gpu_mode_name((crowd_gpu_mode)m), crowd_gpu_tier_name(stats.tier),
                       (unsigned long long)stats.visible_instances, ROWS * COLUMNS,
                       (unsigned)stats.draw_calls);
                if (tier != CROWD_TIER_GL45) {
                    CHECK(stats.visible_instances < ROWS * COLUMNS && stats.visible_instances > 0);
                    CHECK(stats.draw_calls >= 2 && stats.draw_calls <= bake->lod_count);
                }
            }
        }
        crowd_world_destroy(world);
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return ok;
}

static void free_set(uint8_t *images[IMAGE_COUNT]) {
    for (int i = 0; i < IMAGE_COUNT; i++) {
        free(images[i]);
        images[i] = NULL;
    }
}

static void compare_sets(const char *context, uint8_t *gl45[IMAGE_COUNT],
                         uint8_t *portable[IMAGE_COUNT]) {
    for (int i = 0; i < IMAGE_COUNT; i++) {
        crowd_gpu_mode mode = (crowd_gpu_mode)(i / FRAMES_PER_MODE);
        char what[96];
        snprintf(what, sizeof what, "%s %s, %s", context, crowd_gpu_mode_name(mode),
                 frame_names[i % FRAMES_PER_MODE]);
        bool close = gl45[i] != NULL && portable[i] != NULL &&
                     gpu_test_close(what, gl45[i], portable[i], gpu_test_tolerance(mode));
        CHECK_MSG(close, "%s: the portable tier differs from the GL 4.5 tier", what);
        if (!close && gl45[i] != NULL && portable[i] != NULL) {
            char stem[64];
            snprintf(stem, sizeof stem, "portable_%d", i);
            gpu_test_save(stem, "gl45", gl45[i]);
            gpu_test_save(stem, "portable", portable[i]);
        }
    }
}

/* ---- selection: compute pass against the CPU's ------------------------- */

static void sort(uint32_t *v, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        for (uint32_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint32_t swap = v[j];
            v[j] = v[j - 1];
            v[j - 1] = swap;
        }
    }
}

/* Handles per LOD, sorted within each: the compute pass's (read back) or
 * the portable tier's CPU lists. */
static bool kept(const gpu_archetype *a, bool gpu, uint32_t counts[], uint32_t *handles) {
    uint32_t at = 0;
    for (uint32_t k = 0; k < a->mesh.lod_count; k++) {
        if (gpu) {
            uint32_t command[5];
            glGetNamedBufferSubData(a->cull.command_buffer, (GLintptr)(k * sizeof command),
                                    sizeof command, command);
            counts[k] = command[1];
        } else {
            counts[k] = a->cull.cpu_counts[k];
        }
        if (counts[k] > ROWS * COLUMNS) {
            return false;
        }
        gpu_instance_record records[ROWS * COLUMNS];
        if (gpu) {
            glGetNamedBufferSubData(
                a->cull.visible_buffer,
                (GLintptr)((uint64_t)k * a->cull.visible_capacity * sizeof records[0]),
                (GLsizeiptr)(counts[k] * sizeof records[0]), records);
        } else {
            memcpy(records, a->cull.cpu_visible + (size_t)k * a->instances.capacity,
                   counts[k] * sizeof records[0]);
        }
        for (uint32_t i = 0; i < counts[k]; i++) {
            handles[at + i] = records[i].handle;
        }
        sort(handles + at, counts[k]);
        at += counts[k];
    }
    return true;
}

static void test_selection(const crowd_asset *asset, const crowd_bake *bake) {
    crowd_world *on_gpu = NULL, *on_cpu = NULL;
    bool made = field_create(CROWD_TIER_GL45, asset, bake, CROWD_GPU_MODE_VAT, &on_gpu);
    made = field_create(CROWD_TIER_PORTABLE, asset, bake, CROWD_GPU_MODE_VAT, &on_cpu) && made;
    REQUIRE_VOID(made);
    const gpu_archetype *a = on_gpu->archetypes[0], *b = on_cpu->archetypes[0];
    int same = 0;
    uint32_t lods_seen = 0, dropped = 0;
    for (int k = 0; k < 8; k++) {
        crowd_camera camera = field_camera(3.0f * (float)(k / 2) - 4.0f);
        crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
        desc.viewport_height_px = (float)GPU_TEST_HEIGHT;
        uint32_t gpu_counts[CROWD_BAKE_MAX_LODS], cpu_counts[CROWD_BAKE_MAX_LODS];
        uint32_t gpu_handles[ROWS * COLUMNS], cpu_handles[ROWS * COLUMNS];
        bool ok = gpu_test_frame(on_gpu, 0.2 * k, &desc) &&
                  kept(a, true, gpu_counts, gpu_handles) &&
                  gpu_test_frame(on_cpu, 0.2 * k, &desc) && kept(b, false, cpu_counts, cpu_handles);
        uint32_t total = 0;
        for (uint32_t l = 0; ok && l < a->mesh.lod_count; l++) {
            total += gpu_counts[l];
            lods_seen |= gpu_counts[l] > 0 ? 1u << l : 0u;
        }
        dropped += ROWS * COLUMNS - total;
        ok = ok && memcmp(gpu_counts, cpu_counts, a->mesh.lod_count * sizeof gpu_counts[0]) == 0 &&
             memcmp(gpu_handles, cpu_handles, total * sizeof gpu_handles[0]) == 0;
        same += ok;
    }
    printf("  compute pass and portable CPU culling: %d of 8 frames the same instances at the "
           "same LODs (LODs in use: mask 0x%x, %u culled)\n",
           same, (unsigned)lods_seen, (unsigned)dropped);
    CHECK(same == 8);
    CHECK(bake->lod_count < 2 || (lods_seen & ~1u) != 0);
    CHECK(dropped > 0);
    crowd_world_destroy(on_gpu);
    crowd_world_destroy(on_cpu);
}

/* ---- groups ------------------------------------------------------------- */

int test_gpu_portable(void) {
    printf("portable: the portable tier forced on this GL 4.5 context\n");
    uint8_t *gl45[IMAGE_COUNT], *portable[IMAGE_COUNT];
    bool made = render_set(CROWD_TIER_GL45, gl45);
    made = render_set(CROWD_TIER_PORTABLE, portable) && made;
    CHECK(made);
    if (made) {
        compare_sets("gl45 context:", gl45, portable);
    }
    free_set(gl45);
    free_set(portable);
    crowd_error error;
    crowd_asset *asset = NULL;
    crowd_bake *bake = NULL;
    if (crowd_builtin_create(&asset, &error) == CROWD_OK &&
        crowd_bake_build(asset, NULL, &bake, &error) == CROWD_OK) {
        test_selection(asset, bake);
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return check_finish();
}

/* The GL 4.5 tier's images from a child process on a 4.5 context, as raw
 * RGBA files in this test's folder. */
static bool reference_set(uint8_t *images[IMAGE_COUNT]) {
    memset(images, 0, IMAGE_COUNT * sizeof images[0]);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        crowd_error error;
        uint8_t *set[IMAGE_COUNT];
        bool ok = host_context_create(NULL, &gpu_test_context, &error) == CROWD_OK &&
                  host_target_resize(&gpu_test_target, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, &error) ==
                      CROWD_OK &&
                  render_set(CROWD_TIER_GL45, set);
        for (int i = 0; ok && i < IMAGE_COUNT; i++) {
            char name[32];
            snprintf(name, sizeof name, "reference_%d.rgba", i);
            FILE *file = fopen(name, "wb");
            ok = file != NULL && fwrite(set[i], GPU_TEST_PIXELS * 4, 1, file) == 1;
            ok = file != NULL && fclose(file) == 0 && ok;
        }
        fflush(stdout);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        printf("  no GL 4.5 reference images from the child process\n");
        return false;
    }
    for (int i = 0; i < IMAGE_COUNT; i++) {
        char name[32];
        snprintf(name, sizeof name, "reference_%d.rgba", i);
        FILE *file = fopen(name, "rb");
        images[i] = malloc(GPU_TEST_PIXELS * 4);
        bool ok = file != NULL && images[i] != NULL &&
                  fread(images[i], GPU_TEST_PIXELS * 4, 1, file) == 1;
        if (file != NULL) {
            fclose(file);
        }
        if (!ok) {
            return false;
        }
    }
    return true;
}

int test_gpu_portable_context(host_context_api api) {
    printf("portable_%s: the portable tier on an %s context\n",
           api == HOST_CONTEXT_GL33 ? "gl33" : "gles3", host_context_api_name(api));
    uint8_t *gl45[IMAGE_COUNT];
    if (!reference_set(gl45)) {
        free_set(gl45);
        CHECK(false);
        return check_finish();
    }
    crowd_error error;
    host_context_desc desc = {.api = api};
    if (host_context_create(&desc, &gpu_test_context, &error) != CROWD_OK) {
        free_set(gl45);
        printf("SKIP: %s\n", error.reason);
        return 77;
    }
    host_context_info info;
    host_context_get_info(gpu_test_context, &info);
    printf("  GL: %s | %s | %s\n", info.platform, info.renderer, info.version);
    /* Mesa honours the exact version asked; another driver may give more,
     * which the portable tier also runs on, so only the kind is checked. */
    CHECK((epoxy_is_desktop_gl() != 0) == (api == HOST_CONTEXT_GL33));
    REQUIRE(host_target_resize(&gpu_test_target, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, &error) ==
            CROWD_OK);
    uint8_t *portable[IMAGE_COUNT];
    /* auto: the portable tier below 4.5 */
    bool made = render_set(epoxy_gl_version() >= 45 && epoxy_is_desktop_gl() ? CROWD_TIER_PORTABLE
                                                                             : CROWD_TIER_AUTO,
                           portable);
    CHECK(made);
    if (made) {
        compare_sets(api == HOST_CONTEXT_GL33 ? "gl33:" : "gles3:", gl45, portable);
    }
    free_set(gl45);
    free_set(portable);
    host_target_release(&gpu_test_target);
    host_context_destroy(gpu_test_context);
    return check_finish();
}
