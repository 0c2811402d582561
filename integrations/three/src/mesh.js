// mesh.js - NAME.mesh.glb as ONE geometry with a group per material, so a
// whole crowd is one InstancedMesh drawn once per material. GLTFLoader makes
// one mesh per glTF primitive; crowd writes one primitive per material (older
// bakes: one per source mesh, 19 for robot.glb, so primitives of one
// material are merged here too), every primitive over the same vertex
// accessors (docs/manifest.md), so merging is concatenating indices. The
// materials are GLTFLoader's own (MeshStandardMaterial with the file's base
// colour, metallic, roughness, textures, alpha mode and sidedness).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { fetchBytes } from './fetch.js';

function fail(url, what) {
    return new Error(`crowd: ${url}: ${what}`);
}

// Returns {geometry, materials}: the bake's vertex buffer in its own order
// (positions, normals, uv, uv1 = TEXCOORD_1, skinIndex, skinWeight) and one
// group and one MeshStandardMaterial per material.
export async function loadMesh(url, vertexCount) {
    const bytes = await fetchBytes(url);
    // glTF mesh 0 is LOD0, the vertices the textures follow; version 2 bakes
    // add coarser LODs as further meshes, which this player does not draw.
    let lod0;
    try {
        const parser = (await new GLTFLoader().parseAsync(bytes.buffer, new URL('.', url).href)).parser;
        lod0 = await parser.getDependency('mesh', 0);
    } catch (e) {
        throw fail(url, `cannot load the mesh (${e.message})`);
    }
    const meshes = lod0.isMesh ? [lod0] : lod0.children.filter((o) => o.isMesh);
    const shared = meshes[0].geometry.attributes;
    let indexCount = 0;
    for (const m of meshes) {
        if (m.geometry.attributes.position !== shared.position || m.geometry.index === null) {
            throw fail(url, 'primitives do not share one indexed vertex buffer (not a crowd bake mesh)');
        }
        indexCount += m.geometry.index.count;
    }
    if (shared.position.count !== vertexCount) {
        throw fail(url, `has ${shared.position.count} vertices, the manifest says ${vertexCount}`);
    }
    const geometry = new THREE.BufferGeometry();
    for (const name of Object.keys(shared)) {
        geometry.setAttribute(name, shared[name]);
    }
    const index = new Uint32Array(indexCount);
    const materials = [...new Set(meshes.map((m) => m.material))];
    let start = 0;
    materials.forEach((material, i) => {
        const first = start;
        for (const m of meshes.filter((mesh) => mesh.material === material)) {
            index.set(m.geometry.index.array, start);
            start += m.geometry.index.count;
        }
        geometry.addGroup(first, start - first, i);
    });
    geometry.setIndex(new THREE.BufferAttribute(index, 1));
    return { geometry, materials };
}
