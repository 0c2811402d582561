// cases.mjs - what the browser test bakes and draws: per model, one bake per
// encoding, and per bake four scenes, each with the command that makes
// crowd's own picture of it and the spec that makes the page's.
import fs from 'node:fs';
import path from 'node:path';
import { frameBox, renderInstances } from './layout.mjs';

export const MODELS = [
    { name: 'builtin', source: 'builtin:', loop: 'walk', once: 'die', fadeTo: 'wave',
      bake: ['--blend', 'locomotion=walk,run'] },
    { name: 'robot', file: 'robot.glb', loop: 'Robot_Walking', once: 'Robot_Death',
      fadeTo: 'Robot_Punch' },
];

// bake options, and the mode the bake is played in
export const ENCODINGS = [
    { name: 'unorm16_oct', mode: 'vat', options: ['--what', 'vat', '--encoding', 'unorm16_oct'] },
    { name: 'f16', mode: 'vat', options: ['--what', 'vat', '--encoding', 'f16'] },
    { name: 'f32', mode: 'vat', options: ['--what', 'vat', '--encoding', 'f32'] },
    { name: 'bat', mode: 'bat', options: ['--what', 'bat'] },
    { name: 'bat_f16', mode: 'bat', options: ['--what', 'bat', '--bat-encoding', 'f16'] },
];

const SINGLE = [320, 240];
const CROWD = [640, 480];
const f = Math.fround;

// The mesh's bind-pose bounds: POSITION's min / max in the GLB's JSON.
function bindBounds(meshFile) {
    const glb = fs.readFileSync(meshFile);
    const json = JSON.parse(glb.toString('utf8', 20, 20 + glb.readUInt32LE(12)));
    const accessor = json.accessors[json.meshes[0].primitives[0].attributes.POSITION];
    return { bindMin: accessor.min, bindMax: accessor.max };
}

function camera(box, width, height) {
    const { eye, target } = frameBox(box.min, box.max, width / height);
    return { eye: eye.map(f), target: target.map(f) };
}

// Every instance's box: its position plus the bind-pose bounds (as crowd
// render's automatic camera frames a crowd; the animated bounds, with a
// character lying down, would leave the figures smaller).
function crowdBox(instances, bounds) {
    const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
    for (const { position } of instances) {
        for (let a = 0; a < 3; a++) {
            min[a] = Math.min(min[a], position[a] + bounds.min[a]);
            max[a] = Math.max(max[a], position[a] + bounds.max[a]);
        }
    }
    return { min, max };
}

// The blend scenes of a bake with blends (builtin:'s walk-run
// `locomotion`): one instance at weights 0.25, 0.5 and 0.75 of run, moved
// along the blend (phase kept), and crossfades into and out of the blend,
// each drawn by fade_render's steps (`fade` = its leading arguments).
function blendScenes(model, manifest, base, fade) {
    const blend = manifest.blends?.[0];
    if (!blend) {
        return [];
    }
    const speed = (name) => manifest.clips.find((c) => c.name === name).ground_speed;
    const [t0, t1] = blend.thresholds ?? blend.clips.map(speed);
    // The parameter as both sides read it: one float32, printed once.
    const at = (w) => String(Math.fround(t0 + w * (t1 - t0)));
    const scene = (name, first, time, steps) => {
        const plays = steps.map((s) => {
            const f = s.split(':');
            return f[0] === 'b' ? { at: Number(f[1]), instance: 0, blend: f[2], parameter: Number(f[3]), fade: Number(f[4]) }
                : f[0] === 'v' ? { at: Number(f[1]), instance: 0, parameter: Number(f[2]) }
                    : { at: Number(f[1]), instance: 0, clip: f[2], fade: Number(f[3]) };
        });
        return { name, reference: { tool: 'fade', args: [...fade, first, String(time), ...steps] },
                 spec: { ...base, time, instances: [{ clip: first }], plays } };
    };
    return [
        ...[0.25, 0.5, 0.75].map((w) => scene(`blend_${w * 100}`, 'idle', 0.47,
                                              [`b:0.1:${blend.name}:${at(w)}:0`])),
        scene('blend_move', 'idle', 0.6, [`b:0.1:${blend.name}:${at(0.25)}:0`, `v:0.35:${at(0.75)}`]),
        scene('blend_fade_in', model.loop, 0.55, [`b:0.3:${blend.name}:${at(0.5)}:0.5`]),
        scene('blend_fade_out', 'idle', 0.65, [`b:0.1:${blend.name}:${at(0.75)}:0`,
                                               `p:0.4:${model.fadeTo}:0.5`]),
    ];
}

// [{name, reference: {tool: 'render' | 'fade', args}, spec}] for a bake in
// (with `blends`, the blend scenes too, for players that play blends)
// `dir` (its manifest `manifest`, served at `url`).
export function scenes(model, encoding, dir, manifest, url, { blends = false } = {}) {
    const mode = encoding.mode;
    const once = manifest.clips.find((c) => c.name === model.once);
    const single = camera(manifest.bounds, ...SINGLE);
    const base = { bake: url, mode, width: SINGLE[0], height: SINGLE[1], ...single };
    const cameraArg = [...single.eye, ...single.target].join(',');
    const render = (width, height, time, cam, extra) => [
        dir, '--mode', mode, '--size', `${width}x${height}`, '--time', String(time), '--no-ground',
        '--camera', cam, ...extra];
    const out = [
        { name: 'loop', reference: { tool: 'render', args: render(...SINGLE, 0.37, cameraArg,
                                                                  ['--clip', model.loop]) },
          spec: { ...base, time: 0.37, instances: [{ clip: model.loop }] } },
        { name: 'once_end', reference: { tool: 'render',
                                         args: render(...SINGLE, once.duration_s + 0.5, cameraArg,
                                                      ['--clip', model.once]) },
          spec: { ...base, time: once.duration_s + 0.5, instances: [{ clip: model.once }] } },
        { name: 'crossfade_mid', reference: { tool: 'fade',
                                              args: [dir, mode, ...SINGLE, cameraArg, model.loop,
                                                     model.fadeTo, '0.4', '0.5', '0.65'] },
          spec: { ...base, time: 0.65, instances: [{ clip: model.loop }],
                  plays: [{ at: 0.4, instance: 0, clip: model.fadeTo, fade: 0.5 }] } },
    ];
    out.push(...(blends ? blendScenes(model, manifest, base, [dir, mode, ...SINGLE, cameraArg]) : []));
    const bind = bindBounds(path.join(dir, manifest.mesh));
    const instances = renderInstances({ count: 100, seed: 7, clips: manifest.clips, ...bind });
    const many = camera(crowdBox(instances, { min: bind.bindMin, max: bind.bindMax }), ...CROWD);
    out.push({ name: 'crowd100',
               reference: { tool: 'render', args: render(...CROWD, 0.8, [...many.eye, ...many.target].join(','),
                                                         ['--count', '100', '--seed', '7']) },
               spec: { ...base, width: CROWD[0], height: CROWD[1], ...many, time: 0.8, instances } });
    return out;
}
