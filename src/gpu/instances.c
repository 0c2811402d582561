/* Instances: a dense array of records mirrored in one GPU buffer that lives
 * across frames. Every change writes exactly the one record it touches
 * (removal moves the last record into the hole: one write). Ids are an index
 * into a slot table plus a generation, so a stale id is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/internal.h"

#define INDEX_BITS 22u
#define INDEX_MASK ((1u << INDEX_BITS) - 1u)
#define GENERATION_LIMIT (1u << (32u - INDEX_BITS))

static uint32_t initial_capacity(const crowd_renderer *r) {
    return r->max_instances < 64 ? r->max_instances : 64;
}

static crowd_result oom(crowd_error *error) {
    return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}

/* Resizes every per-slot array to `capacity` and moves the GPU buffer's
 * records into a new buffer of that size. */
static crowd_result reserve(crowd_renderer *r, uint32_t capacity, crowd_error *error) {
    void *p;
    if ((p = realloc(r->records, capacity * sizeof *r->records)) == NULL) {
        return oom(error);
    }
    r->records = p;
    if ((p = realloc(r->slot_id, capacity * sizeof *r->slot_id)) == NULL) {
        return oom(error);
    }
    r->slot_id = p;
    if ((p = realloc(r->index_slot, capacity * sizeof *r->index_slot)) == NULL) {
        return oom(error);
    }
    r->index_slot = p;
    if ((p = realloc(r->index_generation, capacity * sizeof *r->index_generation)) == NULL) {
        return oom(error);
    }
    r->index_generation = p;
    if ((p = realloc(r->free_indices, capacity * sizeof *r->free_indices)) == NULL) {
        return oom(error);
    }
    r->free_indices = p;

    GLuint buffer = 0;
    uint64_t bytes = 0;
    crowd_result result =
        gpu_buffer_create(r, &buffer, &bytes, (uint64_t)capacity * sizeof(gpu_instance_record),
                          NULL, GL_DYNAMIC_STORAGE_BIT, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (r->instance_buffer != 0 && r->instance_count > 0) {
        glCopyNamedBufferSubData(r->instance_buffer, buffer, 0, 0,
                                 (GLsizeiptr)(r->instance_count * sizeof(gpu_instance_record)));
    }
    uint64_t old_bytes = (uint64_t)r->instance_capacity * sizeof(gpu_instance_record);
    gpu_buffer_delete(r, &r->instance_buffer, &old_bytes);
    r->instance_buffer = buffer;
    r->instance_capacity = capacity;
    if (r->source != NULL) {
        result = gpu_pose_reserve(r, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return gpu_check(error, "growing the instance buffer");
}

crowd_result gpu_instances_init(crowd_renderer *r, crowd_error *error) {
    r->fade_end_s = -INFINITY;
    return reserve(r, initial_capacity(r), error);
}

bool gpu_crossfade_running(const crowd_renderer *r, float now_s) {
    return (double)now_s < r->fade_end_s;
}

/* A fade from start_s over duration_s has weight exactly 1 from the first
 * float time t with t - start_s >= duration_s in float arithmetic (see
 * fade_weight in crowd.vert.glsl). Any t >= start_s + duration_s (the real
 * sum) qualifies, as rounding cannot take the difference below the float
 * duration_s; the double sum rounds to nearest, one step up makes it an
 * upper bound. */
static void note_fade_end(crowd_renderer *r, float start_s, float duration_s) {
    double end = nextafter((double)start_s + (double)duration_s, INFINITY);
    r->fade_end_s = end > r->fade_end_s ? end : r->fade_end_s;
}

void gpu_instances_release(crowd_renderer *r) {
    uint64_t bytes = (uint64_t)r->instance_capacity * sizeof(gpu_instance_record);
    gpu_buffer_delete(r, &r->instance_buffer, &bytes);
    free(r->records);
    free(r->slot_id);
    free(r->index_slot);
    free(r->index_generation);
    free(r->free_indices);
    r->records = NULL;
    r->slot_id = r->index_slot = r->free_indices = NULL;
    r->index_generation = NULL;
    r->instance_capacity = r->instance_count = 0;
}

static void write_record(crowd_renderer *r, uint32_t slot) {
    glNamedBufferSubData(r->instance_buffer, (GLintptr)(slot * sizeof(gpu_instance_record)),
                         sizeof(gpu_instance_record), &r->records[slot]);
    r->pending_upload_bytes += sizeof(gpu_instance_record);
}

static crowd_result find(const crowd_renderer *r, crowd_instance_id id, uint32_t *slot,
                         crowd_error *error) {
    if (r == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "renderer is NULL");
    }
    uint32_t index = id & INDEX_MASK;
    uint32_t generation = id >> INDEX_BITS;
    if (id == 0 || index >= r->id_count || r->index_slot[index] == UINT32_MAX ||
        r->index_generation[index] != generation) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "instance %u does not exist", (unsigned)id);
    }
    *slot = r->index_slot[index];
    return CROWD_OK;
}

