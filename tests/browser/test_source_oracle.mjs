// test_source_oracle.mjs - crowd's playback against the source file as
// three.js itself plays it (issue 17, item 5). For robot.glb, greenman.glb
// and RiggedFigure.glb (those ../shared/models has), every clip, 10 clip
// times each: three's GLTFLoader SkinnedMesh + AnimationMixer on the source
// .glb (page/oracle.js) is the reference; the bake (`crowd bake MODEL`) is
// played by crowd's three.js player (page/scene.js) and drawn by `crowd
// render` (the C runtime), in vat and bat, with one character, the same clip
// time and camera. Compared: the silhouettes' overlap (IoU of the pixels off
// the sky colour). Time kinds, from the manifest's frames (frame k of a clip
// at k / fps, the clip's own fps when the manifest has one):
//   baked  on a baked frame (frames 0, N/3, 2N/3, N-2)
//   mid    halfway between two baked frames
//   seam   a looping clip within 1 ms of its loop seam (before and after d)
//   end    a one-shot clip 0.5 ms before its duration d, at d, and held past d
// Checks: every overlap >= OVERLAP_MIN; the oracle itself (three's reference
// against `crowd render` of an f32 VAT bake at the baked times) >=
// ORACLE_MIN; a control case (the player and crowd render a quarter of the
// clip later than the reference) below CONTROL_MAX, so the comparison can
// fail. Prints a table of every overlap and the minimum per time kind and
// player.
//
//   node test_source_oracle.mjs --crowd CLI --models DIR --node-modules DIR
//                               [--only REGEX]  (MODEL/CLIP names to run)
//                               [--size N]      (pixels a side, default 200)
//                               [--pictures 1]  (write every picture, keep the folder)
//
// Exit 0 all passed (a "SKIP:" line for each model not in DIR); 1 a failure
// (an overlap, a page or console error, chromium that does not start, npm
// packages missing, the CLI not built); 77 nothing ran (none of the models
// in DIR). Works in a temporary folder of its own, kept with the worst
// pictures when something fails.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importPuppeteer, parseArgs, withBrowser } from './browser.mjs';
import { compare } from './compare.mjs';
import { framePoints } from './layout.mjs';
import { readPng, writePng } from './png.mjs';
import { run } from './reference.mjs';
import { serve } from './server.mjs';

// The issue's bar for every player, mode and time; the oracle's own bar at
// baked frames (f32, where crowd's bake is exact); the control's ceiling.
const OVERLAP_MIN = 0.995;
const ORACLE_MIN = 0.999;
const CONTROL_MAX = 0.9;
const SIZE = 200; // pixels a side (--size to change)
const ORACLE_SCALE = 3;
// `crowd render` processes at once (each is one short EGL context).
const RENDER_JOBS = 2;

// Each model's control clip: one with large motion over a quarter of it.
const MODELS = [
    { file: 'robot.glb', control: 'Robot_Punch' },
    { file: 'greenman.glb', control: '3_attack' },
    { file: 'RiggedFigure.glb', control: 'clip_0' },
];
const PLAYERS = ['three-vat', 'three-bat', 'render-vat', 'render-bat'];
const KINDS = ['baked', 'mid', 'seam', 'end'];

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const f = Math.fround;



// [{kind, time}] of one manifest clip: 4 baked frames, 3 mid-frames, 3 at
// the seam or end (fewer baked and mid when the clip has few frames).
function clipTimes(clip, manifest) {
    const fps = clip.fps ?? manifest.fps;
    const n = clip.frame_count, d = clip.duration_s;
    const frame = (k) => k / fps;
    // Frames 0..N-2: the last frame's time is what the time rule changes
    // (round(d * fps) / fps today, d in version 3), these are not.
    const inner = Math.max(0, n - 2);
    const pick = (ks) => [...new Set(ks.map((k) => Math.min(inner, Math.max(0, Math.round(k)))))]
        .filter((k) => frame(k) < d || (k === 0));
    const out = [];
    for (const k of pick([0, n / 3, (2 * n) / 3, n - 2])) {
        out.push({ kind: 'baked', time: frame(k) });
    }
    for (const k of pick([n / 6, n / 2, n - 3]).filter((k) => k + 1 <= n - 1 && frame(k + 0.5) < d)) {
        out.push({ kind: 'mid', time: frame(k + 0.5) });
    }
    const ends = clip.loop ? [d - 0.0008, d - 0.0002, d + 0.0005] : [d - 0.0005, d, d + 0.5];
    for (const time of ends) {
        out.push({ kind: clip.loop ? 'seam' : 'end', time });
    }
    return out;
}

