// test_godot3_time_cases.mjs - the Godot player's clip-time rule (the
// crowd_play_time and crowd_frame_pair lines of
// integrations/godot/crowd_vat.gdshader) against the case table
// tests/common/clip_time_cases.json, in Godot 3 (Debian's godot3, GLES3 on
// Mesa's llvmpipe under Xvfb): godot3/time_cases.gd compiles those lines
// into a shader that writes every case's clip time, frames and weight as
// float32 bits into a viewport's pixels, read back and compared here.
//
//   node test_godot3_time_cases.mjs
//
// Exit 0 every case agrees; 1 otherwise, or when godot3 or xvfb-run is
// missing or Godot fails. Works in a temporary folder of its own (the Godot
// project is copied there), kept when something fails.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANG_GUARD_MS } from './browser.mjs';
import { loadCases, report } from './time_cases.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

function onPath(program) {
    return (process.env.PATH ?? '').split(':').some((dir) => fs.existsSync(path.join(dir, program)));
}

function main() {
    const missing = ['godot3', 'xvfb-run'].filter((p) => !onPath(p));
    if (missing.length > 0) {
        console.log(`FAIL: ${missing.join(', ')} not found (scripts/install-deps.sh installs godot3 and xvfb)`);
        return 1;
    }
    const table = loadCases();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-godot3-time-'));
    const project = path.join(tmp, 'project');
    fs.cpSync(path.join(here, 'godot3'), project, { recursive: true });
    fs.cpSync(path.join(root, 'integrations/godot'), path.join(project, 'crowd'), { recursive: true });
    const inputs = path.join(tmp, 'inputs.json');
    const out = path.join(tmp, 'results.bin');
    fs.writeFileSync(inputs, JSON.stringify(table.cases.map((c) => c.inputs)));
    const env = { ...process.env, HOME: tmp };
    for (const [name, dir] of [['XDG_DATA_HOME', 'data'], ['XDG_CONFIG_HOME', 'config'], ['XDG_CACHE_HOME', 'cache']]) {
        env[name] = path.join(tmp, dir);
        fs.mkdirSync(env[name]);
    }
    const godot = spawnSync('xvfb-run', ['-a', '-s', '-screen 0 640x480x24', 'godot3', '--audio-driver', 'Dummy',
                                         '--path', project, 'res://time_cases.tscn', '--', inputs, out],
                            { env, encoding: 'utf8', timeout: HANG_GUARD_MS });
    const log = `${godot.stdout ?? ''}${godot.stderr ?? ''}`;
    // Godot under Xvfb complains of the C locale; anything else is an error.
    const errors = log.split('\n').filter((l) => /ERROR|SCRIPT ERROR|crowd godot3/.test(l) && !/locale 'C'/.test(l));
    let failures = 0;
    if (godot.status !== 0 || errors.length > 0 || !fs.existsSync(out)) {
        console.log(`FAIL: godot3 exited with ${godot.status ?? godot.signal}:\n${log.split('\n').slice(-40).join('\n')}`);
        failures++;
    } else {
        const bytes = fs.readFileSync(out);
        const n = table.cases.length;
        if (bytes.length !== 32 * n) {
            console.log(`FAIL: ${bytes.length} bytes read back, want ${32 * n}`);
            failures++;
        } else {
            // Output j of case i: bytes 0-2 in the RGB of pixel 8i + 2j, byte
            // 3 in the red of the next.
            const at = (i, j) => {
                const p = 4 * (8 * i + 2 * j);
                return new DataView(Uint8Array.of(bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 4]).buffer)
                    .getFloat32(0, true);
            };
            const results = Array.from({ length: n }, (_, i) => (
                { time: at(i, 0), frame0: at(i, 1), frame1: at(i, 2), weight: at(i, 3) }));
            failures += report(table, results, 'Godot 3 crowd_vat.gdshader');
        }
    }
    if (failures === 0) {
        fs.rmSync(tmp, { recursive: true, force: true });
    } else {
        console.log(`kept in ${tmp}`);
    }
    return failures === 0 ? 0 : 1;
}

process.exit(main());
