/* crowd_bake_measure: how far the stored bake is from float32 CPU skinning.
 * Everything is read back through crowd_bake_vat_fetch/bat_fetch, the same
 * decode a player does, so the numbers describe the data, not the intent.
 * Frames run on worker threads; each frame keeps its own sums and the sums
 * are added in frame order, so the report does not depend on scheduling. */
#include "bake/bake_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/skin.h"

typedef struct frame_stats {
    double position_max, position_sum;
    double normal_max_deg, normal_sum_deg;
    uint64_t normal_count;
    double bat_max;
} frame_stats;

typedef struct measure_worker {
    crowd_transform *locals;
    float *models;
    crowd_anim_cursor cursor;
    float *skin, *bat_skin;
    float *positions, *normals, *bat_positions;
} measure_worker;

typedef struct measure_job {
    const crowd_bake *bake;
    const crowd_asset *asset;
    const crowd_clip **frame_clips;
    float *frame_times;
    frame_stats *stats;
    measure_worker *workers;
} measure_job;

static double distance3(const float a[3], const float b[3]) {
    double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Angle between two directions in degrees; atan2 keeps small angles exact
 * where acos(dot) would round them to 0. -1 when the reference is zero. */
static double angle_deg(const float a[3], const float b[3]) {
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1];
    double cy = (double)a[2] * b[0] - (double)a[0] * b[2];
    double cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    double cross = sqrt(cx * cx + cy * cy + cz * cz);
    if (cross == 0.0 && dot == 0.0) {
        return -1.0;
    }
    return atan2(cross, dot) * (180.0 / 3.14159265358979323846);
}

static void measure_vat(const measure_job *job, const measure_worker *w, frame_stats *stats,
                        uint32_t frame) {
    for (uint32_t v = 0; v < job->bake->vertex_count; v++) {
        float position[3], normal[3];
        crowd_bake_vat_fetch(job->bake, frame, v, position, normal);
        double error = distance3(position, w->positions + 3 * (size_t)v);
        stats->position_max = error > stats->position_max ? error : stats->position_max;
        stats->position_sum += error;
        double angle = angle_deg(normal, w->normals + 3 * (size_t)v);
        if (angle >= 0.0) {
            stats->normal_max_deg = angle > stats->normal_max_deg ? angle : stats->normal_max_deg;
            stats->normal_sum_deg += angle;
            stats->normal_count++;
        }
    }
}

static void measure_bat(const measure_job *job, const measure_worker *w, frame_stats *stats,
                        uint32_t frame) {
    for (uint32_t j = 0; j < job->bake->joint_count; j++) {
        crowd_bake_bat_fetch(job->bake, frame, j, w->bat_skin + 12 * (size_t)j);
    }
    crowd_skin_reference(&job->asset->mesh, w->bat_skin, w->bat_positions, NULL, NULL);
    for (uint32_t v = 0; v < job->bake->vertex_count; v++) {
        double error = distance3(w->bat_positions + 3 * (size_t)v, w->positions + 3 * (size_t)v);
        stats->bat_max = error > stats->bat_max ? error : stats->bat_max;
    }
}

static void measure_frame(void *context, uint32_t worker, uint32_t frame) {
    measure_job *job = context;
    measure_worker *w = &job->workers[worker];
    frame_stats *stats = &job->stats[frame];
    crowd__bake_pose_skin(&job->asset->skeleton, job->frame_clips[frame], job->frame_times[frame],
                          &w->cursor, w->locals, w->models, w->skin);
    crowd_skin_reference(&job->asset->mesh, w->skin, w->positions, w->normals, NULL);
    if (job->bake->vat_position.texels != NULL) {
        measure_vat(job, w, stats, frame);
    }
    if (job->bake->bat.texels != NULL) {
        measure_bat(job, w, stats, frame);
    }
}

static uint64_t texture_bytes(const crowd_texture *texture) {
    if (texture->texels == NULL) {
        return 0;
    }
    return (uint64_t)texture->width * texture->height *
           crowd__bake_texel_size_bytes(texture->format);
}

/* The asset clip each baked clip was made from (NULL: the rest pose). */
static crowd_result match_clips(const crowd_bake *bake, const crowd_asset *asset, measure_job *job,
                                crowd_error *error) {
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        const crowd_clip *source = NULL;
        int32_t index = crowd_asset_find_clip(asset, clip->name);
        if (index >= 0) {
            source = &asset->clips[index];
        } else if (!(asset->clip_count == 0 && strcmp(clip->name, "rest") == 0)) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->source,
                                   "baked clip '%s' is not a clip of the asset", clip->name);
        }
        if ((uint64_t)clip->first_frame + clip->frame_count > bake->frame_count) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->source,
                                   "clip '%s' runs past the last frame", clip->name);
        }
        crowd_clip_frames frames = crowd_bake_clip_frames(clip);
        for (uint32_t k = 0; k < clip->frame_count; k++) {
            job->frame_clips[clip->first_frame + k] = source;
            job->frame_times[clip->first_frame + k] = crowd_anim_frame_time(&frames, k);
        }
    }
    return CROWD_OK;
}

