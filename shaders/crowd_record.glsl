// crowd_record.glsl - the instance record's decoding (crowd_contract.glsl's
// GPU_RECORD_* and GPU_BITS_*), the one place GLSL reads record words: the
// vertex stage (from its per-instance attributes) and the culling pass (from
// whole records) both call these. The world puts it after crowd_time.glsl
// in the vertex and compute stages. Decoding is kept to a few operations a
// vertex: a software rasterizer runs it for every vertex, not once per
// instance.

// The heading angle of the record's code (pi / 2^31 a step; float keeps 24
// bits of the code, 1.9e-7 rad), and its cosine and sine.
vec2 crowd_record_heading(int code) {
    float angle = float(code) * 1.4629180792671596e-09;
    return vec2(cos(angle), sin(angle));
}

uint crowd_record_clip(uint bits) {
    return bits & GPU_BITS_CLIP_MASK;
}

bool crowd_record_loops(uint bits) {
    return (bits & GPU_BITS_LOOP) != 0u;
}

bool crowd_record_extended(uint bits) {
    return (bits & GPU_BITS_EXTENDED) != 0u;
}

uint crowd_record_lod(uint bits) {
    return (bits >> GPU_FLAG_LOD_SHIFT) & GPU_FLAG_LOD_BITS;
}

// The record's position in world space of a point p of the character.
vec3 crowd_record_place(vec3 origin, vec2 heading, float scale, vec3 p) {
    vec3 s = scale * p;
    return origin + vec3(heading.x * s.x + heading.y * s.z, s.y, -heading.y * s.x + heading.x * s.z);
}
