// crowd.frag.glsl - the colour pass: the surface of one fragment (base
// colour = material factor x texture x instance tint, the material's
// metallic and roughness factors), shaded by
// crowd_shade, which the world appends after this file: the caller's own
// function or crowd_shade_default.glsl. Written sRGB-encoded unless the
// caller asked for linear output.

in vec3 v_world;
in vec3 v_normal;
in vec2 v_uv;
in vec4 v_tint;
flat in uint v_material;
flat in uint v_instance;
flat in uint v_lod;

// Materials word by word as crowd_contract.glsl lays them out (read as
// uints: a float's bits convert exactly, an int's need not survive a float
// load).
#if defined(CROWD_TIER_GL45)
layout(std430, binding = GPU_SSBO_MATERIALS) readonly buffer Materials { uvec4 materials[]; };
#define MATERIAL_VEC4(m, v) materials[(m) * uint(GPU_MATERIAL_VEC4S) + uint(v)]
#else
// The portable tier: the same vectors as texels of one RGBA32UI row.
uniform usampler2D u_material_records;
#define MATERIAL_VEC4(m, v) texelFetch(u_material_records, ivec2(int(m) * GPU_MATERIAL_VEC4S + (v), 0), 0)
#endif
#define MATERIAL_WORD(m, word) MATERIAL_VEC4(m, (word) / 4)[(word) % 4]
#define MATERIAL_FLOAT(m, word) uintBitsToFloat(MATERIAL_WORD(m, word))
CROWD_BINDING(GPU_TEXTURE_MATERIALS) uniform sampler2DArray u_textures;
CROWD_UNIFORM(GPU_UNIFORM_LIGHT_DIR) uniform vec3 u_light_dir;
CROWD_UNIFORM(GPU_UNIFORM_LIGHT_COLOR) uniform vec3 u_light_color;
CROWD_UNIFORM(GPU_UNIFORM_AMBIENT_SKY) uniform vec3 u_ambient_sky;
CROWD_UNIFORM(GPU_UNIFORM_AMBIENT_GROUND) uniform vec3 u_ambient_ground;
CROWD_UNIFORM(GPU_UNIFORM_LINEAR_OUTPUT) uniform bool u_linear_output;
CROWD_UNIFORM(GPU_UNIFORM_ARCHETYPE) uniform uint u_archetype;
CROWD_UNIFORM(GPU_UNIFORM_LOD_TINT) uniform bool u_lod_tint;
// world space, from the view matrix
CROWD_UNIFORM(GPU_UNIFORM_CAMERA_POSITION) uniform vec3 u_camera_position;

out vec4 o_color;

// What crowd_shade receives (documented in include/crowd/gpu.h).
struct crowd_surface {
    vec3 world_position;
    vec3 normal;
    vec2 uv;
    uint material;
    vec4 base_color;
    vec4 tint;
    uint instance;
    uint archetype;
    uint lod;
    float metallic;  // the material's metallicFactor, [0, 1]
    float roughness; // the material's roughnessFactor (perceptual), [0, 1]
};

