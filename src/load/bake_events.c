/* A bake's events (crowd/bake.h): one sorted array, by clip and then time,
 * so a clip's events are one range found by binary search and come out in
 * the order a clock passes them. The loader adds what the manifest holds
 * through the same call, so a loaded bake meets every rule a built one
 * does. */
#include <math.h>
#include <string.h>

#include "core/core_internal.h"
#include "load/bake_internal.h"

crowd_result crowd__bake_check_name(const char *name, crowd_error *error) {
    size_t length = strlen(name);
    if (length == 0 || length > CROWD_BAKE_EVENT_NAME_MAX) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "event name \"%.80s\" must be 1 to %d bytes", name,
                               CROWD_BAKE_EVENT_NAME_MAX);
    }
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x20 || c == 0x7f) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                                   "event name \"%.*s...\" holds a control character (byte %u)",
                                   (int)(i < 80 ? i : 80), name, (unsigned)i);
        }
    }
    return CROWD_OK;
}

/* The first event of `clip` at or after time_s (after, when `after`). */
static uint32_t lower_bound(const crowd_bake *bake, uint32_t clip, float time_s, bool after) {
    uint32_t lo = 0, hi = bake->event_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const crowd_bake_event *e = &bake->events[mid];
        bool before = e->clip < clip ||
                      (e->clip == clip && (after ? e->time_s <= time_s : e->time_s < time_s));
        if (before) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

crowd_result crowd_bake_add_event(crowd_bake *bake, const char *clip, float time_s,
                                  const char *name, crowd_error *error) {
    if (bake == NULL || clip == NULL || name == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "bake, clip and event name must not be NULL");
    }
    int32_t found = crowd_bake_find_clip(bake, clip);
    if (found < 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "event \"%.80s\": the bake has no clip \"%.80s\"", name, clip);
    }
    const crowd_bake_clip *c = &bake->clips[found];
    if (!(time_s >= 0.0f && time_s <= c->duration_s)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "event \"%.80s\" at %g s lies outside clip \"%.80s\" (0 to %g s)",
                               name, (double)time_s, clip, (double)c->duration_s);
    }
    crowd_result result = crowd__bake_check_name(name, error);
    if (result != CROWD_OK) {
        return result;
    }
    uint32_t at = lower_bound(bake, (uint32_t)found, time_s, true);
    if (bake->event_count >= CROWD_BAKE_MAX_EVENTS) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL, "a bake holds at most %d events",
                               CROWD_BAKE_MAX_EVENTS);
    }
    char *copy = crowd__core_copy_string_with(&bake->allocator, name);
    crowd_bake_event *events = bake->events;
    uint32_t count = bake->event_count;
    /* The array only grows here, doubling when its count is 0 or a power of
     * two, so its capacity is the power of two at or above the count and n
     * additions cost O(n) copies. */
    if (copy != NULL && (count & (count - 1)) == 0) {
        events = crowd__mem_grow(&bake->allocator, events, count * sizeof *events,
                                 (count == 0 ? 1 : 2 * (size_t)count) * sizeof *events);
    }
    if (copy == NULL || events == NULL) {
        crowd__mem_free(&bake->allocator, copy);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    memmove(events + at + 1, events + at, (count - at) * sizeof *events);
    events[at] = (crowd_bake_event){copy, (uint32_t)found, time_s};
    bake->events = events;
    bake->event_count++;
    return CROWD_OK;
}

const crowd_bake_event *crowd_bake_clip_events(const crowd_bake *bake, uint32_t clip,
                                               uint32_t *out_count) {
    uint32_t first = 0, end = 0;
    if (bake != NULL && clip < bake->clip_count && bake->events != NULL) {
        first = lower_bound(bake, clip, -INFINITY, false);
        end = lower_bound(bake, clip + 1, -INFINITY, false);
    }
    if (out_count != NULL) {
        *out_count = end - first;
    }
    return end > first ? bake->events + first : NULL;
}
