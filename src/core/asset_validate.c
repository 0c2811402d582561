/* asset_validate.c - crowd_asset_validate(): every invariant of asset.h,
 * checked in the order a reader would need them (skeleton first, because the
 * mesh and the clips are sized by it), stopping at the first broken one.
 *
 * The asset may come from untrusted bytes, so nothing is dereferenced before
 * its pointer and count have been found consistent. */
#include "crowd/asset.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A unit quaternion's length may drift by float rounding after conversions;
 * anything further from 1 than this is a bug or a corrupt file. */
#define UNIT_TOLERANCE 1e-3f
#define WEIGHT_SUM_TOLERANCE 1e-4f

static const char *source_of(const crowd_asset *asset) {
    return asset->source ? asset->source : "";
}

static bool all_finite(const float *values, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(values[i])) {
            return false;
        }
    }
    return true;
}

static float length4(const float *q) {
    return sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
}

static crowd_result fail(const crowd_asset *asset, crowd_error *error, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static crowd_result fail(const crowd_asset *asset, crowd_error *error, const char *format, ...) {
    char reason[sizeof error->reason];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, source_of(asset), "%s", reason);
}

static crowd_result validate_skeleton(const crowd_asset *asset, crowd_error *error) {
    const crowd_skeleton *sk = &asset->skeleton;
    if (sk->joint_count == 0) {
        return fail(asset, error, "skeleton: no joints (at least one is required)");
    }
    if (sk->joint_count > CROWD_MAX_JOINTS) {
        return fail(asset, error, "skeleton: %u joints, more than the limit of %u", sk->joint_count,
                    (unsigned)CROWD_MAX_JOINTS);
    }
    if (!sk->names || !sk->parents || !sk->rest_translation || !sk->rest_rotation ||
        !sk->rest_scale || !sk->inverse_bind) {
        return fail(asset, error,
                    "skeleton: %u joints but a NULL array (names, parents, rest TRS or inverse "
                    "bind matrices)",
                    sk->joint_count);
    }
    if (!all_finite(sk->root_transform, 16)) {
        return fail(asset, error, "skeleton: root transform is not finite");
    }
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (sk->names[j] == NULL) {
            return fail(asset, error, "joint %u: name is NULL", j);
        }
        int32_t parent = sk->parents[j];
        if (parent < -1 || parent >= (int32_t)j) {
            return fail(asset, error, "joint %u: parent %d is not before it", j, parent);
        }
        if (!all_finite(sk->rest_translation + 3 * j, 3)) {
            return fail(asset, error, "joint %u: rest translation is not finite", j);
        }
        if (!all_finite(sk->rest_scale + 3 * j, 3)) {
            return fail(asset, error, "joint %u: rest scale is not finite", j);
        }
        const float *q = sk->rest_rotation + 4 * j;
        if (!all_finite(q, 4)) {
            return fail(asset, error, "joint %u: rest rotation is not finite", j);
        }
        float len = length4(q);
        if (fabsf(len - 1.0f) > UNIT_TOLERANCE) {
            return fail(asset, error, "joint %u: rest rotation is not unit (length %g)", j,
                        (double)len);
        }
        if (!all_finite(sk->inverse_bind + 16 * j, 16)) {
            return fail(asset, error, "joint %u: inverse bind matrix is not finite", j);
        }
    }
    return CROWD_OK;
}

static bool in_unit(float value) {
    return value >= 0.0f && value <= 1.0f;
}

static crowd_result validate_image(const crowd_asset *asset, crowd_error *error, uint32_t m,
                                   const char *what, const crowd_image *image) {
    bool has_size = image->width > 0 && image->height > 0;
    if ((image->rgba8 != NULL) != has_size) {
        return fail(asset, error, "material %u: %stexture is %ux%u but its pixels are %s", m, what,
                    image->width, image->height, image->rgba8 ? "present" : "NULL");
    }
    return CROWD_OK;
}

