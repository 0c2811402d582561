/* Instance handles: an index into the world's handle table plus a
 * generation, so a stale handle is refused; the table maps an index to its
 * archetype and slot. The records themselves are the archetype's
 * (instances.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

#define INDEX_BITS 22u
#define INDEX_MASK ((1u << INDEX_BITS) - 1u)
#define GENERATION_LIMIT (1u << (32u - INDEX_BITS))
#define ARCHETYPE_INDEX_MASK 0xffu

static crowd_result oom(crowd_error *error) {
    return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}

/* One per-handle array grown from the world's handle_capacity to
 * `capacity` entries of `size` bytes, or NULL (the array as it was). */
static void *grown(crowd_world *w, void *array, size_t size, uint32_t capacity) {
    return crowd__mem_grow(&w->allocator, array, w->handle_capacity * size, capacity * size);
}

static crowd_result reserve_handles(crowd_world *w, uint32_t capacity, crowd_error *error) {
    /* handle_capacity only moves once every array has grown. */
    void *p;
    if ((p = grown(w, w->handle_archetype, sizeof *w->handle_archetype, capacity)) == NULL) {
        return oom(error);
    }
    w->handle_archetype = p;
    if ((p = grown(w, w->handle_slot, sizeof *w->handle_slot, capacity)) == NULL) {
        return oom(error);
    }
    w->handle_slot = p;
    if ((p = grown(w, w->handle_generation, sizeof *w->handle_generation, capacity)) == NULL) {
        return oom(error);
    }
    w->handle_generation = p;
    if ((p = grown(w, w->free_handles, sizeof *w->free_handles, capacity)) == NULL) {
        return oom(error);
    }
    w->free_handles = p;
    w->handle_capacity = capacity;
    return CROWD_OK;
}

crowd_result crowd__gpu_world_find_instance(const crowd_world *w, crowd_instance instance,
                                            gpu_archetype **archetype, uint32_t *slot,
                                            crowd_error *error) {
    if (w == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "world is NULL");
    }
    uint32_t index = instance.id & INDEX_MASK;
    uint32_t generation = instance.id >> INDEX_BITS;
    if (instance.id == 0 || index >= w->handle_count || w->handle_archetype[index] == UINT32_MAX ||
        w->handle_generation[index] != generation) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "instance %u does not exist", (unsigned)instance.id);
    }
    *archetype = w->archetypes[w->handle_archetype[index]];
    *slot = w->handle_slot[index];
    return CROWD_OK;
}

static void release_handle(crowd_world *w, uint32_t index) {
    w->handle_archetype[index] = UINT32_MAX;
    uint32_t generation = w->handle_generation[index] + 1u;
    w->handle_generation[index] = (uint16_t)(generation < GENERATION_LIMIT ? generation : 1u);
    w->free_handles[w->free_handle_count++] = index;
    w->instance_count--;
}

void crowd__gpu_world_release_handles(crowd_world *w, gpu_archetype *a) {
    for (uint32_t slot = 0; slot < a->instances.count; slot++) {
        release_handle(w, a->instances.slot_handle[slot]);
    }
    crowd__gpu_instances_clear(a);
}

