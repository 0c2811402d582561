/* Root motion on the clip data (crowd/anim.h): the curve at a clip time,
 * and the motion between two play times, whole loops in closed form. The
 * horizontal plane is handled as complex numbers w = z + i x, in which
 * R_y(h) is a multiplication by e^(ih); sums are in double. */
#include "crowd/anim.h"

#include <math.h>

bool crowd_anim_root_motion_valid(const crowd_root_motion *motion, float duration_s) {
    if (motion == NULL || motion->sample_count == 0 || motion->times_s == NULL ||
        motion->samples == NULL || !isfinite(duration_s) || duration_s < 0.0f ||
        !isfinite(motion->start[0]) || !isfinite(motion->start[1])) {
        return false;
    }
    uint32_t n = motion->sample_count;
    if (motion->times_s[0] != 0.0f || motion->times_s[n - 1] != duration_s ||
        (n == 1) != (duration_s == 0.0f)) {
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && !(motion->times_s[i] > motion->times_s[i - 1])) {
            return false;
        }
        for (int k = 0; k < 3; k++) {
            if (!isfinite(motion->samples[3 * i + k])) {
                return false;
            }
        }
    }
    return true;
}

bool crowd_anim_root_motion_at(const crowd_root_motion *motion, float clip_time_s, float out[3]) {
    if (motion == NULL || out == NULL || motion->sample_count == 0 || motion->times_s == NULL ||
        motion->samples == NULL) {
        return false;
    }
    const float *times = motion->times_s;
    uint32_t n = motion->sample_count;
    if (!(clip_time_s > times[0]) || n == 1) {
        for (int k = 0; k < 3; k++) {
            out[k] = motion->samples[k];
        }
        return true;
    }
    if (clip_time_s >= times[n - 1]) {
        for (int k = 0; k < 3; k++) {
            out[k] = motion->samples[3 * (n - 1) + k];
        }
        return true;
    }
    /* the last sample at or before t: times[lo] <= t < times[lo + 1] */
    uint32_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (times[mid] <= clip_time_s) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    double w = ((double)clip_time_s - times[lo]) / ((double)times[lo + 1] - times[lo]);
    for (int k = 0; k < 3; k++) {
        double a = motion->samples[3 * lo + k], b = motion->samples[3 * (lo + 1) + k];
        out[k] = (float)(a + (b - a) * w);
    }
    return true;
}

float crowd_anim_root_motion_speed(const crowd_root_motion *motion, float duration_s) {
    if (motion == NULL || motion->sample_count == 0 || motion->samples == NULL ||
        !(duration_s > 0.0f)) {
        return 0.0f;
    }
    const float *last = motion->samples + 3 * (size_t)(motion->sample_count - 1);
    return (float)(hypot(last[0], last[1]) / duration_s);
}

/* The model origin's motion: o (as z + i x) and heading h. */
typedef struct origin_motion {
    double o_re, o_im, h;
} origin_motion;

/* o(t) = start + path(t) - R_y(h(t)) * start at one clip time. */
static origin_motion origin_at(const crowd_root_motion *motion, float clip_time_s) {
    float sample[3];
    crowd_anim_root_motion_at(motion, clip_time_s, sample);
    double sz = motion->start[1], sx = motion->start[0];
    double c = cos(sample[2]), s = sin(sample[2]);
    /* e^(ih) (sz + i sx) = (c sz - s sx) + i (s sz + c sx) */
    origin_motion m = {
        .o_re = sz + sample[1] - (c * sz - s * sx),
        .o_im = sx + sample[0] - (s * sz + c * sx),
        .h = sample[2],
    };
    return m;
}

/* a * b: first b, then a (o = o_a + e^(i h_a) o_b, h = h_a + h_b). */
static origin_motion compose(origin_motion a, origin_motion b) {
    double c = cos(a.h), s = sin(a.h);
    origin_motion m = {
        .o_re = a.o_re + c * b.o_re - s * b.o_im,
        .o_im = a.o_im + s * b.o_re + c * b.o_im,
        .h = a.h + b.h,
    };
    return m;
}

/* F_end^n for any whole n (negative too): o = (1 - e^(inH)) / (1 - e^(iH))
 * * O, the geometric sum of the loop's displacement O turned by each whole
 * loop's heading H before it; n * O when the loop does not turn. Each
 * factor is written with half angles (1 - e^(ia) = 2 sin^2(a/2) - i sin a),
 * which keeps a small turn's quotient accurate. */
static origin_motion loops(origin_motion end, double n) {
    double half = sin(end.h / 2.0);
    origin_motion m = {.h = n * end.h};
    if (fabs(half) < 1e-12) {
        m.o_re = n * end.o_re;
        m.o_im = n * end.o_im;
        return m;
    }
    double half_n = sin(n * end.h / 2.0);
    double num_re = 2.0 * half_n * half_n, num_im = -sin(n * end.h);
    double den_re = 2.0 * half * half, den_im = -sin(end.h);
    double den = den_re * den_re + den_im * den_im;
    double q_re = (num_re * den_re + num_im * den_im) / den;
    double q_im = (num_im * den_re - num_re * den_im) / den;
    m.o_re = q_re * end.o_re - q_im * end.o_im;
    m.o_im = q_re * end.o_im + q_im * end.o_re;
    return m;
}

static origin_motion at_play_time(const crowd_root_motion *motion, float duration_s, bool loop,
                                  float t) {
    crowd_play_position position = crowd_anim_play_position(t, duration_s, loop);
    origin_motion within = origin_at(motion, position.time_s);
    if (position.loop == 0.0) {
        return within;
    }
    return compose(loops(origin_at(motion, duration_s), position.loop), within);
}

bool crowd_anim_root_motion_delta(const crowd_root_motion *motion, float duration_s, bool loop,
                                  float from_t, float to_t, float out_delta_position[3],
                                  float *out_delta_heading) {
    if (motion == NULL || out_delta_position == NULL || out_delta_heading == NULL ||
        motion->sample_count == 0 || motion->times_s == NULL || motion->samples == NULL ||
        !isfinite(duration_s) || duration_s < 0.0f || !isfinite(from_t) || !isfinite(to_t)) {
        return false;
    }
    out_delta_position[0] = out_delta_position[1] = out_delta_position[2] = 0.0f;
    *out_delta_heading = 0.0f;
    if (duration_s == 0.0f) {
        return true;
    }
    origin_motion from = at_play_time(motion, duration_s, loop, from_t);
    origin_motion to = at_play_time(motion, duration_s, loop, to_t);
    /* from^-1 * to: the displacement turned back into from's frame */
    double d_re = to.o_re - from.o_re, d_im = to.o_im - from.o_im;
    double c = cos(from.h), s = sin(from.h);
    double local_re = c * d_re + s * d_im, local_im = -s * d_re + c * d_im;
    out_delta_position[0] = (float)local_im;
    out_delta_position[2] = (float)local_re;
    *out_delta_heading = (float)(to.h - from.h);
    return true;
}
