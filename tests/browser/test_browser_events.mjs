// test_browser_events.mjs - the three.js player's events (Crowd.events(),
// integrations/three/src/crowd_events.js) against crowd's own world: a bake
// of builtin: with events on its clips, and scripts of state changes and
// updates (loops, several loops in one update, speed changes, negative
// speed, a pause, crossfades, one-shot ends) played by events_reference
// (crowd_world_events) and by the player in headless chromium. Every event
// must match: update, instance, clip, kind, name, clip time (as float32),
// count and fadingOut, in the same order for each instance. A few events are
// also checked against times worked out by hand below, so the two cannot
// agree on a wrong answer. Blends (the bake's walk-run `locomotion`): events
// from the main clip only, across parameter changes and crossfades into and
// out of the blend; speed matching: the player's rate (setGroundSpeed) at
// several speeds equals the world's (crowd_instance_set_ground_speed) as
// float32, and one is worked out by hand from the manifest's strides. Bad
// blend calls are refused with clear errors.
//
//   node test_browser_events.mjs --crowd CLI --events-reference PROGRAM --node-modules DIR
//
// Exit 0 when every script matches; 1 otherwise, or when chromium or a
// program is missing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importPuppeteer, parseArgs, withBrowser } from './browser.mjs';
import { run } from './reference.mjs';
import { serve } from './server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

// builtin:'s clips: idle 2 s, walk 1 s, run 0.7 s, wave 1.2 s (loops), die
// 1.5 s (once).
const EVENTS = ['walk:0.25=step_l', 'walk:0.75=step_r', 'run:0.2=step', 'wave:0=wave_start',
                'die:1=hit_ground'];

// Each script with events worked out by hand: [update, instance, name or
// 'end', clip time, count].
const SCRIPTS = [
    { name: 'loops', steps: ['a:walk:0:1:clip', 'a:walk:0.5:1:clip', 'u:0.1', 'u:0.3', 'u:0.8', 'u:3.6'],
      // instance 0: 0.25 in (0.1, 0.3]; 0.75 in (0.3, 0.8]; 0.8 -> 3.6
      // passes loops 1 and 2 whole (count 2 each) and 0.25 of loop 3.
      // instance 1 starts at 0.5: 0.75 at clock 0.25, 0.25 of loop 1 at 0.75.
      hand: [[1, 0, 'step_l', 0.25, 1], [2, 0, 'step_r', 0.75, 1], [3, 0, 'step_l', 0.25, 2],
             [3, 0, 'step_r', 0.75, 2], [3, 0, 'step_l', 0.25, 1], [1, 1, 'step_r', 0.75, 1],
             [2, 1, 'step_l', 0.25, 1]] },
    { name: 'speeds', steps: ['a:walk:0:1:clip', 'u:0.2', 's:0:2', 'u:0.3', 'u:0.5', 's:0:-1', 'u:0.6',
                              'u:1.2', 's:0:0', 'u:5', 's:0:0.5', 'u:6'],
      // t 0.2 at clock 0.2; twice as fast: t 0.4 at 0.3 (step_l), 0.8 at
      // 0.5 (step_r); backwards from 0.8: 0.7 at 0.6 (step_r), 0.1 at 1.2
      // (step_l); paused: nothing; at half speed from 0.1: 0.6 at 6 (step_l).
      hand: [[1, 0, 'step_l', 0.25, 1], [2, 0, 'step_r', 0.75, 1], [3, 0, 'step_r', 0.75, 1],
             [4, 0, 'step_l', 0.25, 1], [5, 0, 'step_l', 0.25, 0], [6, 0, 'step_l', 0.25, 1]] },
    { name: 'fades', steps: ['a:walk:0.1:1:clip', 'u:0.2', 'p:0:run:0.5', 'u:0.4', 'u:0.6', 'u:0.8',
                             'p:0:die:0.2', 'u:1.5', 'u:2.5', 'u:4'],
      // walk from 0.1: step_l at clock 0.15 (update 0); it goes on under the
      // fade to run (clock 0.2 to 0.7) and fires step_r (t 0.75) at clock
      // 0.65, reported by update 3 as fading out; run from 0.2: step (t 0.2)
      // at clock 0.4 (update 1). die from 0.8: hit_ground at clock 1.8 and
      // its end at 2.3 (update 5); run, fading out until 1.0, fires nothing
      // more (its next step is at clock 1.1).
      hand: [[0, 0, 'step_l', 0.25, 1], [1, 0, 'step', 0.2, 1], [3, 0, 'step_r', 0.75, 1],
             [5, 0, 'hit_ground', 1, 1], [5, 0, 'end', 1.5, 1], [4, 0, 'step', 0.2, 0]] },
    { name: 'once', steps: ['a:die:0:1:clip', 'a:walk:0:1:off', 'a:wave:0:1:clip', 'u:0.5', 'u:1.1',
                            'u:2', 'u:3', 's:1:-1', 'u:3.5', 'u:5'],
      // die: hit_ground at 1 (update 1), end at 1.5 (update 2); walk once:
      // step_l (update 0), step_r and its end at 1 (update 1), then held;
      // backwards from its end at clock 3: step_r at 3.25 (update 4), step_l
      // and the end at 0 (update 5). wave (1.2 s) fires wave_start at its
      // start (update 0) and at each loop: 1.2 (update 2), 2.4 (update 3),
      // 3.6 and 4.8 (update 5, one pass each).
      hand: [[0, 0, 'end', 1.5, 0], [1, 0, 'hit_ground', 1, 1], [2, 0, 'end', 1.5, 1],
             [0, 1, 'step_l', 0.25, 1], [1, 1, 'step_r', 0.75, 1], [1, 1, 'end', 1, 1],
             [4, 1, 'step_r', 0.75, 1], [5, 1, 'step_l', 0.25, 1], [5, 1, 'end', 0, 1],
             [0, 2, 'wave_start', 0, 1], [1, 2, 'wave_start', 0, 0], [2, 2, 'wave_start', 0, 1],
             [3, 2, 'wave_start', 0, 1], [5, 2, 'wave_start', 0, 1]] },
];

