// crowd.vert.glsl - one vertex of one instance, in every playback mode.
// The world prepends the tier's #version and crowd_tier.glsl, then one of MODE_STATIC,
// MODE_CPU, MODE_GPU, MODE_BAT, MODE_VAT (plus VAT_OCT for the unorm16_oct
// encoding). bat and vat are built twice, with and without CROSSFADE: a
// software rasterizer runs both sides of an `if` with lanes masked, so the
// second clip's fetches would cost every vertex of every frame; the world
// draws with the CROSSFADE build only while some crossfade may be running
// or some instance plays a blend (a clip mixed with a blend partner that
// shares its phase): the build reads the partners too. With every fade
// weight 1 and no partner both builds compute the same values. A third
// build, NEAREST_FRAME (never with CROSSFADE), fetches the nearest baked
// frame alone (crowd_frame_nearest): the culling pass gives it the
// instances whose frame-to-frame step projects below half a pixel, which
// then cost one fetch per vertex instead of two.
// Locations and the record's layout are crowd_contract.glsl's, the
// clip-time rule (crowd_play_time, crowd_frame_pair) is crowd_time.glsl's
// and the record's decoding crowd_record.glsl's: the world puts them
// before this.

layout(location = GPU_ATTR_POSITION) in vec3 a_position;
layout(location = GPU_ATTR_NORMAL) in vec3 a_normal;
layout(location = GPU_ATTR_UV) in vec2 a_uv;
layout(location = GPU_ATTR_JOINTS) in uvec4 a_joints;
layout(location = GPU_ATTR_WEIGHTS) in vec4 a_weights;
layout(location = GPU_ATTR_MATERIAL) in uint a_material;
// The VAT texel (column, row within a frame) of the LOD0 vertex this one
// copies (itself in LOD0).
layout(location = GPU_ATTR_TEXEL) in uvec2 a_texel;

// The instance's record (crowd_contract.glsl) as per-instance attributes,
// unpacked by the attribute fetch: position, heading code, scale / speed /
// phase, tint (normalized bytes), bits and handle.
layout(location = GPU_INSTANCE_POSITION_ATTR) in vec3 i_position;
layout(location = GPU_INSTANCE_HEADING_ATTR) in int i_heading;
layout(location = GPU_INSTANCE_MOTION_ATTR) in vec3 i_motion;
layout(location = GPU_INSTANCE_TINT_ATTR) in vec4 i_tint;
layout(location = GPU_INSTANCE_BITS_ATTR) in uvec2 i_bits;

CROWD_UNIFORM(GPU_UNIFORM_VIEW_PROJ) uniform mat4 u_view_proj;
CROWD_UNIFORM(GPU_UNIFORM_TIME) uniform float u_time;
// A prop's draw over every instance: its flag bit, the carriers'. 0 for
// the characters and for culled lists, which hold only carriers.
CROWD_UNIFORM(GPU_UNIFORM_PROP_BIT) uniform uint u_prop_bit;

// Whether this instance is drawn: an instance without the prop puts every
// vertex of it outside the clip volume, so nothing of it is rasterized.
bool carries_prop(uint flags) {
    return u_prop_bit == 0u || (flags & u_prop_bit) != 0u;
}

out vec3 v_world;
out vec3 v_normal;
out vec2 v_uv;
out vec4 v_tint;
flat out uint v_material;
flat out uint v_instance;
flat out uint v_lod;

#if defined(MODE_GPU)
#if defined(CROWD_TIER_GL45)
layout(std430, binding = GPU_SSBO_PALETTES) readonly buffer Palettes { vec4 palette[]; };
#define PALETTE(i) palette[i]
#else
// Rows of 1 << GPU_PALETTE_WIDTH_SHIFT texels (the portable tier has no
// storage buffers in the vertex stage).
uniform sampler2D u_palettes;
#define PALETTE(i) texelFetch(u_palettes, ivec2(int((i) & GPU_PALETTE_WIDTH_MASK), int((i) >> GPU_PALETTE_WIDTH_SHIFT)), 0)
#endif
CROWD_UNIFORM(GPU_UNIFORM_JOINT_COUNT) uniform uint u_joint_count;
#endif