static void free_job(measure_job *job, uint32_t threads) {
    for (uint32_t t = 0; job->workers != NULL && t < threads; t++) {
        measure_worker *w = &job->workers[t];
        free(w->locals);
        free(w->models);
        free(w->cursor.keys);
        free(w->skin);
        free(w->bat_skin);
        free(w->positions);
        free(w->normals);
        free(w->bat_positions);
    }
    free(job->workers);
    free(job->frame_clips);
    free(job->frame_times);
    free(job->stats);
}

static bool alloc_job(measure_job *job, uint32_t threads) {
    size_t joints = job->asset->skeleton.joint_count, vertices = job->bake->vertex_count;
    uint32_t frames = job->bake->frame_count;
    job->frame_clips = calloc(frames, sizeof *job->frame_clips);
    job->frame_times = calloc(frames, sizeof *job->frame_times);
    job->stats = calloc(frames, sizeof *job->stats);
    job->workers = calloc(threads, sizeof *job->workers);
    if (!job->frame_clips || !job->frame_times || !job->stats || !job->workers) {
        return false;
    }
    uint32_t cursor_size = crowd_anim_cursor_size(&job->asset->skeleton);
    for (uint32_t t = 0; t < threads; t++) {
        measure_worker *w = &job->workers[t];
        w->locals = malloc(joints * sizeof *w->locals);
        w->models = malloc(16 * joints * sizeof(float));
        w->cursor.keys = calloc(cursor_size, sizeof(uint32_t));
        w->cursor.key_count = cursor_size;
        w->skin = malloc(12 * joints * sizeof(float));
        w->bat_skin = malloc(12 * joints * sizeof(float));
        w->positions = malloc(3 * vertices * sizeof(float));
        w->normals = malloc(3 * vertices * sizeof(float));
        w->bat_positions = malloc(3 * vertices * sizeof(float));
        if (!w->locals || !w->models || !w->cursor.keys || !w->skin || !w->bat_skin ||
            !w->positions || !w->normals || !w->bat_positions) {
            return false;
        }
    }
    return true;
}

static void sum_stats(const measure_job *job, crowd_bake_report *report) {
    const crowd_bake *bake = job->bake;
    double position_sum = 0.0, normal_sum = 0.0;
    uint64_t normal_count = 0;
    for (uint32_t f = 0; f < bake->frame_count; f++) {
        const frame_stats *s = &job->stats[f];
        report->position_error_max = fmax(report->position_error_max, s->position_max);
        report->normal_error_max_deg = fmax(report->normal_error_max_deg, s->normal_max_deg);
        report->bat_position_error_max = fmax(report->bat_position_error_max, s->bat_max);
        position_sum += s->position_sum;
        normal_sum += s->normal_sum_deg;
        normal_count += s->normal_count;
    }
    report->vertex_frames = (uint64_t)bake->frame_count * bake->vertex_count;
    if (bake->vat_position.texels != NULL && report->vertex_frames > 0) {
        report->position_error_mean = position_sum / (double)report->vertex_frames;
    }
    if (normal_count > 0) {
        report->normal_error_mean_deg = normal_sum / (double)normal_count;
    }
    double dx = (double)bake->bounds_max[0] - bake->bounds_min[0];
    double dy = (double)bake->bounds_max[1] - bake->bounds_min[1];
    double dz = (double)bake->bounds_max[2] - bake->bounds_min[2];
    report->bounds_diagonal = sqrt(dx * dx + dy * dy + dz * dz);
    if (report->bounds_diagonal > 0.0) {
        report->position_error_max_rel = report->position_error_max / report->bounds_diagonal;
        report->position_error_mean_rel = report->position_error_mean / report->bounds_diagonal;
        report->bat_position_error_max_rel =
            report->bat_position_error_max / report->bounds_diagonal;
    }
    report->vat_size_bytes = texture_bytes(&bake->vat_position) + texture_bytes(&bake->vat_normal);
    report->bat_size_bytes = texture_bytes(&bake->bat);
}

crowd_result crowd_bake_measure(const crowd_bake *bake, const crowd_asset *asset,
                                uint32_t thread_count, crowd_bake_report *out_report,
                                crowd_error *error) {
    if (bake == NULL || asset == NULL || out_report == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "bake, asset and report must not be NULL");
    }
    memset(out_report, 0, sizeof *out_report);
    if (bake->vertex_count != asset->mesh.vertex_count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->source,
                               "the bake has %u vertices, the asset %u", bake->vertex_count,
                               asset->mesh.vertex_count);
    }
    if (bake->joint_count != asset->skeleton.joint_count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->source,
                               "the bake has %u joints, the asset %u", bake->joint_count,
                               asset->skeleton.joint_count);
    }
    measure_job job = {.bake = bake, .asset = asset};
    uint32_t threads = crowd__bake_thread_count(thread_count, bake->frame_count);
    if (!alloc_job(&job, threads)) {
        free_job(&job, threads);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    crowd_result result = match_clips(bake, asset, &job, error);
    if (result == CROWD_OK) {
        crowd__bake_parallel_for(bake->frame_count, threads, measure_frame, NULL, &job);
        sum_stats(&job, out_report);
    }
    free_job(&job, threads);
    return result;
}
