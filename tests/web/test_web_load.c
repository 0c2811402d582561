/* test_web_load - crowd_runtime compiled to WebAssembly reads bakes exactly
 * as the native build does.
 *
 * The native CLI bakes builtin: (VAT as 16-bit PNG, BAT as float EXR) and,
 * where ../shared/models has it, robot.glb (two clips, VAT and BAT as half
 * EXR, --target web); web_load_check (web_load_check.c) prints a digest of
 * each folder natively and under node from the WebAssembly build, and the
 * two must be equal byte for byte, exit codes and error lines included,
 * also for a folder whose BAT file is cut short.
 *
 * When it skips and when it fails: the WebAssembly build is an output of
 * `make web`, not a package, so where it was not built (a hand-run ctest
 * after a plain native build) the test says SKIP and exits 77, counted and
 * listed by scripts/test-skips.sh; make test builds it first, so there it
 * always runs. Everything else the test needs comes from the packages of
 * scripts/install-deps.sh test, so it fails, saying what is missing: node
 * that does not start, a wasm program that does not run, a bake that fails.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "run_cli.h"
#include "test_files.h"

/* The digest of one run of web_load_check. */
typedef struct check_run {
    int exit_code;
    char out[1 << 16];
    char err[1 << 12];
} check_run;

/* Runs argv (argv[0] a path or, without a slash, a name on PATH), its
 * stdout and stderr captured through files in the working folder. */
static void run_program(const char *const *argv, check_run *run) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int out = open("check_out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open("check_err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        run->exit_code = -2;
    } else {
        run->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    cli_read_text("check_out.txt", run->out, sizeof run->out);
    cli_read_text("check_err.txt", run->err, sizeof run->err);
}

/* The first line where a and b differ, for the failure message. */
static void print_first_difference(const char *a, const char *b) {
    int line = 1;
    const char *line_a = a, *line_b = b;
    for (; *a != '\0' && *a == *b; a++, b++) {
        if (*a == '\n') {
            line++;
            line_a = a + 1;
            line_b = b + 1;
        }
    }
    fprintf(stderr, "first difference, line %d:\n  native: %.*s\n  wasm:   %.*s\n", line,
            (int)strcspn(line_a, "\n"), line_a, (int)strcspn(line_b, "\n"), line_b);
}

static check_run native_run, wasm_run;

/* Both builds on `dir`: same exit code, output and error text. Returns the
 * native run's exit code. */
static int compare_on(const char *dir) {
    const char *native[] = {WEB_LOAD_CHECK_NATIVE, dir, NULL};
    const char *wasm[] = {CROWD_NODE, WEB_LOAD_CHECK_WASM, dir, NULL};
    run_program(native, &native_run);
    run_program(wasm, &wasm_run);
    CHECK_MSG(wasm_run.exit_code != 127,
              "%s did not start (CROWD_NODE; scripts/install-deps.sh test)", CROWD_NODE);
    CHECK_MSG(native_run.exit_code == wasm_run.exit_code, "%s: exit %d natively, %d in wasm: %s",
              dir, native_run.exit_code, wasm_run.exit_code, wasm_run.err);
    CHECK_MSG(strcmp(native_run.err, wasm_run.err) == 0, "%s: errors differ:\n%s---\n%s", dir,
              native_run.err, wasm_run.err);
    bool same = strcmp(native_run.out, wasm_run.out) == 0;
    CHECK_MSG(same, "%s: the digests differ", dir);
    if (same) {
        printf("%s: exit %d, digests of %zu bytes match\n", dir, native_run.exit_code,
               strlen(native_run.out));
    } else {
        print_first_difference(native_run.out, wasm_run.out);
    }
    return native_run.exit_code;
}

/* A loaded bake's digest has every part: a digest of nothing would match too. */
static void check_digest_complete(const char *dir, const char *out, int clips) {
    const char *parts[] = {
        "bake ",     "texture bat ", "mesh positions ", "lod 0 ",
        "skeleton ", "rest models ", "skin rest ",      "skin path scalar sse2 0 avx2 0\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        CHECK_MSG(strstr(out, parts[i]) != NULL, "%s: no '%s' in the digest", dir, parts[i]);
    }
    int found = 0;
    for (const char *p = out; (p = strstr(p, "\nclip ")) != NULL; p++) {
        found++;
    }
    CHECK_MSG(found == clips, "%s: %d clips in the digest, expected %d", dir, found, clips);
}

static void bake(const char *model, const char *dir, const char *const *options) {
    const char *args[CLI_RUN_MAX_ARGS + 1] = {"bake", model, "-o", dir, "--quiet"};
    int count = 5;
    for (; *options != NULL && count < CLI_RUN_MAX_ARGS; options++) {
        args[count++] = *options;
    }
    args[count] = NULL;
    static cli_run run;
    cli_run_argv(args, NULL, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "crowd bake %s: exit %d: %s", model, run.exit_code, run.err);
}

/* A copy of bake folder `from` as `to`, its *.bat.exr cut to half its size. */
static int copy_with_short_bat(const char *from, const char *to) {
    DIR *dir = opendir(from);
    if (dir == NULL || mkdir(to, 0755) != 0) {
        return -1;
    }
    int cut = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.') {
            continue;
        }
        char source[1024], target[1024];
        snprintf(source, sizeof source, "%s/%s", from, entry->d_name);
        snprintf(target, sizeof target, "%s/%s", to, entry->d_name);
        size_t size = 0;
        char *data = test_read_file(source, &size);
        bool bat = strstr(entry->d_name, ".bat.exr") != NULL;
        if (data == NULL || test_write_file(target, data, bat ? size / 2 : size) != 0) {
            free(data);
            closedir(dir);
            return -1;
        }
        cut += bat;
        free(data);
    }
    closedir(dir);
    return cut == 1 ? 0 : -1;
}

int main(void) {
    check_enter_temp_dir("web_load");
    if (!check_path_exists(WEB_LOAD_CHECK_WASM)) {
        printf("SKIP: no WebAssembly build (%s): make web builds it\n", WEB_LOAD_CHECK_WASM);
        return 77;
    }

    const char *const builtin_options[] = {"--fps", "10", "--lods", "1", NULL};
    bake("builtin:", "builtin", builtin_options);
    if (compare_on("builtin") == 0) {
        check_digest_complete("builtin", native_run.out, 5);
        /* unorm16_oct (a PNG) and f32 (an EXR of floats) */
        CHECK(strstr(native_run.out, "vat encoding 1 ") != NULL);
        CHECK(strstr(native_run.out, " bat encoding 1 ") != NULL);
    }

    REQUIRE(copy_with_short_bat("builtin", "broken") == 0);
    CHECK(compare_on("broken") == 2);
    CHECK(strstr(native_run.err, ".bat.exr") != NULL);

    const char *robot = check_shared_model("robot.glb");
    if (robot != NULL) {
        const char *const robot_options[] = {
            "--fps",      "10",  "--lods",         "1",   "--clips",  "Robot_Wave,Robot_Death",
            "--encoding", "f16", "--bat-encoding", "f16", "--target", "web",
            NULL};
        bake(robot, "robot", robot_options);
        if (compare_on("robot") == 0) {
            check_digest_complete("robot", native_run.out, 2);
            /* f16 VAT and BAT: EXRs of halves */
            CHECK(strstr(native_run.out, "vat encoding 2 ") != NULL);
            CHECK(strstr(native_run.out, " bat encoding 2 ") != NULL);
        }
    }
    return check_finish();
}
