/* test_bakeio_load - crowd_bake_load on broken bake folders.
 *
 * A valid folder is written, copied, and one thing is broken in the copy:
 * the manifest's syntax, version, members, types and numbers, each texture
 * (missing, truncated, garbage, other depth, size or pixel type, a NaN, a
 * value outside the stated range) and the mesh (truncated, garbage, bounds,
 * lookup, weights, joints), and version 2's LODs and clip bounds (their
 * ranges, counts and errors, the LOD meshes' vertices, texels, indices and
 * materials). Each must give the stated result code, an error
 * naming the broken file and a reason that says what is wrong; never a
 * crash (the sanitizer build runs this too).
 */
#define _GNU_SOURCE /* memmem */

#include <cjson/cJSON.h>
#include <png.h>

#include "check.h"
#include "bakeio_fixture.h"
#include "test_json.h"
#include "bake/atomic_set.h"
#include "bake/exr_io.h"

static char root[] = "/tmp/test_bakeio_load.XXXXXX";
static char good_png[1024], good_exr[1024];
static int case_number;

/* A fresh copy of a good folder for one case. */
static void copy_case(const char *good, char *out, size_t size) {
    snprintf(out, size, "%s/case%03d", root, ++case_number);
    fx_copy_folder(good, out);
}

/* Loads `dir` as it is; checks the result, that the error names a file
 * ending in `file` and that the reason contains `reason`. */
static void expect_load_as_is(const char *dir, crowd_result expected, const char *file,
                              const char *reason, const char *what) {
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_load(dir, NULL, &bake, &error);
    size_t file_length = strlen(error.file), want = strlen(file);
    bool names_file = file_length >= want && strcmp(error.file + file_length - want, file) == 0;
    printf("  %-24s %s: %s: %s\n", what, crowd_result_str(result),
           error.file + (strncmp(error.file, root, strlen(root)) == 0 ? strlen(root) + 1 : 0),
           error.reason);
    CHECK_MSG(
        result == expected && names_file && strstr(error.reason, reason) != NULL && bake == NULL,
        "%s: got %s, \"%s: %s\"; want %s naming %s with \"%s\"", what, crowd_result_str(result),
        error.file, error.reason, crowd_result_str(expected), file, reason);
    crowd_bake_destroy(bake);
}

/* As expect_load_as_is, after resealing the manifest's checksums (the
 * cases that break a file on purpose test the decoder behind them). */
static void expect_load(const char *dir, crowd_result expected, const char *file,
                        const char *reason, const char *what) {
    fx_reseal(dir, "synth.crowd.json");
    expect_load_as_is(dir, expected, file, reason, what);
}

/* ---- the manifest ------------------------------------------------------------------ */

typedef void (*json_edit)(cJSON *document);

static void edit_manifest(const char *dir, json_edit edit) {
    char path[1100];
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    cJSON *json = test_read_json(path);
    REQUIRE_VOID(json != NULL);
    edit(json);
    CHECK(test_write_json(path, json));
    cJSON_Delete(json);
}

static void manifest_case(const char *good, json_edit edit, crowd_result expected,
                          const char *reason, const char *what) {
    char dir[1100];
    copy_case(good, dir, sizeof dir);
    edit_manifest(dir, edit);
    expect_load_as_is(dir, expected, "synth.crowd.json", reason, what);
}

static cJSON *vat_of(cJSON *manifest) {
    return cJSON_GetObjectItemCaseSensitive(manifest, "vat");
}

static double number_of(const cJSON *object, const char *key) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? item->valuedouble : 0.0;
}

static void set_number(cJSON *object, const char *key, double value) {
    cJSON_ReplaceItemInObjectCaseSensitive(object, key, cJSON_CreateNumber(value));
}

static void edit_version(cJSON *r) {
    set_number(r, "version", 5);
}
static cJSON *first_clip(cJSON *r) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "clips"), 0);
}
static void edit_clip_frames(cJSON *r) {
    set_number(first_clip(r), "frame_count", 1);
    set_number(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "clips"), 1), "first_frame",
               1);
    set_number(r, "frame_count", 3);
}
static void edit_key_rate(cJSON *r) {
    set_number(first_clip(r), "key_rate", -24);
}
static void edit_no_between(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(first_clip(r), "between_error");
}
static void edit_within_budget(cJSON *r) {
    cJSON *between = cJSON_GetObjectItemCaseSensitive(first_clip(r), "between_error");
    cJSON_ReplaceItemInObjectCaseSensitive(between, "within_budget", cJSON_CreateNumber(1));
}
static void edit_budget(cJSON *r) {
    set_number(r, "between_error_budget", 0);
}
static void edit_legacy_no_fps(cJSON *r) {
    set_number(r, "version", 2);
}
static void edit_format(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(r, "format", cJSON_CreateString("gltf"));
}
static void edit_no_vertex_count(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(r, "vertex_count");
}
static void edit_fps_string(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(first_clip(r), "fps", cJSON_CreateString("30"));
}
static void edit_fps_zero(cJSON *r) {
    set_number(first_clip(r), "fps", 0);
}
static void edit_joints_fraction(cJSON *r) {
    set_number(r, "joint_count", 2.5);
}
static void edit_vat_height(cJSON *r) {
    set_number(vat_of(r), "height", number_of(vat_of(r), "height") + 1);
}
static void edit_rows_per_frame(cJSON *r) {
    set_number(vat_of(r), "rows_per_frame", 2);
}
static void edit_frame_count(cJSON *r) {
    set_number(r, "frame_count", 5);
}
static void edit_clip_gap(cJSON *r) {
    set_number(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "clips"), 1), "first_frame",
               3);
}
static void edit_clip_name(cJSON *r) {
    cJSON *clip = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "clips"), 1);
    cJSON_ReplaceItemInObjectCaseSensitive(clip, "name", cJSON_CreateString("walk"));
}
static void edit_clip_name_twice(cJSON *r) {
    cJSON *clip = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "clips"), 1);
    cJSON_AddItemToObject(clip, "name", cJSON_CreateString("run"));
}
static void edit_unknown_twice(cJSON *r) {
    cJSON *extra = cJSON_AddObjectToObject(r, "extras");
    cJSON_AddItemToObject(extra, "note", cJSON_CreateString("a"));
    cJSON_AddItemToObject(extra, "\x01note", cJSON_CreateString("b"));
    cJSON_AddItemToObject(extra, "\x01note", cJSON_CreateString("c"));
}
static void edit_clip_duration(cJSON *r) {
    set_number(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "clips"), 0), "duration_s",
               10.0);
}
static void edit_clip_loop(cJSON *r) {
    cJSON *clip = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "clips"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(clip, "loop", cJSON_CreateString("yes"));
}
static void edit_no_clips(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(r, "clips", cJSON_CreateArray());
}
static void edit_encoding(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(vat_of(r), "encoding", cJSON_CreateString("unorm8"));
}
static void edit_coordinates(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(r, "coordinate_system", cJSON_CreateString("blender"));
}
static void edit_escape(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(r, "mesh", cJSON_CreateString("../x.glb"));
}
static void edit_no_textures(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(r, "vat", cJSON_CreateNull());
    cJSON_ReplaceItemInObjectCaseSensitive(r, "bat", cJSON_CreateNull());
}
static void edit_bounds(cJSON *r) {
    cJSON *min =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "bounds"), "min");
    cJSON_ReplaceItemInArray(min, 1, cJSON_CreateNumber(5.0));
}
static void edit_bounds_short(cJSON *r) {
    cJSON *min =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "bounds"), "min");
    cJSON_DeleteItemFromArray(min, 2);
}
static void edit_range_min_above_max(cJSON *r) {
    cJSON *range = cJSON_GetObjectItemCaseSensitive(vat_of(r), "position_range");
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(range, "min"), 0,
                             cJSON_CreateNumber(70000));
}
static void edit_float_range_outside_bounds(cJSON *r) {
    cJSON *range = cJSON_GetObjectItemCaseSensitive(vat_of(r), "position_range");
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(range, "max"), 0,
                             cJSON_CreateNumber(3.0));
}

