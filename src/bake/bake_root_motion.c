/* Root motion extraction (crowd_bake_desc.root_motion): a copy of the asset
 * whose root joint plays in place, and each baked clip's curve.
 *
 * At every key time of the root's translation and rotation tracks (and at
 * 0 and the duration) the source pose is sampled; the root's model matrix
 * M gives its horizontal path and its turn about +Y since time 0, hence
 * the model origin's motion RM = T(o) R_y(h) (crowd/anim.h). The in-place
 * root is RM^-1 M, written back as its local transform P^-1 RM^-1 M (P its
 * parent's model matrix, the file's root transform for a root joint) in
 * new linear tracks at those times. Every other track is the source's, so
 * the descendants follow the root, and everything that samples the copy
 * (the frames, the runtime clips, the cpu and gpu modes) agrees. At the
 * key times the result is exact; between them the new tracks interpolate
 * linearly (a cubic root track is resampled at its keys). */
#define _POSIX_C_SOURCE 200809L

#include "bake/bake_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

static const char *source_of(const crowd_asset *asset) {
    return asset->source != NULL ? asset->source : "";
}

static uint32_t components_of(const crowd_track *track, uint32_t width) {
    return track->interpolation == CROWD_INTERP_CUBIC ? 3 * width : width;
}

/* Whether a translation track holds more than one value. */
static bool track_moves(const crowd_track *track) {
    if (track->key_count < 2 || track->values == NULL) {
        return false;
    }
    uint32_t stride = components_of(track, 3), at = stride == 9 ? 3 : 0;
    for (uint32_t k = 1; k < track->key_count; k++) {
        for (uint32_t c = 0; c < 3; c++) {
            if (track->values[k * stride + at + c] != track->values[at + c]) {
                return true;
            }
        }
    }
    return false;
}

static crowd_result pick_root_joint(const crowd_asset *asset, const char *name, uint32_t *out,
                                    crowd_error *error) {
    if (name != NULL) {
        int32_t found = crowd_asset_find_joint(asset, name);
        if (found < 0) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source_of(asset),
                                   "root joint '%s' is not a joint of the model (joint 0 is '%s')",
                                   name, asset->skeleton.names[0]);
        }
        *out = (uint32_t)found;
        return CROWD_OK;
    }
    *out = 0;
    for (uint32_t j = 0; j < asset->skeleton.joint_count; j++) {
        for (uint32_t c = 0; c < asset->clip_count; c++) {
            if (track_moves(&asset->clips[c].tracks[j].translation)) {
                *out = j;
                return CROWD_OK;
            }
        }
    }
    return CROWD_OK;
}

static int compare_floats(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* 0, the duration and the root's key times inside the clip, ascending,
 * each once; out holds 2 + both tracks' keys. */
static uint32_t key_times(const crowd_clip *clip, uint32_t joint, float *out) {
    const crowd_track *tracks[2] = {&clip->tracks[joint].translation,
                                    &clip->tracks[joint].rotation};
    uint32_t n = 0;
    out[n++] = 0.0f;
    out[n++] = clip->duration_s;
    for (int t = 0; t < 2; t++) {
        for (uint32_t k = 0; k < tracks[t]->key_count; k++) {
            float time = tracks[t]->times_s[k];
            if (time > 0.0f && time < clip->duration_s) {
                out[n++] = time;
            }
        }
    }
    qsort(out, n, sizeof *out, compare_floats);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (kept == 0 || out[i] != out[kept - 1]) {
            out[kept++] = out[i];
        }
    }
    return kept;
}

/* Column-major affine 4x4 in double. */
typedef struct affine {
    double m[16];
} affine;

static affine affine_of(const float *m) {
    affine a;
    for (int i = 0; i < 16; i++) {
        a.m[i] = m[i];
    }
    return a;
}

static affine affine_mul(const affine *a, const affine *b) {
    affine out;
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            double sum = 0.0;
            for (int k = 0; k < 4; k++) {
                sum += a->m[4 * k + r] * b->m[4 * c + k];
            }
            out.m[4 * c + r] = sum;
        }
    }
    return out;
}

