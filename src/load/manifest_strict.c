/* The manifest's bytes and keys, beyond what cJSON checks (manifest_strict.h). */
#include "load/manifest_strict.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

crowd_result crowd__manifest_check_bytes(const char *json, size_t size, const char *file,
                                         crowd_error *error) {
    const unsigned char *bytes = (const unsigned char *)json;
    bool utf8 = size >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF;
    bool utf16 = size >= 2 &&
                 ((bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE));
    if (utf8 || utf16) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file,
                               "begins with a %s byte-order mark (a manifest is UTF-8 JSON "
                               "without one)",
                               utf8 ? "UTF-8" : "UTF-16");
    }
    const char *nul = size > 0 ? memchr(json, '\0', size) : NULL;
    if (nul != NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file,
                               "not valid JSON text: NUL byte at offset %zu", (size_t)(nul - json));
    }
    return CROWD_OK;
}

crowd_result crowd__manifest_check_end(const char *json, size_t size, const char *end,
                                       const char *file, crowd_error *error) {
    size_t at = (size_t)(end - json);
    while (at < size &&
           (json[at] == ' ' || json[at] == '\t' || json[at] == '\n' || json[at] == '\r')) {
        at++;
    }
    if (at < size) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file,
                               "not valid JSON text: more after the object, at byte %zu", at);
    }
    return CROWD_OK;
}

typedef struct key_walk {
    const char *file;
    crowd_error *error;
    char path[160]; /* of the value being checked: "clips[1].name" */
} key_walk;

static int compare_keys(const void *a, const void *b) {
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* Appends to the path at `length`; returns the new length, cut to fit. */
static size_t extend_path(key_walk *w, size_t length, const cJSON *child, int index) {
    size_t room = sizeof w->path - length;
    int n = child->string != NULL
                ? snprintf(w->path + length, room, "%s%.40s", length > 0 ? "." : "", child->string)
                : snprintf(w->path + length, room, "[%d]", index);
    return n < 0 ? length : length + ((size_t)n < room ? (size_t)n : room - 1);
}

/* Replaces what is not printable ASCII, so a key never puts raw bytes in a message. */
static void printable(char *text) {
    for (; *text != '\0'; text++) {
        if (*text < 0x20 || *text > 0x7E) {
            *text = '?';
        }
    }
}

static crowd_result duplicate_in(key_walk *w, const cJSON *object) {
    size_t count = 0;
    for (const cJSON *child = object->child; child != NULL; child = child->next) {
        count++;
    }
    if (count < 2) {
        return CROWD_OK;
    }
    const cJSON **sorted = malloc(count * sizeof *sorted);
    if (sorted == NULL) {
        return crowd_error_set(w->error, CROWD_ERROR_OUT_OF_MEMORY, w->file, "out of memory");
    }
    size_t n = 0;
    for (const cJSON *child = object->child; child != NULL; child = child->next) {
        sorted[n++] = child;
    }
    qsort(sorted, count, sizeof *sorted, compare_keys);
    const char *twice = NULL;
    for (size_t i = 1; i < count && twice == NULL; i++) {
        twice = strcmp(sorted[i - 1]->string, sorted[i]->string) == 0 ? sorted[i]->string : NULL;
    }
    crowd_result result = CROWD_OK;
    if (twice != NULL) {
        char key[48];
        snprintf(key, sizeof key, "%.40s", twice);
        printable(key);
        printable(w->path);
        result = crowd_error_set(
            w->error, CROWD_ERROR_INVALID_DATA, w->file, "duplicate key '%s' in %s%s", key,
            w->path[0] ? "" : "the top-level object", w->path[0] ? w->path : "");
    }
    free(sorted);
    return result;
}

/* Depth first; cJSON's nesting limit bounds the recursion. */
static crowd_result check_value(key_walk *w, const cJSON *value, size_t length) {
    if (cJSON_IsObject(value)) {
        crowd_result result = duplicate_in(w, value);
        if (result != CROWD_OK) {
            return result;
        }
    }
    if (!cJSON_IsObject(value) && !cJSON_IsArray(value)) {
        return CROWD_OK;
    }
    int index = 0;
    for (const cJSON *child = value->child; child != NULL; child = child->next, index++) {
        size_t extended = extend_path(w, length, child, index);
        crowd_result result = check_value(w, child, extended);
        w->path[length] = '\0';
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

crowd_result crowd__manifest_check_keys(const cJSON *root, const char *file, crowd_error *error) {
    key_walk w = {file, error, ""};
    return check_value(&w, root, 0);
}
