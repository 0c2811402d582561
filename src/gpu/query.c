/* Joint and socket queries (crowd/gpu.h, "joints and sockets"): where a
 * joint or socket of an instance is now, on the CPU. The pose comes from
 * crowd__gpu_pose_models, the path the cpu and gpu modes draw with, fed the
 * instance's record at the world's clock; only the cursors differ (none
 * here: a stateless sample finds the same keys), and the scratch is the
 * query's own, so nothing a mode draws from is touched. No GL call. */
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

/* Where a query reads a joint or a socket: index into the skeleton's
 * joints or the asset's sockets. */
typedef enum query_kind { QUERY_JOINT, QUERY_SOCKET } query_kind;

/* The asset whose skeleton and sockets the archetype answers with: the one
 * it plays (source) or, without clips to play, the one it draws. */
static const crowd_asset *posed_asset(const gpu_archetype *r) {
    return r->source != NULL ? r->source : r->drawn;
}

void crowd__gpu_query_release(gpu_archetype *r) {
    const crowd_allocator *allocator = &r->world->allocator;
    crowd__mem_free(allocator, r->query.pose);
    crowd__mem_free(allocator, r->query.from_pose);
    crowd__mem_free(allocator, r->query.partner_pose);
    crowd__mem_free(allocator, r->query.models);
    r->query = (gpu_query){0};
}

static crowd_result reserve_scratch(gpu_archetype *r, crowd_error *error) {
    if (r->query.models != NULL) {
        return CROWD_OK;
    }
    const crowd_allocator *allocator = &r->world->allocator;
    size_t joints = r->source->skeleton.joint_count;
    r->query.pose = crowd__mem_alloc(allocator, joints * sizeof *r->query.pose);
    r->query.from_pose = crowd__mem_alloc(allocator, joints * sizeof *r->query.from_pose);
    r->query.partner_pose = crowd__mem_alloc(allocator, joints * sizeof *r->query.partner_pose);
    r->query.models = crowd__mem_alloc(allocator, joints * 16 * sizeof *r->query.models);
    if (r->query.pose == NULL || r->query.from_pose == NULL || r->query.partner_pose == NULL ||
        r->query.models == NULL) {
        crowd__gpu_query_release(r);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    }
    return CROWD_OK;
}

/* Everything a query can refuse before it samples: the output, the space,
 * whether there is a pose to sample, the index; then the scratch. */
static crowd_result check_query(gpu_archetype *r, query_kind kind, uint32_t index,
                                crowd_space space, const float *out, crowd_error *error) {
    if (out == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name, "out is NULL");
    }
    if ((unsigned)space > CROWD_SPACE_WORLD) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "unknown space %d (CROWD_SPACE_MODEL or CROWD_SPACE_WORLD)",
                               (int)space);
    }
    if (r->source == NULL) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, r->name,
                               "no clips to sample: joint and socket queries need the source "
                               "asset, or a bake with runtime clips (manifest version 4)");
    }
    const crowd_asset *asset = posed_asset(r);
    uint32_t count = kind == QUERY_JOINT ? asset->skeleton.joint_count : asset->socket_count;
    if (index >= count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "%s %u out of range (%u %s)",
                               kind == QUERY_JOINT ? "joint" : "socket", (unsigned)index,
                               (unsigned)count, kind == QUERY_JOINT ? "joints" : "sockets");
    }
    return reserve_scratch(r, error);
}

/* out = a x b, column-major 4x4, summed in double. */
static void multiply(const float a[16], const float b[16], float out[16]) {
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            double sum = 0.0;
            for (int k = 0; k < 4; k++) {
                sum += (double)a[4 * k + row] * b[4 * c + k];
            }
            out[4 * c + row] = (float)sum;
        }
    }
}

/* The instance transform as crowd.vert.glsl applies it: origin + R_y *
 * (scale * p), from the record's own cosine, sine and scale. */
static void instance_matrix(const gpu_instance_state *rec, float out[16]) {
    float c = rec->cos_heading, s = rec->sin_heading, k = rec->scale;
    memset(out, 0, 16 * sizeof *out);
    out[0] = c * k; /* the columns: R_y's axes scaled, then the position */
    out[2] = -s * k;
    out[5] = k;
    out[8] = s * k;
    out[10] = c * k;
    memcpy(out + 12, rec->position, 3 * sizeof *out);
    out[15] = 1.0f;
}

/* Samples the instance in `slot` and writes the joint's or socket's
 * transform. The checks are done. */
static void answer(gpu_archetype *r, uint32_t slot, query_kind kind, uint32_t index,
                   crowd_space space, float out[16]) {
    const gpu_instance_state *rec = &r->instances.states[slot];
    /* A caller's pose (crowd_instance_set_pose) is what cpu and gpu draw. */
    const float *models = crowd__gpu_poses_models(r, slot);
    if (models == NULL) {
        crowd__gpu_pose_models(r, rec, (float)r->world->clock_s, crowd__gpu_blends_slot(r, slot),
                               NULL, r->query.pose, r->query.from_pose, r->query.partner_pose,
                               r->query.models);
        models = r->query.models;
    }
    float model[16];
    if (kind == QUERY_JOINT) {
        memcpy(model, models + 16 * (size_t)index, sizeof model);
    } else {
        const crowd_socket *socket = &posed_asset(r)->sockets[index];
        multiply(models + 16 * (size_t)socket->joint, socket->offset, model);
    }
    if (space == CROWD_SPACE_MODEL) {
        memcpy(out, model, sizeof model);
        return;
    }
    float placed[16];
    instance_matrix(rec, placed);
    multiply(placed, model, out);
}

