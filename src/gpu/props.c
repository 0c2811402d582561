/* Props carried per instance (crowd_world_add_prop): each prop type's mesh
 * is the prop placed as `crowd bake --attach` places it, kept apart. In bind
 * space a prop vertex p becomes inverse(inverse_bind[joint]) * offset * p,
 * bound with weight 1 to the socket's joint, so every mode's skinning puts
 * it at model[joint] * offset * p: on the socket, following the joint (the
 * derivation is src/import/attach/attach.c's). vat has no joint matrices:
 * the socket track holds the joint's skinning matrix at every baked frame,
 * laid out as a BAT of one joint, so the bat programs draw vat's props.
 * Which instance carries which prop is a flag bit of its record
 * (GPU_FLAG_PROPS_*); the draws are props_draw.c's. */
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

#define PROP_INDEX_SHIFT 16u

static crowd_result invalid(crowd_error *error, const char *file, const char *what) {
    return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, file, "%s", what);
}

/* The archetype's asset that has its skeleton and sockets (the source, or
 * a loaded bake's runtime skeleton). */
static const crowd_asset *posed_asset(const gpu_archetype *r) {
    return r->source != NULL ? r->source : r->drawn;
}

static crowd_result find_socket(const gpu_archetype *r, const char *name, uint32_t *out_socket,
                                uint32_t *out_joint, const float **out_offset, crowd_error *error) {
    const crowd_asset *asset = posed_asset(r);
    int32_t found = crowd_asset_find_socket(asset, name);
    if (found < 0) {
        char list[256];
        crowd__core_socket_names(asset, list, sizeof list);
        return crowd_error_set(
            error, CROWD_ERROR_INVALID_ARGUMENT, r->name, "no socket named '%s' (%s%s)", name,
            asset->socket_count > 0 ? "sockets: " : "the archetype has none", list);
    }
    const crowd_socket *socket = &asset->sockets[found];
    if (socket->joint >= asset->skeleton.joint_count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, r->name,
                               "socket '%s' names joint %u of %u", name, socket->joint,
                               asset->skeleton.joint_count);
    }
    *out_socket = (uint32_t)found;
    *out_joint = socket->joint;
    *out_offset = socket->offset;
    return CROWD_OK;
}

/* A mesh to carry: vertices and triangles, indices in range, finite values. */
static crowd_result check_prop_mesh(const crowd_asset *prop, crowd_error *error) {
    const crowd_mesh *m = &prop->mesh;
    const char *file = prop->source;
    if (m->vertex_count == 0 || m->positions == NULL) {
        return invalid(error, file, "the prop is not a mesh: it has no vertices");
    }
    if (m->index_count < 3 || m->indices == NULL || m->index_count % 3 != 0) {
        return invalid(error, file, "the prop is not a mesh: it has no triangles");
    }
    for (uint32_t i = 0; i < m->index_count; i++) {
        if (m->indices[i] >= m->vertex_count) {
            return invalid(error, file, "the prop's indices name vertices it does not have");
        }
    }
    for (size_t v = 0; v < 3 * (size_t)m->vertex_count; v++) {
        if (!isfinite(m->positions[v]) || (m->normals != NULL && !isfinite(m->normals[v]))) {
            return invalid(error, file, "the prop's vertices hold values that are not finite");
        }
    }
    return CROWD_OK;
}

static void point_by(const float m[16], const float p[3], float out[3]) {
    for (int i = 0; i < 3; i++) {
        out[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
    }
}

/* The normal by the inverse transpose (cofactors, with the determinant's
 * sign), unit length: as the importer's attach does, so both agree. */
static void normal_by(const float m[16], const float n[3], float out[3]) {
    const float a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6],
                i = m[10];
    const float cof[9] = {e * i - f * h,    -(d * i - f * g), d * h - e * g,
                          -(b * i - c * h), a * i - c * g,    -(a * h - b * g),
                          b * f - c * e,    -(a * f - c * d), a * e - b * d};
    const float sign = a * cof[0] + b * cof[1] + c * cof[2] < 0.0f ? -1.0f : 1.0f;
    float r[3];
    for (int row = 0; row < 3; row++) {
        r[row] = sign * (cof[row * 3] * n[0] + cof[row * 3 + 1] * n[1] + cof[row * 3 + 2] * n[2]);
    }
    float len = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (!isfinite(len) || len < 1e-20f) {
        memcpy(out, n, 3 * sizeof(float));
        return;
    }
    for (int k = 0; k < 3; k++) {
        out[k] = r[k] / len;
    }
}

