/* Opt-in GPU timing (crowd_world_desc.timing): a GL_TIME_ELAPSED query
 * around each pass's draws, GPU_TIMING_FRAMES frames of them in flight.
 * Results are picked up at a later update once the GPU has them (asking
 * whether a result is there never waits); a frame's set is reused after
 * GPU_TIMING_FRAMES frames, dropping what never arrived. */
#include "gpu/internal.h"

void gpu_timing_init(crowd_world *w) {
    for (uint32_t f = 0; f < GPU_TIMING_FRAMES; f++) {
        glCreateQueries(GL_TIME_ELAPSED, GPU_TIMING_DRAWS, w->timing_queries.queries[f]);
    }
}

void gpu_timing_release(crowd_world *w) {
    for (uint32_t f = 0; f < GPU_TIMING_FRAMES; f++) {
        glDeleteQueries(GPU_TIMING_DRAWS, w->timing_queries.queries[f]);
    }
}

/* The summed time of a frame's queries, false while one has not arrived. */
static bool frame_time(gpu_timing *t, uint32_t f, double *out_s) {
    uint64_t total = 0;
    for (uint32_t q = 0; q < t->used[f]; q++) {
        GLuint available = 0;
        glGetQueryObjectuiv(t->queries[f][q], GL_QUERY_RESULT_AVAILABLE, &available);
        if (!available) {
            return false;
        }
        GLuint64 ns = 0;
        glGetQueryObjectui64v(t->queries[f][q], GL_QUERY_RESULT, &ns);
        total += ns;
    }
    *out_s = (double)total * 1e-9;
    return true;
}

void gpu_timing_frame(crowd_world *w) {
    gpu_timing *t = &w->timing_queries;
    /* The newest earlier frame whose results are all in. */
    for (uint32_t back = 1; back < GPU_TIMING_FRAMES && back < w->frame; back++) {
        uint32_t f = (uint32_t)((w->frame - back) % GPU_TIMING_FRAMES);
        double seconds;
        if (t->frame_of[f] == w->frame - back && t->used[f] > 0 && frame_time(t, f, &seconds)) {
            w->stats.gpu_time_s = seconds;
            w->stats.gpu_time_frames_ago = back;
            break;
        }
    }
    uint32_t current = (uint32_t)(w->frame % GPU_TIMING_FRAMES);
    t->frame_of[current] = w->frame;
    t->used[current] = 0;
}

void gpu_timing_begin(crowd_world *w) {
    gpu_timing *t = &w->timing_queries;
    uint32_t f = (uint32_t)(w->frame % GPU_TIMING_FRAMES);
    if (t->used[f] < GPU_TIMING_DRAWS) {
        glBeginQuery(GL_TIME_ELAPSED, t->queries[f][t->used[f]]);
    }
}

void gpu_timing_end(crowd_world *w) {
    gpu_timing *t = &w->timing_queries;
    uint32_t f = (uint32_t)(w->frame % GPU_TIMING_FRAMES);
    if (t->used[f] < GPU_TIMING_DRAWS) {
        glEndQuery(GL_TIME_ELAPSED);
        t->used[f]++;
    }
}
