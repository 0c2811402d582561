/* test_cli_info - runs CROWD_CLI `info` in a child process (run_cli.h) and
 * checks what a user sees: exit code, that no signal ended it (a crash, or a
 * sanitizer abort), the one "crowd: error: <file>: <reason>" line on stderr
 * for bad input, and the counts on stdout for good input. */
#define _POSIX_C_SOURCE 200809L

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "run_cli.h"

#include <sys/stat.h>

static cli_run result;

/* Runs `crowd info ARGS...` (NULL-terminated). */
static const cli_run *run(const char *first, ...) {
    va_list args;
    va_start(args, first);
    cli_run_list("info", first, args, &result);
    va_end(args);
    return &result;
}

/* Bad input: exit 2 (or 3 where the format is unsupported), no signal, and
 * stderr is exactly "crowd: error: <path>: <reason>\n". */
static void check_bad(const char *path) {
    const cli_run *r = run(path, NULL);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "crowd: error: %s: ", path);
    CHECK_MSG(r->exit_code == 2 || r->exit_code == 3, "%s: exit %d (128 + N: signal N), stderr: %s",
              path, r->exit_code, r->err);
    CHECK_MSG(cli_line_count(r->err) == 1 && strncmp(r->err, prefix, strlen(prefix)) == 0 &&
                  strlen(r->err) > strlen(prefix) + 1,
              "%s: stderr is not one error line: '%s'", path, r->err);
    CHECK_MSG(r->out[0] == '\0', "%s: printed on stdout: %s", path, r->out);
}

static void check_bad_folder(const char *folder) {
    const char *dir_path = check_assimp_model(folder);
    if (dir_path == NULL) {
        return;
    }
    char base[1024];
    snprintf(base, sizeof base, "%s", dir_path);
    DIR *dir = opendir(base);
    CHECK(dir != NULL);
    struct dirent *entry;
    int files = 0;
    while (dir && (entry = readdir(dir)) != NULL) {
        /* invalid/malformed2.obj only names a missing material and holds an
         * empty face: both repairs, so it imports (check_repaired_files). */
        if (entry->d_name[0] == '.' || strcmp(entry->d_name, "malformed2.obj") == 0) {
            continue;
        }
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", base, entry->d_name);
        check_bad(path);
        files++;
    }
    if (dir) {
        closedir(dir);
    }
    printf("%s: %d bad files rejected cleanly\n", folder, files);
    CHECK(files > 0);
}

static void check_bad_inputs(void) {
    check_bad_folder("invalid");
    check_bad_folder("glTF2/wrongTypes");
    check_bad_folder("glTF2/IndexOutOfRange");
    check_bad_folder("glTF2/BoxWithInfinites-glTF-Binary");
    FILE *empty = fopen("empty.glb", "wb");
    if (empty) {
        fclose(empty);
    }
    check_bad("empty.glb");
    check_bad(".");
    check_bad("no_such_model.glb");
    const char *robot = check_shared_model("robot.glb");
    if (robot != NULL) {
        static unsigned char bytes[1 << 21];
        FILE *in = fopen(robot, "rb");
        size_t size = in ? fread(bytes, 1, sizeof bytes, in) : 0;
        if (in) {
            fclose(in);
        }
        FILE *out = fopen("truncated_robot.glb", "wb");
        if (out) {
            fwrite(bytes, 1, size / 2, out);
            fclose(out);
        }
        check_bad("truncated_robot.glb");
    }
}

static int json_int(const cJSON *object, const char *key) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? item->valueint : -1;
}

