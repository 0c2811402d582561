/* bench_anim - cost of the pose pipeline (crowd/anim.h) per joint.
 *
 * Measures sampling (one character playing forward with its cursor, the
 * same without a cursor, and 1,000 characters each with its own cursor and
 * time offset), local-to-model, sampling + local-to-model together (the
 * per-frame CPU cost of the `gpu` playback mode; issue target: under 1.5 us
 * for a 64-joint character), skinning matrices and a two-pose blend.
 * Skeletons: a synthetic 64-joint one with linear T/R/S keys at 30 Hz over
 * 2 s, and robot.glb (its longest clip) when ../shared/models has it.
 * Times are thread CPU time, each figure the minimum over several runs
 * (the machine is shared).
 *
 * Usage: bench_anim [runs]   (default 15)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "crowd/anim.h"
#include "crowd/import.h"

enum { CROWD_COUNT = 1000, SINGLE_FRAMES = 4000, CROWD_FRAMES = 40 };

/* Thread CPU time: on a shared machine a run that gets descheduled would
 * otherwise count the other process's time slice. */
static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Keeps results alive so the compiler cannot drop the work. */
static volatile float sink;

static void consume(const float *values, size_t count) {
    float sum = 0;
    for (size_t i = 0; i < count; i += 7) {
        sum += values[i];
    }
    sink += sum;
}

static float *alloc_floats(size_t count) {
    float *p = malloc(count * sizeof *p);
    if (p == NULL) {
        fprintf(stderr, "bench_anim: out of memory\n");
        exit(1);
    }
    return p;
}

static void fill_track(crowd_track *track, uint32_t keys, int components, float seed) {
    track->key_count = keys;
    track->interpolation = CROWD_INTERP_LINEAR;
    track->times_s = alloc_floats(keys);
    track->values = alloc_floats((size_t)keys * (size_t)components);
    for (uint32_t k = 0; k < keys; k++) {
        float t = (float)k / 30.0f;
        track->times_s[k] = t;
        float *v = track->values + (size_t)k * (size_t)components;
        if (components == 4) {
            /* a smooth swing about a tilted axis */
            float angle = 0.6f * sinf(2.0f * t + seed);
            float s = sinf(angle / 2);
            v[0] = 0.6f * s;
            v[1] = 0.8f * s;
            v[2] = 0.0f;
            v[3] = cosf(angle / 2);
        } else {
            for (int i = 0; i < components; i++) {
                v[i] = 1.0f + 0.1f * sinf(3.0f * t + seed + (float)i);
            }
        }
    }
}

/* 64 joints in a tree of short chains, every joint keyed in T, R and S at
 * 30 Hz for 2 s (61 linear keys per track). */
static crowd_asset *synthetic_asset(void) {
    enum { J = 64, KEYS = 61 };
    crowd_asset *asset = crowd_asset_create();
    if (asset == NULL) {
        exit(1);
    }
    crowd_skeleton *s = &asset->skeleton;
    s->joint_count = J;
    s->names = calloc(J, sizeof *s->names);
    s->parents = malloc(J * sizeof *s->parents);
    s->rest_translation = alloc_floats(3 * J);
    s->rest_rotation = alloc_floats(4 * J);
    s->rest_scale = alloc_floats(3 * J);
    s->inverse_bind = alloc_floats(16 * J);
    for (int j = 0; j < J; j++) {
        s->parents[j] = j == 0 ? -1 : (j % 8 == 1 ? 0 : j - 1);
        for (int i = 0; i < 3; i++) {
            s->rest_translation[3 * j + i] = i == 1 ? 0.1f : 0.0f;
            s->rest_scale[3 * j + i] = 1.0f;
        }
        for (int i = 0; i < 4; i++) {
            s->rest_rotation[4 * j + i] = i == 3 ? 1.0f : 0.0f;
        }
        for (int i = 0; i < 16; i++) {
            s->inverse_bind[16 * j + i] = i % 5 == 0 ? 1.0f : 0.0f;
        }
    }
    asset->clip_count = 1;
    asset->clips = calloc(1, sizeof *asset->clips);
    crowd_clip *clip = &asset->clips[0];
    clip->name = strdup("synthetic");
    clip->duration_s = 2.0f;
    clip->loop = true;
    clip->tracks = calloc(J, sizeof *clip->tracks);
    for (int j = 0; j < J; j++) {
        fill_track(&clip->tracks[j].translation, KEYS, 3, (float)j);
        fill_track(&clip->tracks[j].rotation, KEYS, 4, (float)j * 0.37f);
        fill_track(&clip->tracks[j].scale, KEYS, 3, (float)j * 1.3f);
    }
    return asset;
}

