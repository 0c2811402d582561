/* The world: archetypes by handle, the clock, the frame (update, then one
 * draw per pass and view), statistics. Instances' handles are in
 * world_instances.c, an archetype's drawing in draw.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

#define ARCHETYPE_INDEX_MASK 0xffu

char *crowd__gpu_copy_string(const crowd_world *w, const char *text) {
    size_t bytes = strlen(text) + 1;
    char *copy = crowd__mem_alloc(&w->allocator, bytes);
    if (copy != NULL) {
        memcpy(copy, text, bytes);
    }
    return copy;
}

double crowd__gpu_thread_cpu_s(void) {
    struct timespec ts;
#ifdef __EMSCRIPTEN__
    /* A browser has no CPU clocks (emscripten's clock_gettime refuses
     * them); a page's main thread runs nothing else between two readings,
     * so its wall time is its CPU time there. */
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
#endif
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *crowd_gpu_tier_name(crowd_gpu_tier tier) {
    switch (tier) {
    case CROWD_TIER_AUTO:
        return "auto";
    case CROWD_TIER_GL45:
        return "gl45";
    case CROWD_TIER_PORTABLE:
        return "portable";
    }
    return "?";
}

crowd_result crowd__gpu_context_check(bool desktop_gl, int version, int profile_mask,
                                      crowd_gpu_tier requested, crowd_gpu_tier *out_tier,
                                      crowd_error *error) {
    if ((unsigned)requested > CROWD_TIER_PORTABLE) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "unknown tier %d",
                               (int)requested);
    }
    bool core = (profile_mask & GL_CONTEXT_CORE_PROFILE_BIT) != 0;
    if (desktop_gl && version >= 33 && !core) {
        const char *profile = (profile_mask & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT) != 0
                                  ? "a compatibility profile"
                                  : "of no known profile";
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL,
                               "crowd needs an OpenGL core context; the current one (%d.%d) is "
                               "%s: ask for a core profile (GLFW_OPENGL_CORE_PROFILE, "
                               "EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, "
                               "WGL/GLX_CONTEXT_CORE_PROFILE_BIT_ARB)",
                               version / 10, version % 10, profile);
    }
    bool gl45 = desktop_gl && version >= 45;
    bool portable = desktop_gl ? version >= 33 : version >= 30;
    const char *found = desktop_gl ? "OpenGL" : "OpenGL ES";
    if (requested == CROWD_TIER_GL45 && !gl45) {
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL,
                               "the gl45 tier needs an OpenGL 4.5 core context (found %s %d.%d); "
                               "the portable tier runs on OpenGL 3.3 core and OpenGL ES 3.0",
                               found, version / 10, version % 10);
    }
    if (!portable) {
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL,
                               "crowd needs a current OpenGL 4.5 core context (gl45 tier), or "
                               "OpenGL 3.3 core or OpenGL ES 3.0 (portable tier) (found %s %d.%d)",
                               found, version / 10, version % 10);
    }
    *out_tier = requested == CROWD_TIER_PORTABLE || !gl45 ? CROWD_TIER_PORTABLE : CROWD_TIER_GL45;
    return CROWD_OK;
}