static void check_good(void) {
    const char *robot = check_shared_model("robot.glb");
    if (robot != NULL) {
        const cli_run *r = run(robot, "--joints", NULL);
        CHECK_MSG(r->exit_code == 0, "robot: exit %d: %s", r->exit_code, r->err);
        CHECK(strstr(r->out, "joints      43\n") != NULL);
        CHECK(strstr(r->out, "submeshes   19\n") != NULL);
        CHECK(strstr(r->out, "clips       14\n") != NULL);
        CHECK(strstr(r->out, "'Robot_Dance'") != NULL);
        /* Tree: Head is joint 7 at depth 6 (Bone Body Hips Abdomen Torso Neck Head). */
        CHECK(strstr(r->out, "\n              7 Head\n") != NULL);
        r = run(robot, "--json", NULL);
        cJSON *json = cJSON_Parse(r->out);
        CHECK_MSG(json != NULL, "robot --json is not JSON: %.200s", r->out);
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(json, "joints")) == 43);
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(json, "clips")) == 14);
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(json, "submeshes")) == 19);
        CHECK(json_int(json, "source_meshes") == 19);
        CHECK(json_int(json, "triangles") == 3238);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(json, "has_skin")));
        CHECK(json_int(cJSON_GetObjectItem(json, "repairs"), "influences_truncated") == 0);
        cJSON_Delete(json);
    }
    /* check_shared_model() returns a static buffer: copy before the next call. */
    char man_path[1200] = "", sword[1200];
    const char *man = check_shared_model("greenman.glb");
    if (man != NULL) {
        snprintf(man_path, sizeof man_path, "%s", man);
    }
    const char *sword_path = check_shared_model("greenman_sword.glb");
    if (man != NULL && sword_path != NULL) {
        snprintf(sword, sizeof sword, "socket_hand_R=%s", sword_path);
        const cli_run *r = run(man_path, "--attach", sword, "--json", NULL);
        CHECK_MSG(r->exit_code == 0, "attach: exit %d: %s", r->exit_code, r->err);
        cJSON *json = cJSON_Parse(r->out);
        /* greenman 196 + sword 88 vertices; 356 + 74 triangles; 1 + 1 materials. */
        CHECK(json && json_int(json, "vertices") == 196 + 88);
        CHECK(json && json_int(json, "triangles") == 356 + 74);
        CHECK(json && cJSON_GetArraySize(cJSON_GetObjectItem(json, "materials")) == 2);
        cJSON_Delete(json);
        snprintf(sword, sizeof sword, "socket_tail=%s", sword_path);
        r = run(man_path, "--attach", sword, NULL);
        CHECK(r->exit_code == 1 && cli_line_count(r->err) == 1 &&
              strstr(r->err, "crowd: error: ") == r->err && strstr(r->err, "socket_tail") != NULL);
        r = run(man_path, "--attach", "socket_hand_R", NULL);
        CHECK(r->exit_code == 1 && cli_line_count(r->err) == 1);
        r = run(sword_path, NULL);
        CHECK(r->exit_code == 0 && strstr(r->out, "skin        no") != NULL &&
              strstr(r->out, "joints      1\n") != NULL &&
              strstr(r->out, "clips       0 (no animation)") != NULL);
    }
    const cli_run *r = run("builtin:", NULL);
    CHECK_MSG(r->exit_code == 0, "builtin: exit %d: %s", r->exit_code, r->err);
    /* The built-in props are models too: rigid, one joint, no clips. */
    r = run("builtin:shield", NULL);
    CHECK_MSG(r->exit_code == 0 && strstr(r->out, "model       builtin:shield") != NULL &&
                  strstr(r->out, "joints      1\n") != NULL &&
                  strstr(r->out, "clips       0 (no animation)") != NULL,
              "builtin:shield: exit %d: %s%s", r->exit_code, r->out, r->err);
    r = run("builtin:axe", NULL);
    CHECK_MSG(r->exit_code == 2 && cli_line_count(r->err) == 1 &&
                  strstr(r->err, "crowd: error: builtin:axe: no such built-in model") != NULL,
              "builtin:axe: exit %d: %s", r->exit_code, r->err);
    r = run(NULL);
    CHECK(r->exit_code == 1);
    r = run("builtin:", "--frobnicate", NULL);
    CHECK(r->exit_code == 1 && strstr(r->err, "--frobnicate") != NULL);
    r = run("--help", NULL);
    CHECK(r->exit_code == 0 && strstr(r->out, "usage: crowd info") != NULL);
}

/* Files crowd used to refuse that import with their repairs listed: the
 * JSON count of the repair each needs, and its line in the text output. */
