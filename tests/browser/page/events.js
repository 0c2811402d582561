// events.js - window.runEvents(bakeUrl, steps): the steps of an events
// script (tests/browser/events_reference.c gives the same script to crowd's
// world) played on the three.js player's Crowd; resolves to every event
// crowd.events() gave, as {update, instance, clip, kind, name, time, count,
// fadingOut}, and per `r:` step {rate: instance, value (the blend's rate),
// speed (its clip's)}. The crowd has one instance per `a:` step, each set at
// clock 0 (a script adds every instance before its first update).
import * as THREE from 'three';
import { CrowdBake } from '../crowd.js';

const renderer = new THREE.WebGLRenderer({ antialias: false });

function loopOf(word) {
    return word === 'on' ? true : (word === 'off' ? false : 'clip');
}

window.runEvents = async (bakeUrl, steps) => {
    const bake = await CrowdBake.load(bakeUrl, { renderer, mode: 'vat' });
    const adds = steps.filter((s) => s.startsWith('a:'));
    const crowd = bake.createCrowd(adds.length);
    const out = [];
    let added = 0, updates = 0;
    for (const step of steps) {
        const [op, ...f] = step.split(':');
        if (op === 'a') {
            crowd.setInstance(added++, { clip: f[0], time: Number(f[1]), speed: Number(f[2]),
                                         loop: loopOf(f[3]) });
        } else if (op === 'p') {
            crowd.play(Number(f[0]), f[1], Number(f[2]));
        } else if (op === 's') {
            crowd.setSpeed(Number(f[0]), Number(f[1]));
        } else if (op === 'b') {
            crowd.playBlend(Number(f[0]), f[1], Number(f[2]), Number(f[3]));
        } else if (op === 'v') {
            crowd.setBlendParameter(Number(f[0]), Number(f[1]));
        } else if (op === 'g') {
            crowd.setGroundSpeed(Number(f[0]), Number(f[1]));
        } else if (op === 'r') {
            const i = Number(f[0]);
            out.push({ rate: i, value: crowd.rates[i], speed: crowd.clipRecord.array[4 * i + 3] });
        } else if (op === 'u') {
            crowd.update(Number(f[0]));
            for (const e of crowd.events()) {
                out.push({ update: updates, ...e });
            }
            updates++;
        } else {
            throw new Error(`bad step ${step}`);
        }
    }
    crowd.dispose();
    bake.dispose();
    return out;
};
window.crowdPageReady = true;
