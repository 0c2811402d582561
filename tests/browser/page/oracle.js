// oracle.js - the source file as three.js itself plays it: GLTFLoader's
// SkinnedMesh posed by an AnimationMixer at a clip time, drawn flat (one
// unlit colour, both sides) on crowd's sky colour, so its silhouette is
// the reference for test_source_oracle.mjs. The player's side is scene.js's
// window.renderStill, drawn by the same renderer.
//   window.loadSource(url) -> { clips: [{ name, duration }] } (the glTF's
//       animations, in the file's order)
//   window.sourcePoints({ url, clip (index), loop, times: [s] }) -> the posed
//       character's vertices [[x, y, z, ...]] per time
//   window.renderSource({ url, clip, loop, shots: [{ time, width, height,
//       eye, target }] }) -> [RGBA pixels, rows top first, base64] per shot
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { crowdCamera } from '../example/stage.js';
import { renderer, toBase64 } from './scene.js';

const sources = new Map();
// crowd render's sky (linear), as addCrowdLights sets it: compare.mjs
// counts a pixel as the character's when it is off this colour.
const SKY = new THREE.Color(0.32, 0.38, 0.46);
const FLAT = new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });

async function source(url) {
    if (!sources.has(url)) {
        // Fetched whole, as the player's mesh is (fetch.js): GLTFLoader's
        // own loader streams the body, and chromium now and then reports
        // that finished request as aborted.
        const response = await fetch(url);
        if (!response.ok) {
            throw new Error(`${url}: HTTP ${response.status}`);
        }
        const gltf = await new GLTFLoader().parseAsync(await response.arrayBuffer(), new URL('.', response.url).href);
        const scene = new THREE.Scene();
        scene.background = SKY;
        scene.add(gltf.scene);
        gltf.scene.traverse((o) => {
            if (o.isMesh) {
                // crowd's players draw without face culling (bake.js), so
                // both sides count; the bounds three keeps for culling are
                // the bind pose's, not the animated pose's.
                o.material = FLAT;
                o.frustumCulled = false;
            }
        });
        sources.set(url, { gltf, scene, mixer: new THREE.AnimationMixer(gltf.scene) });
    }
    return sources.get(url);
}

window.loadSource = async (url) => {
    const { gltf } = await source(url);
    return { clips: gltf.animations.map((a) => ({ name: a.name, duration: a.duration })) };
};

// Poses the source at clip time t of one clip alone, at weight 1: a fresh
// action (LoopRepeat for a looping clip, LoopOnce held at its end for a
// one-shot), set to t by mixer.setTime (which rewinds every action to 0 and
// advances the mixer by t).
function pose(s, clip, loop, t) {
    s.mixer.stopAllAction();
    const action = s.mixer.clipAction(s.gltf.animations[clip]);
    action.reset();
    action.setLoop(loop ? THREE.LoopRepeat : THREE.LoopOnce, Infinity);
    action.clampWhenFinished = true;
    action.play();
    s.mixer.setTime(t);
}

// The posed source's vertices (skinned, world space, x y z flattened) per
// time, for a camera that frames the character as it stands at that time.
window.sourcePoints = async (spec) => {
    const s = await source(spec.url);
    const v = new THREE.Vector3();
    return spec.times.map((t) => {
        pose(s, spec.clip, spec.loop, t);
        s.scene.updateMatrixWorld(true);
        const points = [];
        s.gltf.scene.traverse((o) => {
            if (o.isMesh) {
                const position = o.geometry.attributes.position;
                for (let i = 0; i < position.count; i++) {
                    o.getVertexPosition(i, v).applyMatrix4(o.matrixWorld);
                    points.push(v.x, v.y, v.z);
                }
            }
        });
        return points;
    });
};

window.renderSource = async (spec) => {
    const s = await source(spec.url);
    const gl = renderer.getContext();
    const out = [];
    for (const shot of spec.shots) {
        const { width, height } = shot;
        renderer.setSize(width, height, false);
        pose(s, spec.clip, spec.loop, shot.time);
        renderer.render(s.scene, crowdCamera(shot.eye, shot.target, width / height));
        const pixels = new Uint8Array(width * height * 4);
        gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
        out.push(toBase64(pixels, width, height));
    }
    return out;
};

window.oraclePageReady = true;
