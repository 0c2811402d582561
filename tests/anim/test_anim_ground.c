/* crowd_anim_clip_ground_speed against a walker whose foot speed is known
 * by construction: a pelvis 1 m up with two feet on linear tracks, each
 * planted for half the 1 s loop while it moves 0.8 m backwards (1.6 m/s)
 * and swinging forward 0.3 m up for the other half, the feet half a loop
 * apart. In place (the root stays at 0), then the same gait with the root
 * moving forward at 1.6 m/s and the planted foot still in model space (a
 * clip that keeps its root translation): both measure 1.6 m/s. Then a
 * standing clip (0), a single pose (0) and the refused inputs. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "crowd/anim.h"

enum { ROOT, PELVIS, FOOT_L, FOOT_R, JOINTS };

typedef struct walker {
    crowd_skeleton skeleton;
    int32_t parents[JOINTS];
    float rest_t[3 * JOINTS], rest_r[4 * JOINTS], rest_s[3 * JOINTS], inverse_bind[16 * JOINTS];
    crowd_joint_tracks tracks[JOINTS];
    float root_times[2], root_values[6];
    float foot_times[2][4], foot_values[2][12];
    crowd_clip clip;
} walker;

/* One foot's keys relative to the pelvis: planted (y 0) for half the
 * loop while it moves from x +0.4 to -0.4, 1.6 m/s backwards, and swinging
 * forward 0.3 m up for the other half; the right foot half a loop later.
 * Relative to the root: a root that moves forward at 1.6 m/s holds the
 * planted foot still in model space. */
static void foot_keys(walker *w, int foot) {
    static const float times[2][4] = {{0.0f, 0.5f, 0.75f, 1.0f}, {0.0f, 0.25f, 0.5f, 1.0f}};
    static const float xs[2][4] = {{0.4f, -0.4f, 0.0f, 0.4f}, {-0.4f, 0.0f, 0.4f, -0.4f}};
    static const float ys[2][4] = {{0.0f, 0.0f, 0.3f, 0.0f}, {0.0f, 0.3f, 0.0f, 0.0f}};
    float *t = w->foot_times[foot], *v = w->foot_values[foot];
    for (int k = 0; k < 4; k++) {
        t[k] = times[foot][k];
        v[3 * k] = xs[foot][k];
        v[3 * k + 1] = ys[foot][k] - 1.0f;
        v[3 * k + 2] = foot == 0 ? 0.1f : -0.1f;
    }
    w->tracks[FOOT_L + foot].translation = (crowd_track){4, CROWD_INTERP_LINEAR, t, v};
}

static void walker_init(walker *w, float root_speed) {
    memset(w, 0, sizeof *w);
    crowd_skeleton *s = &w->skeleton;
    s->joint_count = JOINTS;
    s->parents = w->parents;
    s->rest_translation = w->rest_t;
    s->rest_rotation = w->rest_r;
    s->rest_scale = w->rest_s;
    s->inverse_bind = w->inverse_bind;
    const int32_t parents[JOINTS] = {-1, ROOT, PELVIS, PELVIS};
    for (int j = 0; j < JOINTS; j++) {
        w->parents[j] = parents[j];
        w->rest_r[4 * j + 3] = 1.0f;
        w->rest_s[3 * j] = w->rest_s[3 * j + 1] = w->rest_s[3 * j + 2] = 1.0f;
        for (int i = 0; i < 4; i++) {
            w->inverse_bind[16 * j + 5 * i] = 1.0f;
        }
    }
    for (int i = 0; i < 16; i++) {
        s->root_transform[i] = i % 5 == 0 ? 1.0f : 0.0f;
    }
    w->rest_t[3 * PELVIS + 1] = 1.0f;
    /* The root goes forward root_speed m/s (+x). */
    w->root_times[0] = 0.0f;
    w->root_times[1] = 1.0f;
    w->root_values[3] = root_speed;
    w->tracks[ROOT].translation =
        (crowd_track){2, CROWD_INTERP_LINEAR, w->root_times, w->root_values};
    foot_keys(w, 0);
    foot_keys(w, 1);
    w->clip = (crowd_clip){.name = "walk", .duration_s = 1.0f, .loop = true, .tracks = w->tracks};
}

