// page.js - the player page's glue: reads the URL, fetches the bake folder
// into emscripten's file system, sets up the scene through player.c's
// functions, runs the frames and shows (and exposes) the numbers.
//
// URL parameters (the scene of `crowd render DIR --mode M --count N
// [--seed S] [--clip C] --time T --camera ... --size WxH --no-ground`):
//   bake=URL          the bake's NAME.crowd.json (its `files` are fetched beside it)
//   mode=vat|bat|gpu|cpu|static   (default vat; gpu and cpu play the bake's runtime clips)
//   tier=auto|gl45|portable   (default auto: portable, all WebGL2 runs; gl45 is refused)
//   count=N           characters (default 1), laid out as crowd render does
//   seed=S            random clips (unless clip=), phases, speeds, headings
//   clip=NAME         the clip every character plays
//   time=T            world time of the first frame, seconds (default 0)
//   paused=1          every frame at time T
//   camera=x,y,z,tx,ty,tz   eye and target (default: crowd render's automatic camera)
//   size=WxH          canvas size in pixels (default 960x540)
//   fade=CLIP,AT,S    every character crossfades to CLIP over S seconds from world time AT
//   bench=1           each frame ends with a 1-pixel readPixels, timed apart (gpuWaitMs)
// Mouse: drag orbits the camera, the wheel zooms, a click crossfades every
// character to its next clip.
//
// window.crowdPlayer: {ready, frames, frameMs (between animation frames,
// mean of the last 60), cpuMs (update + GL submission on the main thread,
// mean of the last 60), gpuWaitMs (bench: the read-back wait, mean of the
// last 60), drawCalls, characters, tier, maxTextureSize, firstFrameMs
// (navigation start to the first frame drawn), loadMs {start (navigation to
// page.js running), wasm (instantiating player.wasm), fetch (the bake's
// files), setUp (loading the bake, the world, the instances)}, camera
// {eye, target}, error
// (the refusal's text, or null), samples (bench: per frame
// {frameMs, cpuMs, gpuWaitMs}, the last 1000)}.
'use strict';