crowd_result crowd_world_create(const crowd_world_desc *desc, crowd_world **out_world,
                                crowd_error *error) {
    const crowd_world_desc defaults = {0};
    desc = desc != NULL ? desc : &defaults;
    if (out_world == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "out_world is NULL");
    }
    *out_world = NULL;
    if ((unsigned)desc->state > CROWD_STATE_RESET) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "unknown state policy %d",
                               (int)desc->state);
    }
    if (desc->max_instances > CROWD_WORLD_MAX_INSTANCES) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "max_instances %u is above the limit of %u",
                               (unsigned)desc->max_instances, (unsigned)CROWD_WORLD_MAX_INSTANCES);
    }
    /* epoxy (emscripten on the web) answers from whatever context is
     * current; without one it has no version to give, and then nothing may
     * be asked of GL. */
    bool desktop = crowd__gpu_gl_is_desktop();
    int version = crowd__gpu_gl_version();
    GLint profile = 0;
    if (desktop && version >= 32) {
        glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
    }
    crowd_gpu_tier tier = CROWD_TIER_GL45;
    crowd_result usable =
        crowd__gpu_context_check(desktop, version, profile, desc->tier, &tier, error);
    if (usable != CROWD_OK) {
        return usable;
    }
    if ((desc->allocator.alloc_fn == NULL) != (desc->allocator.free_fn == NULL)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crowd_world_desc.allocator needs both alloc_fn and free_fn, or "
                               "neither");
    }
    crowd_world *w = crowd__mem_alloc_zeroed(&desc->allocator, 1, sizeof *w);
    if (w == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    w->allocator = desc->allocator;
    w->logger = desc->logger;
    w->tier = tier;
    w->portable = tier == CROWD_TIER_PORTABLE;
    w->gles = !desktop;
    w->glsl = !w->portable ? GPU_GLSL_450 : (desktop ? GPU_GLSL_330 : GPU_GLSL_300_ES);
    w->unorm16_textures = desktop || crowd__gpu_gl_has_extension("GL_EXT_texture_norm16");
    w->max_instances =
        desc->max_instances != 0 ? desc->max_instances : CROWD_WORLD_DEFAULT_MAX_INSTANCES;
    w->timing = desc->timing;
    /* GL_TIME_ELAPSED queries and the command read-back are the GL 4.5
     * tier's (GLES 3.0 has neither); the portable tier times the CPU only. */
    w->gpu_timing = desc->timing && !w->portable;
    w->state_policy = desc->state;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &w->max_texture_size);
    glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &w->max_texture_layers);
    if (w->gpu_timing) {
        crowd__gpu_timing_init(w);
    }
    crowd_log(&w->logger, CROWD_LOG_DEBUG, "crowd world (%s tier) on %s, %s",
              crowd_gpu_tier_name(w->tier), (const char *)glGetString(GL_RENDERER),
              (const char *)glGetString(GL_VERSION));
    *out_world = w;
    return CROWD_OK;
}

void crowd_world_destroy(crowd_world *w) {
    if (w == NULL) {
        return;
    }
    for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES; i++) {
        crowd__gpu_archetype_destroy(w->archetypes[i]);
    }
    for (uint32_t s = 0; s < CROWD_WORLD_STREAM_FRAMES; s++) {
        if (w->section_fence[s] != NULL) {
            glDeleteSync(w->section_fence[s]);
        }
    }
    if (w->gpu_timing) {
        crowd__gpu_timing_release(w);
    }
    crowd__gpu_programs_destroy_all(w);
    crowd__gpu_events_free_lists(w);
    if (w->cull_program != 0) {
        glDeleteProgram(w->cull_program);
    }
    /* The allocator is copied out first: the world holding it goes last. */
    const crowd_allocator allocator = w->allocator;
    crowd__mem_free(&allocator, w->handle_archetype);
    crowd__mem_free(&allocator, w->handle_slot);
    crowd__mem_free(&allocator, w->handle_generation);
    crowd__mem_free(&allocator, w->free_handles);
    crowd__mem_free(&allocator, w);
}

/* ---- archetypes --------------------------------------------------------- */

gpu_archetype *crowd__gpu_world_archetype(const crowd_world *w, crowd_archetype handle) {
    uint32_t index = (handle.id & ARCHETYPE_INDEX_MASK) - 1u;
    if (w == NULL || handle.id == 0 || index >= CROWD_WORLD_MAX_ARCHETYPES ||
        w->archetypes[index] == NULL || w->archetypes[index]->handle != handle.id) {
        return NULL;
    }
    return w->archetypes[index];
}