/* bind = inverse(inverse_bind[joint]) x offset, as the importer's attach. */
static bool socket_bind(const crowd_asset *asset, uint32_t joint, const float offset[16],
                        float out[16]) {
    mat4 inverse_bind, bind, socket, placed;
    memcpy(inverse_bind, &asset->skeleton.inverse_bind[16 * joint], sizeof inverse_bind);
    float det = glm_mat4_det(inverse_bind);
    if (!isfinite(det) || fabsf(det) < 1e-12f) {
        return false;
    }
    glm_mat4_inv_precise(inverse_bind, bind);
    memcpy(socket, offset, sizeof socket);
    glm_mat4_mul(bind, socket, placed);
    memcpy(out, placed, sizeof placed);
    for (int i = 0; i < 16; i++) {
        if (!isfinite(out[i])) {
            return false;
        }
    }
    return true;
}

/* The prop's mesh in bind space, bound to `joint`: arrays into *mesh (the
 * caller frees them with free_mesh), indices and submeshes borrowed. */
static bool place_mesh(const crowd_allocator *al, const crowd_mesh *from, const float bind[16],
                       uint32_t joint, crowd_mesh *out) {
    *out = *from;
    size_t v = from->vertex_count;
    out->positions = crowd__mem_alloc(al, 3 * v * sizeof(float));
    out->normals = crowd__mem_alloc(al, 3 * v * sizeof(float));
    out->uv0 = crowd__mem_alloc_zeroed(al, 2 * v, sizeof(float));
    out->weights = crowd__mem_alloc_zeroed(al, 4 * v, sizeof(float));
    out->joints = crowd__mem_alloc_zeroed(al, 4 * v, sizeof(uint16_t));
    out->tangents = NULL;
    if (!out->positions || !out->normals || !out->uv0 || !out->weights || !out->joints) {
        return false;
    }
    for (size_t i = 0; i < v; i++) {
        point_by(bind, &from->positions[3 * i], &out->positions[3 * i]);
        const float up[3] = {0.0f, 1.0f, 0.0f};
        normal_by(bind, from->normals != NULL ? &from->normals[3 * i] : up, &out->normals[3 * i]);
        if (from->uv0 != NULL) {
            memcpy(&out->uv0[2 * i], &from->uv0[2 * i], 2 * sizeof(float));
        }
        out->joints[4 * i] = (uint16_t)joint;
        out->weights[4 * i] = 1.0f;
    }
    return true;
}

static void free_mesh(const crowd_allocator *al, crowd_mesh *m) {
    crowd__mem_free(al, m->uv0);
    crowd__mem_free(al, m->weights);
    crowd__mem_free(al, m->joints);
}

/* The bake's socket tracks hold `socket`: every socket of the asset. */
static bool has_socket_tracks(const crowd_bake *bake, uint32_t socket) {
    return bake->socket_tracks.texels != NULL &&
           bake->socket_tracks.format == CROWD_TEXEL_RGBA32F && socket < bake->socket_count;
}

static bool has_bat(const crowd_bake *bake) {
    return bake->bat.texels != NULL && bake->bat.format != CROWD_TEXEL_NONE;
}

uint64_t crowd_prop_socket_track_bytes(const crowd_bake *bake, uint32_t joint) {
    if (bake == NULL || bake->frame_count == 0 ||
        (!has_bat(bake) && (bake->socket_tracks.texels == NULL || bake->socket_count == 0))) {
        return 0;
    }
    return 48ull * ((uint64_t)bake->frame_count + joint);
}

