// test_web_player.mjs - crowd's WebGL2 player (web/, crowd_runtime compiled
// to WebAssembly by make web) in headless chromium against `crowd render`.
// For builtin: and robot.glb (when ../shared/models has it): bake (vat, bat),
// open the page on the bake with a scene in its URL, wait for its frames,
// read its numbers (window.crowdPlayer) and compare a screenshot of its
// canvas with crowd render's picture of the same scene (crowd render's
// layout and automatic camera, same time and size, mode vat, no ground; the
// crossfade through fade_render at the page's own camera): a looping clip, a
// one-shot clip past its end, a crossfade at its midpoint, 100 characters
// in mixed clips, and those 100 once more in mode bat. Silhouettes must overlap (intersection over union of the
// pixels that are not sky) by at least 0.99; the page must say it runs the
// portable tier with crowd render's draw calls and the scene's characters.
// Also: a bake whose texture is taller than the page's MAX_TEXTURE_SIZE is
// refused, the world's CROWD_ERROR_LIMIT text on the page; a malformed
// parameter and a bake with a cut texture file are refused the same way.
//
//   node test_web_player.mjs --crowd CLI --fade-render EXE --models DIR
//                            --node-modules DIR --web DIR   (build/web/player)
//                            [--only REGEX]   (the models whose names match)
//                            [--bench 1]   (also print frame times at 1, 100, 1000)
//                            [--bench-mode M] [--bench-counts 1,100]   (of the bench)
//
// Exit 0 all passed; 77 all passed but robot.glb is not in --models (a
// "SKIP:" line says so); 1 a failure: a comparison, a page or console error,
// chromium that does not start, the web build missing (make web builds it;
// make test runs make web first), npm packages or the CLI missing. Works in
// a temporary folder of its own, kept when something fails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HANG_GUARD_MS, importPuppeteer, parseArgs, withBrowser } from './browser.mjs';
import { MODELS } from './cases.mjs';
import { compare } from './compare.mjs';
import { readPng, writePng } from './png.mjs';
import { run } from './reference.mjs';
import { serve } from './server.mjs';

const IOU_MIN = 0.99;
const SINGLE = [320, 240];
const CROWD = [640, 480];

// The scenes of one bake: page URL parameters and the reference's command.
function scenes(model, manifest) {
    const once = manifest.clips.find((c) => c.name === model.once);
    const still = (clip, time) => ({ count: 1, clip, time, size: SINGLE });
    return [
        { name: 'loop', ...still(model.loop, 0.37) },
        { name: 'once_end', ...still(model.once, once.duration_s + 0.5) },
        { name: 'crossfade_mid', ...still(model.loop, 0.65), fade: [model.fadeTo, 0.4, 0.5] },
        { name: 'crowd100', count: 100, seed: 7, time: 0.8, size: CROWD },
        { name: 'crowd100_bat', mode: 'bat', count: 100, seed: 7, time: 0.8, size: CROWD },
    ];
}

function pageUrl(server, bakeUrl, scene) {
    const q = new URLSearchParams({ bake: bakeUrl, mode: scene.mode ?? 'vat', count: String(scene.count),
                                    time: String(scene.time), paused: '1', size: scene.size.join('x') });
    if (scene.clip) {
        q.set('clip', scene.clip);
    }
    if (scene.seed !== undefined) {
        q.set('seed', String(scene.seed));
    }
    if (scene.fade) {
        q.set('fade', scene.fade.join(','));
    }
    return `${server}/player/player.html?${q}`;
}

// Opens the page and waits for `frames` frames or its refusal; resolves to
// {page, player (window.crowdPlayer's numbers)}. A page error ends the wait.
async function openPage(browser, url, size, frames) {
    const page = await browser.newPage(size[0], size[1] + 80);
    const errors = browser.errors.length;
    await page.goto(url);
    let poll;
    const failed = new Promise((resolve) => {
        poll = setInterval(() => browser.errors.length > errors && resolve(), 200);
    });
    await Promise.race([
        page.waitForFunction((n) => window.crowdPlayer?.error !== null || window.crowdPlayer?.frames >= n,
                             { timeout: HANG_GUARD_MS }, frames),
        failed,
    ]);
    clearInterval(poll);
    const player = await page.evaluate(() => JSON.parse(JSON.stringify(window.crowdPlayer)));
    player.message = await page.evaluate(() => document.getElementById('message').textContent);
    return { page, player };
}

