// crowd.frag.glsl - the colour pass: the surface of one fragment (base
// colour = material factor x texture x instance tint), shaded by
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

struct Material {
    vec4 base_color;
    int texture_layer;
    int pad0;
    int pad1;
    int pad2;
};
layout(std430, binding = 3) readonly buffer Materials { Material materials[]; };
layout(binding = 0) uniform sampler2DArray u_textures;
layout(location = 9) uniform vec3 u_light_dir;
layout(location = 13) uniform vec3 u_light_color;
layout(location = 14) uniform vec3 u_ambient_sky;
layout(location = 15) uniform vec3 u_ambient_ground;
layout(location = 16) uniform bool u_linear_output;
layout(location = 17) uniform uint u_archetype;
layout(location = 18) uniform bool u_lod_tint;

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
};

// Sky/ground hemisphere ambient plus one directional light.
vec3 crowd_default_lighting(crowd_surface s) {
    vec3 hemisphere = mix(u_ambient_ground, u_ambient_sky, s.normal.y * 0.5 + 0.5);
    vec3 light_dir = dot(u_light_dir, u_light_dir) > 0.0 ? normalize(u_light_dir) : vec3(0.0);
    vec3 direct = u_light_color * max(dot(s.normal, light_dir), 0.0);
    return s.base_color.rgb * (hemisphere + direct);
}

vec4 crowd_shade(crowd_surface s);

vec3 srgb_encode(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}

void main() {
    Material m = materials[v_material];
    vec4 base = m.base_color * v_tint;
    if (m.texture_layer >= 0) {
        base *= texture(u_textures, vec3(v_uv, float(m.texture_layer)));
    }
    vec3 n = normalize(v_normal);
    // Meshes are drawn without culling, so back faces light as their front.
    if (!gl_FrontFacing) {
        n = -n;
    }
    crowd_surface s =
        crowd_surface(v_world, n, v_uv, v_material, base, v_tint, v_instance, u_archetype, v_lod);
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
