/* The baking loop: for every global frame, sample the clip at its time
 * (crowd_anim_frame_time: k / fps, the last frame at the duration), walk
 * the hierarchy, build skinning matrices (kept: they are the BAT and they
 * are reused by the second pass), skin the mesh and encode.
 *
 * unorm16 positions are stored relative to the animation bounds, which are
 * only known after every frame has been skinned, so that encoding takes two
 * passes: pass 1 finds the bounds (positions only), pass 2 skins positions
 * and normals again from the kept matrices and encodes. Float encodings need
 * no bounds and are written in pass 1. Frames are independent, so both
 * passes run across worker threads; each worker has its own scratch and
 * writes only its frames' texels. */
#include "bake/bake_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/skin.h"

typedef struct worker_scratch {
    crowd_transform *locals;
    float *models;
    crowd_anim_cursor cursor;
    float *positions;
    float *normals;
    float min[3], max[3];
    bool non_finite;
    float skin_abs_max;
} worker_scratch;

typedef struct frames_job {
    crowd_bake *bake;
    const crowd_asset *asset;
    /* The SIMD skinner (crowd/skin.h fast path, tested against
     * crowd_skin_reference to float rounding): skinning is most of a bake. */
    crowd_skin_prepared *prepared;
    const crowd_clip **frame_clips; /* per global frame; NULL = rest pose */
    float *frame_times;
    float *skin; /* 12 * joint_count floats per frame */
    /* The step pass: per global frame, whether the next frame is of the
     * same clip, and the largest vertex distance to it. */
    bool *has_next;
    float *steps;
    worker_scratch *workers;
    bool vat_in_pass1;
    /* Progress: pass 1 and pass 2 each count one unit per frame. */
    uint32_t units_total, units_before;
    float reported;
    void (*progress)(void *user, float fraction);
    void *progress_user;
} frames_job;

void crowd__bake_pose_skin(const crowd_skeleton *skeleton, const crowd_clip *clip, float time_s,
                           crowd_anim_cursor *cursor, crowd_transform *locals, float *models,
                           float *out_skin) {
    if (clip != NULL) {
        crowd_anim_sample(skeleton, clip, time_s, cursor, locals);
    } else {
        crowd_anim_rest_pose(skeleton, locals);
    }
    crowd_anim_local_to_model(skeleton, locals, models);
    crowd_anim_skin_matrices(skeleton, models, NULL, out_skin);
}

static size_t frame_texel(const crowd_texture *texture, uint32_t rows_per_frame, uint32_t frame) {
    return (size_t)frame * rows_per_frame * texture->width;
}

static void encode_bat(const crowd_bake *bake, uint32_t frame, const float *skin) {
    size_t count = 12 * (size_t)bake->joint_count;
    size_t first = 4 * frame_texel(&bake->bat, bake->bat_rows_per_frame, frame);
    if (bake->bat.format == CROWD_TEXEL_RGBA32F) {
        memcpy((float *)bake->bat.texels + first, skin, count * sizeof(float));
        return;
    }
    uint16_t *out = (uint16_t *)bake->bat.texels + first;
    for (size_t i = 0; i < count; i++) {
        out[i] = crowd__bake_half_from_float(skin[i]);
    }
}

static void encode_vat_float(const crowd_bake *bake, uint32_t frame, const float *positions,
                             const float *normals) {
    size_t first = 4 * frame_texel(&bake->vat_position, bake->vat_rows_per_frame, frame);
    if (bake->vat_position.format == CROWD_TEXEL_RGBA32F) {
        float *p = (float *)bake->vat_position.texels + first;
        float *n = (float *)bake->vat_normal.texels + first;
        for (uint32_t v = 0; v < bake->vertex_count; v++) {
            memcpy(p + 4 * (size_t)v, positions + 3 * (size_t)v, 3 * sizeof(float));
            memcpy(n + 4 * (size_t)v, normals + 3 * (size_t)v, 3 * sizeof(float));
            p[4 * (size_t)v + 3] = 1.0f;
            n[4 * (size_t)v + 3] = 0.0f;
        }
        return;
    }
    uint16_t *p = (uint16_t *)bake->vat_position.texels + first;
    uint16_t *n = (uint16_t *)bake->vat_normal.texels + first;
    const uint16_t one = crowd__bake_half_from_float(1.0f);
    for (uint32_t v = 0; v < bake->vertex_count; v++) {
        for (int a = 0; a < 3; a++) {
            p[4 * (size_t)v + a] = crowd__bake_half_from_float(positions[3 * (size_t)v + a]);
            n[4 * (size_t)v + a] = crowd__bake_half_from_float(normals[3 * (size_t)v + a]);
        }
        p[4 * (size_t)v + 3] = one;
        n[4 * (size_t)v + 3] = 0;
    }
}

