// scene.js - window.renderStill(spec): one still frame of a crowd drawn by
// the three.js player, returned as RGBA pixels (rows top first, base64) for
// test_browser.mjs to compare with crowd's own render of the same scene.
//   spec = { bake: manifest URL, mode: 'vat' | 'bat', width, height,
//            eye: [x, y, z], target: [x, y, z],
//            instances: [setInstance descriptions], set at clock 0,
//            plays: [{ at: clock, instance, clip, fade }], in order; an
//              entry with `blend` (and `parameter`) plays that blend
//              (crowd.playBlend), one with only `parameter` moves along
//              the blend (setBlendParameter),
//            time: the clock of the frame,
//            props: [{ mesh: a mesh.glb URL (a prop bake's), vertexCount,
//                      socket, instances: [indices it is shown on] }],
//            ground: add a ground plane that receives the sun's shadows,
//            castShadow: the crowd casts them }
import * as THREE from 'three';
import { CrowdBake } from '../crowd.js';
import { loadMesh } from '../src/mesh.js';
import { addCrowdLights, crowdCamera } from '../example/stage.js';

// Shared with oracle.js (the source-file oracle draws with the same renderer).
export const renderer = new THREE.WebGLRenderer({ antialias: false });
renderer.setPixelRatio(1);
document.body.appendChild(renderer.domElement);
const bakes = new Map();

export function toBase64(pixels, width, height) {
    // readPixels gives the bottom row first.
    const rows = new Uint8Array(pixels.length);
    for (let y = 0; y < height; y++) {
        rows.set(pixels.subarray((height - 1 - y) * width * 4, (height - y) * width * 4), y * width * 4);
    }
    let text = '';
    for (let i = 0; i < rows.length; i += 0x8000) {
        text += String.fromCharCode(...rows.subarray(i, i + 0x8000));
    }
    return btoa(text);
}

async function bakeFor(spec) {
    const key = `${spec.bake} ${spec.mode}`;
    if (!bakes.has(key)) {
        bakes.set(key, await CrowdBake.load(spec.bake, { renderer, mode: spec.mode }));
    }
    return bakes.get(key);
}

// A grey floor under the character, lit by the sun from low on the +X side
// so that the character's shadow falls beside it, mostly where the character
// does not hide it.
function addGround(scene, sun, { min, max }) {
    const size = 3 * Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    const floor = new THREE.Mesh(new THREE.PlaneGeometry(size, size),
                                 new THREE.MeshStandardMaterial({ color: 0x808080 }));
    floor.rotation.x = -Math.PI / 2;
    floor.receiveShadow = true;
    scene.add(floor);
    sun.castShadow = true;
    return floor;
    sun.position.set(size, 0.7 * size, 0);
    Object.assign(sun.shadow.camera, { left: -size, right: size, top: size, bottom: -size,
                                       near: 0.1, far: 4 * size });
    sun.shadow.mapSize.set(1024, 1024);
}

window.renderStill = async (spec) => {
    const bake = await bakeFor(spec);
    const crowd = bake.createCrowd(spec.instances.length);
    spec.instances.forEach((description, i) => crowd.setInstance(i, description));
    for (const p of spec.plays ?? []) {
        crowd.update(p.at);
        if (p.blend !== undefined) {
            crowd.playBlend(p.instance, p.blend, p.parameter, p.fade);
        } else if (p.clip === undefined) {
            crowd.setBlendParameter(p.instance, p.parameter);
        } else {
            crowd.play(p.instance, p.clip, p.fade);
        }
    }
    crowd.update(spec.time);
    const scene = new THREE.Scene();
    const sun = addCrowdLights(scene);
    scene.add(crowd.mesh);
    const props = [];
    for (const p of spec.props ?? []) {
        const mesh = await loadMesh(new URL(p.mesh, location.href).href, p.vertexCount);
        mesh.materials.forEach((m) => { m.side = THREE.DoubleSide; });
        const prop = crowd.addProp({ geometry: mesh.geometry, material: mesh.materials, socket: p.socket });
        p.instances.forEach((i) => prop.show(i));
        scene.add(prop.mesh);
        props.push({ prop, mesh });
    }
    renderer.shadowMap.enabled = spec.ground === true;
    const floor = spec.ground ? addGround(scene, sun, bake.manifest.bounds) : null;
    crowd.mesh.castShadow = spec.castShadow === true;
    renderer.setSize(spec.width, spec.height, false);
    renderer.render(scene, crowdCamera(spec.eye, spec.target, spec.width / spec.height));
    const calls = renderer.info.render.calls;
    const gl = renderer.getContext();
    const pixels = new Uint8Array(spec.width * spec.height * 4);
    gl.readPixels(0, 0, spec.width, spec.height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
    for (const { prop, mesh } of props) {
        prop.dispose();
        mesh.geometry.dispose();
    }
    crowd.dispose();
    floor?.geometry.dispose();
    floor?.material.dispose();
    sun.dispose();
    return { pixels: toBase64(pixels, spec.width, spec.height), calls };
};

// For the size check: a load that must be refused, and the device's limit.
window.loadBake = (url) => CrowdBake.load(url, { renderer });
window.maxTextureSize = () => renderer.capabilities.maxTextureSize;

// Load errors of a bake reach the test as a rejected renderStill; anything
// else that goes wrong is a page error, which fails the test.
window.crowdPageReady = true;