typedef struct results {
    double sample_cursor, sample_search, sample_crowd, local_to_model, frame, skin, blend;
} results;

static double min_d(double a, double b) {
    return a < b ? a : b;
}

static void measure(const crowd_skeleton *skeleton, const crowd_clip *clip, int runs,
                    results *best) {
    uint32_t joints = skeleton->joint_count;
    uint32_t hint_count = crowd_anim_cursor_size(skeleton);
    crowd_transform *pose = malloc(joints * sizeof *pose);
    crowd_transform *pose_b = malloc(joints * sizeof *pose_b);
    float *models = alloc_floats(16 * (size_t)joints);
    float *skin = alloc_floats(12 * (size_t)joints);
    uint32_t *hints = malloc((size_t)hint_count * (CROWD_COUNT + 1) * sizeof *hints);
    crowd_anim_cursor *cursors = calloc(CROWD_COUNT + 1, sizeof *cursors);
    if (!pose || !pose_b || !hints || !cursors) {
        exit(1);
    }
    for (uint32_t c = 0; c <= CROWD_COUNT; c++) {
        cursors[c].keys = hints + (size_t)c * hint_count;
        cursors[c].key_count = hint_count;
        crowd_anim_cursor_reset(&cursors[c]);
    }
    crowd_anim_cursor *one = &cursors[CROWD_COUNT];
    const double dt = 1.0 / 60.0;
    double per_joint_frame = 1.0 / ((double)SINGLE_FRAMES * joints);
    *best = (results){1e30, 1e30, 1e30, 1e30, 1e30, 1e30, 1e30};
    crowd_anim_sample(skeleton, clip, 0.0f, NULL, pose_b);
    for (int run = 0; run < runs; run++) {
        double t0 = now_ns();
        for (int f = 0; f < SINGLE_FRAMES; f++) {
            crowd_anim_sample(skeleton, clip, (float)(f * dt), one, pose);
        }
        double t1 = now_ns();
        consume(pose[0].rotation, 4);
        best->sample_cursor = min_d(best->sample_cursor, (t1 - t0) * per_joint_frame);

        t0 = now_ns();
        for (int f = 0; f < SINGLE_FRAMES; f++) {
            crowd_anim_sample(skeleton, clip, (float)(f * dt), NULL, pose);
        }
        t1 = now_ns();
        consume(pose[0].rotation, 4);
        best->sample_search = min_d(best->sample_search, (t1 - t0) * per_joint_frame);

        /* 1,000 characters, each at its own offset, all advancing together:
         * the hints and the pose of one character are cold when it comes
         * round again, as in a real crowd. */
        t0 = now_ns();
        for (int f = 0; f < CROWD_FRAMES; f++) {
            for (int c = 0; c < CROWD_COUNT; c++) {
                crowd_anim_sample(skeleton, clip, (float)(f * dt + c * 0.0137), &cursors[c], pose);
            }
        }
        t1 = now_ns();
        consume(pose[0].rotation, 4);
        best->sample_crowd =
            min_d(best->sample_crowd, (t1 - t0) / ((double)CROWD_FRAMES * CROWD_COUNT * joints));

        t0 = now_ns();
        for (int f = 0; f < SINGLE_FRAMES; f++) {
            crowd_anim_local_to_model(skeleton, pose, models);
        }
        t1 = now_ns();
        consume(models, 16 * (size_t)joints);
        best->local_to_model = min_d(best->local_to_model, (t1 - t0) * per_joint_frame);

        t0 = now_ns();
        for (int f = 0; f < SINGLE_FRAMES; f++) {
            crowd_anim_sample(skeleton, clip, (float)(f * dt), one, pose);
            crowd_anim_local_to_model(skeleton, pose, models);
        }
        t1 = now_ns();
        consume(models, 16 * (size_t)joints);
        best->frame = min_d(best->frame, (t1 - t0) * per_joint_frame);

        t0 = now_ns();
        for (int f = 0; f < SINGLE_FRAMES; f++) {
            crowd_anim_skin_matrices(skeleton, models, NULL, skin);
        }
        t1 = now_ns();
        consume(skin, 12 * (size_t)joints);
        best->skin = min_d(best->skin, (t1 - t0) * per_joint_frame);

        const crowd_transform *poses[2] = {pose, pose_b};
        float weights[2] = {0.3f, 0.7f};
        crowd_transform *blended = malloc(joints * sizeof *blended);
        if (blended == NULL) {
            exit(1);
        }
        t0 = now_ns();
        for (int f = 0; f < SINGLE_FRAMES; f++) {
            weights[0] = (float)(f % 100) / 100.0f + 0.01f;
            crowd_anim_blend(skeleton, poses, weights, 2, blended);
        }
        t1 = now_ns();
        consume(blended[0].rotation, 4);
        free(blended);
        best->blend = min_d(best->blend, (t1 - t0) * per_joint_frame);
    }
    free(pose);
    free(pose_b);
    free(models);
    free(skin);
    free(hints);
    free(cursors);
}