/* The good manifest's text with `insert` (`count` bytes) at `offset`
 * (SIZE_MAX: the end), which must be refused with `reason`. */
static void manifest_bytes_case(const char *good, size_t offset, const char *insert, size_t count,
                                const char *reason, const char *what) {
    char dir[1100], path[1200];
    copy_case(good, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    size_t size = 0;
    char *text = test_read_file(path, &size);
    offset = offset < size ? offset : size;
    char *edited = malloc(size + count);
    memcpy(edited, text, offset);
    memcpy(edited + offset, insert, count);
    memcpy(edited + offset + count, text + offset, size - offset);
    test_write_file(path, edited, size + count);
    free(edited);
    free(text);
    /* As is: resealing would write the manifest anew, without these bytes. */
    expect_load_as_is(dir, CROWD_ERROR_INVALID_DATA, "synth.crowd.json", reason, what);
}

/* What cJSON takes and a manifest must not hold (load/manifest_strict.h). */
static void test_manifest_bytes(const char *good) {
    manifest_bytes_case(good, 0, "\xEF\xBB\xBF", 3, "begins with a UTF-8 byte-order mark",
                        "UTF-8 BOM");
    manifest_bytes_case(good, 0, "\xFF\xFE", 2, "begins with a UTF-16 byte-order mark",
                        "UTF-16 BOM");
    /* After the closing brace cJSON stops reading; inside the text it ends
     * the document early (the good manifest starts "{\n"). */
    char path[1200];
    snprintf(path, sizeof path, "%s/synth.crowd.json", good);
    size_t size = 0;
    free(test_read_file(path, &size));
    char reason[64];
    snprintf(reason, sizeof reason, "NUL byte at offset %zu", size);
    manifest_bytes_case(good, SIZE_MAX, "\0", 1, reason, "NUL at the end");
    manifest_bytes_case(good, 1, "\0", 1, "NUL byte at offset 1", "NUL inside");
    snprintf(reason, sizeof reason, "more after the object, at byte %zu", size);
    manifest_bytes_case(good, SIZE_MAX, "{}", 2, reason, "a second object");
    static const char clips[] = "\"clips\": [], ";
    manifest_bytes_case(good, 1, clips, strlen(clips),
                        "duplicate key 'clips' in the top-level object", "top-level key twice");
}

static void test_manifests(void) {
    char dir[1100], path[1200];
    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    size_t size = 0;
    char *text = test_read_file(path, &size);
    test_write_file(path, text, size / 2);
    free(text);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.crowd.json", "not valid JSON",
                "truncated manifest");
    test_write_file(path, "[1, 2]", 6);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.crowd.json", "not a JSON object",
                "array manifest");
    test_write_file(path, "", 0);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.crowd.json", "not valid JSON",
                "empty manifest");

    test_manifest_bytes(good_png);
    manifest_case(good_png, edit_clip_name_twice, CROWD_ERROR_INVALID_DATA,
                  "duplicate key 'name' in clips[1]", "key twice");
    manifest_case(good_png, edit_unknown_twice, CROWD_ERROR_INVALID_DATA,
                  "duplicate key '?note' in extras", "unknown key twice");

    manifest_case(good_png, edit_version, CROWD_ERROR_UNSUPPORTED, "version 5", "unknown version");
    manifest_case(good_png, edit_clip_frames, CROWD_ERROR_INVALID_DATA,
                  "clips[0] has 1 frames, but 0.0333333 s at 30 fps has 2", "END frame count");
    manifest_case(good_png, edit_key_rate, CROWD_ERROR_INVALID_DATA, "clips[0].key_rate -24",
                  "key rate");
    manifest_case(good_png, edit_no_between, CROWD_ERROR_INVALID_DATA,
                  "clips[0].between_error is missing", "between error");
    manifest_case(good_png, edit_within_budget, CROWD_ERROR_INVALID_DATA,
                  "within_budget must be true or false", "within budget");
    manifest_case(good_png, edit_budget, CROWD_ERROR_INVALID_DATA, "between_error_budget 0",
                  "budget");
    manifest_case(good_png, edit_legacy_no_fps, CROWD_ERROR_INVALID_DATA, "fps is missing",
                  "version 2 without the root's fps");
    manifest_case(good_png, edit_format, CROWD_ERROR_INVALID_DATA, "not a crowd bake manifest",
                  "format");
    manifest_case(good_png, edit_no_vertex_count, CROWD_ERROR_INVALID_DATA,
                  "vertex_count is missing", "missing");
    manifest_case(good_png, edit_fps_string, CROWD_ERROR_INVALID_DATA,
                  "clips[0].fps must be a finite number", "type");
    manifest_case(good_png, edit_fps_zero, CROWD_ERROR_INVALID_DATA, "clips[0].fps 0", "fps range");
    manifest_case(good_png, edit_joints_fraction, CROWD_ERROR_INVALID_DATA,
                  "joint_count must be an integer", "fraction");
    manifest_case(good_png, edit_vat_height, CROWD_ERROR_INVALID_DATA, "vat.height", "height");
    manifest_case(good_png, edit_rows_per_frame, CROWD_ERROR_INVALID_DATA, "vat.rows_per_frame",
                  "rows");
    manifest_case(good_png, edit_frame_count, CROWD_ERROR_INVALID_DATA, "frame", "frame total");
    manifest_case(good_png, edit_clip_gap, CROWD_ERROR_INVALID_DATA, "clips[1].first_frame",
                  "stacking");
    manifest_case(good_png, edit_clip_name, CROWD_ERROR_INVALID_DATA,
                  "two clips are named \"walk\"", "names");
    manifest_case(good_png, edit_clip_duration, CROWD_ERROR_INVALID_DATA, "clips[0] has 2 frames",
                  "duration");
    manifest_case(good_png, edit_clip_loop, CROWD_ERROR_INVALID_DATA, "clips[0].loop", "loop type");
    manifest_case(good_png, edit_no_clips, CROWD_ERROR_INVALID_DATA, "clips must be", "no clips");
    manifest_case(good_png, edit_encoding, CROWD_ERROR_UNSUPPORTED, "unorm8", "encoding");
    manifest_case(good_png, edit_coordinates, CROWD_ERROR_UNSUPPORTED, "blender", "coordinates");
    manifest_case(good_png, edit_escape, CROWD_ERROR_INVALID_DATA, "plain file name",
                  "path escape");
    manifest_case(good_png, edit_no_textures, CROWD_ERROR_INVALID_DATA, "neither", "no textures");
    manifest_case(good_png, edit_bounds, CROWD_ERROR_INVALID_DATA, "bounds.min[1]", "bounds order");
    manifest_case(good_png, edit_bounds_short, CROWD_ERROR_INVALID_DATA,
                  "bounds.min must be an array of 3", "bounds");
    manifest_case(good_png, edit_range_min_above_max, CROWD_ERROR_INVALID_DATA, "position_range",
                  "range order");
    manifest_case(good_exr, edit_float_range_outside_bounds, CROWD_ERROR_INVALID_DATA,
                  "outside the bounds", "range");
}

