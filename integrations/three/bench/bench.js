// bench.js - main-thread milliseconds per frame (animation update + render
// submission) and GPU wait of N characters drawn two ways:
//   three   SkeletonUtils.clone of the glTF scene and one AnimationMixer per
//           character, mixer.update each frame (what a three.js developer
//           writes without crowd); three skins on the GPU with bone matrices
//           it computes on the CPU at render time
//   crowd   one CrowdBake crowd (one InstancedMesh), crowd.update each frame
// Every character plays its own clip at its own phase and speed. Modes are
// interleaved round by round at each N, so both see the same machine state;
// the median frame is reported. The GPU wait is a 1-pixel readPixels after
// the render, since gl.finish returns at once in Chromium.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { CrowdBake } from '../crowd.js';
import { addCrowdLights, crowdCamera } from '../example/stage.js';

const params = new URLSearchParams(location.search);
const counts = (params.get('counts') ?? '1,100,1000').split(',').map(Number);
const frames = Number(params.get('frames') ?? 8);
const rounds = Number(params.get('rounds') ?? 3);
const WIDTH = 320, HEIGHT = 240;
const out = document.getElementById('out');

const renderer = new THREE.WebGLRenderer({ antialias: false });
renderer.setPixelRatio(1);
renderer.setSize(WIDTH, HEIGHT);
document.body.appendChild(renderer.domElement);
const gl = renderer.getContext();
const pixel = new Uint8Array(4);

// Character i of n: a grid position, a clip, a phase and a speed, the same
// for both modes.
function placement(i, n, clipCount, spacing) {
    const columns = Math.ceil(Math.sqrt(n));
    const random = (k) => ((Math.sin(12.9898 * i + 78.233 * k) * 43758.5453) % 1 + 1) % 1;
    return {
        position: [(i % columns - (columns - 1) / 2) * spacing, 0,
                   (Math.floor(i / columns) - (columns - 1) / 2) * spacing],
        clip: i % clipCount, phase: random(1), speed: 0.8 + 0.4 * random(2),
    };
}

function threeScene(gltf, n, spacing) {
    const scene = new THREE.Scene();
    addCrowdLights(scene);
    const mixers = [];
    for (let i = 0; i < n; i++) {
        const p = placement(i, n, gltf.animations.length, spacing);
        const character = SkeletonUtils.clone(gltf.scene);
        character.position.set(...p.position);
        const mixer = new THREE.AnimationMixer(character);
        const clip = gltf.animations[p.clip];
        const action = mixer.clipAction(clip);
        action.timeScale = p.speed;
        action.time = p.phase * clip.duration;
        action.play();
        mixers.push(mixer);
        scene.add(character);
    }
    let last = 0;
    return {
        scene,
        update: (t) => {
            for (const m of mixers) {
                m.update(t - last);
            }
            last = t;
        },
        // The clones share geometry and materials; each has its own bone texture.
        dispose: () => scene.traverse((o) => o.isSkinnedMesh && o.skeleton.dispose()),
    };
}

function crowdScene(bake, n, spacing) {
    const scene = new THREE.Scene();
    addCrowdLights(scene);
    const crowd = bake.createCrowd(n);
    for (let i = 0; i < n; i++) {
        const p = placement(i, n, bake.clips.length, spacing);
        crowd.setInstance(i, { position: p.position, clip: p.clip, speed: p.speed, loop: true,
                               time: p.phase * bake.clips[p.clip].duration_s });
    }
    scene.add(crowd.mesh);
    return { scene, update: (t) => crowd.update(t), dispose: () => crowd.dispose() };
}

// One frame: {cpu, gpu} milliseconds and draw calls.
function frame(setup, camera, t) {
    const start = performance.now();
    setup.update(t);
    renderer.render(setup.scene, camera);
    const submitted = performance.now();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    return { cpu: submitted - start, gpu: performance.now() - submitted,
             calls: renderer.info.render.calls };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function run() {
    const model = await (await fetch(params.get('model'))).arrayBuffer();
    const [gltf, bake] = await Promise.all([
        new GLTFLoader().parseAsync(model, ''),
        CrowdBake.load(params.get('bake'), { renderer })]);
    const { min, max } = bake.manifest.bounds;
    const spacing = 1.2 * Math.max(max[0] - min[0], max[2] - min[2]);
    const rows = [];
    for (const n of counts) {
        // Far enough that the sphere around the whole grid fits the view:
        // both modes draw every character.
        const radius = Math.SQRT1_2 * Math.ceil(Math.sqrt(n)) * spacing + max[1];
        const back = new THREE.Vector3(0.35, 0.45, 1).normalize()
            .multiplyScalar(radius / Math.sin((22.5 * Math.PI) / 180));
        const camera = crowdCamera([back.x, back.y, back.z], [0, 0, 0], WIDTH / HEIGHT);
        const setups = { three: threeScene(gltf, n, spacing), crowd: crowdScene(bake, n, spacing) };
        const samples = { three: [], crowd: [] };
        let t = 0;
        for (const name of Object.keys(setups)) {
            frame(setups[name], camera, t); // compile shaders, upload buffers
        }
        for (let r = 0; r < rounds; r++) {
            for (const name of Object.keys(setups)) {
                for (let f = 0; f < frames; f++) {
                    t += 1 / 60;
                    samples[name].push(frame(setups[name], camera, t));
                }
            }
            out.textContent = `N = ${n}: round ${r + 1} of ${rounds}`;
            await new Promise((resolve) => setTimeout(resolve));
        }
        for (const name of Object.keys(setups)) {
            const s = samples[name];
            rows.push({ n, mode: name, cpu: median(s.map((x) => x.cpu)), gpu: median(s.map((x) => x.gpu)),
                        frame: median(s.map((x) => x.cpu + x.gpu)), calls: s[0].calls });
        }
        setups.three.dispose();
        setups.crowd.dispose();
        renderer.renderLists.dispose();
    }
    return rows;
}

function table(rows) {
    const lines = ['    N  mode    main-thread ms  GPU wait ms  frame ms  draw calls  main-thread three/crowd  frame three/crowd'];
    for (const r of rows) {
        const other = rows.find((o) => o.n === r.n && o.mode === 'three');
        const ratio = (a, b) => (r.mode === 'crowd' ? `${(a / b).toFixed(1)}x` : '');
        lines.push(`${String(r.n).padStart(5)}  ${r.mode.padEnd(6)}  ${r.cpu.toFixed(2).padStart(14)}  ` +
                   `${r.gpu.toFixed(2).padStart(11)}  ${r.frame.toFixed(2).padStart(8)}  ${String(r.calls).padStart(10)}  ` +
                   `${ratio(other.cpu, r.cpu).padStart(23)}  ${ratio(other.frame, r.frame).padStart(17)}`);
    }
    return lines.join('\n');
}

run().then((rows) => {
    window.benchRows = rows;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    out.textContent = `${table(rows)}\n\n${gl.getParameter(gl.VERSION)}, ` +
                      `${info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : 'renderer unknown'}, ` +
                      `${WIDTH}x${HEIGHT}, median of ${frames * rounds} frames`;
    window.benchTable = out.textContent;
}, (e) => {
    out.textContent = e.message;
    throw e;
});
