/* test_bakeio_atomic - crowd_bake_write is all-or-nothing.
 *
 * Every failure is provoked for real in a forked child: a file size limit
 * (RLIMIT_FSIZE with SIGXFSZ ignored, so writes fail with EFBIG) at each
 * file of the set in turn, a folder the writer may not write into (the child
 * drops to "nobody" when the test runs as root), and a folder standing where
 * a file must go. After each, the output folder must hold exactly the
 * entries and bytes it held before (a snapshot of the whole tree), including
 * a bake already there, and folders the writer created must be gone.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "check.h"
#include "bakeio_fixture.h"

static char root[] = "/tmp/test_bakeio_atomic.XXXXXX";

typedef struct child_limits {
    rlim_t file_size_bytes; /* 0: none */
    bool unprivileged;
} child_limits;

/* Runs crowd_bake_write in a child under `limits`; returns true when it
 * failed with CROWD_ERROR_OUTPUT and a reason containing `expect`. */
static bool write_fails(const crowd_bake *bake, const char *dir, const crowd_bake_write_desc *desc,
                        const child_limits *limits, const char *expect) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (limits->unprivileged && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) {
            _exit(3);
        }
        if (limits->file_size_bytes > 0) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit limit = {limits->file_size_bytes, limits->file_size_bytes};
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0) {
                _exit(3);
            }
        }
        crowd_error error = {0};
        crowd_result result = crowd_bake_write(bake, dir, desc, &error);
        bool ok = result == CROWD_ERROR_OUTPUT && strstr(error.reason, expect) != NULL &&
                  error.file[0] != '\0';
        if (!ok) {
            fprintf(stderr, "  child: %s: %s: %s\n", crowd_result_str(result), error.file,
                    error.reason);
        }
        _exit(ok ? 0 : 1); /* no exit handlers: the child's copies are the parent's to free */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void sizes_of_files(const char *dir, size_t *sizes, int *count) {
    fx_snapshot snapshot;
    fx_snapshot_take(&snapshot, dir);
    *count = 0;
    for (int i = 0; i < snapshot.count; i++) {
        if (!snapshot.entries[i].is_dir) {
            sizes[(*count)++] = snapshot.entries[i].size;
        }
    }
    fx_snapshot_free(&snapshot);
}

/* A fresh nested folder is created; a second write replaces the first bake
 * completely and leaves no temporary or backup behind. */
static void test_success_paths(const crowd_asset *asset) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/new/deeper", root);
    fx_bake_options a = {200, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 1};
    fx_bake_options b = {100, CROWD_VAT_F16, 9, CROWD_BAT_F16, 2};
    crowd_bake *first = fx_bake_create(asset, &a);
    crowd_bake *second = fx_bake_create(asset, &b);
    crowd_bake_write_desc openvat = {.openvat = true};
    CHECK(fx_written(first, dir, &openvat));
    fx_snapshot snapshot;
    fx_snapshot_take(&snapshot, dir);
    const char *expected_first[] = {"openvat",
                                    "openvat/synth.1-remap_info.json",
                                    "openvat/synth.1.glb",
                                    "openvat/synth.1_vat.png",
                                    "synth.1.bat.exr",
                                    "synth.1.mesh.glb",
                                    "synth.1.vat.png",
                                    "synth.crowd.json"};
    CHECK(snapshot.count == 8);
    for (int i = 0; i < snapshot.count && i < 8; i++) {
        CHECK_MSG(strcmp(snapshot.entries[i].path, expected_first[i]) == 0, "entry %d: %s", i,
                  snapshot.entries[i].path);
    }
    fx_snapshot_free(&snapshot);

    /* The second bake (float VAT, no OpenVAT set) replaces the first: the old
     * PNG and the OpenVAT folder, which the old manifest named, are gone; a
     * file no manifest names stays. */
    char notes[1100];
    snprintf(notes, sizeof notes, "%s/notes.txt", dir);
    test_write_file(notes, "mine\n", 5);
    CHECK(fx_written(second, dir, NULL));
    fx_snapshot_take(&snapshot, dir);
    const char *expected_second[] = {
        "notes.txt",       "synth.2.bat.exr",        "synth.2.mesh.glb",
        "synth.2.vat.exr", "synth.2.vat_normal.exr", "synth.crowd.json"};
    CHECK(snapshot.count == 6);
    for (int i = 0; i < snapshot.count && i < 6; i++) {
        CHECK_MSG(strcmp(snapshot.entries[i].path, expected_second[i]) == 0, "entry %d: %s", i,
                  snapshot.entries[i].path);
    }
    fx_snapshot_free(&snapshot);
    crowd_bake *loaded = NULL;
    crowd_error error = {0};
    CHECK(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK);
    if (loaded != NULL) {
        CHECK(loaded->vat_encoding == CROWD_VAT_F16 && loaded->bat_encoding == CROWD_BAT_F16);
        CHECK(memcmp(loaded->bat.texels, second->bat.texels,
                     (size_t)second->bat.width * second->bat.height * 8) == 0);
    }
    crowd_bake_destroy(loaded);
    crowd_bake_destroy(first);
    crowd_bake_destroy(second);
}

