/* `crowd render` end to end: every mode from a model and from a bake
 * folder, readable PNGs of the stated size, the printed draw calls, and the
 * exit code and message of every bad input (DESIGN.md: 1 usage, 2 input,
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

static bool png_size(const char *path, uint32_t *width, uint32_t *height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        return false;
    }
    image.format = PNG_FORMAT_RGBA;
    uint8_t *pixels = malloc(PNG_IMAGE_SIZE(image));
    bool ok = pixels != NULL && png_image_finish_read(&image, NULL, pixels, 0, NULL);
    /* Something besides the background: the first and the middle pixel differ. */
    size_t middle = ((size_t)image.height / 2 * image.width + image.width / 2) * 4;
    ok = ok && memcmp(pixels, pixels + middle, 3) != 0;
    free(pixels);
    *width = image.width;
    *height = image.height;
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

    /* A bake folder: static, bat, vat; cpu and gpu are exit 3. */
    CHECK(system("rm -rf cli_bake cli_bad_manifest cli_no_texture") == 0);
    CHECK_MSG(crowd("", "bake builtin: -o cli_bake") == 0, "bake: %s", err_text);
    render_modes("cli_bake", "cli_folder", "--size 160x120 --count 4 --seed 2", false);
    CHECK(crowd("", "render cli_bake/builtin.crowd.json -o cli_manifest.png --size 160x120") == 0);

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
    CHECK(system("cp -r cli_bake cli_no_texture && rm cli_no_texture/builtin.vat.png") == 0);
    expect_fail(2, "vat.png", "", "render cli_no_texture -o x.png --mode vat");
    expect_fail(3, "needs the source asset", "", "render cli_bake -o x.png --mode gpu");
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
    }
    CHECK(system("rm -rf cli_bake cli_bad_manifest cli_no_texture") == 0);
    return check_finish();
}
