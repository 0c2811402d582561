/* Each clip's animated bounds (crowd_bake_clip): the box of every played
 * position of its frames, then the sphere around the box's centre through
 * the farthest of them. Two passes over the frames, each across worker
 * threads with results kept per frame and folded in frame order, so the
 * bounds do not depend on scheduling. */
#include "bake/bake_build.h"

#include <math.h>
#include <stdlib.h>

typedef struct bounds_worker {
    float *positions, *skin;
} bounds_worker;

typedef struct bounds_job {
    crowd_bake *bake;
    const bake_played *played;
    uint32_t *frame_clip; /* clip of each global frame */
    float *frame_box;     /* 6 per frame: min, max */
    double *frame_radius; /* per frame: farthest position from its clip's centre */
    bounds_worker *workers;
} bounds_job;

static void box_frame(void *context, uint32_t worker, uint32_t frame) {
    bounds_job *job = context;
    const bounds_worker *w = &job->workers[worker];
    crowd__bake_played_positions(job->played, frame, w->skin, w->positions);
    float *box = job->frame_box + 6 * (size_t)frame;
    for (int a = 0; a < 3; a++) {
        box[a] = box[3 + a] = w->positions[a];
    }
    for (uint32_t v = 1; v < job->bake->vertex_count; v++) {
        for (int a = 0; a < 3; a++) {
            float p = w->positions[3 * (size_t)v + (size_t)a];
            /* not fminf/fmaxf: those are calls without -ffast-math */
            box[a] = p < box[a] ? p : box[a];
            box[3 + a] = p > box[3 + a] ? p : box[3 + a];
        }
    }
}

static void radius_frame(void *context, uint32_t worker, uint32_t frame) {
    bounds_job *job = context;
    const bounds_worker *w = &job->workers[worker];
    const float *centre = job->bake->clips[job->frame_clip[frame]].sphere_center;
    crowd__bake_played_positions(job->played, frame, w->skin, w->positions);
    double farthest = 0.0;
    for (uint32_t v = 0; v < job->bake->vertex_count; v++) {
        double d2 = 0.0;
        for (int a = 0; a < 3; a++) {
            double d = (double)w->positions[3 * (size_t)v + (size_t)a] - centre[a];
            d2 += d * d;
        }
        farthest = d2 > farthest ? d2 : farthest;
    }
    job->frame_radius[frame] = sqrt(farthest);
}

static void fold_boxes(const bounds_job *job) {
    crowd_bake *bake = job->bake;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        crowd_bake_clip *clip = &bake->clips[c];
        const float *first = job->frame_box + 6 * (size_t)clip->first_frame;
        for (int a = 0; a < 3; a++) {
            clip->bounds_min[a] = first[a];
            clip->bounds_max[a] = first[3 + a];
        }
        for (uint32_t k = 1; k < clip->frame_count; k++) {
            const float *box = job->frame_box + 6 * (size_t)(clip->first_frame + k);
            for (int a = 0; a < 3; a++) {
                clip->bounds_min[a] = fminf(clip->bounds_min[a], box[a]);
                clip->bounds_max[a] = fmaxf(clip->bounds_max[a], box[3 + a]);
            }
        }
        for (int a = 0; a < 3; a++) {
            clip->sphere_center[a] = 0.5f * (clip->bounds_min[a] + clip->bounds_max[a]);
        }
    }
}

/* The radius rounded up to a float, so the sphere holds every position
 * also when the distance is computed in double. */
static void fold_radii(const bounds_job *job) {
    crowd_bake *bake = job->bake;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        crowd_bake_clip *clip = &bake->clips[c];
        double radius = 0.0;
        for (uint32_t k = 0; k < clip->frame_count; k++) {
            radius = fmax(radius, job->frame_radius[clip->first_frame + k]);
        }
        float rounded = (float)radius;
        clip->sphere_radius = (double)rounded < radius ? nextafterf(rounded, INFINITY) : rounded;
    }
}

crowd_result crowd__bake_clip_bounds(crowd_bake *bake, const bake_played *played,
                                     uint32_t thread_count, crowd_error *error) {
    bounds_job job = {.bake = bake, .played = played};
    job.frame_clip = malloc(bake->frame_count * sizeof *job.frame_clip);
    job.frame_box = malloc(6 * (size_t)bake->frame_count * sizeof *job.frame_box);
    job.frame_radius = malloc(bake->frame_count * sizeof *job.frame_radius);
    job.workers = calloc(thread_count, sizeof *job.workers);
    bool ok = job.frame_clip && job.frame_box && job.frame_radius && job.workers;
    for (uint32_t t = 0; ok && t < thread_count; t++) {
        job.workers[t].positions = malloc(3 * (size_t)bake->vertex_count * sizeof(float));
        job.workers[t].skin = malloc(12 * (size_t)bake->joint_count * sizeof(float));
        ok = job.workers[t].positions != NULL && job.workers[t].skin != NULL;
    }
    if (ok) {
        for (uint32_t c = 0; c < bake->clip_count; c++) {
            for (uint32_t k = 0; k < bake->clips[c].frame_count; k++) {
                job.frame_clip[bake->clips[c].first_frame + k] = c;
            }
        }
        crowd__bake_parallel_for(bake->frame_count, thread_count, box_frame, NULL, &job);
        fold_boxes(&job);
        crowd__bake_parallel_for(bake->frame_count, thread_count, radius_frame, NULL, &job);
        fold_radii(&job);
    }
    for (uint32_t t = 0; job.workers != NULL && t < thread_count; t++) {
        free(job.workers[t].positions);
        free(job.workers[t].skin);
    }
    free(job.workers);
    free(job.frame_clip);
    free(job.frame_box);
    free(job.frame_radius);
    return ok ? CROWD_OK : crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}