/* The file size limit set just below each file's size in turn: the write
 * fails at that file (or earlier) with EFBIG and the folder, holding an
 * older bake, is exactly as before; a folder the write would have created
 * is removed again. */
static void test_file_size_limits(const crowd_asset *asset) {
    char scratch[1024], dir[1024], fresh[1024];
    snprintf(scratch, sizeof scratch, "%s/sizes", root);
    snprintf(dir, sizeof dir, "%s/limited", root);
    snprintf(fresh, sizeof fresh, "%s/limited_fresh/sub", root);
    fx_bake_options old_options = {50, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 3};
    fx_bake_options new_options = {256, CROWD_VAT_F32, 9, CROWD_BAT_F32, 4};
    crowd_bake *old_bake = fx_bake_create(asset, &old_options);
    crowd_bake *new_bake = fx_bake_create(asset, &new_options);
    crowd_bake_write_desc openvat = {.openvat = true};
    CHECK(fx_written(new_bake, scratch, &openvat));
    CHECK(fx_written(old_bake, dir, NULL));
    size_t sizes[16];
    int count = 0;
    sizes_of_files(scratch, sizes, &count);
    CHECK(count == 8);
    fx_snapshot before, after;
    fx_snapshot_take(&before, dir);
    for (int i = 0; i < count; i++) {
        child_limits limits = {sizes[i] > 1 ? sizes[i] - 1 : 1, false};
        CHECK_MSG(write_fails(new_bake, dir, &openvat, &limits, "EFBIG"), "limit %zu bytes",
                  (size_t)limits.file_size_bytes);
        fx_snapshot_take(&after, dir);
        CHECK_MSG(fx_snapshot_equal(&before, &after), "limit %zu bytes",
                  (size_t)limits.file_size_bytes);
        fx_snapshot_free(&after);

        CHECK(write_fails(new_bake, fresh, &openvat, &limits, "EFBIG"));
        char parent[1024];
        snprintf(parent, sizeof parent, "%s/limited_fresh", root);
        CHECK_MSG(!check_path_exists(parent), "%s was left behind", parent);
    }
    fx_snapshot_free(&before);
    crowd_bake_destroy(old_bake);
    crowd_bake_destroy(new_bake);
}

/* A folder the writer may not write into: EACCES, nothing changed. */
static void test_unwritable(const crowd_asset *asset) {
    char dir[1024], nested[1100];
    snprintf(dir, sizeof dir, "%s/readonly", root);
    snprintf(nested, sizeof nested, "%s/inside", dir);
    fx_bake_options options = {20, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 5};
    crowd_bake *bake = fx_bake_create(asset, &options);
    CHECK(fx_written(bake, dir, NULL));
    /* readable and searchable by everyone (the unprivileged child included), writable by none */
    chmod(root, 0755);
    chmod(dir, 0555);
    fx_snapshot before, after;
    fx_snapshot_take(&before, dir);
    child_limits limits = {0, true};
    CHECK(write_fails(bake, dir, NULL, &limits, "EACCES"));
    CHECK(write_fails(bake, nested, NULL, &limits, "EACCES"));
    fx_snapshot_take(&after, dir);
    CHECK(fx_snapshot_equal(&before, &after));
    fx_snapshot_free(&before);
    fx_snapshot_free(&after);
    chmod(dir, 0755);
    crowd_bake_destroy(bake);
}

/* A folder where the manifest must go: refused before any rename, and the
 * bake already there (another name's files too) is untouched. A folder
 * named like a data file is no obstacle: data files take a new generation. */
