// summary.mjs - the GPU check's summary (bench/gpu/run.sh): reads the
// benches' JSON (docs/bench.md) in OUT and prints one JSON object: where it
// ran, vat's and bat's frame time against the floor per count (the median
// of the per-round ratios), the field's frame time, FPS, application CPU
// time and drawn characters per count and way, and whether each of issue
// 21's GPU goals was met at the largest count measured.
//
//   node summary.mjs OUT MODEL
import fs from 'node:fs';
import path from 'node:path';

const VAT_GOAL = 1.15, BAT_GOAL = 1.3, FIELD_FPS_GOAL = 60;
const round = (x, digits) => Number(x.toFixed(digits));

const [out, model] = process.argv.slice(2);
const load = (name) => JSON.parse(fs.readFileSync(path.join(out, name), 'utf8'));

// {count: frame / floor} of the brute-force way.
function againstFloor(bench) {
    const rows = {};
    for (const r of bench.results) {
        if (r.way === 'brute' && !r.skipped) {
            rows[r.count] = round(r.frame_vs_floor_paired.median, 4);
        }
    }
    return rows;
}

function field(bench) {
    return bench.results.filter((r) => !r.skipped).map((r) => ({
        count: r.count, way: r.way, frame_ms: round(r.frame_ms.median, 4),
        fps: r.frame_ms.median > 0 ? round(1000 / r.frame_ms.median, 1) : null,
        app_cpu_ms: round(r.cpu_ms.median, 4), drawn: r.drawn,
        gpu_memory_bytes: r.gpu_memory_bytes,
    }));
}

const vat = load('floor_vat.json'), bat = load('floor_bat.json'), fieldBench = load('field.json');
const vatRows = againstFloor(vat), batRows = againstFloor(bat), fieldRows = field(fieldBench);
const counts = Object.keys(vatRows).map(Number);
const largest = counts.length > 0 ? Math.max(...counts) : null;
const best = fieldRows.filter((r) => r.way === 'cull+lod');
const biggest = best.length > 0 ? best.reduce((a, b) => (b.count > a.count ? b : a)) : null;
const summary = {
    model,
    gl_renderer: vat.gl_renderer,
    cpu: vat.cpu,
    software_rasterizer: /llvmpipe|softpipe|swiftshader/i.test(vat.gl_renderer),
    size: [vat.width, vat.height],
    vat_vs_floor: vatRows,
    bat_vs_floor: batRows,
    field: fieldRows,
    goals: {
        count: largest,
        vat_vs_floor_max: VAT_GOAL,
        vat_met: largest !== null && vatRows[largest] <= VAT_GOAL,
        bat_vs_floor_max: BAT_GOAL,
        bat_met: largest !== null && batRows[largest] <= BAT_GOAL,
        field_count: biggest?.count ?? null,
        field_way: 'cull+lod',
        field_fps_min: FIELD_FPS_GOAL,
        field_met: biggest !== null && biggest.fps >= FIELD_FPS_GOAL,
    },
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
