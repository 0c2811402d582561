// shader.js - the vertex work of crowd's vat and bat modes, patched into
// three.js's own materials through onBeforeCompile. It follows
// include/crowd/gpu.h ("Time", "Crossfade", "blends") and
// shaders/crowd.vert.glsl: the same clip time, frame pair, interpolation,
// blend partner and crossfade, so a three.js
// crowd and crowd's runtime draw the same pose at the same clock.

// The clip-time rule (docs/time.md): crowd_anim_play_time and
// crowd_anim_frame_pair of include/crowd/anim.h (src/anim/clip_time.c)
// operation for operation in float32, every frame layout of a bake. No
// uniforms or attributes, so tests/browser/test_time_cases.mjs compiles it
// alone and runs tests/common/clip_time_cases.json through it.
export const TIME_GLSL = /* glsl */ `
// Layouts of a clip's baked frames (crowd_frame_layout): END for bakes of
// manifest version 3, WRAP and CLAMP for the looping and one-shot clips of
// versions 1 and 2.
#define CROWD_FRAMES_END 0
#define CROWD_FRAMES_WRAP 1
#define CROWD_FRAMES_CLAMP 2

bool crowdFinite(float x) {
    return !isnan(x) && !isinf(x);
}

// Clip time of a clip of duration d played since start at speed from offset,
// at clock: [0, d) when looping, [0, d] when not.
float crowdPlayTime(float clock, float start, float offset, float speed, float duration, bool loop) {
    float t = (clock - start) * speed + offset;
    if (!(duration > 0.0) || !crowdFinite(t)) {
        return 0.0;
    }
    if (loop) {
        t -= duration * floor(t / duration);
        return t >= duration || t < 0.0 ? 0.0 : t;
    }
    return t < 0.0 ? 0.0 : (t > duration ? duration : t);
}

// The two frames (of the clip, 0-based) around clip time t and the weight of
// the second.
void crowdFramePair(float fps, float duration, int frameCount, int frameLayout, float t,
                    out int frame0, out int frame1, out float weight) {
    uint last = frameCount > 0 ? uint(frameCount - 1) : 0u;
    float f = t * fps;
    if (!(f > 0.0) || !crowdFinite(f)) {
        f = 0.0;
    }
    float whole = floor(f);
    float alpha = f - whole;
    uint k = whole < 4294967040.0 ? uint(whole) : 4294967295u;
    if (frameLayout == CROWD_FRAMES_WRAP) {
        k %= last + 1u;
        frame0 = int(k);
        frame1 = k == last ? 0 : int(k + 1u);
        weight = alpha;
        return;
    }
    if (frameLayout == CROWD_FRAMES_CLAMP) {
        if (k >= last) {
            frame0 = frame1 = int(last);
            weight = 0.0;
            return;
        }
        frame0 = int(k);
        frame1 = int(k + 1u);
        weight = alpha;
        return;
    }
    if (t >= duration || k >= last) {
        frame0 = frame1 = int(last);
        weight = 0.0;
        return;
    }
    // The last step ends at the duration, not at (k + 1) / fps.
    float step = k + 1u == last ? duration * fps - whole : 1.0;
    frame0 = int(k);
    frame1 = int(k + 1u);
    weight = alpha < step ? alpha / step : 1.0;
}
`;

