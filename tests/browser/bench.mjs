// bench.mjs - three ways of drawing N animated robots in one headless
// chromium, one run, and their table:
//   skinned   three.js SkinnedMesh clones with an AnimationMixer each (the
//             way a web developer draws animated characters without crowd;
//             integrations/three/bench, way=skinned)
//   three     crowd's three.js player on a VAT bake (one InstancedMesh;
//             integrations/three/bench, way=crowd)
//   webgl2    crowd's WebGL2 player, crowd_runtime compiled to WebAssembly
//             (web/, built by make web into build/web/player), same bake
// with the same robot.glb, N, canvas size, camera and instances (crowd
// render's layout with seed 7: mixed clips, phases, speeds, headings;
// layout.mjs computes it for the three.js pages, the WebGL2 player lays it
// out itself in C). Each way is its own page load, so that its load time
// to the first frame and its bytes downloaded are its own: at each N, round
// r loads the three pages one after the other (starting with way r mod 3,
// so no way is always first), each page draws `warmup` frames, then
// `frames` measured ones, and closes. Per way and N: main-thread ms per
// frame (animation update + GL submission) median and p10-p90 of every
// round's frames, GPU wait (a 1-pixel readPixels after the frame, timed
// apart: gl.finish returns at once in Chromium) median, draw calls,
// navigation to the end of the first frame (median of the rounds) and
// bytes downloaded (the server's response bodies during the page's load;
// no compression), with ratios against skinned. Not part of `make test`
// (minutes on SwiftShader); `--smoke 1` (N = 1, one round, a few frames)
// (and a 5 fps bake) only checks that every way gives numbers and exits 1
// if one does not: CTest's test_web_bench_smoke.
//
//   node tests/browser/bench.mjs [--crowd build/release/crowd] [--models ../shared/models]
//        [--node-modules build/node/node_modules] [--web build/web/player]
//        [--counts 1,100,1000] [--frames 8] [--warmup 4] [--rounds 3]
//        [--size 320x180] [--fps F (the bake's; default its own)] [--smoke 1]
// CROWD_NODE_MODULES in the environment names the npm packages' folder in
// place of --node-modules, CROWD_MODELS_DIR the models' (browser.mjs).
// Exit 0 done, 1 a failure (a page or console error, a way without
// numbers, the CLI or the web build missing), 77 robot.glb missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importPuppeteer, launch } from './browser.mjs';
import { frameBox, renderInstances } from './layout.mjs';
import { serve } from './server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WAYS = ['skinned', 'three', 'webgl2'];
const LABELS = { skinned: 'three.js SkinnedMesh + AnimationMixer', three: "crowd's three.js player",
                 webgl2: "crowd's WebGL2 player (wasm)" };
const f = Math.fround;

function parse() {
    const args = { crowd: path.join(root, 'build/release/crowd'), models: path.join(root, '../shared/models'),
                   'node-modules': process.env.CROWD_NODE_MODULES ?? path.join(root, 'build/node/node_modules'),
                   web: path.join(root, 'build/web/player'), counts: '1,100,1000', frames: '8', warmup: '4',
                   rounds: '3', size: '320x180', smoke: '0' };
    for (let i = 2; i < process.argv.length; i += 2) {
        args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
    }
    if (process.env.CROWD_MODELS_DIR) {
        args.models = process.env.CROWD_MODELS_DIR;
    }
    if (args.smoke === '1') {
        // A 5 fps bake: a small VAT bakes and loads in seconds; the smoke
        // checks the ways run, not what they cost.
        Object.assign(args, { counts: '1', frames: '2', warmup: '1', rounds: '1', fps: '5' });
    }
    return args;
}

// The mesh's bind-pose bounds: POSITION's min / max in the GLB's JSON (as
// cases.mjs reads them).
function bindBounds(meshFile) {
    const glb = fs.readFileSync(meshFile);
    const json = JSON.parse(glb.toString('utf8', 20, 20 + glb.readUInt32LE(12)));
    const accessor = json.accessors[json.meshes[0].primitives[0].attributes.POSITION];
    return { bindMin: accessor.min, bindMax: accessor.max };
}

// crowd render --count n --seed 7's instances and automatic camera (every
// instance's bind-pose box framed), as window.benchScene.
function sceneOf(n, manifest, bind, aspect) {
    const instances = renderInstances({ count: n, seed: 7, clips: manifest.clips, ...bind });
    const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
    for (const { position } of instances) {
        for (let a = 0; a < 3; a++) {
            min[a] = Math.min(min[a], position[a] + bind.bindMin[a]);
            max[a] = Math.max(max[a], position[a] + bind.bindMax[a]);
        }
    }
    const { eye, target } = frameBox(min, max, aspect);
    return {
        eye: eye.map(f), target: target.map(f),
        instances: instances.map((d) => ({ ...d, clip: manifest.clips[d.clip].name,
                                           loop: manifest.clips[d.clip].loop !== false })),
    };
}

