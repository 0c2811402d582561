// test_time_cases.mjs - the three.js player's clip-time rule (TIME_GLSL of
// integrations/three/src/shader.js, the chunk its vertex shaders include)
// against the case table tests/common/clip_time_cases.json, in headless
// chromium's WebGL2: one point per case, whose vertex shader runs
// crowdPlayTime and crowdFramePair on the case's float32 inputs and writes
// clip time, frame0, frame1 and weight into pixel i of an RGBA32F target
// (EXT_color_buffer_float), read back and compared here.
//
//   node test_time_cases.mjs --node-modules DIR
//
// Exit 0 every case agrees; 1 otherwise, or when chromium, WebGL2 or float
// render targets are missing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TIME_GLSL } from '../../integrations/three/src/shader.js';
import { importPuppeteer, launch } from './browser.mjs';
import { loadCases, report } from './time_cases.mjs';

const VERTEX = `#version 300 es
precision highp float;
precision highp int;
${TIME_GLSL}
in vec4 play;   // clock, start, offset, speed
in vec4 frames; // duration, fps, frame_count, layout + 4 if looping
uniform float count;
flat out vec4 result;
void main() {
    int flags = int(frames.w);
    float t = crowdPlayTime(play.x, play.y, play.z, play.w, frames.x, (flags & 4) != 0);
    int f0, f1;
    float weight;
    crowdFramePair(frames.y, frames.x, int(frames.z), flags & 3, t, f0, f1, weight);
    result = vec4(t, float(f0), float(f1), weight);
    gl_Position = vec4((2.0 * float(gl_VertexID) + 1.0) / count - 1.0, 0.0, 0.0, 1.0);
    gl_PointSize = 1.0;
}`;

const FRAGMENT = `#version 300 es
precision highp float;
flat in vec4 result;
out vec4 colour;
void main() {
    colour = result;
}`;

// In the page: draws the cases, resolves to {results: [[t, f0, f1, w]...]}
// or {error}.
function runInPage(vertex, fragment, inputs) {
    const n = inputs.length;
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) {
        return { error: 'no WebGL2' };
    }
    if (!gl.getExtension('EXT_color_buffer_float')) {
        return { error: 'no EXT_color_buffer_float' };
    }
    const shader = (type, source) => {
        const s = gl.createShader(type);
        gl.shaderSource(s, source);
        gl.compileShader(s);
        if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) {
            throw new Error(gl.getShaderInfoLog(s));
        }
        return s;
    };
    const program = gl.createProgram();
    try {
        gl.attachShader(program, shader(gl.VERTEX_SHADER, vertex));
        gl.attachShader(program, shader(gl.FRAGMENT_SHADER, fragment));
    } catch (e) {
        return { error: `shader: ${e.message}` };
    }
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
        return { error: `link: ${gl.getProgramInfoLog(program)}` };
    }
    gl.useProgram(program);
    const attribute = (name, offset) => {
        const buffer = gl.createBuffer();
        gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
        gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(inputs.flatMap((c) => c.slice(offset, offset + 4))),
                      gl.STATIC_DRAW);
        const at = gl.getAttribLocation(program, name);
        gl.enableVertexAttribArray(at);
        gl.vertexAttribPointer(at, 4, gl.FLOAT, false, 0, 0);
    };
    attribute('play', 0);
    attribute('frames', 4);
    gl.uniform1f(gl.getUniformLocation(program, 'count'), n);
    const target = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, target);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, n, 1);
    const framebuffer = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, target, 0);
    if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) !== gl.FRAMEBUFFER_COMPLETE) {
        return { error: 'the RGBA32F target is not complete' };
    }
    gl.viewport(0, 0, n, 1);
    // NaN marks a pixel no point reached.
    gl.clearBufferfv(gl.COLOR, 0, [NaN, NaN, NaN, NaN]);
    gl.drawArrays(gl.POINTS, 0, n);
    const pixels = new Float32Array(4 * n);
    gl.readPixels(0, 0, n, 1, gl.RGBA, gl.FLOAT, pixels);
    const glError = gl.getError();
    if (glError !== gl.NO_ERROR) {
        return { error: `GL error 0x${glError.toString(16)}` };
    }
    return { results: Array.from({ length: n }, (_, i) => Array.from(pixels.subarray(4 * i, 4 * i + 4))) };
}


async function main() {
    const at = process.argv.indexOf('--node-modules');
    const nodeModules = at > 0 ? process.argv[at + 1] : undefined;
    if (!nodeModules) {
        console.log('FAIL: usage: node test_time_cases.mjs --node-modules DIR');
        return 1;
    }
    const table = loadCases();
    const puppeteer = await importPuppeteer(nodeModules);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crowd-time-cases-'));
    let browser;
    try {
        browser = await launch(puppeteer, tmp);
        const page = await browser.newPage(64, 64);
        await page.goto('about:blank');
        const got = await page.evaluate(runInPage, VERTEX, FRAGMENT, table.cases.map((c) => c.inputs));
        if (got.error) {
            console.log(`FAIL: ${got.error}`);
            return 1;
        }
        const results = got.results.map(([time, frame0, frame1, weight]) => ({ time, frame0, frame1, weight }));
        let failures = report(table, results, `three.js TIME_GLSL in ${await browser.version()}`);
        for (const e of browser.errors) {
            console.log(`FAIL: ${e}`);
            failures++;
        }
        return failures === 0 ? 0 : 1;
    } finally {
        await browser?.close();
        fs.rmSync(tmp, { recursive: true, force: true });
    }
}

main().then((code) => process.exit(code), (e) => {
    console.log(`FAIL: ${e.stack ?? e}`);
    process.exit(1);
});
