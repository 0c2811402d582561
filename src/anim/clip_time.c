/* The clip-time rule (crowd/anim.h, docs/time.md). Every GPU player mirrors
 * these functions operation for operation in float32, so that the case
 * table (tests/common/clip_time_cases.json) gives the same frames in all of
 * them: floor rather than fmodf (which GLSL lacks), and no double. */
#include "crowd/anim.h"

#include <math.h>

float crowd_anim_play_unwrapped(float clock_s, float start_s, float offset_s, float speed) {
    return (clock_s - start_s) * speed + offset_s;
}

crowd_play_position crowd_anim_play_position(float t, float duration_s, bool loop) {
    crowd_play_position at = {0.0, 0.0f};
    /* NaN and infinite times have no place on the clip; the start is the
     * least surprising pose to show. */
    if (!(duration_s > 0.0f) || !isfinite(t)) {
        return at;
    }
    if (!loop) {
        at.time_s = t < 0.0f ? 0.0f : (t > duration_s ? duration_s : t);
        return at;
    }
    float loops = floorf(t / duration_s);
    float wrapped = t - duration_s * loops;
    at.loop = loops;
    at.time_s = wrapped;
    /* t / d can round up to a whole number just below it (wrapped < 0: the
     * loop already counts the next one), or a tiny negative t plus d round to
     * d (the next loop): both are the seam, whose pose is 0's. */
    if (wrapped >= duration_s || wrapped < 0.0f) {
        at.loop += wrapped >= duration_s ? 1.0 : 0.0;
        at.time_s = 0.0f;
    }
    return at;
}

float crowd_anim_play_time(float clock_s, float start_s, float offset_s, float speed,
                           float duration_s, bool loop) {
    float t = crowd_anim_play_unwrapped(clock_s, start_s, offset_s, speed);
    return crowd_anim_play_position(t, duration_s, loop).time_s;
}

float crowd_anim_clip_time(const crowd_clip *clip, float time_s) {
    if (clip == NULL) {
        return 0.0f;
    }
    return crowd_anim_play_time(time_s, 0.0f, 0.0f, 1.0f, clip->duration_s, clip->loop);
}

crowd_frame_pair crowd_anim_frame_pair(const crowd_clip_frames *frames, float clip_time_s) {
    if (frames == NULL) {
        return (crowd_frame_pair){0, 0, 0.0f};
    }
    uint32_t last = frames->frame_count > 0 ? frames->frame_count - 1 : 0;
    float f = clip_time_s * frames->fps;
    if (!(f > 0.0f) || !isfinite(f)) {
        f = 0.0f;
    }
    float whole = floorf(f);
    float alpha = f - whole;
    /* Saturated: converting a float beyond uint32_t is undefined, and every
     * layout below treats a k past the last frame the same. */
    uint32_t k = whole < 4294967040.0f ? (uint32_t)whole : UINT32_MAX;
    crowd_frame_pair pair;
    switch (frames->layout) {
    case CROWD_FRAMES_WRAP:
        k %= last + 1;
        pair.frame0 = k;
        pair.frame1 = k == last ? 0 : k + 1;
        pair.weight = alpha;
        return pair;
    case CROWD_FRAMES_CLAMP:
        if (k >= last) {
            pair.frame0 = pair.frame1 = last;
            pair.weight = 0.0f;
            return pair;
        }
        pair.frame0 = k;
        pair.frame1 = k + 1;
        pair.weight = alpha;
        return pair;
    case CROWD_FRAMES_END:
    default:
        break;
    }
    if (clip_time_s >= frames->duration_s || k >= last) {
        pair.frame0 = pair.frame1 = last;
        pair.weight = 0.0f;
        return pair;
    }
    /* The last step ends at d, not at (k + 1) / fps. */
    float step = k + 1 == last ? frames->duration_s * frames->fps - whole : 1.0f;
    pair.frame0 = k;
    pair.frame1 = k + 1;
    pair.weight = alpha < step ? alpha / step : 1.0f;
    return pair;
}

uint32_t crowd_anim_frame_nearest(const crowd_clip_frames *frames, float clip_time_s) {
    crowd_frame_pair pair = crowd_anim_frame_pair(frames, clip_time_s);
    return pair.weight >= 0.5f ? pair.frame1 : pair.frame0;
}

uint32_t crowd_anim_frame_count(float duration_s, float fps) {
    if (!(duration_s > 0.0f)) {
        return 1;
    }
    double steps = ceil((double)duration_s * (double)fps - 1e-3);
    if (!(steps < 4294967294.0)) {
        return UINT32_MAX;
    }
    return 1 + (steps < 1.0 ? 1 : (uint32_t)steps);
}

float crowd_anim_frame_time(const crowd_clip_frames *frames, uint32_t k) {
    if (frames == NULL || !(frames->fps > 0.0f)) {
        return 0.0f;
    }
    /* Past the last frame: the last frame (a clip has no frame beyond it). */
    if (frames->frame_count > 0 && k >= frames->frame_count) {
        k = frames->frame_count - 1;
    }
    if (frames->layout == CROWD_FRAMES_END && k + 1 >= frames->frame_count) {
        return frames->duration_s;
    }
    return (float)k / frames->fps;
}
