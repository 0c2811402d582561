/* anim_retarget.c - an animation file's keys turned into a character's.
 *
 * The character takes the file's pose, joint by joint, in model space: a
 * matched joint turns, at every key, by what its file joint turns from the
 * file's rest pose, measured in model space (the standard world-space
 * delta: target_world = source_world * source_rest_world^-1 * target_rest_world),
 * after its bones have first been turned onto the file's rest directions
 * (A, from the bones to its matched children: the shortest arc for one,
 * the frame of two for more; identity below 1e-3 rad), so a T-pose file
 * plays on an A-pose character. As local rotations:
 *   key' = P^-1 * key * D,  D = Wf(f)^-1 * A * Wc(j),
 *   P = Wf(parent of f)^-1 * Wc'(parent of j)
 * where Wf, Wc are the rest model rotations (root transform included) of
 * the file and the character, and Wc' the character's, joints turned by
 * their A. Both are constants per joint, so every key (cubic tangents too:
 * the map is linear) is turned exactly, without resampling. Where the rest
 * poses agree (same rotations, translations and scales, within 1e-6),
 * P and D are identity and the keys are copied as they are, bit for bit.
 *
 * Translation: the root (the matched joint highest in the file's tree)
 * takes the file's translation turned by P^-1 and scaled by the ratio of
 * hip heights (character / file; a hip height is the root's height above
 * the lowest matched joint at rest), which also converts units. Other
 * joints keep their own bone lengths: their translation keys are copied
 * only where the rest poses agree. Scale keys are scaled by the ratio of
 * rest scales. Joints without a match keep their rest pose.
 */
#include <cglm/cglm.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "import/anim/anim_internal.h"
#include "import/scene/import_math.h"

#define ALIGN_MIN_RAD 1e-3f
#define SAME_REST 1e-6f

/* Rest pose of a skeleton in model space: rotation and position per joint. */
typedef struct rest_pose {
    float *rotation; /* 4 per joint */
    float *position; /* 3 per joint */
    float root_rotation[4];
} rest_pose;

static void matrix_rotation(const float m[16], float out[4]) {
    mat4 copy, r;
    vec3 s;
    memcpy(copy, m, sizeof copy);
    glm_decompose_rs(copy, r, s);
    glm_mat4_quat(r, out);
    glm_quat_normalize(out);
}

static bool rest_pose_make(const crowd_skeleton *sk, rest_pose *out) {
    out->rotation = malloc(((size_t)sk->joint_count * 4 + 1) * sizeof(float));
    out->position = malloc(((size_t)sk->joint_count * 3 + 1) * sizeof(float));
    float *global = malloc(((size_t)sk->joint_count * 16 + 1) * sizeof(float));
    if (out->rotation == NULL || out->position == NULL || global == NULL) {
        free(global);
        return false;
    }
    matrix_rotation(sk->root_transform, out->root_rotation);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        int32_t p = sk->parents[j];
        const float *parent_rotation = p >= 0 ? &out->rotation[4 * p] : out->root_rotation;
        glm_quat_mul((float *)parent_rotation, &sk->rest_rotation[4 * j], &out->rotation[4 * j]);
        float local[16];
        crowd__import_m4_from_trs(&sk->rest_translation[3 * j], &sk->rest_rotation[4 * j],
                                  &sk->rest_scale[3 * j], local);
        crowd__import_m4_mul(p >= 0 ? &global[16 * p] : sk->root_transform, local, &global[16 * j]);
        memcpy(&out->position[3 * j], &global[16 * j + 12], 3 * sizeof(float));
    }
    free(global);
    return true;
}

static void rest_pose_free(rest_pose *pose) {
    free(pose->rotation);
    free(pose->position);
}

static bool near_identity(const float q[4]) {
    return fabsf(q[0]) <= SAME_REST && fabsf(q[1]) <= SAME_REST && fabsf(q[2]) <= SAME_REST;
}

static bool near3(const float *a, const float *b) {
    for (int c = 0; c < 3; c++) {
        if (fabsf(a[c] - b[c]) > SAME_REST * fmaxf(1.0f, fabsf(a[c]))) {
            return false;
        }
    }
    return true;
}

