// props.js - CrowdProp: a static three.js mesh (any BufferGeometry and
// material) carried by one socket of a crowd's characters, shown per
// instance: one InstancedMesh (one draw per material) per prop type,
// sharing the crowd's per-instance attributes and instance matrices, so a
// prop follows its character's clip, blend and crossfade with no CPU work.
// The socket's model matrix comes from the bake's socket tracks
// (docs/manifest.md socket_tracks), what crowd's world carries a vat prop
// by (crowd_world_add_prop); the geometry is in the socket's space.
import * as THREE from 'three';
import { patchMaterial } from './shader.js';

const SHARED = ['crowdClip', 'crowdFromClip', 'crowdFade', 'crowdPartner'];

export class CrowdProp {
    // Use crowd.addProp({ geometry, material, socket }).
    constructor(crowd, { geometry, material, socket } = {}) {
        if (!geometry?.isBufferGeometry || !geometry.attributes.position) {
            throw new TypeError('crowd: a prop needs a BufferGeometry with positions');
        }
        const materials = Array.isArray(material) ? material : [material];
        if (materials.length === 0 || !materials.every((m) => m?.isMaterial)) {
            throw new TypeError('crowd: a prop needs a material (or an array of them)');
        }
        const bake = crowd.bake;
        const index = bake.socketIndex(socket);
        this.crowd = crowd;
        this.socket = socket;
        const g = new THREE.BufferGeometry();
        for (const [name, attribute] of Object.entries(geometry.attributes)) {
            g.setAttribute(name, attribute);
        }
        g.setIndex(geometry.index);
        for (const group of geometry.groups) {
            g.addGroup(group.start, group.count, group.materialIndex);
        }
        for (const name of SHARED) {
            g.setAttribute(name, crowd.mesh.geometry.getAttribute(name));
        }
        this.shown = new THREE.InstancedBufferAttribute(new Float32Array(crowd.count), 1);
        this.shown.setUsage(THREE.DynamicDrawUsage);
        g.setAttribute('crowdPropShown', this.shown);
        const uniforms = { ...crowd.uniforms, crowdSocket: { value: index } };
        const patched = materials.map((m) => patchMaterial(m.clone(), { CROWD_PROP: '' }, uniforms));
        this.mesh = new THREE.InstancedMesh(g, patched.length === 1 ? patched[0] : patched, crowd.count);
        // The characters' placements, shared: moving one moves its prop.
        this.mesh.instanceMatrix = crowd.mesh.instanceMatrix;
        // The geometry's bounds are in the socket's space, not the crowd's.
        this.mesh.frustumCulled = false;
    }

    // Shows (or hides) the prop on instance i; every instance starts without.
    show(i, shown = true) {
        this.crowd.checkIndex(i);
        this.shown.array[i] = shown ? 1 : 0;
        this.shown.addUpdateRange(i, 1);
        this.shown.needsUpdate = true;
    }

    // Frees the prop's materials and its per-instance flags (the geometry
    // given stays the caller's).
    dispose() {
        for (const m of Array.isArray(this.mesh.material) ? this.mesh.material : [this.mesh.material]) {
            m.dispose();
        }
        this.mesh.dispose();
    }
}