/* Frame f's socket model matrix (3 rows of 4) from the bake's socket tracks. */
static void socket_track_fetch(const crowd_bake *bake, uint32_t frame, uint32_t socket,
                               float out[12]) {
    const crowd_texture *t = &bake->socket_tracks;
    for (uint32_t k = 0; k < 3; k++) {
        uint64_t element = 3ull * socket + k;
        uint64_t row = (uint64_t)frame * bake->socket_rows_per_frame + element / t->width;
        memcpy(out + 4 * k, (const float *)t->texels + 4 * (row * t->width + element % t->width),
               4 * sizeof(float));
    }
}

/* The joint's skinning matrix at every baked frame, into rows (12 floats a
 * frame): the socket track times inverse(placement) (the prop's vertices are
 * in bind space, placed by `placement`), or the BAT's rows. */
static void track_rows(const crowd_bake *bake, uint32_t socket, uint32_t joint,
                       const float placement[16], float *rows) {
    if (!has_socket_tracks(bake, socket)) {
        for (uint32_t f = 0; f < bake->frame_count; f++) {
            crowd_bake_bat_fetch(bake, f, joint, rows + 12u * f);
        }
        return;
    }
    mat4 placed, unplace;
    memcpy(placed, placement, sizeof placed);
    glm_mat4_inv_precise(placed, unplace);
    for (uint32_t f = 0; f < bake->frame_count; f++) {
        float m[12];
        socket_track_fetch(bake, f, socket, m);
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 4; c++) {
                rows[12u * f + 4 * r + c] =
                    m[4 * r] * unplace[c][0] + m[4 * r + 1] * unplace[c][1] +
                    m[4 * r + 2] * unplace[c][2] + m[4 * r + 3] * unplace[c][3];
            }
        }
    }
}

/* vat's socket track on the GPU: the joint's skinning matrix at every baked
 * frame, from the bake's socket tracks (vat-only bakes have them too), else
 * from its BAT rows: what bat mode skins the prop with, so both modes draw it
 * alike. */
static crowd_result make_track(gpu_archetype *r, gpu_prop *prop, uint32_t socket,
                               const float placement[16], crowd_error *error) {
    const crowd_bake *bake = r->bake;
    if (bake == NULL || bake->frame_count == 0) {
        return CROWD_OK; /* no baked frames: no vat to follow */
    }
    if (!has_socket_tracks(bake, socket) && !has_bat(bake)) {
        crowd_log(&r->world->logger, CROWD_LOG_WARNING,
                  "%s: the bake has neither socket tracks nor a BAT, so the prop on socket '%s' "
                  "has no track: vat mode does not draw it",
                  r->name, prop->socket_name);
        return CROWD_OK;
    }
    /* The prop's vertices name the socket's joint, whose element 3 x joint
     * of a 3-texel-wide BAT is `joint` rows down: the track starts there. */
    uint64_t rows = (uint64_t)bake->frame_count + prop->joint;
    if (rows > (uint64_t)r->world->max_texture_size) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, r->name,
                               "a socket track of %llu rows is taller than this GL allows (%d)",
                               (unsigned long long)rows, (int)r->world->max_texture_size);
    }
    float *texels = crowd__mem_alloc_zeroed(&r->world->allocator, 12u * rows, sizeof(float));
    if (texels == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    track_rows(bake, socket, prop->joint, placement, texels + 12u * prop->joint);
    /* Made bound on unit 0, whose binding the caller's saved state puts back. */
    crowd_result result = crowd__gpu_texture_create_bound(
        r->world, &prop->track_texture, GPU_TEXTURE_MATERIALS, GL_RGBA32F, 3, (uint32_t)rows,
        GL_RGBA, GL_FLOAT, texels, error);
    crowd__mem_free(&r->world->allocator, texels);
    if (result == CROWD_OK) {
        prop->track_bytes = crowd_prop_socket_track_bytes(bake, prop->joint);
        r->gpu_memory_bytes += prop->track_bytes;
    }
    return result;
}