/* ---- events ------------------------------------------------------------------------ */

static cJSON *events_of(cJSON *r) {
    return cJSON_GetObjectItemCaseSensitive(first_clip(r), "events");
}
static cJSON *first_event(cJSON *r) {
    return cJSON_GetArrayItem(events_of(r), 0);
}
static void edit_events_object(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(first_clip(r), "events", cJSON_CreateObject());
}
static void edit_event_number(cJSON *r) {
    cJSON_ReplaceItemInArray(events_of(r), 0, cJSON_CreateNumber(1));
}
static void edit_event_no_name(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(first_event(r), "name");
}
static void edit_event_time_string(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(first_event(r), "time_s", cJSON_CreateString("0"));
}
static void edit_event_outside(cJSON *r) {
    set_number(cJSON_GetArrayItem(events_of(r), 1), "time_s", 0.5);
}
static void edit_event_negative(cJSON *r) {
    set_number(first_event(r), "time_s", -0.25);
}
static void edit_event_empty_name(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(first_event(r), "name", cJSON_CreateString(""));
}
static void edit_event_control(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(first_event(r), "name", cJSON_CreateString("a\tb"));
}
static void edit_event_order(cJSON *r) {
    set_number(first_event(r), "time_s", 0.03);
}

/* crowd_bake_add_event refuses what breaks a rule and changes nothing. */
static void expect_refused(crowd_bake *bake, const char *clip, float time_s, const char *name,
                           crowd_result expected, const char *reason) {
    uint32_t before = bake != NULL ? bake->event_count : 0;
    crowd_error error = {0};
    crowd_result result = crowd_bake_add_event(bake, clip, time_s, name, &error);
    CHECK_MSG(result == expected && strstr(error.reason, reason) != NULL &&
                  (bake == NULL || bake->event_count == before),
              "event %s at %g: %s \"%s\"", name != NULL ? name : "NULL", (double)time_s,
              crowd_result_str(result), error.reason);
}

/* Events go through the manifest unchanged (clips[i].events, time order),
 * and a manifest whose events break a rule is refused by name. */
static void test_events(const crowd_asset *asset) {
    fx_bake_options options = {24, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 41};
    crowd_bake *bake = fx_bake_create(asset, &options);
    REQUIRE_VOID(bake != NULL);
    const float d = 1.0f / 30.0f;
    CHECK(crowd_bake_add_event(bake, "walk", 0.02f, "step_r", NULL) == CROWD_OK);
    CHECK(crowd_bake_add_event(bake, "wave", d, "release", NULL) == CROWD_OK);
    CHECK(crowd_bake_add_event(bake, "walk", 0.0f, "step_l", NULL) == CROWD_OK);
    CHECK(crowd_bake_add_event(bake, "walk", 0.02f, "dust", NULL) == CROWD_OK);
    expect_refused(bake, "run", 0.0f, "x", CROWD_ERROR_INVALID_ARGUMENT, "no clip \"run\"");
    expect_refused(bake, "walk", 0.05f, "x", CROWD_ERROR_INVALID_ARGUMENT, "lies outside clip");
    expect_refused(bake, "walk", -0.01f, "x", CROWD_ERROR_INVALID_ARGUMENT, "lies outside clip");
    expect_refused(bake, "walk", NAN, "x", CROWD_ERROR_INVALID_ARGUMENT, "lies outside clip");
    expect_refused(bake, "walk", 0.0f, "", CROWD_ERROR_INVALID_ARGUMENT, "1 to 64 bytes");
    expect_refused(bake, "walk", 0.0f, "a\nb", CROWD_ERROR_INVALID_ARGUMENT, "control");
    char long_name[80];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    expect_refused(bake, "walk", 0.0f, long_name, CROWD_ERROR_INVALID_ARGUMENT, "1 to 64 bytes");
    expect_refused(bake, "walk", 0.0f, NULL, CROWD_ERROR_INVALID_ARGUMENT, "NULL");
    expect_refused(NULL, "walk", 0.0f, "x", CROWD_ERROR_INVALID_ARGUMENT, "NULL");
    /* Sorted by clip and time, equal times in the order added. */
    const char *order[] = {"step_l", "step_r", "dust", "release"};
    REQUIRE_VOID(bake->event_count == 4);
    for (int i = 0; i < 4; i++) {
        CHECK_MSG(strcmp(bake->events[i].name, order[i]) == 0, "event %d is %s", i,
                  bake->events[i].name);
    }
    uint32_t count = 0;
    const crowd_bake_event *wave = crowd_bake_clip_events(bake, 1, &count);
    CHECK(count == 1 && wave == &bake->events[3] && wave->time_s == d);
    CHECK(crowd_bake_clip_events(bake, 2, &count) == NULL && count == 0);

    char dir[1100];
    snprintf(dir, sizeof dir, "%s/good_events", root);
    REQUIRE_VOID(fx_written(bake, dir, NULL));
    crowd_bake *loaded = NULL;
    crowd_error error = {0};
    CHECK(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK);
    if (loaded != NULL) {
        CHECK(loaded->event_count == 4);
        for (uint32_t i = 0; i < loaded->event_count && i < 4; i++) {
            CHECK(strcmp(loaded->events[i].name, bake->events[i].name) == 0 &&
                  loaded->events[i].time_s == bake->events[i].time_s &&
                  loaded->events[i].clip == bake->events[i].clip);
        }
    }
    crowd_bake_destroy(loaded);
    crowd_bake_destroy(bake);

    manifest_case(dir, edit_events_object, CROWD_ERROR_INVALID_DATA,
                  "clips[0].events must be an array", "events not an array");
    manifest_case(dir, edit_event_number, CROWD_ERROR_INVALID_DATA,
                  "clips[0].events[0] must be an object", "event not an object");
    manifest_case(dir, edit_event_no_name, CROWD_ERROR_INVALID_DATA,
                  "clips[0].events[0].name is missing", "event without a name");
    manifest_case(dir, edit_event_time_string, CROWD_ERROR_INVALID_DATA,
                  "clips[0].events[0].time_s must be a finite number", "event time type");
    manifest_case(dir, edit_event_outside, CROWD_ERROR_INVALID_DATA,
                  "clips[0].events[1]: event \"step_r\" at 0.5 s lies outside clip \"walk\"",
                  "event outside its clip");
    manifest_case(dir, edit_event_negative, CROWD_ERROR_INVALID_DATA, "lies outside clip",
                  "event before its clip");
    manifest_case(dir, edit_event_empty_name, CROWD_ERROR_INVALID_DATA, "1 to 64 bytes",
                  "event name empty");
    manifest_case(dir, edit_event_control, CROWD_ERROR_INVALID_DATA, "control character",
                  "event name control");
    manifest_case(dir, edit_event_order, CROWD_ERROR_INVALID_DATA,
                  "clips[0].events[1].time_s 0.02 is before the event before it", "event order");
}

/* ---- textures ---------------------------------------------------------------------- */

static void truncate_file(const char *path, double fraction) {
    size_t size = 0;
    char *data = test_read_file(path, &size);
    test_write_file(path, data, (size_t)((double)size * fraction));
    free(data);
}

