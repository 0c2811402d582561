// test_godot3.mjs - the Godot player (integrations/godot: crowd_vat.gdshader
// through godot3/crowd_bake.gd) in Godot 3 (Debian's godot3, GLES3 on Mesa's
// llvmpipe under Xvfb) against crowd's own renderer: the browser test's
// scenes (a looping clip, a one-shot clip held at its end, a crossfade
// mid-point, 100 mixed instances) for builtin: and robot.glb baked in f16 and
// f32, compared the same way.
//
//   node test_godot3.mjs --crowd CLI --fade-render EXE --models DIR [--only REGEX]
//
// Exit 0 all passed (a "SKIP:" line for a model not in --models); 1 a
// failure (a comparison, Godot failing or missing, the CLI not built).
// Works in a temporary folder of its own (the Godot project is copied
// there), kept when something fails.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANG_GUARD_MS, parseArgs } from './browser.mjs';
import { ENCODINGS, scenes } from './cases.mjs';
import { compare } from './compare.mjs';
import { readPng, writePng } from './png.mjs';
import { bakeAll, reference } from './reference.mjs';

// Silhouettes as in the browser test. Colour a little looser: Godot lights
// with its own model (Burley diffuse, specular, a flat ambient for crowd's
// hemisphere); measured 4.3 to 6.0 here.
const IOU_MIN = 0.99;
const COLOUR_MAX = 8;
const GODOT_ENCODINGS = ENCODINGS.filter((e) => e.name === 'f16' || e.name === 'f32');

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');


function onPath(program) {
    return (process.env.PATH ?? '').split(':').some((dir) => fs.existsSync(path.join(dir, program)));
}

// Godot and its writable folders (user data, caches) under `tmp`.
function runGodot(tmp, project, specsFile) {
    const env = { ...process.env, HOME: tmp };
    for (const [name, dir] of [['XDG_DATA_HOME', 'data'], ['XDG_CONFIG_HOME', 'config'], ['XDG_CACHE_HOME', 'cache']]) {
        env[name] = path.join(tmp, dir);
        fs.mkdirSync(env[name]);
    }
    return spawnSync('xvfb-run', ['-a', '-s', '-screen 0 1024x768x24', 'godot3', '--audio-driver', 'Dummy',
                                  '--path', project, '--', specsFile], { env, encoding: 'utf8', timeout: HANG_GUARD_MS });
}

function main() {
    const args = parseArgs();
    if (!args.crowd || !fs.existsSync(args.crowd) || !fs.existsSync(args['fade-render'])) {
        console.log(`FAIL: the crowd CLI or fade_render is not built (${args.crowd})`);
        return 1;
    }
    const missing = ['godot3', 'xvfb-run'].filter((p) => !onPath(p));
    if (missing.length > 0) {
        console.log(`FAIL: ${missing.join(', ')} not found (scripts/install-deps.sh installs godot3 and xvfb)`);
        return 1;
    }
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-godot3-'));
    const started = Date.now();
    const tools = { crowd: args.crowd, fade: args['fade-render'] };
    const project = path.join(tmp, 'project');
    fs.cpSync(path.join(here, 'godot3'), project, { recursive: true });
    fs.cpSync(path.join(root, 'integrations/godot'), path.join(project, 'crowd'), { recursive: true });
    const cases = [];
    for (const b of bakeAll(args.crowd, args.models, GODOT_ENCODINGS, new RegExp(args.only ?? ''), tmp)) {
        for (const scene of scenes(b.model, b.encoding, b.dir, b.manifest, path.join(b.dir, b.file))) {
            const stem = path.join(tmp, `${b.name}_${scene.name}`);
            cases.push({ bake: b, scene, stem, want: reference(tools, scene, `${stem}_crowd.png`) });
        }
    }
    const specsFile = path.join(tmp, 'specs.json');
    fs.writeFileSync(specsFile, JSON.stringify(cases.map((c) => ({ ...c.scene.spec, out: `${c.stem}_godot.png` }))));
    const godot = runGodot(tmp, project, specsFile);
    const log = `${godot.stdout ?? ''}${godot.stderr ?? ''}`;
    // Godot under Xvfb complains of the C locale; anything else is an error.
    const errors = log.split('\n').filter((l) => /ERROR|crowd godot3 test/.test(l) && !/locale 'C'/.test(l));
    let failures = godot.status === 0 ? 0 : 1;
    if (godot.status !== 0 || errors.length > 0) {
        console.log(`godot3 exited with ${godot.status ?? godot.signal}:\n${log.split('\n').slice(-40).join('\n')}`);
        failures += errors.length;
    }
    console.log('model    encoding     case           IoU      colour');
    for (const c of cases) {
        const file = `${c.stem}_godot.png`;
        if (!fs.existsSync(file)) {
            console.log(`${c.bake.name} ${c.scene.name}: Godot wrote no picture  FAIL`);
            failures++;
            continue;
        }
        const got = readPng(fs.readFileSync(file));
        const { width, height } = c.scene.spec;
        const r = compare(c.want.data, got.data, width, height);
        const ok = got.width === width && r.iou >= IOU_MIN && r.colour <= COLOUR_MAX && r.pixels > 100;
        console.log(`${c.bake.model.name.padEnd(8)} ${c.bake.encoding.name.padEnd(12)} ${c.scene.name.padEnd(14)} ` +
                    `${r.iou.toFixed(4)}  ${r.colour.toFixed(2).padStart(6)}${ok ? '' : '  FAIL'}`);
        if (!ok) {
            failures++;
            fs.writeFileSync(`${c.stem}_diff.png`, writePng(width, height, r.diff));
        }
    }
    console.log(`${failures === 0 ? 'passed' : `${failures} failures`} in ` +
                `${((Date.now() - started) / 1000).toFixed(0)} s (IoU >= ${IOU_MIN}, colour <= ${COLOUR_MAX})`);
    if (failures === 0) {
        fs.rmSync(tmp, { recursive: true, force: true });
    } else {
        console.log(`pictures and bakes kept in ${tmp}`);
    }
    return failures === 0 ? 0 : 1;
}

process.exit(main());
