// blend.js - a bake's blends (the manifest's `blends`, docs/manifest.md) and
// crowd's rules for them (include/crowd/gpu.h "blends", src/gpu/blend.c and
// src/gpu/blend_play.c), operation for operation in float32: the segment and
// weight of a parameter, the blend cycle's factor and speed matching's rate.
// Pure functions: nothing here knows three.js.

const f32 = Math.fround;
export const STRIDE_STEPS = 8; // CROWD_BAKE_BLEND_STRIDE_STEPS
const MAX_CLIPS = 16;

function fail(url, what) {
    return new Error(`crowd: ${url}: ${what}`);
}

function lerp(a, b, w) {
    return f32(a + f32(f32(b - a) * w));
}

// The strides of a blend of `count` clips: count - 1 arrays of
// STRIDE_STEPS + 1 finite numbers >= 0, or undefined.
function checkStrides(url, name, strides, count) {
    if (strides === undefined) {
        return null;
    }
    const ok = Array.isArray(strides) && strides.length === count - 1 &&
               strides.every((s) => Array.isArray(s) && s.length === STRIDE_STEPS + 1 &&
                                    s.every((v) => Number.isFinite(v) && v >= 0));
    if (!ok) {
        throw fail(url, `blend "${name}": strides must hold ${count - 1} arrays of ` +
                        `${STRIDE_STEPS + 1} numbers >= 0`);
    }
    return strides.map((s) => Float32Array.from(s));
}

// The manifest's blends resolved against its clips: [{name, clips (indices),
// thresholds (Float32Array; the clips' ground speeds when the manifest gives
// none; null when an older bake has neither), strides (per segment, or null:
// no speed matching)}]. Throws naming the manifest for anything malformed.
export function readBlends(url, manifest) {
    const blends = manifest.blends ?? [];
    if (!Array.isArray(blends)) {
        throw fail(url, 'blends is not an array');
    }
    const seen = new Set();
    return blends.map((b) => {
        if (typeof b?.name !== 'string' || b.name === '' || seen.has(b.name) ||
            !Array.isArray(b.clips) || b.clips.length < 2 || b.clips.length > MAX_CLIPS) {
            throw fail(url, `blend ${JSON.stringify(b?.name)}: needs a unique name and 2 to ` +
                            `${MAX_CLIPS} clips`);
        }
        seen.add(b.name);
        const clips = b.clips.map((name) => {
            const index = manifest.clips.findIndex((c) => c.name === name);
            if (index < 0) {
                throw fail(url, `blend "${b.name}": no clip ${JSON.stringify(name)}`);
            }
            return index;
        });
        let thresholds = null;
        if (b.thresholds !== undefined) {
            if (!Array.isArray(b.thresholds) || b.thresholds.length !== clips.length) {
                throw fail(url, `blend "${b.name}": thresholds must be as many as its clips`);
            }
            thresholds = Float32Array.from(b.thresholds);
        } else if (clips.every((c) => Number.isFinite(manifest.clips[c].ground_speed))) {
            thresholds = Float32Array.from(clips.map((c) => manifest.clips[c].ground_speed));
        }
        if (thresholds && !thresholds.every((t, i) => Number.isFinite(t) &&
                                                     (i === 0 || t > thresholds[i - 1]))) {
            throw fail(url, `blend "${b.name}": thresholds ${Array.from(thresholds)} ` +
                            'are not finite and rising');
        }
        return { name: b.name, clips, thresholds,
                 strides: checkStrides(url, b.name, b.strides, clips.length) };
    });
}

// The segment of parameter p (float32): its lower clip's entry `main`, the
// upper's `partner` (-1 outside the thresholds or on one) and its weight,
// as segment_of in src/gpu/blend_play.c.
export function segmentOf(blend, p) {
    const t = blend.thresholds, last = t.length - 1;
    if (!(p > t[0])) {
        return { main: 0, partner: -1, weight: 0 };
    }
    if (p >= t[last]) {
        return { main: last, partner: -1, weight: 0 };
    }
    let i = 0;
    while (p >= t[i + 1]) {
        i++;
    }
    const w = f32(f32(p - t[i]) / f32(t[i + 1] - t[i]));
    return w > 0 ? { main: i, partner: i + 1, weight: w } : { main: i, partner: -1, weight: 0 };
}

// How a blend plays at p given its clips' durations: the main and partner
// clip (bake indices, partner -1: none), the partner's weight and the
// factor d_main / D by which the main clip's speed is the blend cycle's
// rate (D = lerp(d_main, d_partner, w)).
export function blendState(blend, clips, p) {
    const seg = segmentOf(blend, p);
    const main = blend.clips[seg.main];
    const partner = seg.partner >= 0 ? blend.clips[seg.partner] : -1;
    const dMain = f32(clips[main].duration_s);
    const dPartner = partner >= 0 ? f32(clips[partner].duration_s) : dMain;
    const cycle = lerp(dMain, dPartner, seg.weight);
    return { main, partner, weight: seg.weight, factor: cycle > 0 ? f32(dMain / cycle) : 1 };
}

// Speed matching: the blend's rate at ground speed v (float32, >= 0), as
// crowd_instance_set_ground_speed: the stride (planted foot's travel in one
// cycle) at v's weight between the measured ones, then v x cycle / stride.
export function groundRate(blend, clips, v) {
    const seg = segmentOf(blend, v);
    const main = blend.clips[seg.main];
    const partner = seg.partner >= 0 ? blend.clips[seg.partner] : main;
    const inner = seg.main < blend.clips.length - 1;
    const segment = inner ? seg.main : seg.main - 1;
    const at = inner ? f32(seg.weight * STRIDE_STEPS) : STRIDE_STEPS;
    const whole = Math.floor(at);
    const k = whole < STRIDE_STEPS ? whole : STRIDE_STEPS - 1;
    const s = blend.strides[segment];
    const stride = lerp(s[k], s[k + 1], f32(at - k));
    const cycle = lerp(f32(clips[main].duration_s), f32(clips[partner].duration_s), seg.weight);
    return stride > 0 ? f32(f32(v * cycle) / stride) : 1;
}
