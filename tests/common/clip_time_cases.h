/* clip_time_cases.h - the clip-time rule's case table
 * (tests/common/clip_time_cases.json, written by clip_time_cases.py from the
 * rule's definition in exact arithmetic) for the C tests that check an
 * implementation against it: crowd/anim.h's functions (tests/anim) and the
 * world's GLSL (tests/gpu).
 *
 * Link cJSON; include with _POSIX_C_SOURCE 200809L defined (test_files.h).
 */
#ifndef CROWD_TEST_CLIP_TIME_CASES_H
#define CROWD_TEST_CLIP_TIME_CASES_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/anim.h"
#include "test_files.h"

typedef struct clip_time_case {
    char clip_name[32];
    char why[96];
    crowd_clip_frames frames;
    bool loop;
    float clock_s, start_s, offset_s, speed;
    float time_s; /* expected */
    uint32_t frame0, frame1;
    float weight;
} clip_time_case;

typedef struct clip_time_table {
    uint32_t count;
    clip_time_case *cases;
    double time_tolerance_s, weight_tolerance;
} clip_time_table;

static inline double clip_time_number(const cJSON *object, const char *key, bool *ok) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (!cJSON_IsNumber(item)) {
        *ok = false;
        return 0.0;
    }
    return item->valuedouble;
}

static inline crowd_frame_layout clip_time_layout(const char *name, bool *ok) {
    if (strcmp(name, "end") == 0) {
        return CROWD_FRAMES_END;
    }
    if (strcmp(name, "wrap") == 0) {
        return CROWD_FRAMES_WRAP;
    }
    if (strcmp(name, "clamp") != 0) {
        *ok = false;
    }
    return CROWD_FRAMES_CLAMP;
}

static inline bool clip_time_read_case(const cJSON *clips, const cJSON *row, clip_time_case *c) {
    bool ok = true;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(row, "clip");
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(row, "why");
    const cJSON *clip =
        cJSON_IsString(name) ? cJSON_GetObjectItemCaseSensitive(clips, name->valuestring) : NULL;
    const cJSON *layout = cJSON_GetObjectItemCaseSensitive(clip, "layout");
    if (clip == NULL || !cJSON_IsString(layout) || !cJSON_IsString(why) ||
        !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(row, "loop"))) {
        return false;
    }
    snprintf(c->clip_name, sizeof c->clip_name, "%s", name->valuestring);
    snprintf(c->why, sizeof c->why, "%s", why->valuestring);
    c->frames.fps = (float)clip_time_number(clip, "fps", &ok);
    c->frames.duration_s = (float)clip_time_number(clip, "duration_s", &ok);
    c->frames.frame_count = (uint32_t)clip_time_number(clip, "frame_count", &ok);
    c->frames.layout = clip_time_layout(layout->valuestring, &ok);
    c->loop = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "loop"));
    c->clock_s = (float)clip_time_number(row, "clock_s", &ok);
    c->start_s = (float)clip_time_number(row, "start_s", &ok);
    c->offset_s = (float)clip_time_number(row, "offset_s", &ok);
    c->speed = (float)clip_time_number(row, "speed", &ok);
    c->time_s = (float)clip_time_number(row, "time_s", &ok);
    c->frame0 = (uint32_t)clip_time_number(row, "frame0", &ok);
    c->frame1 = (uint32_t)clip_time_number(row, "frame1", &ok);
    c->weight = (float)clip_time_number(row, "weight", &ok);
    return ok;
}

/* Reads the table; false (with a message on stderr) when it cannot. */
static inline bool clip_time_table_load(clip_time_table *table) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/common/clip_time_cases.json", CROWD_SOURCE_DIR);
    size_t size = 0;
    char *text = test_read_file(path, &size);
    cJSON *root = text != NULL ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "cases");
    const cJSON *clips = cJSON_GetObjectItemCaseSensitive(root, "clips");
    bool ok = cJSON_IsArray(rows) && cJSON_IsObject(clips);
    memset(table, 0, sizeof *table);
    if (ok) {
        table->time_tolerance_s = clip_time_number(root, "time_tolerance_s", &ok);
        table->weight_tolerance = clip_time_number(root, "weight_tolerance", &ok);
        table->count = (uint32_t)cJSON_GetArraySize(rows);
        table->cases = calloc(table->count > 0 ? table->count : 1, sizeof *table->cases);
        ok = ok && table->cases != NULL;
    }
    for (uint32_t i = 0; ok && i < table->count; i++) {
        ok = clip_time_read_case(clips, cJSON_GetArrayItem(rows, (int)i), &table->cases[i]);
    }
    cJSON_Delete(root);
    if (!ok) {
        fprintf(stderr, "%s: cannot read the case table\n", path);
        free(table->cases);
        table->cases = NULL;
    }
    return ok;
}

/* Whether an implementation's answer matches case c: the same frames and
 * clip time and weight within the table's tolerances. A weight within
 * tolerance of 1 is also the next pair's weight 0 (k / fps rounded just
 * below k), and a weight of 0 makes frame1 irrelevant. */
static inline bool clip_time_matches(const clip_time_table *table, const clip_time_case *c,
                                     float time_s, crowd_frame_pair got) {
    if (!(fabs((double)time_s - c->time_s) <= table->time_tolerance_s)) {
        return false;
    }
    double tol = table->weight_tolerance;
    if (got.frame0 == c->frame0 && fabs((double)got.weight - c->weight) <= tol) {
        return c->weight <= tol || got.frame1 == c->frame1;
    }
    /* The same pose named by the neighbouring pair. */
    if (c->weight <= tol && got.frame1 == c->frame0 && fabs(1.0 - got.weight) <= tol) {
        return true;
    }
    return c->weight >= 1.0 - tol && got.frame0 == c->frame1 && got.weight <= tol;
}

/* Whether a nearest frame (crowd_anim_frame_nearest) matches case c: its
 * pair's second frame from weight 0.5 on, its first below; either where the
 * case's weight is within tolerance of 0.5. */
static inline bool clip_time_nearest_matches(const clip_time_table *table, const clip_time_case *c,
                                             uint32_t nearest) {
    double tol = table->weight_tolerance;
    if (fabs(c->weight - 0.5) <= tol) {
        return nearest == c->frame0 || nearest == c->frame1;
    }
    return nearest == (c->weight >= 0.5 ? c->frame1 : c->frame0);
}

#endif
