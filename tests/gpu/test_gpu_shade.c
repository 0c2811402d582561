/* The game's own shading (crowd_archetype_desc.fragment_source): a flat
 * colour for one archetype and a colour made of the archetype's and each
 * instance's handle for another give exactly those colours on every crowd
 * pixel (sRGB-encoded, or linear when asked), over the same silhouette as
 * crowd's default shading, in every mode; crowd_default_lighting called
 * from the function gives the default image; a uniform block at binding 8
 * reaches it; a function that does not compile or link is CROWD_ERROR_GPU
 * with the compiler's log and leaves the world as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/gl.h>

#include "check.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

static const char *red_shade = "vec4 crowd_shade(crowd_surface s) {\n"
                               "    return vec4(1.0, 0.0, 0.0, 1.0);\n"
                               "}\n";
/* Red from the archetype's handle, green from the instance's. */
static const char *handle_shade = "vec4 crowd_shade(crowd_surface s) {\n"
                                  "    return vec4(float(s.archetype % 7u) / 8.0,\n"
                                  "                float(s.instance % 13u) / 16.0, 0.25, 1.0);\n"
                                  "}\n";
static const char *default_shade = "vec4 crowd_shade(crowd_surface s) {\n"
                                   "    return vec4(crowd_default_lighting(s), 1.0);\n"
                                   "}\n";
static const char *block_shade = "layout(std140, binding = 8) uniform game_colors {\n"
                                 "    vec4 team_color;\n"
                                 "};\n"
                                 "vec4 crowd_shade(crowd_surface s) { return team_color; }\n";

static int srgb8(float linear) {
    float c = linear <= 0.0031308f ? linear * 12.92f : 1.055f * powf(linear, 1.0f / 2.4f) - 0.055f;
    return (int)lroundf(c * 255.0f);
}

static int encode(float value, bool linear) {
    return linear ? (int)lroundf(value * 255.0f) : srgb8(value);
}

static bool near_rgb(const uint8_t *p, const int rgb[3]) {
    for (int c = 0; c < 3; c++) {
        if (abs((int)p[c] - rgb[c]) > 1) {
            return false;
        }
    }
    return true;
}

/* Two bars side by side, one per archetype: red on the left, the handle
 * colours on the right (two instances). */
typedef struct shade_world {
    crowd_world *world;
    crowd_archetype red, handles;
    crowd_instance left, right, far_right;
} shade_world;

static bool shade_world_create(const crowd_asset *bar, const crowd_bake *bake, const char *red,
                               const char *handles, shade_world *out) {
    memset(out, 0, sizeof *out);
    crowd_error error;
    bool ok =
        crowd_world_create(NULL, &out->world, &error) == CROWD_OK &&
        crowd_world_add_archetype(
            out->world, &(crowd_archetype_desc){.asset = bar, .bake = bake, .fragment_source = red},
            &out->red, &error) == CROWD_OK &&
        crowd_world_add_archetype(
            out->world,
            &(crowd_archetype_desc){.asset = bar, .bake = bake, .fragment_source = handles},
            &out->handles, &error) == CROWD_OK;
    const crowd_instance_desc at[3] = {{.position = {-1.0f, 0, 0}, .paused = true},
                                       {.position = {0.3f, 0, 0}, .paused = true},
                                       {.position = {1.2f, 0, 0}, .paused = true}};
    ok = ok &&
         crowd_world_add_instance(out->world, out->red, &at[0], &out->left, &error) == CROWD_OK &&
         crowd_world_add_instance(out->world, out->handles, &at[1], &out->right, &error) ==
             CROWD_OK &&
         crowd_world_add_instance(out->world, out->handles, &at[2], &out->far_right, &error) ==
             CROWD_OK;
    if (!ok) {
        fprintf(stderr, "shade world: %s\n", error.reason);
        crowd_world_destroy(out->world);
        out->world = NULL;
    }
    return ok;
}

/* The world with the game's functions and the same world with crowd's
 * default shading; false (printed) with neither made. */
static bool shade_pair_create(const crowd_asset *bar, const crowd_bake *bake, const char *red,
                              const char *handles, shade_world *custom, shade_world *plain) {
    bool made = shade_world_create(bar, bake, red, handles, custom);
    made = shade_world_create(bar, bake, NULL, NULL, plain) && made;
    if (!made) {
        crowd_world_destroy(custom->world);
        crowd_world_destroy(plain->world);
    }
    return made;
}