static crowd_result validate_material(const crowd_asset *asset, crowd_error *error, uint32_t m) {
    const crowd_material *mat = &asset->materials[m];
    if (mat->name == NULL) {
        return fail(asset, error, "material %u: name is NULL", m);
    }
    if (!all_finite(mat->base_color, 4)) {
        return fail(asset, error, "material %u: base colour is not finite", m);
    }
    if (!in_unit(mat->metallic) || !in_unit(mat->roughness) || !in_unit(mat->occlusion_strength)) {
        return fail(asset, error,
                    "material %u: metallic %g, roughness %g or occlusion strength %g is not in "
                    "[0, 1]",
                    m, (double)mat->metallic, (double)mat->roughness,
                    (double)mat->occlusion_strength);
    }
    if (!all_finite(mat->emissive, 3) || mat->emissive[0] < 0.0f || mat->emissive[1] < 0.0f ||
        mat->emissive[2] < 0.0f || !isfinite(mat->normal_scale) ||
        !(mat->alpha_cutoff >= 0.0f && isfinite(mat->alpha_cutoff))) {
        return fail(asset, error,
                    "material %u: emissive factor, normal scale or alpha cutoff is not finite "
                    "and >= 0",
                    m);
    }
    if (mat->alpha_mode != CROWD_ALPHA_OPAQUE && mat->alpha_mode != CROWD_ALPHA_MASK &&
        mat->alpha_mode != CROWD_ALPHA_BLEND) {
        return fail(asset, error, "material %u: alpha mode %d is not one of crowd_alpha_mode", m,
                    (int)mat->alpha_mode);
    }
    const crowd_image base = {mat->texture_width, mat->texture_height, mat->texture_rgba8};
    crowd_result result = validate_image(asset, error, m, "", &base);
    if (result == CROWD_OK) {
        result = validate_image(asset, error, m, "metallic-roughness ",
                                &mat->metallic_roughness_texture);
    }
    if (result == CROWD_OK) {
        result = validate_image(asset, error, m, "normal ", &mat->normal_texture);
    }
    if (result == CROWD_OK) {
        result = validate_image(asset, error, m, "emissive ", &mat->emissive_texture);
    }
    if (result == CROWD_OK) {
        result = validate_image(asset, error, m, "occlusion ", &mat->occlusion_texture);
    }
    return result;
}

static crowd_result validate_materials(const crowd_asset *asset, crowd_error *error) {
    if (asset->material_count > 0 && asset->materials == NULL) {
        return fail(asset, error, "materials: count is %u but the array is NULL",
                    asset->material_count);
    }
    crowd_result result = CROWD_OK;
    for (uint32_t m = 0; m < asset->material_count && result == CROWD_OK; m++) {
        result = validate_material(asset, error, m);
    }
    return result;
}

static crowd_result validate_vertices(const crowd_asset *asset, crowd_error *error) {
    const crowd_mesh *mesh = &asset->mesh;
    uint32_t n = mesh->vertex_count;
    if (n == 0) {
        return CROWD_OK;
    }
    if (!mesh->positions || !mesh->normals || !mesh->uv0 || !mesh->joints || !mesh->weights) {
        return fail(asset, error,
                    "mesh: %u vertices but a NULL attribute array (positions, normals, uv0, "
                    "joints or weights)",
                    n);
    }
    for (uint32_t v = 0; v < n; v++) {
        if (!all_finite(mesh->positions + 3 * (size_t)v, 3)) {
            return fail(asset, error, "vertex %u: position is not finite", v);
        }
        const float *nrm = mesh->normals + 3 * (size_t)v;
        if (!all_finite(nrm, 3)) {
            return fail(asset, error, "vertex %u: normal is not finite", v);
        }
        if (nrm[0] == 0.0f && nrm[1] == 0.0f && nrm[2] == 0.0f) {
            return fail(asset, error, "vertex %u: normal is zero", v);
        }
        if (!all_finite(mesh->uv0 + 2 * (size_t)v, 2)) {
            return fail(asset, error, "vertex %u: uv0 is not finite", v);
        }
        if (mesh->tangents && !all_finite(mesh->tangents + 4 * (size_t)v, 4)) {
            return fail(asset, error, "vertex %u: tangent is not finite", v);
        }
        const uint16_t *joints = mesh->joints + CROWD_MAX_INFLUENCES * (size_t)v;
        const float *weights = mesh->weights + CROWD_MAX_INFLUENCES * (size_t)v;
        float sum = 0.0f;
        for (int i = 0; i < CROWD_MAX_INFLUENCES; i++) {
            /* Unused slots are still fetched by GPU skinning, so their joint
             * must exist too. */
            if (joints[i] >= asset->skeleton.joint_count) {
                return fail(asset, error,
                            "vertex %u: influence %d joint %u out of range (%u joints)", v, i,
                            joints[i], asset->skeleton.joint_count);
            }
            if (!isfinite(weights[i])) {
                return fail(asset, error, "vertex %u: weight %d is not finite", v, i);
            }
            if (weights[i] < 0.0f) {
                return fail(asset, error, "vertex %u: weight %d is negative (%g)", v, i,
                            (double)weights[i]);
            }
            sum += weights[i];
        }
        if (fabsf(sum - 1.0f) > WEIGHT_SUM_TOLERANCE) {
            return fail(asset, error, "vertex %u: weights sum to %g", v, (double)sum);
        }
    }
    return CROWD_OK;
}

