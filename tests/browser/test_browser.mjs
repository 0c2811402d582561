// test_browser.mjs - crowd's three.js player (integrations/three) in a real
// browser against crowd's own renderer. For builtin: and robot.glb (when
// ../shared/models has it), in every encoding: bake with the CLI, draw a
// looping clip, a one-shot clip held at its end, a crossfade mid-point, 100
// instances in mixed clips, and for builtin: (baked with a walk-run blend)
// the blend at weights 0.25, 0.5, 0.75, a parameter change and crossfades
// into and out of it with `crowd render` (crossfades and blends with
// fade_render, crowd render has no option for them) and with the player in
// headless chromium, then compare. Also: shadows follow the animation, the
// example page runs, a texture beyond the device's MAX_TEXTURE_SIZE and
// broken files are refused with clear errors. Without shadows a crowd draws
// once per material of its mesh.glb (one primitive per material there).
//
//   node test_browser.mjs --crowd CLI --fade-render EXE --models DIR --node-modules DIR
//                         [--only REGEX]   (bakes named MODEL_ENCODING that match, to
//                                           rerun a few while working on the player)
//
// Exit 0 all passed (a "SKIP:" line for a model not in --models); 1 a
// failure (a comparison, a page or console error, chromium that does not
// start, npm packages missing, the CLI not built). Works in a temporary
// folder of its own, kept when something fails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANG_GUARD_MS, importPuppeteer, parseArgs, withBrowser } from './browser.mjs';
import { ENCODINGS, scenes } from './cases.mjs';
import { frameBox } from './layout.mjs';
import { compare, SKY } from './compare.mjs';
import { readPng, writePng } from './png.mjs';
import { bakeAll, reference, run } from './reference.mjs';
import { serve } from './server.mjs';

// Thresholds: silhouettes (the issue's bar) and mean |RGB| difference on the
// pixels both cover, in 8-bit steps. crowd's default shading is three's
// MeshStandardMaterial's metallic-roughness model, with the materials of
// mesh.glb on both sides: measured 0.3 to 0.7 (builtin:) and 1.6 to 2.0
// (robot.glb), where crowd's Lambert-only shading gave 2.6 to 4.3.
const IOU_MIN = 0.99;
const COLOUR_MAX = 3;

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');



// The distinct materials of mesh 0 (LOD 0) of the bake's NAME.mesh.glb, read
// from its JSON chunk: with one primitive per material, the draws of a crowd
// in the player (one InstancedMesh, LOD 0) when nothing casts a shadow.
function lod0Materials(dir) {
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.mesh.glb'));
    const bytes = fs.readFileSync(path.join(dir, file));
    const json = JSON.parse(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString('utf8'));
    return new Set(json.meshes[0].primitives.map((p) => p.material)).size;
}

async function compareAll(page, tools, bakes, tmp) {
    let failures = 0;
    console.log('model    encoding     case           IoU      colour  draws');
    for (const b of bakes) {
        for (const scene of scenes(b.model, b.encoding, b.dir, b.manifest, b.url, { blends: true })) {
            const stem = path.join(tmp, `${path.basename(b.dir)}_${scene.name}`);
            const want = reference(tools, scene, `${stem}_crowd.png`);
            const got = await page.evaluate((spec) => window.renderStill(spec), scene.spec);
            const pixels = new Uint8Array(Buffer.from(got.pixels, 'base64'));
            const { width, height } = scene.spec;
            const r = compare(want.data, pixels, width, height);
            const draws = scene.spec.ground ? got.calls : lod0Materials(b.dir);
            const ok = r.iou >= IOU_MIN && r.colour <= COLOUR_MAX && r.pixels > 100 &&
                       got.calls === draws;
            console.log(`${b.model.name.padEnd(8)} ${b.encoding.name.padEnd(12)} ` +
                        `${scene.name.padEnd(14)} ${r.iou.toFixed(4)}  ${r.colour.toFixed(2).padStart(6)}  ` +
                        `${String(got.calls).padStart(5)}${ok ? '' : '  FAIL'}`);
            if (!ok) {
                failures++;
                fs.writeFileSync(`${stem}_three.png`, writePng(width, height, pixels));
                fs.writeFileSync(`${stem}_diff.png`, writePng(width, height, r.diff));
            }
        }
    }
    return failures;
}

