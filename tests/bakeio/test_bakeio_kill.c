/* test_bakeio_kill - a bake killed at any moment leaves the old bake or the
 * new one, never a mix, and the next bake leaves no leftover.
 *
 * `crowd bake builtin: --lods 0 --clips walk,idle,run,wave,die` runs into a
 * folder holding an older, different bake (--clips idle,walk) and a user's
 * file, under strace, which kills it (SIGKILL) at the Nth rename for every
 * N until the bake completes, and at 20 pseudo-random counts of the other
 * calls a bake makes (openat, pwrite64, fsync, link, unlink). After each,
 * the folder must load, and its manifest and every file it names must be
 * byte for byte those of the old bake or those of the new one (reference
 * folders baked without a kill). Then a bake without a kill must leave
 * exactly the new bake's files (same bytes) and the user's file.
 * strace is one of the packages scripts/install-deps.sh installs: without
 * it the test fails rather than skips.
 */
#define _XOPEN_SOURCE 700

#include "check.h"
#include "bakeio_fixture.h"
#include "load/manifest_io.h"

static char root[] = "/tmp/test_bakeio_kill.XXXXXX";
static const char *const old_clips = "idle,walk";
static const char *const new_clips = "walk,idle,run,wave,die";

/* Runs `crowd bake` of `clips` into `dir`, under strace with `strace_args`
 * when given; true when it completed with exit 0. */
static bool bake(const char *dir, const char *clips, const char *strace_args) {
    char command[4096];
    snprintf(command, sizeof command,
             "%s%s%s '%s' bake builtin: --lods 0 --clips %s -o '%s' >/dev/null 2>&1",
             strace_args ? CROWD_STRACE " -f -qq -o /dev/null " : "",
             strace_args ? strace_args : "", strace_args ? " " : "", CROWD_CLI, clips, dir);
    return system(command) == 0;
}

static char *read_in(const char *dir, const char *name, size_t *size) {
    char path[2048];
    fx_join(path, sizeof path, dir, name);
    return test_read_file(path, size);
}

static bool same_file(const char *dir_a, const char *name_a, const char *dir_b,
                      const char *name_b) {
    size_t size_a = 0, size_b = 0;
    char *a = read_in(dir_a, name_a, &size_a), *b = read_in(dir_b, name_b, &size_b);
    bool same = a != NULL && b != NULL && size_a == size_b && memcmp(a, b, size_a) == 0;
    free(a);
    free(b);
    return same;
}

/* The files dir's manifest names (manifest_io.h), 0 when it has none. */
static uint32_t named_files(const char *dir, manifest_path *paths) {
    size_t size = 0;
    char *text = read_in(dir, "builtin.crowd.json", &size);
    uint32_t count = text ? crowd__manifest_referenced_files(text, size, paths) : 0;
    free(text);
    return count;
}

static bool loads(const char *dir) {
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_load(dir, NULL, &bake, &error);
    crowd_bake_destroy(bake);
    if (result != CROWD_OK) {
        fprintf(stderr, "  %s: %s: %s\n", crowd_result_str(result), error.file, error.reason);
    }
    return result == CROWD_OK;
}

/* The bake `dir` holds, file for file by the manifest's roles, is the one
 * of `ref` (same bytes; the names may differ in their generation). */
static bool holds_bake_of(const char *dir, const char *ref, bool same_names) {
    manifest_path mine[MANIFEST_MAX_FILES], theirs[MANIFEST_MAX_FILES];
    uint32_t count = named_files(dir, mine);
    if (count == 0 || count != named_files(ref, theirs)) {
        return false;
    }
    if (same_names && !same_file(dir, "builtin.crowd.json", ref, "builtin.crowd.json")) {
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        if ((same_names && strcmp(mine[i], theirs[i]) != 0) ||
            !same_file(dir, mine[i], ref, theirs[i])) {
            return false;
        }
    }
    return true;
}

static size_t folder_bytes(const char *dir, int *files) {
    fx_snapshot snapshot;
    fx_snapshot_take(&snapshot, dir);
    size_t total = 0;
    *files = 0;
    for (int i = 0; i < snapshot.count; i++) {
        total += snapshot.entries[i].size;
        *files += !snapshot.entries[i].is_dir;
    }
    fx_snapshot_free(&snapshot);
    return total;
}

static int cases, old_seen, new_seen;
static size_t most_bytes_killed;

/* One kill: `dir` is the old bake plus notes.txt; after the killed bake it
 * must be exactly the old or the new bake; after a clean one, the new bake
 * and notes.txt and nothing else. Returns whether the bake completed. */