#if defined(MODE_BAT) || defined(MODE_VAT)
CROWD_UNIFORM(GPU_UNIFORM_TEX_WIDTH) uniform uint u_tex_width;
CROWD_UNIFORM(GPU_UNIFORM_ROWS_PER_FRAME) uniform uint u_rows_per_frame;
CROWD_UNIFORM(GPU_UNIFORM_INV_TEX_WIDTH) uniform float u_inv_tex_width; // 1 / u_tex_width, correctly rounded
// The clip table (crowd_contract.glsl): frames, fps, duration, layout.
CROWD_UNIFORM(GPU_UNIFORM_CLIPS) uniform uvec4 u_clips[GPU_MAX_CLIPS];

// A clip as one instance plays it.
struct Playing {
    uint first_frame; // its baked frames
    uint frame_count;
    uint frame_layout; // CROWD_FRAMES_*
    float fps;
    bool loop;        // the instance's time wraps (its loop mode, or the clip's own)
    float duration_s;
    float start_s;
    float offset_s;
    float speed;
};

// Clip `clip` of the table, played from `phase` at the epoch.
Playing playing(uint clip, bool loop, float phase, float speed) {
    uvec4 c = u_clips[clip];
    return Playing(c.x & 65535u, c.x >> 16u, c.w & 3u, uintBitsToFloat(c.y), loop,
                   uintBitsToFloat(c.z), 0.0, phase, speed);
}

float clip_time(Playing c) {
    return crowd_play_time(u_time, c.start_s, c.offset_s, c.speed, c.duration_s, c.loop);
}

#if defined(CROSSFADE)
// A blend partner: played at the phase of `c` (its clip time over its
// duration), so both cycles start and end together; loops as `c` does.
Playing partner_of(Playing c, uint clip) {
    return playing(clip, c.loop, 0.0, 0.0);
}

float partner_time(Playing c, float t, Playing partner) {
    return c.duration_s > 0.0 ? t / c.duration_s * partner.duration_s : 0.0;
}
#endif

// The two baked frames (global) around clip time t and the second's weight.
void frame_pair(Playing c, float t, out uint f0, out uint f1, out float alpha) {
    crowd_frame_pair(c.frame_layout, c.fps, c.duration_s, c.frame_count, t, f0, f1, alpha);
    f0 += c.first_frame;
    f1 += c.first_frame;
}

// Column and row (within its frame) of element `index` (vertex, or
// 3 * joint + row): elements run across, wrapping onto rows_per_frame rows,
// so (index % width, index / width). Computed without integer division: the
// quotient is below 2^18 (a vertex's row within a texture, or 3 * a 16-bit
// joint index), and float(index), 1 / width and their product each round by
// at most 2^-24 of their value, so the float quotient is within 0.05 of the
// true one and its floor off by at most one, which the remainder's sign or
// size then corrects exactly.
ivec2 element_texel(uint index) {
    int width = int(u_tex_width);
    int row = int(float(index) * u_inv_tex_width);
    int column = int(index) - row * width;
    row += column < 0 ? -1 : (column >= width ? 1 : 0);
    column += column < 0 ? width : (column >= width ? -width : 0);
    return ivec2(column, row);
}

// First texture row of global frame `frame`.
int frame_row(uint frame) {
    return int(frame * u_rows_per_frame);
}
#endif

#if defined(MODE_BAT)
CROWD_BINDING(GPU_TEXTURE_BAT) uniform sampler2D u_bat;

// The element after `at` in element order: the next column, or the next
// row's first.
ivec2 next_texel(ivec2 at) {
    bool wrap = at.x + 1 == int(u_tex_width);
    return ivec2(wrap ? 0 : at.x + 1, wrap ? at.y + 1 : at.y);
}

// Texels of one joint's three matrix rows, within a frame.
struct JointTexels {
    ivec2 r0, r1, r2;
};

JointTexels joint_texels(uint joint) {
    JointTexels j;
    j.r0 = element_texel(3u * joint);
    j.r1 = next_texel(j.r0);
    j.r2 = next_texel(j.r1);
    return j;
}

// Skinning matrix rows of one joint in the frame that starts at texture row
// `row`.
void bat_frame(int row, JointTexels j, out vec4 r0, out vec4 r1, out vec4 r2) {
    ivec2 d = ivec2(0, row);
    r0 = texelFetch(u_bat, j.r0 + d, 0);
    r1 = texelFetch(u_bat, j.r1 + d, 0);
    r2 = texelFetch(u_bat, j.r2 + d, 0);
}