crowd_result crowd__gpu_world_find_archetype(const crowd_world *w, crowd_archetype handle,
                                             gpu_archetype **out, crowd_error *error) {
    *out = crowd__gpu_world_archetype(w, handle);
    if (*out == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               w == NULL ? "world is NULL" : "archetype %u does not exist",
                               (unsigned)handle.id);
    }
    return CROWD_OK;
}

crowd_result crowd_world_add_archetype(crowd_world *w, const crowd_archetype_desc *desc,
                                       crowd_archetype *out_archetype, crowd_error *error) {
    if (w == NULL || out_archetype == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "world or out_archetype is NULL");
    }
    out_archetype->id = 0;
    uint32_t index = 0;
    while (index < CROWD_WORLD_MAX_ARCHETYPES && w->archetypes[index] != NULL) {
        index++;
    }
    if (index == CROWD_WORLD_MAX_ARCHETYPES) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL,
                               "a world holds at most %u archetypes",
                               (unsigned)CROWD_WORLD_MAX_ARCHETYPES);
    }
    gpu_saved_state saved;
    crowd__gpu_state_save(&saved, w, CROWD_STATE_RESTORE);
    gpu_archetype *a = NULL;
    crowd_result result = CROWD_OK;
    if (w->cull_program == 0 && !w->portable) {
        result = crowd__gpu_compute_program_create("crowd_cull.comp.glsl", &w->cull_program, error);
    }
    if (result == CROWD_OK) {
        result = crowd__gpu_archetype_create(w, desc, &a, error);
    }
    crowd__gpu_state_restore(&saved);
    if (result != CROWD_OK) {
        return result;
    }
    uint8_t generation = (uint8_t)(w->archetype_generation[index] + 1u);
    w->archetype_generation[index] = generation != 0 ? generation : 1u;
    a->handle = (index + 1u) | ((uint32_t)w->archetype_generation[index] << 8);
    w->archetypes[index] = a;
    w->archetype_count++;
    out_archetype->id = a->handle;
    return CROWD_OK;
}

crowd_result crowd_world_remove_archetype(crowd_world *w, crowd_archetype handle,
                                          crowd_error *error) {
    gpu_archetype *a;
    crowd_result result = crowd__gpu_world_find_archetype(w, handle, &a, error);
    if (result != CROWD_OK) {
        return result;
    }
    crowd__gpu_world_release_handles(w, a);
    crowd__gpu_events_forget(w, a);
    w->archetypes[(handle.id & ARCHETYPE_INDEX_MASK) - 1u] = NULL;
    w->archetype_count--;
    crowd__gpu_archetype_destroy(a);
    return CROWD_OK;
}

uint32_t crowd_world_archetype_count(const crowd_world *w) {
    return w != NULL ? w->archetype_count : 0;
}

bool crowd_archetype_has_mode(const crowd_world *w, crowd_archetype handle, crowd_gpu_mode mode) {
    const gpu_archetype *a = crowd__gpu_world_archetype(w, handle);
    return a != NULL && crowd__gpu_archetype_has_mode(a, mode);
}

crowd_result crowd_archetype_set_mode(crowd_world *w, crowd_archetype handle, crowd_gpu_mode mode,
                                      crowd_error *error) {
    gpu_archetype *a;
    crowd_result result = crowd__gpu_world_find_archetype(w, handle, &a, error);
    if (result != CROWD_OK) {
        return result;
    }
    gpu_saved_state saved;
    crowd__gpu_state_save(&saved, w, CROWD_STATE_RESTORE);
    result = crowd__gpu_archetype_set_mode(a, mode, error);
    crowd__gpu_state_restore(&saved);
    return result;
}

bool crowd_archetype_get_mode(const crowd_world *w, crowd_archetype handle,
                              crowd_gpu_mode *out_mode) {
    const gpu_archetype *a = crowd__gpu_world_archetype(w, handle);
    if (a == NULL || out_mode == NULL) {
        return false;
    }
    *out_mode = a->mode;
    return true;
}