/* The inverse of an affine matrix (its last row 0 0 0 1). */
static affine affine_inverse(const affine *a) {
    const double *m = a->m;
    double c00 = m[5] * m[10] - m[9] * m[6], c01 = m[9] * m[2] - m[1] * m[10],
           c02 = m[1] * m[6] - m[5] * m[2];
    double det = m[0] * c00 + m[4] * c01 + m[8] * c02;
    double inv = 1.0 / det;
    affine out = {{0}};
    double *o = out.m;
    o[0] = c00 * inv;
    o[1] = c01 * inv;
    o[2] = c02 * inv;
    o[4] = (m[8] * m[6] - m[4] * m[10]) * inv;
    o[5] = (m[0] * m[10] - m[8] * m[2]) * inv;
    o[6] = (m[4] * m[2] - m[0] * m[6]) * inv;
    o[8] = (m[4] * m[9] - m[8] * m[5]) * inv;
    o[9] = (m[8] * m[1] - m[0] * m[9]) * inv;
    o[10] = (m[0] * m[5] - m[4] * m[1]) * inv;
    for (int r = 0; r < 3; r++) {
        o[12 + r] = -(o[r] * m[12] + o[4 + r] * m[13] + o[8 + r] * m[14]);
    }
    o[15] = 1.0;
    return out;
}

/* Unit quaternion (x, y, z, w) of a rotation matrix given as three unit
 * columns (Shepperd's method: the largest diagonal term first). */
static void quat_of_columns(const double *x, const double *y, const double *z, double q[4]) {
    double trace = x[0] + y[1] + z[2];
    if (trace > 0.0) {
        double s = 2.0 * sqrt(1.0 + trace);
        q[3] = 0.25 * s, q[0] = (y[2] - z[1]) / s, q[1] = (z[0] - x[2]) / s,
        q[2] = (x[1] - y[0]) / s;
    } else if (x[0] > y[1] && x[0] > z[2]) {
        double s = 2.0 * sqrt(1.0 + x[0] - y[1] - z[2]);
        q[3] = (y[2] - z[1]) / s, q[0] = 0.25 * s, q[1] = (y[0] + x[1]) / s,
        q[2] = (z[0] + x[2]) / s;
    } else if (y[1] > z[2]) {
        double s = 2.0 * sqrt(1.0 + y[1] - x[0] - z[2]);
        q[3] = (z[0] - x[2]) / s, q[0] = (y[0] + x[1]) / s, q[1] = 0.25 * s,
        q[2] = (z[1] + y[2]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + z[2] - x[0] - y[1]);
        q[3] = (x[1] - y[0]) / s, q[0] = (z[0] + x[2]) / s, q[1] = (z[1] + y[2]) / s,
        q[2] = 0.25 * s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) {
        q[i] /= n;
    }
}

/* The rotation of an affine matrix's first three columns, each divided by
 * the scale along it (scale NULL: by its own length). */
static void rotation_of(const affine *a, const float *scale, double q[4]) {
    double columns[3][3];
    for (int c = 0; c < 3; c++) {
        double length = scale != NULL
                            ? scale[c]
                            : sqrt(a->m[4 * c] * a->m[4 * c] + a->m[4 * c + 1] * a->m[4 * c + 1] +
                                   a->m[4 * c + 2] * a->m[4 * c + 2]);
        for (int r = 0; r < 3; r++) {
            columns[c][r] = length != 0.0 ? a->m[4 * c + r] / length : 0.0;
        }
    }
    quat_of_columns(columns[0], columns[1], columns[2], q);
}

/* The turn about +Y of rotation a relative to b (a * b^-1's twist). */
static double heading_between(const double a[4], const double b[4]) {
    /* a * conj(b): only y and w are needed */
    double y = -a[3] * b[1] + a[1] * b[3] - a[2] * b[0] + a[0] * b[2];
    double w = a[3] * b[3] + a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    double h = 2.0 * atan2(y, w);
    return h > pi ? h - 2.0 * pi : (h <= -pi ? h + 2.0 * pi : h);
}

/* Scratch for one clip's sampling. */
typedef struct extract_scratch {
    crowd_transform *pose;
    float *models;
    float *times;
    float *samples;
} extract_scratch;