/* Writes a PNG of the given size and depth (RGBA, any content). */
static void write_png(const char *path, uint32_t width, uint32_t height, bool sixteen) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = sixteen ? PNG_FORMAT_LINEAR_RGB_ALPHA : PNG_FORMAT_RGBA;
    size_t bytes = PNG_IMAGE_SIZE(image);
    void *pixels = calloc(1, bytes);
    png_image_write_to_file(&image, path, 0, pixels, 0, NULL);
    free(pixels);
}

/* Writes `texture` as the bake's EXR writer would, over `path`. */
static void write_exr(const char *dir, const char *name, const crowd_texture *texture) {
    atomic_set *set = NULL;
    atomic_file *file = NULL;
    crowd_error error = {0};
    bool ok = crowd__atomic_set_begin(dir, &set, &error) == CROWD_OK &&
              crowd__atomic_set_add(set, name, &file, &error) == CROWD_OK &&
              crowd__exr_write_rgba(file, texture, &error) == CROWD_OK &&
              crowd__atomic_file_finish(file, &error) == CROWD_OK;
    CHECK_MSG(ok, "writing %s: %s", name, error.reason);
    if (ok) {
        crowd__atomic_set_commit(set, &error);
    } else {
        crowd__atomic_set_abort(set);
    }
}

/* The good BAT EXR with `count` bytes at the first `find` (`find_length`
 * bytes) plus `skip` replaced by `bytes`, then cut to `keep` bytes (0: all);
 * the load must fail naming the EXR in printable ASCII only, with `reason`. */
static void exr_header_case(const char *find, size_t find_length, size_t skip, const void *bytes,
                            size_t count, size_t keep, crowd_result expected, const char *reason,
                            const char *what) {
    char dir[1100], path[1200];
    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.bat.exr", dir);
    size_t size = 0;
    uint8_t *data = (uint8_t *)test_read_file(path, &size);
    uint8_t *at = memmem(data, size, find, find_length);
    CHECK_MSG(at != NULL && (size_t)(at - data) + skip + count <= size, "%s: no '%s' in the EXR",
              what, find);
    if (at != NULL && (size_t)(at - data) + skip + count <= size) {
        memcpy(at + skip, bytes, count);
        test_write_file(path, data, keep > 0 && keep < size ? keep : size);
        expect_load(dir, expected, "synth.1.bat.exr", reason, what);
        crowd_bake *bake = NULL;
        crowd_error error = {0};
        crowd_bake_load(dir, NULL, &bake, &error);
        bool printable = true;
        for (const char *c = error.reason; *c != '\0'; c++) {
            printable = printable && *c >= 0x20 && *c <= 0x7E;
        }
        CHECK_MSG(printable, "%s: the reason holds bytes that are not printable ASCII", what);
        crowd_bake_destroy(bake);
    }
    free(data);
}

/* Headers OpenEXR's core library or crowd's checks refuse, several with
 * bytes that are no text where a name is expected. */
static void test_exr_headers(void) {
    static const char magic[] = "v/1\x01";
    exr_header_case(magic, 4, 0, "v/1\x02", 4, 0, CROWD_ERROR_INVALID_DATA, "not a readable EXR",
                    "EXR magic");
    exr_header_case(magic, 4, 0, "v/1\x01", 4, 60, CROWD_ERROR_INVALID_DATA, "not a readable EXR",
                    "EXR header cut");
    /* Channel "A" (the first of the sorted list) renamed to a byte that is no text. */
    static const char channels[] = "channels\0chlist\0";
    size_t first = sizeof channels - 1 + 4;
    exr_header_case(channels, sizeof channels - 1, first, "\xC3", 1, 0, CROWD_ERROR_INVALID_DATA,
                    "EXR channel '\\xC3' is not one of R, G, B, A", "EXR channel name byte");
    exr_header_case(channels, sizeof channels - 1, first, "Z", 1, 0, CROWD_ERROR_INVALID_DATA,
                    "EXR channel 'Z' is not one of R, G, B, A", "EXR channel Z");
    static const uint8_t uint_type[4] = {0, 0, 0, 0}, bad_type[4] = {7, 0, 0, 0};
    exr_header_case(channels, sizeof channels - 1, first + 2, uint_type, 4, 0,
                    CROWD_ERROR_INVALID_DATA, "is uint", "EXR channel type uint");
    exr_header_case(channels, sizeof channels - 1, first + 2, bad_type, 4, 0,
                    CROWD_ERROR_INVALID_DATA, "Invalid pixel type specified (7)",
                    "EXR channel type 7");
    /* dataWindow's max.x: 2^31 - 1 texels wide. */
    static const char window[] = "dataWindow\0box2i\0";
    static const uint8_t wide[4] = {0xFF, 0xFF, 0xFF, 0x7F};
    exr_header_case(window, sizeof window - 1, sizeof window - 1 + 4 + 8, wide, 4, 0,
                    CROWD_ERROR_INVALID_DATA, "Invalid data window (0, 0 - 2147483647, 3)",
                    "EXR absurd width");
    /* The type of a required attribute, and an attribute's name, as bytes that are no text. */
    static const char order[] = "lineOrder\0lineOrder\0";
    exr_header_case(order, sizeof order - 1, 10, "\xFF\xFE\x01", 3, 0, CROWD_ERROR_INVALID_DATA,
                    "Invalid type '\\xFF\\xFE\\x01eOrder'", "EXR attribute type bytes");
    exr_header_case(order, sizeof order - 1, 0, "\xFF\x01\x7F", 3, 0, CROWD_ERROR_INVALID_DATA,
                    "'lineOrder' attribute not found", "EXR attribute name bytes");
}

static void test_textures(const crowd_bake *bake) {
    char dir[1100], path[1200];
    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.vat.png", dir);
    unlink(path);
    expect_load(dir, CROWD_ERROR_IO, "synth.1.vat.png", "missing", "missing PNG");
    mkdir(path, 0755);
    expect_load(dir, CROWD_ERROR_IO, "synth.1.vat.png", "not a regular file", "folder for a PNG");

    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.vat.png", dir);
    truncate_file(path, 0.6);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.vat.png", "truncated", "truncated PNG");
    truncate_file(path, 0.01);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.vat.png", "PNG", "PNG cut in the header");
    test_write_file(path, "GIF89a garbage garbage", 22);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.vat.png", "not a PNG file", "garbage PNG");
    write_png(path, bake->vat_position.width, bake->vat_position.height, false);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.vat.png", "8-bit", "8-bit PNG");
    write_png(path, bake->vat_position.width + 1, bake->vat_position.height, true);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.vat.png", "the manifest says", "PNG size");
    write_png(path, bake->vat_position.width, bake->vat_position.height, true);
    /* all-zero codes: valid, but outside the stated minimum of each channel */
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.vat.png", "outside the manifest's range",
                "PNG range");

    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.bat.exr", dir);
    truncate_file(path, 0.7);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.bat.exr", "EXR", "truncated EXR");
    truncate_file(path, 0.05);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.bat.exr", "EXR", "EXR cut in the header");
    test_write_file(path, "not an exr at all", 17);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.bat.exr", "not a readable EXR",
                "garbage EXR");

    /* a NaN, and the same texels as half floats where the manifest says f32 */
    crowd_texture copy = bake->bat;
    size_t count = (size_t)copy.width * copy.height * 4;
    float *texels = malloc(count * sizeof *texels);
    memcpy(texels, bake->bat.texels, count * sizeof *texels);
    texels[7] = NAN;
    copy.texels = texels;
    write_exr(dir, "synth.1.bat.exr", &copy);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.bat.exr", "is nan", "NaN in EXR");
    uint16_t *halves = malloc(count * sizeof *halves);
    for (size_t i = 0; i < count; i++) {
        halves[i] = crowd__bake_half_from_float(((const float *)bake->bat.texels)[i]);
    }
    copy.texels = halves;
    copy.format = CROWD_TEXEL_RGBA16F;
    write_exr(dir, "synth.1.bat.exr", &copy);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.bat.exr", "half", "half EXR for f32");
    copy.width = bake->bat.width - 1;
    write_exr(dir, "synth.1.bat.exr", &copy);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.bat.exr", "the manifest says", "EXR size");
    free(texels);
    free(halves);

    copy_case(good_exr, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.vat_normal.exr", dir);
    unlink(path);
    expect_load(dir, CROWD_ERROR_IO, "synth.1.vat_normal.exr", "missing", "missing normal EXR");
}

