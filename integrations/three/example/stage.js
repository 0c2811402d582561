// stage.js - the scene around a crowd as `crowd render` draws it: its sky
// colour, its default light (crowd_light_default: a sun and a sky/ground
// hemisphere) and its look-at camera (crowd_camera_matrices), so a three.js
// page and crowd's own renderer make the same picture.
import * as THREE from 'three';

// Sets the background and adds crowd's default lights to `scene`; returns
// the sun (a DirectionalLight, e.g. to cast shadows). three's lights divide
// by pi (Lambert's BRDF) where crowd's shading does not, hence intensity pi.
// Colours are linear, as crowd's are.
export function addCrowdLights(scene) {
    scene.background = new THREE.Color(0.32, 0.38, 0.46);
    const sun = new THREE.DirectionalLight(new THREE.Color(1.0, 0.95, 0.85), Math.PI);
    sun.position.set(0.3665, 0.8376, 0.405);
    scene.add(sun);
    const sky = new THREE.Color(0.55, 0.62, 0.72), ground = new THREE.Color(0.22, 0.19, 0.16);
    scene.add(new THREE.HemisphereLight(sky, ground, Math.PI));
    return sun;
}

// crowd's camera: 45 degrees vertical field of view, +Y up, near and far
// planes from the distance to the target.
export function crowdCamera(eye, target, aspect) {
    const distance = new THREE.Vector3(...eye).distanceTo(new THREE.Vector3(...target));
    const camera = new THREE.PerspectiveCamera(45, aspect, 0.02 * distance, 20 * distance + 10);
    camera.position.set(...eye);
    camera.lookAt(...target);
    return camera;
}