/* One key: the sample (x, z, h) and the in-place local transform. */
static void key_at(const crowd_skeleton *skeleton, const crowd_clip *clip, uint32_t joint,
                   float time, const double start_rotation[4], const double start[2],
                   double *heading, extract_scratch *s, float translation[3], float rotation[4],
                   float sample[3]) {
    crowd_anim_sample(skeleton, clip, time, NULL, s->pose);
    crowd_anim_local_to_model(skeleton, s->pose, s->models);
    affine model = affine_of(s->models + 16 * (size_t)joint);
    double q[4];
    rotation_of(&model, NULL, q);
    double h = heading_between(q, start_rotation);
    /* unwrapped: the whole turns nearest the heading before */
    h += 2.0 * pi * nearbyint((*heading - h) / (2.0 * pi));
    *heading = h;
    double path_x = model.m[12] - start[0], path_z = model.m[14] - start[1];
    sample[0] = (float)path_x, sample[1] = (float)path_z, sample[2] = (float)h;
    /* the sample as stored is what the runtime applies, so undo exactly it */
    double c = cos(sample[2]), sn = sin(sample[2]);
    double ox = start[0] + sample[0] - (c * start[0] + sn * start[1]);
    double oz = start[1] + sample[1] - (-sn * start[0] + c * start[1]);
    /* undo = R_y(-h) T(-o) */
    affine undo = {{c, 0, sn, 0, 0, 1, 0, 0, -sn, 0, c, 0, 0, 0, 0, 1}};
    undo.m[12] = -(c * ox - sn * oz);
    undo.m[14] = -(sn * ox + c * oz);
    int32_t parent = skeleton->parents[joint];
    affine parent_model =
        affine_of(parent >= 0 ? s->models + 16 * (size_t)parent : skeleton->root_transform);
    affine in_place_model = affine_mul(&undo, &model);
    affine parent_inverse = affine_inverse(&parent_model);
    affine local = affine_mul(&parent_inverse, &in_place_model);
    double lq[4];
    rotation_of(&local, s->pose[joint].scale, lq);
    for (int i = 0; i < 3; i++) {
        translation[i] = (float)local.m[12 + i];
    }
    for (int i = 0; i < 4; i++) {
        rotation[i] = (float)lq[i];
    }
}

/* New translation and rotation tracks for `joint` in dst (whose other
 * tracks are src's) and the clip's curve in s->times / s->samples; returns
 * the sample count, 0 when out of memory. */
static uint32_t edit_clip(const crowd_skeleton *skeleton, const crowd_clip *src, uint32_t joint,
                          crowd_clip *dst, float start[2], extract_scratch *s) {
    uint32_t n = key_times(src, joint, s->times);
    /* sampled as a one-shot, so that the duration is the last pose, not a
     * loop's wrap back to the first */
    crowd_clip once = *src;
    once.loop = false;
    crowd_track *translation = &dst->tracks[joint].translation;
    crowd_track *rotation = &dst->tracks[joint].rotation;
    *translation = (crowd_track){.key_count = n, .interpolation = CROWD_INTERP_LINEAR};
    *rotation = (crowd_track){.key_count = n, .interpolation = CROWD_INTERP_LINEAR};
    translation->times_s = malloc(n * sizeof(float));
    translation->values = malloc(3 * (size_t)n * sizeof(float));
    rotation->times_s = malloc(n * sizeof(float));
    rotation->values = malloc(4 * (size_t)n * sizeof(float));
    if (translation->times_s == NULL || translation->values == NULL || rotation->times_s == NULL ||
        rotation->values == NULL) {
        return 0;
    }
    memcpy(translation->times_s, s->times, n * sizeof(float));
    memcpy(rotation->times_s, s->times, n * sizeof(float));
    crowd_anim_sample(skeleton, &once, 0.0f, NULL, s->pose);
    crowd_anim_local_to_model(skeleton, s->pose, s->models);
    affine first = affine_of(s->models + 16 * (size_t)joint);
    double start_rotation[4], start_xz[2] = {first.m[12], first.m[14]}, heading = 0.0;
    rotation_of(&first, NULL, start_rotation);
    start[0] = (float)start_xz[0], start[1] = (float)start_xz[1];
    /* the runtime undoes the stored start, so the keys use it too */
    start_xz[0] = start[0], start_xz[1] = start[1];
    for (uint32_t k = 0; k < n; k++) {
        float *q = rotation->values + 4 * (size_t)k;
        key_at(skeleton, &once, joint, s->times[k], start_rotation, start_xz, &heading, s,
               translation->values + 3 * (size_t)k, q, s->samples + 3 * (size_t)k);
        /* the same hemisphere as the key before, so the slerp takes the short way */
        if (k > 0) {
            const float *p = q - 4;
            if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0.0f) {
                for (int i = 0; i < 4; i++) {
                    q[i] = -q[i];
                }
            }
        }
    }
    return n;
}