static crowd_result validate_indices(const crowd_asset *asset, crowd_error *error) {
    const crowd_mesh *mesh = &asset->mesh;
    if (mesh->index_count % 3 != 0) {
        return fail(asset, error, "mesh: index count %u is not a multiple of 3", mesh->index_count);
    }
    if (mesh->index_count > 0 && mesh->indices == NULL) {
        return fail(asset, error, "mesh: %u indices but the array is NULL", mesh->index_count);
    }
    for (uint32_t i = 0; i < mesh->index_count; i++) {
        if (mesh->indices[i] >= mesh->vertex_count) {
            return fail(asset, error, "index %u: vertex %u out of range (%u vertices)", i,
                        mesh->indices[i], mesh->vertex_count);
        }
    }
    if (mesh->submesh_count > 0 && mesh->submeshes == NULL) {
        return fail(asset, error, "mesh: %u submeshes but the array is NULL", mesh->submesh_count);
    }
    if (mesh->index_count > 0 && mesh->submesh_count == 0) {
        return fail(asset, error, "mesh: %u indices but no submesh covers them", mesh->index_count);
    }
    uint64_t next = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const crowd_submesh *sub = &mesh->submeshes[s];
        if (sub->first_index != next) {
            return fail(asset, error,
                        "submesh %u: first index %u, expected %llu (no gaps or overlaps)", s,
                        sub->first_index, (unsigned long long)next);
        }
        if (sub->index_count % 3 != 0) {
            return fail(asset, error, "submesh %u: index count %u is not a multiple of 3", s,
                        sub->index_count);
        }
        if (sub->material >= asset->material_count) {
            return fail(asset, error, "submesh %u: material %u out of range (%u materials)", s,
                        sub->material, asset->material_count);
        }
        next += sub->index_count;
    }
    if (next != mesh->index_count) {
        return fail(asset, error, "mesh: submeshes cover %llu indices, the mesh has %u",
                    (unsigned long long)next, mesh->index_count);
    }
    return CROWD_OK;
}

static crowd_result validate_track(const crowd_asset *asset, crowd_error *error,
                                   const crowd_clip *clip, uint32_t joint, const char *channel,
                                   const crowd_track *track, uint32_t components) {
    if (track->key_count == 0) {
        return CROWD_OK;
    }
    if (track->times_s == NULL || track->values == NULL) {
        return fail(asset, error, "clip '%s' joint %u %s: %u keys but a NULL times or values array",
                    clip->name, joint, channel, track->key_count);
    }
    uint32_t per_key = components;
    switch (track->interpolation) {
    case CROWD_INTERP_STEP:
    case CROWD_INTERP_LINEAR:
        break;
    case CROWD_INTERP_CUBIC:
        per_key = 3 * components;
        break;
    default:
        return fail(asset, error, "clip '%s' joint %u %s: unknown interpolation %d", clip->name,
                    joint, channel, (int)track->interpolation);
    }
    for (uint32_t k = 0; k < track->key_count; k++) {
        float t = track->times_s[k];
        if (!isfinite(t)) {
            return fail(asset, error, "clip '%s' joint %u %s: key %u time is not finite",
                        clip->name, joint, channel, k);
        }
        if (t < 0.0f) {
            return fail(asset, error, "clip '%s' joint %u %s: key %u time %g is negative",
                        clip->name, joint, channel, k, (double)t);
        }
        if (k > 0 && t < track->times_s[k - 1]) {
            return fail(asset, error, "clip '%s' joint %u %s: key %u time %g before previous %g",
                        clip->name, joint, channel, k, (double)t, (double)track->times_s[k - 1]);
        }
        const float *values = track->values + (size_t)k * per_key;
        if (!all_finite(values, per_key)) {
            return fail(asset, error, "clip '%s' joint %u %s: key %u value is not finite",
                        clip->name, joint, channel, k);
        }
        /* Cubic-spline rotations are normalized after interpolation (glTF),
         * so only step and linear keys must be unit themselves. */
        if (components == 4 && track->interpolation != CROWD_INTERP_CUBIC) {
            float len = length4(values);
            if (fabsf(len - 1.0f) > UNIT_TOLERANCE) {
                return fail(asset, error,
                            "clip '%s' joint %u %s: key %u is not a unit quaternion (length %g)",
                            clip->name, joint, channel, k, (double)len);
            }
        }
    }
    return CROWD_OK;
}

