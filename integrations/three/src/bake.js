// bake.js - CrowdBake: a bake folder loaded for three.js (manifest, mesh,
// the textures of one playback mode), from which crowds are made.
import * as THREE from 'three';
import { loadManifest } from './manifest.js';
import { loadMesh } from './mesh.js';
import { loadExrTexture, loadPng16Texture } from './textures.js';
import { Crowd } from './crowd.js';

// Refuses what the device cannot hold before anything large is fetched:
// WebGL draws nothing (with a console warning at most) from a texture above
// MAX_TEXTURE_SIZE.
function checkFits(manifest, texture, name, maxTextureSize) {
    if (texture.width > maxTextureSize || texture.height > maxTextureSize) {
        throw new Error(`crowd: ${manifest.url}: the ${name} texture is ` +
                        `${texture.width}x${texture.height}, this device's WebGL allows at most ` +
                        `${maxTextureSize}x${maxTextureSize} (MAX_TEXTURE_SIZE); bake it with ` +
                        `\`crowd bake --target web\` (every texture within 4096)`);
    }
}

// The clips as the shader reads them (shader.js crowdClips): one RGBA32F
// texel per clip, rows of at most 1024.
function clipTable(clips) {
    const width = Math.min(clips.length, 1024), height = Math.ceil(clips.length / width);
    const data = new Float32Array(4 * width * height);
    clips.forEach((c, i) => data.set([c.first_frame, 4 * c.frame_count + c.layout, c.duration_s, c.fps], 4 * i));
    const texture = new THREE.DataTexture(data, width, height, THREE.RGBAFormat, THREE.FloatType);
    texture.internalFormat = 'RGBA32F';
    texture.magFilter = texture.minFilter = THREE.NearestFilter;
    texture.generateMipmaps = false;
    texture.flipY = false;
    texture.colorSpace = THREE.NoColorSpace;
    texture.needsUpdate = true;
    return texture;
}

export class CrowdBake {
    // Loads the bake whose manifest is at `url` (NAME.crowd.json; the other
    // files are found next to it). Options:
    //   renderer  the WebGLRenderer that will draw it (required: its limits
    //             decide whether the textures fit)
    //   mode      'vat' (default when the bake has a VAT) or 'bat'
    static async load(url, { renderer, mode } = {}) {
        if (!renderer?.capabilities) {
            throw new TypeError('crowd: CrowdBake.load(url, { renderer }) needs the WebGLRenderer');
        }
        const manifest = await loadManifest(url);
        mode ??= manifest.vat ? 'vat' : 'bat';
        if (mode !== 'vat' && mode !== 'bat') {
            throw new TypeError(`crowd: mode must be 'vat' or 'bat', not ${mode}`);
        }
        const texture = mode === 'vat' ? manifest.vat : manifest.bat;
        if (!texture) {
            throw new Error(`crowd: ${manifest.url}: the bake has no ${mode.toUpperCase()}`);
        }
        checkFits(manifest, texture, mode.toUpperCase(), renderer.capabilities.maxTextureSize);
        const uniforms = { crowdRowsPerFrame: { value: texture.rows_per_frame } };
        const defines = {};
        const file = (name) => manifest.fileUrl(name);
        let textures;
        if (mode === 'bat') {
            defines.CROWD_BAT = '';
            textures = { crowdBat: loadExrTexture(file(texture.file), texture, texture.encoding) };
        } else if (texture.encoding === 'unorm16_oct') {
            defines.CROWD_VAT = defines.CROWD_VAT_OCT = '';
            const { min, max } = manifest.bounds;
            uniforms.crowdBoundsMin = { value: new THREE.Vector3(...min) };
            uniforms.crowdBoundsExtent = { value: new THREE.Vector3(max[0] - min[0], max[1] - min[1],
                                                                    max[2] - min[2]) };
            textures = { crowdVat: loadPng16Texture(file(texture.position), texture) };
        } else {
            defines.CROWD_VAT = '';
            textures = { crowdVat: loadExrTexture(file(texture.position), texture, texture.encoding),
                         crowdVatNormal: loadExrTexture(file(texture.normal), texture, texture.encoding) };
        }
        // The socket tracks carry props (props.js), in either mode.
        const tracks = manifest.socket_tracks;
        if (tracks && manifest.socketNames.length > 0) {
            checkFits(manifest, tracks, 'socket tracks', renderer.capabilities.maxTextureSize);
            uniforms.crowdSocketRowsPerFrame = { value: tracks.rows_per_frame };
            textures.crowdSockets = loadExrTexture(file(tracks.file), tracks, 'f32');
        }
        // All at once, so the first failure rejects and none goes unhandled.
        const names = Object.keys(textures);
        const [mesh, ...loaded] = await Promise.all([
            loadMesh(file(manifest.mesh), manifest.vertex_count), ...Object.values(textures)]);
        names.forEach((name, k) => {
            uniforms[name] = { value: loaded[k] };
        });
        return new CrowdBake(manifest, mode, mesh, defines, uniforms);
    }

