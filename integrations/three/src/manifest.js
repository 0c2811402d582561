// manifest.js - reads a bake's NAME.crowd.json (docs/manifest.md) and checks
// what the player relies on, so a wrong or unsupported bake fails here with
// its file and reason instead of drawing garbage later.
import { readBlends } from './blend.js';

const VAT_ENCODINGS = ['unorm16_oct', 'f16', 'f32'];
const BAT_ENCODINGS = ['f32', 'f16'];

function fail(url, what) {
    return new Error(`crowd: ${url}: ${what}`);
}

function isCount(n, min, max) {
    return Number.isInteger(n) && n >= min && n <= max;
}

// Frame layouts (crowd_frame_layout of include/crowd/anim.h, docs/time.md):
// version 3 bakes END for every clip, versions 1 and 2 WRAP for looping and
// CLAMP for one-shot clips.
export const FRAMES_END = 0, FRAMES_WRAP = 1, FRAMES_CLAMP = 2;

// Frames of an END layout (crowd_anim_frame_count): 1 for a still clip, else
// 1 + ceil(d * fps) with a thousandth of a frame of slack, from the float32
// duration and rate the runtime reads.
export function endFrameCount(duration, fps) {
    const d = Math.fround(duration), rate = Math.fround(fps);
    if (!(d > 0)) {
        return 1;
    }
    return 1 + Math.max(1, Math.ceil(d * rate - 1e-3));
}

function checkTexture(url, name, t, elementsPerFrame, frames) {
    if (!isCount(t.width, 1, 16384) || !isCount(t.height, 1, 16384) ||
        t.rows_per_frame !== Math.ceil(elementsPerFrame / t.width) ||
        t.height !== frames * t.rows_per_frame) {
        throw fail(url, `${name}: ${t.width}x${t.height}, ${t.rows_per_frame} rows a frame ` +
                        `does not hold ${frames} frames of ${elementsPerFrame} texels`);
    }
}

// A clip's optional events (docs/manifest.md): names of 1 to 64 bytes
// without control characters at times in [0, duration_s], in time order.
function checkEvents(url, c) {
    if (c.events === undefined) {
        return;
    }
    if (!Array.isArray(c.events)) {
        throw fail(url, `clip "${c.name}": events is not an array`);
    }
    let last = 0;
    for (const e of c.events) {
        const bytes = typeof e?.name === 'string' ? new TextEncoder().encode(e.name).length : 0;
        if (bytes < 1 || bytes > 64 || /[\u0000-\u001f\u007f]/.test(e.name) ||
            typeof e.time_s !== 'number' || !(e.time_s >= last && e.time_s <= c.duration_s)) {
            throw fail(url, `clip "${c.name}": event ${JSON.stringify(e)} is unnamed, out of ` +
                            `order or outside the clip's ${c.duration_s} s`);
        }
        last = e.time_s;
    }
}

// The socket tracks' names (docs/manifest.md socket_tracks.names): [] for a
// bake without socket tracks or written before the names.
function readSocketNames(url, tracks) {
    const names = tracks?.names;
    if (names === undefined) {
        return [];
    }
    if (!Array.isArray(names) || names.length !== tracks.sockets ||
        !names.every((n) => typeof n === 'string' && n !== '') || new Set(names).size !== names.length) {
        throw fail(url, `socket_tracks.names must be ${tracks.sockets} different names`);
    }
    return names;
}

// Fetches and checks the manifest; returns it with `url` (absolute),
// `fileUrl(name)` resolving the files it names, and every clip's `fps` and
// frame `layout` (FRAMES_*) whatever the version, and `blendList`, its
// blends resolved (blend.js).
export async function loadManifest(url) {
    const absolute = new URL(url, globalThis.location?.href).href;
    const response = await fetch(absolute);
    if (!response.ok) {
        throw fail(absolute, `HTTP ${response.status} ${response.statusText}`);
    }
    let m;
    try {
        m = await response.json();
    } catch (e) {
        throw fail(absolute, `not JSON (${e.message})`);
    }
    if (m.format !== 'crowd-bake') {
        throw fail(absolute, 'not a crowd bake manifest (format is not "crowd-bake")');
    }
    // Version 2 only adds members (lods, per-clip bounds) to version 1's;
    // version 3 gives every clip its own fps and the END layout; version 4
    // adds the runtime clips (anim), which a VAT player does not need.
    if (m.version !== 1 && m.version !== 2 && m.version !== 3 && m.version !== 4) {
        throw fail(absolute, `manifest version ${m.version}; this player reads 1 to 4`);
    }
    const perClip = m.version >= 3;
    if (!isCount(m.vertex_count, 1, 1 << 30) || !isCount(m.frame_count, 1, 16384) ||
        !(perClip || m.fps > 0) || !Array.isArray(m.clips) || m.clips.length === 0) {
        throw fail(absolute, 'vertex_count, frame_count, fps or clips missing or out of range');
    }
    let next = 0;
    for (const c of m.clips) {
        if (c.first_frame !== next || !isCount(c.frame_count, 1, m.frame_count) ||
            !(c.duration_s >= 0) || typeof c.loop !== 'boolean') {
            throw fail(absolute, `clip "${c.name}": frames, duration or loop flag do not hold`);
        }
        if (perClip) {
            if (!(c.fps > 0) || !Number.isFinite(c.fps)) {
                throw fail(absolute, `clip "${c.name}": fps ${c.fps} is not a positive number`);
            }
            const want = endFrameCount(c.duration_s, c.fps);
            if (c.frame_count !== want) {
                throw fail(absolute, `clip "${c.name}": ${c.frame_count} frames, but ${c.duration_s} s ` +
                                     `at ${c.fps} fps has ${want} (docs/time.md)`);
            }
            c.layout = FRAMES_END;
        } else {
            c.fps = m.fps;
            c.layout = c.loop ? FRAMES_WRAP : FRAMES_CLAMP;
        }
        checkEvents(absolute, c);
        if (c.ground_speed !== undefined && !(Number.isFinite(c.ground_speed) && c.ground_speed >= 0)) {
            throw fail(absolute, `clip "${c.name}": ground_speed ${c.ground_speed} is not a number >= 0`);
        }
        next += c.frame_count;
    }
    if (next !== m.frame_count) {
        throw fail(absolute, `clips hold ${next} frames, frame_count says ${m.frame_count}`);
    }
    if (m.vat) {
        if (!VAT_ENCODINGS.includes(m.vat.encoding)) {
            throw fail(absolute, `VAT encoding "${m.vat.encoding}" is not one of ${VAT_ENCODINGS}`);
        }
        checkTexture(absolute, 'vat', m.vat, m.vertex_count, m.frame_count);
    }
    if (m.bat) {
        if (!BAT_ENCODINGS.includes(m.bat.encoding)) {
            throw fail(absolute, `BAT encoding "${m.bat.encoding}" is not one of ${BAT_ENCODINGS}`);
        }
        checkTexture(absolute, 'bat', m.bat, 3 * m.joint_count, m.frame_count);
    }
    if (!m.vat && !m.bat) {
        throw fail(absolute, 'the bake has neither a VAT nor a BAT');
    }
    m.blendList = readBlends(absolute, m);
    m.socketNames = readSocketNames(absolute, m.socket_tracks);
    m.url = absolute;
    m.fileUrl = (name) => new URL(name, absolute).href;
    return m;
}
