/* attach.c - merging a prop's mesh onto a socket of a character.
 *
 * The prop's vertices are bound with weight 1 to the socket's joint. In bind
 * space (crowd_mesh.positions) a vertex p_prop of the prop becomes
 *   p = inverse(inverse_bind[joint]) * socket.offset * p_prop,
 * so that skinning with model[joint] * inverse_bind[joint] puts it at
 * model[joint] * offset * p_prop: on the socket, following the joint.
 * Everything is built in new arrays and swapped in at the end, so a failure
 * leaves the asset as it was.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/import.h"
#include "core/core_internal.h"
#include "import/scene/import_math.h"

typedef struct merged {
    float *positions, *normals, *tangents, *uv0, *weights;
    uint16_t *joints;
    uint32_t *indices;
    crowd_submesh *submeshes;
    crowd_material *materials;
    uint32_t material_count;
} merged;

static void merged_free(merged *m) {
    free(m->positions);
    free(m->normals);
    free(m->tangents);
    free(m->uv0);
    free(m->weights);
    free(m->joints);
    free(m->indices);
    free(m->submeshes);
    for (uint32_t i = 0; i < m->material_count && m->materials; i++) {
        crowd__core_material_release(&m->materials[i]);
    }
    free(m->materials);
}

static void *grow_copy(const void *old, size_t old_bytes, size_t new_bytes) {
    void *grown = malloc(new_bytes > 0 ? new_bytes : 1);
    if (grown != NULL && old_bytes > 0) {
        memcpy(grown, old, old_bytes);
    }
    return grown;
}

static bool copy_image(crowd_image *image) {
    if (image->rgba8 == NULL) {
        return true;
    }
    size_t bytes = (size_t)image->width * image->height * 4;
    image->rgba8 = grow_copy(image->rgba8, bytes, bytes);
    return image->rgba8 != NULL;
}

/* A deep copy; on failure what was copied stays in `to` for the caller to free. */
static bool copy_material(const crowd_material *from, crowd_material *to) {
    *to = *from;
    to->name = crowd__core_copy_string(from->name ? from->name : "");
    crowd_image base = {from->texture_width, from->texture_height, from->texture_rgba8};
    crowd_image *images[] = {&to->metallic_roughness_texture, &to->normal_texture,
                             &to->emissive_texture, &to->occlusion_texture};
    bool ok = copy_image(&base);
    to->texture_rgba8 = base.rgba8;
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
        if (!ok) {
            *images[i] = (crowd_image){0};
        } else {
            ok = copy_image(images[i]);
        }
    }
    return to->name != NULL && ok;
}

/* Some unit vector orthogonal to n, for props without tangents on a mesh that has them. */
static void any_tangent(const float n[3], float out[4]) {
    float axis[3] = {fabsf(n[0]) < 0.9f ? 1.0f : 0.0f, fabsf(n[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
    float d = axis[0] * n[0] + axis[1] * n[1] + axis[2] * n[2];
    float t[3] = {axis[0] - d * n[0], axis[1] - d * n[1], axis[2] - d * n[2]};
    float len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    out[0] = t[0] / len;
    out[1] = t[1] / len;
    out[2] = t[2] / len;
    out[3] = 1.0f;
}

static crowd_result find_socket(const crowd_asset *asset, const char *socket_name,
                                crowd_error *error, int32_t *out_socket) {
    const char *file = asset->source ? asset->source : "";
    *out_socket = crowd_asset_find_socket(asset, socket_name);
    if (*out_socket >= 0) {
        if (asset->sockets[*out_socket].joint >= asset->skeleton.joint_count) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file,
                                   "socket '%s' names joint %u of %u", socket_name,
                                   asset->sockets[*out_socket].joint, asset->skeleton.joint_count);
        }
        return CROWD_OK;
    }
    if (asset->socket_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, file,
                               "no socket named '%s': the model has no sockets", socket_name);
    }
    char list[256];
    crowd__core_socket_names(asset, list, sizeof list);
    return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, file,
                           "no socket named '%s' (sockets: %s)", socket_name, list);
}

