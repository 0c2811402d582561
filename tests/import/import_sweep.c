/* import_sweep.c - test_import_sweep: every file of Debian's
 * assimp-testmodels (and Minetest's player model) through crowd_import_file,
 * against the committed table tests/import/sweep_table.txt.
 *
 * One line per file, tab-separated:
 *   PATH  ASSIMP  OUTCOME  DETAIL
 * PATH is relative to the models folder ("minetest:" + the path under
 * /usr/share/games/minetest for Minetest's files). ASSIMP is what `assimp
 * info` made of the file when the table was written: "triangles" (it loads
 * and holds a triangle mesh), "loads" (it loads, without one) or "fails".
 * OUTCOME is "imported" (no repair), "repaired", "refused" or "crashed" (the
 * reader crashed, hung or hit a limit: any such row fails the test). DETAIL
 * gives the counts (v=vertices t=triangles j=joints c=clips) and the
 * non-zero repairs of an asset, or the result and reason of a refusal.
 *
 * The test fails on any difference between the table and this run, on any
 * crash, and on a file `assimp info` loads with a triangle mesh that crowd
 * refuses without a line in tests/import/sweep_rules.txt naming the rule of
 * its format it breaks (PATH, a tab, the rule).
 *
 * To write the table from this run (after a change that is meant to change
 * it, e.g. crowd's own glTF reader):
 *   CROWD_SWEEP_WRITE=1 build/release/tests/import/test_import_sweep
 * The ASSIMP column then comes from `assimp info` (scripts/install-deps.sh
 * --extra installs it), or is kept from the old table without it.
 *
 * Two threads import at once (each import is its own helper process), with
 * limits of 120 s and 4 GiB per file.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "crowd/import.h"

#define MINETEST_DIR "/usr/share/games/minetest"
#define MINETEST_PREFIX "minetest:"
#define THREADS 2
#define LINE_MAX_BYTES 1024

static const char *const minetest_files[] = {
    "games/minetest_game/mods/player_api/models/character.b3d"};

typedef struct row {
    char path[512];   /* as in the table */
    char full[1024];  /* on disk */
    char assimp[16];  /* ASSIMP column */
    char outcome[16]; /* OUTCOME column */
    char detail[LINE_MAX_BYTES];
} row;

typedef struct row_list {
    row *rows;
    size_t count, capacity;
} row_list;

static row *add_row(row_list *list) {
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 1024;
        row *grown = realloc(list->rows, capacity * sizeof *grown);
        if (grown == NULL) {
            return NULL;
        }
        list->rows = grown;
        list->capacity = capacity;
    }
    row *r = &list->rows[list->count++];
    memset(r, 0, sizeof *r);
    return r;
}

/* Copies `in` into `out`, cut to fit. */
static void copy_text(char *out, size_t size, const char *in) {
    size_t n = strlen(in);
    n = n < size - 1 ? n : size - 1;
    memcpy(out, in, n);
    out[n] = '\0';
}

/* Every regular file under `dir`, recursively. */
static void collect(const char *root, const char *relative, row_list *list) {
    char dir_path[1024];
    snprintf(dir_path, sizeof dir_path, "%s%s%s", root, relative[0] ? "/" : "", relative);
    DIR *dir = opendir(dir_path);
    if (dir == NULL) {
        return;
    }
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) {
            continue;
        }
        char child[512], full[1024];
        snprintf(child, sizeof child, "%s%s%s", relative, relative[0] ? "/" : "", entry->d_name);
        snprintf(full, sizeof full, "%s/%s", root, child);
        struct stat st;
        if (stat(full, &st) != 0) {
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            collect(root, child, list);
        } else if (S_ISREG(st.st_mode)) {
            row *r = add_row(list);
            if (r != NULL) {
                copy_text(r->path, sizeof r->path, child);
                copy_text(r->full, sizeof r->full, full);
            }
        }
    }
    closedir(dir);
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const row *)a)->path, ((const row *)b)->path);
}

/* A reason on one line without the models folder in it. */
static void clean_reason(const char *reason, char *out, size_t size) {
    const char *prefix = CROWD_ASSIMP_MODELS_DIR "/";
    size_t n = 0, prefix_length = strlen(prefix);
    for (const char *c = reason; *c != '\0' && n + 1 < size;) {
        if (strncmp(c, prefix, prefix_length) == 0) {
            c += prefix_length;
            continue;
        }
        out[n++] = (*c == '\t' || *c == '\n' || *c == '\r') ? ' ' : *c;
        c++;
    }
    out[n] = '\0';
}

static bool is_crash(const char *reason) {
    static const char *const signs[] = {
        "reader crashed", "reader exited with status", "did not finish",        "of CPU time",
        "memory limit",   "malformed reply",           "sent an invalid asset", "import helper"};
    for (size_t s = 0; s < sizeof signs / sizeof *signs; s++) {
        if (strstr(reason, signs[s]) != NULL) {
            return true;
        }
    }
    return false;
}