const char *crowd_archetype_name(const crowd_world *w, crowd_archetype handle) {
    const gpu_archetype *a = crowd__gpu_world_archetype(w, handle);
    return a != NULL ? a->name : "";
}

uint32_t crowd_archetype_clip_count(const crowd_world *w, crowd_archetype handle) {
    const gpu_archetype *a = crowd__gpu_world_archetype(w, handle);
    return a != NULL ? a->clip_count : 0;
}

bool crowd_archetype_get_clip(const crowd_world *w, crowd_archetype handle, uint32_t clip,
                              crowd_clip_info *out) {
    const gpu_archetype *a = crowd__gpu_world_archetype(w, handle);
    if (a == NULL || out == NULL || clip >= a->clip_count) {
        return false;
    }
    out->name = a->clips[clip].name;
    out->duration_s = a->clips[clip].duration_s;
    out->loop = a->clips[clip].loop;
    return true;
}

bool crowd_archetype_find_clip(const crowd_world *w, crowd_archetype handle, const char *name,
                               uint32_t *out_clip) {
    const gpu_archetype *a = crowd__gpu_world_archetype(w, handle);
    for (uint32_t c = 0; a != NULL && name != NULL && out_clip != NULL && c < a->clip_count; c++) {
        if (strcmp(a->clips[c].name, name) == 0) {
            *out_clip = c;
            return true;
        }
    }
    return false;
}

bool crowd_archetype_bind_bounds(const crowd_world *w, crowd_archetype handle, float min[3],
                                 float max[3]) {
    const gpu_archetype *a = crowd__gpu_world_archetype(w, handle);
    if (a == NULL || min == NULL || max == NULL) {
        return false;
    }
    memcpy(min, a->bind_min, sizeof a->bind_min);
    memcpy(max, a->bind_max, sizeof a->bind_max);
    return true;
}

/* ---- frames ------------------------------------------------------------- */

void crowd_world_set_time(crowd_world *w, double time_s) {
    if (w != NULL && isfinite(time_s)) {
        w->clock_s = time_s;
        crowd__gpu_records_tick(w);
    } else if (w != NULL) {
        crowd_log(&w->logger, CROWD_LOG_WARNING,
                  "crowd_world_set_time: %g is not a finite time; the clock stays at %g s", time_s,
                  w->clock_s);
    }
}

double crowd_world_time(const crowd_world *w) {
    return w != NULL ? w->clock_s : 0.0;
}

static bool streams_used(const crowd_world *w) {
    for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES; i++) {
        const gpu_archetype *a = w->archetypes[i];
        if (a != NULL && a->instances.count > 0 &&
            (a->mode == CROWD_GPU_MODE_CPU || a->mode == CROWD_GPU_MODE_GPU)) {
            return true;
        }
    }
    return false;
}

/* Moves the streams to the next section: the section just used gets a
 * fence after the draws that read it, and the next one is only written
 * once the GPU is done with the frame that last read it (a wait only when
 * the GPU is CROWD_WORLD_STREAM_FRAMES frames behind). */
static void advance_stream_section(crowd_world *w) {
    if (!GPU_STREAM_FENCES) {
        w->stream_section = (w->stream_section + 1u) % CROWD_WORLD_STREAM_FRAMES;
        return;
    }
    GLsync *used = &w->section_fence[w->stream_section];
    if (*used != NULL) {
        glDeleteSync(*used);
    }
    *used = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    w->stream_section = (w->stream_section + 1u) % CROWD_WORLD_STREAM_FRAMES;
    GLsync *next = &w->section_fence[w->stream_section];
    if (*next != NULL) {
        glClientWaitSync(*next, GL_SYNC_FLUSH_COMMANDS_BIT, UINT64_MAX);
        glDeleteSync(*next);
        *next = NULL;
    }
}