// One page of `way` at N = scene.instances.length: resolves to {samples,
// drawCalls, firstFrameMs, bytes}.
async function measure(browser, server, way, scene, args, bakeUrl) {
    const [width, height] = args.size.split('x').map(Number);
    const page = await browser.newPage(width, height + 40);
    const sentBefore = server.bytesSent();
    const errors = browser.errors.length;
    const frames = Number(args.frames), warmup = Number(args.warmup);
    let result;
    try {
        if (way === 'webgl2') {
            const q = new URLSearchParams({ bake: bakeUrl, count: String(scene.instances.length), seed: '7',
                                            bench: '1', size: args.size,
                                            camera: [...scene.eye, ...scene.target].join(',') });
            await page.goto(`${server.url}/player/player.html?${q}`);
            await page.waitForFunction((n) => window.crowdPlayer?.error !== null || window.crowdPlayer?.frames >= n,
                                       { polling: 100 }, warmup + frames);
            result = await page.evaluate((n) => {
                const p = window.crowdPlayer;
                return p.error !== null ? { error: p.error }
                                        : { samples: p.samples.slice(-n), drawCalls: p.drawCalls,
                                            firstFrameMs: p.firstFrameMs };
            }, frames);
        } else {
            await page.evaluateOnNewDocument((s) => {
                window.benchScene = s;
            }, scene);
            const q = new URLSearchParams({ way: way === 'skinned' ? 'skinned' : 'crowd', model: '/model/robot.glb',
                                            bake: bakeUrl, size: args.size, frames: String(frames),
                                            warmup: String(warmup) });
            await page.goto(`${server.url}/crowd/bench/index.html?${q}`);
            await page.waitForFunction(() => window.benchResult !== undefined || window.benchError !== undefined,
                                       { polling: 100 });
            result = await page.evaluate(() => window.benchResult ?? { error: window.benchError });
        }
    } finally {
        await page.close();
    }
    if (result.error || browser.errors.length > errors) {
        throw new Error(`${way} at N = ${scene.instances.length}: ${result.error ?? browser.errors.at(-1)}`);
    }
    return { ...result, bytes: server.bytesSent() - sentBefore };
}

// measure, with up to two more tries of a page whose only fault was a
// request chromium aborted (net::ERR_ABORTED: seen in a few runs of many on
// the robot model's fetch, twice in a row once, on a machine loaded by other
// work). Each retry is printed, and its error is kept out of the run's
// errors; any other error fails, and so does a third abort.
const ABORT_TRIES = 3;
async function measureOnce(browser, server, way, scene, args, bakeUrl) {
    for (let attempt = 1; ; attempt++) {
        const errors = browser.errors.length;
        try {
            return await measure(browser, server, way, scene, args, bakeUrl);
        } catch (e) {
            const fresh = browser.errors.slice(errors);
            if (attempt === ABORT_TRIES || fresh.length === 0 ||
                !fresh.every((x) => x.includes('net::ERR_ABORTED'))) {
                throw e;
            }
            console.log(`retried ${way} at N = ${scene.instances.length} (try ${attempt + 1}): ${fresh.join('; ')}`);
            browser.errors.length = errors;
        }
    }
}

const quantile = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

// Every round's pages of one way at one N, summed up.
function summary(runs) {
    const cpu = runs.flatMap((r) => r.samples.map((s) => s.cpuMs));
    const gpu = runs.flatMap((r) => r.samples.map((s) => s.gpuWaitMs));
    return { cpu: quantile(cpu, 0.5), p10: quantile(cpu, 0.1), p90: quantile(cpu, 0.9), gpu: quantile(gpu, 0.5),
             calls: runs.at(-1).drawCalls, load: quantile(runs.map((r) => r.firstFrameMs), 0.5),
             bytes: quantile(runs.map((r) => r.bytes), 0.5), frames: cpu.length };
}

const ms = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const ratio = (a, b) => {
    const r = a / b;
    return `${r >= 100 ? r.toFixed(0) : r.toFixed(1)}x`;
};