// Skinning matrix rows of one joint, interpolated between two frames that
// start at texture rows row0 and row1.
void bat_clip(int row0, int row1, float alpha, JointTexels j, out vec4 r0, out vec4 r1,
              out vec4 r2) {
    ivec2 d0 = ivec2(0, row0), d1 = ivec2(0, row1);
    r0 = mix(texelFetch(u_bat, j.r0 + d0, 0), texelFetch(u_bat, j.r0 + d1, 0), alpha);
    r1 = mix(texelFetch(u_bat, j.r1 + d0, 0), texelFetch(u_bat, j.r1 + d1, 0), alpha);
    r2 = mix(texelFetch(u_bat, j.r2 + d0, 0), texelFetch(u_bat, j.r2 + d1, 0), alpha);
}
#endif

#if defined(MODE_VAT)
#if defined(VAT_UINT16)
// GLES without EXT_texture_norm16: the unorm16 texels' bits as RGBA16UI,
// normalized here. GL defines unorm16 as c / 65535; Mesa's llvmpipe
// computes c times the float 1 / 65535, and so does this (a division
// differs from it in the last bit for some c): test_gpu portable measures
// positions and normals bit-identical to the unorm16 textures' there.
CROWD_BINDING(GPU_TEXTURE_VAT_POSITION) uniform usampler2D u_vat_position;
#define VAT_POSITION_TEXEL(at) (vec4(texelFetch(u_vat_position, at, 0)) * (1.0 / 65535.0))
#else
CROWD_BINDING(GPU_TEXTURE_VAT_POSITION) uniform sampler2D u_vat_position;
#define VAT_POSITION_TEXEL(at) texelFetch(u_vat_position, at, 0)
#endif
#if defined(VAT_OCT)
CROWD_UNIFORM(GPU_UNIFORM_BOUNDS_MIN) uniform vec3 u_bounds_min;
CROWD_UNIFORM(GPU_UNIFORM_BOUNDS_EXTENT) uniform vec3 u_bounds_extent;

// Octahedral normal in 16 bits: high byte x, low byte y, b -> b / 255 * 2 - 1.
vec3 oct_decode(float encoded) {
    uint bits = uint(encoded * 65535.0 + 0.5);
    vec2 e = vec2(float(bits >> 8u), float(bits & 255u)) / 255.0 * 2.0 - 1.0;
    vec3 n = vec3(e, 1.0 - abs(e.x) - abs(e.y));
    if (n.z < 0.0) {
        n.xy = (1.0 - abs(n.yx)) * vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    }
    return normalize(n);
}
#else
CROWD_BINDING(GPU_TEXTURE_VAT_NORMAL) uniform sampler2D u_vat_normal;
#endif

void vat_fetch(int row, ivec2 at, out vec3 position, out vec3 normal) {
    at.y += row;
    vec4 p = VAT_POSITION_TEXEL(at);
#if defined(VAT_OCT)
    position = u_bounds_min + u_bounds_extent * p.xyz;
    normal = oct_decode(p.w);
#else
    position = p.xyz;
    normal = texelFetch(u_vat_normal, at, 0).xyz;
#endif
}

// The vertex at texel `at` (within a frame) at clip time t.
void vat_clip(Playing c, float t, ivec2 at, out vec3 position, out vec3 normal) {
#if defined(NEAREST_FRAME)
    uint f = crowd_frame_nearest(c.frame_layout, c.fps, c.duration_s, c.frame_count, t);
    vat_fetch(frame_row(c.first_frame + f), at, position, normal);
#else
    uint f0, f1;
    float alpha;
    frame_pair(c, t, f0, f1, alpha);
    vec3 p0, n0, p1, n1;
    vat_fetch(frame_row(f0), at, p0, n0);
    vat_fetch(frame_row(f1), at, p1, n1);
    position = mix(p0, p1, alpha);
    normal = mix(n0, n1, alpha);
#endif
}
#endif

#if defined(CROSSFADE)
// The side table (crowd_contract.glsl): a fading or blending instance's
// entry, GPU_SIDE_TEXELS texels, found by the record's handle word.
CROWD_BINDING(GPU_TEXTURE_SIDE) uniform highp usampler2D u_side;

uvec4 side_texel(uint entry, int k) {
    return texelFetch(u_side, ivec2(int((entry & (GPU_SIDE_ROW_ENTRIES - 1u)) * uint(GPU_SIDE_TEXELS)) + k,
                                    int(entry >> GPU_SIDE_ROW_SHIFT)), 0);
}