// The blend scripts, from the bake's manifest: walk (1 s) and run (0.7 s)
// between their ground speeds. Half-way the blend's cycle is 0.85 s and walk
// plays at 1 / 0.85.
function blendScripts(manifest) {
    const speed = (name) => manifest.clips.find((c) => c.name === name).ground_speed;
    const mid = Math.fround((speed('walk') + speed('run')) / 2);
    const above = speed('run') + 1;
    return [
        { name: 'blend', steps: ['a:idle:0:1:clip', 'a:walk:0:1:clip', 'u:0.05', `b:0:locomotion:${mid}:0`,
                                 `b:1:locomotion:${mid}:0.3`, 'u:0.2', 'u:0.3', 'u:0.8', `v:0:${above}`,
                                 'u:1.0', 'u:1.3', 'p:0:walk:0.4', 'u:1.5', 'u:2'],
          // #0 from 0.05: walk's step_l at clock 0.05 + 0.25 x 0.85 = 0.2625
          // (update 2), step_r at 0.6875 (update 3), run's step never while
          // blended. At 0.8 (walk's phase 0.882) run alone from 0.618: its
          // step at 1.082 (update 5, not 4). From 1.3 a fade to walk: its
          // step_l at 1.55 (update 7); run, leaving until 1.7, fires none.
          // #1 fades from walk into the blend: the walk left fires step_l at
          // 0.25 (update 2) as the blend's walk does at 0.2625.
          hand: [[2, 0, 'step_l', 0.25, 1], [3, 0, 'step_r', 0.75, 1], [2, 0, 'step', 0.2, 0],
                 [3, 0, 'step', 0.2, 0], [4, 0, 'step', 0.2, 0], [5, 0, 'step', 0.2, 1],
                 [6, 0, 'step', 0.2, 0], [7, 0, 'step', 0.2, 0], [7, 0, 'step_l', 0.25, 1],
                 [2, 1, 'step', 0.2, 0]] },
        { name: 'ground speed', steps: ['a:idle:0:1:clip', 'u:0.1', 'b:0:locomotion:2:0', 'g:0:0.5', 'r:0',
                                        'g:0:2', 'r:0', `g:0:${mid}`, 'r:0', 'g:0:2.9', 'r:0', 'g:0:5',
                                        'r:0', 'u:0.5', 's:0:1.5', 'r:0', 'g:0:3', 'r:0', 'u:1.2',
                                        'g:0:0', 'r:0'],
          hand: [] },
    ];
}