static void print_results(const char *name, uint32_t joints, const results *r) {
    uint32_t n = joints;
    printf("%-22s %6u  %-40s %9.1f %9.2f\n", name, n, "sample, 1 character, cursor",
           r->sample_cursor * n, r->sample_cursor);
    printf("%-22s %6u  %-40s %9.1f %9.2f\n", name, n, "sample, 1 character, no cursor (search)",
           r->sample_search * n, r->sample_search);
    printf("%-22s %6u  %-40s %9.1f %9.2f\n", name, n, "sample, 1000 characters, own cursors",
           r->sample_crowd * n, r->sample_crowd);
    printf("%-22s %6u  %-40s %9.1f %9.2f\n", name, n, "local-to-model", r->local_to_model * n,
           r->local_to_model);
    printf("%-22s %6u  %-40s %9.1f %9.2f\n", name, n, "sample + local-to-model (1 character)",
           r->frame * n, r->frame);
    printf("%-22s %6u  %-40s %9.1f %9.2f\n", name, n, "skin matrices", r->skin * n, r->skin);
    printf("%-22s %6u  %-40s %9.1f %9.2f\n", name, n, "blend, 2 poses", r->blend * n, r->blend);
}

static void print_cpu(void) {
    char cpu[256];
    if (bench_cpu_name(cpu, sizeof cpu)) {
        printf("cpu: %s\n", cpu);
    }
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 15;
    if (runs < 1) {
        fprintf(stderr, "usage: bench_anim [runs]\n");
        return 1;
    }
    print_cpu();
    printf("thread CPU time, minimum of %d runs; one thread; %d frames per single-character run, "
           "%d x %d for the crowd\n\n",
           runs, SINGLE_FRAMES, CROWD_FRAMES, CROWD_COUNT);
    printf("%-22s %6s  %-40s %9s %9s\n", "skeleton", "joints", "job", "ns/frame", "ns/joint");

    crowd_asset *synthetic = synthetic_asset();
    results r;
    measure(&synthetic->skeleton, &synthetic->clips[0], runs, &r);
    print_results("synthetic (61 keys)", synthetic->skeleton.joint_count, &r);
    double frame_us = r.frame * synthetic->skeleton.joint_count / 1000.0;
    crowd_asset_destroy(synthetic);

    char path[1024];
    snprintf(path, sizeof path, "%s/robot.glb", CROWD_MODELS_DIR);
    crowd_asset *robot = NULL;
    crowd_error error;
    if (crowd_import_file(path, NULL, &robot, &error) == CROWD_OK && robot->clip_count > 0) {
        uint32_t longest = 0;
        for (uint32_t c = 1; c < robot->clip_count; c++) {
            if (robot->clips[c].duration_s > robot->clips[longest].duration_s) {
                longest = c;
            }
        }
        char label[64];
        snprintf(label, sizeof label, "robot.glb %.12s", robot->clips[longest].name);
        measure(&robot->skeleton, &robot->clips[longest], runs, &r);
        print_results(label, robot->skeleton.joint_count, &r);
    } else {
        printf("robot.glb: skipped (%s)\n", robot == NULL ? error.reason : "no clips");
    }
    crowd_asset_destroy(robot);

    printf("\nsample + local-to-model, 64 joints: %.3f us per frame (issue target < 1.5 us): %s\n",
           frame_us, frame_us < 1.5 ? "met" : "NOT met");
    return 0;
}