static bool set_modes(const shade_world *w, crowd_gpu_mode mode) {
    return crowd_archetype_set_mode(w->world, w->red, mode, NULL) == CROWD_OK &&
           crowd_archetype_set_mode(w->world, w->handles, mode, NULL) == CROWD_OK;
}

static uint8_t *render(crowd_world *world, bool linear_output) {
    crowd_camera camera = gpu_test_bar_camera();
    crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    desc.linear_output = linear_output;
    return gpu_test_frame(world, 0.25, &desc) ? gpu_test_read_rgba() : NULL;
}

/* Every pixel of `image` is the background or one of the three expected
 * colours, each on at least 300 pixels, exactly where `plain` (default
 * shading) shows the crowd. */
static void check_colours(const char *what, const uint8_t *image, const uint8_t *plain,
                          int expected[3][3]) {
    uint32_t counts[3] = {0, 0, 0}, other = 0, silhouette = 0;
    for (uint32_t i = 0; i < GPU_TEST_PIXELS; i++) {
        const uint8_t *p = image + 4 * i;
        bool background = memcmp(p, image, 3) == 0;
        silhouette += background != (memcmp(plain + 4 * i, plain, 3) == 0);
        if (background) {
            continue;
        }
        int which = -1;
        for (int k = 0; k < 3 && which < 0; k++) {
            which = near_rgb(p, expected[k]) ? k : -1;
        }
        if (which < 0) {
            other++;
        } else {
            counts[which]++;
        }
    }
    printf("  %-34s %u / %u / %u px of the three colours, %u others, %u off the default "
           "silhouette\n",
           what, (unsigned)counts[0], (unsigned)counts[1], (unsigned)counts[2], (unsigned)other,
           (unsigned)silhouette);
    CHECK(counts[0] > 300 && counts[1] > 300 && counts[2] > 300);
    CHECK(other == 0 && silhouette == 0);
}

static void test_flat_colours(const crowd_asset *bar, const crowd_bake *bake) {
    printf("shade: a flat colour per archetype, per instance\n");
    shade_world custom, plain;
    REQUIRE_VOID(shade_pair_create(bar, bake, red_shade, handle_shade, &custom, &plain));
    const uint32_t instances[3] = {custom.left.id, custom.right.id, custom.far_right.id};
    CHECK(custom.right.id % 13u != custom.far_right.id % 13u);
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        CHECK(set_modes(&custom, (crowd_gpu_mode)m) && set_modes(&plain, (crowd_gpu_mode)m));
        uint8_t *reference = render(plain.world, false);
        for (int linear = 0; linear < 2 && reference != NULL; linear++) {
            int expected[3][3];
            for (int k = 0; k < 3; k++) {
                float r = k == 0 ? 1.0f : (float)(custom.handles.id % 7u) / 8.0f;
                float g = k == 0 ? 0.0f : (float)(instances[k] % 13u) / 16.0f;
                float b = k == 0 ? 0.0f : 0.25f;
                expected[k][0] = encode(r, linear);
                expected[k][1] = encode(g, linear);
                expected[k][2] = encode(b, linear);
            }
            uint8_t *image = render(custom.world, linear != 0);
            CHECK(image != NULL);
            if (image != NULL) {
                char what[64];
                snprintf(what, sizeof what, "%s, %s output", crowd_gpu_mode_name((crowd_gpu_mode)m),
                         linear ? "linear" : "sRGB");
                check_colours(what, image, reference, expected);
                snprintf(what, sizeof what, "%s_%s", crowd_gpu_mode_name((crowd_gpu_mode)m),
                         linear ? "linear" : "srgb");
                gpu_test_save("shade_flat", what, image);
            }
            free(image);
        }
        free(reference);
    }
    crowd_world_destroy(custom.world);
    crowd_world_destroy(plain.world);
}

/* crowd_default_lighting from the game's function is crowd's shading: the
 * same picture as no function at all. */