static void check_repaired_files(void) {
    static const struct {
        const char *file, *repair, *line;
    } cases[] = {
        {"OBJ/box.obj", "reader_warnings", "warnings of assimp's reader"},
        {"invalid/malformed2.obj", "reader_warnings", "warnings of assimp's reader"},
        {"FBX/boxWithCompressedCTypeArray.FBX", "reader_warnings", "warnings of assimp's reader"},
        {"FBX/boxWithUncompressedCTypeArray.FBX", "reader_warnings", "warnings of assimp's reader"},
        {"FBX/box_orphant_embedded_texture.fbx", "reader_warnings", "warnings of assimp's reader"},
        {"FBX/embedded_ascii/box_embedded_texture_fragmented.fbx", "reader_warnings",
         "warnings of assimp's reader"},
        {"FBX/global_settings.fbx", "reader_warnings", "warnings of assimp's reader"},
        {"X/anim_test.x", "bones_unbound", "bones naming no node"},
        {"Q3D/earth.q3o", "normals_generated", "not finite (generated)"},
        {"3DS/CameraRollAnim.3ds", "reader_warnings", "warnings of assimp's reader"},
        {"3DS/CameraRollAnimWithChildObject.3ds", "reader_warnings", "warnings of assimp's reader"},
        {"3DS/TargetCameraAnim.3ds", "reader_warnings", "warnings of assimp's reader"},
        {MINETEST_CHARACTER, "clips_extended", "clips with keys past the file's duration"},
        {"glTF2/draco/2CylinderEngine.gltf", "gltf_read_by_assimp",
         "glTF read by assimp: it requires an extension crowd's reader lacks"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char path[1200];
        if (cases[c].file[0] == '/') {
            /* minetest-data is one of the dependency script's packages. */
            CHECK_MSG(check_path_exists(cases[c].file),
                      "%s not found (minetest-data: scripts/install-deps.sh test)", cases[c].file);
            if (!check_path_exists(cases[c].file)) {
                continue;
            }
            snprintf(path, sizeof path, "%s", cases[c].file);
        } else {
            const char *found = check_assimp_model(cases[c].file);
            if (found == NULL) {
                continue;
            }
            snprintf(path, sizeof path, "%s", found);
        }
        const cli_run *r = run(path, "--json", NULL);
        cJSON *json = cJSON_Parse(r->out);
        int count = json_int(cJSON_GetObjectItem(json, "repairs"), cases[c].repair);
        CHECK_MSG(r->exit_code == 0 && count > 0, "%s: exit %d, %s %d: %s", cases[c].file,
                  r->exit_code, cases[c].repair, count, r->err);
        CHECK_MSG(strstr(r->err, "error") == NULL, "%s: %s", cases[c].file, r->err);
        cJSON_Delete(json);
        r = run(path, NULL);
        CHECK_MSG(r->exit_code == 0 && strstr(r->out, cases[c].line) != NULL,
                  "%s: no repair line '%s' in:\n%s", cases[c].file, cases[c].line, r->out);
    }
}

static double json_number(const cJSON *object, const char *key) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? item->valuedouble : -1.0;
}

/* animation_with_skeleton.fbx is in centimetres (UnitScaleFactor 1). */
static void check_scale(void) {
    const char *path = check_assimp_model("FBX/animation_with_skeleton.fbx");
    if (path == NULL) {
        return;
    }
    const cli_run *r = run(path, "--json", NULL);
    cJSON *json = cJSON_Parse(r->out);
    const cJSON *max = cJSON_GetObjectItem(cJSON_GetObjectItem(json, "bounds"), "max");
    CHECK(r->exit_code == 0 && fabs(json_number(json, "unit_scale") - 0.01) < 1e-7 &&
          json_int(cJSON_GetObjectItem(json, "repairs"), "units_converted") == 1 &&
          fabs(cJSON_GetArrayItem(max, 0)->valuedouble - 34.791) < 1e-3);
    cJSON_Delete(json);
    r = run(path, "--json", "--scale", "1", NULL);
    json = cJSON_Parse(r->out);
    max = cJSON_GetObjectItem(cJSON_GetObjectItem(json, "bounds"), "max");
    CHECK(r->exit_code == 0 && json_number(json, "unit_scale") == 1.0 &&
          json_int(cJSON_GetObjectItem(json, "repairs"), "units_converted") == 0 &&
          fabs(cJSON_GetArrayItem(max, 0)->valuedouble - 3479.13) < 0.1);
    cJSON_Delete(json);
    r = run(path, "--scale", "metres", NULL);
    CHECK(r->exit_code == 1 && cli_line_count(r->err) == 1);
    r = run(path, "--scale", "0", NULL);
    CHECK(r->exit_code == 1 && cli_line_count(r->err) == 1);
}