static void encode_vat_unorm(const crowd_bake *bake, uint32_t frame, const float *positions,
                             const float *normals) {
    size_t first = 4 * frame_texel(&bake->vat_position, bake->vat_rows_per_frame, frame);
    uint16_t *out = (uint16_t *)bake->vat_position.texels + first;
    for (uint32_t v = 0; v < bake->vertex_count; v++) {
        for (int a = 0; a < 3; a++) {
            out[4 * (size_t)v + a] = crowd__bake_unorm16_encode(
                positions[3 * (size_t)v + a], bake->bounds_min[a], bake->bounds_max[a]);
        }
        out[4 * (size_t)v + 3] = crowd__bake_oct_encode(normals + 3 * (size_t)v);
    }
}

static void grow_bounds(worker_scratch *ws, const float *positions, uint32_t count) {
    for (uint32_t v = 0; v < count; v++) {
        for (int a = 0; a < 3; a++) {
            float p = positions[3 * (size_t)v + a];
            if (!isfinite(p)) {
                ws->non_finite = true;
                continue;
            }
            ws->min[a] = p < ws->min[a] ? p : ws->min[a];
            ws->max[a] = p > ws->max[a] ? p : ws->max[a];
        }
    }
}

static void report_progress(void *context, uint32_t finished) {
    frames_job *job = context;
    if (job->progress == NULL) {
        return;
    }
    float fraction = (float)(job->units_before + finished) / (float)job->units_total;
    if (fraction - job->reported >= 0.005f) {
        job->reported = fraction;
        job->progress(job->progress_user, fraction);
    }
}

static void pass1_frame(void *context, uint32_t worker, uint32_t frame) {
    frames_job *job = context;
    const crowd_bake *bake = job->bake;
    const crowd_asset *asset = job->asset;
    worker_scratch *ws = &job->workers[worker];
    float *skin = job->skin + 12 * (size_t)bake->joint_count * frame;
    crowd__bake_pose_skin(&asset->skeleton, job->frame_clips[frame], job->frame_times[frame],
                          &ws->cursor, ws->locals, ws->models, skin);
    for (size_t i = 0; i < 12 * (size_t)bake->joint_count; i++) {
        float magnitude = fabsf(skin[i]);
        ws->skin_abs_max = magnitude > ws->skin_abs_max ? magnitude : ws->skin_abs_max;
    }
    if (bake->bat.texels != NULL) {
        encode_bat(bake, frame, skin);
    }
    if (bake->socket_tracks.texels != NULL) {
        crowd__bake_socket_tracks_frame(bake, asset, frame, ws->models);
    }
    crowd_skin_apply(job->prepared, skin, ws->positions, job->vat_in_pass1 ? ws->normals : NULL);
    grow_bounds(ws, ws->positions, bake->vertex_count);
    if (job->vat_in_pass1) {
        encode_vat_float(bake, frame, ws->positions, ws->normals);
    }
}

/* The largest distance a vertex moves from this frame to the next of its
 * clip, both skinned here (the frames run in parallel, so neither is kept
 * from pass 1); the worker's normal buffer holds the next frame. */