// Below the first threshold the blend plays walk alone at v x d_walk /
// stride (the manifest's stride of walk alone): the first g: step's rate.
function handRate(manifest, v) {
    const walk = manifest.clips.find((c) => c.name === 'walk');
    const stride = Math.fround(manifest.blends[0].strides[0][0]);
    return Math.fround(Math.fround(Math.fround(v) * Math.fround(walk.duration_s)) / stride);
}

function splitRates(events) {
    return { events: events.filter((e) => e.rate === undefined),
             rates: events.filter((e) => e.rate !== undefined) };
}

function compareRates(want, got) {
    const failures = [];
    const line = (r) => `#${r.rate} rate ${r.value} speed ${r.speed}`;
    if (want.length !== got.length) {
        failures.push(`${want.length} rates from crowd, ${got.length} from three.js`);
    }
    for (let k = 0; k < Math.min(want.length, got.length); k++) {
        if (line(want[k]) !== line(got[k])) {
            failures.push(`rate ${k}: crowd ${line(want[k])}; three.js ${line(got[k])}`);
        }
    }
    return failures;
}

function parseReference(text) {
    return text.trim().split('\n').filter((l) => l.length > 0).map((line) => {
        if (line.startsWith('rate ')) {
            const [, instance, value, speed] = line.split(' ');
            return { rate: Number(instance), value: Math.fround(Number(value)),
                     speed: Math.fround(Number(speed)) };
        }
        const [update, instance, clip, kind, name, time, count, fadingOut] = line.split(' ');
        return { update: Number(update), instance: Number(instance), clip: Number(clip), kind,
                 name: name === '-' ? '' : name, time: Math.fround(Number(time)),
                 count: Number(count), fadingOut: fadingOut === '1' };
    });
}

const show = (e) => `u${e.update} #${e.instance} clip ${e.clip} ${e.kind} '${e.name}' ` +
                    `t ${e.time} x${e.count}${e.fadingOut ? ' fading out' : ''}`;

// Events of one instance, in order (the two sides list instances in
// different orders: only each instance's own sequence is defined).
function byInstance(events) {
    const map = new Map();
    for (const e of events) {
        map.set(e.instance, [...(map.get(e.instance) ?? []), e]);
    }
    return map;
}

function compareScript(script, want, got) {
    const failures = [];
    const w = byInstance(want), g = byInstance(got);
    for (const instance of new Set([...w.keys(), ...g.keys()])) {
        const a = w.get(instance) ?? [], b = g.get(instance) ?? [];
        for (let k = 0; k < Math.max(a.length, b.length); k++) {
            if (k >= a.length || k >= b.length || show(a[k]) !== show(b[k])) {
                failures.push(`crowd: ${k < a.length ? show(a[k]) : '(none)'}; three.js: ` +
                              `${k < b.length ? show(b[k]) : '(none)'}`);
                break;
            }
        }
    }
    for (const [update, instance, name, time, count] of script.hand) {
        if (count === 0) { // none of this name at this update
            if (want.some((e) => e.update === update && e.instance === instance &&
                                 (name === 'end' ? e.kind === 'end' : e.name === name))) {
                failures.push(`crowd fired ${name} at update ${update}, which it must not`);
            }
            continue;
        }
        const found = want.filter((e) => e.update === update && e.instance === instance &&
                                         (name === 'end' ? e.kind === 'end' : e.name === name) &&
                                         e.time === Math.fround(time) && e.count === count);
        if (found.length === 0) {
            failures.push(`no ${name} at clip time ${time} x${count} for #${instance} at update ${update}`);
        }
    }
    return failures;
}

// A manifest whose event lies outside its clip, or is out of order, is
// refused by the player's loader with the reason.
async function checkBadEvents(page, dir) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'builtin.crowd.json'), 'utf8'));
    const walk = manifest.clips.find((c) => c.name === 'walk');
    let failures = 0;
    for (const [name, events] of [['outside', [{ name: 'late', time_s: walk.duration_s + 0.5 }]],
                                  ['unordered', [{ name: 'b', time_s: 0.5 }, { name: 'a', time_s: 0.25 }]],
                                  ['unnamed', [{ name: '', time_s: 0.5 }]]]) {
        walk.events = events;
        fs.writeFileSync(path.join(dir, `bad_${name}.crowd.json`), JSON.stringify(manifest));
        const message = await page.evaluate((url) => window.runEvents(url, ['u:1']).then(() => 'loaded', (e) => e.message),
                                            `/bake/builtin/bad_${name}.crowd.json`);
        const ok = /event .* is unnamed, out of order or outside/.test(message);
        console.log(`${ok ? 'ok  ' : 'FAIL'} bad events (${name}): ${message}`);
        failures += ok ? 0 : 1;
    }
    return failures;
}

