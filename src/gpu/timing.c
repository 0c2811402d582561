/* Opt-in GPU timing (crowd_world_desc.timing): a GL_TIME_ELAPSED query
 * around each pass's draws, GPU_TIMING_FRAMES frames of them in flight.
 * Results are picked up at a later update once the GPU has them (asking
 * whether a result is there never waits); a frame's set is reused after
 * GPU_TIMING_FRAMES frames, dropping what never arrived. */
#include <string.h>

#include "gpu/internal.h"

#define COMMAND_UINTS 5u
#define FRAME_UINTS (GPU_TIMING_DRAWS * CROWD_BAKE_MAX_LODS * COMMAND_UINTS)

void crowd__gpu_timing_init(crowd_world *w) {
    gpu_timing *t = &w->timing_queries;
    for (uint32_t f = 0; f < GPU_TIMING_FRAMES; f++) {
        glCreateQueries(GL_TIME_ELAPSED, GPU_TIMING_DRAWS, t->queries[f]);
    }
    const GLbitfield flags = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    GLsizeiptr bytes = (GLsizeiptr)(GPU_TIMING_FRAMES * FRAME_UINTS * sizeof(GLuint));
    glCreateBuffers(1, &t->readback_buffer);
    glNamedBufferStorage(t->readback_buffer, bytes, NULL, flags);
    t->readback = glMapNamedBufferRange(t->readback_buffer, 0, bytes, flags);
}

void crowd__gpu_timing_release(crowd_world *w) {
    gpu_timing *t = &w->timing_queries;
    for (uint32_t f = 0; f < GPU_TIMING_FRAMES; f++) {
        glDeleteQueries(GPU_TIMING_DRAWS, t->queries[f]);
    }
    glDeleteBuffers(1, &t->readback_buffer);
}

void crowd__gpu_timing_note_commands(crowd_world *w, GLuint command_buffer, uint32_t first_command,
                                     uint32_t lod_count, bool nearest) {
    gpu_timing *t = &w->timing_queries;
    uint32_t f = (uint32_t)(w->frame % GPU_TIMING_FRAMES);
    if (t->readback == NULL || t->noted[f] >= GPU_TIMING_DRAWS) {
        return;
    }
    uint32_t note = t->noted[f]++;
    t->noted_lods[f][note] = lod_count;
    t->noted_nearest[f][note] = nearest;
    GLintptr at =
        (GLintptr)((f * FRAME_UINTS + note * CROWD_BAKE_MAX_LODS * COMMAND_UINTS) * sizeof(GLuint));
    glCopyNamedBufferSubData(command_buffer, t->readback_buffer,
                             (GLintptr)(first_command * COMMAND_UINTS * sizeof(GLuint)), at,
                             (GLsizeiptr)(lod_count * COMMAND_UINTS * sizeof(GLuint)));
}

/* What the noted commands of frame slot f drew. */
static void read_commands(crowd_world *w, uint32_t f) {
    gpu_timing *t = &w->timing_queries;
    w->readback_vertices = w->readback_instances = w->readback_nearest = 0;
    memset(w->readback_per_lod, 0, sizeof w->readback_per_lod);
    for (uint32_t note = 0; note < t->noted[f]; note++) {
        const GLuint *command =
            t->readback + f * FRAME_UINTS + note * CROWD_BAKE_MAX_LODS * COMMAND_UINTS;
        for (uint32_t k = 0; k < t->noted_lods[f][note]; k++, command += COMMAND_UINTS) {
            w->readback_vertices += (uint64_t)command[0] * command[1];
            w->readback_instances += command[1];
            w->readback_per_lod[k] += command[1];
            w->readback_nearest += t->noted_nearest[f][note] ? command[1] : 0;
        }
    }
    w->readback_valid = true;
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

void crowd__gpu_timing_frame(crowd_world *w) {
    gpu_timing *t = &w->timing_queries;
    /* With a query buffer bound, GL writes query results into it at the
     * "pointer" as an offset: the application's binding is set aside. */
    GLint query_buffer = 0;
    glGetIntegerv(GL_QUERY_BUFFER_BINDING, &query_buffer);
    glBindBuffer(GL_QUERY_BUFFER, 0);
    /* The newest earlier frame whose results are all in. */
    for (uint32_t back = 1; back < GPU_TIMING_FRAMES && back < w->frame; back++) {
        uint32_t f = (uint32_t)((w->frame - back) % GPU_TIMING_FRAMES);
        double seconds;
        if (t->frame_of[f] == w->frame - back && t->used[f] > 0 && frame_time(t, f, &seconds)) {
            w->stats.gpu_time_s = seconds;
            w->stats.gpu_time_frames_ago = back;
            read_commands(w, f);
            break;
        }
    }
    glBindBuffer(GL_QUERY_BUFFER, (GLuint)query_buffer);
    uint32_t current = (uint32_t)(w->frame % GPU_TIMING_FRAMES);
    t->frame_of[current] = w->frame;
    t->used[current] = 0;
    t->noted[current] = 0;
}

void crowd__gpu_timing_begin(crowd_world *w) {
    gpu_timing *t = &w->timing_queries;
    uint32_t f = (uint32_t)(w->frame % GPU_TIMING_FRAMES);
    if (t->used[f] < GPU_TIMING_DRAWS) {
        glBeginQuery(GL_TIME_ELAPSED, t->queries[f][t->used[f]]);
    }
}

void crowd__gpu_timing_end(crowd_world *w) {
    gpu_timing *t = &w->timing_queries;
    uint32_t f = (uint32_t)(w->frame % GPU_TIMING_FRAMES);
    if (t->used[f] < GPU_TIMING_DRAWS) {
        glEndQuery(GL_TIME_ELAPSED);
        t->used[f]++;
    }
}