static crowd_result validate_clips(const crowd_asset *asset, crowd_error *error) {
    if (asset->clip_count > 0 && asset->clips == NULL) {
        return fail(asset, error, "clips: count is %u but the array is NULL", asset->clip_count);
    }
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        const crowd_clip *clip = &asset->clips[c];
        if (clip->name == NULL || clip->name[0] == '\0') {
            return fail(asset, error, "clip %u: name is %s", c, clip->name ? "empty" : "NULL");
        }
        for (uint32_t other = 0; other < c; other++) {
            if (strcmp(asset->clips[other].name, clip->name) == 0) {
                return fail(asset, error, "clip %u: name '%s' is already used by clip %u", c,
                            clip->name, other);
            }
        }
        if (!isfinite(clip->duration_s) || clip->duration_s < 0.0f) {
            return fail(asset, error, "clip '%s': duration %g s must be finite and >= 0",
                        clip->name, (double)clip->duration_s);
        }
        if (clip->tracks == NULL) {
            return fail(asset, error, "clip '%s': tracks array is NULL", clip->name);
        }
        for (uint32_t j = 0; j < asset->skeleton.joint_count; j++) {
            const crowd_joint_tracks *tracks = &clip->tracks[j];
            crowd_result r =
                validate_track(asset, error, clip, j, "translation", &tracks->translation, 3);
            if (r == CROWD_OK) {
                r = validate_track(asset, error, clip, j, "rotation", &tracks->rotation, 4);
            }
            if (r == CROWD_OK) {
                r = validate_track(asset, error, clip, j, "scale", &tracks->scale, 3);
            }
            if (r != CROWD_OK) {
                return r;
            }
        }
    }
    return CROWD_OK;
}

static crowd_result validate_sockets(const crowd_asset *asset, crowd_error *error) {
    if (asset->socket_count > 0 && asset->sockets == NULL) {
        return fail(asset, error, "sockets: count is %u but the array is NULL",
                    asset->socket_count);
    }
    for (uint32_t s = 0; s < asset->socket_count; s++) {
        const crowd_socket *socket = &asset->sockets[s];
        if (socket->name == NULL) {
            return fail(asset, error, "socket %u: name is NULL", s);
        }
        if (socket->joint >= asset->skeleton.joint_count) {
            return fail(asset, error, "socket '%s': joint %u out of range (%u joints)",
                        socket->name, socket->joint, asset->skeleton.joint_count);
        }
        if (!all_finite(socket->offset, 16)) {
            return fail(asset, error, "socket '%s': offset is not finite", socket->name);
        }
    }
    return CROWD_OK;
}

crowd_result crowd_asset_validate(const crowd_asset *asset, crowd_error *error) {
    if (asset == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "asset is NULL");
    }
    crowd_result (*const steps[])(const crowd_asset *, crowd_error *) = {
        validate_skeleton, validate_materials, validate_vertices,
        validate_indices,  validate_clips,     validate_sockets,
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        crowd_result r = steps[i](asset, error);
        if (r != CROWD_OK) {
            return r;
        }
    }
    return CROWD_OK;
}