(function () {
    const WINDOW = 60;
    const state = {
        ready: false, frames: 0, frameMs: 0, cpuMs: 0, gpuWaitMs: 0, drawCalls: 0, characters: 0,
        tier: '', maxTextureSize: 0, firstFrameMs: null, camera: null, error: null, samples: [],
    };
    window.crowdPlayer = state;
    const readout = document.getElementById('readout');
    const message = document.getElementById('message');
    const canvas = document.getElementById('crowd-canvas');

    // A refusal or failure: shown on the page, kept in crowdPlayer.error, and
    // logged as a warning (a page that says why it draws nothing is working).
    function refuse(text) {
        state.error = text;
        message.textContent = text;
        readout.textContent = 'not playing';
        console.warn(text);
    }

    function numbers(text, count, what) {
        const values = text.split(',').map(Number);
        if (values.length !== count || values.some((v) => !Number.isFinite(v))) {
            throw new Error(`crowd: error: ${what}: '${text}' is not ${count} numbers`);
        }
        return values;
    }

    function sceneFromUrl() {
        const q = new URLSearchParams(location.search);
        const size = (q.get('size') ?? '960x540').split('x').map(Number);
        if (size.length !== 2 || !size.every((v) => Number.isInteger(v) && v > 0 && v <= 8192)) {
            throw new Error(`crowd: error: size: '${q.get('size')}' is not WxH`);
        }
        const fade = q.get('fade')?.split(',');
        if (fade && fade.length !== 3) {
            throw new Error(`crowd: error: fade: '${q.get('fade')}' is not CLIP,AT,SECONDS`);
        }
        return {
            bake: q.get('bake'), mode: q.get('mode') ?? 'vat', tier: q.get('tier') ?? 'auto',
            count: Number(q.get('count') ?? 1),
            seed: q.has('seed') ? Number(q.get('seed')) : null, clip: q.get('clip') ?? '',
            time: Number(q.get('time') ?? 0), paused: q.get('paused') === '1',
            camera: q.has('camera') && q.get('camera') !== 'auto' ? numbers(q.get('camera'), 6, 'camera') : null,
            width: size[0], height: size[1],
            fade: fade ? { clip: fade[0], at: Number(fade[1]), seconds: Number(fade[2]) } : null,
            bench: q.get('bench') === '1',
        };
    }

    // The manifest and every file its `files` lists, into /bake/ of the
    // module's file system; resolves to the manifest's path there.
    async function fetchBake(module, url) {
        const base = new URL(url, location.href);
        const get = async (name) => {
            const response = await fetch(new URL(name, base));
            if (!response.ok) {
                throw new Error(`crowd: error: ${name}: HTTP ${response.status} from ${response.url}`);
            }
            return new Uint8Array(await response.arrayBuffer());
        };
        const manifestName = decodeURIComponent(base.pathname.split('/').pop());
        const manifestBytes = await get(manifestName);
        const manifest = JSON.parse(new TextDecoder().decode(manifestBytes));
        if (!manifest.files) {
            throw new Error(`crowd: error: ${manifestName}: a version ${manifest.version} manifest ` +
                            'lists no files to fetch (bake it again with this crowd)');
        }
        module.FS.mkdir('/bake');
        module.FS.writeFile(`/bake/${manifestName}`, manifestBytes);
        const names = Object.keys(manifest.files);
        const bytes = await Promise.all(names.map(get));
        names.forEach((name, i) => module.FS.writeFile(`/bake/${name}`, bytes[i]));
        return { path: `/bake/${manifestName}`, names: [manifestName, ...names] };
    }

    function call(module, name, types, args) {
        if (module.ccall(name, 'number', types, args) !== 0) {
            throw new Error(module.ccall('player_error', 'string', [], []));
        }
    }

    function setUpScene(module, scene, bakePath) {
        call(module, 'player_open', ['string', 'string', 'string', 'string'],
             ['#crowd-canvas', bakePath, scene.mode, scene.tier]);
        state.maxTextureSize = module._player_stat(5);
        call(module, 'player_populate', ['number', 'number', 'number', 'string'],
             [scene.count, scene.seed === null ? 0 : 1, scene.seed ?? 0, scene.clip]);
        if (scene.camera) {
            call(module, 'player_camera_set', Array(6).fill('number'), scene.camera);
        } else {
            call(module, 'player_camera_auto', [], []);
        }
        if (scene.fade) {
            call(module, 'player_crossfade', ['string', 'number', 'number'],
                 [scene.fade.clip, scene.fade.at, scene.fade.seconds]);
        }
    }

    function mean(values) {
        return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0;
    }

    function showNumbers() {
        readout.textContent =
            `frame ${state.frameMs.toFixed(2)} ms   main thread ${state.cpuMs.toFixed(2)} ms` +
            (state.bench ? `   GPU wait ${state.gpuWaitMs.toFixed(2)} ms` : '') +
            `   draw calls ${state.drawCalls}   characters ${state.characters}   tier ${state.tier}` +
            '\ndrag: orbit   wheel: zoom   click: crossfade to the next clip';
    }

    function runFrames(module, scene) {
        const recent = { frame: [], cpu: [], gpu: [] };
        const push = (list, value) => {
            list.push(value);
            if (list.length > WINDOW) {
                list.shift();
            }
        };
        let start = null, last = null;
        const clock = (now) => (scene.paused ? scene.time : scene.time + (now - start) / 1000);
        const tick = (now) => {
            start ??= now;
            if (module._player_frame(clock(now), scene.bench ? 1 : 0) !== 0) {
                refuse(module.ccall('player_error', 'string', [], []));
                return;
            }
            const frameMs = last === null ? 0 : now - last;
            last = now;
            state.frames = module._player_stat(0);
            state.firstFrameMs ??= performance.now();
            push(recent.cpu, module._player_stat(1));
            push(recent.gpu, module._player_stat(2));
            if (state.frames > 1) {
                push(recent.frame, frameMs);
            }
            if (scene.bench) {
                state.samples.push({ frameMs, cpuMs: recent.cpu.at(-1), gpuWaitMs: recent.gpu.at(-1) });
                if (state.samples.length > 1000) {
                    state.samples.shift();
                }
            }
            state.frameMs = mean(recent.frame);
            state.cpuMs = mean(recent.cpu);
            state.gpuWaitMs = mean(recent.gpu);
            state.drawCalls = module._player_stat(3);
            state.characters = module._player_stat(4);
            showNumbers();
            requestAnimationFrame(tick);
        };
        state.clock = () => (start === null ? scene.time : clock(performance.now()));
        requestAnimationFrame(tick);
    }

    // Drag: orbit; wheel: zoom; a click that did not drag: crossfade.
    function bindMouse(module) {
        let down = null, dragged = false;
        canvas.addEventListener('pointerdown', (e) => {
            down = { x: e.clientX, y: e.clientY };
            dragged = false;
            canvas.setPointerCapture(e.pointerId);
        });
        canvas.addEventListener('pointermove', (e) => {
            if (down === null) {
                return;
            }
            const dx = e.clientX - down.x, dy = e.clientY - down.y;
            dragged ||= Math.abs(dx) + Math.abs(dy) > 3;
            if (dragged) {
                module._player_orbit(-0.01 * dx, 0.01 * dy, 1);
                down = { x: e.clientX, y: e.clientY };
            }
        });
        canvas.addEventListener('pointerup', () => {
            if (down !== null && !dragged &&
                module.ccall('player_crossfade', 'number', ['string', 'number', 'number'],
                             ['', state.clock(), 0.3]) !== 0) {
                refuse(module.ccall('player_error', 'string', [], []));
            }
            down = null;
        });
        canvas.addEventListener('wheel', (e) => {
            e.preventDefault();
            module._player_orbit(0, 0, Math.exp(0.001 * e.deltaY));
        }, { passive: false });
    }

    async function main() {
        const scene = sceneFromUrl();
        state.bench = scene.bench;
        canvas.width = scene.width;
        canvas.height = scene.height;
        canvas.style.width = `${scene.width}px`;
        canvas.style.height = `${scene.height}px`;
        if (!scene.bake) {
            throw new Error('crowd: error: no bake: open this page with ?bake=URL/NAME.crowd.json');
        }
        const started = performance.now();
        const module = await createCrowdPlayer({ canvas });
        const instantiated = performance.now();
        const bake = await fetchBake(module, scene.bake);
        const fetched = performance.now();
        try {
            setUpScene(module, scene, bake.path);
        } finally {
            state.loadMs = { start: started, wasm: instantiated - started, fetch: fetched - instantiated,
                             setUp: performance.now() - fetched };
            // The loaded bake holds its own copy; the fetched files go.
            bake.names.forEach((name) => module.FS.unlink(`/bake/${name}`));
            state.maxTextureSize = module._player_stat(5);
            state.tier = module.ccall('player_tier', 'string', [], []);
        }
        const camera = () => {
            const values = [0, 1, 2, 3, 4, 5].map((i) => module._player_camera_value(i));
            return { eye: values.slice(0, 3), target: values.slice(3) };
        };
        state.camera = camera();
        state.cameraNow = camera;
        state.clipOf = (i) => module.ccall('player_clip_of', 'string', ['number'], [i]);
        state.characters = module._player_stat(4);
        state.ready = true;
        bindMouse(module);
        runFrames(module, scene);
    }

    main().catch((e) => refuse(e.message));
})();