static void prop_release(gpu_archetype *r, gpu_prop *prop) {
    const crowd_allocator *al = &r->world->allocator;
    crowd__gpu_mesh_release(&prop->mesh, &r->gpu_memory_bytes);
    crowd__gpu_texture_delete(&r->gpu_memory_bytes, &prop->track_texture, &prop->track_bytes);
    crowd__mem_free(al, prop->positions);
    crowd__mem_free(al, prop->normals);
    crowd__mem_free(al, prop->socket_name);
    *prop = (gpu_prop){0};
}

static crowd_result prop_make(gpu_archetype *r, const crowd_prop_desc *desc, gpu_prop *prop,
                              crowd_error *error) {
    const float *offset = NULL;
    uint32_t socket = 0;
    crowd_result result = find_socket(r, desc->socket, &socket, &prop->joint, &offset, error);
    if (result != CROWD_OK) {
        return result;
    }
    float bind[16];
    if (!socket_bind(posed_asset(r), prop->joint, offset, bind)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, r->name,
                               "the joint of socket '%s' has a singular inverse bind matrix",
                               desc->socket);
    }
    const crowd_allocator *al = &r->world->allocator;
    crowd_asset placed = {0};
    placed.source = desc->asset->source;
    placed.material_count = desc->asset->material_count;
    placed.materials = desc->asset->materials;
    bool ok = place_mesh(al, &desc->asset->mesh, bind, prop->joint, &placed.mesh);
    prop->socket_name = crowd__core_copy_string_with(al, desc->socket);
    /* The mesh's arrays stay as cpu mode's bind-space vertices. */
    prop->positions = placed.mesh.positions;
    prop->normals = placed.mesh.normals;
    prop->vertex_count = placed.mesh.vertex_count;
    if (!ok || prop->socket_name == NULL) {
        free_mesh(al, &placed.mesh);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    uint64_t before = r->gpu_memory_bytes;
    result =
        crowd__gpu_mesh_upload(&prop->mesh, &placed, NULL, r->world, &r->gpu_memory_bytes, error);
    prop->mesh_bytes = r->gpu_memory_bytes - before;
    free_mesh(al, &placed.mesh);
    return result == CROWD_OK ? make_track(r, prop, socket, bind, error) : result;
}

static uint32_t prop_id(const gpu_archetype *r, uint32_t index) {
    return r->handle | (index + 1u) << PROP_INDEX_SHIFT;
}

/* The prop's archetype and index, or NULL. */
static gpu_archetype *find_prop(const crowd_world *w, crowd_prop prop, uint32_t *out_index) {
    crowd_archetype archetype = {prop.id & ((1u << PROP_INDEX_SHIFT) - 1u)};
    uint32_t index = (prop.id >> PROP_INDEX_SHIFT) - 1u;
    gpu_archetype *r = w != NULL && prop.id != 0 ? crowd__gpu_world_archetype(w, archetype) : NULL;
    if (r == NULL || index >= r->props.count) {
        return NULL;
    }
    *out_index = index;
    return r;
}

crowd_result crowd_world_add_prop(crowd_world *w, crowd_archetype archetype,
                                  const crowd_prop_desc *desc, crowd_prop *out_prop,
                                  crowd_error *error) {
    if (w == NULL || desc == NULL || desc->asset == NULL || desc->socket == NULL ||
        out_prop == NULL) {
        return invalid(error, NULL,
                       "crowd_world_add_prop: world, desc, its asset and socket, and out_prop "
                       "must not be NULL");
    }
    out_prop->id = 0;
    gpu_archetype *r = NULL;
    crowd_result result = crowd__gpu_world_find_archetype(w, archetype, &r, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (r->props.count == GPU_MAX_PROPS) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, r->name,
                               "an archetype carries at most %u prop types",
                               (unsigned)CROWD_ARCHETYPE_MAX_PROPS);
    }
    if ((result = check_prop_mesh(desc->asset, error)) != CROWD_OK) {
        return result;
    }
    gpu_prop prop = {0};
    gpu_saved_state saved;
    crowd__gpu_state_save(&saved, w, CROWD_STATE_RESTORE);
    result = prop_make(r, desc, &prop, error);
    if (result != CROWD_OK) {
        prop_release(r, &prop);
    }
    crowd__gpu_state_restore(&saved);
    if (result != CROWD_OK) {
        return result;
    }
    prop.first_skinned = r->props.vertex_total;
    r->props.vertex_total += prop.vertex_count;
    r->props.items[r->props.count] = prop;
    out_prop->id = prop_id(r, r->props.count++);
    return CROWD_OK;
}

