// ground.frag.glsl - a 1 m checkerboard that fades out towards the edge, so
// scale and motion read in a screenshot.

in vec3 v_world;
layout(location = 10) uniform vec4 u_ground_extent;
layout(location = 11) uniform vec3 u_eye;

out vec4 o_color;

vec3 srgb_encode(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}

void main() {
    vec2 cell = floor(v_world.xz);
    // Far away, where a pixel covers several squares, fade to their average
    // instead of aliasing into moire.
    vec2 footprint = fwidth(v_world.xz);
    float blur = clamp(2.0 * max(footprint.x, footprint.y) - 0.5, 0.0, 1.0);
    float checker = mix(mod(cell.x + cell.y, 2.0), 0.5, blur);
    vec3 base = mix(vec3(0.30, 0.31, 0.30), vec3(0.36, 0.37, 0.35), checker);
    float edge = length(v_world.xz - u_ground_extent.xy) / u_ground_extent.z;
    float distance_to_eye = length(v_world - u_eye);
    base *= 1.0 - 0.5 * smoothstep(0.6, 1.0, edge);
    base *= 1.0 - 0.3 * smoothstep(20.0, 200.0, distance_to_eye);
    o_color = vec4(srgb_encode(base), 1.0);
}