// crowd render's picture of the scene (fade_render for a crossfade, at the
// page's camera) and its draw calls (crowd render prints them).
function reference(tools, dir, scene, camera, file) {
    const size = scene.size.join('x');
    if (scene.fade) {
        const cam = [...camera.eye, ...camera.target].join(',');
        run(tools.fade, [dir, file, 'vat', String(scene.size[0]), String(scene.size[1]), cam, scene.clip,
                         scene.fade[0], String(scene.fade[1]), String(scene.fade[2]), String(scene.time)]);
        return { image: readPng(fs.readFileSync(file)), drawCalls: 1 };
    }
    const args = ['render', dir, '-o', file, '--mode', scene.mode ?? 'vat', '--size', size, '--time', String(scene.time),
                  '--no-ground', '--count', String(scene.count)];
    if (scene.clip) {
        args.push('--clip', scene.clip);
    }
    if (scene.seed !== undefined) {
        args.push('--seed', String(scene.seed));
    }
    const out = run(tools.crowd, args);
    return { image: readPng(fs.readFileSync(file)), drawCalls: Number(/draw calls\s+(\d+)/.exec(out)[1]) };
}

async function compareBake(browser, server, tools, bake, tmp) {
    let failures = 0;
    for (const scene of scenes(bake.model, bake.manifest)) {
        const stem = path.join(tmp, `${bake.model.name}_${scene.name}`);
        const { page, player } = await openPage(browser, pageUrl(server, bake.url, scene), scene.size, 3);
        if (player.error !== null || player.frames < 3) {
            console.log(`${bake.model.name} ${scene.name}: the page drew ${player.frames} frames: ${player.error}  FAIL: ${player.error}  FAIL`);
            await page.close();
            failures++;
            continue;
        }
        const shot = readPng(Buffer.from(await (await page.$('canvas')).screenshot({ type: 'png' })));
        await page.close();
        const want = reference(tools, bake.dir, scene, player.camera, `${stem}_crowd.png`);
        const [width, height] = scene.size;
        const r = shot.width === width && shot.height === height ? compare(want.image.data, shot.data, width, height)
                                                                  : { iou: 0, colour: Infinity, pixels: 0 };
        const ok = r.iou >= IOU_MIN && r.pixels > 100 && player.tier === 'portable' &&
                   player.drawCalls === want.drawCalls && player.characters === scene.count;
        console.log(`${bake.model.name.padEnd(8)} ${scene.name.padEnd(14)} ${r.iou.toFixed(4)}  ` +
                    `${r.colour.toFixed(2).padStart(6)}  ${String(player.drawCalls).padStart(5)}  ` +
                    `${String(player.characters).padStart(5)}  ${player.tier}  ` +
                    `${player.firstFrameMs.toFixed(0).padStart(6)} ms (wasm ${player.loadMs.wasm.toFixed(0)}, ` +
                    `fetch ${player.loadMs.fetch.toFixed(0)}, set-up ${player.loadMs.setUp.toFixed(0)})` +
                    `${ok ? '' : '  FAIL'}`);
        if (!ok) {
            failures++;
            fs.writeFileSync(`${stem}_web.png`, writePng(shot.width, shot.height, shot.data));
            if (r.diff) {
                fs.writeFileSync(`${stem}_diff.png`, writePng(width, height, r.diff));
            }
        }
    }
    return failures;
}

// A VAT narrow enough that builtin's frames wrap onto more rows than the
// page's MAX_TEXTURE_SIZE: the page shows the world's refusal, naming the
// texture's size and the limit, and draws nothing.
async function checkTooLarge(browser, server, tools, tmp, maxTextureSize) {
    for (const width of [128, 64, 32, 16]) {
        const dir = path.join(tmp, `too_large_${width}`);
        run(tools.crowd, ['bake', 'builtin:', '-o', dir, '--quiet', '--what', 'vat', '--max-width', String(width)]);
        const { vat } = JSON.parse(fs.readFileSync(path.join(dir, 'builtin.crowd.json'), 'utf8'));
        const height = vat.height;
        if (height <= maxTextureSize) {
            continue;
        }
        const scene = { count: 1, time: 0, size: SINGLE };
        const { page, player } = await openPage(browser, pageUrl(server, `/bake/too_large_${width}/builtin.crowd.json`,
                                                                 scene), SINGLE, 3);
        await page.close();
        const expected = `texture is ${vat.width}x${height}, this GL implementation allows ` +
                         `${maxTextureSize}x${maxTextureSize}`;
        const ok = player.error !== null && player.error.startsWith('crowd: error: ') &&
                   player.error.includes(expected) && player.message === player.error && player.frames === 0;
        console.log(`texture ${vat.width}x${height}, device limit ${maxTextureSize}: ` +
                    `${player.error === null ? 'played' : `refused: ${player.error}`}${ok ? '' : '  FAIL'}`);
        return ok ? 0 : 1;
    }
    console.log(`FAIL: no --max-width makes builtin: taller than the device's ${maxTextureSize} texels`);
    return 1;
}

