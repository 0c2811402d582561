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
 * - 16-bit VAT texels on GLES without EXT_texture_norm16 (RGBA16UI, divided
 *   by 65535 in the shader): world positions and normals of every fragment
 *   of a vat frame, written to an RGBA32F target, are bit-identical to the
 *   unorm16 textures' on the same context.
 * - A bake whose textures exceed GL_MAX_TEXTURE_SIZE is refused on both
 *   tiers with CROWD_ERROR_LIMIT naming the texture's size and the limit.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
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

/* Records [first, first + count) of the compute pass's visible buffer (read
 * back) or of the portable tier's CPU lists. */
static void list_records(const gpu_archetype *a, bool gpu, uint64_t first, uint32_t count,
                         gpu_instance_record *out) {
    if (gpu) {
        glGetNamedBufferSubData(a->cull.visible_buffer, (GLintptr)(first * sizeof *out),
                                (GLsizeiptr)(count * sizeof *out), out);
    } else {
        memcpy(out, a->cull.cpu_visible + first, count * sizeof *out);
    }
}

/* Handles per LOD, sorted within each, interpolating and one-fetch
 * instances alike (nearest[k] of them one-fetch): the compute pass's (read
 * back) or the portable tier's CPU lists. */
static bool kept(const gpu_archetype *a, bool gpu, uint32_t counts[], uint32_t nearest[],
                 uint32_t *handles) {
    uint32_t at = 0;
    for (uint32_t k = 0; k < a->mesh.lod_count; k++) {
        uint32_t interpolated;
        uint64_t capacity = gpu ? a->cull.visible_capacity : a->instances.capacity;
        if (gpu) {
            uint32_t command[5], nearest_command[5];
            glGetNamedBufferSubData(a->cull.command_buffer, (GLintptr)(k * sizeof command),
                                    sizeof command, command);
            glGetNamedBufferSubData(a->cull.command_buffer,
                                    (GLintptr)((GPU_COMMAND_NEAREST_FIRST + k) * sizeof command),
                                    sizeof nearest_command, nearest_command);
            interpolated = command[1];
            nearest[k] = nearest_command[1];
            /* The one-fetch command's base instance is where its list starts. */
            if (nearest_command[4] != k * capacity + capacity - nearest[k]) {
                return false;
            }
        } else {
            nearest[k] = a->cull.cpu_nearest_counts[k];
            interpolated = a->cull.cpu_counts[k] - nearest[k];
        }
        counts[k] = interpolated + nearest[k];
        if (counts[k] > ROWS * COLUMNS) {
            return false;
        }
        gpu_instance_record records[ROWS * COLUMNS];
        list_records(a, gpu, k * capacity, interpolated, records);
        list_records(a, gpu, k * capacity + capacity - nearest[k], nearest[k],
                     records + interpolated);
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
    uint32_t lods_seen = 0, dropped = 0, one_fetch = 0;
    for (int k = 0; k < 8; k++) {
        crowd_camera camera = field_camera(3.0f * (float)(k / 2) - 4.0f);
        crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
        desc.viewport_height_px = (float)GPU_TEST_HEIGHT;
        uint32_t gpu_counts[CROWD_BAKE_MAX_LODS], cpu_counts[CROWD_BAKE_MAX_LODS];
        uint32_t gpu_nearest[CROWD_BAKE_MAX_LODS], cpu_nearest[CROWD_BAKE_MAX_LODS];
        uint32_t gpu_handles[ROWS * COLUMNS], cpu_handles[ROWS * COLUMNS];
        bool ok = gpu_test_frame(on_gpu, 0.2 * k, &desc) &&
                  kept(a, true, gpu_counts, gpu_nearest, gpu_handles) &&
                  gpu_test_frame(on_cpu, 0.2 * k, &desc) &&
                  kept(b, false, cpu_counts, cpu_nearest, cpu_handles);
        uint32_t total = 0;
        for (uint32_t l = 0; ok && l < a->mesh.lod_count; l++) {
            total += gpu_counts[l];
            one_fetch += gpu_nearest[l];
            lods_seen |= gpu_counts[l] > 0 ? 1u << l : 0u;
        }
        dropped += ROWS * COLUMNS - total;
        ok = ok && memcmp(gpu_counts, cpu_counts, a->mesh.lod_count * sizeof gpu_counts[0]) == 0 &&
             memcmp(gpu_nearest, cpu_nearest, a->mesh.lod_count * sizeof gpu_nearest[0]) == 0 &&
             memcmp(gpu_handles, cpu_handles, total * sizeof gpu_handles[0]) == 0;
        same += ok;
    }
    printf("  compute pass and portable CPU culling: %d of 8 frames the same instances at the "
           "same LODs and frame fetches (LODs in use: mask 0x%x, %u culled, %u one-fetch)\n",
           same, (unsigned)lods_seen, (unsigned)dropped, (unsigned)one_fetch);
    CHECK(same == 8);
    CHECK(bake->lod_count < 2 || (lods_seen & ~1u) != 0);
    CHECK(dropped > 0);
    crowd_world_destroy(on_gpu);
    crowd_world_destroy(on_cpu);
}

/* ---- 16-bit VAT texels without EXT_texture_norm16 ----------------------- */

/* World positions (channel 0-2) or normals of every fragment, as floats. */
static const char *const shade_position = "vec4 crowd_shade(crowd_surface s) {\n"
                                          "    return vec4(s.world_position, 1.0);\n"
                                          "}\n";
static const char *const shade_normal = "vec4 crowd_shade(crowd_surface s) {\n"
                                        "    return vec4(s.normal, 1.0);\n"
                                        "}\n";

/* The field in vat mode drawn into an RGBA32F target with `shade`; the
 * floats read back (GPU_TEST_PIXELS x 4) or NULL. `uint16`: the portable
 * tier reading the unorm16 positions as RGBA16UI, as on GLES without
 * EXT_texture_norm16. */
static float *float_frame(const crowd_asset *asset, const crowd_bake *bake, crowd_gpu_tier tier,
                          bool uint16, const char *shade, GLuint framebuffer) {
    crowd_error error;
    crowd_world *world = NULL;
    crowd_archetype archetype;
    if (crowd_world_create(&(crowd_world_desc){.tier = tier}, &world, &error) != CROWD_OK) {
        return NULL;
    }
    world->unorm16_textures = !uint16;
    float *pixels = NULL;
    bool ok = crowd_world_add_archetype(world,
                                        &(crowd_archetype_desc){.asset = asset,
                                                                .bake = bake,
                                                                .mode = CROWD_GPU_MODE_VAT,
                                                                .fragment_source = shade},
                                        &archetype, &error) == CROWD_OK;
    CHECK(!ok || crowd__gpu_baked_vat_uint16(world, bake) == uint16);
    for (int i = 0; ok && i < 6; i++) {
        crowd_instance_desc desc = {.position = {(float)i - 2.5f, 0.0f, -1.5f * (float)(i % 3)},
                                    .clip =
                                        (uint32_t)i % crowd_archetype_clip_count(world, archetype),
                                    .time_offset_s = 0.37f * (float)i};
        crowd_instance id;
        ok = crowd_world_add_instance(world, archetype, &desc, &id, &error) == CROWD_OK;
    }
    crowd_camera camera = field_camera(0.0f);
    crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    desc.linear_output = true;
    const float clear[4] = {0.0f, 0.0f, 0.0f, 0.0f}, far = 1.0f;
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, GPU_TEST_WIDTH, GPU_TEST_HEIGHT);
    glClearBufferfv(GL_COLOR, 0, clear);
    glClearBufferfv(GL_DEPTH, 0, &far);
    ok = ok && crowd_world_update(world, 0.7, &error) == CROWD_OK &&
         crowd_world_draw(world, &desc, &error) == CROWD_OK;
    pixels = ok ? malloc(GPU_TEST_PIXELS * 4 * sizeof *pixels) : NULL;
    if (pixels != NULL) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
        glReadPixels(0, 0, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, GL_RGBA, GL_FLOAT, pixels);
    }
    if (!ok) {
        printf("  float frame: %s\n", error.reason);
    }
    crowd_world_destroy(world);
    return pixels;
}

