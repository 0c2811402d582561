// crowd.js - a crowd of one bake: one InstancedMesh (one draw per material),
// every instance with its own clip or blend, clip time, speed, loop mode and
// crossfade, all evaluated in the vertex shader. The CPU writes an
// instance's record only when its state changes; a frame costs one uniform.
// Time rules: docs/time.md and include/crowd/gpu.h ("Crossfade", "blends"),
// mirrored from crowd's runtime (src/gpu/instances.c, src/gpu/blend_play.c),
// in float32 as crowd keeps them.
import * as THREE from 'three';
import { blendState, groundRate } from './blend.js';
import { EventIndex, START_CLIP, START_CONTINUE, START_FADE } from './crowd_events.js';
import { playPosition, playUnwrapped } from './events.js';
import { CrowdProp } from './props.js';
import { patchMaterial } from './shader.js';

const f32 = Math.fround;
const LOOP_CLIP = 0, LOOP_ON = 1, LOOP_OFF = 2;
// crowdFade's flags (shader.js): the clip played wraps, the clip faded from does.
const WRAPS = 1, FROM_WRAPS = 2;
const NO_BLEND = -1;

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
        // shader.js says what each holds.
        this.clipRecord = record('crowdClip');
        this.fromClipRecord = record('crowdFromClip');
        this.fadeRecord = record('crowdFade');
        this.partnerRecord = record('crowdPartner');
        this.loopModes = new Uint8Array(count);
        // Each instance's blend (NO_BLEND or its index), parameter, rate
        // (the speed it was given) and the factors its clip and the clip a
        // fade leaves run at (speed = rate x factor; 1 for a clip).
        this.blendOf = new Int32Array(count).fill(NO_BLEND);
        this.parameters = new Float32Array(count);
        this.rates = new Float32Array(count);
        this.factors = new Float32Array(count);
        this.fromFactors = new Float32Array(count);
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
    // A blend fires its main clip's (the lower of its segment), not its
    // partner's, as crowd's runtime does.
    events() {
        return this.eventIndex.reported;
    }

    // Replaces instance i's whole state (a crossfade in progress or a blend
    // ends):
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
        this.blendOf[i] = NO_BLEND;
        this.rates[i] = speed;
        this.factors[i] = this.fromFactors[i] = 1;
        this.write(this.clipRecord, i, index, f32(this.time), time, speed);
        this.write(this.fromClipRecord, i, 0, 0, 0, 0);
        this.write(this.fadeRecord, i, 0, 0, this.wraps(i, index) ? WRAPS : 0, 0);
        this.write(this.partnerRecord, i, 0, 0, 0, 0);
        this.eventIndex.start(i, START_CLIP);
    }

    // Changes instance i's playback rate now without a jump in pose (0
    // holds), as crowd_instance_set_speed: each clip playing (and the one a
    // crossfade leaves) restarts now from its clip time now; a blend's
    // clips run at the rate times their blend factor.
    setSpeed(i, speed) {
        this.checkIndex(i);
        finite('speed', speed);
        this.eventIndex.settle(i);
        const now = f32(this.time), c = this.clipRecord.array, q = this.fromClipRecord.array;
        const at = 4 * i;
        this.rates[i] = speed;
        if (this.fading(i)) {
            this.write(this.fromClipRecord, i, q[at], now, this.clipTimeOf(i, true),
                       f32(f32(speed) * this.fromFactors[i]));
        }
        this.write(this.clipRecord, i, c[at], now, this.clipTimeOf(i, false),
                   f32(f32(speed) * this.factors[i]));
        this.eventIndex.start(i, START_CONTINUE);
    }

    // Starts `clip` from time 0 now, crossfading from what instance i plays
    // (a clip or a blend) over `fade` seconds (0 = cut); the old clip keeps
    // playing on its own clock during the fade. Speed and loop mode carry
    // over; a blend ends.
    play(i, clip, fade = 0) {
        this.checkIndex(i);
        this.start(i, this.bake.clipIndex(clip), fade);
        this.eventIndex.start(i, fade > 0 ? START_FADE : START_CLIP);
    }

    // Plays `blend` (index or name of bake.blends) at `parameter` from
    // phase 0 now, crossfading from what instance i plays over `fade`
    // seconds as play() does. The parameter picks two neighbouring clips and
    // the upper's weight from the blend's thresholds; the partner plays at
    // the lower clip's phase, both over the blend's cycle (crowd/gpu.h
    // "blends").
    playBlend(i, blend, parameter, fade = 0) {
        this.checkIndex(i);
        const index = this.bake.blendIndex(blend);
        finite('blend parameter', parameter);
        const state = blendState(this.bake.blends[index], this.bake.clips, f32(parameter));
        this.start(i, state.main, fade);
        this.blendOf[i] = index;
        this.applyBlend(i, f32(parameter), 0, this.rates[i]);
        this.eventIndex.start(i, fade > 0 ? START_FADE : START_CLIP);
    }

    // Moves instance i along its blend to `parameter`: new weights (and
    // segment), the phase kept.
    setBlendParameter(i, parameter) {
        this.checkBlending(i, parameter);
        this.moveAlong(i, f32(parameter), this.rates[i]);
    }

    // Speed matching: instance i moves over the ground at `speed` (model
    // units a second, >= 0; the game moves it): its blend's parameter
    // becomes the speed and its rate makes the planted foot stay put, from
    // the bake's strides (crowd_instance_set_ground_speed).
    setGroundSpeed(i, speed) {
        this.checkBlending(i, speed);
        if (speed < 0) {
            throw new RangeError(`crowd: ground speed ${speed} is negative`);
        }
        const blend = this.bake.blends[this.blendOf[i]];
        if (!blend.strides) {
            throw new Error(`crowd: blend "${blend.name}" has no strides (a bake written before ` +
                            'speed matching, or without runtime clips): bake it again');
        }
        const v = f32(speed);
        this.moveAlong(i, v, groundRate(blend, this.bake.clips, v));
    }

    // A prop type: `geometry` (a BufferGeometry in the socket's space) drawn
    // with `material` (or an array, one per geometry group) on the socket
    // named `socket` (bake.sockets) of the instances it is shown on
    // (prop.show(i)); add prop.mesh to the scene beside crowd.mesh.
    addProp(options) {
        return new CrowdProp(this, options);
    }

    // The blend instance i plays ({blend: index, name, parameter}) or null.
    blendPlaying(i) {
        this.checkIndex(i);
        const b = this.blendOf[i];
        return b === NO_BLEND ? null
            : { blend: b, name: this.bake.blends[b].name, parameter: this.parameters[i] };
    }

    // Instance i's clip time now (seconds) and the clip, by the clip-time
    // rule the shader plays (a blend's: its main clip's).
    clipTime(i) {
        this.checkIndex(i);
        const c = this.clipClock(i);
        const t = playUnwrapped(f32(this.time), c.start, c.offset, c.speed);
        return { clip: c.clip, time: playPosition(t, this.bake.clips[c.clip].duration_s, c.loop).time };
    }

    clipClock(i) {
        const c = this.clipRecord.array, at = 4 * i;
        return { clip: c[at], start: c[at + 1], offset: c[at + 2], speed: c[at + 3],
                 loop: (this.fadeRecord.array[at + 2] & WRAPS) !== 0 };
    }

    // The clip a crossfade is leaving (null when none was set).
    fromClipClock(i) {
        if (!this.fading(i)) {
            return null;
        }
        const q = this.fromClipRecord.array, f = this.fadeRecord.array, at = 4 * i;
        return { clip: q[at], start: q[at + 1], offset: q[at + 2], speed: q[at + 3],
                 loop: (f[at + 2] & FROM_WRAPS) !== 0, fadeStart: f[at], fadeDuration: f[at + 1] };
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

    checkBlending(i, value) {
        this.checkIndex(i);
        if (this.blendOf[i] === NO_BLEND) {
            throw new Error(`crowd: instance ${i} plays no blend (playBlend)`);
        }
        finite('blend parameter', value);
    }

    fading(i) {
        return this.fadeRecord.array[4 * i + 1] > 0;
    }

    // Whether instance i's time wraps in clip `index` (its loop mode, or
    // the clip's own flag).
    wraps(i, index) {
        const mode = this.loopModes[i];
        return mode === LOOP_CLIP ? this.bake.clips[index].loop : mode === LOOP_ON;
    }

    // The clip time now of instance i's clip (or the one its fade leaves),
    // wrapped or clamped as crowd folds it.
    clipTimeOf(i, from) {
        const c = from ? this.fromClipClock(i) : this.clipClock(i);
        const t = playUnwrapped(f32(this.time), c.start, c.offset, c.speed);
        return playPosition(t, this.bake.clips[c.clip].duration_s, c.loop).time;
    }

    // Starts clip `index` alone from time 0 now at the instance's rate, as
    // crowd__gpu_instance_start: with fade > 0 what played (blend partner
    // and all) becomes the clip faded from; a fade already running is cut
    // short (its source clip drops out).
    start(i, index, fade) {
        if (!(fade >= 0) || !Number.isFinite(fade)) {
            throw new RangeError(`crowd: fade ${fade} must be finite and >= 0`);
        }
        const now = f32(this.time), c = this.clipRecord.array, f = this.fadeRecord.array;
        const partner = this.partnerRecord.array, at = 4 * i;
        this.eventIndex.settle(i);
        let flags = this.wraps(i, index) ? WRAPS : 0;
        if (fade > 0) {
            this.write(this.fromClipRecord, i, c[at], c[at + 1], c[at + 2], c[at + 3]);
            flags |= (f[at + 2] & WRAPS) !== 0 ? FROM_WRAPS : 0;
            this.write(this.fadeRecord, i, now, fade, flags, 0);
            this.write(this.partnerRecord, i, 0, 0, partner[at], partner[at + 1]);
            this.fromFactors[i] = this.factors[i];
        } else {
            this.write(this.fadeRecord, i, 0, 0, flags, 0);
            this.write(this.partnerRecord, i, 0, 0, 0, 0);
            this.fromFactors[i] = 1;
        }
        this.blendOf[i] = NO_BLEND;
        this.factors[i] = 1;
        this.write(this.clipRecord, i, index, now, 0, this.rates[i]);
    }

    // Puts instance i on its blend at parameter p, phase (0..1 of the
    // cycle) and rate, re-anchored now (apply in src/gpu/blend_play.c).
    applyBlend(i, p, phase, rate) {
        const state = blendState(this.bake.blends[this.blendOf[i]], this.bake.clips, p);
        const partner = this.partnerRecord.array, f = this.fadeRecord.array, at = 4 * i;
        const dMain = f32(this.bake.clips[state.main].duration_s);
        this.parameters[i] = p;
        this.rates[i] = rate;
        this.factors[i] = state.factor;
        const wraps = this.wraps(i, state.main) ? WRAPS : 0;
        this.write(this.fadeRecord, i, f[at], f[at + 1], (f[at + 2] & FROM_WRAPS) | wraps, 0);
        this.write(this.partnerRecord, i, Math.max(state.partner, 0), state.weight,
                   partner[at + 2], partner[at + 3]);
        this.write(this.clipRecord, i, state.main, f32(this.time), f32(phase * dMain),
                   f32(f32(rate) * state.factor));
    }

    // Re-anchors a blending instance at parameter p and rate, phase kept.
    moveAlong(i, p, rate) {
        this.eventIndex.settle(i);
        const clip = this.clipRecord.array[4 * i];
        const d = f32(this.bake.clips[clip].duration_s);
        const phase = d > 0 ? f32(this.clipTimeOf(i, false) / d) : 0;
        this.applyBlend(i, p, phase, rate);
        this.eventIndex.start(i, START_CONTINUE);
    }

    write(attribute, i, x, y, z, w) {
        attribute.array.set([x, y, z, w], 4 * i);
        attribute.addUpdateRange(4 * i, 4);
        attribute.needsUpdate = true;
    }
}
