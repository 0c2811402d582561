/* The CPU side of playback: the clip-time rule (crowd/anim.h) as an
 * instance's loop mode picks it, and the
 * per-character work of the cpu and gpu modes (sample, crossfade-blend,
 * local-to-model, skinning matrices, and for cpu mode the skinning itself),
 * with per-instance animation cursors so forward playback stays O(1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"
#include "skin/prepared.h"

bool crowd__gpu_clip_loops(const gpu_clip *clip, uint32_t loop_mode) {
    return loop_mode == CROWD_LOOP_CLIP ? clip->loop : loop_mode == CROWD_LOOP_ON;
}

float crowd__gpu_clip_time(const gpu_clip *clip, uint32_t loop_mode, float now_s, float start_s,
                           float offset_s, float speed) {
    return crowd_anim_play_time(now_s, start_s, offset_s, speed, clip->duration_s,
                                crowd__gpu_clip_loops(clip, loop_mode));
}

/* As fade_weight in crowd.vert.glsl: exactly 1 from the fade's end on. */
float crowd__gpu_fade_weight(const gpu_instance_state *record, float now_s) {
    float elapsed = now_s - record->fade_start_s;
    if (!(record->flags & GPU_FLAG_FADE) || !(record->fade_duration_s > 0.0f) ||
        elapsed >= record->fade_duration_s) {
        return 1.0f;
    }
    float w = elapsed / record->fade_duration_s;
    return w < 0.0f ? 0.0f : (w > 1.0f ? 1.0f : w);
}

static uint32_t keys_per_cursor(const gpu_archetype *r) {
    return crowd_anim_cursor_size(&r->source->skeleton);
}

