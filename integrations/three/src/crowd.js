// crowd.js - a crowd of one bake: one InstancedMesh (one draw per material),
// every instance with its own clip, clip time, speed, loop mode and
// crossfade, all evaluated in the vertex shader. The CPU writes an
// instance's record only when its state changes; a frame costs one uniform.
// Time rules: docs/time.md and include/crowd/gpu.h ("Crossfade"), mirrored
// from crowd's runtime (src/gpu/instances.c), in float32 as crowd keeps them.
import * as THREE from 'three';
import { EventIndex, START_CLIP, START_CONTINUE, START_FADE } from './crowd_events.js';
import { playPosition, playUnwrapped } from './events.js';
import { patchMaterial } from './shader.js';

const f32 = Math.fround;
const LOOP_CLIP = 0, LOOP_ON = 1, LOOP_OFF = 2;
const WRAPS = 4; // flags bit: the instance's time wraps (shader.js)

function loopMode(loop) {
    if (loop === undefined || loop === 'clip') {
        return LOOP_CLIP;
    }
    if (typeof loop !== 'boolean') {
        throw new TypeError(`crowd: loop must be true, false or 'clip', not ${loop}`);
    }
    return loop ? LOOP_ON : LOOP_OFF;
}

function finite(name, value) {
    if (!Number.isFinite(value)) {
        throw new RangeError(`crowd: ${name} must be a finite number, not ${value}`);
    }
    return value;
}

export class Crowd {
    // Use bake.createCrowd(count). Every instance starts at the origin
    // playing clip 0 from time 0.
    constructor(bake, count) {
        if (!Number.isInteger(count) || count < 1) {
            throw new RangeError(`crowd: count must be a positive integer, not ${count}`);
        }
        this.bake = bake;
        this.count = count;
        this.time = 0;
        this.uniforms = { crowdTime: { value: 0 }, ...bake.uniforms };
        const geometry = bake.sharedGeometry();
        const record = (name) => {
            const a = new THREE.InstancedBufferAttribute(new Float32Array(4 * count), 4);
            a.setUsage(THREE.DynamicDrawUsage);
            geometry.setAttribute(name, a);
            return a;
        };
        this.clipRecord = record('crowdClip');
        this.playRecord = record('crowdPlay');
        this.fromClipRecord = record('crowdFromClip');
        this.fromPlayRecord = record('crowdFromPlay');
        this.loopModes = new Uint8Array(count);
        this.clipIndices = new Uint32Array(count);
        this.fromClipIndices = new Uint32Array(count);
        this.eventIndex = new EventIndex(bake.clips, count, (i) => this.clipClock(i),
                                         (i) => this.fromClipClock(i));
        const materials = bake.materials.map((m) =>
            patchMaterial(m.clone(), bake.defines, this.uniforms));
        this.mesh = new THREE.InstancedMesh(geometry, materials, count);
        this.mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
        // Shadow maps draw with these: the animated pose, not the bind pose.
        this.mesh.customDepthMaterial = patchMaterial(
            new THREE.MeshDepthMaterial({ depthPacking: THREE.RGBADepthPacking }), bake.defines,
            this.uniforms);
        this.mesh.customDistanceMaterial = patchMaterial(new THREE.MeshDistanceMaterial(),
                                                         bake.defines, this.uniforms);
        this.matrix = new THREE.Matrix4();
        for (let i = 0; i < count; i++) {
            this.setInstance(i, {});
        }
    }

    // Sets the clock (seconds) the crowd is drawn at; call once per frame.
    // Reads the clocks of the instances whose clips have events or play
    // once (no others) for events().
    update(timeSeconds) {
        this.time = finite('time', timeSeconds);
        this.uniforms.crowdTime.value = timeSeconds;
        this.eventIndex.update(f32(timeSeconds));
    }

    // The events of the last update, as crowd_world_events gives them:
    // [{instance, clip, kind: 'event' | 'end', name ('' for an end), time
    // (the event's clip time, or the end reached), count (1, or the whole
    // loops of a long update), fadingOut (fired by the clip a crossfade is
    // leaving)}], those from state changes since the update before first.
    events() {
        return this.eventIndex.reported;
    }

    // Replaces instance i's whole state (a crossfade in progress ends):
    //   position [x, y, z] or Vector3 (default origin), heading radians about
    //   +Y, scale, clip (index or name), time = clip time now (seconds),
    //   speed (1; 0 holds, negative plays backwards), loop (true, false, or
    //   'clip' = the clip's own flag, the default).
    setInstance(i, { position = [0, 0, 0], heading = 0, scale = 1, clip = 0, time = 0,
                     speed = 1, loop } = {}) {
        // Everything is checked before anything is written.
        this.checkIndex(i);
        const p = Array.isArray(position) ? position : [position.x, position.y, position.z];
        p.forEach((v) => finite('position', v));
        finite('heading', heading);
        finite('time', time);
        finite('speed', speed);
        if (!(finite('scale', scale) > 0)) {
            throw new RangeError(`crowd: scale must be positive, not ${scale}`);
        }
        const index = this.bake.clipIndex(clip);
        const mode = loopMode(loop);
        this.matrix.makeRotationY(heading).scale(new THREE.Vector3(scale, scale, scale));
        this.matrix.setPosition(p[0], p[1], p[2]);
        this.mesh.setMatrixAt(i, this.matrix);
        this.mesh.instanceMatrix.addUpdateRange(16 * i, 16);
        this.mesh.instanceMatrix.needsUpdate = true;
        // three culls the whole crowd against bounds grown from every
        // instance; they are recomputed on the next frame.
        this.mesh.boundingSphere = null;
        this.mesh.boundingBox = null;
        this.eventIndex.settle(i);
        this.loopModes[i] = mode;
        this.clipIndices[i] = index;
        this.setClip(this.clipRecord, i, index);
        this.write(this.playRecord, i, f32(this.time), time, speed, this.flags(i, index));
        this.write(this.fromPlayRecord, i, 0, 0, 0, 0);
        this.write(this.fromClipRecord, i, 0, 0, 0, 0);
        this.eventIndex.start(i, START_CLIP);
    }

