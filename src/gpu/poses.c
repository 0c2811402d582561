/* The game's own poses (crowd/gpu.h, "The game's own poses"): an instance
 * of a cpu or gpu archetype shows a pose the caller computed (IK, ragdoll,
 * procedural) instead of its clip. The pose is stored as the model matrices
 * crowd__gpu_pose_palette would have made from a sampled pose
 * (crowd_anim_local_to_model of it), so both modes, both tiers and the
 * joint queries take it from the one place they take a clip's pose from,
 * and a caller's copy of a sampled pose draws the very same bits.
 *
 * Storage grows with the posed instances only: a pool of entries, one per
 * posed instance, indexed from the slot (gpu_poses in internal.h). */
#include <math.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

/* A caller's rotation whose squared length is this close to 1 is used as
 * it is: a sampled pose's are normalized to float rounding (and file keys
 * to a few digits), and normalizing again would change their bits. Further
 * off, it is normalized; shorter than POSE_MIN_LENGTH2 it has no direction. */
#define POSE_UNIT_TOLERANCE 1e-4f
#define POSE_MIN_LENGTH2 1e-12f
/* How far a model matrix's fourth row may be from (0 0 0 1). */
#define POSE_AFFINE_TOLERANCE 1e-5f

static crowd_result oom(crowd_error *error) {
    return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}

static uint32_t joint_count(const gpu_archetype *r) {
    return r->source->skeleton.joint_count;
}

static float *entry_models(const gpu_archetype *r, uint32_t entry) {
    return r->poses.models + (size_t)entry * 16 * joint_count(r);
}

crowd_result crowd__gpu_poses_reserve(gpu_archetype *r, uint32_t capacity, crowd_error *error) {
    void *p = crowd__mem_grow(&r->world->allocator, r->poses.slot_entry,
                              r->instances.capacity * sizeof *r->poses.slot_entry,
                              capacity * sizeof *r->poses.slot_entry);
    if (p == NULL) {
        return oom(error);
    }
    r->poses.slot_entry = p;
    return CROWD_OK;
}

void crowd__gpu_poses_release(gpu_archetype *r) {
    const crowd_allocator *allocator = &r->world->allocator;
    crowd__mem_free(allocator, r->poses.slot_entry);
    crowd__mem_free(allocator, r->poses.entry_slot);
    crowd__mem_free(allocator, r->poses.models);
    crowd__mem_free(allocator, r->poses.scratch);
    memset(&r->poses, 0, sizeof r->poses);
}

const float *crowd__gpu_poses_models(const gpu_archetype *r, uint32_t slot) {
    uint32_t entry = r->poses.slot_entry[slot];
    return entry != UINT32_MAX ? entry_models(r, entry) : NULL;
}

/* Frees `entry`: the pool's last entry moves into it. */
static void free_entry(gpu_archetype *r, uint32_t entry) {
    uint32_t last = --r->poses.count;
    if (entry != last) {
        memcpy(entry_models(r, entry), entry_models(r, last), 16 * sizeof(float) * joint_count(r));
        uint32_t moved_slot = r->poses.entry_slot[last];
        r->poses.entry_slot[entry] = moved_slot;
        r->poses.slot_entry[moved_slot] = entry;
    }
}

void crowd__gpu_poses_end(gpu_archetype *r, uint32_t slot) {
    uint32_t entry = r->poses.slot_entry[slot];
    if (entry == UINT32_MAX) {
        return;
    }
    free_entry(r, entry);
    r->poses.slot_entry[slot] = UINT32_MAX;
    /* The clip was running all along: it fires from the clock on. */
    crowd__gpu_events_start(r, slot, GPU_EVENT_START_CONTINUE);
}

void crowd__gpu_poses_remove(gpu_archetype *r, uint32_t slot, uint32_t last) {
    uint32_t gone = r->poses.slot_entry[slot];
    if (gone != UINT32_MAX) {
        free_entry(r, gone);
    }
    if (slot != last) {
        uint32_t entry = r->poses.slot_entry[last];
        r->poses.slot_entry[slot] = entry;
        if (entry != UINT32_MAX) {
            r->poses.entry_slot[entry] = slot;
        }
    }
}

void crowd__gpu_poses_clear(gpu_archetype *r) {
    r->poses.count = 0;
}

/* Room for one more entry, and the normalizing scratch (there once any
 * entry was taken). */
static crowd_result reserve_entry(gpu_archetype *r, crowd_error *error) {
    const crowd_allocator *allocator = &r->world->allocator;
    size_t joints = joint_count(r);
    if (r->poses.scratch == NULL) {
        r->poses.scratch = crowd__mem_alloc(allocator, joints * sizeof *r->poses.scratch);
        if (r->poses.scratch == NULL) {
            return oom(error);
        }
    }
    if (r->poses.count < r->poses.capacity) {
        return CROWD_OK;
    }
    uint32_t had = r->poses.capacity, capacity = had < 4 ? 4 : 2 * had;
    void *p = crowd__mem_grow(allocator, r->poses.entry_slot, had * sizeof *r->poses.entry_slot,
                              capacity * sizeof *r->poses.entry_slot);
    if (p == NULL) {
        return oom(error);
    }
    r->poses.entry_slot = p;
    size_t per_entry = 16 * joints * sizeof *r->poses.models;
    p = crowd__mem_grow(allocator, r->poses.models, had * per_entry, capacity * per_entry);
    if (p == NULL) {
        return oom(error);
    }
    r->poses.models = p;
    r->poses.capacity = capacity;
    return CROWD_OK;
}