static bool kill_case(const char *old_ref, const char *new_ref, const char *strace_args) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/case%03d", root, ++cases);
    fx_copy_folder(old_ref, dir);
    bool completed = bake(dir, new_clips, strace_args);
    bool is_old = holds_bake_of(dir, old_ref, true), is_new = holds_bake_of(dir, new_ref, true);
    CHECK_MSG(loads(dir) && (is_old || is_new), "%s: after the kill (%s) the folder is %s", dir,
              strace_args, is_old || is_new ? "the old or new bake but does not load" : "a mix");
    CHECK_MSG(!completed || is_new, "%s: completed, but not the new bake", dir);
    old_seen += is_old;
    new_seen += is_new;
    int files = 0;
    size_t bytes = folder_bytes(dir, &files);
    most_bytes_killed = bytes > most_bytes_killed ? bytes : most_bytes_killed;
    CHECK_MSG(same_file(dir, "notes.txt", old_ref, "notes.txt"), "%s: the user's file", dir);

    CHECK_MSG(bake(dir, new_clips, NULL), "%s: the bake after the kill failed", dir);
    manifest_path named[MANIFEST_MAX_FILES];
    int want = (int)named_files(dir, named) + 2; /* + the manifest and notes.txt */
    CHECK_MSG(loads(dir) && holds_bake_of(dir, new_ref, false), "%s: not the new bake", dir);
    folder_bytes(dir, &files);
    CHECK_MSG(files == want, "%s: %d files after the next bake, %d wanted: leftovers", dir, files,
              want);
    CHECK_MSG(same_file(dir, "notes.txt", old_ref, "notes.txt"), "%s: the user's file", dir);
    test_remove_tree(dir);
    return completed;
}

/* How often a clean bake into a copy of the old one calls `syscall`. */
static unsigned count_calls(const char *old_ref, const char *syscall) {
    char dir[1024], log[1100];
    snprintf(dir, sizeof dir, "%s/count", root);
    snprintf(log, sizeof log, "%s/strace.log", root);
    fx_copy_folder(old_ref, dir);
    char command[4096];
    snprintf(command, sizeof command,
             "%s -f -qq -o '%s' -e trace=%s '%s' bake builtin: --lods 0 --clips %s -o '%s' "
             ">/dev/null 2>&1",
             CROWD_STRACE, log, syscall, CROWD_CLI, new_clips, dir);
    unsigned count = 0;
    if (system(command) == 0) {
        size_t size = 0;
        char *text = test_read_file(log, &size);
        char pattern[64];
        snprintf(pattern, sizeof pattern, " %s(", syscall);
        for (char *p = text ? strstr(text, pattern) : NULL; p != NULL; p = strstr(p + 1, pattern)) {
            count++;
        }
        free(text);
    }
    test_remove_tree(dir);
    return count;
}

int main(void) {
    check_enter_temp_dir("test_bakeio_kill");
    if (access(CROWD_STRACE, X_OK) != 0) {
        fprintf(stderr, "strace (\"%s\") is missing: scripts/install-deps.sh installs it\n",
                CROWD_STRACE);
        return 1;
    }
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    char old_ref[1024], new_ref[1024], notes[1100];
    snprintf(old_ref, sizeof old_ref, "%s/old", root);
    snprintf(new_ref, sizeof new_ref, "%s/new", root);
    REQUIRE(bake(old_ref, old_clips, NULL));
    snprintf(notes, sizeof notes, "%s/notes.txt", old_ref);
    test_write_file(notes, "my notes\n", 9);
    fx_copy_folder(old_ref, new_ref);
    REQUIRE(bake(new_ref, new_clips, NULL));
    REQUIRE(!holds_bake_of(old_ref, new_ref, false));

    int renames = 0;
    for (int n = 1; n < 64; n++) {
        char args[200];
        snprintf(args, sizeof args, "-e inject=rename:signal=SIGKILL:when=%d", n);
        if (kill_case(old_ref, new_ref, args)) {
            break;
        }
        renames++;
    }
    CHECK_MSG(renames >= 2, "only %d renames were killed", renames);

    static const char *const calls[] = {"openat", "pwrite64", "fsync", "link", "unlink"};
    unsigned counts[5];
    for (int i = 0; i < 5; i++) {
        counts[i] = count_calls(old_ref, calls[i]);
        CHECK_MSG(counts[i] > 0, "a bake makes no %s call", calls[i]);
    }
    uint32_t state = 17;
    int random_cases = 0;
    for (int k = 0; k < 20; k++) {
        int i = k % 5;
        if (counts[i] == 0) {
            continue;
        }
        unsigned when = 1 + fx_random(&state) % counts[i];
        char args[200];
        snprintf(args, sizeof args, "-e inject=%s:signal=SIGKILL:when=%u", calls[i], when);
        kill_case(old_ref, new_ref, args);
        random_cases++;
    }
    int old_files = 0, new_files = 0;
    size_t old_bytes = folder_bytes(old_ref, &old_files);
    size_t new_bytes = folder_bytes(new_ref, &new_files);
    printf("killed at %d renames and %d other calls: %d times the old bake, %d the new one\n",
           renames, random_cases, old_seen, new_seen);
    printf("folder: old bake %zu bytes (%d files), new %zu (%d), at most %zu after a kill, the "
           "new bake's after the next bake\n",
           old_bytes, old_files, new_bytes, new_files, most_bytes_killed);
    test_remove_tree(root);
    return check_finish();
}