// A VAT 128 texels wide wraps builtin's 6407 vertices onto 51 rows a frame:
// 9843 rows, beyond WebGL2's common 8192.
async function checkTooLarge(page, tools, tmp) {
    const dir = path.join(tmp, 'too_large');
    run(tools.crowd, ['bake', 'builtin:', '-o', dir, '--quiet', '--what', 'vat', '--max-width', '128']);
    const result = await page.evaluate(async (url) => {
        try {
            await window.loadBake(url);
            return { loaded: true, max: window.maxTextureSize() };
        } catch (e) {
            return { message: e.message, max: window.maxTextureSize() };
        }
    }, '/bake/too_large/builtin.crowd.json');
    const height = JSON.parse(fs.readFileSync(path.join(dir, 'builtin.crowd.json'), 'utf8')).vat.height;
    const expected = height > result.max;
    const refused = /MAX_TEXTURE_SIZE/.test(result.message ?? '');
    console.log(`texture 128x${height}, device limit ${result.max}: ` +
                (result.loaded ? 'loaded' : `refused: ${result.message}`));
    return expected === refused && (refused || result.loaded) ? 0 : 1;
}

// Broken bakes are refused with an error naming the file: a truncated PNG,
// garbage inside its compressed data, a PNG of another size than the
// manifest says, a truncated EXR and mesh, an unknown manifest version, a
// version 3 clip with the wrong number of frames.
async function checkBadInput(page, bakes, tmp) {
    const damage = {
        png_truncated: ['unorm16_oct', (m) => m.vat.position, (b) => b.subarray(0, b.length >> 1)],
        png_corrupt: ['unorm16_oct', (m) => m.vat.position,
                      (b) => Buffer.from(b).fill(0xab, b.length >> 1, (b.length >> 1) + 4096)],
        // still 2 rows a frame, so only the image's size disagrees
        png_size: ['unorm16_oct', () => null, null, (m) => { m.vat.width = 3300; }],
        exr_truncated: ['f16', (m) => m.vat.normal, (b) => b.subarray(0, b.length >> 1)],
        mesh_truncated: ['f32', (m) => m.mesh, (b) => b.subarray(0, 1000)],
        version: ['f32', () => null, null, (m) => { m.version = 99; }],
        // a version 3 clip whose frame count is not its duration's at its fps
        // (docs/time.md); older bakes are left alone
        frames: ['f32', () => null, null, (m) => {
            if (m.version >= 3) {
                m.clips[0].duration_s *= 2;
            }
        }],
    };
    let failures = 0;
    for (const [name, [encoding, file, cut, edit]] of Object.entries(damage)) {
        const source = bakes.find((b) => b.model.name === 'builtin' && b.encoding.name === encoding);
        if (!source) {
            continue;
        }
        const dir = path.join(tmp, `bad_${name}`);
        fs.cpSync(source.dir, dir, { recursive: true });
        const manifest = JSON.parse(JSON.stringify(source.manifest));
        edit?.(manifest);
        fs.writeFileSync(path.join(dir, source.file), JSON.stringify(manifest));
        const broken = file(manifest);
        if (broken) {
            fs.writeFileSync(path.join(dir, broken), cut(fs.readFileSync(path.join(dir, broken))));
        }
        const message = await page.evaluate((url) => window.loadBake(url).then(() => 'loaded', (e) => e.message),
                                            `/bake/bad_${name}/${source.file}`);
        const named = broken ?? (name === 'png_size' ? manifest.vat.position : source.file);
        const ok = message.startsWith('crowd: ') && message.includes(named);
        console.log(`bad input ${name}: ${message}${ok ? '' : '  FAIL'}`);
        failures += ok ? 0 : 1;
    }
    return failures;
}

