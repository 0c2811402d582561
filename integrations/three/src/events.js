// events.js - which of a bake's events (clips[].events of the manifest) an
// instance's clock passed between two updates, by crowd's own rule:
// crowd_anim_play_unwrapped, crowd_anim_play_position and
// crowd_anim_markers_passed of include/crowd/anim.h (src/anim/clip_time.c,
// src/anim/clip_markers.c), operation for operation in float32, so the
// player fires the events crowd's runtime fires at the same clock. Pure
// functions: nothing here knows three.js.

const f32 = Math.fround;

// A one-shot clip's end in the `marker` of a hit (CROWD_MARKER_END).
export const MARKER_END = -1;

// (clock - start) * speed + offset in float32, in that order.
export function playUnwrapped(clock, start, offset, speed) {
    return f32(f32(f32(f32(clock) - f32(start)) * f32(speed)) + f32(offset));
}

// Where play time t lies: {loop, time}, as crowd_anim_play_position.
export function playPosition(t, duration, loop) {
    const d = f32(duration);
    if (!(d > 0) || !Number.isFinite(t)) {
        return { loop: 0, time: 0 };
    }
    if (!loop) {
        return { loop: 0, time: t < 0 ? 0 : (t > d ? d : t) };
    }
    const loops = Math.floor(f32(t / d));
    const wrapped = f32(t - f32(d * loops));
    if (wrapped >= d || wrapped < 0) {
        return { loop: loops + (wrapped >= d ? 1 : 0), time: 0 };
    }
    return { loop: loops, time: wrapped };
}

// The first marker after x (at or after x when `at` holds): binary search.
function firstAfter(times, x, at) {
    let lo = 0, hi = times.length;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (at ? times[mid] < x : times[mid] <= x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// Markers with lo < e < hi, each bound closed where its flag says.
function pass(times, lo, loClosed, hi, hiClosed, descending, count, hits) {
    const first = firstAfter(times, lo, loClosed), end = firstAfter(times, hi, !hiClosed);
    if (!descending) {
        for (let i = first; i < end; i++) {
            hits.push({ marker: i, count });
        }
    } else {
        for (let i = end; i > first; i--) {
            hits.push({ marker: i - 1, count });
        }
    }
}

function compare(a, b) {
    if (a.loop !== b.loop) {
        return a.loop < b.loop ? -1 : 1;
    }
    return a.time < b.time ? -1 : (a.time > b.time ? 1 : 0);
}

// The markers (ascending clip times in [0, duration]) that play time passes
// from fromT to toT (unwrapped play times), in the order it passes them:
// [{marker, count}], marker MARKER_END for a one-shot clip's end, count the
// whole loops folded into one pass. fromIncluded: a clip just started fires
// its markers at its starting time too.
export function markersPassed(times, duration, loop, fromT, toT, fromIncluded) {
    const d = f32(duration), hits = [];
    if (!(d > 0) || !Number.isFinite(d)) {
        return hits;
    }
    const from = playPosition(fromT, d, loop), to = playPosition(toT, d, loop);
    const direction = compare(to, from);
    if (direction === 0) {
        return hits;
    }
    const forward = direction > 0, l0 = from.time, l1 = to.time;
    if (from.loop === to.loop) {
        if (forward) {
            pass(times, l0, fromIncluded, l1, true, false, 1, hits);
        } else {
            pass(times, l1, true, l0, fromIncluded, true, 1, hits);
        }
        if (!loop && (forward ? l1 === d : l1 === 0)) {
            hits.push({ marker: MARKER_END, count: 1 });
        }
        return hits;
    }
    const folded = Math.min(Math.abs(to.loop - from.loop) - 1, 4294967295);
    if (forward) {
        pass(times, l0, fromIncluded, d, true, false, 1, hits);
        if (folded > 0) {
            pass(times, 0, true, d, true, false, folded, hits);
        }
        pass(times, 0, true, l1, true, false, 1, hits);
    } else {
        pass(times, 0, true, l0, fromIncluded, true, 1, hits);
        if (folded > 0) {
            pass(times, 0, true, d, true, true, folded, hits);
        }
        pass(times, l1, true, d, true, true, 1, hits);
    }
    return hits;
}