crowd_result crowd__gpu_pose_reserve(gpu_archetype *r, crowd_error *error) {
    const crowd_skeleton *skeleton = &r->source->skeleton;
    uint32_t joints = skeleton->joint_count;
    uint32_t per_cursor = keys_per_cursor(r);
    const crowd_allocator *allocator = &r->world->allocator;
    size_t cursors = 2 * (size_t)r->instances.capacity,
           had = 2 * (size_t)r->playback.cursor_capacity;
    void *p = crowd__mem_grow(allocator, r->playback.cursors, had * sizeof *r->playback.cursors,
                              cursors * sizeof *r->playback.cursors);
    if (p == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    r->playback.cursors = p;
    p = crowd__mem_grow(allocator, r->playback.cursor_keys,
                        had * per_cursor * sizeof *r->playback.cursor_keys,
                        cursors * per_cursor * sizeof *r->playback.cursor_keys);
    if (p == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    r->playback.cursor_keys = p;
    r->playback.cursor_capacity = r->instances.capacity;
    for (size_t c = 0; c < cursors; c++) {
        r->playback.cursors[c].keys = r->playback.cursor_keys + c * per_cursor;
        r->playback.cursors[c].key_count = per_cursor;
    }
    if (r->playback.pose == NULL) {
        r->playback.pose = crowd__mem_alloc(allocator, joints * sizeof *r->playback.pose);
        r->playback.from_pose = crowd__mem_alloc(allocator, joints * sizeof *r->playback.from_pose);
        r->playback.partner_pose =
            crowd__mem_alloc(allocator, joints * sizeof *r->playback.partner_pose);
        r->playback.models =
            crowd__mem_alloc(allocator, (size_t)joints * 16 * sizeof *r->playback.models);
        r->playback.palette =
            crowd__mem_alloc(allocator, (size_t)joints * 12 * sizeof *r->playback.palette);
        if (r->playback.pose == NULL || r->playback.from_pose == NULL ||
            r->playback.partner_pose == NULL || r->playback.models == NULL ||
            r->playback.palette == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    return CROWD_OK;
}

void crowd__gpu_pose_release(gpu_archetype *r) {
    const crowd_allocator *allocator = &r->world->allocator;
    crowd__mem_free(allocator, r->playback.cursors);
    crowd__mem_free(allocator, r->playback.cursor_keys);
    crowd__mem_free(allocator, r->playback.pose);
    crowd__mem_free(allocator, r->playback.from_pose);
    crowd__mem_free(allocator, r->playback.partner_pose);
    crowd__mem_free(allocator, r->playback.models);
    crowd__mem_free(allocator, r->playback.palette);
    crowd_skin_prepared_destroy(r->playback.skin_prepared);
    r->playback.skin_prepared = NULL;
    r->playback.cursors = NULL;
    r->playback.cursor_keys = NULL;
    r->playback.cursor_capacity = 0;
    r->playback.pose = r->playback.from_pose = r->playback.partner_pose = NULL;
    r->playback.models = r->playback.palette = NULL;
}

void crowd__gpu_pose_reset_cursor(gpu_archetype *r, uint32_t slot, uint32_t which) {
    crowd_anim_cursor_reset(&r->playback.cursors[2 * slot + which]);
}

void crowd__gpu_pose_move_cursor(gpu_archetype *r, uint32_t from_slot, uint32_t from_which,
                                 uint32_t to_slot, uint32_t to_which) {
    crowd_anim_cursor *from = &r->playback.cursors[2 * from_slot + from_which];
    crowd_anim_cursor *to = &r->playback.cursors[2 * to_slot + to_which];
    memcpy(to->keys, from->keys, keys_per_cursor(r) * sizeof *to->keys);
    to->clip = from->clip;
}

/* Samples the source clip behind renderer clip `clip` at playback time, or
 * the rest pose when there is none. */
static void sample(const gpu_archetype *r, uint32_t clip, uint32_t loop_mode, float now_s,
                   float start_s, float offset_s, float speed, crowd_anim_cursor *cursor,
                   crowd_transform *out) {
    const crowd_skeleton *skeleton = &r->source->skeleton;
    if (clip >= r->clip_count || r->clips[clip].source_clip >= r->source->clip_count) {
        crowd_anim_rest_pose(skeleton, out);
        return;
    }
    const gpu_clip *c = &r->clips[clip];
    const crowd_clip *source = &r->source->clips[c->source_clip];
    float t = crowd__gpu_clip_time(c, loop_mode, now_s, start_s, offset_s, speed);
    crowd_anim_sample(skeleton, source, t, cursor, out);
}

/* Mixes into `pose` the blend partner `partner_clip` (UINT32_MAX: none)
 * of the clip sampled at clip time t of duration d, at the same phase
 * (t / d of its own duration), with weight w: local poses, the reference
 * bat and vat approximate. Sampled without a cursor (a binary search per
 * track, which finds the same keys). */
static void mix_partner(const gpu_archetype *r, uint32_t partner_clip, float w, float t, float d,
                        crowd_transform *partner_pose, crowd_transform *pose) {
    if (partner_clip >= r->clip_count || !(w > 0.0f) || partner_pose == NULL) {
        return;
    }
    const gpu_clip *p = &r->clips[partner_clip];
    float partner_t = d > 0.0f ? t / d * p->duration_s : 0.0f;
    if (p->source_clip < r->source->clip_count) {
        crowd_anim_sample(&r->source->skeleton, &r->source->clips[p->source_clip], partner_t, NULL,
                          partner_pose);
    } else {
        crowd_anim_rest_pose(&r->source->skeleton, partner_pose);
    }
    const crowd_transform *poses[2] = {pose, partner_pose};
    const float weights[2] = {1.0f - w, w};
    crowd_anim_blend(&r->source->skeleton, poses, weights, 2, pose);
}

/* The clip time of clip `clip` in the record's loop mode (0 when none). */
static float time_of(const gpu_archetype *r, uint32_t clip, uint32_t loop_mode, float now_s,
                     float start_s, float offset_s, float speed) {
    return clip < r->clip_count
               ? crowd__gpu_clip_time(&r->clips[clip], loop_mode, now_s, start_s, offset_s, speed)
               : 0.0f;
}

void crowd__gpu_pose_models(const gpu_archetype *r, const gpu_instance_state *rec, float now_s,
                            const gpu_blend_slot *blend, crowd_anim_cursor *cursors,
                            crowd_transform *pose, crowd_transform *from_pose,
                            crowd_transform *partner_pose, float *out_models) {
    const crowd_skeleton *skeleton = &r->source->skeleton;
    uint32_t loop_mode = rec->flags & GPU_FLAG_LOOP_MASK;
    sample(r, rec->clip, loop_mode, now_s, rec->start_s, rec->offset_s, rec->speed,
           cursors != NULL ? &cursors[0] : NULL, pose);
    if (blend != NULL) {
        float t = time_of(r, rec->clip, loop_mode, now_s, rec->start_s, rec->offset_s, rec->speed);
        mix_partner(r, blend->partner_clip, rec->partner_weight, t, rec->duration_s, partner_pose,
                    pose);
    }
    float w = crowd__gpu_fade_weight(rec, now_s);
    if (w < 1.0f) {
        uint32_t from_loop = (rec->flags >> GPU_FLAG_FROM_LOOP_SHIFT) & GPU_FLAG_LOOP_MASK;
        sample(r, rec->from_clip, from_loop, now_s, rec->from_start_s, rec->from_offset_s,
               rec->from_speed, cursors != NULL ? &cursors[1] : NULL, from_pose);
        if (blend != NULL) {
            float t = time_of(r, rec->from_clip, from_loop, now_s, rec->from_start_s,
                              rec->from_offset_s, rec->from_speed);
            mix_partner(r, blend->from_partner_clip, rec->from_partner_weight, t,
                        rec->from_duration_s, partner_pose, from_pose);
        }
        const crowd_transform *poses[2] = {pose, from_pose};
        const float weights[2] = {w, 1.0f - w};
        crowd_anim_blend(skeleton, poses, weights, 2, pose);
    }
    crowd_anim_local_to_model(skeleton, pose, out_models);
}

void crowd__gpu_pose_palette(gpu_archetype *r, uint32_t slot, float now_s, float *out_palette) {
    const float *posed = crowd__gpu_poses_models(r, slot);
    if (posed != NULL) {
        /* The caller's pose (poses.c), already model matrices. */
        crowd_anim_skin_matrices(&r->source->skeleton, posed, NULL, out_palette);
        return;
    }
    crowd__gpu_pose_models(r, &r->instances.states[slot], now_s, crowd__gpu_blends_slot(r, slot),
                           &r->playback.cursors[2 * slot], r->playback.pose, r->playback.from_pose,
                           r->playback.partner_pose, r->playback.models);
    crowd_anim_skin_matrices(&r->source->skeleton, r->playback.models, NULL, out_palette);
}

crowd_result crowd__gpu_pose_prepare_skinning(gpu_archetype *r, crowd_error *error) {
    if (r->playback.skin_prepared != NULL) {
        return CROWD_OK;
    }
    return crowd__skin_prepared_create(&r->source->mesh, &r->world->allocator,
                                       &r->playback.skin_prepared, error);
}

/* On the calling thread, one character at a time, as a skinned-mesh
 * renderer without worker threads does: the application CPU time of the
 * frame then holds all of it. */
void crowd__gpu_pose_skin(gpu_archetype *r, uint32_t slot, float now_s, float *out) {
    crowd__gpu_pose_palette(r, slot, now_s, r->playback.palette);
    /* Positions of the character and its props, then their normals. */
    float *normals = out + 3 * (size_t)crowd__gpu_skinned_vertices(r);
    crowd_skin_apply(r->playback.skin_prepared, r->playback.palette, out, normals);
    size_t own = 3 * (size_t)r->source->mesh.vertex_count;
    crowd__gpu_props_skin(r, r->playback.palette, out + own, normals + own);
}
