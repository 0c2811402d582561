#include "crowd/anim.h"

#include <math.h>

float crowd_anim_clip_time(const crowd_clip *clip, float time_s) {
    float duration = clip->duration_s;
    /* NaN and infinite times have no place on the clip; the start is the
     * least surprising pose to show. */
    if (!(duration > 0.0f) || !isfinite(time_s)) {
        return 0.0f;
    }
    if (!clip->loop) {
        return time_s < 0.0f ? 0.0f : (time_s > duration ? duration : time_s);
    }
    float t = fmodf(time_s, duration);
    if (t < 0.0f) {
        t += duration;
        /* A tiny negative remainder plus duration rounds to duration itself,
         * which is outside [0, duration). */
        if (t >= duration) {
            t = 0.0f;
        }
    }
    return t;
}