// Shadows follow the animation: the pixels the crowd's shadow darkens on a
// ground plane (a render with castShadow against one without) change
// between two clip times. Drawn from the bind pose, the shadow beside the
// character would hardly change.
async function checkShadows(page, bake) {
    const loop = scenes(bake.model, bake.encoding, bake.dir, bake.manifest, bake.url)[0].spec;
    const { min, max } = bake.manifest.bounds;
    const view = { width: 640, height: 480,
                   ...frameBox([min[0] - 1.6 * (max[1] - min[1]), min[1], min[2]], max, 640 / 480) };
    const shadow = async (time) => {
        const draw = async (castShadow) => Buffer.from((await page.evaluate((spec) => window.renderStill(spec),
            { ...loop, ...view, time, ground: true, castShadow })).pixels, 'base64');
        const [cast, none] = [await draw(true), await draw(false)];
        const mask = new Uint8Array(cast.length / 4);
        for (let i = 0; i < mask.length; i++) {
            mask[i] = [0, 1, 2].some((k) => Math.abs(cast[4 * i + k] - none[4 * i + k]) > 8) ? 1 : 0;
        }
        return mask;
    };
    const [a, b] = [await shadow(0.1), await shadow(0.6)];
    let either = 0, one = 0;
    for (let i = 0; i < a.length; i++) {
        either += a[i] | b[i];
        one += a[i] ^ b[i];
    }
    console.log(`shadows (${bake.name}): ${either} shadow pixels, ${one} differ between clip times`);
    // Measured on builtin: walking, 90 % differ; from the bind pose, 30 %.
    return either > 500 && one > 0.6 * either ? 0 : 1;
}

// Props (CrowdProp): builtin:sword on socket_hand_R at run time in the
// player against `crowd render` of a bake with the sword attached
// (`--attach socket_hand_R=builtin:sword`, merged into the character's
// mesh), walking and mid-way through a crossfade into a walk-run blend, in
// vat and bat: the same IoU and colour bars. Also two instances, the sword
// shown on one, against the attached bake beside the plain one: the other
// must draw no sword. An unknown socket is refused naming the sockets.
async function checkProps(page, tools, bakes, tmp) {
    const plain = bakes.filter((b) => b.model.name === 'builtin' && ['f32', 'bat'].includes(b.encoding.name));
    const sword = path.join(tmp, 'prop_sword');
    run(tools.crowd, ['bake', 'builtin:sword', '-o', sword, '--quiet', '--what', 'vat', '--lods', '0']);
    const swordManifest = JSON.parse(fs.readFileSync(path.join(sword, 'sword.crowd.json'), 'utf8'));
    const prop = { mesh: `/bake/prop_sword/${swordManifest.mesh}`, vertexCount: swordManifest.vertex_count,
                   socket: 'socket_hand_R' };
    let failures = 0;
    for (const b of plain) {
        const attached = path.join(tmp, `prop_attached_${b.encoding.name}`);
        run(tools.crowd, ['bake', 'builtin:', '-o', attached, '--quiet', ...b.model.bake, ...b.encoding.options,
                          '--attach', 'socket_hand_R=builtin:sword']);
        const base = scenes(b.model, b.encoding, attached, b.manifest, b.url, { blends: true });
        for (const name of ['loop', 'blend_fade_in']) {
            const scene = base.find((s) => s.name === name);
            const stem = path.join(tmp, `prop_${b.encoding.name}_${name}`);
            const want = reference(tools, scene, `${stem}_crowd.png`);
            const spec = { ...scene.spec, props: [{ ...prop, instances: [0] }] };
            const got = await page.evaluate((s) => window.renderStill(s), spec);
            const pixels = new Uint8Array(Buffer.from(got.pixels, 'base64'));
            const r = compare(want.data, pixels, spec.width, spec.height);
            // Without the prop the same frame misses the sword's pixels.
            const bare = new Uint8Array(Buffer.from((await page.evaluate((s) => window.renderStill(s),
                { ...spec, props: [{ ...prop, instances: [] }] })).pixels, 'base64'));
            const without = compare(want.data, bare, spec.width, spec.height);
            const ok = r.iou >= IOU_MIN && r.colour <= COLOUR_MAX && without.iou < r.iou;
            console.log(`prop sword ${b.encoding.name.padEnd(4)} ${name.padEnd(14)} IoU ${r.iou.toFixed(4)} ` +
                        `colour ${r.colour.toFixed(2)} (hidden: IoU ${without.iou.toFixed(4)})${ok ? '' : '  FAIL'}`);
            if (!ok) {
                fs.writeFileSync(`${stem}_three.png`, writePng(spec.width, spec.height, pixels));
            }
            failures += ok ? 0 : 1;
        }
    }
    failures += await checkTwoProps(page, tools, plain, tmp, prop);
    const message = await page.evaluate((s) => window.renderStill(s).then(() => 'drawn', (e) => e.message),
        { ...scenes(plain[0].model, plain[0].encoding, plain[0].dir, plain[0].manifest, plain[0].url)[0].spec,
          props: [{ ...prop, socket: 'socket_tail', instances: [0] }] });
    const refused = /no socket "socket_tail"; sockets: socket_hand_R, socket_head, socket_hand_L/.test(message);
    console.log(`prop on an unknown socket: ${message}${refused ? '' : '  FAIL'}`);
    return failures + (refused ? 0 : 1);
}