static bool descends(const crowd_skeleton *sk, int32_t joint, int32_t ancestor) {
    for (int32_t j = sk->parents[joint]; j >= 0; j = sk->parents[j]) {
        if (j == ancestor) {
            return true;
        }
    }
    return false;
}

/* Unit direction from joint `from` to `to` at rest; false when they coincide. */
static bool bone_direction(const rest_pose *pose, int32_t from, int32_t to, vec3 out) {
    glm_vec3_sub(&pose->position[3 * to], &pose->position[3 * from], out);
    if (glm_vec3_norm(out) < 1e-6f) {
        return false;
    }
    glm_vec3_normalize(out);
    return true;
}

/* Orthonormal frame (columns) of a primary direction and a secondary one. */
static void triad(const vec3 primary, const vec3 secondary, mat3 out) {
    vec3 e2, e3;
    glm_vec3_cross((float *)primary, (float *)secondary, e2);
    glm_vec3_normalize(e2);
    glm_vec3_cross((float *)primary, e2, e3);
    glm_vec3_copy((float *)primary, out[0]);
    glm_vec3_copy(e2, out[1]);
    glm_vec3_copy(e3, out[2]);
}

/* A of character joint j: the rotation that turns its bones (to its
 * matched children, those whose file joints descend from j's) onto the
 * file's at rest. One bone: the shortest arc; two or more: the rotation
 * taking the frame of the first bone and the one most across it (TRIAD)
 * onto the file's, exact when the file's bones are the character's turned
 * rigidly. Identity below ALIGN_MIN_RAD, or without bones. */
static void alignment(const crowd_skeleton *character, const crowd_skeleton *file,
                      const rest_pose *rc, const rest_pose *rf, const int32_t *source, uint32_t j,
                      float out[4]) {
    glm_quat_identity(out);
    vec3 dc[2], df[2];
    uint32_t bones = 0;
    float across = 0.05f; /* sine of the angle a second bone must make with the first */
    for (uint32_t c = j + 1; c < character->joint_count; c++) {
        vec3 vc, vf, cross;
        if (character->parents[c] != (int32_t)j || source[c] < 0 ||
            !descends(file, source[c], source[j]) ||
            !bone_direction(rc, (int32_t)j, (int32_t)c, vc) ||
            !bone_direction(rf, source[j], source[c], vf)) {
            continue;
        }
        if (bones == 0) {
            glm_vec3_copy(vc, dc[0]);
            glm_vec3_copy(vf, df[0]);
            bones = 1;
            continue;
        }
        glm_vec3_cross(dc[0], vc, cross);
        if (glm_vec3_norm(cross) > across) {
            across = glm_vec3_norm(cross);
            glm_vec3_copy(vc, dc[1]);
            glm_vec3_copy(vf, df[1]);
            bones = 2;
        }
    }
    versor q;
    if (bones == 1) {
        glm_quat_from_vecs(dc[0], df[0], q);
    } else if (bones == 2) {
        mat3 fc, ff, fc_t, a;
        triad(dc[0], dc[1], fc);
        triad(df[0], df[1], ff);
        glm_mat3_transpose_to(fc, fc_t);
        glm_mat3_mul(ff, fc_t, a);
        glm_mat3_quat(a, q);
        glm_quat_normalize(q);
    } else {
        return;
    }
    if (2.0f * acosf(fminf(1.0f, fabsf(q[3]))) > ALIGN_MIN_RAD) {
        glm_quat_copy(q, out);
    }
}

static float hip_height(const rest_pose *pose, const int32_t *joints, uint32_t count,
                        int32_t root) {
    float lowest = pose->position[3 * root + 1];
    for (uint32_t i = 0; i < count; i++) {
        lowest = fminf(lowest, pose->position[3 * joints[i] + 1]);
    }
    return pose->position[3 * root + 1] - lowest;
}

static uint32_t depth(const crowd_skeleton *sk, int32_t joint) {
    uint32_t d = 0;
    for (int32_t j = sk->parents[joint]; j >= 0; j = sk->parents[j]) {
        d++;
    }
    return d;
}