// Bad input on the page: a malformed parameter and a bake whose texture
// file is cut short are each refused with one crowd: error line shown on
// the page, and nothing drawn.
async function checkBadInput(browser, server, bake, tmp) {
    const cut = path.join(tmp, 'cut');
    fs.cpSync(bake.dir, cut, { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(cut, path.basename(bake.url)), 'utf8'));
    const vat = path.join(cut, manifest.vat.position);
    const cases = [
        { name: 'size=abc', url: `${server}/player/player.html?bake=${bake.url}&size=abc`, expect: "size: 'abc'" },
    ];
    if (fs.existsSync(vat) && fs.statSync(vat).isFile()) {
        fs.truncateSync(vat, Math.floor(fs.statSync(vat).size / 2));
        cases.push({ name: 'a cut VAT file', url: `${server}/player/player.html?bake=/bake/cut/${path.basename(bake.url)}`,
                     expect: path.basename(vat) });
    } else {
        console.log(`FAIL: no VAT position file named in ${bake.url}`);
        return 1;
    }
    let failures = 0;
    for (const c of cases) {
        const { page, player } = await openPage(browser, c.url, SINGLE, 3);
        await page.close();
        const ok = player.error !== null && player.error.startsWith('crowd: error: ') && player.error.includes(c.expect) &&
                   player.frames === 0;
        console.log(`bad input, ${c.name}: ${player.error ?? 'played'}${ok ? '' : '  FAIL'}`);
        failures += ok ? 0 : 1;
    }
    return failures;
}

// WebGL2 is an OpenGL ES 3.0 context to crowd: a forced gl45 tier is
// refused with the world's message (the web's version query works), a
// forced portable one plays.
async function checkTiers(browser, server, bake) {
    let failures = 0;
    for (const [tier, expected] of [['gl45', 'the gl45 tier needs an OpenGL 4.5 core context (found OpenGL ES 3.0)'],
                                    ['portable', null]]) {
        const url = `${pageUrl(server, bake.url, { count: 1, time: 0, size: SINGLE })}&tier=${tier}`;
        const { page, player } = await openPage(browser, url, SINGLE, 3);
        await page.close();
        const ok = expected === null ? player.error === null && player.tier === 'portable'
                                     : player.error?.includes(expected) && player.frames === 0;
        console.log(`tier=${tier}: ${player.error ?? `plays the ${player.tier} tier`}${ok ? '' : '  FAIL'}`);
        failures += ok ? 0 : 1;
    }
    return failures;
}

// The mouse: a drag orbits the camera about its target (the eye moves, the
// distance stays), a click crossfades every character to its next clip.
async function checkMouse(browser, server, bake) {
    const clips = bake.manifest.clips.map((c) => c.name);
    const from = clips.indexOf(bake.model.loop), next = clips[(from + 1) % clips.length];
    const scene = { count: 4, clip: bake.model.loop, time: 0, size: SINGLE };
    const url = pageUrl(server, bake.url, scene).replace('paused=1', 'paused=0');
    const { page, player } = await openPage(browser, url, SINGLE, 2);
    const frames = () => page.evaluate(() => window.crowdPlayer.frames);
    const afterFrames = async (n) => {
        const start = await frames();
        await page.waitForFunction((f) => window.crowdPlayer.frames >= f, { timeout: HANG_GUARD_MS }, start + n);
    };
    await page.mouse.click(160, 120);
    await afterFrames(2);
    const played = await page.evaluate(() => [0, 1, 2, 3].map((i) => window.crowdPlayer.clipOf(i)));
    await page.mouse.move(160, 120);
    await page.mouse.down();
    await page.mouse.move(220, 100, { steps: 4 });
    await page.mouse.up();
    await afterFrames(2);
    const camera = await page.evaluate(() => window.crowdPlayer.cameraNow());
    await page.close();
    const distance = (c) => Math.hypot(...c.eye.map((e, a) => e - c.target[a]));
    const moved = Math.hypot(...camera.eye.map((e, a) => e - player.camera.eye[a]));
    const ok = played.every((c) => c === next) && moved > 0.05 * distance(player.camera) &&
               Math.abs(distance(camera) - distance(player.camera)) < 1e-3 * distance(player.camera) &&
               camera.target.every((t, a) => t === player.camera.target[a]);
    console.log(`mouse: a click plays ${played.join(', ')} (want ${next}); a drag moves the eye ` +
                `${moved.toFixed(3)} m at ${distance(camera).toFixed(3)} m (was ` +
                `${distance(player.camera).toFixed(3)} m)${ok ? '' : '  FAIL'}`);
    return ok ? 0 : 1;
}