bool crowd_prop_get_info(const crowd_world *w, crowd_prop prop, crowd_prop_info *out) {
    uint32_t index;
    const gpu_archetype *r = find_prop(w, prop, &index);
    if (r == NULL || out == NULL) {
        return false;
    }
    const gpu_prop *p = &r->props.items[index];
    *out = (crowd_prop_info){{r->handle}, p->socket_name, p->joint,      p->vertex_count,
                             p->carriers, p->mesh_bytes,  p->track_bytes};
    return true;
}

uint32_t crowd_archetype_prop_count(const crowd_world *w, crowd_archetype archetype) {
    const gpu_archetype *r = w != NULL ? crowd__gpu_world_archetype(w, archetype) : NULL;
    return r != NULL ? r->props.count : 0;
}

crowd_prop crowd_archetype_prop(const crowd_world *w, crowd_archetype archetype, uint32_t index) {
    const gpu_archetype *r = w != NULL ? crowd__gpu_world_archetype(w, archetype) : NULL;
    return (crowd_prop){r != NULL && index < r->props.count ? prop_id(r, index) : 0};
}

/* The instance and the prop's bit, both checked to be of one archetype. */
static crowd_result find_pair(const crowd_world *w, crowd_instance instance, crowd_prop prop,
                              gpu_archetype **out, uint32_t *out_slot, uint32_t *out_index,
                              crowd_error *error) {
    crowd_result result = crowd__gpu_world_find_instance(w, instance, out, out_slot, error);
    if (result != CROWD_OK) {
        return result;
    }
    gpu_archetype *owner = find_prop(w, prop, out_index);
    if (owner == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "prop %u does not exist",
                               (unsigned)prop.id);
    }
    if (owner != *out) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "prop %u is a prop of archetype '%s', instance %u is a '%s'",
                               (unsigned)prop.id, owner->name, (unsigned)instance.id, (*out)->name);
    }
    return CROWD_OK;
}

static crowd_result set_carried(crowd_world *w, crowd_instance instance, crowd_prop prop,
                                bool carried, crowd_error *error) {
    gpu_archetype *r;
    uint32_t slot = 0, index = 0;
    crowd_result result = find_pair(w, instance, prop, &r, &slot, &index, error);
    if (result != CROWD_OK) {
        return result;
    }
    gpu_instance_state *rec = &r->instances.states[slot];
    uint32_t bit = 1u << (GPU_FLAG_PROPS_SHIFT + index);
    if (((rec->flags & bit) != 0) == carried) {
        return CROWD_OK;
    }
    rec->flags ^= bit;
    r->props.items[index].carriers += carried ? 1u : (uint32_t)-1;
    crowd__gpu_instance_write(r, slot);
    return CROWD_OK;
}

crowd_result crowd_instance_attach_prop(crowd_world *w, crowd_instance instance, crowd_prop prop,
                                        crowd_error *error) {
    return set_carried(w, instance, prop, true, error);
}

crowd_result crowd_instance_detach_prop(crowd_world *w, crowd_instance instance, crowd_prop prop,
                                        crowd_error *error) {
    return set_carried(w, instance, prop, false, error);
}

bool crowd_instance_has_prop(const crowd_world *w, crowd_instance instance, crowd_prop prop) {
    gpu_archetype *r;
    uint32_t slot = 0, index = 0;
    if (find_pair(w, instance, prop, &r, &slot, &index, NULL) != CROWD_OK) {
        return false;
    }
    return (r->instances.states[slot].flags & 1u << (GPU_FLAG_PROPS_SHIFT + index)) != 0;
}