static void test_walker(float root_speed) {
    walker w;
    walker_init(&w, root_speed);
    crowd_transform pose[JOINTS];
    float models[16 * JOINTS];
    crowd_ground_speed g;
    CHECK(crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, pose, models, &g));
    printf("walker, root at %.1f m/s: ground speed %.6f m/s, %u of %u samples in contact, "
           "contact height %.6f\n",
           (double)root_speed, (double)g.speed, g.contact_samples, g.sample_count,
           (double)g.contact_height);
    CHECK_MSG(fabsf(g.speed - 1.6f) < 1e-4f, "ground speed %.6f, expected 1.6", (double)g.speed);
    /* 240 samples over 1 s; a foot is planted at every one of them. */
    CHECK(g.sample_count == 240 && g.contact_samples == 240);
    CHECK(fabsf(g.contact_height) < 1e-6f);
}

static void test_standing_and_refused(void) {
    walker w;
    walker_init(&w, 0.0f);
    crowd_transform pose[JOINTS];
    float models[16 * JOINTS];
    crowd_ground_speed g;
    /* Without foot tracks the character stands: every sample is a contact
     * that does not move. */
    w.tracks[FOOT_L].translation.key_count = 0;
    w.tracks[FOOT_R].translation.key_count = 0;
    CHECK(crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, pose, models, &g));
    CHECK_MSG(g.speed == 0.0f && g.contact_samples > 0, "standing: %.6f m/s", (double)g.speed);
    w.clip.duration_s = 0.0f;
    CHECK(crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, pose, models, &g));
    CHECK(g.speed == 0.0f && g.sample_count == 0);

    /* Refused inputs leave *out as it was. */
    walker_init(&w, 0.0f);
    crowd_ground_speed untouched = {.speed = 42.0f};
    CHECK(!crowd_anim_clip_ground_speed(NULL, &w.clip, NULL, pose, models, &untouched));
    CHECK(!crowd_anim_clip_ground_speed(&w.skeleton, NULL, NULL, pose, models, &untouched));
    CHECK(!crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, NULL, models, &untouched));
    CHECK(!crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, pose, NULL, &untouched));
    CHECK(!crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, pose, models, NULL));
    w.clip.duration_s = -1.0f;
    CHECK(!crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, pose, models, &untouched));
    w.clip.duration_s = NAN;
    CHECK(!crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, pose, models, &untouched));
    w.clip.duration_s = 1.0f;
    w.clip.tracks = NULL; /* crowd_anim_sample refuses it */
    CHECK(!crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, pose, models, &untouched));
    w.clip.tracks = w.tracks;
    w.skeleton.joint_count = 0;
    CHECK(!crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, NULL, pose, models, &untouched));
    /* Flags choose the candidates: the root alone stands still; no
     * candidate at all is refused. */
    w.skeleton.joint_count = JOINTS;
    uint8_t feet[JOINTS] = {1, 0, 0, 0};
    CHECK(crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, feet, pose, models, &g));
    CHECK(g.speed == 0.0f);
    feet[0] = 0;
    feet[FOOT_L] = feet[FOOT_R] = 1;
    CHECK(crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, feet, pose, models, &g));
    CHECK(fabsf(g.speed - 1.6f) < 1e-4f);
    feet[FOOT_L] = feet[FOOT_R] = 0;
    CHECK(!crowd_anim_clip_ground_speed(&w.skeleton, &w.clip, feet, pose, models, &untouched));
    CHECK(untouched.speed == 42.0f);
}

/* A blend of the walker with a twice as fast copy of it (its keys at half
 * the times, 0.5 s): locked in phase the two poses agree at every phase,
 * so at weight 0.5 the cycle lasts 0.75 s and each 0.8 m stance takes
 * half of it: 0.8 / 0.375 = 2.1333 m/s, not the lerp of 1.6 and 3.2. */
