/* bake_blend_arg.c - see bake_blend_arg.h. */
#define _POSIX_C_SOURCE 200809L
#include "bake_blend_arg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Splits "CLIP:T" at its last ':' when a finite number follows it. */
static bool split_threshold(char *item, float *out) {
    char *colon = strrchr(item, ':');
    if (colon == NULL || colon == item) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    double t = strtod(colon + 1, &end);
    if (end == colon + 1 || *end != '\0' || errno == ERANGE || !isfinite(t)) {
        return false;
    }
    *colon = '\0';
    *out = (float)t;
    return true;
}

int cli_blend_parse(const char *value, cli_blend *out) {
    memset(out, 0, sizeof *out);
    if (strlen(value) >= sizeof out->text) {
        return cli_fail(CLI_EXIT_USAGE, "--blend: '%.40s...' is too long", value);
    }
    strcpy(out->text, value);
    char *equals = strchr(out->text, '=');
    if (equals == NULL || equals == out->text || equals[1] == '\0') {
        return cli_fail(CLI_EXIT_USAGE, "--blend: '%s' is not NAME=CLIP[:THRESHOLD],CLIP...",
                        value);
    }
    *equals = '\0';
    out->name = out->text;
    uint32_t with = 0;
    char *item = equals + 1;
    while (item != NULL) {
        char *comma = strchr(item, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        if (out->clip_count == CROWD_BAKE_BLEND_MAX_CLIPS || item[0] == '\0') {
            return cli_fail(CLI_EXIT_USAGE, "--blend: '%s' needs 2 to %d clip names", value,
                            CROWD_BAKE_BLEND_MAX_CLIPS);
        }
        with += split_threshold(item, &out->thresholds[out->clip_count]);
        out->clips[out->clip_count++] = item;
        item = comma != NULL ? comma + 1 : NULL;
    }
    if (out->clip_count < 2) {
        return cli_fail(CLI_EXIT_USAGE, "--blend: '%s' needs 2 to %d clip names", value,
                        CROWD_BAKE_BLEND_MAX_CLIPS);
    }
    if (with != 0 && with != out->clip_count) {
        return cli_fail(CLI_EXIT_USAGE,
                        "--blend: '%s' gives a threshold after some clips: give one after every "
                        "clip, or none (the clips' ground speeds)",
                        value);
    }
    out->has_thresholds = with != 0;
    return -1;
}
