// time_cases.mjs - the clip-time rule's case table
// (tests/common/clip_time_cases.json, docs/time.md) for the runners that put
// it through an engine player's code (test_time_cases.mjs: three.js's GLSL
// in chromium; test_godot3_time_cases.mjs: the Godot shader in Godot 3),
// and the comparison the C tests make (tests/common/clip_time_cases.h).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TABLE = path.join(root, 'tests/common/clip_time_cases.json');
const LAYOUTS = { end: 0, wrap: 1, clamp: 2 };

// The table with every case's inputs as the players take them: float32
// inputs = [clock, start, offset, speed, duration, fps, frame_count,
// layout + 4 if looping] (layout as shader.js's CROWD_FRAMES_*).
export function loadCases() {
    const table = JSON.parse(fs.readFileSync(TABLE, 'utf8'));
    const cases = table.cases.map((c, index) => {
        const clip = table.clips[c.clip];
        if (!clip || !(clip.layout in LAYOUTS) || typeof c.loop !== 'boolean') {
            throw new Error(`${TABLE}: case ${index} (${c.why}) names no known clip or layout`);
        }
        const inputs = [c.clock_s, c.start_s, c.offset_s, c.speed, clip.duration_s, clip.fps,
                        clip.frame_count, LAYOUTS[clip.layout] + (c.loop ? 4 : 0)];
        if (!inputs.every(Number.isFinite)) {
            throw new Error(`${TABLE}: case ${index} (${c.why}) has an input that is not a number`);
        }
        return { ...c, index, layout: clip.layout, inputs };
    });
    if (cases.length < 40 || !(table.time_tolerance_s > 0) || !(table.weight_tolerance > 0)) {
        throw new Error(`${TABLE}: ${cases.length} cases or tolerances missing`);
    }
    return { cases, timeTolerance: table.time_tolerance_s, weightTolerance: table.weight_tolerance };
}

// Whether got = {time, frame0, frame1, weight} answers case c: the same
// frames, clip time and weight within the tolerances; a weight within
// tolerance of 1 is also the next pair's weight 0, and a weight of 0 makes
// frame1 irrelevant (clip_time_matches of clip_time_cases.h).
export function matches(table, c, got) {
    if (!(Math.abs(got.time - c.time_s) <= table.timeTolerance)) {
        return false;
    }
    const tol = table.weightTolerance;
    if (got.frame0 === c.frame0 && Math.abs(got.weight - c.weight) <= tol) {
        return c.weight <= tol || got.frame1 === c.frame1;
    }
    if (c.weight <= tol && got.frame1 === c.frame0 && Math.abs(1 - got.weight) <= tol) {
        return true;
    }
    return c.weight >= 1 - tol && got.frame0 === c.frame1 && got.weight <= tol;
}

// Prints a line per case that fails (and the count); returns the failures.
// results[i] = {time, frame0, frame1, weight} of case i.
export function report(table, results, who) {
    let failures = 0;
    for (const c of table.cases) {
        const got = results[c.index];
        if (!got || !matches(table, c, got)) {
            failures++;
            const have = got ? `time ${got.time} frames ${got.frame0},${got.frame1} weight ${got.weight}` : 'nothing';
            console.log(`FAIL case ${c.index} (${c.clip}, ${c.why}): ${have}; want time ${c.time_s} ` +
                        `frames ${c.frame0},${c.frame1} weight ${c.weight}`);
        }
    }
    console.log(`${who}: ${table.cases.length - failures} of ${table.cases.length} cases agree ` +
                `(time within ${table.timeTolerance} s, weight within ${table.weightTolerance})`);
    return failures;
}