static bool finite_all(const float *values, int count) {
    for (int i = 0; i < count; i++) {
        if (!isfinite(values[i])) {
            return false;
        }
    }
    return true;
}

static crowd_result check_clip(const crowd_renderer *r, uint32_t clip, crowd_error *error) {
    if (clip >= r->clip_count && !(r->clip_count == 0 && clip == 0)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "clip %u out of range (%u clips)", (unsigned)clip,
                               (unsigned)r->clip_count);
    }
    return CROWD_OK;
}

static const gpu_clip *clip_of(const crowd_renderer *r, uint32_t clip) {
    return clip < r->clip_count ? &r->clips[clip] : NULL;
}

/* Sets the record's clip with what the shaders need of it: baked frames,
 * duration and whether it loops (zeros for an asset without clips). */
static void set_clip(const crowd_renderer *r, gpu_instance_record *rec, uint32_t clip) {
    const gpu_clip *c = clip_of(r, clip);
    rec->clip = clip;
    rec->first_frame = c != NULL ? c->first_frame : 0;
    rec->frame_count = c != NULL ? c->frame_count : 0;
    rec->duration_s = c != NULL ? c->duration_s : 0.0f;
    rec->flags &= ~GPU_FLAG_CLIP_LOOPS;
    rec->flags |= c != NULL && c->loop ? GPU_FLAG_CLIP_LOOPS : 0u;
}

static crowd_result record_from_desc(const crowd_renderer *r, const crowd_instance_desc *desc,
                                     gpu_instance_record *out, crowd_error *error) {
    if (desc == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "desc is NULL");
    }
    float scalars[4] = {desc->heading_rad, desc->scale, desc->time_offset_s, desc->speed};
    if (!finite_all(desc->position, 3) || !finite_all(scalars, 4) || !finite_all(desc->tint, 4)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "instance values must be finite");
    }
    if (desc->scale < 0.0f) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "instance scale %g is negative", (double)desc->scale);
    }
    if ((unsigned)desc->loop > CROWD_LOOP_OFF) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "unknown loop mode %d",
                               (int)desc->loop);
    }
    crowd_result result = check_clip(r, desc->clip, error);
    if (result != CROWD_OK) {
        return result;
    }
    memset(out, 0, sizeof *out);
    memcpy(out->position, desc->position, sizeof out->position);
    out->heading_rad = desc->heading_rad;
    bool no_tint = desc->tint[0] == 0.0f && desc->tint[1] == 0.0f && desc->tint[2] == 0.0f &&
                   desc->tint[3] == 0.0f;
    for (int c = 0; c < 4; c++) {
        out->tint[c] = no_tint ? 1.0f : desc->tint[c];
    }
    out->scale = desc->scale == 0.0f ? 1.0f : desc->scale;
    out->flags = (uint32_t)desc->loop;
    set_clip(r, out, desc->clip);
    out->start_s = (float)r->clock_s;
    out->offset_s = desc->time_offset_s;
    out->speed = desc->paused ? 0.0f : (desc->speed == 0.0f ? 1.0f : desc->speed);
    return CROWD_OK;
}

