/* key_search.h - finding the key interval of a time in a track (private).
 *
 * Forward playback moves by at most a key or two per frame, so the interval
 * found last time (the cursor's hint) is checked first and its successor
 * second: O(1) per track. Anything else (a jump, backwards, a fresh hint)
 * falls back to a binary search over the part of the track that can hold t.
 */
#ifndef CROWD_ANIM_KEY_SEARCH_H
#define CROWD_ANIM_KEY_SEARCH_H

#include <stdint.h>

/* Largest k in [lo, hi] with times[k] <= t; requires times[lo] <= t. */
static inline uint32_t anim_key_bsearch(const float *times, uint32_t lo, uint32_t hi, float t) {
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (times[mid] <= t) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/* For n >= 2 keys and times[0] <= t < times[n - 1]: the k with
 * times[k] <= t < times[k + 1]. `hint` is read (any value is safe) and
 * updated. */
static inline uint32_t anim_key_find(const float *times, uint32_t n, float t, uint32_t *hint) {
    uint32_t last = n - 2;
    uint32_t h = *hint;
    uint32_t k;
    if (h <= last && times[h] <= t) {
        if (t < times[h + 1]) {
            return h;
        }
        if (h + 1 <= last && t < times[h + 2]) {
            k = h + 1;
        } else {
            k = anim_key_bsearch(times, h + 1, last, t);
        }
    } else {
        k = anim_key_bsearch(times, 0, h <= last ? h : last, t);
    }
    *hint = k;
    return k;
}

#endif
