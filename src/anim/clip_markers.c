/* Events over the clip-time rule (crowd/anim.h): which markers a play time
 * passes between two readings of a clock. Positions come from
 * crowd_anim_play_position, the rule's own wrap and clamp, so a marker fires
 * exactly when the pose the players show reaches it. Binary search finds
 * where each pass starts, so a call costs O(log markers + hits). */
#include "crowd/anim.h"

#include <math.h>

bool crowd_anim_markers_valid(const crowd_clip_markers *markers) {
    if (markers == NULL || (markers->count > 0 && markers->times_s == NULL) ||
        !(markers->duration_s > 0.0f) || !isfinite(markers->duration_s)) {
        return false;
    }
    for (uint32_t i = 0; i < markers->count; i++) {
        float t = markers->times_s[i];
        if (!(t >= 0.0f && t <= markers->duration_s) || (i > 0 && t < markers->times_s[i - 1])) {
            return false;
        }
    }
    return true;
}

/* The first marker after x (at or after x when `at` holds). */
static uint32_t first_after(const crowd_clip_markers *m, float x, bool at) {
    uint32_t lo = 0, hi = m->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        float t = m->times_s[mid];
        if (at ? t < x : t <= x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

typedef struct hits {
    crowd_marker_hit *out;
    uint32_t capacity, count;
} hits;

static void hit(hits *h, uint32_t marker, uint32_t count) {
    if (h->count < h->capacity) {
        h->out[h->count] = (crowd_marker_hit){marker, count};
    }
    h->count++;
}

/* Markers with lo < e < hi, each bound closed where its flag says, in
 * ascending order or descending. */
static void pass(const crowd_clip_markers *m, float lo, bool lo_closed, float hi, bool hi_closed,
                 bool descending, uint32_t count, hits *h) {
    uint32_t first = first_after(m, lo, lo_closed);
    uint32_t end = first_after(m, hi, !hi_closed); /* first beyond the range */
    if (!descending) {
        for (uint32_t i = first; i < end; i++) {
            hit(h, i, count);
        }
    } else {
        for (uint32_t i = end; i > first; i--) {
            hit(h, i - 1, count);
        }
    }
}

static int compare(crowd_play_position a, crowd_play_position b) {
    if (a.loop != b.loop) {
        return a.loop < b.loop ? -1 : 1;
    }
    return a.time_s < b.time_s ? -1 : (a.time_s > b.time_s ? 1 : 0);
}

uint32_t crowd_anim_markers_passed(const crowd_clip_markers *markers, float from_t, float to_t,
                                   bool from_included, crowd_marker_hit *out, uint32_t capacity) {
    if (markers == NULL || (markers->count > 0 && markers->times_s == NULL) ||
        !(markers->duration_s > 0.0f) || !isfinite(markers->duration_s)) {
        return 0;
    }
    hits h = {out, out != NULL ? capacity : 0, 0};
    float d = markers->duration_s;
    crowd_play_position from = crowd_anim_play_position(from_t, d, markers->loop);
    crowd_play_position to = crowd_anim_play_position(to_t, d, markers->loop);
    int direction = compare(to, from);
    if (direction == 0) {
        return 0;
    }
    bool forward = direction > 0;
    float l0 = from.time_s, l1 = to.time_s;
    if (from.loop == to.loop) {
        /* forward (l0, l1], backwards [l1, l0); from_included closes l0 */
        if (forward) {
            pass(markers, l0, from_included, l1, true, false, 1, &h);
        } else {
            pass(markers, l1, true, l0, from_included, true, 1, &h);
        }
        if (!markers->loop && (forward ? l1 == d : l1 == 0.0f)) {
            hit(&h, CROWD_MARKER_END, 1);
        }
        return h.count;
    }
    /* Loops differ (looping clips only): the rest of the first loop, the
     * whole loops between folded into one pass, the start of the last. */
    double whole = fabs(to.loop - from.loop) - 1.0;
    uint32_t folded = whole >= 4294967295.0 ? UINT32_MAX : (uint32_t)whole;
    if (forward) {
        pass(markers, l0, from_included, d, true, false, 1, &h);
        if (folded > 0) {
            pass(markers, 0.0f, true, d, true, false, folded, &h);
        }
        pass(markers, 0.0f, true, l1, true, false, 1, &h);
    } else {
        pass(markers, 0.0f, true, l0, from_included, true, 1, &h);
        if (folded > 0) {
            pass(markers, 0.0f, true, d, true, true, folded, &h);
        }
        pass(markers, l1, true, d, true, true, 1, &h);
    }
    return h.count;
}