function pixelsOf(base64) {
    return new Uint8Array(Buffer.from(base64, 'base64'));
}

// Runs `crowd render` jobs RENDER_JOBS at a time; render(args) resolves to
// the picture's pixels.
function renderPool(crowd) {
    const queue = [];
    let running = 0;
    const next = () => {
        while (running < RENDER_JOBS && queue.length > 0) {
            const { args, resolve, reject } = queue.shift();
            running++;
            execFile(crowd, args, { encoding: 'utf8' }, (error, stdout, stderr) => {
                running--;
                if (error) {
                    reject(new Error(`crowd ${args.join(' ')}: ${stderr || error.message}`));
                } else {
                    try {
                        resolve(readPng(fs.readFileSync(args[args.indexOf('-o') + 1])).data);
                    } catch (e) {
                        reject(e);
                    }
                }
                next();
            });
        }
    };
    return (args) => new Promise((resolve, reject) => {
        queue.push({ args, resolve, reject });
        next();
    });
}

// One model: bake it (vat + bat; f32 vat for the oracle check), check that
// three and crowd see the same clips, then per clip draw every time with
// every player. Returns rows {model, clip, kind, time, player, iou, ...}.
async function oracleModel(page, render, spec, models, tmp, { only, worst, size, keepAll }) {
    const name = path.basename(spec.file, '.glb');
    const dir = path.join(tmp, name), exact = path.join(tmp, `${name}_f32`);
    const source = path.join(models, spec.file);
    run(spec.crowd, ['bake', source, '-o', dir, '--quiet']);
    run(spec.crowd, ['bake', source, '-o', exact, '--quiet', '--what', 'vat', '--encoding', 'f32']);
    const manifestFile = fs.readdirSync(dir).find((x) => x.endsWith('.crowd.json'));
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, manifestFile), 'utf8'));
    const three = await page.evaluate((url) => window.loadSource(url), `/models/${spec.file}`);
    const rows = [], problems = [];
    if (three.clips.length !== manifest.clips.length) {
        problems.push(`${name}: three sees ${three.clips.length} clips, the bake ${manifest.clips.length}`);
        return { rows, problems };
    }
    const pending = [];
    for (const [index, clip] of manifest.clips.entries()) {
        // Clips in the file's order; three names an unnamed one animation_K,
        // crowd clip_K. Durations: crowd's float32 against three's double.
        const mine = three.clips[index];
        if (Math.abs(mine.duration - clip.duration_s) > 1e-4) {
            problems.push(`${name} ${clip.name}: duration ${clip.duration_s} s in the bake, ` +
                          `${mine.duration} s in three`);
        }
        if (!only.test(`${name}/${clip.name}`)) {
            continue;
        }
        // Each time's camera frames the source's pose at that time (a clip's
        // whole box, e.g. Robot_Death falling 6 m back, leaves the figure
        // small and the overlap dominated by its edge pixels).
        const times = clipTimes(clip, manifest);
        const url = `/models/${spec.file}`;
        const points = await page.evaluate((s) => window.sourcePoints(s),
            { url, clip: index, loop: clip.loop, times: times.map((t) => t.time) });
        times.forEach((t, i) => {
            const { eye, target } = framePoints(points[i], 1);
            t.view = { width: size, height: size, eye: eye.map(f), target: target.map(f) };
            t.reference = i;
        });
        // The oracle's own check, at the baked times: crowd's f32 VAT (exact
        // there) drawn by the player in the same rasterizer as the reference,
        // and by crowd render at ORACLE_SCALE times the size (llvmpipe and
        // SwiftShader differ at a few edge pixels, their share of the
        // silhouette falls with its size).
        const checks = times.filter((t) => t.kind === 'baked').map((t, i) => {
            const { eye, target } = framePoints(points[times.indexOf(t)], 1);
            return { kind: 'oracle', time: t.time, reference: times.length + i,
                     view: { width: ORACLE_SCALE * size, height: ORACLE_SCALE * size,
                             eye: eye.map(f), target: target.map(f) } };
        });
        const reference = (await page.evaluate((s) => window.renderSource(s),
            { url, clip: index, loop: clip.loop,
              shots: [...times, ...checks].map((t) => ({ time: t.time, ...t.view })) })).map(pixelsOf);
        // The control: a quarter of the clip after the second baked time,
        // against that time's reference, with its camera.
        const at = times.filter((t) => t.kind === 'baked')[1] ?? times[0];
        const control = clip.name === spec.control
            ? { kind: 'control', time: at.time + clip.duration_s / 4, view: at.view, reference: at.reference }
            : null;
        const stem = (t, player) => path.join(tmp, `${name}_${clip.name}_${t.time.toFixed(4)}_${player}`);
        const record = (t, player, got) => {
            const want = reference[t.reference], { width, height } = t.view;
            const r = compare(want, got, width, height);
            const row = { model: name, clip: clip.name, kind: t.kind, time: t.time, player,
                          iou: r.iou, pixels: r.pixels, stem: stem(t, player) };
            row.ok = (row.kind === 'control' ? r.iou < CONTROL_MAX
                : row.kind === 'oracle' ? r.iou >= ORACLE_MIN : r.iou >= OVERLAP_MIN) && r.pixels > 100;
            rows.push(row);
            if (keepAll) {
                fs.writeFileSync(`${row.stem}.png`, writePng(width, height, got));
                fs.writeFileSync(`${stem(t, `source${width}`)}.png`, writePng(width, height, want));
            }
            // The pictures of the worst failure per time kind and player are
            // kept, to be written at the end.
            const key = `${row.kind} ${player}`, before = worst.get(key);
            if (!row.ok && (!before || row.iou < before.iou)) {
                if (before) {
                    delete before.pictures;
                }
                row.pictures = { want, got, diff: r.diff, width, height };
                worst.set(key, row);
            }
        };
        const shots = control ? [...times, control] : times;
        const player = async (t, bake, mode) => pixelsOf((await page.evaluate((s) => window.renderStill(s),
            { bake, mode, ...t.view, time: t.time, instances: [{ clip: clip.name }] })).pixels);
        for (const mode of ['vat', 'bat']) {
            for (const t of shots) {
                record(t, `three-${mode}`, await player(t, `/bake/${name}/${manifestFile}`, mode));
            }
        }
        for (const t of checks) {
            record(t, 'three-f32', await player(t, `/bake/${name}_f32/${manifestFile}`, 'vat'));
        }
        // crowd render: vat and bat at every time (and the control), the f32
        // VAT at the baked ones (the oracle's own check).
        const draw = (t, folder, mode, player) => {
            const cameraArg = [...t.view.eye, ...t.view.target].join(',');
            pending.push(render(['render', folder, '-o', `${stem(t, player)}_crowd.png`, '--mode', mode,
                                 '--count', '1', '--clip', clip.name, '--time', String(t.time),
                                 '--size', `${t.view.width}x${t.view.height}`, '--no-ground',
                                 '--camera', cameraArg])
                .then((got) => record(t, player, got)));
        };
        for (const t of shots) {
            draw(t, dir, 'vat', 'render-vat');
            if (t.kind !== 'control') {
                draw(t, dir, 'bat', 'render-bat');
            }
        }
        for (const t of checks) {
            draw(t, exact, 'vat', 'render-f32');
        }
    }
    await Promise.all(pending);
    return { rows, problems };
}