crowd_result crowd_asset_attach(crowd_asset *asset, const char *socket_name,
                                const crowd_asset *prop, crowd_error *error) {
    if (asset == NULL || socket_name == NULL || prop == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crowd_asset_attach: asset, socket_name and prop must not be NULL");
    }
    int32_t socket_index;
    crowd_result result = find_socket(asset, socket_name, error, &socket_index);
    if (result != CROWD_OK) {
        return result;
    }
    const crowd_socket *socket = &asset->sockets[socket_index];
    const crowd_mesh *a = &asset->mesh, *b = &prop->mesh;
    uint64_t vertex_total = (uint64_t)a->vertex_count + b->vertex_count;
    uint64_t index_total = (uint64_t)a->index_count + b->index_count;
    uint64_t material_total = (uint64_t)asset->material_count + prop->material_count;
    if (vertex_total > UINT32_MAX / 4 || index_total > UINT32_MAX / 4 ||
        material_total > UINT32_MAX / 4) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, prop->source,
                               "the merged mesh would be too large");
    }
    float bind[16], transform[16];
    if (!crowd__import_m4_invert(&asset->skeleton.inverse_bind[16 * socket->joint], bind)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, asset->source,
                               "joint of socket '%s' has a singular inverse bind matrix",
                               socket_name);
    }
    crowd__import_m4_mul(bind, socket->offset, transform);

    size_t va = a->vertex_count, vt = (size_t)vertex_total;
    merged m;
    memset(&m, 0, sizeof m);
    m.positions = grow_copy(a->positions, 3 * va * sizeof(float), 3 * vt * sizeof(float));
    m.normals = grow_copy(a->normals, 3 * va * sizeof(float), 3 * vt * sizeof(float));
    m.uv0 = grow_copy(a->uv0, 2 * va * sizeof(float), 2 * vt * sizeof(float));
    m.weights = grow_copy(a->weights, 4 * va * sizeof(float), 4 * vt * sizeof(float));
    m.joints = grow_copy(a->joints, 4 * va * sizeof(uint16_t), 4 * vt * sizeof(uint16_t));
    if (a->tangents != NULL) {
        m.tangents = grow_copy(a->tangents, 4 * va * sizeof(float), 4 * vt * sizeof(float));
    }
    m.indices = grow_copy(a->indices, a->index_count * sizeof(uint32_t),
                          (size_t)index_total * sizeof(uint32_t));
    m.submeshes = grow_copy(a->submeshes, a->submesh_count * sizeof(crowd_submesh),
                            (a->submesh_count + (size_t)b->submesh_count) * sizeof(crowd_submesh));
    m.materials = calloc((size_t)material_total + 1, sizeof(crowd_material));
    bool ok = m.positions && m.normals && m.uv0 && m.weights && m.joints && m.indices &&
              m.submeshes && m.materials && (a->tangents == NULL || m.tangents);
    for (uint32_t i = 0; ok && i < asset->material_count; i++) {
        ok = copy_material(&asset->materials[i], &m.materials[m.material_count++]);
    }
    for (uint32_t i = 0; ok && i < prop->material_count; i++) {
        ok = copy_material(&prop->materials[i], &m.materials[m.material_count++]);
    }
    if (!ok) {
        merged_free(&m);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, prop->source, "out of memory");
    }
    for (size_t v = 0; v < b->vertex_count; v++) {
        size_t o = va + v;
        crowd__import_m4_point(transform, &b->positions[3 * v], &m.positions[3 * o]);
        if (!crowd__import_m4_normal(transform, &b->normals[3 * v], &m.normals[3 * o])) {
            memcpy(&m.normals[3 * o], &b->normals[3 * v], 3 * sizeof(float));
        }
        memcpy(&m.uv0[2 * o], &b->uv0[2 * v], 2 * sizeof(float));
        memset(&m.joints[4 * o], 0, 4 * sizeof(uint16_t));
        memset(&m.weights[4 * o], 0, 4 * sizeof(float));
        m.joints[4 * o] = (uint16_t)socket->joint;
        m.weights[4 * o] = 1.0f;
        if (m.tangents != NULL) {
            float *t = &m.tangents[4 * o];
            if (b->tangents == NULL ||
                !crowd__import_m4_normal(transform, &b->tangents[4 * v], t)) {
                any_tangent(&m.normals[3 * o], t);
            } else {
                /* Tangents follow the matrix itself, not its inverse transpose; for
                 * the rigid and uniformly scaled transforms of sockets both agree. */
                t[3] = b->tangents[4 * v + 3];
            }
        }
    }
    for (size_t i = 0; i < b->index_count; i++) {
        m.indices[a->index_count + i] = b->indices[i] + (uint32_t)va;
    }
    for (uint32_t s = 0; s < b->submesh_count; s++) {
        crowd_submesh sub = b->submeshes[s];
        sub.first_index += a->index_count;
        sub.material += asset->material_count;
        m.submeshes[a->submesh_count + s] = sub;
    }

    crowd_mesh *out = &asset->mesh;
    merged old = {out->positions,   out->normals,         out->tangents, out->uv0,
                  out->weights,     out->joints,          out->indices,  out->submeshes,
                  asset->materials, asset->material_count};
    out->positions = m.positions;
    out->normals = m.normals;
    out->tangents = m.tangents;
    out->uv0 = m.uv0;
    out->weights = m.weights;
    out->joints = m.joints;
    out->indices = m.indices;
    out->submeshes = m.submeshes;
    out->vertex_count = (uint32_t)vertex_total;
    out->index_count = (uint32_t)index_total;
    out->submesh_count += b->submesh_count;
    asset->materials = m.materials;
    asset->material_count = m.material_count;
    asset->source_mesh_count += prop->source_mesh_count;
    merged_free(&old);
    return CROWD_OK;
}