crowd_result crowd_world_update(crowd_world *w, double time_s, crowd_error *error) {
    if (w == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "world is NULL");
    }
    if (!isfinite(time_s)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "frame time must be finite");
    }
    double cpu_start = w->timing ? crowd__gpu_thread_cpu_s() : 0.0;
    w->clock_s = time_s;
    crowd__gpu_records_tick(w);
    w->frame++;
    memset(&w->stats, 0, sizeof w->stats);
    w->culled_upper_vertices = w->culled_upper_instances = 0;
    w->readback_valid = false;
    w->stats.uploaded_bytes = w->pending_upload_bytes;
    w->pending_upload_bytes = 0;
    if (w->gpu_timing) {
        crowd__gpu_timing_frame(w);
    }
    /* Events first: they read the clocks alone, whatever the modes draw. */
    crowd_error events_error = {0};
    crowd_result events = crowd__gpu_events_update(w, (float)time_s, &events_error);
    crowd_result result = CROWD_OK;
    if (streams_used(w)) {
        advance_stream_section(w);
        float now = (float)time_s;
        for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES && result == CROWD_OK; i++) {
            gpu_archetype *a = w->archetypes[i];
            if (a != NULL && a->instances.count > 0) {
                result = crowd__gpu_streams_update(a, now, error);
            }
        }
    }
    if (w->timing) {
        w->frame_cpu_start_s = cpu_start;
        w->stats.cpu_time_s = crowd__gpu_thread_cpu_s() - cpu_start;
    }
    if (result == CROWD_OK && events != CROWD_OK && error != NULL) {
        *error = events_error;
    }
    return result != CROWD_OK ? result : events;
}

void crowd_light_default(crowd_light *out) {
    const crowd_light daylight = {.direction = {0.3665f, 0.8376f, 0.4050f},
                                  .color = {1.0f, 0.95f, 0.85f},
                                  .ambient_sky = {0.55f, 0.62f, 0.72f},
                                  .ambient_ground = {0.22f, 0.19f, 0.16f}};
    *out = daylight;
}

static bool finite_matrix(const float m[16]) {
    for (int i = 0; i < 16; i++) {
        if (!isfinite(m[i])) {
            return false;
        }
    }
    return true;
}

/* projection x view, column-major. */
static void multiply(const float projection[16], const float view[16], float out[16]) {
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++) {
                sum += projection[k * 4 + r] * view[c * 4 + k];
            }
            out[c * 4 + r] = sum;
        }
    }
}

/* What crowd_world_draw refuses (gpu.h): a NaN would reach the shaders and
 * the LOD choice as a silent wrong picture. */
static crowd_result check_draw_desc(const crowd_draw_desc *desc, crowd_error *error) {
    if ((unsigned)desc->pass > CROWD_PASS_DEPTH || !finite_matrix(desc->view) ||
        !finite_matrix(desc->projection)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "draw needs a known pass and finite view and projection matrices");
    }
    if ((unsigned)desc->cull > CROWD_CULL_OFF) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "unknown cull mode %d",
                               (int)desc->cull);
    }
    if ((unsigned)desc->frame_fetch >= CROWD_FRAME_FETCH_COUNT) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "unknown frame_fetch %d",
                               (int)desc->frame_fetch);
    }
    if (!(isfinite(desc->viewport_height_px) && desc->viewport_height_px >= 0.0f)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "viewport_height_px %g is not a height in pixels (finite, >= 0; "
                               "0: LOD0 always)",
                               (double)desc->viewport_height_px);
    }
    if (!(isfinite(desc->lod_error_px) && desc->lod_error_px >= 0.0f)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "lod_error_px %g is not an error in pixels (finite, >= 0; 0: 1 "
                               "pixel)",
                               (double)desc->lod_error_px);
    }
    const crowd_light *light = &desc->light;
    const struct {
        const char *name;
        const float *values;
    } fields[4] = {{"direction", light->direction},
                   {"color", light->color},
                   {"ambient_sky", light->ambient_sky},
                   {"ambient_ground", light->ambient_ground}};
    for (int f = 0; f < 4 && desc->pass == CROWD_PASS_COLOR; f++) {
        for (int i = 0; i < 3; i++) {
            if (!isfinite(fields[f].values[i])) {
                return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                                       "light.%s[%d] is %g (the colour pass needs finite light)",
                                       fields[f].name, i, (double)fields[f].values[i]);
            }
        }
    }
    return CROWD_OK;
}

