// crowd_cull.comp.glsl - one view's culling and LOD choice for one
// archetype, one invocation per instance: the instance's animated bounding
// sphere (its clip's, or every clip's during a crossfade or for a clip
// mixed with a blend partner; the bind pose's in static mode) against the view's six frustum planes, then
// the coarsest LOD whose measured error projects to at most the caller's
// pixel budget, with a hysteresis band so an instance at the switching
// distance does not flicker between two LODs. Visible records are copied
// into the list of their LOD and counted into that LOD's indirect command,
// so the draws that follow read compacted records as per-instance vertex
// attributes (base instance = the list's start). A visible instance that
// carries props is also copied into the list of each prop type it carries
// (lists after the LODs', commands from GPU_MAX_LODS on), so each prop type
// draws its visible carriers with one indirect draw. A bat or vat instance
// whose clip's largest frame-to-frame vertex step projects below half a
// pixel plays the nearest frame (one fetch instead of two, the error at
// most half that step): it goes to the far end of its LOD's list, counted
// into the LOD's one-fetch command, whose base instance steps down with
// each, and which the one-fetch program build draws. Mirrors gpu_cull_cpu()
// in src/gpu/cull.c (and the props' crowd__gpu_props_cull_cpu), which must
// pick the same instances and LODs.

layout(local_size_x = GPU_CULL_GROUP_SIZE) in;

// A whole record, word by word as crowd_contract.glsl lays it out (decoded
// by crowd_record.glsl).
struct Record {
    uint w[GPU_RECORD_WORDS];
};
#define RECORD_FLOAT(rec, word) uintBitsToFloat(rec.w[word])

// glMultiDrawElementsIndirect's command, as GL defines it.
struct Command {
    uint count;
    uint instance_count;
    uint first_index;
    int base_vertex;
    uint base_instance;
};

layout(std430, binding = GPU_SSBO_CULL_RECORDS) readonly buffer Records { Record records[]; };
layout(std430, binding = GPU_SSBO_CULL_SPHERES) readonly buffer ClipSpheres { vec4 clip_spheres[]; };
layout(std430, binding = GPU_SSBO_CULL_VISIBLE) writeonly buffer Visible { Record visible[]; };
layout(std430, binding = GPU_SSBO_CULL_COMMANDS) buffer Commands { Command commands[]; };
layout(std430, binding = GPU_SSBO_CULL_LOD_STATE) buffer LodState { uint lod_state[]; };
layout(std430, binding = GPU_SSBO_CULL_CLIP_STEPS) readonly buffer ClipSteps { float clip_steps[]; };

layout(location = GPU_CULL_UNIFORM_COUNT) uniform uint u_count;
layout(location = GPU_CULL_UNIFORM_PLANES) uniform vec4 u_planes[6];
// view_proj row 3: clip-space w of a point
layout(location = GPU_CULL_UNIFORM_CLIP_W) uniform vec4 u_clip_w;
// Per LOD: error (model units) x pixels per unit at w = 1 / the pixel budget.
layout(location = GPU_CULL_UNIFORM_LOD_SCALED_ERROR) uniform float u_lod_scaled_error[GPU_MAX_LODS];
layout(location = GPU_CULL_UNIFORM_LOD_COUNT) uniform uint u_lod_count;
layout(location = GPU_CULL_UNIFORM_HYSTERESIS) uniform float u_hysteresis;
layout(location = GPU_CULL_UNIFORM_CAPACITY) uniform uint u_capacity; // records per LOD list
layout(location = GPU_CULL_UNIFORM_BIND_POSE) uniform bool u_bind_pose; // static mode
layout(location = GPU_CULL_UNIFORM_BIND_SPHERE) uniform vec4 u_bind_sphere;
// the view that owns the hysteresis
layout(location = GPU_CULL_UNIFORM_KEEP_LOD_STATE) uniform bool u_keep_lod_state;
// props: the list of prop type 0, and the prop types that have lists
layout(location = GPU_CULL_UNIFORM_PROP_FIRST_LIST) uniform uint u_prop_first_list;
layout(location = GPU_CULL_UNIFORM_PROP_MASK) uniform uint u_prop_mask;
layout(location = GPU_CULL_UNIFORM_FRAME_STEP_SCALE) uniform float u_frame_step_scale;
layout(location = GPU_CULL_UNIFORM_FRAME_FETCH) uniform uint u_frame_fetch; // crowd_frame_fetch

const uint FRAME_FETCH_INTERPOLATE = 1u;
const uint FRAME_FETCH_NEAREST = 2u;

// The record, visible, into the list of every prop type it carries.
void list_props(Record rec, uint flags) {
    uint carried = (flags >> GPU_FLAG_PROPS_SHIFT) & u_prop_mask;
    while (carried != 0u) {
        int p = findLSB(carried);
        carried &= carried - 1u;
        uint slot = atomicAdd(commands[GPU_COMMAND_PROPS_FIRST + p].instance_count, 1u);
        visible[(u_prop_first_list + uint(p)) * u_capacity + slot] = rec;
    }
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_count) {
        return;
    }
    Record rec = records[i];
    uint flags = rec.w[GPU_RECORD_BITS];
    // Sphere 0 holds every clip's: for a blend partner (any clip) and the
    // clip a crossfade leaves.
    bool any_clip = (flags & GPU_BITS_ANY_CLIP) != 0u;
    vec4 sphere = u_bind_pose ? u_bind_sphere
                              : clip_spheres[any_clip ? 0u : 1u + crowd_record_clip(flags)];
    vec2 heading = crowd_record_heading(int(rec.w[GPU_RECORD_HEADING]));
    float scale = RECORD_FLOAT(rec, GPU_RECORD_SCALE);
    vec3 origin = vec3(RECORD_FLOAT(rec, GPU_RECORD_POSITION),
                       RECORD_FLOAT(rec, GPU_RECORD_POSITION + 1),
                       RECORD_FLOAT(rec, GPU_RECORD_POSITION + 2));
    vec3 centre = crowd_record_place(origin, heading, scale, sphere.xyz);
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
    // Fades and blends (the records with a side-table entry) mix clips: only
    // the interpolating builds play them.
    bool nearest = false;
    if (!u_bind_pose && !crowd_record_extended(flags) && u_frame_fetch != FRAME_FETCH_INTERPOLATE) {
        float step = clip_steps[crowd_record_clip(flags)];
        nearest = u_frame_fetch == FRAME_FETCH_NEAREST ||
                  (u_frame_step_scale > 0.0 && step >= 0.0 && w > radius &&
                   step * scale * u_frame_step_scale < w);
    }
    rec.w[GPU_RECORD_BITS] = (flags & ~GPU_FLAG_LOD_MASK) | (lod << GPU_FLAG_LOD_SHIFT);
    if (nearest) {
        uint command = GPU_COMMAND_NEAREST_FIRST + lod;
        uint slot = atomicAdd(commands[command].instance_count, 1u);
        atomicAdd(commands[command].base_instance, 0xffffffffu);
        visible[lod * u_capacity + u_capacity - 1u - slot] = rec;
    } else {
        uint slot = atomicAdd(commands[lod].instance_count, 1u);
        visible[lod * u_capacity + slot] = rec;
    }
    list_props(rec, flags);
}
