/* check.h - the minimal test harness shared by every test executable.
 *
 * CHECK(cond) records a failure and goes on; REQUIRE(cond) returns from the
 * enclosing function returning int (1) on failure, REQUIRE_VOID(cond) from
 * one returning void. A test program ends with
 * `return check_finish();`, which prints the tally and returns 0 (passed),
 * 1 (a check failed) or 77 (skipped: no check ran, e.g. every group needed
 * models that are absent; CTest's SKIP_RETURN_CODE). A test main begins with
 * check_enter_temp_dir (check_temp_dir.c), so whatever it writes goes to a
 * folder of its own.
 * Helpers find the test characters. ../shared/models may be absent (a fresh
 * clone has none): a group needing one of them skips, says "SKIP:" and is
 * counted, so a run without them cannot look fully green (check_finish
 * prints the count; scripts/test-skips.sh lists every passing test that
 * skipped something after a ctest run). CROWD_MODELS_DIR in the
 * environment overrides the folder CMake compiled in, e.g. an empty one to
 * see what a machine without the models runs. Files of Debian packages
 * the dependency script installs (assimp-testmodels) are never skipped:
 * their absence fails the test.
 */
#ifndef CROWD_TEST_CHECK_H
#define CROWD_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int check_failures;
static int check_count;
static int check_skips;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double check_a_ = (double)(a), check_b_ = (double)(b);                                     \
        check_count++;                                                                             \
        if (!(fabs(check_a_ - check_b_) <= (double)(tol))) {                                       \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g, tol %g\n", __FILE__,  \
                    __LINE__, #a, check_a_, #b, check_b_, (double)(tol));                          \
        }                                                                                          \
    } while (0)

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);             \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#define REQUIRE_VOID(cond)                                                                         \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);             \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Makes a fresh folder under $TMPDIR (or /tmp) named after `name`, enters
 * it, and removes it at exit (kept when CROWD_KEEP_TEST_DIR is set). Exits
 * the test with 1 when the folder cannot be made. */
void check_enter_temp_dir(const char *name);

static inline int check_finish(void) {
    printf("%d checks, %d failed, %d skipped groups\n", check_count, check_failures, check_skips);
    if (check_failures > 0) {
        return 1;
    }
    if (check_count == 0) {
        printf("SKIP: nothing was checked\n");
        return 77;
    }
    if (check_skips > 0) {
        printf("SKIP: %d groups skipped, the rest passed\n", check_skips);
    }
    return 0;
}

static inline int check_path_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* The folder of the test characters: $CROWD_MODELS_DIR, else the one
 * CMake compiled in (CROWD_MODELS_DIR, ../shared/models by default). */
static inline const char *check_models_dir(void) {
    const char *dir = getenv("CROWD_MODELS_DIR");
    return dir != NULL && dir[0] != '\0' ? dir : CROWD_MODELS_DIR;
}

/* Full path of a test character in check_models_dir(), or NULL (with a
 * SKIP line, counted) when that folder or file is absent. Uses a static
 * buffer. */
static inline const char *check_shared_model(const char *file) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", check_models_dir(), file);
    if (!check_path_exists(path)) {
        printf("SKIP: %s not found (../shared/models absent)\n", path);
        check_skips++;
        return NULL;
    }
    return path;
}

/* A file of Debian's assimp-testmodels (relative to /usr/share/assimp/models),
 * or NULL with a failure when it is absent: the package is one of the
 * dependency script's, so without it the test did not run what it says. */
static inline const char *check_assimp_model(const char *file) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", CROWD_ASSIMP_MODELS_DIR, file);
    check_count++;
    if (!check_path_exists(path)) {
        check_failures++;
        fprintf(stderr, "FAIL: %s not found (assimp-testmodels: scripts/install-deps.sh test)\n",
                path);
        return NULL;
    }
    return path;
}

#endif
