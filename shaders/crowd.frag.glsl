// crowd.frag.glsl - base colour (material factor x texture x instance tint)
// under a sky/ground hemisphere light and one sun, written sRGB-encoded.

in vec3 v_normal;
in vec2 v_uv;
in vec4 v_tint;
flat in uint v_material;

struct Material {
    vec4 base_color;
    int texture_layer;
    int pad0;
    int pad1;
    int pad2;
};
layout(std430, binding = 3) readonly buffer Materials { Material materials[]; };
layout(binding = 0) uniform sampler2DArray u_textures;
layout(location = 9) uniform vec3 u_sun_dir;

out vec4 o_color;

vec3 lit(vec3 base, vec3 n) {
    vec3 sky = vec3(0.55, 0.62, 0.72);
    vec3 ground = vec3(0.22, 0.19, 0.16);
    vec3 hemisphere = mix(ground, sky, n.y * 0.5 + 0.5);
    vec3 sun = vec3(1.0, 0.95, 0.85) * max(dot(n, u_sun_dir), 0.0);
    return base * (hemisphere + sun);
}

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
    o_color = vec4(srgb_encode(lit(base.rgb, n)), 1.0);
}