static void test_blend_ground_speed(void) {
    walker slow, fast;
    walker_init(&slow, 0.0f);
    walker_init(&fast, 0.0f);
    for (int f = 0; f < 2; f++) {
        for (int k = 0; k < 4; k++) {
            fast.foot_times[f][k] *= 0.5f;
        }
    }
    fast.clip.duration_s = 0.5f;
    crowd_transform poses[2 * JOINTS];
    float models[16 * JOINTS];
    crowd_ground_speed g;
    CHECK(crowd_anim_clip_ground_speed(&fast.skeleton, &fast.clip, NULL, poses, models, &g) &&
          fabsf(g.speed - 3.2f) < 1e-3f);
    CHECK(crowd_anim_blend_ground_speed(&slow.skeleton, &slow.clip, &fast.clip, 0.5f, NULL, poses,
                                        models, &g));
    printf("walker blended 50/50 with its double-speed copy: %.6f m/s\n", (double)g.speed);
    CHECK_MSG(fabsf(g.speed - 0.8f / 0.375f) < 1e-3f, "blend ground speed %.6f", (double)g.speed);
    CHECK(crowd_anim_blend_ground_speed(&slow.skeleton, &slow.clip, &fast.clip, 0.0f, NULL, poses,
                                        models, &g) &&
          fabsf(g.speed - 1.6f) < 1e-3f);
    crowd_ground_speed untouched = {.speed = 42.0f};
    CHECK(!crowd_anim_blend_ground_speed(&slow.skeleton, &slow.clip, NULL, 0.5f, NULL, poses,
                                         models, &untouched));
    CHECK(!crowd_anim_blend_ground_speed(&slow.skeleton, &slow.clip, &fast.clip, 1.5f, NULL, poses,
                                         models, &untouched));
    CHECK(!crowd_anim_blend_ground_speed(&slow.skeleton, &slow.clip, &fast.clip, NAN, NULL, poses,
                                         models, &untouched));
    CHECK(untouched.speed == 42.0f);
}

/* Feet: with no mesh the leaves low in the rest pose; with one the joints
 * that skin a vertex, low in the rest pose (the pelvis skins one but
 * stands 1 m up). */
static void test_foot_joints(void) {
    walker w;
    walker_init(&w, 0.0f);
    for (int f = FOOT_L; f <= FOOT_R; f++) {
        w.rest_t[3 * f + 1] = -1.0f;
    }
    crowd_transform pose[JOINTS];
    float models[16 * JOINTS];
    uint8_t feet[JOINTS];
    CHECK(crowd_anim_foot_joints(&w.skeleton, NULL, pose, models, feet) == 2);
    CHECK(!feet[ROOT] && !feet[PELVIS] && feet[FOOT_L] && feet[FOOT_R]);
    uint16_t joints[8] = {ROOT, 0, 0, 0, PELVIS, FOOT_L, 0, 0};
    float weights[8] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    crowd_mesh mesh = {.vertex_count = 2, .joints = joints, .weights = weights};
    CHECK(crowd_anim_foot_joints(&w.skeleton, &mesh, pose, models, feet) == 2);
    CHECK(feet[ROOT] && !feet[PELVIS] && feet[FOOT_L] && !feet[FOOT_R]);
    mesh.weights = NULL;
    CHECK(crowd_anim_foot_joints(&w.skeleton, &mesh, pose, models, feet) == 0);
    CHECK(crowd_anim_foot_joints(NULL, NULL, pose, models, feet) == 0);
    CHECK(crowd_anim_foot_joints(&w.skeleton, NULL, pose, models, NULL) == 0);
}

int main(void) {
    check_enter_temp_dir("test_anim_ground");
    test_walker(0.0f);
    test_walker(1.6f);
    test_standing_and_refused();
    test_foot_joints();
    test_blend_ground_speed();
    return check_finish();
}
