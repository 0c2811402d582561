// test_gpu_check.mjs - bench/gpu/run.sh, the prepared GPU check, run the way
// a GPU machine runs it but with --quick counts on whatever renderer is
// here (llvmpipe): it must build nothing (given the CLI), bake, run its
// three benches and write a summary whose every figure is there and sane.
// It checks the script, not the figures (a software rasterizer meets none
// of the GPU goals).
//
//   node test_gpu_check.mjs --crowd CLI --models DIR
//
// Exit 0 when the summary holds, 1 otherwise.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.resolve(here, '../../bench/gpu/run.sh');

function args() {
    const a = {};
    for (let i = 2; i < process.argv.length; i += 2) {
        a[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
    }
    a.models = process.env.CROWD_MODELS_DIR ?? a.models;
    return a;
}

function check(summary, model) {
    const problems = [];
    const positive = (x) => typeof x === 'number' && Number.isFinite(x) && x > 0;
    if (summary.model !== model) {
        problems.push(`model ${summary.model}, not ${model}`);
    }
    if (typeof summary.gl_renderer !== 'string' || summary.gl_renderer.length === 0) {
        problems.push('no GL renderer named');
    }
    for (const key of ['vat_vs_floor', 'bat_vs_floor']) {
        for (const count of [10, 100]) {
            if (!positive(summary[key]?.[count])) {
                problems.push(`${key} at ${count}: ${summary[key]?.[count]}`);
            }
        }
    }
    for (const count of [100, 1000]) {
        for (const way of ['cull', 'cull+lod']) {
            const row = summary.field?.find((r) => r.count === count && r.way === way);
            if (!row || !positive(row.frame_ms) || !positive(row.fps) || !(row.app_cpu_ms >= 0) ||
                !(row.drawn > 0 && row.drawn <= count) || !positive(row.gpu_memory_bytes)) {
                problems.push(`field ${way} at ${count}: ${JSON.stringify(row)}`);
            }
        }
    }
    const g = summary.goals ?? {};
    if (g.count !== 100 || g.field_count !== 1000 ||
        !['vat_met', 'bat_met', 'field_met'].every((k) => typeof g[k] === 'boolean')) {
        problems.push(`goals: ${JSON.stringify(g)}`);
    }
    return problems;
}

function main() {
    const a = args();
    if (!a.crowd || !fs.existsSync(a.crowd)) {
        console.log(`FAIL: the crowd CLI is not built (${a.crowd})`);
        return 1;
    }
    const robot = path.join(a.models ?? '', 'robot.glb');
    const model = fs.existsSync(robot) ? robot : 'builtin:';
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-gpu-check-'));
    const out = path.join(tmp, 'out');
    try {
        execFileSync(script, ['--quick', '--out', out, '--crowd', a.crowd, '--model',
                              model === 'builtin:' ? path.join(tmp, 'absent.glb') : model],
                     { stdio: ['ignore', 'inherit', 'inherit'] });
    } catch (e) {
        console.log(`FAIL: run.sh exited ${e.status}`);
        return 1;
    }
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'gpu_check.json'), 'utf8'));
    const problems = check(summary, model);
    problems.forEach((p) => console.log(`FAIL: ${p}`));
    console.log(problems.length === 0 ? `passed on ${summary.gl_renderer} with ${model}` :
                                        `${problems.length} failures; files kept in ${tmp}`);
    if (problems.length === 0) {
        fs.rmSync(tmp, { recursive: true, force: true });
    }
    return problems.length === 0 ? 0 : 1;
}

process.exit(main());