    // Changes instance i's playback rate now without a jump in pose (0
    // holds). Its clip (and the one a crossfade leaves) keeps its start and
    // takes an offset that puts its clip time now where it was: the fade
    // starts at the clip's start, so the start cannot move.
    setSpeed(i, speed) {
        this.checkIndex(i);
        finite('speed', speed);
        this.eventIndex.settle(i);
        const now = f32(this.time), p = this.playRecord.array, q = this.fromPlayRecord.array;
        const at = 4 * i;
        // The clip time now (wrapped or clamped, as crowd_instance_set_speed
        // folds it) less what the new speed adds from the start.
        const fold = (clip, start, offset, flags) => {
            const t = playUnwrapped(now, start, offset, p[at + 2]);
            const time = playPosition(t, this.bake.clips[clip].duration_s, (flags & WRAPS) !== 0).time;
            return f32(time - f32(f32(now - start) * f32(speed)));
        };
        if (q[at + 2] > 0) {
            this.write(this.fromPlayRecord, i, q[at], fold(this.fromClipIndices[i], q[at], q[at + 1], q[at + 3]),
                       q[at + 2], q[at + 3]);
        }
        this.write(this.playRecord, i, p[at], fold(this.clipIndices[i], p[at], p[at + 1], p[at + 3]),
                   speed, p[at + 3]);
        this.eventIndex.start(i, START_CONTINUE);
    }

    // Starts `clip` from time 0 now, crossfading from the current clip over
    // `fade` seconds (0 = cut); the old clip keeps playing on its own clock
    // during the fade. Speed and loop mode carry over.
    play(i, clip, fade = 0) {
        this.checkIndex(i);
        if (!(fade >= 0) || !Number.isFinite(fade)) {
            throw new RangeError(`crowd: fade ${fade} must be finite and >= 0`);
        }
        const index = this.bake.clipIndex(clip);
        const now = f32(this.time);
        const c = this.clipRecord.array, p = this.playRecord.array, at = 4 * i;
        this.eventIndex.settle(i);
        if (fade > 0) {
            this.fromClipIndices[i] = this.clipIndices[i];
            // A fade already running is cut short: its source clip drops out.
            // The fade starts with the new clip (its start_s) and the old
            // clip keeps the instance's speed.
            this.write(this.fromClipRecord, i, c[at], c[at + 1], c[at + 2], c[at + 3]);
            this.write(this.fromPlayRecord, i, p[at], p[at + 1], fade, p[at + 3]);
        } else {
            this.write(this.fromPlayRecord, i, 0, 0, 0, 0);
        }
        this.clipIndices[i] = index;
        this.setClip(this.clipRecord, i, index);
        this.write(this.playRecord, i, now, 0, p[at + 2], this.flags(i, index));
        this.eventIndex.start(i, fade > 0 ? START_FADE : START_CLIP);
    }

    // Instance i's clip time now (seconds) and the clip, by the clip-time
    // rule the shader plays.
    clipTime(i) {
        this.checkIndex(i);
        const c = this.clipClock(i);
        const t = playUnwrapped(f32(this.time), c.start, c.offset, c.speed);
        return { clip: c.clip, time: playPosition(t, this.bake.clips[c.clip].duration_s, c.loop).time };
    }

    clipClock(i) {
        const p = this.playRecord.array, at = 4 * i;
        return { clip: this.clipIndices[i], start: p[at], offset: p[at + 1], speed: p[at + 2],
                 loop: (p[at + 3] & WRAPS) !== 0 };
    }

    // The clip a crossfade is leaving (null when none was set).
    fromClipClock(i) {
        const p = this.playRecord.array, q = this.fromPlayRecord.array, at = 4 * i;
        if (!(q[at + 2] > 0)) {
            return null;
        }
        return { clip: this.fromClipIndices[i], start: q[at], offset: q[at + 1], speed: p[at + 2],
                 loop: (q[at + 3] & WRAPS) !== 0, fadeStart: p[at], fadeDuration: q[at + 2] };
    }

    // Frees the GPU objects of this crowd (the bake's textures stay).
    dispose() {
        this.mesh.geometry.dispose();
        for (const m of [...this.mesh.material, this.mesh.customDepthMaterial,
                         this.mesh.customDistanceMaterial]) {
            m.dispose();
        }
        this.mesh.dispose();
    }

    checkIndex(i) {
        if (!Number.isInteger(i) || i < 0 || i >= this.count) {
            throw new RangeError(`crowd: instance ${i} is not in 0..${this.count - 1}`);
        }
    }

    setClip(record, i, index) {
        const clip = this.bake.clips[index];
        this.write(record, i, clip.first_frame, clip.frame_count, clip.duration_s, clip.fps);
    }

    // The frame layout of clip `index` and whether instance i's time wraps
    // in it (its loop mode, or the clip's own flag).
    flags(i, index) {
        const clip = this.bake.clips[index];
        const mode = this.loopModes[i];
        const wraps = mode === LOOP_CLIP ? clip.loop : mode === LOOP_ON;
        return clip.layout + (wraps ? WRAPS : 0);
    }

    write(attribute, i, x, y, z, w) {
        attribute.array.set([x, y, z, w], 4 * i);
        attribute.addUpdateRange(4 * i, 4);
        attribute.needsUpdate = true;
    }
}