static void import_row(row *r) {
    /* A limit that stops a file changes its row, so both are far above
     * what the slowest file takes (the whole sweep: 8 s on 2 loaded cores):
     * 120 s of CPU time, and a wall clock that only guards against a
     * helper that hangs without using CPU. */
    crowd_import_desc desc = {0};
    desc.timeout_s = 600;
    desc.cpu_limit_s = 120;
    desc.memory_limit_bytes = 4ull << 30;
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_import_file(r->full, &desc, &asset, &error);
    if (result != CROWD_OK) {
        char reason[600];
        clean_reason(error.reason, reason, sizeof reason);
        snprintf(r->outcome, sizeof r->outcome, "%s", is_crash(reason) ? "crashed" : "refused");
        snprintf(r->detail, sizeof r->detail, "%s: %s", crowd_result_str(result), reason);
        return;
    }
    static const char *const names[] = {
        "influences_truncated", "weights_renormalized", "vertices_unweighted",
        "static_meshes_rigid",  "normals_generated",    "clips_renamed",
        "keys_dropped",         "clips_extended",       "bones_unbound",
        "reader_warnings",      "units_converted",      "gltf_read_by_assimp"};
    _Static_assert(sizeof names / sizeof *names == sizeof(crowd_repairs) / sizeof(uint32_t),
                   "a name for every repair");
    const uint32_t *counts = (const uint32_t *)&asset->repairs;
    int n = snprintf(r->detail, sizeof r->detail, "v=%u t=%u j=%u c=%u", asset->mesh.vertex_count,
                     asset->mesh.index_count / 3, asset->skeleton.joint_count, asset->clip_count);
    bool repaired = false;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        if (counts[k] != 0 && n > 0 && (size_t)n < sizeof r->detail) {
            n += snprintf(r->detail + n, sizeof r->detail - (size_t)n, "%s%s=%u",
                          repaired ? " " : "; ", names[k], counts[k]);
            repaired = true;
        }
    }
    snprintf(r->outcome, sizeof r->outcome, "%s", repaired ? "repaired" : "imported");
    crowd_asset_destroy(asset);
}

typedef struct worker {
    row_list *list;
    size_t *next;
    pthread_mutex_t *lock;
} worker;

static void *work(void *user) {
    worker *w = user;
    for (;;) {
        pthread_mutex_lock(w->lock);
        size_t index = (*w->next)++;
        pthread_mutex_unlock(w->lock);
        if (index >= w->list->count) {
            return NULL;
        }
        import_row(&w->list->rows[index]);
    }
}

/* `assimp info`'s verdict, or NULL when assimp's CLI is not installed. */
static const char *assimp_verdict(const char *full) {
    if (strchr(full, '\'') != NULL) {
        return "fails";
    }
    char command[1200];
    snprintf(command, sizeof command, "timeout 120 assimp info '%s' 2>&1", full);
    FILE *pipe = popen(command, "r");
    if (pipe == NULL) {
        return NULL;
    }
    bool loaded = false, triangles = false, missing = false;
    unsigned meshes = 0;
    char line[4096];
    while (fgets(line, sizeof line, pipe) != NULL) {
        loaded |= strncmp(line, "Importing file", 14) == 0 && strstr(line, "OK") != NULL;
        sscanf(line, "Meshes: %u", &meshes);
        triangles |= strncmp(line, "Primitive Types:", 16) == 0 && strstr(line, "triangles");
        missing |= strstr(line, "assimp: not found") != NULL;
    }
    int status = pclose(pipe);
    if (missing || status == 127 << 8) {
        return NULL;
    }
    return !loaded ? "fails" : meshes > 0 && triangles ? "triangles" : "loads";
}

static bool split_line(char *line, char **fields, int count) {
    line[strcspn(line, "\r\n")] = '\0';
    for (int f = 0; f < count; f++) {
        fields[f] = line;
        char *tab = f + 1 < count ? strchr(line, '\t') : NULL;
        if (f + 1 < count && tab == NULL) {
            return false;
        }
        if (tab != NULL) {
            *tab = '\0';
            line = tab + 1;
        }
    }
    return true;
}

static void read_table(const char *path, row_list *out) {
    FILE *f = fopen(path, "r");
    char line[LINE_MAX_BYTES + 600];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        char *fields[4];
        if (line[0] == '#' || !split_line(line, fields, 4)) {
            continue;
        }
        row *r = add_row(out);
        if (r != NULL) {
            copy_text(r->path, sizeof r->path, fields[0]);
            copy_text(r->assimp, sizeof r->assimp, fields[1]);
            copy_text(r->outcome, sizeof r->outcome, fields[2]);
            copy_text(r->detail, sizeof r->detail, fields[3]);
        }
    }
    if (f != NULL) {
        fclose(f);
    }
}

static const row *find_row(const row_list *list, const char *path) {
    for (size_t i = 0; i < list->count; i++) {
        if (strcmp(list->rows[i].path, path) == 0) {
            return &list->rows[i];
        }
    }
    return NULL;
}