static void test_folder_in_the_way(const crowd_asset *asset) {
    char dir[1024], blocker[1100], other[1100];
    snprintf(dir, sizeof dir, "%s/blocked", root);
    fx_bake_options options = {20, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 6};
    crowd_bake *bake = fx_bake_create(asset, &options);
    CHECK(fx_written(bake, dir, NULL));
    snprintf(blocker, sizeof blocker, "%s/synth.crowd.json", dir);
    unlink(blocker);
    mkdir(blocker, 0755);
    snprintf(blocker, sizeof blocker, "%s/synth.2.mesh.glb", dir);
    mkdir(blocker, 0755);
    snprintf(other, sizeof other, "%s/notes.txt", dir);
    test_write_file(other, "keep me\n", 8);
    fx_snapshot before, after;
    fx_snapshot_take(&before, dir);
    fx_bake_options changed = {20, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 7};
    crowd_bake *next = fx_bake_create(asset, &changed);
    child_limits limits = {0, false};
    CHECK(write_fails(next, dir, NULL, &limits, "not a regular file"));
    fx_snapshot_take(&after, dir);
    CHECK(fx_snapshot_equal(&before, &after));
    fx_snapshot_free(&before);
    fx_snapshot_free(&after);
    crowd_bake_destroy(bake);
    crowd_bake_destroy(next);
}

/* Leftovers of killed bakes (temporaries, backups, data files of a
 * generation no manifest names, in the folder and the OpenVAT folder) are
 * removed by the next bake, and nothing else: files of other names, names
 * of other shapes, and a pre-version-3 bake "synth.7" beside it stay. */
static void test_leftovers_removed(const crowd_asset *asset) {
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/leftovers", root);
    fx_bake_options options = {20, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 8};
    crowd_bake *bake = fx_bake_create(asset, &options);
    crowd_bake_write_desc openvat = {.openvat = true};
    CHECK(fx_written(bake, dir, &openvat));
    const char *leftovers[] = {".synth.2.vat.png.tmp-4242-0",  "synth.2.mesh.glb",
                               ".synth.crowd.json.bak-4242-0", ".synth.crowd.json.tmp-4242-1",
                               ".synth.vat.png.tmp-4242-0",    ".synth.1.mesh.glb.bak-4242",
                               "openvat/synth.2_vat.png",      "openvat/.synth.2.glb.tmp-9-0"};
    const char *kept[] = {"notes.txt",
                          "other.1.vat.png",
                          "synth.02.vat.png",
                          "synth.2.vat.png.orig",
                          ".synth.2.vat.png.tmp-x",
                          "synthetic.2.vat.png",
                          "synth.7.vat.png",
                          "synth.7.crowd.json",
                          "openvat/notes.txt"};
    for (size_t i = 0; i < sizeof leftovers / sizeof *leftovers; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, leftovers[i]);
        test_write_file(path, "left over", 9);
    }
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, kept[i]);
        test_write_file(path, "mine", 4);
    }
    CHECK(fx_written(bake, dir, &openvat));
    const char *expected[] = {".synth.2.vat.png.tmp-x",
                              "notes.txt",
                              "openvat",
                              "openvat/notes.txt",
                              "openvat/synth.3-remap_info.json",
                              "openvat/synth.3.glb",
                              "openvat/synth.3_vat.png",
                              "other.1.vat.png",
                              "synth.02.vat.png",
                              "synth.2.vat.png.orig",
                              "synth.3.bat.exr",
                              "synth.3.mesh.glb",
                              "synth.3.vat.png",
                              "synth.7.crowd.json",
                              "synth.7.vat.png",
                              "synth.crowd.json",
                              "synthetic.2.vat.png"};
    int want = (int)(sizeof expected / sizeof *expected);
    fx_snapshot snapshot;
    fx_snapshot_take(&snapshot, dir);
    CHECK_MSG(snapshot.count == want, "%d entries, want %d", snapshot.count, want);
    for (int i = 0; i < snapshot.count && i < want; i++) {
        CHECK_MSG(strcmp(snapshot.entries[i].path, expected[i]) == 0, "entry %d: %s, want %s", i,
                  snapshot.entries[i].path, expected[i]);
    }
    fx_snapshot_free(&snapshot);
    crowd_bake *loaded = NULL;
    crowd_error error = {0};
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    CHECK_MSG(crowd_bake_load(path, NULL, &loaded, &error) == CROWD_OK, "%s: %s", error.file,
              error.reason);
    crowd_bake_destroy(loaded);
    crowd_bake_destroy(bake);
}

int main(void) {
    check_enter_temp_dir("test_bakeio_atomic");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    crowd_asset *asset = fx_asset_create(256);
    test_success_paths(asset);
    test_file_size_limits(asset);
    test_unwritable(asset);
    test_folder_in_the_way(asset);
    test_leftovers_removed(asset);
    crowd_asset_destroy(asset);
    test_remove_tree(root);
    return check_finish();
}