// Two instances with different props (a sword on the first's right hand, a
// shield on the second's left) against crowd's world carrying the same
// run-time props (crowd_world_add_prop through fade_render's w: steps).
async function checkTwoProps(page, tools, plain, tmp, sword) {
    const dir = path.join(tmp, 'prop_shield');
    run(tools.crowd, ['bake', 'builtin:shield', '-o', dir, '--quiet', '--what', 'vat', '--lods', '0']);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'shield.crowd.json'), 'utf8'));
    const shield = { mesh: `/bake/prop_shield/${m.mesh}`, vertexCount: m.vertex_count, socket: 'socket_hand_L' };
    let failures = 0;
    for (const b of plain) {
        const { min, max } = b.manifest.bounds;
        const view = frameBox([min[0], min[1], min[2]], [max[0] + 1, max[1], max[2]], 320 / 240);
        const cam = [...view.eye, ...view.target].map((v) => Math.fround(v));
        const scene = { reference: { tool: 'fade', args: [b.dir, b.encoding.mode, '320', '240', cam.join(','), 'walk',
                                                          '0.37', 'n:walk:1:0', 'w:0:socket_hand_R:builtin:sword',
                                                          'w:1:socket_hand_L:builtin:shield'] } };
        const spec = { bake: b.url, mode: b.encoding.mode, width: 320, height: 240, eye: cam.slice(0, 3),
                       target: cam.slice(3), time: 0.37,
                       instances: [{ clip: 'walk' }, { clip: 'walk', position: [1, 0, 0] }],
                       props: [{ ...sword, instances: [0] }, { ...shield, instances: [1] }] };
        const stem = path.join(tmp, `props_two_${b.encoding.name}`);
        const want = reference(tools, scene, `${stem}_crowd.png`);
        const got = await page.evaluate((s) => window.renderStill(s), spec);
        const pixels = new Uint8Array(Buffer.from(got.pixels, 'base64'));
        const r = compare(want.data, pixels, 320, 240);
        // The props swapped round: each on the other's instance.
        const swapped = new Uint8Array(Buffer.from((await page.evaluate((s) => window.renderStill(s),
            { ...spec, props: [{ ...sword, instances: [1] }, { ...shield, instances: [0] }] })).pixels, 'base64'));
        const other = compare(want.data, swapped, 320, 240);
        // One draw per material of each mesh: the crowd's 3, a prop's 1 each.
        const ok = r.iou >= IOU_MIN && r.colour <= COLOUR_MAX && other.iou < r.iou && got.calls === 5;
        console.log(`props sword + shield ${b.encoding.name.padEnd(4)} IoU ${r.iou.toFixed(4)} colour ` +
                    `${r.colour.toFixed(2)} draws ${got.calls} (swapped: IoU ${other.iou.toFixed(4)})${ok ? '' : '  FAIL'}`);
        if (!ok) {
            fs.writeFileSync(`${stem}_three.png`, writePng(320, 240, pixels));
        }
        failures += ok ? 0 : 1;
    }
    return failures;
}