#ifndef CROWD_IMPORT_IN_PROCESS
/* The files in folder `dir`, one per line. */
static void list_folder(const char *dir, char *out, size_t size) {
    out[0] = '\0';
    DIR *d = opendir(dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] != '.') {
            size_t length = strlen(out);
            snprintf(out + length, size - length, "%s\n", e->d_name);
        }
    }
    if (d != NULL) {
        closedir(d);
    }
}

/* A helper made to crash or to send garbage, and a missing one: one error
 * line, exit 2, and `bake` leaves its output folder as it was. */
static void check_helper_failures(void) {
    const char *found = check_assimp_model("X/Testwuson.X");
    if (found == NULL) {
        return;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s", found);
    static const struct {
        const char *variable, *value, *says;
    } cases[] = {
        {"CROWD_IMPORT_HELPER_FAULT", "abort",
         "the X reader crashed on this file (signal 6, SIGABRT); nothing was written"},
        {"CROWD_IMPORT_HELPER_FAULT", "garbage", "the X reader's helper sent a malformed reply"},
        {"CROWD_IMPORT_HELPER", "/nonexistent/crowd-import-helper",
         "/nonexistent/crowd-import-helper"},
    };
    FILE *marker = fopen("marker.txt", "w");
    if (marker != NULL) {
        fputs("kept\n", marker);
        fclose(marker);
    }
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        /* Only the test build of the helper obeys CROWD_IMPORT_HELPER_FAULT. */
        bool fault = strcmp(cases[c].variable, "CROWD_IMPORT_HELPER_FAULT") == 0;
        if (fault) {
            setenv("CROWD_IMPORT_HELPER", CROWD_IMPORT_HELPER_FAULTS_PATH, 1);
        }
        setenv(cases[c].variable, cases[c].value, 1);
        const cli_run *r = run(path, NULL);
        CHECK_MSG(r->exit_code == 2 && cli_line_count(r->err) == 1 &&
                      strstr(r->err, cases[c].says) != NULL && r->out[0] == '\0',
                  "%s=%s: exit %d: %s", cases[c].variable, cases[c].value, r->exit_code, r->err);
        /* A folder that exists keeps what it held; one that does not stays absent. */
        if (!check_path_exists("kept")) {
            CHECK(mkdir("kept", 0755) == 0);
        }
        rename("marker.txt", "kept/marker.txt");
        const char *bake_kept[] = {"bake", path, "-o", "kept", NULL};
        cli_run_argv(bake_kept, NULL, NULL, &result);
        char listing[512];
        list_folder("kept", listing, sizeof listing);
        CHECK_MSG(result.exit_code == 2 && cli_line_count(result.err) == 1 &&
                      strstr(result.err, cases[c].says) != NULL &&
                      strcmp(listing, "marker.txt\n") == 0,
                  "bake with %s=%s: exit %d, folder holds '%s': %s", cases[c].variable,
                  cases[c].value, result.exit_code, listing, result.err);
        rename("kept/marker.txt", "marker.txt");
        const char *bake_new[] = {"bake", path, "-o", "fresh", NULL};
        cli_run_argv(bake_new, NULL, NULL, &result);
        CHECK_MSG(result.exit_code == 2 && !check_path_exists("fresh"),
                  "bake with %s=%s into a new folder: exit %d", cases[c].variable, cases[c].value,
                  result.exit_code);
        unsetenv(cases[c].variable);
        unsetenv("CROWD_IMPORT_HELPER");
    }
}

#endif

/* A bake folder: its clips, runtime clips and sockets (with the GPU bytes of
 * their socket tracks), as text and JSON; one whose
 * runtime clips file is cut short is one error line naming it. */