/* ---- the mesh ---------------------------------------------------------------------- */

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t value) {
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(value >> (8 * i));
    }
}

/* Rewrites the JSON chunk of a .glb through `edit`, keeping the BIN chunk. */
static void edit_glb(const char *path, json_edit edit) {
    size_t size = 0;
    uint8_t *data = (uint8_t *)test_read_file(path, &size);
    uint32_t json_length = le32(data + 12);
    cJSON *json = cJSON_ParseWithLength((const char *)data + 20, json_length);
    edit(json);
    char *text = cJSON_PrintUnformatted(json);
    size_t text_length = strlen(text), padded = (text_length + 3) & ~(size_t)3;
    size_t bin_size = size - 20 - json_length;
    size_t total = 20 + padded + bin_size;
    uint8_t *out = malloc(total);
    memcpy(out, data, 12);
    put32(out + 8, (uint32_t)total);
    put32(out + 12, (uint32_t)padded);
    put32(out + 16, 0x4E4F534A);
    memcpy(out + 20, text, text_length);
    memset(out + 20 + text_length, ' ', padded - text_length);
    memcpy(out + 20 + padded, data + 20 + json_length, bin_size);
    test_write_file(path, out, total);
    free(out);
    cJSON_free(text);
    cJSON_Delete(json);
    free(data);
}

/* Byte offset in the file of the first element of attribute `name` (or,
 * for "indices", the index accessor) of primitive 0 of mesh `mesh`. */
static size_t accessor_offset(const char *path, int mesh, const char *name) {
    size_t size = 0;
    uint8_t *data = (uint8_t *)test_read_file(path, &size);
    uint32_t json_length = le32(data + 12);
    cJSON *json = cJSON_ParseWithLength((const char *)data + 20, json_length);
    cJSON *primitive = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "meshes"), mesh),
            "primitives"),
        0);
    const cJSON *holder = strcmp(name, "indices") == 0
                              ? primitive
                              : cJSON_GetObjectItemCaseSensitive(primitive, "attributes");
    int accessor = cJSON_GetObjectItemCaseSensitive(holder, name)->valueint;
    cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "accessors"), accessor);
    cJSON *view = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "bufferViews"),
                                     cJSON_GetObjectItemCaseSensitive(a, "bufferView")->valueint);
    const cJSON *inner = cJSON_GetObjectItemCaseSensitive(a, "byteOffset");
    size_t offset = 20 + json_length + 8 +
                    (size_t)cJSON_GetObjectItemCaseSensitive(view, "byteOffset")->valuedouble +
                    (inner != NULL ? (size_t)inner->valuedouble : 0);
    cJSON_Delete(json);
    free(data);
    return offset;
}

static size_t attribute_offset(const char *path, const char *name) {
    return accessor_offset(path, 0, name);
}

static void patch_bytes(const char *path, size_t offset, const void *bytes, size_t count) {
    size_t size = 0;
    char *data = test_read_file(path, &size);
    memcpy(data + offset, bytes, count);
    test_write_file(path, data, size);
    free(data);
}

static cJSON *accessor_of(cJSON *r, int index) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "accessors"), index);
}
static void glb_count_beyond(cJSON *r) {
    set_number(accessor_of(r, 0), "count", 100000);
}
static void glb_component_type(cJSON *r) {
    set_number(accessor_of(r, 1), "componentType", 5121);
}
static void glb_element_type(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(accessor_of(r, 0), "type", cJSON_CreateString("VEC2"));
}
static void glb_view_missing(cJSON *r) {
    set_number(accessor_of(r, 0), "bufferView", 999);
}
static void glb_uv1_is_uv0(cJSON *r) {
    cJSON *attributes = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "meshes"), 0), "primitives"),
            0),
        "attributes");
    cJSON_ReplaceItemInObjectCaseSensitive(
        attributes, "TEXCOORD_1",
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(attributes, "TEXCOORD_0"), true));
    /* the second primitive must share the vertex buffer; give it the same */
    cJSON *second = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "meshes"), 0), "primitives"),
        1);
    cJSON_ReplaceItemInObjectCaseSensitive(second, "attributes", cJSON_Duplicate(attributes, true));
}
static void glb_no_skin(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(r, "skins");
}
static void glb_joint_cycle(cJSON *r) {
    /* joint 2 (node 4) made the parent of joint 0 (node 2): node 2 gets a second parent */
    cJSON *node = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "nodes"), 4);
    cJSON *children = cJSON_CreateArray();
    cJSON_AddItemToArray(children, cJSON_CreateNumber(2));
    cJSON_AddItemToObject(node, "children", children);
}
static void glb_sparse(cJSON *r) {
    cJSON_AddItemToObject(accessor_of(r, 0), "sparse", cJSON_CreateObject());
}
static void glb_external_buffer(cJSON *r) {
    cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "buffers"), 0),
                          "uri", cJSON_CreateString("synth.bin"));
}

static void mesh_json_case(json_edit edit, crowd_result expected, const char *reason,
                           const char *what) {
    char dir[1100], path[1200];
    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    edit_glb(path, edit);
    expect_load(dir, expected, "synth.1.mesh.glb", reason, what);
}

static void test_mesh(void) {
    char dir[1100], path[1200];
    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    truncate_file(path, 0.8);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.mesh.glb", "truncated", "truncated mesh");
    truncate_file(path, 0.001);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.mesh.glb", "not a binary glTF",
                "mesh cut in the header");
    test_write_file(path, "this is no binary glTF, just some text..", 40);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.mesh.glb", "not a binary glTF",
                "garbage mesh");

    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    uint8_t version[4] = {1, 0, 0, 0};
    patch_bytes(path, 4, version, 4);
    expect_load(dir, CROWD_ERROR_UNSUPPORTED, "synth.1.mesh.glb", "version 1", "glTF 1");

    mesh_json_case(glb_count_beyond, CROWD_ERROR_INVALID_DATA, "reaches beyond", "accessor bounds");
    mesh_json_case(glb_component_type, CROWD_ERROR_UNSUPPORTED, "not float", "component type");
    mesh_json_case(glb_element_type, CROWD_ERROR_INVALID_DATA, "is not a VEC3", "element type");
    mesh_json_case(glb_view_missing, CROWD_ERROR_INVALID_DATA, "does not exist",
                   "missing bufferView");
    mesh_json_case(glb_uv1_is_uv0, CROWD_ERROR_INVALID_DATA, "TEXCOORD_1 of vertex 0", "lookup");
    mesh_json_case(glb_no_skin, CROWD_ERROR_INVALID_DATA, "exactly one skin", "no skin");
    mesh_json_case(glb_joint_cycle, CROWD_ERROR_INVALID_DATA, "second parent", "node graph");
    mesh_json_case(glb_sparse, CROWD_ERROR_UNSUPPORTED, "sparse", "sparse accessor");
    mesh_json_case(glb_external_buffer, CROWD_ERROR_UNSUPPORTED, "external file",
                   "external buffer");

    /* the data itself: weights that do not sum to 1, a joint index past the skeleton */
    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    float weight = 0.5f;
    patch_bytes(path, attribute_offset(path, "WEIGHTS_0"), &weight, sizeof weight);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.mesh.glb", "weights", "weights");
    copy_case(good_png, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    uint16_t joint = 7;
    patch_bytes(path, attribute_offset(path, "JOINTS_0"), &joint, sizeof joint);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.mesh.glb", "joint", "joint index");
}