// Sky/ground hemisphere ambient plus one directional light, metallic-
// roughness as glTF defines it and as three.js's MeshStandardMaterial
// computes it (so that engines importing mesh.glb draw what crowd draws): a
// Lambert diffuse of base x (1 - metallic); for the light a GGX specular
// (Smith height-correlated visibility, Schlick Fresnel from 0.04 for
// dielectrics to the base colour for metals); the hemisphere is irradiance
// only (no environment to reflect), taken by the diffuse less the energy
// the specular lobe keeps (three's DFG fit, with its multiple-scattering
// term). The light's colour is the lit diffuse white, so the specular
// carries a factor pi. A rough dielectric differs from the Lambert-only
// shading crowd had before by its Fresnel (about 2 % of the light).
vec3 crowd_default_lighting(crowd_surface s) {
    const float PI = 3.14159265;
    vec3 n = s.normal;
    vec3 to_eye = u_camera_position - s.world_position;
    vec3 v = dot(to_eye, to_eye) > 0.0 ? normalize(to_eye) : n;
    float nv = clamp(dot(n, v), 0.0, 1.0);
    float roughness = clamp(s.roughness, 0.0525, 1.0); // three's floor for a mirror's highlight
    float a2 = pow(roughness, 4.0);                     // alpha = roughness^2
    vec3 f0 = mix(vec3(0.04), s.base_color.rgb, s.metallic);
    vec3 diffuse = s.base_color.rgb * (1.0 - s.metallic);
    // The specular lobe's directional albedo (Karis' fit, as three's DFGApprox).
    vec4 r = roughness * vec4(-1.0, -0.0275, -0.572, 0.022) + vec4(1.0, 0.0425, 1.04, -0.04);
    float a004 = min(r.x * r.x, exp2(-9.28 * nv)) * r.x + r.y;
    vec2 dfg = vec2(-1.04, 1.04) * a004 + r.zw;
    vec3 single_scatter = f0 * dfg.x + dfg.y;
    float multi_energy = 1.0 - (dfg.x + dfg.y);
    vec3 f_average = f0 + (1.0 - f0) * 0.047619;
    vec3 multi_scatter = single_scatter * f_average / (1.0 - multi_energy * f_average) * multi_energy;
    vec3 hemisphere = mix(u_ambient_ground, u_ambient_sky, n.y * 0.5 + 0.5);
    vec3 color = hemisphere * (diffuse * (1.0 - (single_scatter + multi_scatter)) + multi_scatter);
    vec3 l = dot(u_light_dir, u_light_dir) > 0.0 ? normalize(u_light_dir) : vec3(0.0);
    float nl = clamp(dot(n, l), 0.0, 1.0);
    if (nl > 0.0) {
        vec3 h = normalize(l + v);
        float nh = clamp(dot(n, h), 0.0, 1.0);
        float vh = clamp(dot(v, h), 0.0, 1.0);
        float d = nh * nh * (a2 - 1.0) + 1.0;
        float distribution = a2 / (PI * d * d);
        float visibility = 0.5 / max(nl * sqrt(a2 + (1.0 - a2) * nv * nv) +
                                         nv * sqrt(a2 + (1.0 - a2) * nl * nl),
                                     1e-6);
        float schlick = exp2((-5.55473 * vh - 6.98316) * vh);
        vec3 fresnel = f0 * (1.0 - schlick) + schlick;
        color += u_light_color * nl * (diffuse + PI * distribution * visibility * fresnel);
    }
    return color;
}

vec4 crowd_shade(crowd_surface s);

vec3 srgb_encode(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}

void main() {
    uint m = v_material;
    vec4 base_color = vec4(MATERIAL_FLOAT(m, GPU_MATERIAL_BASE_COLOR),
                           MATERIAL_FLOAT(m, GPU_MATERIAL_BASE_COLOR + 1),
                           MATERIAL_FLOAT(m, GPU_MATERIAL_BASE_COLOR + 2),
                           MATERIAL_FLOAT(m, GPU_MATERIAL_BASE_COLOR + 3));
    int texture_layer = int(MATERIAL_WORD(m, GPU_MATERIAL_TEXTURE_LAYER));
    vec4 base = base_color * v_tint;
    if (texture_layer >= 0) {
        base *= texture(u_textures, vec3(v_uv, float(texture_layer)));
    }
    vec3 n = normalize(v_normal);
    // Meshes are drawn without culling, so back faces light as their front.
    if (!gl_FrontFacing) {
        n = -n;
    }
    crowd_surface s = crowd_surface(v_world, n, v_uv, v_material, base, v_tint, v_instance,
                                    u_archetype, v_lod, MATERIAL_FLOAT(m, GPU_MATERIAL_METALLIC),
                                    MATERIAL_FLOAT(m, GPU_MATERIAL_ROUGHNESS));
    vec4 color = crowd_shade(s);
    if (u_lod_tint) {
        // LOD 0 white, then green, yellow, orange, red, magenta, cyan, blue.
        const vec3 tints[8] = vec3[8](vec3(1.0), vec3(0.3, 1.0, 0.3), vec3(1.0, 1.0, 0.2),
                                      vec3(1.0, 0.6, 0.2), vec3(1.0, 0.25, 0.25),
                                      vec3(1.0, 0.3, 1.0), vec3(0.3, 1.0, 1.0),
                                      vec3(0.3, 0.4, 1.0));
        color.rgb *= tints[min(v_lod, 7u)];
    }
    o_color = u_linear_output ? color : vec4(srgb_encode(color.rgb), color.a);
}
