// reference.mjs - crowd's side of the engine tests: bake each model in each
// encoding with the CLI, and draw a scene's reference picture with
// `crowd render` (or fade_render for a crossfade).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MODELS } from './cases.mjs';
import { readPng } from './png.mjs';

export function run(program, args) {
    return execFileSync(program, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// The bakes of every model (robot.glb only when `models` has it) in each of
// `encodings` whose MODEL_ENCODING name matches `only`, each in its own
// folder of `tmp`: [{model, encoding, name, dir, file (the manifest's name),
// manifest}].
export function bakeAll(crowd, models, encodings, only, tmp) {
    const bakes = [];
    for (const model of MODELS) {
        const source = model.file ? path.join(models, model.file) : model.source;
        if (model.file && !fs.existsSync(source)) {
            // A "SKIP:" line: scripts/test-skips.sh lists the test as not fully run.
            console.log(`SKIP: ${source} not found (../shared/models absent), ${model.name} not tested`);
            continue;
        }
        for (const encoding of encodings) {
            const name = `${model.name}_${encoding.name}`;
            if (!only.test(name)) {
                continue;
            }
            const dir = path.join(tmp, name);
            run(crowd, ['bake', source, '-o', dir, '--quiet', ...(model.bake ?? []), ...encoding.options]);
            const file = fs.readdirSync(dir).find((f) => f.endsWith('.crowd.json'));
            bakes.push({ model, encoding, name, dir, file,
                         manifest: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) });
        }
    }
    return bakes;
}

// Draws the scene's reference into `file` and returns its pixels.
export function reference(tools, scene, file) {
    const [dir, ...rest] = scene.reference.args;
    if (scene.reference.tool === 'render') {
        run(tools.crowd, ['render', dir, '-o', file, ...rest]);
    } else {
        run(tools.fade, [dir, file, ...rest]);
    }
    return readPng(fs.readFileSync(file));
}
