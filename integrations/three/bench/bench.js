// bench.js - one way of drawing N animated characters in three.js, one way
// per page load, so that each way's load time to the first frame and bytes
// downloaded are its own (tests/browser/bench.mjs alternates these pages
// with crowd's WebGL2 player, web/, round by round):
//   way=skinned  SkeletonUtils.clone of the glTF scene and one
//                AnimationMixer per character, mixer.update each frame (what
//                a three.js developer writes without crowd); three skins on
//                the GPU with bone matrices it computes on the CPU at render
//                time
//   way=crowd    one CrowdBake crowd (one InstancedMesh), crowd.update each
//                frame
// URL: way=skinned|crowd, model=URL.glb (skinned), bake=URL.crowd.json
// (crowd), size=WxH (default 320x180), frames=F (measured, default 8),
// warmup=W (frames drawn first and not measured: shader compiles and
// uploads, default 4). The scene is window.benchScene, set before the page
// runs (bench.mjs: page.evaluateOnNewDocument) so that no way downloads it:
// {instances: [{position, heading, clip (name), time (clip time at clock
// 0), speed, loop (the clip's own flag)}], eye, target}, crowd render's layout and camera
// (tests/browser/layout.mjs), as the WebGL2 player lays them out itself.
//
// Frames run in requestAnimationFrame at the page's clock, as the WebGL2
// player's do. Main-thread time = animation update + renderer.render
// submission; GPU wait = a 1-pixel readPixels after it, timed apart
// (gl.finish returns at once in Chromium). window.benchResult when done:
// {samples: [{cpuMs, gpuWaitMs}], drawCalls, firstFrameMs (navigation
// start to the end of the first frame), setUpMs (page script start to the
// scene built)}; window.benchError on a failure.
// Each way imports only its own modules (dynamic imports), so its bytes
// downloaded are what a site drawing it that way would ship.
import * as THREE from 'three';
import { addCrowdLights, crowdCamera } from '../example/stage.js';

const started = performance.now();
const params = new URLSearchParams(location.search);
const way = params.get('way');
const [width, height] = (params.get('size') ?? '320x180').split('x').map(Number);
const frames = Number(params.get('frames') ?? 8);
const warmup = Number(params.get('warmup') ?? 4);
const out = document.getElementById('out');

const renderer = new THREE.WebGLRenderer({ antialias: false });
renderer.setPixelRatio(1);
renderer.setSize(width, height);
document.body.prepend(renderer.domElement);
const gl = renderer.getContext();
const pixel = new Uint8Array(4);

function clipByName(clips, name) {
    const clip = clips.find((c) => c.name === name);
    if (!clip) {
        throw new Error(`bench: the model has no clip named '${name}'`);
    }
    return clip;
}

async function skinnedScene(scene, instances) {
    const { GLTFLoader } = await import('three/addons/loaders/GLTFLoader.js');
    const SkeletonUtils = await import('three/addons/utils/SkeletonUtils.js');
    const gltf = await new GLTFLoader().loadAsync(params.get('model'));
    const mixers = [];
    for (const d of instances) {
        const character = SkeletonUtils.clone(gltf.scene);
        character.position.set(...d.position);
        character.rotation.y = d.heading;
        const mixer = new THREE.AnimationMixer(character);
        const action = mixer.clipAction(clipByName(gltf.animations, d.clip));
        action.timeScale = d.speed;
        action.time = d.time;
        if (d.loop === false) { // a one-shot clip holds its last frame, as crowd's players do
            action.setLoop(THREE.LoopOnce, 1);
            action.clampWhenFinished = true;
        }
        action.play();
        mixers.push(mixer);
        scene.add(character);
    }
    let last = 0;
    return (t) => {
        for (const m of mixers) {
            m.update(t - last);
        }
        last = t;
    };
}

async function crowdScene(scene, instances) {
    const { CrowdBake } = await import('../crowd.js');
    const bake = await CrowdBake.load(params.get('bake'), { renderer });
    const crowd = bake.createCrowd(instances.length);
    instances.forEach((d, i) => crowd.setInstance(i, { position: d.position, heading: d.heading, clip: d.clip,
                                                       time: d.time, speed: d.speed }));
    scene.add(crowd.mesh);
    return (t) => crowd.update(t);
}

async function run() {
    const spec = window.benchScene;
    if (!spec) {
        throw new Error('bench: no window.benchScene (tests/browser/bench.mjs sets it)');
    }
    const scene = new THREE.Scene();
    addCrowdLights(scene);
    const ways = { skinned: skinnedScene, crowd: crowdScene };
    if (!ways[way]) {
        throw new Error(`bench: way=${way} is not skinned or crowd`);
    }
    const update = await ways[way](scene, spec.instances);
    const setUpMs = performance.now() - started;
    const camera = crowdCamera(spec.eye, spec.target, width / height);
    const samples = [];
    let start = null, firstFrameMs = null;
    return new Promise((resolve) => {
        const tick = (now) => {
            start ??= now;
            const begin = performance.now();
            update((now - start) / 1000);
            renderer.render(scene, camera);
            const submitted = performance.now();
            gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
            const done = performance.now();
            firstFrameMs ??= done;
            samples.push({ cpuMs: submitted - begin, gpuWaitMs: done - submitted });
            out.textContent = `${way}: frame ${samples.length} of ${warmup + frames}`;
            if (samples.length < warmup + frames) {
                requestAnimationFrame(tick);
            } else {
                resolve({ samples: samples.slice(warmup), drawCalls: renderer.info.render.calls, firstFrameMs,
                          setUpMs });
            }
        };
        requestAnimationFrame(tick);
    });
}

run().then((result) => {
    window.benchResult = result;
}, (e) => {
    out.textContent = e.message;
    window.benchError = e.message;
    throw e;
});