// Weight of the new clip. Exactly 1 once fade_duration_s has passed since
// fade_start_s (a subtraction rounds correctly, a division need not): the
// world frees the entry once its clock is past the fade's end, and the
// other build must then draw the same. No entry: duration 0, weight 1.
float fade_weight(float fade_start_s, float fade_duration_s) {
    float elapsed = u_time - fade_start_s;
    if (!(fade_duration_s > 0.0) || elapsed >= fade_duration_s) {
        return 1.0;
    }
    return clamp(elapsed / fade_duration_s, 0.0, 1.0);
}
#endif

void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;

#if defined(MODE_GPU)
    uint base = uint(gl_InstanceID) * u_joint_count * 3u;
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    for (int k = 0; k < 4; k++) {
        float w = a_weights[k];
        if (w != 0.0) {
            uint at = base + a_joints[k] * 3u;
            r0 += w * PALETTE(at);
            r1 += w * PALETTE(at + 1u);
            r2 += w * PALETTE(at + 2u);
        }
    }
    vec4 p = vec4(a_position, 1.0);
    position = vec3(dot(r0, p), dot(r1, p), dot(r2, p));
    normal = vec3(dot(r0.xyz, a_normal), dot(r1.xyz, a_normal), dot(r2.xyz, a_normal));
#endif

#if defined(MODE_BAT) || defined(MODE_VAT)
    Playing to = playing(crowd_record_clip(i_bits.x), crowd_record_loops(i_bits.x), i_motion.z,
                         i_motion.y);
    float t_to = clip_time(to);
#if defined(CROSSFADE)
    // No entry (a record without GPU_BITS_EXTENDED): zeros, so no fade and
    // no partners.
    uvec4 side0 = uvec4(0u), side1 = uvec4(0u);
    if (crowd_record_extended(i_bits.x)) {
        side0 = side_texel(i_bits.y, 0);
        side1 = side_texel(i_bits.y, 1);
    }
    uint side_clips = side0[GPU_SIDE_CLIPS];
    Playing from = playing(side_clips & GPU_BITS_CLIP_MASK, (side_clips & GPU_SIDE_FROM_LOOP) != 0u,
                           uintBitsToFloat(side1[GPU_SIDE_FROM_PHASE - 4]),
                           uintBitsToFloat(side1[GPU_SIDE_FROM_SPEED - 4]));
    float w_to = fade_weight(uintBitsToFloat(side0[GPU_SIDE_FADE_START]),
                             uintBitsToFloat(side0[GPU_SIDE_FADE_DURATION]));
    float t_from = 0.0;
    if (w_to < 1.0) {
        t_from = clip_time(from);
    }
    // Blend partners (0 weight: none), each at its clip's phase.
    float w_partner = uintBitsToFloat(side1[GPU_SIDE_PARTNER_WEIGHT - 4]);
    Playing partner = partner_of(to, (side_clips >> 8u) & GPU_BITS_CLIP_MASK);
    float t_partner = partner_time(to, t_to, partner);
    float w_from_partner = w_to < 1.0 ? uintBitsToFloat(side1[GPU_SIDE_FROM_PARTNER_WEIGHT - 4]) : 0.0;
    Playing from_partner = partner_of(from, (side_clips >> 16u) & GPU_BITS_CLIP_MASK);
    float t_from_partner = partner_time(from, t_from, from_partner);
#endif
#endif

#if defined(MODE_BAT)
#if defined(NEAREST_FRAME)
    int row = frame_row(to.first_frame +
                        crowd_frame_nearest(to.frame_layout, to.fps, to.duration_s,
                                            to.frame_count, t_to));
#else
    uint f0, f1;
    float alpha;
    frame_pair(to, t_to, f0, f1, alpha);
    int row0 = frame_row(f0), row1 = frame_row(f1);