static void edit_vertex_count(cJSON *r) {
    double count = number_of(r, "vertex_count") - 1;
    set_number(r, "vertex_count", count);
    set_number(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "lods"), 0), "vertex_count",
               count);
}

/* ---- LODs and clip bounds (version 2) ------------------------------------------------- */

static char good_lods[1024];

static cJSON *lod_of(cJSON *r, int k) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "lods"), k);
}
static cJSON *clip_bounds_of(cJSON *r, int c) {
    return cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "clips"), c), "bounds");
}
static void edit_no_lods(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(r, "lods");
}
static void edit_lods_object(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(r, "lods", cJSON_CreateObject());
}
static void edit_lods_nine(cJSON *r) {
    cJSON *lods = cJSON_GetObjectItemCaseSensitive(r, "lods");
    while (cJSON_GetArraySize(lods) < 9) {
        cJSON_AddItemToArray(lods, cJSON_Duplicate(cJSON_GetArrayItem(lods, 1), true));
    }
}
static void edit_lod0_first_vertex(cJSON *r) {
    set_number(lod_of(r, 0), "first_vertex", 1);
}
static void edit_lod_gap(cJSON *r) {
    set_number(lod_of(r, 2), "first_vertex", number_of(lod_of(r, 2), "first_vertex") + 1);
}
static void edit_lod_not_fewer(cJSON *r) {
    double triangles = number_of(lod_of(r, 1), "triangle_count");
    set_number(lod_of(r, 2), "triangle_count", triangles);
    set_number(lod_of(r, 2), "index_count", 3 * triangles);
}
static void edit_lod_index_count(cJSON *r) {
    set_number(lod_of(r, 1), "index_count", number_of(lod_of(r, 1), "index_count") + 3);
}
static void edit_lod_vertices(cJSON *r) {
    set_number(lod_of(r, 1), "vertex_count", 25);
}
static void edit_lod_error_negative(cJSON *r) {
    set_number(lod_of(r, 1), "error", -0.5);
}
static void edit_lod_error_string(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(lod_of(r, 1), "error_rel", cJSON_CreateString("nan"));
}
static void edit_lod0_indices(cJSON *r) {
    double triangles = number_of(lod_of(r, 0), "triangle_count") - 1;
    set_number(lod_of(r, 0), "triangle_count", triangles);
    set_number(lod_of(r, 0), "index_count", 3 * triangles);
}
static void edit_lods_fewer(cJSON *r) {
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(r, "lods"), 3);
}
static void edit_clip_no_bounds(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "clips"), 0), "bounds");
}
static void edit_clip_radius(cJSON *r) {
    set_number(clip_bounds_of(r, 1), "radius", -1);
}
static void edit_clip_order(cJSON *r) {
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(clip_bounds_of(r, 1), "min"), 0,
                             cJSON_CreateNumber(2.0));
}
static void edit_clip_outside(cJSON *r) {
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(clip_bounds_of(r, 1), "max"), 2,
                             cJSON_CreateNumber(4.0));
}
static void edit_clip_centre_short(cJSON *r) {
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(clip_bounds_of(r, 0), "center"), 2);
}

static cJSON *lod_primitive_of(cJSON *r, int mesh) {
    return cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "meshes"), mesh), "primitives"),
        0);
}
static void glb_lod_material(cJSON *r) {
    set_number(lod_primitive_of(r, 1), "material", 7);
}
static void glb_lod_no_source(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(lod_primitive_of(r, 2), "attributes"), "_SOURCE_VERTEX");
}
static void glb_lod_mesh_gone(cJSON *r) {
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(r, "meshes"), 3);
}

static void lod_manifest_case(json_edit edit, crowd_result expected, const char *file,
                              const char *reason, const char *what) {
    char dir[1100];
    copy_case(good_lods, dir, sizeof dir);
    edit_manifest(dir, edit);
    expect_load(dir, expected, file, reason, what);
}

static void lod_glb_case(json_edit edit, const char *reason, const char *what) {
    char dir[1100], path[1200];
    copy_case(good_lods, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    edit_glb(path, edit);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.mesh.glb", reason, what);
}

/* One value of mesh `mesh`'s accessor `name` (primitive 0) overwritten. */
static void lod_patch_case(int mesh, const char *name, const void *bytes, size_t count,
                           const char *reason, const char *what) {
    char dir[1100], path[1200];
    copy_case(good_lods, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    patch_bytes(path, accessor_offset(path, mesh, name), bytes, count);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.mesh.glb", reason, what);
}

static void test_lods(void) {
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    CHECK(crowd_bake_load(good_lods, NULL, &bake, &error) == CROWD_OK && bake->lod_count == 4);
    crowd_bake_destroy(bake);
    const crowd_result bad = CROWD_ERROR_INVALID_DATA;
    const char *json = "synth.crowd.json", *glb = "synth.1.mesh.glb";
    lod_manifest_case(edit_no_lods, bad, json, "lods is missing", "no lods");
    lod_manifest_case(edit_lods_object, bad, json, "lods must be an array", "lods type");
    lod_manifest_case(edit_lods_nine, bad, json, "1 to 8 LODs", "nine lods");
    lod_manifest_case(edit_lod0_first_vertex, bad, json, "lods[0] is the whole mesh", "lod 0");
    lod_manifest_case(edit_lod_gap, bad, json, "lods[2] starts at", "lod ranges");
    lod_manifest_case(edit_lod_not_fewer, bad, json, "not fewer than", "lod triangles");
    lod_manifest_case(edit_lod_index_count, bad, json, "not 3 x triangle_count", "lod indices");
    lod_manifest_case(edit_lod_vertices, bad, json, "lods[1].vertex_count must be", "lod vertices");
    lod_manifest_case(edit_lod_error_negative, bad, json, "lods[1].error is negative", "error");
    lod_manifest_case(edit_lod_error_string, bad, json, "lods[1].error_rel must be a finite",
                      "error type");
    lod_manifest_case(edit_lod0_indices, bad, glb, "the manifest's lods[0] says", "lod 0 indices");
    lod_manifest_case(edit_lods_fewer, bad, glb, "the manifest's LODs make 3", "lod meshes");
    lod_manifest_case(edit_clip_no_bounds, bad, json, "clips[0].bounds is missing", "clip bounds");
    lod_manifest_case(edit_clip_radius, bad, json, "clips[1].bounds.radius is negative", "radius");
    lod_manifest_case(edit_clip_order, bad, json, "clips[1].bounds.min[0] is above", "clip order");
    lod_manifest_case(edit_clip_outside, bad, json, "outside the bake's bounds", "clip outside");
    lod_manifest_case(edit_clip_centre_short, bad, json, "center must be an array of 3",
                      "clip centre");

    lod_glb_case(glb_lod_material, "a LOD primitive uses material 7", "lod material");
    lod_glb_case(glb_lod_no_source, "no '_SOURCE_VERTEX'", "no source");
    lod_glb_case(glb_lod_mesh_gone, "the file holds 3 meshes", "lod mesh missing");
    const float far = 1000.0f, half = 0.5f, off = 0.75f;
    lod_patch_case(1, "_SOURCE_VERTEX", &far, sizeof far, "_SOURCE_VERTEX 0 is 1000",
                   "source range");
    lod_patch_case(2, "_SOURCE_VERTEX", &half, sizeof half, "_SOURCE_VERTEX 0 is 0.5",
                   "source fraction");
    lod_patch_case(1, "TEXCOORD_1", &off, sizeof off, "TEXCOORD_1 of LOD 1 vertex 0", "lod texel");
    const uint32_t beyond = 999;
    lod_patch_case(3, "indices", &beyond, sizeof beyond, "LOD mesh 3 index 0 is 999", "lod index");
}

/* ---- sizes and checksums (version 3) ---------------------------------------------------- */

/* Flips `count` bytes of dir/name from `offset` on. */
static void corrupt(const char *dir, const char *name, size_t offset, size_t count) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t size = 0;
    unsigned char *bytes = (unsigned char *)test_read_file(path, &size);
    for (size_t i = offset; i < offset + count && i < size; i++) {
        bytes[i] ^= 0x5a;
    }
    test_write_file(path, bytes, size);
    free(bytes);
}

/* Where the binary chunk's data of a GLB starts: after the 12-byte header
 * and the JSON chunk (8-byte chunk header + its length). */
static size_t glb_bin_offset(const char *dir, const char *name) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t size = 0;
    unsigned char *bytes = (unsigned char *)test_read_file(path, &size);
    uint32_t json_length = 0;
    memcpy(&json_length, bytes + 12, 4);
    free(bytes);
    return 12 + 8 + (size_t)json_length + 8;
}