static uint32_t most_root_keys(const crowd_asset *asset, uint32_t joint) {
    uint32_t most = 0;
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        const crowd_joint_tracks *t = &asset->clips[c].tracks[joint];
        uint32_t keys = t->translation.key_count + t->rotation.key_count;
        most = keys > most ? keys : most;
    }
    return most + 2;
}

/* Every clip of copy edited; the baked clips' curves copied into bake. */
static bool edit_clips(crowd_bake *bake, const crowd_asset *asset, crowd_asset *copy,
                       uint32_t joint) {
    uint32_t capacity = most_root_keys(asset, joint);
    extract_scratch s = {
        .pose = malloc(asset->skeleton.joint_count * sizeof *s.pose),
        .models = malloc(16 * (size_t)asset->skeleton.joint_count * sizeof(float)),
        .times = malloc(capacity * sizeof(float)),
        .samples = malloc(3 * (size_t)capacity * sizeof(float)),
    };
    bool ok = s.pose != NULL && s.models != NULL && s.times != NULL && s.samples != NULL;
    for (uint32_t c = 0; ok && c < asset->clip_count; c++) {
        float start[2];
        uint32_t n =
            edit_clip(&asset->skeleton, &asset->clips[c], joint, &copy->clips[c], start, &s);
        ok = n > 0;
        for (uint32_t b = 0; ok && b < bake->clip_count; b++) {
            crowd_root_motion *motion = &bake->clips[b].root_motion;
            if (bake->clips[b].source_clip != c) {
                continue;
            }
            *motion = (crowd_root_motion){.joint = joint, .start = {start[0], start[1]}};
            motion->times_s = malloc(n * sizeof(float));
            motion->samples = malloc(3 * (size_t)n * sizeof(float));
            ok = motion->times_s != NULL && motion->samples != NULL;
            if (ok) {
                motion->sample_count = n;
                memcpy(motion->times_s, s.times, n * sizeof(float));
                memcpy(motion->samples, s.samples, 3 * (size_t)n * sizeof(float));
            }
        }
    }
    free(s.pose);
    free(s.models);
    free(s.times);
    free(s.samples);
    return ok;
}

/* The copy: the source's struct with clips and track arrays of its own;
 * the root's tracks are replaced by edit_clips. */
static crowd_asset *copy_asset(const crowd_asset *asset, uint32_t joint) {
    crowd_asset *copy = malloc(sizeof *copy);
    if (copy == NULL) {
        return NULL;
    }
    *copy = *asset;
    copy->clips = calloc(asset->clip_count, sizeof *copy->clips);
    bool ok = copy->clips != NULL;
    for (uint32_t c = 0; ok && c < asset->clip_count; c++) {
        copy->clips[c] = asset->clips[c];
        copy->clips[c].tracks = malloc(asset->skeleton.joint_count * sizeof(crowd_joint_tracks));
        ok = copy->clips[c].tracks != NULL;
        if (ok) {
            memcpy(copy->clips[c].tracks, asset->clips[c].tracks,
                   asset->skeleton.joint_count * sizeof(crowd_joint_tracks));
            /* the copy's own, so never the source's even if not made yet */
            copy->clips[c].tracks[joint].translation = (crowd_track){0};
            copy->clips[c].tracks[joint].rotation = (crowd_track){0};
        }
    }
    if (!ok) {
        for (uint32_t c = 0; copy->clips != NULL && c < asset->clip_count; c++) {
            free(copy->clips[c].tracks);
        }
        free(copy->clips);
        free(copy);
        return NULL;
    }
    return copy;
}

crowd_result crowd__bake_extract_root_motion(crowd_bake *bake, const crowd_asset *asset,
                                             const crowd_bake_desc *desc, crowd_error *error) {
    if (desc->root_motion == CROWD_ROOT_MOTION_KEEP) {
        return CROWD_OK;
    }
    if (asset->clip_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source_of(asset),
                               "root motion extraction asked for, but the model has no clips");
    }
    uint32_t joint = 0;
    crowd_result result = pick_root_joint(asset, desc->root_joint, &joint, error);
    if (result != CROWD_OK) {
        return result;
    }
    crowd_asset *copy = copy_asset(asset, joint);
    if (copy == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    /* owned from here, so that crowd_bake_destroy frees a half-made copy */
    bake->in_place_asset = copy;
    bake->in_place_joint = joint;
    if (!edit_clips(bake, asset, copy, joint)) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    bake->asset = copy;
    return CROWD_OK;
}