/* Everything but the pose itself: the instance, its mode, the count. */
static crowd_result find_posable(crowd_world *w, crowd_instance instance, const void *pose,
                                 uint32_t count, gpu_archetype **out, uint32_t *out_slot,
                                 crowd_error *error) {
    crowd_result result = crowd__gpu_world_find_instance(w, instance, out, out_slot, error);
    if (result != CROWD_OK) {
        return result;
    }
    gpu_archetype *r = *out;
    if (r->mode != CROWD_GPU_MODE_CPU && r->mode != CROWD_GPU_MODE_GPU) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, r->name,
                               "a caller's pose needs cpu or gpu mode ('%s' draws %s)",
                               crowd_gpu_mode_name(r->mode),
                               r->mode == CROWD_GPU_MODE_STATIC ? "the bind pose" : "baked frames");
    }
    if (pose == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name, "pose is NULL");
    }
    if (count != joint_count(r)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "a pose of %u joints for a skeleton of %u", (unsigned)count,
                               (unsigned)joint_count(r));
    }
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

static crowd_result check_local(const gpu_archetype *r, const crowd_transform *pose,
                                crowd_error *error) {
    for (uint32_t j = 0; j < joint_count(r); j++) {
        const crowd_transform *t = &pose[j];
        if (!finite_all(t->translation, 3) || !finite_all(t->rotation, 4) ||
            !finite_all(t->scale, 3)) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                   "pose joint %u: a value that is not finite", (unsigned)j);
        }
        const float *q = t->rotation;
        if (!(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] >= POSE_MIN_LENGTH2)) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                   "pose joint %u: a rotation of length 0", (unsigned)j);
        }
    }
    return CROWD_OK;
}

static crowd_result check_models(const gpu_archetype *r, const float *models, crowd_error *error) {
    for (uint32_t j = 0; j < joint_count(r); j++) {
        const float *m = models + 16 * (size_t)j;
        if (!finite_all(m, 16)) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                   "pose joint %u: a value that is not finite", (unsigned)j);
        }
        if (fabsf(m[3]) > POSE_AFFINE_TOLERANCE || fabsf(m[7]) > POSE_AFFINE_TOLERANCE ||
            fabsf(m[11]) > POSE_AFFINE_TOLERANCE || fabsf(m[15] - 1.0f) > POSE_AFFINE_TOLERANCE) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                   "pose joint %u: not affine (fourth row is not 0 0 0 1)",
                                   (unsigned)j);
        }
    }
    return CROWD_OK;
}

/* The slot's entry, made if it had none: the pool has room, and the
 * events its clip passed up to now are taken before it stops firing. */
static crowd_result take_entry(gpu_archetype *r, uint32_t slot, uint32_t *out_entry,
                               crowd_error *error) {
    if (r->poses.slot_entry[slot] != UINT32_MAX) {
        *out_entry = r->poses.slot_entry[slot];
        return CROWD_OK;
    }
    crowd_result result = reserve_entry(r, error);
    if (result == CROWD_OK) {
        result = crowd__gpu_events_settle(r, slot, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    uint32_t entry = r->poses.count++;
    r->poses.entry_slot[entry] = slot;
    r->poses.slot_entry[slot] = entry;
    crowd__gpu_events_pose(r, slot);
    *out_entry = entry;
    return CROWD_OK;
}

crowd_result crowd_instance_set_pose(crowd_world *w, crowd_instance instance,
                                     const crowd_transform *local_pose, uint32_t joint_count,
                                     crowd_error *error) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0, entry = 0;
    crowd_result result = find_posable(w, instance, local_pose, joint_count, &r, &slot, error);
    if (result == CROWD_OK) {
        result = check_local(r, local_pose, error);
    }
    if (result == CROWD_OK) {
        result = take_entry(r, slot, &entry, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    crowd_transform *pose = r->poses.scratch;
    memcpy(pose, local_pose, joint_count * sizeof *pose);
    for (uint32_t j = 0; j < joint_count; j++) {
        float *q = pose[j].rotation;
        float length2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        if (fabsf(length2 - 1.0f) > POSE_UNIT_TOLERANCE) {
            float inverse = 1.0f / sqrtf(length2);
            for (int i = 0; i < 4; i++) {
                q[i] *= inverse;
            }
        }
    }
    crowd_anim_local_to_model(&r->source->skeleton, pose, entry_models(r, entry));
    return CROWD_OK;
}

crowd_result crowd_instance_set_pose_models(crowd_world *w, crowd_instance instance,
                                            const float *models, uint32_t joint_count,
                                            crowd_error *error) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0, entry = 0;
    crowd_result result = find_posable(w, instance, models, joint_count, &r, &slot, error);
    if (result == CROWD_OK) {
        result = check_models(r, models, error);
    }
    if (result == CROWD_OK) {
        result = take_entry(r, slot, &entry, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    float *stored = entry_models(r, entry);
    memcpy(stored, models, 16 * sizeof *stored * joint_count);
    for (uint32_t j = 0; j < joint_count; j++) {
        /* Exactly affine, as crowd_anim_local_to_model makes them: the
         * skinning matrices' rows read the fourth row too. */
        float *m = stored + 16 * (size_t)j;
        m[3] = m[7] = m[11] = 0.0f;
        m[15] = 1.0f;
    }
    return CROWD_OK;
}

crowd_result crowd_instance_clear_pose(crowd_world *w, crowd_instance instance,
                                       crowd_error *error) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0;
    crowd_result result = crowd__gpu_world_find_instance(w, instance, &r, &slot, error);
    if (result == CROWD_OK) {
        crowd__gpu_poses_end(r, slot);
    }
    return result;
}

bool crowd_instance_has_pose(const crowd_world *w, crowd_instance instance) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0;
    return crowd__gpu_world_find_instance(w, instance, &r, &slot, NULL) == CROWD_OK &&
           r->poses.slot_entry[slot] != UINT32_MAX;
}
