/* One archetype's instances: a dense array of records mirrored in one GPU
 * buffer that lives across frames. Every change writes exactly the one
 * record it touches (removal moves the last record into the hole: one
 * write). Handles are the world's (world.c); here an instance is its slot.
 * The portable tier keeps the CPU array only: its passes stream the
 * records they draw (draw_portable.c), as its culling picks them anyway. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

static uint32_t initial_capacity(const gpu_archetype *r) {
    return r->world->max_instances < 64 ? r->world->max_instances : 64;
}

static crowd_result oom(crowd_error *error) {
    return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}

/* Resizes every per-slot array to `capacity` and moves the GPU buffer's
 * records into a new buffer of that size. */
static crowd_result reserve(gpu_archetype *r, uint32_t capacity, crowd_error *error) {
    const crowd_allocator *allocator = &r->world->allocator;
    void *p = crowd__mem_grow(allocator, r->instances.states,
                              r->instances.capacity * sizeof *r->instances.states,
                              capacity * sizeof *r->instances.states);
    if (p == NULL) {
        return oom(error);
    }
    r->instances.states = p;
    p = crowd__mem_grow(allocator, r->instances.records,
                        r->instances.capacity * sizeof *r->instances.records,
                        capacity * sizeof *r->instances.records);
    if (p == NULL) {
        return oom(error);
    }
    r->instances.records = p;
    p = crowd__mem_grow(allocator, r->instances.slot_handle,
                        r->instances.capacity * sizeof *r->instances.slot_handle,
                        capacity * sizeof *r->instances.slot_handle);
    if (p == NULL) {
        return oom(error);
    }
    r->instances.slot_handle = p;
    crowd_result result = crowd__gpu_side_reserve(r, capacity, error);
    if (result == CROWD_OK) {
        result = crowd__gpu_events_reserve(r, capacity, error);
    }
    if (result == CROWD_OK) {
        result = crowd__gpu_poses_reserve(r, capacity, error);
    }
    if (result == CROWD_OK) {
        result = crowd__gpu_blends_reserve(r, capacity, error);
    }
    if (result != CROWD_OK) {
        return result;
    }

    if (r->world->portable) {
        /* No GPU copy: each pass streams the records it draws. */
        r->instances.capacity = capacity;
        return r->source != NULL ? crowd__gpu_pose_reserve(r, error) : CROWD_OK;
    }
    GLuint buffer = 0;
    uint64_t bytes = 0;
    result = crowd__gpu_buffer_create(&r->gpu_memory_bytes, &buffer, &bytes,
                                      (uint64_t)capacity * sizeof(gpu_instance_record), NULL,
                                      GL_DYNAMIC_STORAGE_BIT, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (r->instances.buffer != 0 && r->instances.count > 0) {
        glCopyNamedBufferSubData(r->instances.buffer, buffer, 0, 0,
                                 (GLsizeiptr)(r->instances.count * sizeof(gpu_instance_record)));
    }
    uint64_t old_bytes = (uint64_t)r->instances.capacity * sizeof(gpu_instance_record);
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->instances.buffer, &old_bytes);
    r->instances.buffer = buffer;
    r->instances.capacity = capacity;
    if (r->source != NULL) {
        result = crowd__gpu_pose_reserve(r, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return crowd__gpu_check(error, "growing the instance buffer");
}

crowd_result crowd__gpu_instances_init(gpu_archetype *r, crowd_error *error) {
    r->instances.fade_end_s = -INFINITY;
    return reserve(r, initial_capacity(r), error);
}

bool crowd__gpu_crossfade_running(const gpu_archetype *r, float now_s) {
    /* Side-table entries exist only under the same rule (record_pack.c),
     * so every extended record draws with the CROSSFADE build. */
    return (double)now_s < r->instances.fade_end_s || r->blends.partnered > 0;
}

/* A fade from start_s over duration_s has weight exactly 1 from the first
 * float time t with t - start_s >= duration_s in float arithmetic (see
 * fade_weight in crowd.vert.glsl). Any t >= start_s + duration_s (the real
 * sum) qualifies, as rounding cannot take the difference below the float
 * duration_s; the double sum rounds to nearest, one step up makes it an
 * upper bound. */
static void note_fade_end(gpu_archetype *r, double start_s, float duration_s) {
    double end = nextafter(start_s + (double)duration_s, INFINITY);
    r->instances.fade_end_s = end > r->instances.fade_end_s ? end : r->instances.fade_end_s;
}

void crowd__gpu_instances_release(gpu_archetype *r) {
    uint64_t bytes = (uint64_t)r->instances.capacity * sizeof(gpu_instance_record);
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->instances.buffer, &bytes);
    crowd__mem_free(&r->world->allocator, r->instances.states);
    crowd__mem_free(&r->world->allocator, r->instances.records);
    crowd__gpu_side_release(r);
    crowd__mem_free(&r->world->allocator, r->instances.slot_handle);
    crowd__gpu_events_release(r);
    crowd__gpu_poses_release(r);
    crowd__gpu_blends_release(r);
    r->instances.states = NULL;
    r->instances.records = NULL;
    r->instances.slot_handle = NULL;
    r->instances.capacity = r->instances.count = 0;
}

void crowd__gpu_instance_write(gpu_archetype *r, uint32_t slot) {
    crowd__gpu_record_pack(r, slot);
    crowd__gpu_cull_block_changed(r, slot);
    if (r->world->portable) {
        return; /* the CPU copy is what the next pass streams */
    }
    glNamedBufferSubData(r->instances.buffer, (GLintptr)(slot * sizeof(gpu_instance_record)),
                         sizeof(gpu_instance_record), &r->instances.records[slot]);
    r->world->pending_upload_bytes += sizeof(gpu_instance_record);
}

static bool finite_all(const float *values, int count) {
    for (int i = 0; i < count; i++) {
        if (!isfinite(values[i])) {
            return false;
        }
    }
    return true;
}

static crowd_result check_clip(const gpu_archetype *r, uint32_t clip, crowd_error *error) {
    if (clip >= r->clip_count && !(r->clip_count == 0 && clip == 0)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "clip %u out of range (%u clips)", (unsigned)clip,
                               (unsigned)r->clip_count);
    }
    return CROWD_OK;
}