#endif
#if defined(CROSSFADE)
    uint g0 = 0u, g1 = 0u;
    float beta = 0.0;
    if (w_to < 1.0) {
        frame_pair(from, t_from, g0, g1, beta);
    }
    int from_row0 = frame_row(g0), from_row1 = frame_row(g1);
    uint p0 = 0u, p1 = 0u, q0 = 0u, q1 = 0u;
    float gamma = 0.0, delta = 0.0;
    if (w_partner > 0.0) {
        frame_pair(partner, t_partner, p0, p1, gamma);
    }
    if (w_from_partner > 0.0) {
        frame_pair(from_partner, t_from_partner, q0, q1, delta);
    }
    int partner_row0 = frame_row(p0), partner_row1 = frame_row(p1);
    int from_partner_row0 = frame_row(q0), from_partner_row1 = frame_row(q1);
#endif
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    for (int k = 0; k < 4; k++) {
        float w = a_weights[k];
        if (w != 0.0) {
            JointTexels j = joint_texels(a_joints[k]);
            vec4 m0, m1, m2;
#if defined(NEAREST_FRAME)
            bat_frame(row, j, m0, m1, m2);
#else
            bat_clip(row0, row1, alpha, j, m0, m1, m2);
#endif
#if defined(CROSSFADE)
            if (w_partner > 0.0) {
                // A blend mixes its two clips' matrices (not local poses).
                vec4 b0, b1, b2;
                bat_clip(partner_row0, partner_row1, gamma, j, b0, b1, b2);
                m0 = mix(m0, b0, w_partner);
                m1 = mix(m1, b1, w_partner);
                m2 = mix(m2, b2, w_partner);
            }
            if (w_to < 1.0) {
                // Crossfade blends the two clips' matrices (not local poses).
                vec4 n0, n1, n2;
                bat_clip(from_row0, from_row1, beta, j, n0, n1, n2);
                if (w_from_partner > 0.0) {
                    vec4 b0, b1, b2;
                    bat_clip(from_partner_row0, from_partner_row1, delta, j, b0, b1, b2);
                    n0 = mix(n0, b0, w_from_partner);
                    n1 = mix(n1, b1, w_from_partner);
                    n2 = mix(n2, b2, w_from_partner);
                }
                m0 = mix(n0, m0, w_to);
                m1 = mix(n1, m1, w_to);
                m2 = mix(n2, m2, w_to);
            }
#endif
            r0 += w * m0;
            r1 += w * m1;
            r2 += w * m2;
        }
    }
    vec4 p = vec4(a_position, 1.0);
    position = vec3(dot(r0, p), dot(r1, p), dot(r2, p));
    normal = vec3(dot(r0.xyz, a_normal), dot(r1.xyz, a_normal), dot(r2.xyz, a_normal));
#endif

#if defined(MODE_VAT)
    // Every LOD plays from LOD0's texels.
    ivec2 at = ivec2(a_texel);
    vat_clip(to, t_to, at, position, normal);
#if defined(CROSSFADE)
    if (w_partner > 0.0) {
        // A blend mixes its two clips' skinned positions and normals.
        vec3 p_partner, n_partner;
        vat_clip(partner, t_partner, at, p_partner, n_partner);
        position = mix(position, p_partner, w_partner);
        normal = mix(normal, n_partner, w_partner);
    }
    if (w_to < 1.0) {
        // Crossfade blends skinned positions and normals (not local poses).
        vec3 p_from, n_from;
        vat_clip(from, t_from, at, p_from, n_from);
        if (w_from_partner > 0.0) {
            vec3 p_partner, n_partner;
            vat_clip(from_partner, t_from_partner, at, p_partner, n_partner);
            p_from = mix(p_from, p_partner, w_from_partner);
            n_from = mix(n_from, n_partner, w_from_partner);
        }
        position = mix(p_from, position, w_to);
        normal = mix(n_from, normal, w_to);
    }
#endif
#endif

    vec2 heading = crowd_record_heading(i_heading);
    vec3 world = crowd_record_place(i_position, heading, i_motion.x, position);
    gl_Position = u_view_proj * vec4(world, 1.0);
    v_world = world;
    v_normal = vec3(heading.x * normal.x + heading.y * normal.z, normal.y,
                    -heading.y * normal.x + heading.x * normal.z);
    v_uv = a_uv;
    v_tint = i_tint;
    v_material = a_material;
#if defined(CROSSFADE)
    v_instance = crowd_record_extended(i_bits.x) ? side0[GPU_SIDE_HANDLE] : i_bits.y;
#else
    // Only the CROSSFADE build draws while any record has a side entry.
    v_instance = i_bits.y;
#endif
    v_lod = crowd_record_lod(i_bits.x);
    if (!carries_prop(i_bits.x)) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    }
}