crowd_result crowd_instance_add(crowd_renderer *r, const crowd_instance_desc *desc,
                                crowd_instance_id *out_id, crowd_error *error) {
    if (r == NULL || out_id == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "renderer or out_id is NULL");
    }
    *out_id = 0;
    gpu_instance_record record;
    crowd_result result = record_from_desc(r, desc, &record, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (r->instance_count >= r->max_instances) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL,
                               "instance limit of %u reached (crowd_renderer_desc.max_instances)",
                               (unsigned)r->max_instances);
    }
    if (r->instance_count == r->instance_capacity) {
        uint32_t capacity = r->instance_capacity * 2;
        capacity = capacity < r->max_instances ? capacity : r->max_instances;
        result = reserve(r, capacity, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    uint32_t index;
    if (r->free_index_count > 0) {
        index = r->free_indices[--r->free_index_count];
    } else {
        index = r->id_count++;
        r->index_generation[index] = 1;
    }
    uint32_t slot = r->instance_count++;
    r->index_slot[index] = slot;
    r->slot_id[slot] = index | ((uint32_t)r->index_generation[index] << INDEX_BITS);
    r->records[slot] = record;
    if (r->source != NULL) {
        gpu_pose_reset_cursor(r, slot, 0);
        gpu_pose_reset_cursor(r, slot, 1);
    }
    write_record(r, slot);
    *out_id = r->slot_id[slot];
    return gpu_check(error, "writing an instance");
}

crowd_result crowd_instance_update(crowd_renderer *r, crowd_instance_id id,
                                   const crowd_instance_desc *desc, crowd_error *error) {
    uint32_t slot = 0;
    crowd_result found = find(r, id, &slot, error);
    if (found != CROWD_OK) {
        return found;
    }
    gpu_instance_record record;
    crowd_result result = record_from_desc(r, desc, &record, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (r->source != NULL && record.clip != r->records[slot].clip) {
        gpu_pose_reset_cursor(r, slot, 0);
    }
    r->records[slot] = record;
    write_record(r, slot);
    return CROWD_OK;
}

crowd_result crowd_instance_set_transform(crowd_renderer *r, crowd_instance_id id,
                                          const float position[3], float heading_rad, float scale,
                                          crowd_error *error) {
    uint32_t slot = 0;
    crowd_result found = find(r, id, &slot, error);
    if (found != CROWD_OK) {
        return found;
    }
    float scalars[2] = {heading_rad, scale};
    if (position == NULL || !finite_all(position, 3) || !finite_all(scalars, 2) || scale < 0.0f) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "transform values must be finite, scale >= 0");
    }
    gpu_instance_record *rec = &r->records[slot];
    memcpy(rec->position, position, sizeof rec->position);
    rec->heading_rad = heading_rad;
    rec->scale = scale == 0.0f ? 1.0f : scale;
    write_record(r, slot);
    return CROWD_OK;
}

/* Playback time now, folded into the clip so offsets stay small. */
static float current_time(const crowd_renderer *r, uint32_t clip, uint32_t loop_mode, float start_s,
                          float offset_s, float speed) {
    const gpu_clip *c = clip_of(r, clip);
    float now = (float)r->clock_s;
    if (c == NULL) {
        return (now - start_s) * speed + offset_s;
    }
    return gpu_clip_time(c, loop_mode, now, start_s, offset_s, speed);
}

crowd_result crowd_instance_set_speed(crowd_renderer *r, crowd_instance_id id, float speed,
                                      crowd_error *error) {
    uint32_t slot = 0;
    crowd_result found = find(r, id, &slot, error);
    if (found != CROWD_OK) {
        return found;
    }
    if (!isfinite(speed)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "speed must be finite");
    }
    gpu_instance_record *rec = &r->records[slot];
    float now = (float)r->clock_s;
    rec->offset_s = current_time(r, rec->clip, rec->flags & GPU_FLAG_LOOP_MASK, rec->start_s,
                                 rec->offset_s, rec->speed);
    rec->start_s = now;
    rec->speed = speed;
    if (rec->flags & GPU_FLAG_FADE) {
        rec->from_offset_s = current_time(
            r, rec->from_clip, (rec->flags >> GPU_FLAG_FROM_LOOP_SHIFT) & GPU_FLAG_LOOP_MASK,
            rec->from_start_s, rec->from_offset_s, rec->from_speed);
        rec->from_start_s = now;
        rec->from_speed = speed;
    }
    write_record(r, slot);
    return CROWD_OK;
}

