// test_docs.mjs - the engine pages show only code the tests run: every
// three.js, GLSL, Godot shader and GDScript block of docs/engines.md and of
// the integrations' READMEs must be a run of consecutive lines (compared
// without their indentation) of a file that test_browser.mjs or
// test_godot3.mjs executes. A block preceded by a line
// `<!-- untested: why -->` is exempt and listed, so the page says so.
//
//   node test_docs.mjs      exit 0 when every block is found, 1 otherwise
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = ['docs/engines.md', 'integrations/three/README.md'];
const CHECKED = ['js', 'javascript', 'html', 'glsl', 'gdshader', 'gdscript'];

function filesUnder(dir, suffixes) {
    return fs.readdirSync(path.join(root, dir), { recursive: true })
        .filter((f) => suffixes.some((s) => f.endsWith(s)))
        .map((f) => path.join(dir, f));
}

// What the tests run: the three.js player and its example page, the test
// page, the Godot shader, the Godot 3 loader and test scene.
const TESTED = [
    ...filesUnder('integrations/three', ['.js', '.html']).filter((f) => !f.includes('node_modules')),
    ...filesUnder('integrations/godot', ['.gdshader', '.gd']),
    'tests/browser/page/scene.js', 'tests/browser/godot3/main.gd',
].map((f) => ({ name: f, lines: fs.readFileSync(path.join(root, f), 'utf8').split('\n').map((l) => l.trim()) }));

function blocks(text) {
    const out = [];
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
        const open = lines[i].match(/^\s*```(\w*)\s*$/);
        if (!open) {
            continue;
        }
        const start = i;
        let end = i + 1;
        while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) {
            end++;
        }
        const before = lines.slice(0, start).reverse().find((l) => l.trim() !== '') ?? '';
        out.push({ language: open[1], line: start + 1, untested: /<!-- untested:/.test(before),
                   body: lines.slice(start + 1, end).map((l) => l.trim()) });
        i = end;
    }
    return out;
}

function foundIn(body) {
    const want = body.filter((l) => l !== '');
    for (const file of TESTED) {
        const have = file.lines.filter((l) => l !== '');
        for (let at = 0; at + want.length <= have.length; at++) {
            if (want.every((l, k) => have[at + k] === l)) {
                return file.name;
            }
        }
    }
    return null;
}

let failures = 0;
for (const page of PAGES) {
    for (const b of blocks(fs.readFileSync(path.join(root, page), 'utf8'))) {
        if (!CHECKED.includes(b.language)) {
            continue;
        }
        const where = b.untested ? null : foundIn(b.body);
        console.log(`${page}:${b.line} ${b.language}: ${b.untested ? 'untested (says so)' : where ?? 'NOT FOUND in tested code'}`);
        failures += !b.untested && where === null ? 1 : 0;
    }
}
console.log(failures === 0 ? 'passed' : `${failures} blocks are not tested code`);
process.exit(failures === 0 ? 0 : 1);
