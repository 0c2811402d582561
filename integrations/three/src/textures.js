// textures.js - the bake's textures as three.js DataTextures holding the
// file's values untouched: no filtering, no mipmaps, no colour conversion,
// rows top first as the manifest stores them (texture row r = file row r).
import * as THREE from 'three';
import { EXRLoader } from 'three/addons/loaders/EXRLoader.js';
import { fetchBytes } from './fetch.js';
import { decodePng16 } from './png16.js';

function dataTexture(data, width, height, format, type, internalFormat) {
    const texture = new THREE.DataTexture(data, width, height, format, type);
    texture.internalFormat = internalFormat;
    texture.magFilter = texture.minFilter = THREE.NearestFilter;
    texture.generateMipmaps = false;
    texture.flipY = false;
    texture.colorSpace = THREE.NoColorSpace;
    texture.wrapS = texture.wrapT = THREE.ClampToEdgeWrapping;
    texture.needsUpdate = true;
    return texture;
}

function checkSize(url, got, want) {
    if (got.width !== want.width || got.height !== want.height) {
        throw new Error(`crowd: ${url}: image is ${got.width}x${got.height}, ` +
                        `the manifest says ${want.width}x${want.height}`);
    }
}

// The unorm16_oct VAT as an RGBA16UI texture of the exact 16-bit codes
// (sampled with texelFetch on a usampler2D).
export async function loadPng16Texture(url, want) {
    const image = await decodePng16(url, await fetchBytes(url), want);
    return dataTexture(image.data, image.width, image.height, THREE.RGBAIntegerFormat,
                       THREE.UnsignedShortType, 'RGBA16UI');
}

// Swaps rows in place: three's EXRLoader stores the file's last row first.
function flipRows(data, width, height) {
    const stride = width * 4;
    const swap = new data.constructor(stride);
    for (let top = 0, bottom = height - 1; top < bottom; top++, bottom--) {
        swap.set(data.subarray(top * stride, (top + 1) * stride));
        data.copyWithin(top * stride, bottom * stride, (bottom + 1) * stride);
        data.set(swap, bottom * stride);
    }
}

// An f16 / f32 EXR as an RGBA16F / RGBA32F texture (half stays half).
export async function loadExrTexture(url, want, encoding) {
    const loader = new EXRLoader();
    const half = encoding === 'f16';
    loader.setDataType(half ? THREE.HalfFloatType : THREE.FloatType);
    let image;
    try {
        image = loader.parse((await fetchBytes(url)).buffer);
    } catch (e) {
        throw new Error(`crowd: ${url}: not a readable EXR (${e.message})`);
    }
    checkSize(url, image, want);
    if (image.format !== THREE.RGBAFormat) {
        throw new Error(`crowd: ${url}: expected RGBA channels`);
    }
    flipRows(image.data, image.width, image.height);
    return dataTexture(image.data, image.width, image.height, THREE.RGBAFormat,
                       half ? THREE.HalfFloatType : THREE.FloatType, half ? 'RGBA16F' : 'RGBA32F');
}