static const gpu_clip *clip_of(const gpu_archetype *r, uint32_t clip) {
    return clip < r->clip_count ? &r->clips[clip] : NULL;
}

/* Sets the record's clip with what the shaders need of it: baked frames,
 * duration and whether it loops (zeros for an asset without clips). */
void crowd__gpu_record_set_clip(const gpu_archetype *r, gpu_instance_state *rec, uint32_t clip) {
    const gpu_clip *c = clip_of(r, clip);
    float fps = c != NULL ? c->fps : 0.0f;
    rec->clip = clip;
    rec->frames = c != NULL ? gpu_frames(c->first_frame, c->frame_count) : 0;
    memcpy(&rec->fps_bits, &fps, sizeof fps);
    rec->duration_s = c != NULL ? c->duration_s : 0.0f;
    rec->flags &= ~(GPU_FLAG_CLIP_LOOPS | GPU_FLAG_LAYOUT_MASK << GPU_FLAG_LAYOUT_SHIFT);
    rec->flags |= c != NULL && c->loop ? GPU_FLAG_CLIP_LOOPS : 0u;
    rec->flags |= (c != NULL ? (uint32_t)c->layout : 0u) << GPU_FLAG_LAYOUT_SHIFT;
}

static crowd_result record_from_desc(const gpu_archetype *r, const crowd_instance_desc *desc,
                                     gpu_instance_state *out, crowd_error *error) {
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
    out->cos_heading = cosf(desc->heading_rad);
    out->sin_heading = sinf(desc->heading_rad);
    bool no_tint = desc->tint[0] == 0.0f && desc->tint[1] == 0.0f && desc->tint[2] == 0.0f &&
                   desc->tint[3] == 0.0f;
    for (int c = 0; c < 4; c++) {
        out->tint[c] = no_tint ? 1.0f : desc->tint[c];
    }
    out->scale = desc->scale == 0.0f ? 1.0f : desc->scale;
    out->flags = (uint32_t)desc->loop;
    crowd__gpu_record_set_clip(r, out, desc->clip);
    out->start_s = r->world->clock_s;
    out->offset_s = desc->time_offset_s;
    out->speed = desc->paused ? 0.0f : (desc->speed == 0.0f ? 1.0f : desc->speed);
    return CROWD_OK;
}