static void check_bake(void) {
    static cli_run baked;
    const char *bake[] = {"bake", "builtin:", "-o", "info_bake", "--quiet", "--lods", "0", NULL};
    cli_run_argv(bake, NULL, NULL, &baked);
    REQUIRE_VOID(baked.exit_code == 0);
    const cli_run *r = run("info_bake", NULL);
    CHECK_MSG(r->exit_code == 0, "info BAKE: exit %d: %s", r->exit_code, r->err);
    CHECK_MSG(strstr(r->out, "clips             5\n") != NULL &&
                  strstr(r->out, "runtime clips     5 clips, 75 tracks") != NULL &&
                  strstr(r->out, "error against the source 0 ") != NULL &&
                  strstr(r->out, "sockets           3\n  'socket_hand_R' on joint ") != NULL &&
                  strstr(r->out, "'socket_head' on joint ") != NULL &&
                  strstr(r->out, ", loop, ground speed 1.5") != NULL &&
                  strstr(r->out, "    socket track  ") != NULL,
              "%s", r->out);
    r = run("info_bake/builtin.crowd.json", "--json", NULL);
    cJSON *json = cJSON_Parse(r->out);
    const cJSON *runtime = cJSON_GetObjectItem(json, "runtime_clips");
    CHECK_MSG(json_int(runtime, "clip_count") == 5 && json_int(runtime, "size_bytes") > 0, "%.300s",
              r->out);
    /* Ground speeds from the runtime clips: idle stands, run outpaces walk. */
    const cJSON *clips = cJSON_GetObjectItem(json, "clips");
    double speed[5] = {-1, -1, -1, -1, -1};
    for (int c = 0; c < 5; c++) {
        const cJSON *g = cJSON_GetObjectItem(cJSON_GetArrayItem(clips, c), "ground_speed");
        speed[c] = cJSON_IsNumber(g) ? g->valuedouble : -1.0;
    }
    CHECK_MSG(speed[0] >= 0.0 && speed[0] < 0.01 && speed[1] > 1.0 && speed[2] > speed[1],
              "ground speeds idle %g, walk %g, run %g", speed[0], speed[1], speed[2]);
    CHECK(strstr(r->out, "\"ground_speed\"") != NULL);
    const cJSON *sockets = cJSON_GetObjectItem(json, "sockets");
    const cJSON *hand = cJSON_GetArrayItem(sockets, 0);
    const cJSON *hand_name = cJSON_GetObjectItem(hand, "name");
    CHECK_MSG(cJSON_GetArraySize(sockets) == 3 && cJSON_IsString(hand_name) &&
                  strcmp(hand_name->valuestring, "socket_hand_R") == 0 &&
                  json_int(hand, "joint") > 0 &&
                  cJSON_IsString(cJSON_GetObjectItem(hand, "joint_name")),
              "sockets: %.300s", r->out);
    /* A vat prop's socket track: 3 RGBA32F texels per baked frame, after
     * `joint` rows (crowd_prop_socket_track_bytes). */
    CHECK_MSG(json_int(hand, "socket_track_bytes") ==
                  48 * (json_int(json, "frame_count") + json_int(hand, "joint")),
              "socket track: %.300s", r->out);
    cJSON_Delete(json);
    CHECK(truncate("info_bake/builtin.1.anim.bin", 100) == 0);
    r = run("info_bake", NULL);
    CHECK_MSG(r->exit_code == 2 && cli_line_count(r->err) == 1 &&
                  strncmp(r->err, "crowd: error: info_bake/builtin.1.anim.bin: ", 44) == 0 &&
                  r->out[0] == '\0',
              "cut runtime clips: exit %d, stderr: %s", r->exit_code, r->err);
}

int main(void) {
    check_enter_temp_dir("test_cli_info");
    /* The CLI finds its import helper beside itself, as an installed one does. */
    unsetenv("CROWD_IMPORT_HELPER");
    check_bad_inputs();
    check_good();
    check_repaired_files();
    check_scale();
    check_bake();
#ifndef CROWD_IMPORT_IN_PROCESS
    check_helper_failures();
#endif
    return check_finish();
}
