// layout.mjs - where `crowd render` puts its instances and how its camera
// frames a box, mirrored in JavaScript so the page can draw the same scene.
// Mirrors tools/cmd_render.c (add_instances, grid_spacing), tools/scene.c
// (scene_random_u64 / _unit) and src/gpu/camera.c (crowd_camera_frame_box);
// float32 arithmetic is kept with Math.fround where C rounds to float.
const f = Math.fround;
const MASK = (1n << 64n) - 1n;

// splitmix64, as scene_random_u64.
function randomU64(state) {
    state.s = (state.s + 0x9e3779b97f4a7c15n) & MASK;
    let z = state.s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
}

function randomUnit(state) {
    return Number(randomU64(state) >> 40n) / 16777216;
}

// The mesh's bind-pose bounds' height decides the grid spacing.
export function gridSpacing(bindMin, bindMax) {
    const height = f(bindMax[1] - bindMin[1]);
    const footprint = Math.min(f(bindMax[0] - bindMin[0]), f(bindMax[2] - bindMin[2]));
    const spacing = height > 0 ? f(f(0.8) * height) : f(f(1.5) * footprint);
    return spacing > 0 ? spacing : 1;
}

// The instances of `crowd render --count N [--seed S] [--clip C]` for one
// archetype with `clips` (the manifest's), as setInstance descriptions.
export function renderInstances({ count, seed, clip, clips, bindMin, bindMax }) {
    const spacing = gridSpacing(bindMin, bindMax);
    const columns = Math.ceil(Math.sqrt(count));
    const rows = Math.floor((count + columns - 1) / columns);
    const state = { s: BigInt(seed ?? 0) };
    const fixed = clip === undefined ? 0 : clips.findIndex((c) => c.name === clip);
    const out = [];
    for (let i = 0; i < count; i++) {
        const d = { clip: fixed, time: 0, speed: 1, heading: 0 };
        let x = f(f((i % columns) - f(0.5 * (columns - 1))) * spacing);
        let z = f(f(Math.floor(i / columns) - f(0.5 * (rows - 1))) * spacing);
        if (seed !== undefined) {
            if (clip === undefined) {
                d.clip = Number(randomU64(state) % BigInt(clips.length));
            }
            d.time = f(randomUnit(state) * f(clips[d.clip].duration_s));
            d.speed = f(f(0.8) + f(f(0.4) * randomUnit(state)));
            d.heading = f(f(randomUnit(state) - 0.5) * f(1.2));
            x = f(x + f(f(f(randomUnit(state) - 0.5) * f(0.3)) * spacing));
            z = f(z + f(f(f(randomUnit(state) - 0.5) * f(0.3)) * spacing));
        }
        d.position = [x, 0, z];
        out.push(d);
    }
    return out;
}

function normalize(v) {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
}

function cross(a, b) {
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

// crowd_camera_frame_box: {eye, target} looking at the box from the front
// (+Z), a little right and above, with every corner inside the frustum.
export function frameBox(min, max, aspect) {
    const centre = [0, 1, 2].map((a) => 0.5 * (min[a] + max[a]));
    const back = normalize([0.35, 0.45, 1.0]);
    const forward = back.map((x) => -x);
    const right = normalize(cross(forward, [0, 1, 0]));
    const up = cross(right, forward);
    const ty = Math.tan((45 * Math.PI) / 180 / 2), tx = ty * aspect;
    let distance = 0;
    for (let corner = 0; corner < 8; corner++) {
        const q = [0, 1, 2].map((a) => ((corner >> a) & 1 ? max[a] : min[a]) - centre[a]);
        distance = Math.max(distance, Math.abs(dot(q, right)) / tx + dot(q, back),
                            Math.abs(dot(q, up)) / ty + dot(q, back));
    }
    distance = distance > 0.01 ? distance * 1.08 : 1;
    return { eye: centre.map((c, a) => c + back[a] * distance), target: centre };
}

// frameBox's view of a set of points (x, y, z flattened) instead of a box's
// corners: the same direction, aimed at the points' box centre, but only as
// far back as the points themselves need (a character lying along the view
// leaves a deep box whose far corners push a box-framed camera back).
export function framePoints(points, aspect) {
    const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < points.length; i += 3) {
        for (let a = 0; a < 3; a++) {
            min[a] = Math.min(min[a], points[i + a]);
            max[a] = Math.max(max[a], points[i + a]);
        }
    }
    const centre = [0, 1, 2].map((a) => 0.5 * (min[a] + max[a]));
    const back = normalize([0.35, 0.45, 1.0]);
    const right = normalize(cross(back.map((x) => -x), [0, 1, 0]));
    const up = cross(right, back.map((x) => -x));
    const ty = Math.tan((45 * Math.PI) / 180 / 2), tx = ty * aspect;
    let distance = 0;
    for (let i = 0; i < points.length; i += 3) {
        const q = [0, 1, 2].map((a) => points[i + a] - centre[a]);
        distance = Math.max(distance, Math.abs(dot(q, right)) / tx + dot(q, back),
                            Math.abs(dot(q, up)) / ty + dot(q, back));
    }
    distance = distance > 0.01 ? distance * 1.08 : 1;
    return { eye: centre.map((c, a) => c + back[a] * distance), target: centre };
}
