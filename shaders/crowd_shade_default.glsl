// crowd_shade_default.glsl - crowd's own shading, used when the archetype
// brings no fragment function: opaque, lit by the frame's crowd_light.

vec4 crowd_shade(crowd_surface s) {
    return vec4(crowd_default_lighting(s), 1.0);
}
