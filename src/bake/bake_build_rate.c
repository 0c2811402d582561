/* Each clip's frame rate (crowd_bake_desc.fps): frames on the source's keys
 * where they are uniformly spaced, at the key rate or the smallest multiple
 * of it whose between-frame error is within the budget.
 *
 * Why the budget: the source interpolates joint rotations between its keys
 * and then skins, so a limb sweeps an arc; interpolating baked positions
 * (vat) or skinning matrices (bat, linear in the positions) cuts the chord.
 * Frames on the keys make the bake exact at the keys; a multiple of the key
 * rate keeps them there and shortens the chords. The error is largest near
 * the middle of a step, so that is where it is measured: skinned positions
 * at the step's middle time against the average of its two frames'. */
#include "bake/bake_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RATE_CANDIDATES 20

/* Keys denser than this are resampled by the budget from 30 fps rather
 * than followed (a 1000 Hz mocap clip would not fit a texture); the budget
 * raises no rate beyond it either. */
#define MAX_KEY_RATE 240.0

/* The multiples of the base rate tried, in order: every one up to 6, then
 * steps of 1.2x to 1.33x, so that sparse keys (two keys a second) can still
 * reach MAX_KEY_RATE in a few measurements. */
static const uint32_t multiples[RATE_CANDIDATES] = {1,  2,  3,  4,  5,  6,  8,  10, 12,  16,
                                                    20, 24, 32, 40, 48, 64, 80, 96, 128, 160};

/* How far (in frames) a key may sit from the grid of its rate and still be
 * on it: float times of a long clip carry about 1e-7 of their value. */
#define ON_GRID_FRAMES 0.01

static void gaps_of(const crowd_track *track, float *min_gap) {
    for (uint32_t i = 0; i + 1 < track->key_count; i++) {
        float gap = track->times_s[i + 1] - track->times_s[i];
        if (gap > 1e-6f && gap < *min_gap) {
            *min_gap = gap;
        }
    }
}

static bool on_grid(const crowd_track *track, double rate) {
    for (uint32_t i = 0; i < track->key_count; i++) {
        double f = (double)track->times_s[i] * rate;
        if (fabs(f - floor(f + 0.5)) > ON_GRID_FRAMES) {
            return false;
        }
    }
    return true;
}

float crowd__bake_key_rate(const crowd_clip *clip, uint32_t joint_count) {
    float min_gap = INFINITY;
    for (uint32_t j = 0; j < joint_count; j++) {
        const crowd_joint_tracks *t = &clip->tracks[j];
        gaps_of(&t->translation, &min_gap);
        gaps_of(&t->rotation, &min_gap);
        gaps_of(&t->scale, &min_gap);
    }
    if (!isfinite(min_gap)) {
        return 0.0f;
    }
    double rate = 1.0 / (double)min_gap;
    double whole = floor(rate + 0.5);
    /* Exports round their times: 1 / 24 stored as a float is 24.0000006/s. */
    if (fabs(rate - whole) < 1e-3 * rate) {
        rate = whole;
    }
    if (rate > MAX_KEY_RATE) {
        return 0.0f;
    }
    for (uint32_t j = 0; j < joint_count; j++) {
        const crowd_joint_tracks *t = &clip->tracks[j];
        if (!on_grid(&t->translation, rate) || !on_grid(&t->rotation, rate) ||
            !on_grid(&t->scale, rate)) {
            return 0.0f;
        }
    }
    return (float)rate;
}

typedef struct rate_scratch {
    crowd_transform *locals;
    float *models, *skin;
    float *a, *b, *mid; /* positions: frame k, frame k + 1, the step's middle */
    crowd_anim_cursor cursor;
    float min[3], max[3]; /* of the frames skinned */
} rate_scratch;

typedef struct rate_job {
    crowd_bake *bake;
    const crowd_asset *asset;
    crowd_skin_prepared *prepared;
    rate_scratch *workers;
    /* Per clip and candidate i (multiples[i]): frames and errors. */
    uint32_t (*frames)[RATE_CANDIDATES];
    float (*error_max)[RATE_CANDIDATES];
    float (*error_mean)[RATE_CANDIDATES];
    uint32_t *measured; /* candidates measured per clip */
    float *base_rate;   /* per clip: key rate, or the default / forced rate */
    double budget;      /* absolute, model units; 0 in the first pass */
    uint32_t max_candidates;
} rate_job;

static void skin_at(const rate_job *job, rate_scratch *ws, const crowd_clip *clip, float time_s,
                    float *out) {
    crowd__bake_pose_skin(&job->asset->skeleton, clip, time_s, &ws->cursor, ws->locals, ws->models,
                          ws->skin);
    crowd_skin_apply(job->prepared, ws->skin, out, NULL);
}

static void grow(rate_scratch *ws, const float *p, uint32_t count) {
    for (uint32_t v = 0; v < count; v++) {
        for (int a = 0; a < 3; a++) {
            ws->min[a] = fminf(ws->min[a], p[3 * v + a]);
            ws->max[a] = fmaxf(ws->max[a], p[3 * v + a]);
        }
    }
}