    constructor(manifest, mode, mesh, defines, uniforms) {
        this.manifest = manifest;
        this.mode = mode;
        this.clips = manifest.clips;
        // [{name, clips (indices), thresholds, strides}] (blend.js readBlends).
        this.blends = manifest.blendList;
        // The sockets props attach to (the manifest's socket_tracks.names).
        this.sockets = manifest.socketNames;
        this.defines = defines;
        this.uniforms = { ...uniforms, crowdClips: { value: clipTable(manifest.clips) } };
        const geometry = mesh.geometry;
        const attributes = geometry.attributes;
        if (mode === 'vat') {
            if (!attributes.uv1) {
                throw new Error(`crowd: ${manifest.url}: the mesh has no TEXCOORD_1 (VAT texels)`);
            }
            geometry.setAttribute('crowdTexel', attributes.uv1);
        } else {
            if (!attributes.skinIndex || !attributes.skinWeight) {
                throw new Error(`crowd: ${manifest.url}: the mesh has no JOINTS_0 / WEIGHTS_0`);
            }
            geometry.setAttribute('crowdJoints', attributes.skinIndex);
            geometry.setAttribute('crowdWeights', attributes.skinWeight);
        }
        // Animated bounds (every baked frame), for three's frustum culling.
        const { min, max } = manifest.bounds;
        geometry.boundingBox = new THREE.Box3(new THREE.Vector3(...min), new THREE.Vector3(...max));
        geometry.boundingSphere = geometry.boundingBox.getBoundingSphere(new THREE.Sphere());
        this.geometry = geometry;
        // crowd's runtime draws without face culling (mesh.glb does not keep
        // the source's doubleSided), lighting back faces as front faces.
        this.materials = mesh.materials.map((m) => {
            m.side = THREE.DoubleSide;
            return m;
        });
    }

    // A crowd of `count` instances (see crowd.js); add crowd.mesh to a scene.
    createCrowd(count) {
        return new Crowd(this, count);
    }

    // Index of a blend given by index or name; throws for an unknown one or
    // one the player cannot place (an older bake without ground speeds).
    blendIndex(blend) {
        const index = typeof blend === 'string' ? this.blends.findIndex((b) => b.name === blend) : blend;
        if (!Number.isInteger(index) || index < 0 || index >= this.blends.length) {
            throw new RangeError(`crowd: no blend ${JSON.stringify(blend)}; blends: ` +
                                 (this.blends.map((b) => b.name).join(', ') || 'none'));
        }
        if (!this.blends[index].thresholds) {
            throw new Error(`crowd: blend "${this.blends[index].name}" has no thresholds and its ` +
                            'clips no ground_speed (a bake written before them): bake it again');
        }
        return index;
    }

    // Index of the socket named `name`; throws for an unknown one.
    socketIndex(name) {
        const index = this.sockets.indexOf(name);
        if (index < 0) {
            throw new RangeError(`crowd: no socket ${JSON.stringify(name)}; sockets: ` +
                                 (this.sockets.join(', ') || 'none (a bake without socket tracks or ' +
                                  'their names: bake it again)'));
        }
        return index;
    }

    // Index of a clip given by index or name; throws for an unknown one.
    clipIndex(clip) {
        const index = typeof clip === 'string' ? this.clips.findIndex((c) => c.name === clip) : clip;
        if (!Number.isInteger(index) || index < 0 || index >= this.clips.length) {
            throw new RangeError(`crowd: no clip ${JSON.stringify(clip)}; clips: ` +
                                 this.clips.map((c) => c.name).join(', '));
        }
        return index;
    }

    // A geometry over the bake's own vertex buffers (shared, not copied),
    // to which a crowd adds its per-instance attributes.
    sharedGeometry() {
        const geometry = new THREE.BufferGeometry();
        for (const [name, attribute] of Object.entries(this.geometry.attributes)) {
            geometry.setAttribute(name, attribute);
        }
        geometry.setIndex(this.geometry.index);
        for (const g of this.geometry.groups) {
            geometry.addGroup(g.start, g.count, g.materialIndex);
        }
        geometry.boundingBox = this.geometry.boundingBox.clone();
        geometry.boundingSphere = this.geometry.boundingSphere.clone();
        return geometry;
    }

    // Frees the textures and mesh buffers (after every crowd is disposed).
    dispose() {
        for (const u of Object.values(this.uniforms)) {
            if (u.value?.isTexture) {
                u.value.dispose();
            }
        }
        this.geometry.dispose();
        for (const m of this.materials) {
            m.dispose();
        }
    }
}