static void step_frame(void *context, uint32_t worker, uint32_t frame) {
    frames_job *job = context;
    if (!job->has_next[frame]) {
        return;
    }
    const crowd_bake *bake = job->bake;
    worker_scratch *ws = &job->workers[worker];
    size_t stride = 12 * (size_t)bake->joint_count;
    crowd_skin_apply(job->prepared, job->skin + stride * frame, ws->positions, NULL);
    crowd_skin_apply(job->prepared, job->skin + stride * (frame + 1), ws->normals, NULL);
    float most = 0.0f;
    for (size_t i = 0; i < 3 * (size_t)bake->vertex_count; i += 3) {
        float dx = ws->normals[i] - ws->positions[i],
              dy = ws->normals[i + 1] - ws->positions[i + 1],
              dz = ws->normals[i + 2] - ws->positions[i + 2];
        float d2 = dx * dx + dy * dy + dz * dz;
        most = d2 > most ? d2 : most;
    }
    job->steps[frame] = sqrtf(most);
}

/* Each clip's max_step from the step pass. */
static void finish_steps(frames_job *job) {
    crowd_bake *bake = job->bake;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        crowd_bake_clip *clip = &bake->clips[c];
        clip->max_step = 0.0f;
        for (uint32_t k = 0; k + 1 < clip->frame_count; k++) {
            clip->max_step = fmaxf(clip->max_step, job->steps[clip->first_frame + k]);
        }
    }
}

static void pass2_frame(void *context, uint32_t worker, uint32_t frame) {
    frames_job *job = context;
    const crowd_bake *bake = job->bake;
    worker_scratch *ws = &job->workers[worker];
    const float *skin = job->skin + 12 * (size_t)bake->joint_count * frame;
    crowd_skin_apply(job->prepared, skin, ws->positions, ws->normals);
    encode_vat_unorm(bake, frame, ws->positions, ws->normals);
}

static void free_job(frames_job *job, uint32_t thread_count) {
    for (uint32_t t = 0; job->workers != NULL && t < thread_count; t++) {
        worker_scratch *ws = &job->workers[t];
        free(ws->locals);
        free(ws->models);
        free(ws->cursor.keys);
        free(ws->positions);
        free(ws->normals);
    }
    free(job->workers);
    crowd_skin_prepared_destroy(job->prepared);
    free(job->frame_clips);
    free(job->frame_times);
    free(job->skin);
    free(job->has_next);
    free(job->steps);
}

static bool alloc_job(frames_job *job, uint32_t thread_count) {
    const crowd_bake *bake = job->bake;
    const crowd_asset *asset = job->asset;
    size_t joints = bake->joint_count, vertices = bake->vertex_count;
    job->frame_clips = calloc(bake->frame_count, sizeof *job->frame_clips);
    job->frame_times = calloc(bake->frame_count, sizeof *job->frame_times);
    job->skin = malloc((size_t)bake->frame_count * 12 * joints * sizeof(float));
    job->workers = calloc(thread_count, sizeof *job->workers);
    job->has_next = calloc(bake->frame_count, sizeof *job->has_next);
    job->steps = calloc(bake->frame_count, sizeof *job->steps);
    if (!job->frame_clips || !job->frame_times || !job->skin || !job->workers || !job->has_next ||
        !job->steps) {
        return false;
    }
    uint32_t cursor_size = crowd_anim_cursor_size(&asset->skeleton);
    for (uint32_t t = 0; t < thread_count; t++) {
        worker_scratch *ws = &job->workers[t];
        ws->locals = malloc(joints * sizeof *ws->locals);
        ws->models = malloc(16 * joints * sizeof(float));
        ws->cursor.keys = calloc(cursor_size, sizeof(uint32_t));
        ws->cursor.key_count = cursor_size;
        ws->positions = malloc(3 * vertices * sizeof(float));
        ws->normals = malloc(3 * vertices * sizeof(float));
        if (!ws->locals || !ws->models || !ws->cursor.keys || !ws->positions || !ws->normals) {
            return false;
        }
        crowd_asset_bind_bounds(asset, ws->min, ws->max);
    }
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        const crowd_clip *source =
            clip->source_clip == UINT32_MAX ? NULL : &asset->clips[clip->source_clip];
        crowd_clip_frames frames = crowd_bake_clip_frames(clip);
        for (uint32_t k = 0; k < clip->frame_count; k++) {
            job->frame_clips[clip->first_frame + k] = source;
            job->frame_times[clip->first_frame + k] = crowd_anim_frame_time(&frames, k);
            job->has_next[clip->first_frame + k] = k + 1 < clip->frame_count;
        }
    }
    return true;
}