// Bad blend calls: an unknown blend, a parameter that is not finite, a
// negative ground speed, an instance playing no blend.
async function checkBadBlends(page) {
    const cases = [[['b:0:nope:1:0'], /no blend "nope"; blends: locomotion/],
                   [['b:0:locomotion:NaN:0'], /blend parameter must be a finite number/],
                   [['b:0:locomotion:2:0', 'g:0:-1'], /ground speed -1 is negative/],
                   [['v:0:2'], /instance 0 plays no blend/],
                   [['g:0:2'], /instance 0 plays no blend/]];
    let failures = 0;
    for (const [steps, want] of cases) {
        const message = await page.evaluate((s) => window.runEvents('/bake/builtin/builtin.crowd.json', s)
            .then(() => 'accepted', (e) => e.message), ['a:walk:0:1:clip', ...steps]);
        const ok = want.test(message);
        console.log(`${ok ? 'ok  ' : 'FAIL'} bad blend call ${steps.at(-1)}: ${message}`);
        failures += ok ? 0 : 1;
    }
    return failures;
}

async function main() {
    const args = parseArgs();
    for (const program of [args.crowd, args['events-reference']]) {
        if (!program || !fs.existsSync(program)) {
            console.log(`FAIL: ${program} is not built`);
            return 1;
        }
    }
    const puppeteer = await importPuppeteer(args['node-modules']);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-browser-events-'));
    const dir = path.join(tmp, 'builtin');
    run(args.crowd, ['bake', 'builtin:', '-o', dir, '--fps', '10', '--what', 'vat', '--lods', '0',
                     '--quiet', '--blend', 'locomotion=walk,run', ...EVENTS.flatMap((e) => ['--event', e])]);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'builtin.crowd.json'), 'utf8'));
    const server = await serve([['/crowd/node_modules/', args['node-modules']],
                                ['/crowd/test/', path.join(here, 'page')],
                                ['/crowd/', path.join(root, 'integrations/three')],
                                ['/bake/', tmp]]);
    const failures = await withBrowser(puppeteer, tmp, async (browser) => {
        let found = 0;
        const page = await browser.newPage(64, 64);
        await page.goto(`${server.url}/crowd/test/events.html`);
        await page.waitForFunction(() => window.crowdPageReady === true);
        for (const script of [...SCRIPTS, ...blendScripts(manifest)]) {
            const want = splitRates(parseReference(run(args['events-reference'], [dir, ...script.steps])));
            const got = splitRates(await page.evaluate(
                (steps) => window.runEvents('/bake/builtin/builtin.crowd.json', steps), script.steps));
            const problems = [...compareScript(script, want.events, got.events),
                              ...compareRates(want.rates, got.rates)];
            if (want.rates.length > 0 && want.rates[0].value !== handRate(manifest, 0.5)) {
                problems.push(`crowd's rate at 0.5 m/s is ${want.rates[0].value}, by hand ${handRate(manifest, 0.5)}`);
            }
            if (want.rates.length > 0) {
                console.log(`     rates: ${want.rates.map((r) => r.value).join(', ')}`);
            }
            console.log(`${problems.length === 0 ? 'ok  ' : 'FAIL'} ${script.name}: ` +
                        `${want.events.length} events from crowd, ${got.events.length} from three.js` +
                        (want.rates.length > 0 ? `, ${want.rates.length} rates` : ''));
            problems.forEach((p) => console.log(`     ${p}`));
            found += problems.length;
        }
        // Last: its manifests beside the bake's would make it ambiguous for
        // events_reference.
        found += await checkBadBlends(page);
        return found + await checkBadEvents(page, dir);
    });
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
    console.log(failures === 0 ? 'passed' : `${failures} failures`);
    return failures === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
    console.log(`FAIL: ${e.stack ?? e}`);
    process.exit(1);
});