crowd_result crowd_world_add_instance(crowd_world *w, crowd_archetype archetype,
                                      const crowd_instance_desc *desc, crowd_instance *out_instance,
                                      crowd_error *error) {
    if (out_instance == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "out_instance is NULL");
    }
    out_instance->id = 0;
    gpu_archetype *a;
    crowd_result result = crowd__gpu_world_find_archetype(w, archetype, &a, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (w->instance_count >= w->max_instances) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL,
                               "instance limit of %u reached (crowd_world_desc.max_instances)",
                               (unsigned)w->max_instances);
    }
    if (w->free_handle_count == 0 && w->handle_count == w->handle_capacity) {
        uint32_t capacity = w->handle_capacity < 64 ? 64 : 2 * w->handle_capacity;
        result =
            reserve_handles(w, capacity < w->max_instances ? capacity : w->max_instances, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    uint32_t index =
        w->free_handle_count > 0 ? w->free_handles[w->free_handle_count - 1] : w->handle_count;
    uint32_t generation = index < w->handle_count ? w->handle_generation[index] : 1u;
    uint32_t handle = index | (generation << INDEX_BITS);
    uint32_t slot = 0;
    result = crowd__gpu_instance_add(a, desc, index, handle, &slot, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (index == w->handle_count) {
        w->handle_count++;
        w->handle_generation[index] = (uint16_t)generation;
    } else {
        w->free_handle_count--;
    }
    w->handle_archetype[index] = (a->handle & ARCHETYPE_INDEX_MASK) - 1u;
    w->handle_slot[index] = slot;
    w->instance_count++;
    out_instance->id = handle;
    return CROWD_OK;
}

crowd_result crowd_instance_update(crowd_world *w, crowd_instance instance,
                                   const crowd_instance_desc *desc, crowd_error *error) {
    gpu_archetype *a = NULL;
    uint32_t slot = 0;
    crowd_result result = crowd__gpu_world_find_instance(w, instance, &a, &slot, error);
    return result != CROWD_OK ? result : crowd__gpu_instance_update(a, slot, desc, error);
}

crowd_result crowd_instance_set_transform(crowd_world *w, crowd_instance instance,
                                          const float position[3], float heading_rad, float scale,
                                          crowd_error *error) {
    gpu_archetype *a = NULL;
    uint32_t slot = 0;
    crowd_result result = crowd__gpu_world_find_instance(w, instance, &a, &slot, error);
    return result != CROWD_OK
               ? result
               : crowd__gpu_instance_set_transform(a, slot, position, heading_rad, scale, error);
}

crowd_result crowd_instance_set_speed(crowd_world *w, crowd_instance instance, float speed,
                                      crowd_error *error) {
    gpu_archetype *a = NULL;
    uint32_t slot = 0;
    crowd_result result = crowd__gpu_world_find_instance(w, instance, &a, &slot, error);
    return result != CROWD_OK ? result : crowd__gpu_instance_set_speed(a, slot, speed, error);
}

crowd_result crowd_instance_play(crowd_world *w, crowd_instance instance, uint32_t clip,
                                 float crossfade_s, crowd_error *error) {
    gpu_archetype *a = NULL;
    uint32_t slot = 0;
    crowd_result result = crowd__gpu_world_find_instance(w, instance, &a, &slot, error);
    return result != CROWD_OK ? result
                              : crowd__gpu_instance_play(a, slot, clip, crossfade_s, error);
}

crowd_result crowd_world_remove_instance(crowd_world *w, crowd_instance instance,
                                         crowd_error *error) {
    gpu_archetype *a = NULL;
    uint32_t slot = 0;
    crowd_result result = crowd__gpu_world_find_instance(w, instance, &a, &slot, error);
    if (result != CROWD_OK) {
        return result;
    }
    release_handle(w, instance.id & INDEX_MASK);
    uint32_t moved = crowd__gpu_instance_remove(a, slot);
    if (moved != UINT32_MAX) {
        w->handle_slot[moved] = slot;
    }
    return CROWD_OK;
}

crowd_archetype crowd_instance_archetype(const crowd_world *w, crowd_instance instance) {
    gpu_archetype *a = NULL;
    uint32_t slot = 0;
    crowd_archetype none = {0};
    return crowd__gpu_world_find_instance(w, instance, &a, &slot, NULL) == CROWD_OK
               ? (crowd_archetype){a->handle}
               : none;
}

void crowd_world_clear_instances(crowd_world *w) {
    for (uint32_t i = 0; w != NULL && i < CROWD_WORLD_MAX_ARCHETYPES; i++) {
        if (w->archetypes[i] != NULL) {
            crowd__gpu_world_release_handles(w, w->archetypes[i]);
        }
    }
}

uint32_t crowd_world_instance_count(const crowd_world *w) {
    return w != NULL ? w->instance_count : 0;
}

bool crowd_world_instance_bounds(const crowd_world *w, float min[3], float max[3]) {
    if (w == NULL || w->instance_count == 0) {
        return false;
    }
    for (int a = 0; a < 3; a++) {
        min[a] = INFINITY;
        max[a] = -INFINITY;
    }
    for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES; i++) {
        if (w->archetypes[i] != NULL) {
            crowd__gpu_instances_grow_bounds(w->archetypes[i], min, max);
        }
    }
    return true;
}