// Per-instance attributes (one vec4 each, written by crowd.js), four: with
// three's position, normal, uv and instanceMatrix (4) and the mode's own
// (vat: crowdTexel; bat: crowdJoints, crowdWeights) at most 13 of the 16
// attributes WebGL2 guarantees.
//   crowdClip      clip index, start_s, offset_s, speed of the clip played
//   crowdFromClip  the same for the clip a crossfade leaves
//   crowdFade      fade start_s, fade duration_s, flags, 0
//   crowdPartner   blend partner clip index, its weight (0: none), the same
//                  for the clip the crossfade leaves
// flags: 1 when the clip played wraps, 2 when the clip faded from does (the
// loop mode resolved against the clip's own flag). A partner plays at its
// clip's phase (t / d x d_partner) and loops as its clip does, as
// crowd.vert.glsl's partner_of / partner_time. The clips themselves are
// the crowdClips texture, one RGBA32F texel per clip: first frame, frame
// count x 4 + frame layout, duration_s, fps.
const HEADER = /* glsl */ `
${TIME_GLSL}
uniform float crowdTime;
uniform highp sampler2D crowdClips;
attribute vec4 crowdClip;
attribute vec4 crowdFromClip;
attribute vec4 crowdFade;
attribute vec4 crowdPartner;

struct CrowdPlaying {
    int firstFrame;
    int frameCount;
    float duration;
    float fps;
    int frameLayout;
    bool loop; // the instance's time wraps
    float start;
    float offset;
    float speed;
};

CrowdPlaying crowdPlaying(float index, bool loop, float start, float offset, float speed) {
    int i = int(index), width = textureSize(crowdClips, 0).x;
    vec4 clip = texelFetch(crowdClips, ivec2(i % width, i / width), 0);
    int packed = int(clip.y);
    return CrowdPlaying(int(clip.x), packed >> 2, clip.z, clip.w, packed & 3, loop, start, offset,
                        speed);
}

float crowdClipTime(CrowdPlaying c) {
    return crowdPlayTime(crowdTime, c.start, c.offset, c.speed, c.duration, c.loop);
}

// Clip "index" as the blend partner of c, at c's phase (its clip time t
// over its duration).
CrowdPlaying crowdPartnerOf(CrowdPlaying c, float index) {
    return crowdPlaying(index, c.loop, 0.0, 0.0, 0.0);
}

float crowdPartnerTime(CrowdPlaying c, float t, CrowdPlaying partner) {
    return c.duration > 0.0 ? t / c.duration * partner.duration : 0.0;
}

// The two baked frames (global) around clip time t and the second's weight.
void crowdFrames(CrowdPlaying c, float t, out int f0, out int f1, out float alpha) {
    crowdFramePair(c.fps, c.duration, c.frameCount, c.frameLayout, t, f0, f1, alpha);
    f0 += c.firstFrame;
    f1 += c.firstFrame;
}

// Weight of the new clip: exactly 1 once the fade is over.
float crowdFadeWeight() {
    float duration = crowdFade.y;
    float elapsed = crowdTime - crowdFade.x;
    if (!(duration > 0.0) || elapsed >= duration) {
        return 1.0;
    }
    return clamp(elapsed / duration, 0.0, 1.0);
}

CrowdPlaying crowdTo() {
    int flags = int(crowdFade.z);
    return crowdPlaying(crowdClip.x, (flags & 1) != 0, crowdClip.y, crowdClip.z, crowdClip.w);
}

CrowdPlaying crowdFrom() {
    int flags = int(crowdFade.z);
    return crowdPlaying(crowdFromClip.x, (flags & 2) != 0, crowdFromClip.y, crowdFromClip.z,
                        crowdFromClip.w);
}

// A clip at time t as its frame pair, with its blend partner's (weight
// w; 0: none).
struct CrowdFrames {
    int f0, f1, p0, p1;
    float alpha, beta, w;
};

CrowdFrames crowdBatFrames(CrowdPlaying c, float t, float partner, float w) {
    CrowdFrames f;
    crowdFrames(c, t, f.f0, f.f1, f.alpha);
    f.w = w;
    f.p0 = f.p1 = 0;
    f.beta = 0.0;
    if (w > 0.0) {
        CrowdPlaying p = crowdPartnerOf(c, partner);
        crowdFrames(p, crowdPartnerTime(c, t, p), f.p0, f.p1, f.beta);
    }
    return f;
}

#if defined(CROWD_VAT)
uniform int crowdRowsPerFrame;
attribute vec2 crowdTexel; // TEXCOORD_1: the vertex's texel centre in frame 0
#if defined(CROWD_VAT_OCT)
uniform highp usampler2D crowdVat;
uniform vec3 crowdBoundsMin;
uniform vec3 crowdBoundsExtent;

// Octahedral normal in 16 bits: high byte x, low byte y, b -> b / 255 * 2 - 1.
vec3 crowdOctDecode(uint bits) {
    vec2 e = vec2(float(bits >> 8u), float(bits & 255u)) / 255.0 * 2.0 - 1.0;
    vec3 n = vec3(e, 1.0 - abs(e.x) - abs(e.y));
    if (n.z < 0.0) {
        n.xy = (1.0 - abs(n.yx)) * vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    }
    return normalize(n);
}

void crowdVatFetch(ivec2 at, out vec3 pos, out vec3 nrm) {
    uvec4 code = texelFetch(crowdVat, at, 0);
    pos = crowdBoundsMin + crowdBoundsExtent * (vec3(code.xyz) / 65535.0);
    nrm = crowdOctDecode(code.w);
}
#else
uniform highp sampler2D crowdVat;
uniform highp sampler2D crowdVatNormal;

void crowdVatFetch(ivec2 at, out vec3 pos, out vec3 nrm) {
    pos = texelFetch(crowdVat, at, 0).xyz;
    nrm = texelFetch(crowdVatNormal, at, 0).xyz;
}
#endif

void crowdVatClip(CrowdPlaying c, float t, ivec2 at, out vec3 pos, out vec3 nrm) {
    int f0, f1;
    float alpha;
    crowdFrames(c, t, f0, f1, alpha);
    vec3 p0, n0, p1, n1;
    crowdVatFetch(at + ivec2(0, f0 * crowdRowsPerFrame), p0, n0);
    crowdVatFetch(at + ivec2(0, f1 * crowdRowsPerFrame), p1, n1);
    pos = mix(p0, p1, alpha);
    nrm = mix(n0, n1, alpha);
}

// Clip c at time t mixed with its blend partner (weight w, 0: none).
void crowdVatBlend(CrowdPlaying c, float t, float partner, float w, ivec2 at, out vec3 pos,
                   out vec3 nrm) {
    crowdVatClip(c, t, at, pos, nrm);
    if (w > 0.0) {
        CrowdPlaying p = crowdPartnerOf(c, partner);
        vec3 pp, pn;
        crowdVatClip(p, crowdPartnerTime(c, t, p), at, pp, pn);
        pos = mix(pos, pp, w);
        nrm = mix(nrm, pn, w);
    }
}

void crowdAnimate(inout vec3 pos, inout vec3 nrm) {
    ivec2 at = ivec2(floor(crowdTexel * vec2(textureSize(crowdVat, 0))));
    CrowdPlaying to = crowdTo();
    crowdVatBlend(to, crowdClipTime(to), crowdPartner.x, crowdPartner.y, at, pos, nrm);
    float w = crowdFadeWeight();
    if (w < 1.0) {
        // Crossfade blends skinned positions and normals (not local poses).
        CrowdPlaying from = crowdFrom();
        vec3 p, n;
        crowdVatBlend(from, crowdClipTime(from), crowdPartner.z, crowdPartner.w, at, p, n);
        pos = mix(p, pos, w);
        nrm = mix(n, nrm, w);
    }
}
#endif

#if defined(CROWD_BAT)
uniform highp sampler2D crowdBat;
uniform int crowdRowsPerFrame;
attribute vec4 crowdJoints;  // JOINTS_0
attribute vec4 crowdWeights; // WEIGHTS_0

// Texel of element e (3 * joint + matrix row) of global frame f: elements
// run across, wrapping onto rows_per_frame rows.
vec4 crowdBatFetch(int e, int f) {
    int width = textureSize(crowdBat, 0).x;
    return texelFetch(crowdBat, ivec2(e % width, e / width + f * crowdRowsPerFrame), 0);
}

// The three rows of joint j's skinning matrix, interpolated between frames.
void crowdBatClip(int j, int f0, int f1, float alpha, out vec4 r0, out vec4 r1, out vec4 r2) {
    r0 = mix(crowdBatFetch(3 * j, f0), crowdBatFetch(3 * j, f1), alpha);
    r1 = mix(crowdBatFetch(3 * j + 1, f0), crowdBatFetch(3 * j + 1, f1), alpha);
    r2 = mix(crowdBatFetch(3 * j + 2, f0), crowdBatFetch(3 * j + 2, f1), alpha);
}

// Joint j's matrix rows of f: the clip's, mixed with the partner's.
void crowdBatJoint(int j, CrowdFrames f, out vec4 m0, out vec4 m1, out vec4 m2) {
    crowdBatClip(j, f.f0, f.f1, f.alpha, m0, m1, m2);
    if (f.w > 0.0) {
        vec4 b0, b1, b2;
        crowdBatClip(j, f.p0, f.p1, f.beta, b0, b1, b2);
        m0 = mix(m0, b0, f.w);
        m1 = mix(m1, b1, f.w);
        m2 = mix(m2, b2, f.w);
    }
}

void crowdAnimate(inout vec3 pos, inout vec3 nrm) {
    CrowdPlaying to = crowdTo();
    CrowdFrames f = crowdBatFrames(to, crowdClipTime(to), crowdPartner.x, crowdPartner.y);
    float w = crowdFadeWeight();
    CrowdFrames g = f;
    if (w < 1.0) {
        CrowdPlaying from = crowdFrom();
        g = crowdBatFrames(from, crowdClipTime(from), crowdPartner.z, crowdPartner.w);
    }
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    for (int k = 0; k < 4; k++) {
        float weight = crowdWeights[k];
        if (weight != 0.0) {
            int j = int(crowdJoints[k]);
            vec4 m0, m1, m2;
            crowdBatJoint(j, f, m0, m1, m2);
            if (w < 1.0) {
                // Crossfade blends the two clips' matrices (not local poses).
                vec4 n0, n1, n2;
                crowdBatJoint(j, g, n0, n1, n2);
                m0 = mix(n0, m0, w);
                m1 = mix(n1, m1, w);
                m2 = mix(n2, m2, w);
            }
            r0 += weight * m0;
            r1 += weight * m1;
            r2 += weight * m2;
        }
    }
    vec4 p = vec4(pos, 1.0);
    pos = vec3(dot(r0, p), dot(r1, p), dot(r2, p));
    nrm = vec3(dot(r0.xyz, nrm), dot(r1.xyz, nrm), dot(r2.xyz, nrm));
}
#endif

#if defined(CROWD_PROP)
// A prop (props.js): a static mesh in its socket's space, carried by the
// socket's model matrix from the socket tracks (NAME.G.sockets.exr, laid
// out as the BAT with 3 texels a socket), interpolated, blended with the
// partner's and crossfaded as bat's skinning matrices are.
uniform highp sampler2D crowdSockets;
uniform int crowdSocketRowsPerFrame;
uniform int crowdSocket;
attribute float crowdPropShown; // 0: this instance does not carry the prop

vec4 crowdSocketFetch(int e, int f) {
    int width = textureSize(crowdSockets, 0).x;
    return texelFetch(crowdSockets, ivec2(e % width, e / width + f * crowdSocketRowsPerFrame), 0);
}

void crowdSocketClip(int f0, int f1, float alpha, out vec4 r0, out vec4 r1, out vec4 r2) {
    int e = 3 * crowdSocket;
    r0 = mix(crowdSocketFetch(e, f0), crowdSocketFetch(e, f1), alpha);
    r1 = mix(crowdSocketFetch(e + 1, f0), crowdSocketFetch(e + 1, f1), alpha);
    r2 = mix(crowdSocketFetch(e + 2, f0), crowdSocketFetch(e + 2, f1), alpha);
}

void crowdSocketRows(CrowdFrames f, out vec4 m0, out vec4 m1, out vec4 m2) {
    crowdSocketClip(f.f0, f.f1, f.alpha, m0, m1, m2);
    if (f.w > 0.0) {
        vec4 b0, b1, b2;
        crowdSocketClip(f.p0, f.p1, f.beta, b0, b1, b2);
        m0 = mix(m0, b0, f.w);
        m1 = mix(m1, b1, f.w);
        m2 = mix(m2, b2, f.w);
    }
}

void crowdAnimate(inout vec3 pos, inout vec3 nrm) {
    if (crowdPropShown == 0.0) {
        pos = vec3(0.0); // every triangle degenerate: nothing drawn
        return;
    }
    CrowdPlaying to = crowdTo();
    CrowdFrames f = crowdBatFrames(to, crowdClipTime(to), crowdPartner.x, crowdPartner.y);
    vec4 m0, m1, m2;
    crowdSocketRows(f, m0, m1, m2);
    float w = crowdFadeWeight();
    if (w < 1.0) {
        CrowdPlaying from = crowdFrom();
        CrowdFrames g = crowdBatFrames(from, crowdClipTime(from), crowdPartner.z, crowdPartner.w);
        vec4 n0, n1, n2;
        crowdSocketRows(g, n0, n1, n2);
        m0 = mix(n0, m0, w);
        m1 = mix(n1, m1, w);
        m2 = mix(n2, m2, w);
    }
    vec4 p = vec4(pos, 1.0);
    pos = vec3(dot(m0, p), dot(m1, p), dot(m2, p));
    nrm = vec3(dot(m0.xyz, nrm), dot(m1.xyz, nrm), dot(m2.xyz, nrm));
}
#endif
`;