/* Between-frame error of `clip` at `fps` (END layout): max and mean over
 * every vertex of every step. */
static void measure(const rate_job *job, rate_scratch *ws, const crowd_clip *clip, float duration_s,
                    float fps, uint32_t frame_count, float *out_max, float *out_mean) {
    uint32_t vertices = job->bake->vertex_count;
    crowd_clip_frames frames = {fps, duration_s, frame_count, CROWD_FRAMES_END};
    double sum = 0.0;
    float max = 0.0f;
    skin_at(job, ws, clip, 0.0f, ws->a);
    grow(ws, ws->a, vertices);
    for (uint32_t k = 0; k + 1 < frame_count; k++) {
        float t0 = crowd_anim_frame_time(&frames, k), t1 = crowd_anim_frame_time(&frames, k + 1);
        skin_at(job, ws, clip, t1, ws->b);
        grow(ws, ws->b, vertices);
        skin_at(job, ws, clip, 0.5f * (t0 + t1), ws->mid);
        for (uint32_t v = 0; v < vertices; v++) {
            double d2 = 0.0;
            for (int a = 0; a < 3; a++) {
                double lerp = 0.5 * ((double)ws->a[3 * v + a] + ws->b[3 * v + a]);
                double d = ws->mid[3 * v + a] - lerp;
                d2 += d * d;
            }
            float e = (float)sqrt(d2);
            sum += e;
            max = e > max ? e : max;
        }
        float *swap = ws->a;
        ws->a = ws->b;
        ws->b = swap;
    }
    uint64_t samples = (uint64_t)(frame_count - 1) * vertices;
    *out_max = max;
    *out_mean = samples > 0 ? (float)(sum / (double)samples) : 0.0f;
}

/* First pass: multiple 1 of every clip (which also gives the bounds the
 * budget is relative to); second pass: higher multiples until the budget
 * holds. */
static void rate_clip(void *context, uint32_t worker, uint32_t c) {
    rate_job *job = context;
    rate_scratch *ws = &job->workers[worker];
    const crowd_bake_clip *baked = &job->bake->clips[c];
    const crowd_clip *clip =
        baked->source_clip == UINT32_MAX ? NULL : &job->asset->clips[baked->source_clip];
    uint32_t m = job->measured[c];
    while (m < job->max_candidates) {
        if (m > 0 && (clip == NULL || job->budget == 0.0 ||
                      (double)job->error_max[c][m - 1] <= job->budget)) {
            return;
        }
        float fps = job->base_rate[c] * (float)multiples[m];
        if (m > 0 && fps > MAX_KEY_RATE) {
            return;
        }
        uint32_t frames = crowd_anim_frame_count(baked->duration_s, fps);
        job->frames[c][m] = frames;
        if (clip == NULL || frames > CROWD_BAKE_MAX_TEXTURE_SIZE) {
            /* The rest pose does not move; a clip this long is refused by
             * the layout's limit whatever its error. */
            job->error_max[c][m] = job->error_mean[c][m] = 0.0f;
        } else {
            measure(job, ws, clip, baked->duration_s, fps, frames, &job->error_max[c][m],
                    &job->error_mean[c][m]);
        }
        job->measured[c] = ++m;
        if (job->budget == 0.0) {
            return;
        }
    }
}

static void free_job(rate_job *job, uint32_t threads) {
    for (uint32_t t = 0; job->workers != NULL && t < threads; t++) {
        rate_scratch *ws = &job->workers[t];
        free(ws->locals);
        free(ws->models);
        free(ws->skin);
        free(ws->a);
        free(ws->b);
        free(ws->mid);
        free(ws->cursor.keys);
    }
    free(job->workers);
    free(job->frames);
    free(job->error_max);
    free(job->error_mean);
    free(job->measured);
    free(job->base_rate);
    crowd_skin_prepared_destroy(job->prepared);
}

static bool alloc_job(rate_job *job, uint32_t threads) {
    const crowd_asset *asset = job->asset;
    uint32_t clips = job->bake->clip_count;
    size_t joints = asset->skeleton.joint_count, vertices = asset->mesh.vertex_count;
    job->workers = calloc(threads, sizeof *job->workers);
    job->frames = calloc(clips, sizeof *job->frames);
    job->error_max = calloc(clips, sizeof *job->error_max);
    job->error_mean = calloc(clips, sizeof *job->error_mean);
    job->measured = calloc(clips, sizeof *job->measured);
    job->base_rate = calloc(clips, sizeof *job->base_rate);
    if (!job->workers || !job->frames || !job->error_max || !job->error_mean || !job->measured ||
        !job->base_rate) {
        return false;
    }
    uint32_t cursor_size = crowd_anim_cursor_size(&asset->skeleton);
    for (uint32_t t = 0; t < threads; t++) {
        rate_scratch *ws = &job->workers[t];
        ws->locals = malloc(joints * sizeof *ws->locals);
        ws->models = malloc(16 * joints * sizeof(float));
        ws->skin = malloc(12 * joints * sizeof(float));
        ws->a = malloc(3 * vertices * sizeof(float));
        ws->b = malloc(3 * vertices * sizeof(float));
        ws->mid = malloc(3 * vertices * sizeof(float));
        ws->cursor.keys = calloc(cursor_size, sizeof(uint32_t));
        ws->cursor.key_count = cursor_size;
        if (!ws->locals || !ws->models || !ws->skin || !ws->a || !ws->b || !ws->mid ||
            !ws->cursor.keys) {
            return false;
        }
        crowd_asset_bind_bounds(asset, ws->min, ws->max);
    }
    return true;
}