function report(rows) {
    let failures = 0;
    console.log('model         clip              kind     time s    player      IoU');
    for (const r of rows) {
        const ok = r.ok;
        failures += ok ? 0 : 1;
        console.log(`${r.model.padEnd(13)} ${r.clip.padEnd(17)} ${r.kind.padEnd(8)} ${r.time.toFixed(4).padStart(7)}` +
                    `   ${r.player.padEnd(10)}  ${r.iou.toFixed(4)}${ok ? '' : '  FAIL'}`);
    }
    // The minimum (and where) per time kind and player, over every model,
    // then per model. The oracle row's columns are three-f32, render-f32.
    const models = [...new Set(rows.map((r) => r.model))];
    for (const model of [null, ...models]) {
        const mine = rows.filter((r) => model === null || r.model === model);
        console.log(`\nminimum overlap per time kind and player, ${model ?? 'all models'} ` +
                    `(bar ${OVERLAP_MIN}; oracle ${ORACLE_MIN}; control below ${CONTROL_MAX})`);
        console.log(`kind      ${PLAYERS.map((p) => p.padStart(24)).join('')}`);
        for (const kind of [...KINDS, 'oracle', 'control']) {
            const cells = (kind === 'oracle' ? ['three-f32', 'render-f32'] : PLAYERS).map((player) => {
                const these = mine.filter((r) => r.kind === kind && r.player === player);
                if (these.length === 0) {
                    return '-'.padStart(24);
                }
                const worst = these.reduce((x, y) => (y.iou < x.iou ? y : x));
                const where = `${worst.clip.replace(/^Robot_/, '')}@${worst.time.toFixed(4)}`;
                return `${worst.iou.toFixed(4)} ${where}`.padStart(24);
            });
            console.log(`${kind.padEnd(10)}${cells.join('')}`);
        }
    }
    return failures;
}