static void plan_root(const crowd_skeleton *character, const crowd_skeleton *file,
                      const rest_pose *rc, const rest_pose *rf, const anim_match *match,
                      float root_scale, anim_retarget *out) {
    out->root = -1;
    uint32_t best = UINT32_MAX, count = 0;
    int32_t *mine = malloc(((size_t)character->joint_count + 1) * sizeof *mine);
    int32_t *theirs = malloc(((size_t)character->joint_count + 1) * sizeof *theirs);
    for (uint32_t j = 0; j < character->joint_count; j++) {
        if (match->source[j] < 0) {
            continue;
        }
        if (mine != NULL && theirs != NULL) {
            mine[count] = (int32_t)j;
            theirs[count++] = match->source[j];
        }
        uint32_t d = depth(file, match->source[j]);
        if (d < best) {
            best = d;
            out->root = (int32_t)j;
        }
    }
    out->root_scale = 1.0f;
    if (root_scale > 0.0f) {
        out->root_scale = root_scale;
    } else if (out->root >= 0 && mine != NULL && theirs != NULL) {
        float hc = hip_height(rc, mine, count, out->root);
        float hf = hip_height(rf, theirs, count, match->source[out->root]);
        out->root_scale = hc > 1e-6f && hf > 1e-6f ? hc / hf : 1.0f;
    }
    free(mine);
    free(theirs);
}

