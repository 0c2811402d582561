// crowd_time.glsl - the clip-time rule (docs/time.md): crowd_anim_play_time,
// crowd_anim_frame_pair and crowd_anim_frame_nearest of include/crowd/anim.h,
// operation for operation in float32, checked against the same case table
// (tests/common/clip_time_cases.json) by tests/gpu. The world puts it before
// crowd.vert.glsl; it is plain GLSL that compiles as 450 core, 330 core and
// 300 es.

const uint CROWD_FRAMES_END = 0u;
const uint CROWD_FRAMES_WRAP = 1u;
const uint CROWD_FRAMES_CLAMP = 2u;

float crowd_play_time(float clock_s, float start_s, float offset_s, float speed,
                      float duration_s, bool loop) {
    float t = (clock_s - start_s) * speed + offset_s;
    if (!(duration_s > 0.0) || isnan(t) || isinf(t)) {
        return 0.0;
    }
    if (loop) {
        t -= duration_s * floor(t / duration_s);
        return t >= duration_s || t < 0.0 ? 0.0 : t;
    }
    return clamp(t, 0.0, duration_s);
}

// Frames (of the clip, 0-based) around clip time t and the second's weight.
// No integer division (a software rasterizer divides one lane at a time):
// in the WRAP layout of older bakes, k is at most frame_count + 1 (the
// world checks d * fps <= frame_count + 1 for them), so two subtractions
// are k % frame_count.
void crowd_frame_pair(uint frame_layout, float fps, float duration_s, uint frame_count, float t,
                      out uint frame0, out uint frame1, out float weight) {
    uint last = frame_count - 1u;
    float f = t * fps;
    f = f > 0.0 ? f : 0.0;
    float whole = floor(f);
    float alpha = f - whole;
    uint k = whole < 4294967040.0 ? uint(whole) : 4294967295u;
    if (frame_layout == CROWD_FRAMES_WRAP) {
        k = k >= frame_count ? k - frame_count : k;
        k = k >= frame_count ? k - frame_count : k;
        frame0 = k;
        frame1 = k == last ? 0u : k + 1u;
        weight = alpha;
        return;
    }
    bool end = frame_layout == CROWD_FRAMES_END && t >= duration_s;
    if (end || k >= last) {
        frame0 = last;
        frame1 = last;
        weight = 0.0;
        return;
    }
    // The last step of the END layout ends at d, not at (k + 1) / fps.
    float step = frame_layout == CROWD_FRAMES_END && k + 1u == last ? duration_s * fps - whole : 1.0;
    frame0 = k;
    frame1 = k + 1u;
    weight = alpha < step ? alpha / step : 1.0;
}

// The frame nearest clip time t: the pair's second from weight 0.5 on.
uint crowd_frame_nearest(uint frame_layout, float fps, float duration_s, uint frame_count,
                         float t) {
    uint frame0, frame1;
    float weight;
    crowd_frame_pair(frame_layout, fps, duration_s, frame_count, t, frame0, frame1, weight);
    return weight >= 0.5 ? frame1 : frame0;
}