async function main() {
    const args = parseArgs();
    if (!args.crowd || !fs.existsSync(args.crowd)) {
        console.log(`FAIL: the crowd CLI is not built (${args.crowd})`);
        return 1;
    }
    const present = MODELS.filter((m) => fs.existsSync(path.join(args.models ?? '', m.file)));
    if (present.length === 0) {
        console.log(`SKIP: none of ${MODELS.map((m) => m.file).join(', ')} in ${args.models}`);
        return 77;
    }
    for (const m of MODELS.filter((x) => !present.includes(x))) {
        console.log(`SKIP: ${path.join(args.models, m.file)} not found (../shared/models absent), not tested`);
    }
    const puppeteer = await importPuppeteer(args['node-modules']);
    const only = new RegExp(args.only ?? '');
    const size = Number(args.size ?? SIZE);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-oracle-'));
    const started = Date.now();
    const server = await serve([['/crowd/node_modules/', args['node-modules']],
                                ['/crowd/test/', path.join(here, 'page')],
                                ['/crowd/', path.join(root, 'integrations/three')],
                                ['/models/', args.models],
                                ['/bake/', tmp]]);
    let failures = 0;
    const rows = [], worst = new Map();
    failures += await withBrowser(puppeteer, tmp, async (browser) => {
        let found = 0;
        const page = await browser.newPage(size, size);
        await page.goto(`${server.url}/crowd/test/oracle.html`);
        await page.waitForFunction(() => window.oraclePageReady === true && window.crowdPageReady === true);
        const render = renderPool(args.crowd);
        // --only MODEL/CLIP: the models its MODEL part names (no bake of others).
        const modelOnly = new RegExp((args.only ?? '').split('/')[0]);
        for (const m of present.filter((x) => modelOnly.test(path.basename(x.file, '.glb')))) {
            const r = await oracleModel(page, render, { ...m, crowd: args.crowd }, args.models, tmp,
                                         { only, worst, size, keepAll: 'pictures' in args });
            rows.push(...r.rows);
            for (const p of r.problems) {
                console.log(`FAIL: ${p}`);
            }
            found += r.problems.length;
        }
        return found;
    });
    await server.close();
    const order = (r) => [r.model, r.clip, r.time, r.kind === 'oracle' ? 1 : 0,
                         PLAYERS.indexOf(r.player)];
    rows.sort((a, b) => {
        const [x, y] = [order(a), order(b)];
        const i = x.findIndex((v, k) => v !== y[k]);
        return i < 0 ? 0 : x[i] < y[i] ? -1 : 1;
    });
    failures += report(rows);
    if (!rows.some((r) => r.kind === 'control')) {
        console.log('FAIL: no control case ran');
        failures++;
    }
    for (const r of worst.values()) {
        const { want, got, diff, width, height } = r.pictures;
        fs.writeFileSync(`${r.stem}_source.png`, writePng(width, height, want));
        fs.writeFileSync(`${r.stem}_got.png`, writePng(width, height, got));
        fs.writeFileSync(`${r.stem}_diff.png`, writePng(width, height, diff));
    }
    console.log(`${failures === 0 ? 'passed' : `${failures} failures`} in ` +
                `${((Date.now() - started) / 1000).toFixed(0)} s (${rows.length} comparisons, ${size}x${size})`);
    if (failures === 0 && !('pictures' in args)) {
        fs.rmSync(tmp, { recursive: true, force: true });
    } else {
        console.log(`pictures and bakes kept in ${tmp}`);
    }
    return failures === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
    console.log(`FAIL: ${e.stack ?? e}`);
    process.exit(1);
});