/* Version 2: no checksums, one fps at the root (every fixture clip's). */
static void edit_to_version2(cJSON *r) {
    set_number(r, "version", 2);
    cJSON_AddNumberToObject(r, "fps", 30);
    cJSON_DeleteItemFromObjectCaseSensitive(r, "files");
}
static void edit_no_files(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(r, "files");
}
static void edit_files_without_mesh(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "files"),
                                            "synth.1.mesh.glb");
}
static void edit_crc_string(cJSON *r) {
    cJSON *mesh = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "files"),
                                                   "synth.1.mesh.glb");
    cJSON_ReplaceItemInObjectCaseSensitive(mesh, "crc32", cJSON_CreateString("0"));
}
static void edit_size_fraction(cJSON *r) {
    cJSON *mesh = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "files"),
                                                   "synth.1.mesh.glb");
    set_number(mesh, "size_bytes", 10.5);
}
static void edit_files_outside(cJSON *r) {
    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(r, "files"), "../x.png",
                          cJSON_CreateObject());
}

/* A file changed after the bake (64 bytes of the mesh's binary chunk, bytes
 * of a PNG or EXR), cut short, or taken from another bake of the same
 * layout is refused, naming the file; the same damage under a version 2
 * manifest, which has no checksums, is what loaded silently before. */
static void test_checksums(const crowd_asset *asset) {
    char dir[1100], other[1100], from[1200], to[1200];
    const crowd_result bad = CROWD_ERROR_INVALID_DATA;
    copy_case(good_png, dir, sizeof dir);
    corrupt(dir, "synth.1.mesh.glb", glb_bin_offset(dir, "synth.1.mesh.glb") + 16, 64);
    expect_load_as_is(dir, bad, "synth.1.mesh.glb", "crc32", "64 bytes of the mesh's BIN");
    edit_manifest(dir, edit_to_version2);
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK,
              "version 2 has no checksum to refuse it: %s", error.reason);
    crowd_bake_destroy(bake);

    copy_case(good_png, dir, sizeof dir);
    corrupt(dir, "synth.1.vat.png", 200, 8);
    expect_load_as_is(dir, bad, "synth.1.vat.png", "crc32", "bytes of the PNG");
    copy_case(good_exr, dir, sizeof dir);
    corrupt(dir, "synth.1.vat_normal.exr", 400, 4);
    expect_load_as_is(dir, bad, "synth.1.vat_normal.exr", "crc32", "bytes of an EXR");
    copy_case(good_exr, dir, sizeof dir);
    snprintf(to, sizeof to, "%s/synth.1.bat.exr", dir);
    size_t size = 0;
    char *text = test_read_file(to, &size);
    test_write_file(to, text, size - 1);
    free(text);
    expect_load_as_is(dir, bad, "synth.1.bat.exr", "the manifest says", "EXR cut by a byte");

    /* another bake's VAT, same layout, other frames */
    fx_bake_options options = {24, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 77};
    crowd_bake *another = fx_bake_create(asset, &options);
    snprintf(other, sizeof other, "%s/another", root);
    CHECK(fx_written(another, other, NULL));
    crowd_bake_destroy(another);
    copy_case(good_png, dir, sizeof dir);
    snprintf(from, sizeof from, "%s/synth.1.vat.png", other);
    snprintf(to, sizeof to, "%s/synth.1.vat.png", dir);
    text = test_read_file(from, &size);
    test_write_file(to, text, size);
    free(text);
    expect_load_as_is(dir, bad, "synth.1.vat.png", "another bake", "VAT of another bake");

    manifest_case(good_png, edit_no_files, bad, "files is missing", "no files");
    manifest_case(good_png, edit_files_without_mesh, bad, "no size and checksum for",
                  "mesh unlisted");
    manifest_case(good_png, edit_crc_string, bad, "crc32 must be an integer", "crc32 type");
    manifest_case(good_png, edit_size_fraction, bad, "size_bytes must be an integer",
                  "size fraction");
    manifest_case(good_png, edit_files_outside, bad, "not a file name inside", "file outside");
}

/* ---- materials of mesh.glb ------------------------------------------------------------- */