// The README's example page, as a user opens it, draws a crowd of the first
// bake.
async function checkExample(browser, server, bake) {
    const page = await browser.newPage(480, 360);
    await page.goto(`${server}/crowd/example/index.html?bake=${bake.url}&mode=${bake.encoding.mode}&count=25`);
    // The page says what it draws once the bake is loaded; two animation
    // frames later its render loop has drawn (a page error ends the wait).
    const errors = browser.errors.length;
    const loaded = page.waitForFunction(() => /draw calls/.test(document.getElementById('message').textContent),
                                        { timeout: HANG_GUARD_MS }).catch(() => {});
    let poll;
    const failed = new Promise((resolve) => {
        poll = setInterval(() => browser.errors.length > errors && resolve(), 200);
    });
    await Promise.race([loaded, failed]);
    clearInterval(poll);
    const frames = browser.errors.length > errors ? 0 : await page.evaluate(async () => {
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        await frame();
        await frame();
        return 2;
    });
    const shot = readPng(Buffer.from(await page.screenshot({ type: 'png' })));
    let drawn = 0;
    for (let i = 0; i < shot.width * shot.height * 4; i += 4) {
        drawn += Math.abs(shot.data[i] - SKY[0]) + Math.abs(shot.data[i + 2] - SKY[2]) > 20 ? 1 : 0;
    }
    console.log(`example page (${bake.url}): ${frames} frames, ${drawn} pixels not sky`);
    await page.close();
    return frames === 2 && drawn > 500 ? 0 : 1;
}

async function main() {
    const args = parseArgs();
    if (!args.crowd || !fs.existsSync(args.crowd) || !fs.existsSync(args['fade-render'])) {
        console.log(`FAIL: the crowd CLI or fade_render is not built (${args.crowd})`);
        return 1;
    }
    const puppeteer = await importPuppeteer(args['node-modules']);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-browser-'));
    const tools = { crowd: args.crowd, fade: args['fade-render'] };
    let failures = 0;
    const started = Date.now();
    const bakes = bakeAll(args.crowd, args.models, ENCODINGS, new RegExp(args.only ?? ''), tmp)
        .map((b) => ({ ...b, url: `/bake/${b.name}/${b.file}` }));
    const server = await serve([['/crowd/node_modules/', args['node-modules']],
                                ['/crowd/test/', path.join(here, 'page')],
                                ['/crowd/', path.join(root, 'integrations/three')],
                                ['/bake/', tmp]]);
    failures += await withBrowser(puppeteer, tmp, async (browser) => {
        let found = 0;
        const page = await browser.newPage(480, 360);
        await page.goto(`${server.url}/crowd/test/scene.html`);
        await page.waitForFunction(() => window.crowdPageReady === true);
        found += await compareAll(page, tools, bakes, tmp);
        found += await checkTooLarge(page, tools, tmp);
        found += await checkBadInput(page, bakes, tmp);
        if (bakes.some((b) => b.model.name === 'builtin' && b.encoding.name === 'f32')) {
            found += await checkProps(page, tools, bakes, tmp);
        }
        if (bakes.length > 0) {
            found += await checkShadows(page, bakes[0]);
            found += await checkExample(browser, server.url, bakes[0]);
        }
        return found;
    });
    await server.close();
    console.log(`${failures === 0 ? 'passed' : `${failures} failures`} in ` +
                `${((Date.now() - started) / 1000).toFixed(0)} s (IoU >= ${IOU_MIN}, colour <= ${COLOUR_MAX})`);
    if (failures === 0) {
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