static void test_default_lighting(const crowd_asset *bar, const crowd_bake *bake) {
    printf("shade: crowd_default_lighting\n");
    shade_world custom, plain;
    REQUIRE_VOID(shade_pair_create(bar, bake, default_shade, default_shade, &custom, &plain));
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        CHECK(set_modes(&custom, (crowd_gpu_mode)m) && set_modes(&plain, (crowd_gpu_mode)m));
        uint8_t *want = render(plain.world, false), *got = render(custom.world, false);
        if (want != NULL && got != NULL) {
            image_diff d = image_compare(want, got, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 1);
            printf("  %-6s %u px differ by more than 1, largest difference %d\n",
                   crowd_gpu_mode_name((crowd_gpu_mode)m), (unsigned)d.differing, d.max_channel);
            CHECK(d.differing == 0);
        } else {
            CHECK(false);
        }
        free(want);
        free(got);
    }
    crowd_world_destroy(custom.world);
    crowd_world_destroy(plain.world);
}

/* The game's uniform block at binding 8 (crowd never uses 8 and up). */
static void test_uniform_block(const crowd_asset *bar, const crowd_bake *bake) {
    printf("shade: the game's uniform block\n");
    gpu_scene s;
    crowd_error error;
    REQUIRE_VOID(crowd_world_create(NULL, &s.world, &error) == CROWD_OK);
    CHECK(crowd_world_add_archetype(
              s.world,
              &(crowd_archetype_desc){.asset = bar, .bake = bake, .fragment_source = block_shade},
              &s.archetype, &error) == CROWD_OK);
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id, &error) ==
          CROWD_OK);
    const float team[4] = {0.0f, 0.5f, 1.0f, 1.0f};
    GLuint block;
    glCreateBuffers(1, &block);
    glNamedBufferStorage(block, sizeof team, team, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, 8, block);
    uint8_t *image = render(s.world, false);
    const int want[3] = {0, srgb8(0.5f), 255};
    uint32_t team_pixels = 0, other = 0;
    for (uint32_t i = 0; image != NULL && i < GPU_TEST_PIXELS; i++) {
        if (memcmp(image + 4 * i, image, 3) != 0) {
            team_pixels += near_rgb(image + 4 * i, want);
            other += !near_rgb(image + 4 * i, want);
        }
    }
    printf("  %u px of the team colour, %u others\n", (unsigned)team_pixels, (unsigned)other);
    CHECK(image != NULL && team_pixels > 300 && other == 0);
    free(image);
    glBindBufferBase(GL_UNIFORM_BUFFER, 8, 0);
    glDeleteBuffers(1, &block);
    gpu_scene_destroy(&s);
}

/* The material's metallic and roughness reach crowd_shade: each material
 * of the bar shows its own pair (linear output, so the values are the
 * bytes), and crowd's default shading draws a metal differently. */
static const char *material_shade = "vec4 crowd_shade(crowd_surface s) {\n"
                                    "    return vec4(s.metallic, s.roughness, 0.0, 1.0);\n"
                                    "}\n";

static void test_material_factors(void) {
    printf("shade: metallic and roughness\n");
    crowd_asset *bar = fixture_bar_create();
    REQUIRE_VOID(bar != NULL && bar->material_count == 2);
    const float metallic[2] = {0.25f, 1.0f}, roughness[2] = {0.75f, 0.5f};
    int want[2][3];
    for (int m = 0; m < 2; m++) {
        bar->materials[m].metallic = metallic[m];
        bar->materials[m].roughness = roughness[m];
        want[m][0] = encode(metallic[m], true);
        want[m][1] = encode(roughness[m], true);
        want[m][2] = 0;
    }
    gpu_scene s;
    crowd_error error;
    REQUIRE_VOID(crowd_world_create(NULL, &s.world, &error) == CROWD_OK);
    CHECK(crowd_world_add_archetype(
              s.world, &(crowd_archetype_desc){.asset = bar, .fragment_source = material_shade},
              &s.archetype, &error) == CROWD_OK);
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id, &error) ==
          CROWD_OK);
    uint8_t *image = render(s.world, true);
    uint32_t counts[2] = {0, 0}, other = 0;
    for (uint32_t i = 0; image != NULL && i < GPU_TEST_PIXELS; i++) {
        if (memcmp(image + 4 * i, image, 3) != 0) {
            bool first = near_rgb(image + 4 * i, want[0]),
                 second = near_rgb(image + 4 * i, want[1]);
            counts[0] += first;
            counts[1] += second;
            other += !first && !second;
        }
    }
    printf("  %u px of material 0's pair, %u of material 1's, %u others\n", (unsigned)counts[0],
           (unsigned)counts[1], (unsigned)other);
    CHECK(image != NULL && counts[0] > 100 && counts[1] > 100 && other == 0);
    free(image);
    gpu_scene_destroy(&s);
    /* the default shading: the same bar as a metal and as a rough dielectric differ */
    uint8_t *images[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        for (int m = 0; m < 2; m++) {
            bar->materials[m].metallic = k == 0 ? 0.0f : 1.0f;
            bar->materials[m].roughness = k == 0 ? 1.0f : 0.2f;
        }
        REQUIRE_VOID(crowd_world_create(NULL, &s.world, &error) == CROWD_OK);
        CHECK(crowd_world_add_archetype(s.world, &(crowd_archetype_desc){.asset = bar},
                                        &s.archetype, &error) == CROWD_OK);
        CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id,
                                       &error) == CROWD_OK);
        images[k] = render(s.world, false);
        gpu_scene_destroy(&s);
    }
    if (images[0] != NULL && images[1] != NULL) {
        image_diff d = image_compare(images[0], images[1], GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 8);
        printf("  metal vs rough dielectric: %u px differ by more than 8\n", (unsigned)d.differing);
        CHECK(d.differing > 100);
    } else {
        CHECK(false);
    }
    free(images[0]);
    free(images[1]);
    crowd_asset_destroy(bar);
}