static double diagonal_of(const rate_job *job, uint32_t threads) {
    float min[3], max[3];
    memcpy(min, job->workers[0].min, sizeof min);
    memcpy(max, job->workers[0].max, sizeof max);
    for (uint32_t t = 1; t < threads; t++) {
        for (int a = 0; a < 3; a++) {
            min[a] = fminf(min[a], job->workers[t].min[a]);
            max[a] = fmaxf(max[a], job->workers[t].max[a]);
        }
    }
    double d2 = 0.0;
    for (int a = 0; a < 3; a++) {
        d2 += ((double)max[a] - min[a]) * ((double)max[a] - min[a]);
    }
    return sqrt(d2);
}

/* The candidate of each clip: the smallest within budget (or the highest
 * measured), then lowered one step at a time on the clip with the most
 * frames until the total fits `frames_fit`. */
static void choose(crowd_bake *bake, const rate_job *job, double budget, uint64_t frames_fit,
                   uint32_t *multiple) {
    uint64_t total = 0;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        uint32_t m = 1;
        while (m < job->measured[c] && !((double)job->error_max[c][m - 1] <= budget)) {
            m++;
        }
        multiple[c] = m;
        total += job->frames[c][m - 1];
    }
    while (total > frames_fit) {
        uint32_t widest = UINT32_MAX;
        for (uint32_t c = 0; c < bake->clip_count; c++) {
            if (multiple[c] > 1 &&
                (widest == UINT32_MAX ||
                 job->frames[c][multiple[c] - 1] > job->frames[widest][multiple[widest] - 1])) {
                widest = c;
            }
        }
        if (widest == UINT32_MAX) {
            return; /* every clip at its lowest rate: the layout says what fits */
        }
        total -=
            job->frames[widest][multiple[widest] - 1] - job->frames[widest][multiple[widest] - 2];
        multiple[widest]--;
    }
}

crowd_result crowd__bake_choose_rates(crowd_bake *bake, const crowd_asset *asset,
                                      const bake_rate_request *request, uint32_t thread_count,
                                      crowd_error *error) {
    rate_job job = {.bake = bake, .asset = asset};
    uint32_t threads = crowd__bake_thread_count(thread_count, bake->clip_count);
    crowd_result result = crowd_skin_prepared_create(&asset->mesh, &job.prepared, error);
    if (result != CROWD_OK) {
        return result;
    }
    uint32_t *multiple = calloc(bake->clip_count, sizeof *multiple);
    if (multiple == NULL || !alloc_job(&job, threads)) {
        free(multiple);
        free_job(&job, threads);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    bool forced = request->fps > 0.0f;
    job.max_candidates = forced ? 1u : RATE_CANDIDATES;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        crowd_bake_clip *clip = &bake->clips[c];
        const crowd_clip *source =
            clip->source_clip == UINT32_MAX ? NULL : &asset->clips[clip->source_clip];
        clip->key_rate =
            source != NULL ? crowd__bake_key_rate(source, asset->skeleton.joint_count) : 0.0f;
        job.base_rate[c] = forced                  ? request->fps
                           : clip->key_rate > 0.0f ? clip->key_rate
                                                   : CROWD_BAKE_DEFAULT_FPS;
    }
    crowd__bake_parallel_for(bake->clip_count, threads, rate_clip, NULL, &job);
    double diagonal = diagonal_of(&job, threads);
    job.budget = request->budget_rel * diagonal;
    if (!forced) {
        crowd__bake_parallel_for(bake->clip_count, threads, rate_clip, NULL, &job);
    }
    choose(bake, &job, job.budget, request->frames_fit, multiple);
    bake->between_error_budget_rel = request->budget_rel;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        crowd_bake_clip *clip = &bake->clips[c];
        uint32_t m = multiple[c];
        clip->rate_multiple = multiples[m - 1];
        clip->fps = job.base_rate[c] * (float)multiples[m - 1];
        clip->layout = CROWD_FRAMES_END;
        clip->frame_count = job.frames[c][m - 1];
        clip->between_error_max = job.error_max[c][m - 1];
        clip->between_error_mean = job.error_mean[c][m - 1];
        clip->within_budget = (double)clip->between_error_max <= job.budget;
    }
    free(multiple);
    free_job(&job, threads);
    return CROWD_OK;
}