crowd_result crowd_world_draw(crowd_world *w, const crowd_draw_desc *desc, crowd_error *error) {
    if (w == NULL || desc == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "world or desc is NULL");
    }
    crowd_result checked = check_draw_desc(desc, error);
    if (checked != CROWD_OK) {
        return checked;
    }
    double cpu_start = w->timing ? crowd__gpu_thread_cpu_s() : 0.0;
    float view_proj[16];
    multiply(desc->projection, desc->view, view_proj);
    float now = (float)w->clock_s;
    w->stats.passes++;
    /* An archetype that cannot be drawn does not keep the others from it;
     * the first failure is what the call reports. */
    crowd_result drawn = CROWD_OK;
    if (w->instance_count > 0) {
        gpu_saved_state saved;
        crowd__gpu_state_save(&saved, w, w->state_policy);
        /* Depth-tested against what the application drew, double-sided,
         * opaque; the depth pass writes no colour. */
        glEnable(GL_DEPTH_TEST);
        glDisable(GL_CULL_FACE);
        glDisable(GL_BLEND);
        if (desc->pass == CROWD_PASS_DEPTH) {
            glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        }
        if (w->gpu_timing) {
            crowd__gpu_timing_begin(w);
        }
        for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES; i++) {
            gpu_archetype *a = w->archetypes[i];
            if (a != NULL && a->instances.count > 0) {
                crowd_result result = crowd__gpu_archetype_draw(a, desc, view_proj, now,
                                                                drawn == CROWD_OK ? error : NULL);
                drawn = drawn == CROWD_OK ? result : drawn;
            }
        }
        if (w->gpu_timing) {
            crowd__gpu_timing_end(w);
        }
        crowd__gpu_state_restore(&saved);
    }
    if (w->timing) {
        w->stats.cpu_time_s += crowd__gpu_thread_cpu_s() - cpu_start;
    }
    if (drawn != CROWD_OK) {
        return drawn;
    }
#ifndef NDEBUG
    return crowd__gpu_check(error, "drawing the crowd");
#else
    return CROWD_OK;
#endif
}

void crowd_world_get_stats(const crowd_world *w, crowd_world_stats *out) {
    if (out == NULL) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (w == NULL) {
        return;
    }
    *out = w->stats;
    if (w->readback_valid) {
        out->vertices_drawn += w->readback_vertices;
        out->visible_instances += w->readback_instances;
        for (uint32_t k = 0; k < CROWD_BAKE_MAX_LODS; k++) {
            out->visible_per_lod[k] += w->readback_per_lod[k];
        }
        out->nearest_instances += w->readback_nearest;
    } else {
        out->vertices_drawn += w->culled_upper_vertices;
        out->visible_instances += w->culled_upper_instances;
        out->visible_per_lod[0] += w->culled_upper_instances;
    }
    out->archetype_count = w->archetype_count;
    out->instance_count = w->instance_count;
    out->program_count = crowd__gpu_programs_count(w);
    out->tier = w->tier;
    out->gpu_memory_bytes = 0;
    out->record_memory_bytes = 0;
    for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES; i++) {
        if (w->archetypes[i] != NULL) {
            out->gpu_memory_bytes += w->archetypes[i]->gpu_memory_bytes;
            out->record_memory_bytes += crowd__gpu_record_memory(w->archetypes[i]);
        }
    }
}