// Frame times of each bake's crowds of 1, 100 and 1000 in mixed clips (the
// record of docs/architecture.md; not a pass/fail check): after 4 frames,
// the mean of 60, 16 and 8 (SwiftShader shades every vertex on the CPU:
// a second a frame at 100 builtin: characters here).
async function bench(browser, server, bake, mode, counts) {
    console.log(`${bake.model.name} (${mode}): characters  frame ms  main thread ms  GPU wait ms  draw calls`);
    const frameCounts = { 1: 60, 100: 16, 1000: 8 };
    for (const count of counts) {
        const frames = frameCounts[count] ?? 8;
        const q = new URLSearchParams({ bake: bake.url, mode, count: String(count), seed: '7', bench: '1',
                                        size: '960x540' });
        const { page, player } = await openPage(browser, `${server}/player/player.html?${q}`, [960, 540],
                                                4 + frames);
        const samples = player.samples.slice(-frames);
        const mean = (key) => samples.reduce((a, s) => a + s[key], 0) / samples.length;
        console.log(`${String(count).padStart(10)}  ${mean('frameMs').toFixed(2).padStart(8)}  ` +
                    `${mean('cpuMs').toFixed(2).padStart(14)}  ${mean('gpuWaitMs').toFixed(2).padStart(11)}  ` +
                    `${String(player.drawCalls).padStart(10)}`);
        await page.close();
    }
}

function checkBuilt(web) {
    const missing = ['player.html', 'page.js', 'player.js', 'player.wasm'].filter((f) => !fs.existsSync(path.join(web, f)));
    if (missing.length > 0) {
        console.log(`FAIL: the web player is not built (${missing.join(', ')} missing in ${web}): ` +
                    'make web builds it (make test does first)');
        return false;
    }
    return true;
}

function bakeModels(crowd, models, only, tmp) {
    const bakes = [];
    let skipped = false;
    for (const model of MODELS.filter((m) => only.test(m.name))) {
        const source = model.file ? path.join(models, model.file) : model.source;
        if (model.file && !fs.existsSync(source)) {
            console.log(`SKIP: ${source} not found (../shared/models absent), ${model.name} not tested`);
            skipped = true;
            continue;
        }
        const dir = path.join(tmp, model.name);
        run(crowd, ['bake', source, '-o', dir, '--quiet', '--what', 'both']);
        const file = fs.readdirSync(dir).find((f) => f.endsWith('.crowd.json'));
        bakes.push({ model, dir, url: `/bake/${model.name}/${file}`,
                     manifest: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) });
    }
    return { bakes, skipped };
}

async function main() {
    const args = parseArgs();
    if (!args.crowd || !fs.existsSync(args.crowd) || !fs.existsSync(args['fade-render'] ?? '')) {
        console.log(`FAIL: the crowd CLI or fade_render is not built (${args.crowd})`);
        return 1;
    }
    if (!checkBuilt(args.web ?? '')) {
        return 1;
    }
    const puppeteer = await importPuppeteer(args['node-modules']);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-web-player-'));
    const tools = { crowd: args.crowd, fade: args['fade-render'] };
    const started = Date.now();
    const { bakes, skipped } = bakeModels(args.crowd, args.models, new RegExp(args.only ?? ''), tmp);
    const server = await serve([['/player/', args.web], ['/bake/', tmp]]);
    let failures = 0;
    failures += await withBrowser(puppeteer, tmp, async (browser) => {
        let found = 0;
        console.log('model    case           IoU     colour  draws  chars  tier      first frame');
        for (const bake of bakes) {
            found += await compareBake(browser, server.url, tools, bake, tmp);
        }
        const probe = await openPage(browser, pageUrl(server.url, bakes[0].url, { count: 1, time: 0, size: SINGLE }),
                                     SINGLE, 1);
        await probe.page.close();
        found += await checkTooLarge(browser, server.url, tools, tmp, probe.player.maxTextureSize);
        found += await checkTiers(browser, server.url, bakes[0]);
        found += await checkBadInput(browser, server.url, bakes[0], tmp);
        found += await checkMouse(browser, server.url, bakes[0]);
        for (const bake of args.bench ? bakes : []) {
            await bench(browser, server.url, bake, args['bench-mode'] ?? 'vat',
                        (args['bench-counts'] ?? '1,100,1000').split(',').map(Number));
        }
        return found;
    });
    await server.close();
    console.log(`${failures === 0 ? 'passed' : `${failures} failures`} in ` +
                `${((Date.now() - started) / 1000).toFixed(0)} s (IoU >= ${IOU_MIN})`);
    if (failures === 0) {
        fs.rmSync(tmp, { recursive: true, force: true });
    } else {
        console.log(`pictures and bakes kept in ${tmp}`);
    }
    return failures > 0 ? 1 : skipped ? 77 : 0;
}

main().then((code) => process.exit(code), (e) => {
    console.log(`FAIL: ${e.stack ?? e}`);
    process.exit(1);
});