static cJSON *material_of(cJSON *r, int m) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "materials"), m);
}
static cJSON *pbr_of(cJSON *r, int m) {
    return cJSON_GetObjectItemCaseSensitive(material_of(r, m), "pbrMetallicRoughness");
}
static void replace(cJSON *object, const char *key, cJSON *value) {
    cJSON_DeleteItemFromObjectCaseSensitive(object, key);
    cJSON_AddItemToObject(object, key, value);
}
static void glb_metallic_over(cJSON *r) {
    replace(pbr_of(r, 0), "metallicFactor", cJSON_CreateNumber(1.5));
}
static void glb_roughness_text(cJSON *r) {
    replace(pbr_of(r, 1), "roughnessFactor", cJSON_CreateString("0.5"));
}
static void glb_base_colour_over(cJSON *r) {
    const float colour[4] = {2, 0, 0, 1};
    replace(pbr_of(r, 1), "baseColorFactor", cJSON_CreateFloatArray(colour, 4));
}
static void glb_emissive_negative(cJSON *r) {
    const float colour[3] = {0, -1, 0};
    replace(material_of(r, 1), "emissiveFactor", cJSON_CreateFloatArray(colour, 3));
}
static void glb_alpha_mode(cJSON *r) {
    replace(material_of(r, 0), "alphaMode", cJSON_CreateString("SOMETIMES"));
}
static void glb_double_sided(cJSON *r) {
    replace(material_of(r, 0), "doubleSided", cJSON_CreateNumber(1));
}
static void glb_cutoff_negative(cJSON *r) {
    replace(material_of(r, 0), "alphaCutoff", cJSON_CreateNumber(-0.5));
}
static void glb_strength_over(cJSON *r) {
    replace(cJSON_GetObjectItemCaseSensitive(material_of(r, 0), "occlusionTexture"), "strength",
            cJSON_CreateNumber(2));
}
static void glb_normal_texture_gone(cJSON *r) {
    replace(cJSON_GetObjectItemCaseSensitive(material_of(r, 0), "normalTexture"), "index",
            cJSON_CreateNumber(99));
}
static void glb_material_not_object(cJSON *r) {
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(r, "materials"), 1,
                             cJSON_CreateNumber(3));
}
/* A version-2 bake's materials: metallicFactor 0, nothing else but the colour. */
static void glb_version2_materials(cJSON *r) {
    static const char *const keys[] = {"normalTexture",  "occlusionTexture", "emissiveTexture",
                                       "emissiveFactor", "alphaMode",        "alphaCutoff",
                                       "doubleSided"};
    for (int m = 0; m < 2; m++) {
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            cJSON_DeleteItemFromObjectCaseSensitive(material_of(r, m), keys[k]);
        }
        cJSON_DeleteItemFromObjectCaseSensitive(pbr_of(r, m), "roughnessFactor");
        cJSON_DeleteItemFromObjectCaseSensitive(pbr_of(r, m), "metallicRoughnessTexture");
        replace(pbr_of(r, m), "metallicFactor", cJSON_CreateNumber(0));
    }
}

static void test_materials(void) {
    static const struct {
        json_edit edit;
        const char *reason, *what;
    } cases[] = {
        {glb_metallic_over, "material 0: 'metallicFactor' is not a number in [0, 1]", "metallic"},
        {glb_roughness_text, "material 1: 'roughnessFactor' is not a number in [0, 1]",
         "roughness"},
        {glb_base_colour_over, "material 1: baseColorFactor[0] is not in [0, 1]", "colour"},
        {glb_emissive_negative, "material 1: emissiveFactor[1] is not in [0, 1]", "emissive"},
        {glb_alpha_mode, "material 0: alphaMode is not OPAQUE, MASK or BLEND", "alpha mode"},
        {glb_double_sided, "doubleSided is not a boolean", "double-sided"},
        {glb_cutoff_negative, "material 0: 'alphaCutoff' is not a number", "cutoff"},
        {glb_strength_over, "material 0: 'strength' is not a number in [0, 1]", "strength"},
        {glb_normal_texture_gone, "texture 99 does not exist", "normal texture"},
        {glb_material_not_object, "material 1 is not an object", "material type"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lod_glb_case(cases[i].edit, cases[i].reason, cases[i].what);
    }
    /* old bakes: metallic 0 and the glTF default roughness 1, as they were drawn */
    char dir[1100], path[1200];
    copy_case(good_lods, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    edit_glb(path, glb_version2_materials);
    fx_reseal(dir, "synth.crowd.json");
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK, "version 2 materials: %s",
              error.reason);
    for (uint32_t m = 0; bake != NULL && m < bake->asset->material_count; m++) {
        const crowd_material *material = &bake->asset->materials[m];
        CHECK(material->metallic == 0.0f && material->roughness == 1.0f);
        CHECK(material->alpha_mode == CROWD_ALPHA_OPAQUE && !material->double_sided);
        CHECK(material->normal_texture.rgba8 == NULL && material->emissive[0] == 0.0f);
    }
    crowd_bake_destroy(bake);
}

/* ---- folders and arguments ------------------------------------------------------------ */

static void test_folders(void) {
    char dir[1100], path[1200];
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    CHECK(crowd_bake_load(NULL, NULL, &bake, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_bake_load(root, NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    snprintf(path, sizeof path, "%s/nowhere", root);
    expect_load(path, CROWD_ERROR_IO, "nowhere", "ENOENT", "no such folder");
    snprintf(dir, sizeof dir, "%s/empty", root);
    mkdir(dir, 0755);
    expect_load(dir, CROWD_ERROR_IO, "empty", "no bake here", "no manifest");

    copy_case(good_png, dir, sizeof dir);
    char from[1200], to[1200];
    snprintf(from, sizeof from, "%s/synth.crowd.json", dir);
    snprintf(to, sizeof to, "%s/other.crowd.json", dir);
    size_t size = 0;
    char *text = test_read_file(from, &size);
    test_write_file(to, text, size);
    free(text);
    crowd_result result = crowd_bake_load(dir, NULL, &bake, &error);
    CHECK(result == CROWD_ERROR_INVALID_ARGUMENT && strstr(error.reason, "2 bakes") != NULL);
    /* naming one of them works */
    CHECK(crowd_bake_load(from, NULL, &bake, &error) == CROWD_OK);
    crowd_bake_destroy(bake);
    bake = NULL;
    snprintf(path, sizeof path, "%s/synth.1.vat.png", dir);
    result = crowd_bake_load(path, NULL, &bake, &error);
    CHECK(result == CROWD_ERROR_INVALID_DATA && strstr(error.reason, "not valid JSON") != NULL);

    /* counts the mesh disagrees with: one vertex fewer still fits the VAT width */
    copy_case(good_png, dir, sizeof dir);
    edit_manifest(dir, edit_vertex_count);
    expect_load(dir, CROWD_ERROR_INVALID_DATA, "synth.1.mesh.glb", "the manifest says",
                "vertex count vs mesh");
}

int main(void) {
    check_enter_temp_dir("test_bakeio_load");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    crowd_asset *asset = fx_asset_create(24);
    fx_bake_options png_options = {24, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 41};
    fx_bake_options exr_options = {8, CROWD_VAT_F32, 4, CROWD_BAT_F32, 42};
    crowd_bake *png_bake = fx_bake_create(asset, &png_options);
    crowd_bake *exr_bake = fx_bake_create(asset, &exr_options);
    crowd_bake *lod_bake = fx_bake_create(asset, &png_options);
    fx_add_lods(lod_bake, 4);
    snprintf(good_png, sizeof good_png, "%s/good_png", root);
    snprintf(good_exr, sizeof good_exr, "%s/good_exr", root);
    snprintf(good_lods, sizeof good_lods, "%s/good_lods", root);
    if (fx_written(png_bake, good_png, NULL) && fx_written(exr_bake, good_exr, NULL) &&
        fx_written(lod_bake, good_lods, NULL)) {
        crowd_bake *bake = NULL;
        crowd_error error = {0};
        CHECK(crowd_bake_load(good_png, NULL, &bake, &error) == CROWD_OK);
        crowd_bake_destroy(bake);
        test_manifests();
        test_events(asset);
        test_textures(png_bake);
        test_exr_headers();
        test_mesh();
        test_lods();
        test_materials();
        test_folders();
        test_checksums(asset);
    } else {
        CHECK(!"the good folders could not be written");
    }
    crowd_bake_destroy(png_bake);
    crowd_bake_destroy(exr_bake);
    crowd_bake_destroy(lod_bake);
    crowd_asset_destroy(asset);
    test_remove_tree(root);
    return check_finish();
}