function table(rows) {
    // Each ratio against skinned is put so that > 1 is the way's gain on
    // main-thread time and its cost in load time and bytes.
    const lines = ['| N | way | main thread ms/frame, median (p10-p90) | GPU wait ms | draw calls | ' +
                   'load to first frame ms | MB downloaded | main thread: skinned / way | load: way / skinned | ' +
                   'bytes: way / skinned |', '|---|---|---|---|---|---|---|---|---|---|'];
    for (const r of rows) {
        const base = rows.find((o) => o.n === r.n && o.way === 'skinned');
        const vs = (a, b) => (r.way === 'skinned' ? '1x' : ratio(a, b));
        lines.push(`| ${r.n} | ${LABELS[r.way]} | ${ms(r.cpu)} (${ms(r.p10)}-${ms(r.p90)}) | ${ms(r.gpu)} | ` +
                   `${r.calls.toLocaleString('en-US')} | ${r.load.toFixed(0)} | ${(r.bytes / 1e6).toFixed(2)} | ` +
                   `${vs(base.cpu, r.cpu)} | ${vs(r.load, base.load)} | ${vs(r.bytes, base.bytes)} |`);
    }
    return lines.join('\n');
}

function check(rows) {
    const bad = rows.filter((r) => !(r.cpu > 0 && r.gpu >= 0 && r.calls > 0 && r.load > 0 && r.bytes > 0));
    for (const r of bad) {
        console.log(`FAIL: ${r.way} at N = ${r.n} gave no numbers: ${JSON.stringify(r)}`);
    }
    return bad.length === 0;
}

async function run(args, tmp) {
    const model = path.join(args.models, 'robot.glb');
    execFileSync(args.crowd, ['bake', model, '-o', path.join(tmp, 'robot'), '--quiet', '--encoding', 'unorm16_oct',
                              '--what', 'vat', ...(args.fps ? ['--fps', args.fps] : [])]);
    const manifestName = fs.readdirSync(path.join(tmp, 'robot')).find((n) => n.endsWith('.crowd.json'));
    const manifest = JSON.parse(fs.readFileSync(path.join(tmp, 'robot', manifestName), 'utf8'));
    const bind = bindBounds(path.join(tmp, 'robot', manifest.mesh));
    const puppeteer = await importPuppeteer(args['node-modules']);
    const server = await serve([['/crowd/node_modules/', args['node-modules']],
                                ['/crowd/', path.join(root, 'integrations/three')], ['/player/', args.web],
                                ['/bake/', tmp], ['/model/', args.models]]);
    const browser = await launch(puppeteer, tmp);
    const [width, height] = args.size.split('x').map(Number);
    const rows = [];
    try {
        for (const n of args.counts.split(',').map(Number)) {
            const scene = sceneOf(n, manifest, bind, width / height);
            const runs = { skinned: [], three: [], webgl2: [] };
            for (let r = 0; r < Number(args.rounds); r++) {
                for (let k = 0; k < WAYS.length; k++) {
                    const way = WAYS[(r + k) % WAYS.length];
                    runs[way].push(await measureOnce(browser, server, way, scene, args, `/bake/robot/${manifestName}`));
                    process.stderr.write(`N = ${n}, round ${r + 1}: ${way} done\n`);
                }
            }
            rows.push(...WAYS.map((way) => ({ n, way, ...summary(runs[way]) })));
        }
        const cpu = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1];
        console.log(table(rows));
        console.log(`\n${os.cpus().length} CPUs (${cpu}), ${await browser.version()}, WebGL2 on SwiftShader, ` +
                    `${args.size}, ${args.rounds} rounds x ${args.frames} frames after ${args.warmup} warm-up ` +
                    'frames per page');
        for (const e of browser.errors) {
            console.log(`FAIL: page: ${e}`);
        }
        return check(rows) && browser.errors.length === 0;
    } finally {
        await browser.close();
        await server.close();
    }
}

async function main() {
    const args = parse();
    if (!fs.existsSync(path.join(args.models, 'robot.glb'))) {
        console.log(`SKIP: ${path.join(args.models, 'robot.glb')} not found (../shared/models absent)`);
        return 77;
    }
    const missing = [args.crowd, path.join(args.web, 'player.wasm')].filter((p) => !fs.existsSync(p));
    if (missing.length > 0) {
        console.log(`FAIL: ${missing.join(', ')} not found (the CLI: cmake --build; the player: make web)`);
        return 1;
    }
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-bench-'));
    const started = Date.now();
    try {
        const ok = await run(args, tmp);
        console.log(`${ok ? 'done' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
        return ok ? 0 : 1;
    } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
    }
}

main().then((code) => process.exit(code), (e) => {
    console.log(`FAIL: ${e.stack ?? e}`);
    process.exit(1);
});