void crowd__gpu_props_forget(gpu_archetype *r, uint32_t slot) {
    uint32_t carried = r->instances.states[slot].flags >> GPU_FLAG_PROPS_SHIFT;
    for (uint32_t p = 0; p < r->props.count; p++) {
        r->props.items[p].carriers -= (carried >> p) & 1u;
    }
}

void crowd__gpu_props_forget_all(gpu_archetype *r) {
    for (uint32_t p = 0; p < r->props.count; p++) {
        r->props.items[p].carriers = 0;
    }
}

void crowd__gpu_props_release(gpu_archetype *r) {
    for (uint32_t p = 0; p < r->props.count; p++) {
        prop_release(r, &r->props.items[p]);
    }
    crowd__gpu_programs_release(r->world, r->props.track_programs);
    crowd__mem_free(&r->world->allocator, r->props.cpu_visible);
    r->props = (gpu_props){0};
}

void crowd__gpu_props_skin(const gpu_archetype *r, const float *palette, float *positions,
                           float *normals) {
    for (uint32_t p = 0; p < r->props.count; p++) {
        const gpu_prop *prop = &r->props.items[p];
        const float *m = palette + 12u * prop->joint; /* 3 rows of 4 */
        float *out_p = positions + 3u * prop->first_skinned;
        float *out_n = normals + 3u * prop->first_skinned;
        for (uint32_t v = 0; v < prop->vertex_count; v++) {
            const float *x = prop->positions + 3u * v, *n = prop->normals + 3u * v;
            float length2 = 0.0f;
            for (int row = 0; row < 3; row++) {
                const float *mr = m + 4 * row;
                out_p[3u * v + row] = mr[0] * x[0] + mr[1] * x[1] + mr[2] * x[2] + mr[3];
                out_n[3u * v + row] = mr[0] * n[0] + mr[1] * n[1] + mr[2] * n[2];
                length2 += out_n[3u * v + row] * out_n[3u * v + row];
            }
            /* Unit normals, as the character's skinning kernels write them. */
            float scale = length2 > 0.0f ? 1.0f / sqrtf(length2) : 0.0f;
            for (int row = 0; row < 3; row++) {
                out_n[3u * v + row] *= scale;
            }
        }
    }
}

crowd_result crowd__gpu_props_cull_cpu(gpu_archetype *r, uint32_t lod_count, crowd_error *error) {
    uint32_t capacity = r->instances.capacity;
    if (r->props.cpu_capacity < capacity || r->props.cpu_lists < r->props.count) {
        /* Rebuilt by every culling: nothing to keep. */
        crowd__mem_free(&r->world->allocator, r->props.cpu_visible);
        r->props.cpu_visible = crowd__mem_alloc(
            &r->world->allocator, (size_t)r->props.count * capacity * sizeof(gpu_instance_record));
        r->props.cpu_capacity = r->props.cpu_lists = 0;
        if (r->props.cpu_visible == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, r->name,
                                   "out of memory for the props' culling lists");
        }
        r->props.cpu_capacity = capacity;
        r->props.cpu_lists = r->props.count;
    }
    for (uint32_t p = 0; p < r->props.count; p++) {
        r->props.items[p].cpu_count = 0;
    }
    for (uint32_t k = 0; k < lod_count; k++) {
        const gpu_instance_record *list = r->cull.cpu_visible + (size_t)k * capacity;
        for (uint32_t i = 0; i < r->cull.cpu_counts[k]; i++) {
            uint32_t carried = list[i].bits >> GPU_FLAG_PROPS_SHIFT;
            for (uint32_t p = 0; carried != 0 && p < r->props.count; p++, carried >>= 1) {
                if (carried & 1u) {
                    gpu_prop *prop = &r->props.items[p];
                    r->props.cpu_visible[(size_t)p * capacity + prop->cpu_count++] = list[i];
                }
            }
        }
    }
    return CROWD_OK;
}