crowd_result crowd__anim_retarget_plan(const crowd_skeleton *character, const crowd_skeleton *file,
                                       const anim_match *match, float root_scale,
                                       anim_retarget *out, const char *path, crowd_error *error) {
    memset(out, 0, sizeof *out);
    uint32_t n = character->joint_count;
    out->character = character;
    out->joint_count = n;
    out->source = match->source;
    out->left = malloc(((size_t)n * 4 + 1) * sizeof(float));
    out->right = malloc(((size_t)n * 4 + 1) * sizeof(float));
    out->copy = calloc((size_t)n + 1, sizeof *out->copy);
    float *turned = malloc(((size_t)n * 4 + 1) * sizeof(float));
    rest_pose rc = {0}, rf = {0};
    bool ok = out->left && out->right && out->copy && turned && rest_pose_make(character, &rc) &&
              rest_pose_make(file, &rf);
    for (uint32_t j = 0; ok && j < n; j++) {
        int32_t p = character->parents[j], f = match->source[j];
        const float *turned_parent = p >= 0 ? &turned[4 * p] : rc.root_rotation;
        float a[4];
        if (f < 0) {
            glm_quat_mul((float *)turned_parent, &character->rest_rotation[4 * j], &turned[4 * j]);
            continue;
        }
        alignment(character, file, &rc, &rf, match->source, j, a);
        glm_quat_mul(a, &rc.rotation[4 * j], &turned[4 * j]);
        int32_t fp = file->parents[f];
        float inverse[4], d[4];
        glm_quat_inv((float *)turned_parent, inverse);
        glm_quat_mul(inverse, fp >= 0 ? &rf.rotation[4 * fp] : rf.root_rotation, &out->left[4 * j]);
        glm_quat_inv(&rf.rotation[4 * f], inverse);
        glm_quat_mul(inverse, &turned[4 * j], d);
        memcpy(&out->right[4 * j], d, sizeof d);
        out->copy[j] = near_identity(&out->left[4 * j]) && near_identity(d) &&
                       near3(&character->rest_translation[3 * j], &file->rest_translation[3 * f]) &&
                       near3(&character->rest_scale[3 * j], &file->rest_scale[3 * f]);
        out->retargeted += !out->copy[j];
    }
    if (ok) {
        plan_root(character, file, &rc, &rf, match, root_scale, out);
    }
    free(turned);
    rest_pose_free(&rc);
    rest_pose_free(&rf);
    if (!ok) {
        crowd__anim_retarget_free(out);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    return CROWD_OK;
}

void crowd__anim_retarget_free(anim_retarget *plan) {
    free(plan->left);
    free(plan->right);
    free(plan->copy);
    plan->left = plan->right = NULL;
    plan->copy = NULL;
}

/* What one track's keys become. */
typedef enum turn { TURN_COPY, TURN_ROTATE, TURN_ROOT, TURN_SCALE } turn;

static bool copy_track(const crowd_track *in, crowd_track *out, uint32_t components) {
    size_t values =
        (size_t)in->key_count * components * (in->interpolation == CROWD_INTERP_CUBIC ? 3u : 1u);
    *out = *in;
    out->times_s = malloc(((size_t)in->key_count + 1) * sizeof *out->times_s);
    out->values = malloc((values + 1) * sizeof *out->values);
    if (out->times_s == NULL || out->values == NULL) {
        return false;
    }
    memcpy(out->times_s, in->times_s, in->key_count * sizeof *out->times_s);
    memcpy(out->values, in->values, values * sizeof *out->values);
    return true;
}

/* Every value (cubic tangents too) through the joint's linear map. */
static void turn_values(const anim_retarget *plan, uint32_t j, const crowd_skeleton *file, turn how,
                        crowd_track *track, uint32_t components) {
    size_t vectors =
        (size_t)track->key_count * (track->interpolation == CROWD_INTERP_CUBIC ? 3u : 1u);
    int32_t f = plan->source[j];
    for (size_t v = 0; v < vectors; v++) {
        float *value = &track->values[v * components];
        if (how == TURN_ROTATE) {
            float q[4];
            glm_quat_mul(&plan->left[4 * j], value, q);
            glm_quat_mul(q, &plan->right[4 * j], value);
        } else if (how == TURN_ROOT) {
            vec3 t;
            glm_quat_rotatev(&plan->left[4 * j], value, t);
            glm_vec3_scale(t, plan->root_scale, value);
        } else if (how == TURN_SCALE) {
            for (uint32_t c = 0; c < 3; c++) {
                value[c] *= plan->character->rest_scale[3 * j + c] / file->rest_scale[3 * f + c];
            }
        }
    }
}

/* `in` copied into `out`, then turned. */
static bool take_track(const anim_retarget *plan, uint32_t j, const crowd_skeleton *file, turn how,
                       const crowd_track *in, crowd_track *out, uint32_t components) {
    if (!copy_track(in, out, components)) {
        return false;
    }
    turn_values(plan, j, file, how, out, components);
    return true;
}

static bool scales_divide(const crowd_skeleton *file, int32_t f) {
    return file->rest_scale[3 * f] != 0.0f && file->rest_scale[3 * f + 1] != 0.0f &&
           file->rest_scale[3 * f + 2] != 0.0f;
}

crowd_result crowd__anim_retarget_clip(const anim_retarget *plan, const crowd_skeleton *file,
                                       const crowd_clip *in, crowd_clip *out, const char *path,
                                       crowd_error *error) {
    out->tracks = calloc((size_t)plan->joint_count + 1, sizeof *out->tracks);
    out->name = crowd__core_copy_string(in->name);
    out->duration_s = in->duration_s;
    out->loop = in->loop;
    bool ok = out->tracks != NULL && out->name != NULL;
    for (uint32_t j = 0; ok && j < plan->joint_count; j++) {
        int32_t f = plan->source[j];
        if (f < 0) {
            continue;
        }
        const crowd_joint_tracks *from = &in->tracks[f];
        crowd_joint_tracks *to = &out->tracks[j];
        bool copy = plan->copy[j], root = (int32_t)j == plan->root;
        if (from->rotation.key_count > 0) {
            ok = take_track(plan, j, file, copy ? TURN_COPY : TURN_ROTATE, &from->rotation,
                            &to->rotation, 4);
        }
        /* Bone lengths stay the character's: only the root moves by the file's keys. */
        if (ok && from->translation.key_count > 0 && (copy || root)) {
            turn how = root && !(copy && plan->root_scale == 1.0f) ? TURN_ROOT : TURN_COPY;
            ok = take_track(plan, j, file, how, &from->translation, &to->translation, 3);
        }
        if (ok && from->scale.key_count > 0 && (copy || scales_divide(file, f))) {
            ok = take_track(plan, j, file, copy ? TURN_COPY : TURN_SCALE, &from->scale, &to->scale,
                            3);
        }
    }
    if (!ok) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    return CROWD_OK;
}
