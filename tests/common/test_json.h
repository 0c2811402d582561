/* test_json.h - JSON files the tests read and edit as plain documents (the
 * manifest of a bake, a bench report): read one, write one back, and turn a
 * bake folder into what version 3 wrote (no runtime clips), which is how the
 * tests check that an older folder still loads and refuses what it cannot
 * play.
 *
 * Include with _POSIX_C_SOURCE 200809L (or _XOPEN_SOURCE 700) defined and
 * link cJSON.
 */
#ifndef CROWD_TEST_JSON_H
#define CROWD_TEST_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_files.h"

/* The document in `path`, or NULL when it cannot be read or parsed. */
static inline cJSON *test_read_json(const char *path) {
    size_t size = 0;
    char *text = test_read_file(path, &size);
    cJSON *json = text != NULL ? cJSON_ParseWithLength(text, size) : NULL;
    free(text);
    return json;
}

/* `json` printed into `path`; false when it cannot be printed or written. */
static inline bool test_write_json(const char *path, const cJSON *json) {
    char *printed = cJSON_Print(json);
    bool ok = printed != NULL && test_write_file(path, printed, strlen(printed)) == 0;
    cJSON_free(printed);
    return ok;
}

/* The manifest DIR/NAME.crowd.json rewritten as version 3: its "anim" member
 * and that file's entry in "files" removed (the file itself stays, unnamed).
 * False when the manifest cannot be read, has no runtime clips, or cannot
 * be written. */
static inline bool test_strip_runtime_clips(const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.crowd.json", dir, name);
    cJSON *json = test_read_json(path);
    const cJSON *file =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(json, "anim"), "file");
    if (!cJSON_IsString(file)) {
        cJSON_Delete(json);
        return false;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(json, "files"),
                                            file->valuestring);
    cJSON_DeleteItemFromObjectCaseSensitive(json, "anim");
    cJSON_ReplaceItemInObjectCaseSensitive(json, "version", cJSON_CreateNumber(3));
    bool ok = test_write_json(path, json);
    cJSON_Delete(json);
    return ok;
}

#endif