crowd_result crowd_instance_play(crowd_renderer *r, crowd_instance_id id, uint32_t clip,
                                 float crossfade_s, crowd_error *error) {
    uint32_t slot = 0;
    crowd_result found = find(r, id, &slot, error);
    if (found != CROWD_OK) {
        return found;
    }
    if (!isfinite(crossfade_s) || crossfade_s < 0.0f) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crossfade %g s must be finite and >= 0", (double)crossfade_s);
    }
    crowd_result result = check_clip(r, clip, error);
    if (result != CROWD_OK) {
        return result;
    }
    gpu_instance_record *rec = &r->records[slot];
    uint32_t loop_mode = rec->flags & GPU_FLAG_LOOP_MASK;
    float now = (float)r->clock_s;
    if (crossfade_s > 0.0f) {
        /* The pose being left is the current clip's; a fade already running
         * is cut short (its source clip drops out). */
        rec->from_clip = rec->clip;
        rec->from_first_frame = rec->first_frame;
        rec->from_frame_count = rec->frame_count;
        rec->from_duration_s = rec->duration_s;
        rec->from_start_s = rec->start_s;
        rec->from_offset_s = rec->offset_s;
        rec->from_speed = rec->speed;
        rec->fade_start_s = now;
        rec->fade_duration_s = crossfade_s;
        note_fade_end(r, now, crossfade_s);
        rec->flags = loop_mode | (loop_mode << GPU_FLAG_FROM_LOOP_SHIFT) | GPU_FLAG_FADE |
                     (rec->flags & GPU_FLAG_CLIP_LOOPS ? GPU_FLAG_FROM_CLIP_LOOPS : 0u);
        if (r->source != NULL) {
            gpu_pose_move_cursor(r, slot, 0, slot, 1);
        }
    } else {
        rec->flags = loop_mode;
        rec->fade_duration_s = 0.0f;
    }
    set_clip(r, rec, clip);
    rec->start_s = now;
    rec->offset_s = 0.0f;
    if (r->source != NULL) {
        gpu_pose_reset_cursor(r, slot, 0);
    }
    write_record(r, slot);
    return CROWD_OK;
}

static void release_index(crowd_renderer *r, uint32_t id) {
    uint32_t index = id & INDEX_MASK;
    r->index_slot[index] = UINT32_MAX;
    uint32_t generation = r->index_generation[index] + 1u;
    r->index_generation[index] = (uint16_t)(generation < GENERATION_LIMIT ? generation : 1u);
    r->free_indices[r->free_index_count++] = index;
}

crowd_result crowd_instance_remove(crowd_renderer *r, crowd_instance_id id, crowd_error *error) {
    uint32_t slot = 0;
    crowd_result found = find(r, id, &slot, error);
    if (found != CROWD_OK) {
        return found;
    }
    release_index(r, id);
    uint32_t last = r->instance_count - 1;
    if (slot != last) {
        r->records[slot] = r->records[last];
        r->slot_id[slot] = r->slot_id[last];
        r->index_slot[r->slot_id[slot] & INDEX_MASK] = slot;
        if (r->source != NULL) {
            gpu_pose_move_cursor(r, last, 0, slot, 0);
            gpu_pose_move_cursor(r, last, 1, slot, 1);
        }
        write_record(r, slot);
    }
    r->instance_count = last;
    if (last == 0) {
        r->fade_end_s = -INFINITY;
    }
    return CROWD_OK;
}

void crowd_renderer_clear_instances(crowd_renderer *r) {
    if (r == NULL) {
        return;
    }
    for (uint32_t slot = 0; slot < r->instance_count; slot++) {
        release_index(r, r->slot_id[slot]);
    }
    r->instance_count = 0;
    r->fade_end_s = -INFINITY;
}

uint32_t crowd_renderer_instance_count(const crowd_renderer *r) {
    return r != NULL ? r->instance_count : 0;
}

bool crowd_renderer_instance_bounds(const crowd_renderer *r, float min[3], float max[3]) {
    if (r == NULL || r->instance_count == 0) {
        return false;
    }
    for (int a = 0; a < 3; a++) {
        min[a] = INFINITY;
        max[a] = -INFINITY;
    }
    for (uint32_t slot = 0; slot < r->instance_count; slot++) {
        const gpu_instance_record *rec = &r->records[slot];
        float c = cosf(rec->heading_rad), s = sinf(rec->heading_rad);
        for (int corner = 0; corner < 8; corner++) {
            float x = (corner & 1) ? r->bind_max[0] : r->bind_min[0];
            float y = (corner & 2) ? r->bind_max[1] : r->bind_min[1];
            float z = (corner & 4) ? r->bind_max[2] : r->bind_min[2];
            float world[3] = {rec->position[0] + rec->scale * (c * x + s * z),
                              rec->position[1] + rec->scale * y,
                              rec->position[2] + rec->scale * (-s * x + c * z)};
            for (int a = 0; a < 3; a++) {
                min[a] = world[a] < min[a] ? world[a] : min[a];
                max[a] = world[a] > max[a] ? world[a] : max[a];
            }
        }
    }
    return true;
}