static crowd_result query_one(crowd_world *w, crowd_instance instance, query_kind kind,
                              uint32_t index, crowd_space space, float out[16],
                              crowd_error *error) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0;
    crowd_result result = crowd__gpu_world_find_instance(w, instance, &r, &slot, error);
    if (result == CROWD_OK) {
        result = check_query(r, kind, index, space, out, error);
    }
    if (result == CROWD_OK) {
        answer(r, slot, kind, index, space, out);
    }
    return result;
}

static crowd_result query_many(crowd_world *w, crowd_archetype archetype,
                               const crowd_instance *instances, uint32_t count, query_kind kind,
                               uint32_t index, crowd_space space, float *out, crowd_error *error) {
    gpu_archetype *r = NULL;
    crowd_result result = crowd__gpu_world_find_archetype(w, archetype, &r, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (count == 0) {
        /* Only the index is checked: out may be NULL. */
        static const float nothing[16];
        return check_query(r, kind, index, space, nothing, error);
    }
    if (instances == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name, "instances is NULL");
    }
    result = check_query(r, kind, index, space, out, error);
    /* Every handle before anything is written. */
    for (uint32_t i = 0; result == CROWD_OK && i < count; i++) {
        gpu_archetype *of = NULL;
        uint32_t slot = 0;
        result = crowd__gpu_world_find_instance(w, instances[i], &of, &slot, NULL);
        if (result != CROWD_OK || of != r) {
            result = crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                     "instances[%u] (%u) is not a live instance of this archetype",
                                     (unsigned)i, (unsigned)instances[i].id);
        }
    }
    for (uint32_t i = 0; result == CROWD_OK && i < count; i++) {
        gpu_archetype *of = NULL;
        uint32_t slot = 0;
        crowd__gpu_world_find_instance(w, instances[i], &of, &slot, NULL);
        answer(r, slot, kind, index, space, out + 16 * (size_t)i);
    }
    return result;
}

crowd_result crowd_instance_joint_transform(crowd_world *w, crowd_instance instance, uint32_t joint,
                                            crowd_space space, float out[16], crowd_error *error) {
    return query_one(w, instance, QUERY_JOINT, joint, space, out, error);
}

crowd_result crowd_instance_socket_transform(crowd_world *w, crowd_instance instance,
                                             uint32_t socket, crowd_space space, float out[16],
                                             crowd_error *error) {
    return query_one(w, instance, QUERY_SOCKET, socket, space, out, error);
}

crowd_result crowd_archetype_joint_transforms(crowd_world *w, crowd_archetype archetype,
                                              const crowd_instance *instances, uint32_t count,
                                              uint32_t joint, crowd_space space, float *out,
                                              crowd_error *error) {
    return query_many(w, archetype, instances, count, QUERY_JOINT, joint, space, out, error);
}

crowd_result crowd_archetype_socket_transforms(crowd_world *w, crowd_archetype archetype,
                                               const crowd_instance *instances, uint32_t count,
                                               uint32_t socket, crowd_space space, float *out,
                                               crowd_error *error) {
    return query_many(w, archetype, instances, count, QUERY_SOCKET, socket, space, out, error);
}

/* ---- names ----------------------------------------------------------------- */

uint32_t crowd_archetype_joint_count(const crowd_world *w, crowd_archetype archetype) {
    const gpu_archetype *r = crowd__gpu_world_archetype(w, archetype);
    return r != NULL ? posed_asset(r)->skeleton.joint_count : 0;
}

const char *crowd_archetype_joint_name(const crowd_world *w, crowd_archetype archetype,
                                       uint32_t joint) {
    const gpu_archetype *r = crowd__gpu_world_archetype(w, archetype);
    if (r == NULL || joint >= posed_asset(r)->skeleton.joint_count) {
        return "";
    }
    const char *name = posed_asset(r)->skeleton.names[joint];
    return name != NULL ? name : "";
}

bool crowd_archetype_find_joint(const crowd_world *w, crowd_archetype archetype, const char *name,
                                uint32_t *out_joint) {
    const gpu_archetype *r = crowd__gpu_world_archetype(w, archetype);
    if (r == NULL || name == NULL || out_joint == NULL) {
        return false;
    }
    int32_t found = crowd_asset_find_joint(posed_asset(r), name);
    if (found < 0) {
        return false;
    }
    *out_joint = (uint32_t)found;
    return true;
}

uint32_t crowd_archetype_socket_count(const crowd_world *w, crowd_archetype archetype) {
    const gpu_archetype *r = crowd__gpu_world_archetype(w, archetype);
    return r != NULL ? posed_asset(r)->socket_count : 0;
}

bool crowd_archetype_get_socket(const crowd_world *w, crowd_archetype archetype, uint32_t socket,
                                crowd_socket_info *out) {
    const gpu_archetype *r = crowd__gpu_world_archetype(w, archetype);
    if (r == NULL || out == NULL || socket >= posed_asset(r)->socket_count) {
        return false;
    }
    const crowd_socket *s = &posed_asset(r)->sockets[socket];
    out->name = s->name != NULL ? s->name : "";
    out->joint = s->joint;
    memcpy(out->offset, s->offset, sizeof out->offset);
    return true;
}

bool crowd_archetype_find_socket(const crowd_world *w, crowd_archetype archetype, const char *name,
                                 uint32_t *out_socket) {
    const gpu_archetype *r = crowd__gpu_world_archetype(w, archetype);
    if (r == NULL || name == NULL || out_socket == NULL) {
        return false;
    }
    int32_t found = crowd_asset_find_socket(posed_asset(r), name);
    if (found < 0) {
        return false;
    }
    *out_socket = (uint32_t)found;
    return true;
}