/* A function that does not compile (an unknown name) or does not link (a
 * function declared, never defined): CROWD_ERROR_GPU with the log, no
 * archetype, no memory, no GL error, and the world draws on. */
static void test_broken(const crowd_asset *bar, const crowd_bake *bake) {
    printf("shade: broken functions\n");
    const char *broken[3] = {"vec4 crowd_shade(crowd_surface s) { return no_such_colour; }\n",
                             "vec3 never_defined(vec3 n);\n"
                             "vec4 crowd_shade(crowd_surface s) {\n"
                             "    return vec4(never_defined(s.normal), 1.0);\n"
                             "}\n",
                             "vec4 crowd_shade(crowd_surface s) { return vec4(1.0) }\n"};
    const char *needles[3] = {"no_such_colour", "never_defined", ""};
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_BAT, &s));
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id, NULL) ==
          CROWD_OK);
    crowd_world_stats before, after;
    crowd_world_get_stats(s.world, &before);
    for (int b = 0; b < 3; b++) {
        for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
            crowd_archetype_desc desc = {.asset = bar,
                                         .bake = bake,
                                         .mode = (crowd_gpu_mode)m,
                                         .fragment_source = broken[b]};
            crowd_archetype archetype = {0};
            crowd_error error = {0};
            crowd_result result = crowd_world_add_archetype(s.world, &desc, &archetype, &error);
            CHECK_MSG(result == CROWD_ERROR_GPU && archetype.id == 0,
                      "broken function %d in %s: %s", b, crowd_gpu_mode_name((crowd_gpu_mode)m),
                      crowd_result_str(result));
            CHECK_MSG(strstr(error.reason, needles[b]) != NULL && strlen(error.reason) > 20,
                      "the error lacks the log: '%s'", error.reason);
            if (m == 0) {
                printf("  broken function %d: %s\n", b, error.reason);
            }
            crowd_world_get_stats(s.world, &after);
            CHECK(after.archetype_count == 1 && after.instance_count == 1 &&
                  after.gpu_memory_bytes == before.gpu_memory_bytes);
            CHECK(glGetError() == GL_NO_ERROR);
        }
    }
    crowd_camera camera = gpu_test_bar_camera();
    uint8_t *image = gpu_test_render(s.world, 0.2, &camera);
    uint32_t covered = 0;
    for (uint32_t i = 0; image != NULL && i < GPU_TEST_PIXELS; i++) {
        covered += memcmp(image + 4 * i, image, 3) != 0;
    }
    CHECK(image != NULL && covered > 500);
    free(image);
    gpu_scene_destroy(&s);
}

int test_gpu_shade(void) {
    crowd_asset *bar = fixture_bar_create();
    crowd_bake *bake = NULL;
    crowd_error error;
    REQUIRE(bar != NULL && crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK);
    test_flat_colours(bar, bake);
    test_default_lighting(bar, bake);
    test_uniform_block(bar, bake);
    test_material_factors();
    test_broken(bar, bake);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(bar);
    return check_finish();
}
