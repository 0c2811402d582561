/* `crowd render` end to end: every mode from a model and from a bake
 * folder, readable PNGs of the stated size, the printed draw calls, a mixed
 * crowd of several inputs (one archetype each, a mode the folder lacks
 * falling back to the nearest), shadows that darken only the ground and move
 * with the animation, and the exit code and message of every bad input
 * (docs/architecture.md, "The command line": 1 usage, 2 input,
 * 3 unsupported, 4 output, 5 GPU). */
#define _POSIX_C_SOURCE 200809L
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "run_cli.h"
#include "test_gpu.h"
#include "test_json.h"

static char out_text[8192], err_text[8192];

/* Runs `env... crowd ARGS` through the shell; returns the exit code and
 * keeps stdout and stderr in out_text / err_text. */
static int crowd(const char *env, const char *format, ...) {
    char args[1024], command[2048];
    va_list list;
    va_start(list, format);
    vsnprintf(args, sizeof args, format, list);
    va_end(list);
    snprintf(command, sizeof command, "%s '%s' %s >cli_out.txt 2>cli_err.txt", env, CROWD_CLI,
             args);
    int status = system(command);
    cli_read_text("cli_out.txt", out_text, sizeof out_text);
    cli_read_text("cli_err.txt", err_text, sizeof err_text);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* RGBA8 pixels of a PNG (malloc'ed), or NULL. */
static uint8_t *png_read(const char *path, uint32_t *width, uint32_t *height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        return NULL;
    }
    image.format = PNG_FORMAT_RGBA;
    uint8_t *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (pixels == NULL || !png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        free(pixels);
        return NULL;
    }
    *width = image.width;
    *height = image.height;
    return pixels;
}

static bool png_size(const char *path, uint32_t *width, uint32_t *height) {
    uint8_t *pixels = png_read(path, width, height);
    /* Something besides the background: the first and the middle pixel differ. */
    size_t middle = ((size_t)*height / 2 * *width + *width / 2) * 4;
    bool ok = pixels != NULL && memcmp(pixels, pixels + middle, 3) != 0;
    free(pixels);
    return ok;
}

static void expect_fail(int code, const char *needle, const char *env, const char *args) {
    int got = crowd(env, "%s", args);
    CHECK_MSG(got == code, "crowd %s: exit %d, expected %d (%s)", args, got, code, err_text);
    CHECK_MSG(strstr(err_text, "crowd: error: ") != NULL && strstr(err_text, needle) != NULL,
              "crowd %s: stderr '%s' lacks '%s'", args, err_text, needle);
    CHECK_MSG(strstr(err_text, "AddressSanitizer") == NULL &&
                  strstr(err_text, "runtime error") == NULL,
              "crowd %s: %s", args, err_text);
}

static void render_modes(const char *input, const char *stem, const char *extra, bool all_modes) {
    const char *modes[5] = {"static", "cpu", "gpu", "bat", "vat"};
    for (int m = 0; m < 5; m++) {
        bool playable = all_modes || m == 0 || m >= 3;
        char out[128];
        snprintf(out, sizeof out, "%s_%s.png", stem, modes[m]);
        remove(out);
        int code = crowd("", "render '%s' -o %s --mode %s %s", input, out, modes[m], extra);
        if (!playable) {
            CHECK_MSG(code == 3, "%s in %s: exit %d (%s)", input, modes[m], code, err_text);
            CHECK(access(out, F_OK) != 0);
            continue;
        }
        CHECK_MSG(code == 0, "%s in %s: exit %d (%s)", input, modes[m], code, err_text);
        uint32_t w = 0, h = 0;
        CHECK_MSG(png_size(out, &w, &h), "%s unreadable or empty", out);
        CHECK(w == 160 && h == 120);
        const char *frame = strstr(out_text, "frame time");
        printf("  %s %s: %.*s\n", stem, modes[m], frame != NULL ? (int)strcspn(frame, "(") : 0,
               frame != NULL ? frame : "");
        CHECK(strstr(out_text, "draw calls") != NULL &&
              strstr(out_text, "application CPU") != NULL);
    }
}

/* Which pixels of `shadowed` are darker than in `lit` (the same frame
 * without shadows): the shadows. Counts them, and the pixels that got
 * brighter (there should be none: shadows only darken the ground). */
static uint8_t *shadow_mask(const char *lit, const char *shadowed, uint32_t *count,
                            uint32_t *brighter) {
    uint32_t w = 0, h = 0, w2 = 0, h2 = 0;
    uint8_t *a = png_read(lit, &w, &h), *b = png_read(shadowed, &w2, &h2);
    uint8_t *mask = a != NULL && b != NULL && w == w2 && h == h2 ? calloc((size_t)w * h, 1) : NULL;
    *count = *brighter = 0;
    for (size_t i = 0; mask != NULL && i < (size_t)w * h; i++) {
        int darker = 0, lighter = 0;
        for (int c = 0; c < 3; c++) {
            int d = (int)a[i * 4 + c] - (int)b[i * 4 + c];
            darker += d > 6;
            lighter += d < -2;
        }
        mask[i] = darker == 3;
        *count += mask[i];
        *brighter += lighter > 0;
    }
    free(a);
    free(b);
    return mask;
}

/* --shadows: the crowd darkens the ground and nothing else, and the dark
 * patch changes between two times of the animation. */
static void render_shadows(void) {
    const char *common = "render builtin: --size 160x120 --count 4 --seed 3";
    CHECK(crowd("", "%s -o cli_lit_a.png --time 0.4", common) == 0);
    CHECK(crowd("", "%s -o cli_lit_b.png --time 1.3", common) == 0);
    CHECK(crowd("", "%s -o cli_shadow_b.png --time 1.3 --shadows", common) == 0);
    CHECK(crowd("", "%s -o cli_shadow_a.png --time 0.4 --shadows", common) == 0);
    CHECK_MSG(strstr(out_text,
                     "draw calls        2 in 2 passes (shadow map, colour) (+1 ground)") != NULL,
              "%s", out_text);
    uint32_t count_a, count_b, brighter_a, brighter_b;
    uint8_t *mask_a = shadow_mask("cli_lit_a.png", "cli_shadow_a.png", &count_a, &brighter_a);
    uint8_t *mask_b = shadow_mask("cli_lit_b.png", "cli_shadow_b.png", &count_b, &brighter_b);
    REQUIRE_VOID(mask_a != NULL && mask_b != NULL);
    uint32_t moved = 0;
    for (size_t i = 0; i < GPU_TEST_PIXELS; i++) {
        moved += mask_a[i] != mask_b[i];
    }
    printf("  shadows: %u and %u pixels in shadow at t = 0.4 and 1.3 s, %u differ\n", count_a,
           count_b, moved);
    CHECK_MSG(count_a > 100 && count_b > 100, "shadow pixels: %u, %u", count_a, count_b);
    CHECK_MSG(brighter_a == 0 && brighter_b == 0, "pixels brighter with shadows: %u, %u",
              brighter_a, brighter_b);
    CHECK_MSG(moved > 20, "the shadow did not move: %u pixels differ", moved);
    free(mask_a);
    free(mask_b);
}

/* Several inputs: one archetype each, instances taking turns; a mode the
 * bake folder cannot play (one without runtime clips) falls back to the
 * nearest (bat for gpu), said on stderr. */
static void render_mixed(const char *folder) {
    CHECK(crowd("", "render builtin: %s -o cli_mixed.png --size 160x120 --count 6 --mode gpu",
                folder) == 0);
    uint32_t w = 0, h = 0;
    CHECK(png_size("cli_mixed.png", &w, &h) && w == 160 && h == 120);
    char warning[128], modes[128];
    snprintf(warning, sizeof warning, "crowd: warning: %s: cannot play gpu", folder);
    snprintf(modes, sizeof modes, "6 instances, modes gpu (builtin:), bat (%s)", folder);
    CHECK_MSG(strstr(err_text, warning) != NULL && strstr(err_text, "drawn in bat") != NULL, "%s",
              err_text);
    CHECK_MSG(strstr(out_text, modes) != NULL && strstr(out_text, "archetypes        2") != NULL &&
                  strstr(out_text, "draw calls        2 (+1 ground)") != NULL,
              "%s", out_text);
    CHECK(crowd("",
                "render %s builtin: -o cli_mixed_vat.png --size 160x120 --count 5 --mode vat "
                "--shadows",
                folder) == 0);
    CHECK_MSG(strstr(err_text, "warning") == NULL, "%s", err_text);
    CHECK_MSG(strstr(out_text, "5 instances, mode vat") != NULL &&
                  strstr(out_text, "draw calls        4 in 2 passes") != NULL,
              "%s", out_text);
    expect_fail(1, "more than 16 MODELs", "",
                "render b: b: b: b: b: b: b: b: b: b: b: b: b: b: b: b: b: -o x.png");
}

/* Bakes made for smaller devices play there: builtin: baked with --target
 * gles (every texture within 2048) and --target web (4096), drawn on a
 * GLES 3.0 context (the portable tier) in vat and bat at a baked frame,
 * against the default bake drawn on the GL 4.5 tier: the same pixels but
 * for the rounding of a texel's 16 bits (at most 1 % of them differ, by at
 * most 8 of 255). */
static void render_targets(void) {
    const char *targets[] = {"gles", "web"}, *modes[] = {"vat", "bat"};
    const char *scene = "--size 160x120 --count 4 --seed 2 --time 0 --no-ground";
    for (int m = 0; m < 2; m++) {
        CHECK_MSG(crowd("", "render cli_bake -o cli_target_gl45_%s.png --mode %s %s", modes[m],
                        modes[m], scene) == 0,
                  "%s", err_text);
    }
    for (int t = 0; t < 2; t++) {
        char dir[64];
        snprintf(dir, sizeof dir, "cli_target_%s", targets[t]);
        CHECK(system("rm -rf cli_target_gles cli_target_web") == 0);
        CHECK_MSG(crowd("", "bake builtin: -o %s --target %s --what both", dir, targets[t]) == 0,
                  "bake --target %s: %s", targets[t], err_text);
        for (int m = 0; m < 2; m++) {
            char out[96], reference[96];
            snprintf(out, sizeof out, "%s_%s.png", dir, modes[m]);
            snprintf(reference, sizeof reference, "cli_target_gl45_%s.png", modes[m]);
            CHECK_MSG(crowd("", "render %s -o %s --mode %s --context gles3 %s", dir, out, modes[m],
                            scene) == 0,
                      "--target %s on GLES 3.0 in %s: %s", targets[t], modes[m], err_text);
            CHECK_MSG(strstr(out_text, "portable") != NULL, "%s", out_text);
            uint32_t w = 0, h = 0, rw = 0, rh = 0;
            uint8_t *a = png_read(out, &w, &h), *b = png_read(reference, &rw, &rh);
            CHECK(a != NULL && b != NULL && w == rw && h == rh);
            uint32_t differ = 0, drawn = 0;
            int worst = 0;
            for (size_t i = 0; a != NULL && b != NULL && w == rw && h == rh && i < (size_t)w * h;
                 i++) {
                int d = 0;
                for (int c = 0; c < 3; c++) {
                    int e = abs((int)a[4 * i + c] - (int)b[4 * i + c]);
                    d = e > d ? e : d;
                }
                differ += d > 0;
                /* The corner is background: the crowd stands in the middle. */
                drawn += memcmp(&b[4 * i], &b[0], 3) != 0;
                worst = d > worst ? d : worst;
            }
            printf("  --target %s %s on GLES 3.0: %u of %u pixels differ (max %d), %u drawn\n",
                   targets[t], modes[m], differ, w * h, worst, drawn);
            CHECK_MSG(drawn > 100, "--target %s %s: only %u pixels drawn", targets[t], modes[m],
                      drawn);
            CHECK_MSG(differ * 100 <= w * h && worst <= 8, "--target %s %s: %u differ, max %d",
                      targets[t], modes[m], differ, worst);
            free(a);
            free(b);
        }
    }
}

int test_gpu_cli(void) {
    printf("cli\n");
    /* Every mode from a model; draw calls as counted by the renderer. */
    render_modes("builtin:", "cli_builtin", "--size 160x120 --count 4 --time 0.3", true);
    CHECK(crowd("", "render builtin: -o cli_cpu4.png --size 160x120 --count 4 --mode cpu") == 0);
    CHECK_MSG(strstr(out_text, "draw calls        4 (+1 ground)") != NULL, "%s", out_text);
    CHECK(crowd("", "render builtin: -o cli_vat9.png --size 160x120 --count 9 --seed 7 --mode vat "
                    "--no-ground") == 0);
    CHECK_MSG(strstr(out_text, "draw calls        1\n") != NULL, "%s", out_text);
    CHECK(strstr(out_text, "9 instances") != NULL);
    CHECK(crowd("", "render builtin: -o cli_camera.png --size 160x120 --clip wave "
                    "--camera 0,1.5,4,0,1,0 --time 1") == 0);

    /* A bake folder: every mode (its runtime clips play cpu and gpu); one
     * rewritten as version 3, without them: static, bat, vat, and cpu and
     * gpu are exit 3. */
    CHECK(system("rm -rf cli_bake cli_old cli_bad_manifest cli_no_texture") == 0);
    CHECK_MSG(crowd("", "bake builtin: -o cli_bake") == 0, "bake: %s", err_text);
    render_modes("cli_bake", "cli_folder", "--size 160x120 --count 4 --seed 2", true);
    CHECK(system("cp -r cli_bake cli_old") == 0 && test_strip_runtime_clips("cli_old", "builtin"));
    render_modes("cli_old", "cli_old", "--size 160x120 --count 4 --seed 2", false);
    CHECK(crowd("", "render cli_bake/builtin.crowd.json -o cli_manifest.png --size 160x120") == 0);
    render_mixed("cli_old");
    render_shadows();
    render_targets();

    /* Bad input: each a clear message and its exit code. */
    expect_fail(1, "--mode", "", "render builtin: -o x.png --mode fast");
    expect_fail(1, "--count", "", "render builtin: -o x.png --count 0");
    expect_fail(1, "--count", "", "render builtin: -o x.png --count 65537");
    expect_fail(1, "--count", "", "render builtin: -o x.png --count many");
    expect_fail(1, "--size", "", "render builtin: -o x.png --size 0x120");
    expect_fail(1, "--size", "", "render builtin: -o x.png --size 100000x100000");
    expect_fail(1, "--size", "", "render builtin: -o x.png --size 160");
    expect_fail(1, "--camera", "", "render builtin: -o x.png --camera 1,2,3");
    expect_fail(1, "--time", "", "render builtin: -o x.png --time soon");
    expect_fail(1, "no clip named 'moonwalk'", "", "render builtin: -o x.png --clip moonwalk");
    expect_fail(1, "-o OUT.png", "", "render builtin:");
    expect_fail(1, "unknown option", "", "render builtin: -o x.png --fast");
    expect_fail(2, "missing.glb", "", "render missing.glb -o x.png");
    CHECK(system("cp -r cli_bake cli_bad_manifest && printf '{\"format\": 1' > "
                 "cli_bad_manifest/builtin.crowd.json") == 0);
    expect_fail(2, "builtin.crowd.json", "", "render cli_bad_manifest -o x.png --mode vat");
    CHECK(system("cp -r cli_bake cli_no_texture && rm cli_no_texture/builtin.1.vat.png") == 0);
    expect_fail(2, "vat.png", "", "render cli_no_texture -o x.png --mode vat");
    expect_fail(3, "needs the source asset", "", "render cli_old -o x.png --mode gpu");
    expect_fail(4, "/nonexistent-dir/x.png", "",
                "render builtin: -o /nonexistent-dir/x.png --size 16x16");
    /* No EGL vendor at all (glvnd finds none): exit 5 naming the attempts. */
    expect_fail(5, "EGL", "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json",
                "render builtin: -o x.png --size 16x16");
    CHECK(access("x.png", F_OK) != 0);

    /* 100 robots in mixed clips, every mode. */
    const char *robot = check_shared_model("robot.glb");
    if (robot != NULL) {
        render_modes(robot, "cli_robot100", "--size 160x120 --count 100 --seed 5", true);
        CHECK(crowd("",
                    "render builtin: '%s' -o cli_robot_mixed.png --size 160x120 --count 40 "
                    "--shadows",
                    robot) == 0);
        CHECK_MSG(strstr(out_text, "archetypes        2") != NULL, "%s", out_text);
        /* A clip only the built-in character has: the robot plays its first. */
        CHECK(crowd("",
                    "render builtin: '%s' -o cli_robot_clip.png --size 160x120 --count 4 "
                    "--clip wave",
                    robot) == 0);
        CHECK_MSG(strstr(err_text, "no clip named 'wave'; it plays its first") != NULL, "%s",
                  err_text);
        char args[1200];
        snprintf(args, sizeof args, "render builtin: '%s' -o x.png --clip moonwalk", robot);
        expect_fail(1, "no clip named 'moonwalk'", "", args);
    }
    CHECK(system("rm -rf cli_bake cli_old cli_bad_manifest cli_no_texture") == 0);
    return check_finish();
}