static void write_table(const char *path, const row_list *rows) {
    FILE *f = fopen(path, "w");
    CHECK_MSG(f != NULL, "cannot write %s", path);
    if (f == NULL) {
        return;
    }
    fprintf(f, "# Written by test_import_sweep (tests/import/import_sweep.c says how to read and\n"
               "# rewrite it): PATH, what `assimp info` makes of it, crowd's outcome, detail.\n");
    for (size_t i = 0; i < rows->count; i++) {
        const row *r = &rows->rows[i];
        fprintf(f, "%s\t%s\t%s\t%s\n", r->path, r->assimp, r->outcome, r->detail);
    }
    fclose(f);
    printf("wrote %s (%zu rows)\n", path, rows->count);
}

/* PATH -> rule lines of sweep_rules.txt. */
static bool has_rule(const char *rules_path, const char *path) {
    FILE *f = fopen(rules_path, "r");
    char line[2048];
    bool found = false;
    while (f != NULL && !found && fgets(line, sizeof line, f) != NULL) {
        char *fields[2];
        found = line[0] != '#' && split_line(line, fields, 2) && strcmp(fields[0], path) == 0 &&
                fields[1][0] != '\0';
    }
    if (f != NULL) {
        fclose(f);
    }
    return found;
}

int main(void) {
    check_enter_temp_dir("test_import_sweep");
    if (check_assimp_model("") == NULL) {
        return check_finish();
    }
    row_list rows = {0};
    collect(CROWD_ASSIMP_MODELS_DIR, "", &rows);
    for (size_t m = 0; m < sizeof minetest_files / sizeof *minetest_files; m++) {
        char full[1024];
        snprintf(full, sizeof full, "%s/%s", MINETEST_DIR, minetest_files[m]);
        /* minetest-data is one of the dependency script's packages. */
        CHECK_MSG(check_path_exists(full),
                  "%s not found (minetest-data: scripts/install-deps.sh test)", full);
        if (!check_path_exists(full)) {
            continue;
        }
        row *r = add_row(&rows);
        if (r != NULL) {
            snprintf(r->path, sizeof r->path, "%s%s", MINETEST_PREFIX, minetest_files[m]);
            snprintf(r->full, sizeof r->full, "%s", full);
        }
    }
    qsort(rows.rows, rows.count, sizeof *rows.rows, by_path);

    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    size_t next = 0;
    worker w = {&rows, &next, &lock};
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        CHECK(pthread_create(&threads[t], NULL, work, &w) == 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
    }

    const char *table_path = CROWD_SOURCE_DIR "/tests/import/sweep_table.txt";
    const char *rules_path = CROWD_SOURCE_DIR "/tests/import/sweep_rules.txt";
    row_list table = {0};
    read_table(table_path, &table);
    const char *write = getenv("CROWD_SWEEP_WRITE");
    bool writing = write != NULL && strcmp(write, "1") == 0;
    size_t counts[4] = {0};
    static const char *const outcomes[4] = {"imported", "repaired", "refused", "crashed"};
    for (size_t i = 0; i < rows.count; i++) {
        row *r = &rows.rows[i];
        const row *old = find_row(&table, r->path);
        const char *verdict = writing ? assimp_verdict(r->full) : NULL;
        snprintf(r->assimp, sizeof r->assimp, "%s", verdict ? verdict : old ? old->assimp : "?");
        for (int o = 0; o < 4; o++) {
            counts[o] += strcmp(r->outcome, outcomes[o]) == 0;
        }
        CHECK_MSG(strcmp(r->outcome, "crashed") != 0, "%s: %s", r->path, r->detail);
        if (strcmp(r->assimp, "triangles") == 0 && strcmp(r->outcome, "refused") == 0) {
            CHECK_MSG(has_rule(rules_path, r->path),
                      "%s: assimp info loads it with triangles, crowd refuses it (%s), and "
                      "sweep_rules.txt names no rule it breaks",
                      r->path, r->detail);
        }
        if (writing) {
            continue;
        }
        CHECK_MSG(old != NULL, "%s: not in the table (now: %s %s)", r->path, r->outcome, r->detail);
        if (old != NULL) {
            CHECK_MSG(strcmp(old->outcome, r->outcome) == 0 && strcmp(old->detail, r->detail) == 0,
                      "%s changed:\n  table: %s %s\n  now:   %s %s", r->path, old->outcome,
                      old->detail, r->outcome, r->detail);
        }
    }
    for (size_t i = 0; i < table.count && !writing; i++) {
        bool here = false;
        for (size_t k = 0; k < rows.count && !here; k++) {
            here = strcmp(rows.rows[k].path, table.rows[i].path) == 0;
        }
        bool skipped = strncmp(table.rows[i].path, MINETEST_PREFIX, strlen(MINETEST_PREFIX)) == 0;
        CHECK_MSG(here || skipped, "%s: in the table, not among the files", table.rows[i].path);
    }
    if (writing) {
        write_table(table_path, &rows);
    }
    printf("sweep: %zu files: %zu imported, %zu imported with repairs, %zu refused, %zu crashed\n",
           rows.count, counts[0], counts[1], counts[2], counts[3]);
    free(rows.rows);
    free(table.rows);
    return check_finish();
}
