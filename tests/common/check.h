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
 * Helpers find the test characters and skip with a message when they are
 * absent (a fresh machine has no ../shared/models).
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
    return 0;
}

static inline int check_path_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Full path of a test character in ../shared/models, or NULL (with a SKIP
 * line) when that folder or file is absent. Uses a static buffer. */
static inline const char *check_shared_model(const char *file) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", CROWD_MODELS_DIR, file);
    if (!check_path_exists(path)) {
        printf("SKIP: %s not found (../shared/models absent)\n", path);
        check_skips++;
        return NULL;
    }
    return path;
}

/* Same for Debian's assimp-testmodels (relative to /usr/share/assimp/models). */
static inline const char *check_assimp_model(const char *file) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", CROWD_ASSIMP_MODELS_DIR, file);
    if (!check_path_exists(path)) {
        printf("SKIP: %s not found (install assimp-testmodels: scripts/install-deps.sh)\n", path);
        check_skips++;
        return NULL;
    }
    return path;
}

#endif
