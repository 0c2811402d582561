/* import_assimp_log.c - what assimp's log lines mean for an import.
 *
 * assimp's readers say in their log what they did not like and what they
 * did about it ("failed to locate material Default, creating new material",
 * "Skipping FOV animation track", "Bone index overflow ... assigned to the
 * vertex' parent node"). Such a line is a repair: the file loads with the
 * reader's default, the line goes to the logger as a warning and is counted
 * (crowd_repairs.reader_warnings). Lines of assimp's validation
 * ("Validation warning: ...") repeat checks crowd makes and counts itself,
 * and post-processing lines are about assimp's own steps, not the file:
 * both go to the logger as debug messages.
 *
 * One kind of line is a refusal: a reader saying it dropped or moved data
 * because an index in the file is out of range, overflows or is invalid
 * (faces, vertices, texture coordinates: "OBJ: vertex index out of range",
 * "Face has an invalid index. It will be ignored"). That breaks the
 * format's own rules and would leave holes, so the import fails with the
 * line. Bone indices (SMD binds the weight to the vertex's parent node) and
 * material indices (the default material is used) are repairs.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "import/assimp/import_internal.h"

/* Reader lines passed on one by one; later ones are only counted. */
#define FORWARDED_LINES_MAX 20

static bool contains(const char *lower, const char *word) {
    return strstr(lower, word) != NULL;
}

static bool drops_data(const char *text) {
    char lower[400];
    size_t n = 0;
    for (; text[n] != '\0' && n + 1 < sizeof lower; n++) {
        lower[n] = (char)tolower((unsigned char)text[n]);
    }
    lower[n] = '\0';
    if (contains(lower, "out-of-range indices")) {
        return true;
    }
    bool index = contains(lower, "index");
    bool broken = contains(lower, "range") || contains(lower, "overflow") ||
                  contains(lower, "invalid") || contains(lower, "bounds");
    return index && broken && !contains(lower, "bone index") && !contains(lower, "material");
}

static void copy_line(char *out, size_t size, const char *text) {
    snprintf(out, size, "%s", text);
    size_t length = strlen(out);
    while (length > 0 && (out[length - 1] == '\n' || out[length - 1] == '\r' ||
                          out[length - 1] == ' ' || out[length - 1] == '.')) {
        out[--length] = '\0';
    }
}

void crowd__import_log_watch_line(import_log_watch *watch, const char *message) {
    if (strstr(message, "Entering post processing pipeline") != NULL) {
        watch->post_processing = true;
    }
    bool warning = strncmp(message, "Warn", 4) == 0;
    bool error = strncmp(message, "Error", 5) == 0;
    if (!warning && !error) {
        return;
    }
    /* "Warn,  T0: text" / "Error, T0: text" */
    const char *text = strchr(message, ':');
    text = text ? text + 1 : message;
    while (*text == ' ') {
        text++;
    }
    char line[400];
    copy_line(line, sizeof line, text);
    if (error) {
        copy_line(watch->last_error, sizeof watch->last_error, line);
    }
    if (watch->post_processing || strncmp(line, "Validation", 10) == 0) {
        crowd_log(watch->logger, CROWD_LOG_DEBUG, "%s: assimp: %s", watch->file, line);
        return;
    }
    if (drops_data(line)) {
        if (watch->refusal[0] == '\0') {
            copy_line(watch->refusal, sizeof watch->refusal, line);
        }
        return;
    }
    watch->reader_warnings++;
    if (!watch->repeat && watch->reader_warnings <= FORWARDED_LINES_MAX) {
        crowd_log(watch->logger, CROWD_LOG_WARNING, "%s: assimp: %s", watch->file, line);
    }
}