crowd_result crowd__gpu_instance_add(gpu_archetype *r, const crowd_instance_desc *desc,
                                     uint32_t handle_index, uint32_t handle, uint32_t *out_slot,
                                     crowd_error *error) {
    gpu_instance_state record;
    crowd_result result = record_from_desc(r, desc, &record, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (r->instances.count == r->instances.capacity) {
        uint32_t capacity = r->instances.capacity * 2;
        capacity = capacity < r->world->max_instances ? capacity : r->world->max_instances;
        result = reserve(r, capacity, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    uint32_t slot = r->instances.count++;
    record.handle = handle;
    r->instances.slot_handle[slot] = handle_index;
    r->instances.states[slot] = record;
    if (r->source != NULL) {
        crowd__gpu_pose_reset_cursor(r, slot, 0);
        crowd__gpu_pose_reset_cursor(r, slot, 1);
    }
    r->events.clocks[slot].listed = UINT32_MAX;
    r->poses.slot_entry[slot] = UINT32_MAX;
    crowd__gpu_blends_slot_init(r, slot, record.speed);
    crowd__gpu_events_start(r, slot, GPU_EVENT_START_CLIP);
    crowd__gpu_instance_write(r, slot);
    *out_slot = slot;
    return CROWD_OK;
}

crowd_result crowd__gpu_instance_update(gpu_archetype *r, uint32_t slot,
                                        const crowd_instance_desc *desc, crowd_error *error) {
    gpu_instance_state record;
    crowd_result result = record_from_desc(r, desc, &record, error);
    if (result == CROWD_OK) {
        result = crowd__gpu_events_settle(r, slot, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    crowd__gpu_poses_end(r, slot); /* a new state: its clip plays */
    if (r->source != NULL && record.clip != r->instances.states[slot].clip) {
        crowd__gpu_pose_reset_cursor(r, slot, 0);
    }
    record.handle = r->instances.states[slot].handle;
    /* A new state, the same props. */
    record.flags |= r->instances.states[slot].flags & GPU_FLAG_PROPS_MASK;
    r->instances.states[slot] = record;
    crowd__gpu_blends_slot_clip(r, slot, record.speed);
    crowd__gpu_events_start(r, slot, GPU_EVENT_START_CLIP);
    crowd__gpu_instance_write(r, slot);
    return CROWD_OK;
}

crowd_result crowd__gpu_instance_set_transform(gpu_archetype *r, uint32_t slot,
                                               const float position[3], float heading_rad,
                                               float scale, crowd_error *error) {
    float scalars[2] = {heading_rad, scale};
    if (position == NULL || !finite_all(position, 3) || !finite_all(scalars, 2) || scale < 0.0f) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "transform values must be finite, scale >= 0");
    }
    gpu_instance_state *rec = &r->instances.states[slot];
    memcpy(rec->position, position, sizeof rec->position);
    rec->heading_rad = heading_rad;
    rec->cos_heading = cosf(heading_rad);
    rec->sin_heading = sinf(heading_rad);
    rec->scale = scale == 0.0f ? 1.0f : scale;
    crowd__gpu_instance_write(r, slot);
    return CROWD_OK;
}

/* Playback time now, folded into the clip so offsets stay small. */
static float current_time(const gpu_archetype *r, uint32_t clip, uint32_t loop_mode, float start_s,
                          float offset_s, float speed) {
    const gpu_clip *c = clip_of(r, clip);
    float now = (float)r->world->clock_s;
    if (c == NULL) {
        return (now - start_s) * speed + offset_s;
    }
    return crowd__gpu_clip_time(c, loop_mode, now, start_s, offset_s, speed);
}

crowd_result crowd__gpu_instance_set_speed(gpu_archetype *r, uint32_t slot, float speed,
                                           crowd_error *error) {
    if (!isfinite(speed)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "speed must be finite");
    }
    crowd_result result = crowd__gpu_events_settle(r, slot, error);
    if (result != CROWD_OK) {
        return result;
    }
    gpu_instance_state *rec = &r->instances.states[slot];
    double now = r->world->clock_s;
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
    crowd__gpu_blends_set_rate(r, slot, speed); /* a blend's clips run at rate * factor */
    crowd__gpu_events_start(r, slot, GPU_EVENT_START_CONTINUE);
    crowd__gpu_instance_write(r, slot);
    return CROWD_OK;
}

crowd_result crowd__gpu_instance_start(gpu_archetype *r, uint32_t slot, uint32_t clip,
                                       float crossfade_s, crowd_error *error) {
    if (!isfinite(crossfade_s) || crossfade_s < 0.0f) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crossfade %g s must be finite and >= 0", (double)crossfade_s);
    }
    crowd_result result = check_clip(r, clip, error);
    if (result == CROWD_OK) {
        result = crowd__gpu_events_settle(r, slot, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    /* The clip shows from now on; a crossfade starts from the clip the
     * instance's clock ran under the pose, not from the pose. */
    crowd__gpu_poses_end(r, slot);
    gpu_instance_state *rec = &r->instances.states[slot];
    uint32_t loop_mode = rec->flags & GPU_FLAG_LOOP_MASK;
    uint32_t props = rec->flags & GPU_FLAG_PROPS_MASK;
    double now = r->world->clock_s;
    if (crossfade_s > 0.0f) {
        /* The pose being left is the current clip's; a fade already running
         * is cut short (its source clip drops out). */
        rec->from_clip = rec->clip;
        rec->from_frames = rec->frames;
        rec->from_fps_bits = rec->fps_bits;
        rec->from_duration_s = rec->duration_s;
        rec->from_start_s = rec->start_s;
        rec->from_offset_s = rec->offset_s;
        rec->from_speed = rec->speed;
        rec->from_partner_weight = rec->partner_weight;
        rec->from_partner_duration_s = rec->partner_duration_s;
        rec->from_partner_frames = rec->partner_frames;
        rec->from_partner_fps_bits = rec->partner_fps_bits;
        rec->fade_start_s = now;
        rec->fade_duration_s = crossfade_s;
        note_fade_end(r, now, crossfade_s);
        uint32_t layout = (rec->flags >> GPU_FLAG_LAYOUT_SHIFT) & GPU_FLAG_LAYOUT_MASK;
        uint32_t partner_layout =
            (rec->flags >> GPU_FLAG_PARTNER_LAYOUT_SHIFT) & GPU_FLAG_LAYOUT_MASK;
        rec->flags = loop_mode | (loop_mode << GPU_FLAG_FROM_LOOP_SHIFT) | GPU_FLAG_FADE |
                     (rec->flags & GPU_FLAG_CLIP_LOOPS ? GPU_FLAG_FROM_CLIP_LOOPS : 0u) |
                     layout << GPU_FLAG_FROM_LAYOUT_SHIFT |
                     partner_layout << GPU_FLAG_FROM_PARTNER_LAYOUT_SHIFT | props;
        crowd__gpu_blends_slot_fade(r, slot);
        if (r->source != NULL) {
            crowd__gpu_pose_move_cursor(r, slot, 0, slot, 1);
        }
    } else {
        rec->flags = loop_mode | props;
        rec->fade_duration_s = 0.0f;
        rec->from_partner_weight = 0.0f;
    }
    /* The new clip alone, at the instance's rate (a blend ran its clips at
     * rate * factor). */
    crowd__gpu_record_clear_partner(rec);
    rec->speed = crowd__gpu_blends_slot(r, slot)->rate;
    crowd__gpu_blends_slot_clip(r, slot, rec->speed);
    crowd__gpu_record_set_clip(r, rec, clip);
    rec->start_s = now;
    rec->offset_s = 0.0f;
    if (r->source != NULL) {
        crowd__gpu_pose_reset_cursor(r, slot, 0);
    }
    crowd__gpu_events_start(r, slot,
                            crossfade_s > 0.0f ? GPU_EVENT_START_FADE : GPU_EVENT_START_CLIP);
    return CROWD_OK;
}

crowd_result crowd__gpu_instance_play(gpu_archetype *r, uint32_t slot, uint32_t clip,
                                      float crossfade_s, crowd_error *error) {
    crowd_result result = crowd__gpu_instance_start(r, slot, clip, crossfade_s, error);
    if (result == CROWD_OK) {
        crowd__gpu_instance_write(r, slot);
    }
    return result;
}

uint32_t crowd__gpu_instance_remove(gpu_archetype *r, uint32_t slot) {
    uint32_t last = r->instances.count - 1;
    uint32_t moved = UINT32_MAX;
    crowd__gpu_side_free(r, slot);
    crowd__gpu_events_remove(r, slot, last);
    crowd__gpu_poses_remove(r, slot, last);
    crowd__gpu_blends_remove(r, slot, last);
    crowd__gpu_props_forget(r, slot);
    if (slot != last) {
        r->instances.states[slot] = r->instances.states[last];
        crowd__gpu_side_move_slot(r, slot, last);
        r->instances.slot_handle[slot] = r->instances.slot_handle[last];
        moved = r->instances.slot_handle[slot];
        if (r->source != NULL) {
            crowd__gpu_pose_move_cursor(r, last, 0, slot, 0);
            crowd__gpu_pose_move_cursor(r, last, 1, slot, 1);
        }
        crowd__gpu_instance_write(r, slot);
    }
    r->instances.count = last;
    if (last == 0) {
        r->instances.fade_end_s = -INFINITY;
    }
    return moved;
}

void crowd__gpu_instances_clear(gpu_archetype *r) {
    for (uint32_t slot = 0; slot < r->instances.count; slot++) {
        r->instances.side.slot_entry[slot] = UINT32_MAX;
    }
    r->instances.side.count = 0;
    r->instances.count = 0;
    crowd__gpu_props_forget_all(r);
    crowd__gpu_events_clear(r);
    crowd__gpu_poses_clear(r);
    crowd__gpu_blends_clear(r);
    r->instances.fade_end_s = -INFINITY;
}

void crowd__gpu_instances_grow_bounds(const gpu_archetype *r, float min[3], float max[3]) {
    for (uint32_t slot = 0; slot < r->instances.count; slot++) {
        const gpu_instance_state *rec = &r->instances.states[slot];
        float c = rec->cos_heading, s = rec->sin_heading;
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
}
