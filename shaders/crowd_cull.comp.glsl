// crowd_cull.comp.glsl - one view's culling and LOD choice for one
// archetype, one invocation per instance: the instance's animated bounding
// sphere (its clip's, or the hull of both clips' during a crossfade; the
// bind pose's in static mode) against the view's six frustum planes, then
// the coarsest LOD whose measured error projects to at most the caller's
// pixel budget, with a hysteresis band so an instance at the switching
// distance does not flicker between two LODs. Visible records are copied
// into the list of their LOD and counted into that LOD's indirect command,
// so the draws that follow read compacted records as per-instance vertex
// attributes (base instance = the list's start). Mirrors gpu_cull_cpu() in
// src/gpu/cull.c, which must pick the same instances and LODs.

layout(local_size_x = 64) in;

struct Record {
    vec4 position_cos; // position, cos(heading)
    vec4 tint;
    vec4 play;
    vec4 fade;
    vec4 from_play;
    uvec4 clip;
    uvec4 from;
};

struct Command {
    uint count;
    uint instance_count;
    uint first_index;
    int base_vertex;
    uint base_instance;
};

layout(std430, binding = 1) readonly buffer Records { Record records[]; };
layout(std430, binding = 2) readonly buffer ClipSpheres { vec4 clip_spheres[]; };
layout(std430, binding = 3) writeonly buffer Visible { Record visible[]; };
layout(std430, binding = 4) buffer Commands { Command commands[]; };
layout(std430, binding = 5) buffer LodState { uint lod_state[]; };

layout(location = 0) uniform uint u_count;
layout(location = 1) uniform vec4 u_planes[6];
layout(location = 7) uniform vec4 u_clip_w; // view_proj row 3: clip-space w of a point
// Per LOD: error (model units) x pixels per unit at w = 1 / the pixel budget.
layout(location = 8) uniform float u_lod_scaled_error[8];
layout(location = 16) uniform uint u_lod_count;
layout(location = 17) uniform float u_hysteresis;
layout(location = 18) uniform uint u_capacity;        // records per LOD list
layout(location = 19) uniform bool u_bind_pose;       // static mode
layout(location = 20) uniform vec4 u_bind_sphere;
layout(location = 21) uniform bool u_keep_lod_state;  // the view that owns the hysteresis

const uint FLAG_FADE = 16u;
const uint FLAG_LOD_SHIFT = 8u;
const uint FLAG_LOD_MASK = 7u << FLAG_LOD_SHIFT;

// The sphere holding both spheres.
vec4 hull(vec4 a, vec4 b) {
    float d = distance(a.xyz, b.xyz);
    if (d + b.w <= a.w) {
        return a;
    }
    if (d + a.w <= b.w) {
        return b;
    }
    float r = 0.5 * (d + a.w + b.w);
    return vec4(a.xyz + (b.xyz - a.xyz) * ((r - a.w) / d), r);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_count) {
        return;
    }
    Record rec = records[i];
    vec4 sphere = u_bind_pose ? u_bind_sphere : clip_spheres[rec.clip.x];
    if (!u_bind_pose && (rec.clip.y & FLAG_FADE) != 0u && rec.fade.z > 0.0) {
        sphere = hull(sphere, clip_spheres[rec.from.x]);
    }
    float c = rec.position_cos.w, s = rec.from_play.w, scale = rec.play.x;
    vec3 centre = rec.position_cos.xyz +
                  scale * vec3(c * sphere.x + s * sphere.z, sphere.y, -s * sphere.x + c * sphere.z);
    float radius = scale * sphere.w;
    for (int p = 0; p < 6; p++) {
        if (dot(u_planes[p].xyz, centre) + u_planes[p].w < -radius) {
            return;
        }
    }
    uint lod = 0u;
    float w = dot(u_clip_w.xyz, centre) + u_clip_w.w;
    if (u_lod_count > 1u && w > radius) {
        uint fine = 0u, coarse = 0u;
        for (uint k = 1u; k < u_lod_count; k++) {
            float projected = u_lod_scaled_error[k] * scale / w;
            fine = projected <= 1.0 ? k : fine;
            coarse = projected <= 1.0 - u_hysteresis ? k : coarse;
        }
        uint previous = min(lod_state[i], u_lod_count - 1u);
        lod = previous > fine ? fine : max(coarse, previous);
    }
    if (u_keep_lod_state) {
        lod_state[i] = lod;
    }
    uint slot = atomicAdd(commands[lod].instance_count, 1u);
    rec.clip.y = (rec.clip.y & ~FLAG_LOD_MASK) | (lod << FLAG_LOD_SHIFT);
    visible[lod * u_capacity + slot] = rec;
}
