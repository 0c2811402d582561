// bench.mjs - runs integrations/three/bench in headless chromium and prints
// its table: robot.glb drawn as SkinnedMesh clones with an AnimationMixer
// each against crowd's player (a unorm16_oct VAT bake), N = 1, 100, 1000,
// interleaved in one page. Not part of `make test` (a few minutes on
// SwiftShader).
//
//   node tests/browser/bench.mjs [--crowd build/release/crowd] [--models ../shared/models]
//        [--node-modules build/node/node_modules] [--counts 1,100,1000]
//        [--frames 8] [--rounds 3] [--encoding unorm16_oct] [--mode vat]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch } from './browser.mjs';
import { serve } from './server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = { crowd: path.join(root, 'build/release/crowd'), models: path.join(root, '../shared/models'),
               'node-modules': path.join(root, 'build/node/node_modules'), counts: '1,100,1000',
               frames: '8', rounds: '3', encoding: 'unorm16_oct', mode: 'vat' };
for (let i = 2; i < process.argv.length; i += 2) {
    args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
}

const model = path.join(args.models, 'robot.glb');
if (!fs.existsSync(model) || !fs.existsSync(args.crowd)) {
    console.log(`needs ${model} and the crowd CLI (${args.crowd})`);
    process.exit(77);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-bench-'));
const started = Date.now();
try {
    execFileSync(args.crowd, ['bake', model, '-o', path.join(tmp, 'robot'), '--quiet',
                              '--encoding', args.encoding, '--what', args.mode]);
    const require = createRequire(path.join(args['node-modules'], '..', 'package.json'));
    const puppeteer = (await import(pathToFileURL(require.resolve('puppeteer-core')))).default;
    const server = await serve([['/crowd/node_modules/', args['node-modules']],
                                ['/crowd/', path.join(root, 'integrations/three')],
                                ['/bake/', tmp], ['/model/', args.models]]);
    const browser = await launch(puppeteer, tmp);
    try {
        const page = await browser.newPage(640, 480);
        const query = `model=/model/robot.glb&bake=/bake/robot/robot.crowd.json&counts=${args.counts}` +
                      `&frames=${args.frames}&rounds=${args.rounds}`;
        await page.goto(`${server.url}/crowd/bench/index.html?${query}`);
        await page.waitForFunction(() => window.benchTable !== undefined, { timeout: 0, polling: 1000 });
        console.log(await page.evaluate(() => window.benchTable));
        const cpu = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1];
        console.log(`${os.cpus().length} CPUs (${cpu}), ${await browser.version()}, ` +
                    `${((Date.now() - started) / 1000).toFixed(0)} s`);
        for (const e of browser.errors) {
            console.log(`page: ${e}`);
        }
    } finally {
        await browser.close();
        await server.close();
    }
} finally {
    fs.rmSync(tmp, { recursive: true, force: true });
}