// Replaces three's first vertex chunks: beginnormal_vertex (which runs first,
// so the animation is computed there) declares objectNormal, begin_vertex
// declares transformed. Shaders without the normal chunk (depth materials)
// animate at begin_vertex.
const BEGIN_NORMAL = /* glsl */ `
vec3 crowdPosition = vec3(position), objectNormal = vec3(normal);
crowdAnimate(crowdPosition, objectNormal);
#define CROWD_ANIMATED
#ifdef USE_TANGENT
vec3 objectTangent = vec3(tangent.xyz);
#endif
`;

const BEGIN = /* glsl */ `
#ifndef CROWD_ANIMATED
vec3 crowdPosition = vec3(position), crowdNormal = vec3(normal);
crowdAnimate(crowdPosition, crowdNormal);
#endif
vec3 transformed = crowdPosition;
#ifdef USE_ALPHAHASH
vPosition = crowdPosition;
#endif

`;

function replaceChunk(source, chunk, by) {
    const include = `#include <${chunk}>`;
    if (!source.includes(include)) {
        throw new Error(`crowd: the material's vertex shader has no ${include} to replace`);
    }
    return source.replace(include, by);
}

// Makes `material` (any of three's built-in materials) play the crowd:
// `defines` picks the variant (CROWD_VAT [+ CROWD_VAT_OCT] or CROWD_BAT) and
// `uniforms` are shared by every material of one crowd, so one write of
// crowdTime moves them all.
export function patchMaterial(material, defines, uniforms) {
    material.defines = { ...material.defines, ...defines };
    material.onBeforeCompile = (shader) => {
        Object.assign(shader.uniforms, uniforms);
        let vs = shader.vertexShader.replace('#include <common>', `#include <common>\n${HEADER}`);
        if (vs.includes('#include <beginnormal_vertex>')) {
            vs = replaceChunk(vs, 'beginnormal_vertex', BEGIN_NORMAL);
        }
        shader.vertexShader = replaceChunk(vs, 'begin_vertex', BEGIN);
    };
    // Programs are cached by this key plus the defines: every crowd material
    // of one variant shares its program, and none is shared with an
    // unpatched material of the same type.
    material.customProgramCacheKey = () => 'crowd';
    material.needsUpdate = true;
    return material;
}

