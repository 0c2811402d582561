// crowd_events.js - the events a Crowd's instances fire, kept as crowd's
// runtime keeps them (src/gpu/events.c, include/crowd/gpu.h "Events"):
// from the instances' clocks on the CPU, no GPU readback.
//
// The index: the instances whose clip (or fading-out clip, while its fade
// runs) has events or plays once are listed, kept on setInstance, play and
// setSpeed, so an update reads only those: O(listed instances + events),
// nothing for the instances of clips without events. Each listed instance
// keeps the unwrapped play time of each clip when last read; a state change
// first takes what the old state passed up to the clock (reported by the
// next update, first).
import { MARKER_END, markersPassed, playPosition, playUnwrapped } from './events.js';

const FRESH = 1, FROM_LIVE = 2, FROM_FRESH = 4;
export const START_CLIP = 0, START_FADE = 1, START_CONTINUE = 2;

export class EventIndex {
    // clock(i) -> {clip, start, offset, speed, loop} of instance i's clip;
    // fromClock(i) -> the same plus fadeStart, fadeDuration for the clip a
    // crossfade leaves, or null.
    constructor(clips, count, clock, fromClock) {
        this.clips = clips.map((c) => ({
            duration: Math.fround(c.duration_s),
            times: (c.events ?? []).map((e) => Math.fround(e.time_s)),
            names: (c.events ?? []).map((e) => e.name),
        }));
        this.clock = clock;
        this.fromClock = fromClock;
        this.t = new Float64Array(count);
        this.fromT = new Float64Array(count);
        this.flags = new Uint8Array(count);
        this.listedAt = new Int32Array(count).fill(-1);
        this.listed = [];
        this.pending = [];
        this.reported = [];
        this.now = 0;
    }

    // Whether a clip played with `loop` can fire: it has events, or an end.
    fires(clip, loop) {
        const c = this.clips[clip];
        return c.duration > 0 && (c.times.length > 0 || !loop);
    }

    instanceFires(i) {
        const c = this.clock(i), f = this.fromClock(i);
        return this.fires(c.clip, c.loop) ||
               ((this.flags[i] & FROM_LIVE) !== 0 && f !== null && this.fires(f.clip, f.loop));
    }

    relist(i) {
        const should = this.instanceFires(i), at = this.listedAt[i];
        if (should && at < 0) {
            this.listedAt[i] = this.listed.length;
            this.listed.push(i);
        } else if (!should && at >= 0) {
            const moved = this.listed.pop();
            if (moved !== i) {
                this.listed[at] = moved;
                this.listedAt[moved] = at;
            }
            this.listedAt[i] = -1;
        }
    }

    fire(i, clip, loop, fromT, toT, fresh, fadingOut, out) {
        if (!this.fires(clip, loop)) {
            return;
        }
        const c = this.clips[clip];
        for (const hit of markersPassed(c.times, c.duration, loop, fromT, toT, fresh)) {
            const end = hit.marker === MARKER_END;
            out.push({
                instance: i, clip, kind: end ? 'end' : 'event', name: end ? '' : c.names[hit.marker],
                time: end ? playPosition(toT, c.duration, false).time : c.times[hit.marker],
                count: hit.count, fadingOut,
            });
        }
    }

    // Reads instance i's clocks at `now` into `out`: its clip's events,
    // then those of the clip its fade leaves, up to the fade's end.
    read(i, now, out) {
        const c = this.clock(i);
        const toT = playUnwrapped(now, c.start, c.offset, c.speed);
        this.fire(i, c.clip, c.loop, this.t[i], toT, (this.flags[i] & FRESH) !== 0, false, out);
        if (toT !== this.t[i]) {
            this.flags[i] &= ~FRESH;
        }
        this.t[i] = toT;
        const f = this.fromClock(i);
        if ((this.flags[i] & FROM_LIVE) === 0 || f === null) {
            return;
        }
        // The fade's weight reaches 1 when now - fadeStart >= fadeDuration
        // (the shader's fade weight): the clip faded out stops there.
        const over = !(Math.fround(now - f.fadeStart) < f.fadeDuration);
        const endAt = over ? Math.fround(f.fadeStart + f.fadeDuration) : now;
        const fromTo = playUnwrapped(endAt, f.start, f.offset, f.speed);
        this.fire(i, f.clip, f.loop, this.fromT[i], fromTo, (this.flags[i] & FROM_FRESH) !== 0,
                  true, out);
        if (fromTo !== this.fromT[i]) {
            this.flags[i] &= ~FROM_FRESH;
        }
        this.fromT[i] = fromTo;
        if (over) {
            this.flags[i] &= ~(FROM_LIVE | FROM_FRESH);
        }
    }

    // Before instance i's state changes: what its clocks passed up to the
    // crowd's clock is reported by the next update.
    settle(i) {
        if (this.listedAt[i] >= 0) {
            this.read(i, this.now, this.pending);
        }
    }

    // After instance i's state changed (START_CLIP: a new clip from its
    // start; START_FADE: a crossfade, the old clip going on; START_CONTINUE:
    // the same clips from where they are, e.g. a speed change).
    start(i, how) {
        const now = this.now;
        if (how === START_CLIP) {
            this.flags[i] = FRESH;
        } else if (how === START_FADE) {
            this.fromT[i] = this.t[i];
            this.flags[i] = FRESH | FROM_LIVE | ((this.flags[i] & FRESH) !== 0 ? FROM_FRESH : 0);
        } else if ((this.flags[i] & FROM_LIVE) !== 0) {
            const f = this.fromClock(i);
            this.fromT[i] = playUnwrapped(now, f.start, f.offset, f.speed);
        }
        const c = this.clock(i);
        this.t[i] = playUnwrapped(now, c.start, c.offset, c.speed);
        this.relist(i);
    }

    // The clock moved to `now` (float32 seconds): the events of every
    // listed instance since the last update, state changes' first.
    update(now) {
        this.now = now;
        const out = this.pending;
        this.pending = [];
        // Backwards: relist may swap the last entry into this one, read already.
        for (let k = this.listed.length; k-- > 0;) {
            const i = this.listed[k];
            this.read(i, now, out);
            this.relist(i);
        }
        this.reported = out;
        return out;
    }
}