/* Folds the workers' bounds into the bake and checks that the encodings can
 * hold what was computed. */
static crowd_result finish_pass1(frames_job *job, uint32_t thread_count, crowd_error *error) {
    crowd_bake *bake = job->bake;
    const char *source = job->asset->source ? job->asset->source : "";
    float skin_abs_max = 0.0f;
    memcpy(bake->bounds_min, job->workers[0].min, sizeof bake->bounds_min);
    memcpy(bake->bounds_max, job->workers[0].max, sizeof bake->bounds_max);
    for (uint32_t t = 0; t < thread_count; t++) {
        const worker_scratch *ws = &job->workers[t];
        if (ws->non_finite || !isfinite(ws->skin_abs_max)) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, source,
                                   "skinning gives non-finite positions (degenerate keys?)");
        }
        for (int a = 0; a < 3; a++) {
            bake->bounds_min[a] = fminf(bake->bounds_min[a], ws->min[a]);
            bake->bounds_max[a] = fmaxf(bake->bounds_max[a], ws->max[a]);
        }
        skin_abs_max = fmaxf(skin_abs_max, ws->skin_abs_max);
    }
    const float half_max = 65504.0f;
    if (bake->vat_position.format == CROWD_TEXEL_RGBA16F) {
        for (int a = 0; a < 3; a++) {
            if (fabsf(bake->bounds_min[a]) > half_max || fabsf(bake->bounds_max[a]) > half_max) {
                return crowd_error_set(error, CROWD_ERROR_LIMIT, source,
                                       "positions reach beyond f16's range (65504): use the "
                                       "unorm16_oct or f32 encoding");
            }
        }
    }
    if (bake->bat.format == CROWD_TEXEL_RGBA16F && skin_abs_max > half_max) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, source,
                               "skinning matrices reach %g, beyond f16's range (65504): use the "
                               "f32 BAT encoding",
                               (double)skin_abs_max);
    }
    return CROWD_OK;
}

crowd_result crowd__bake_run_frames(crowd_bake *bake, const crowd_asset *asset,
                                    const bake_run_options *options, crowd_error *error) {
    frames_job job = {
        .bake = bake,
        .asset = asset,
        .vat_in_pass1 = bake->vat_position.texels != NULL &&
                        bake->vat_position.format != CROWD_TEXEL_RGBA16_UNORM,
        .progress = options->progress,
        .progress_user = options->progress_user,
    };
    uint32_t threads = options->thread_count;
    crowd_result result = crowd_skin_prepared_create(&asset->mesh, &job.prepared, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (!alloc_job(&job, threads)) {
        free_job(&job, threads);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    bool pass2 = bake->vat_position.format == CROWD_TEXEL_RGBA16_UNORM;
    job.units_total = bake->frame_count * (pass2 ? 2u : 1u);
    crowd__bake_parallel_for(bake->frame_count, threads, pass1_frame, report_progress, &job);
    result = finish_pass1(&job, threads, error);
    if (result == CROWD_OK) {
        crowd__bake_parallel_for(bake->frame_count, threads, step_frame, NULL, &job);
        finish_steps(&job);
    }
    if (result == CROWD_OK && pass2) {
        job.units_before = bake->frame_count;
        crowd__bake_parallel_for(bake->frame_count, threads, pass2_frame, report_progress, &job);
    }
    free_job(&job, threads);
    if (result == CROWD_OK && options->progress != NULL) {
        options->progress(options->progress_user, 1.0f);
    }
    return result;
}