/* The RGBA16UI path's decoded positions and normals against the unorm16
 * textures' on the same context, fragment by fragment, bit for bit. */
static void test_uint16_decode(const crowd_asset *asset, const crowd_bake *bake) {
    GLuint framebuffer, color, depth;
    glCreateFramebuffers(1, &framebuffer);
    glCreateRenderbuffers(1, &color);
    glCreateRenderbuffers(1, &depth);
    glNamedRenderbufferStorage(color, GL_RGBA32F, GPU_TEST_WIDTH, GPU_TEST_HEIGHT);
    glNamedRenderbufferStorage(depth, GL_DEPTH_COMPONENT32F, GPU_TEST_WIDTH, GPU_TEST_HEIGHT);
    glNamedFramebufferRenderbuffer(framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
    glNamedFramebufferRenderbuffer(framebuffer, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    const char *const shades[2] = {shade_position, shade_normal};
    for (int q = 0; q < 2; q++) {
        /* the GL 4.5 tier (unorm16), the portable tier on unorm16 (the
         * control: the tiers alone), the portable tier on RGBA16UI */
        float *frames[3] = {
            float_frame(asset, bake, CROWD_TIER_GL45, false, shades[q], framebuffer),
            float_frame(asset, bake, CROWD_TIER_PORTABLE, false, shades[q], framebuffer),
            float_frame(asset, bake, CROWD_TIER_PORTABLE, true, shades[q], framebuffer)};
        for (int against = 1; against < 3; against++) {
            const float *a = frames[0], *b = frames[against];
            uint32_t covered = 0, differing = 0;
            double max_difference = 0.0;
            for (uint32_t i = 0; a != NULL && b != NULL && i < GPU_TEST_PIXELS; i++) {
                covered += a[4 * i + 3] == 1.0f;
                differing += memcmp(a + 4 * i, b + 4 * i, 4 * sizeof(float)) != 0;
                for (int c = 0; c < 3; c++) {
                    double d = fabs((double)a[4 * i + c] - (double)b[4 * i + c]);
                    max_difference = d > max_difference ? d : max_difference;
                }
            }
            printf("  vat %s, %s against the GL 4.5 tier: %u of %u covered fragments differ "
                   "in any bit (max |d| %.3g)\n",
                   q == 0 ? "world positions" : "normals",
                   against == 1 ? "portable tier on unorm16" : "portable tier on RGBA16UI",
                   (unsigned)differing, (unsigned)covered, max_difference);
            CHECK(a != NULL && b != NULL && covered > 500);
            CHECK_MSG(differing == 0, "not bit-identical (%u fragments)", (unsigned)differing);
        }
        for (int f = 0; f < 3; f++) {
            free(frames[f]);
        }
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteRenderbuffers(1, &color);
    glDeleteRenderbuffers(1, &depth);
}

/* ---- a bake beyond the device's texture size ---------------------------- */

static void test_texture_limit(const crowd_asset *asset, const crowd_bake *bake) {
    const crowd_gpu_tier tiers[2] = {CROWD_TIER_GL45, CROWD_TIER_PORTABLE};
    const crowd_gpu_mode modes[2] = {CROWD_GPU_MODE_VAT, CROWD_GPU_MODE_BAT};
    for (int t = 0; t < 2; t++) {
        for (int m = 0; m < 2; m++) {
            crowd_error error;
            crowd_world *world = NULL;
            REQUIRE_VOID(crowd_world_create(&(crowd_world_desc){.tier = tiers[t]}, &world,
                                            &error) == CROWD_OK);
            /* A device whose GL_MAX_TEXTURE_SIZE is 64 (as if a phone's were
             * below the bake's). */
            world->max_texture_size = 64;
            crowd_archetype archetype;
            crowd_result result = crowd_world_add_archetype(
                world, &(crowd_archetype_desc){.asset = asset, .bake = bake, .mode = modes[m]},
                &archetype, &error);
            const crowd_texture *texture =
                modes[m] == CROWD_GPU_MODE_VAT ? &bake->vat_position : &bake->bat;
            char size[48];
            snprintf(size, sizeof size, "%ux%u", (unsigned)texture->width,
                     (unsigned)texture->height);
            printf("  %s tier, %s bake on a 64-texel device: %s: %s\n",
                   crowd_gpu_tier_name(tiers[t]), crowd_gpu_mode_name(modes[m]),
                   crowd_result_str(result), error.reason);
            CHECK(result == CROWD_ERROR_LIMIT && strstr(error.reason, size) != NULL &&
                  strstr(error.reason, "allows 64x64") != NULL);
            CHECK(crowd_world_archetype_count(world) == 0);
            crowd_world_destroy(world);
        }
    }
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
        test_uint16_decode(asset, bake);
        test_texture_limit(asset, bake);
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
