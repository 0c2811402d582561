/* Root motion (crowd_bake_desc.root_motion): a hand-made character whose
 * root walks a known path and turns, baked with EXTRACT. Checks the curve
 * against the path, the accumulated motion over a loop against the source
 * root, the in-place BAT frames against the source with the motion taken
 * out, the motion between play times (loops, speed 2, negative speed,
 * one-shot clamp, many loops) against compositions worked out loop by loop
 * here, the manifest round trip, malformed root_motion members and bad
 * requests. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>

#include "bake_test_walker.h"
#include "check.h"
#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/import.h"

/* ---- a rigid motion of the ground plane, composed loop by loop ---------- */

typedef struct motion2 {
    double x, z, h;
} motion2;

/* a then b: b's displacement turned by a's heading (R_y: +Z towards +X). */
static motion2 then(motion2 a, motion2 b) {
    double c = cos(a.h), s = sin(a.h);
    motion2 m = {a.x + c * b.x + s * b.z, a.z - s * b.x + c * b.z, a.h + b.h};
    return m;
}

static motion2 inverse(motion2 a) {
    double c = cos(a.h), s = sin(a.h);
    /* R_y(-h) * (-o) */
    motion2 m = {-(c * a.x - s * a.z), -(s * a.x + c * a.z), -a.h};
    return m;
}

/* The model origin's motion at clip time t: start + path - R_y(h) start. */
static motion2 origin_at(const crowd_root_motion *rm, float t) {
    float s[3];
    crowd_anim_root_motion_at(rm, t, s);
    double c = cos(s[2]), sn = sin(s[2]);
    motion2 m = {rm->start[0] + s[0] - (c * rm->start[0] + sn * rm->start[1]),
                 rm->start[1] + s[1] - (-sn * rm->start[0] + c * rm->start[1]), s[2]};
    return m;
}

/* F at unwrapped play time t, whole loops applied one at a time. */
static motion2 by_hand(const crowd_root_motion *rm, float d, bool loop, double t) {
    if (!loop) {
        return origin_at(rm, (float)(t < 0 ? 0 : (t > d ? d : t)));
    }
    double n = floor(t / d);
    motion2 whole = origin_at(rm, d), m = {0, 0, 0};
    for (double i = 0; i < fabs(n); i++) {
        m = then(m, n > 0 ? whole : inverse(whole));
    }
    return then(m, origin_at(rm, (float)(t - n * d)));
}

static void check_delta(const crowd_bake *bake, uint32_t clip, float from_t, float to_t,
                        double tol) {
    const crowd_bake_clip *c = &bake->clips[clip];
    motion2 expect = then(inverse(by_hand(&c->root_motion, c->duration_s, c->loop, from_t)),
                          by_hand(&c->root_motion, c->duration_s, c->loop, to_t));
    float delta[3] = {9, 9, 9}, turn = 9;
    crowd_error error = {0};
    CHECK(crowd_bake_root_motion_delta(bake, clip, from_t, to_t, delta, &turn, &error) == CROWD_OK);
    CHECK_NEAR(delta[0], expect.x, tol);
    CHECK(delta[1] == 0.0f);
    CHECK_NEAR(delta[2], expect.z, tol);
    CHECK_NEAR(turn, expect.h, tol);
}

/* ---- the checks ---------------------------------------------------------- */

static double diagonal_of(const crowd_bake *bake) {
    double sum = 0;
    for (int a = 0; a < 3; a++) {
        double e = (double)bake->bounds_max[a] - bake->bounds_min[a];
        sum += e * e;
    }
    return sqrt(sum);
}

/* The curve at each key is the path and the turn of the source. */
static void check_curve(const crowd_bake *bake) {
    const crowd_root_motion *rm = &bake->clips[0].root_motion;
    CHECK(rm->joint == 0);
    CHECK(rm->sample_count == KEYS);
    CHECK(crowd_anim_root_motion_valid(rm, bake->clips[0].duration_s));
    float start[4];
    root_at(0.0f, start);
    CHECK_NEAR(rm->start[0], start[0], 1e-6);
    CHECK_NEAR(rm->start[1], start[2], 1e-6);
    for (uint32_t k = 0; k < rm->sample_count && k < KEYS; k++) {
        float root[4];
        root_at((float)k / RATE, root);
        CHECK_NEAR(rm->times_s[k], (float)k / RATE, 1e-7);
        CHECK_NEAR(rm->samples[3 * k + 0], root[0] - start[0], 1e-6);
        CHECK_NEAR(rm->samples[3 * k + 1], root[2] - start[2], 1e-6);
        CHECK_NEAR(rm->samples[3 * k + 2], root[3], 1e-6);
    }
    /* dash: along z only, no turn */
    const crowd_root_motion *dash = &bake->clips[1].root_motion;
    REQUIRE_VOID(dash->sample_count == 2);
    CHECK_NEAR(dash->samples[4], 1.0, 1e-7);
    CHECK(dash->samples[3] == 0.0f && dash->samples[5] == 0.0f);
}

/* Every frame's motion summed from the start, applied to the in-place root
 * (which stays at start), is the source root: over the whole loop too. */
static void check_summed(const crowd_bake *bake) {
    double tol = 1e-4 * diagonal_of(bake);
    const crowd_bake_clip *clip = &bake->clips[0];
    motion2 at = {0, 0, 0};
    for (uint32_t k = 1; k < clip->frame_count; k++) {
        float delta[3], turn;
        crowd_error error = {0};
        CHECK(crowd_bake_root_motion_delta(bake, 0, (float)(k - 1) / clip->fps,
                                           (float)k / clip->fps, delta, &turn, &error) == CROWD_OK);
        at = then(at, (motion2){delta[0], delta[2], turn});
        motion2 root =
            then(at, (motion2){clip->root_motion.start[0], clip->root_motion.start[1], 0});
        float source[4];
        root_at((float)k / clip->fps, source);
        CHECK_NEAR(root.x, source[0], tol);
        CHECK_NEAR(root.z, source[2], tol);
        CHECK_NEAR(at.h, source[3], 1e-5);
    }
    float end[4], start[4];
    root_at(clip->duration_s, end);
    root_at(0.0f, start);
    motion2 root = then(at, (motion2){clip->root_motion.start[0], clip->root_motion.start[1], 0});
    printf("summed over one loop: root moved (%.7f, %.7f), turned %.7f rad; source root path "
           "(%.7f, %.7f), %.7f rad; tolerance %.3g\n",
           root.x - start[0], root.z - start[2], at.h, end[0] - start[0], end[2] - start[2], end[3],
           tol);
}

/* The source's skinning matrix of each joint at each baked frame's time,
 * taken back by the stored motion, against the BAT of baked clip `b`;
 * returns the largest difference of the bounds diagonal. */
static double in_place_error(const crowd_asset *source, const crowd_bake *bake, uint32_t b) {
    const crowd_skeleton *sk = &source->skeleton;
    const crowd_bake_clip *clip = &bake->clips[b];
    uint32_t joints = sk->joint_count;
    crowd_transform *pose = calloc(joints, sizeof *pose);
    float *models = calloc(16 * (size_t)joints, sizeof(float));
    float *skin = calloc(12 * (size_t)joints, sizeof(float));
    double worst = 0;
    for (uint32_t k = 0; k < clip->frame_count; k++) {
        float t = crowd_anim_frame_time(
            &(crowd_clip_frames){clip->fps, clip->duration_s, clip->frame_count, clip->layout}, k);
        /* as a one-shot: frame_count - 1 is the pose at the duration */
        crowd_clip once = source->clips[clip->source_clip];
        once.loop = false;
        crowd_anim_sample(sk, &once, t, NULL, pose);
        crowd_anim_local_to_model(sk, pose, models);
        crowd_anim_skin_matrices(sk, models, NULL, skin);
        motion2 back = inverse(origin_at(&clip->root_motion, t));
        for (uint32_t j = 0; j < joints; j++) {
            /* the root's subtree moves back; the joints beside it (a rig's
             * controls under the same parent) are the source's */
            int32_t up = (int32_t)j;
            while (up > (int32_t)clip->root_motion.joint) {
                up = sk->parents[up];
            }
            bool moved = up == (int32_t)clip->root_motion.joint;
            double c = moved ? cos(back.h) : 1.0, s = moved ? sin(back.h) : 0.0;
            double bx = moved ? back.x : 0.0, bz = moved ? back.z : 0.0;
            float baked[12];
            crowd_bake_bat_fetch(bake, clip->first_frame + k, j, baked);
            const float *m = skin + 12 * j; /* rows: x, y, z */
            for (int col = 0; col < 4; col++) {
                double x = m[col], y = m[4 + col], z = m[8 + col];
                double ex = c * x + s * z + (col == 3 ? bx : 0.0);
                double ez = -s * x + c * z + (col == 3 ? bz : 0.0);
                double e[3] = {ex, y, ez};
                for (int r = 0; r < 3; r++) {
                    double diff = fabs(baked[4 * r + col] - e[r]);
                    worst = diff > worst ? diff : worst;
                }
            }
        }
    }
    free(pose);
    free(models);
    free(skin);
    return worst / diagonal_of(bake);
}

static void check_in_place(const crowd_asset *source, const crowd_bake *bake) {
    double worst = in_place_error(source, bake, 0);
    printf("in-place BAT against the source minus the root motion: max %.3g of the diagonal\n",
           worst);
    CHECK(worst <= 1e-5);
}

/* robot.glb (when ../shared/models has it): every clip's frames in place,
 * and the loop's path in the curve. */
static void check_robot(void) {
    const char *path = check_shared_model("robot.glb");
    if (path == NULL) {
        return;
    }
    crowd_asset *robot = NULL;
    crowd_error error = {0};
    REQUIRE_VOID(crowd_import_file(path, NULL, &robot, &error) == CROWD_OK);
    crowd_bake_desc desc = {.lods = -1, .root_motion = CROWD_ROOT_MOTION_EXTRACT};
    crowd_bake *bake = NULL;
    CHECK_MSG(crowd_bake_build(robot, &desc, &bake, &error) == CROWD_OK, "%s", error.reason);
    double worst = 0;
    for (uint32_t c = 0; bake != NULL && c < bake->clip_count; c++) {
        double e = in_place_error(robot, bake, c);
        worst = e > worst ? e : worst;
        if (getenv("RM_DEBUG")) {
            printf("  %s: %.3g\n", bake->clips[c].name, e);
        }
        CHECK(crowd_anim_root_motion_valid(&bake->clips[c].root_motion, bake->clips[c].duration_s));
    }
    printf("robot.glb, %u clips: in-place BAT against the source minus the root motion: max "
           "%.3g of the diagonal\n",
           bake != NULL ? bake->clip_count : 0, worst);
    CHECK(worst <= 1e-5);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(robot);
}

static void check_deltas(const crowd_bake *bake) {
    double tol = 1e-4;
    check_delta(bake, 0, 0.25f, 2.75f, tol); /* two seams */
    check_delta(bake, 0, 0.0f, 1.0f, tol);   /* exactly one loop */
    /* speed 2 from offset 0.1, clock 1 to 3.3: the instance's play times */
    check_delta(bake, 0, crowd_anim_play_unwrapped(1.0f, 0.0f, 0.1f, 2.0f),
                crowd_anim_play_unwrapped(3.3f, 0.0f, 0.1f, 2.0f), tol);
    /* backwards across the seam */
    check_delta(bake, 0, crowd_anim_play_unwrapped(0.0f, 0.0f, 0.1f, -1.0f),
                crowd_anim_play_unwrapped(1.7f, 0.0f, 0.1f, -1.0f), tol);
    check_delta(bake, 0, 7.3f, 7.31f, tol);
    /* the closed form over many loops */
    check_delta(bake, 0, 0.5f, 200.5f, 1e-3);
    /* one-shot: clamped at both ends */
    check_delta(bake, 1, -1.0f, 5.0f, tol);
    float delta[3], turn;
    crowd_error error = {0};
    CHECK(crowd_bake_root_motion_delta(bake, 1, 0.2f, 9.0f, delta, &turn, &error) == CROWD_OK);
    CHECK_NEAR(delta[2], 0.6, 1e-6);
    CHECK(delta[0] == 0.0f && turn == 0.0f);
    /* forward 1.25 loops from 0 by hand: F_end then F(0.25) */
    CHECK(crowd_bake_root_motion_delta(bake, 0, 0.0f, 1.25f, delta, &turn, &error) == CROWD_OK);
    CHECK_NEAR(turn, 0.4 + 0.1, 1e-5);
    /* bad calls */
    CHECK(crowd_bake_root_motion_delta(bake, 2, 0, 1, delta, &turn, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_bake_root_motion_delta(bake, 0, NAN, 1, delta, &turn, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_bake_root_motion_delta(bake, 0, 0, 1, NULL, &turn, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
}

/* ---- the manifest -------------------------------------------------------- */

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = calloc((size_t)size + 1, 1);
    if (text != NULL && fread(text, 1, (size_t)size, f) != (size_t)size) {
        free(text);
        text = NULL;
    }
    fclose(f);
    return text;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* The manifest with the first `from` after "root_motion" replaced by `to`,
 * loaded: refused as INVALID_DATA with `reason` in the message. */
static void check_refused(const char *manifest, const char *from, const char *to,
                          const char *reason) {
    const char *member = strstr(manifest, "\"root_motion\"");
    const char *at = member != NULL ? strstr(member, from) : NULL;
    REQUIRE_VOID(at != NULL);
    size_t head = (size_t)(at - manifest);
    char *edited = malloc(strlen(manifest) + strlen(to) + 1);
    memcpy(edited, manifest, head);
    strcpy(edited + head, to);
    strcat(edited, at + strlen(from));
    write_text("out/hand.crowd.json", edited);
    free(edited);
    crowd_bake *loaded = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_load("out", NULL, &loaded, &error);
    CHECK_MSG(result == CROWD_ERROR_INVALID_DATA && strstr(error.reason, reason) != NULL,
              "'%s' -> '%s': %d %s", from, to, (int)result, error.reason);
    CHECK(loaded == NULL);
    crowd_bake_destroy(loaded);
}

static void check_manifest(const crowd_bake *bake) {
    crowd_error error = {0};
    REQUIRE_VOID(crowd_bake_write(bake, "out", NULL, &error) == CROWD_OK);
    crowd_bake *loaded = NULL;
    REQUIRE_VOID(crowd_bake_load("out", NULL, &loaded, &error) == CROWD_OK);
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_root_motion *a = &bake->clips[c].root_motion,
                                *b = &loaded->clips[c].root_motion;
        CHECK(a->sample_count == b->sample_count && a->joint == b->joint);
        CHECK(a->start[0] == b->start[0] && a->start[1] == b->start[1]);
        CHECK(b->times_s != NULL &&
              memcmp(a->times_s, b->times_s, a->sample_count * sizeof(float)) == 0);
        CHECK(b->samples != NULL &&
              memcmp(a->samples, b->samples, 3 * a->sample_count * sizeof(float)) == 0);
    }
    /* the loaded runtime clips play in place as the frames do: the root
     * stays at start horizontally */
    crowd_transform pose[3];
    float models[48];
    for (int k = 0; k <= 10; k++) {
        crowd_anim_sample(&loaded->asset->skeleton, &loaded->asset->clips[0], 0.1f * (float)k, NULL,
                          pose);
        crowd_anim_local_to_model(&loaded->asset->skeleton, pose, models);
        CHECK_NEAR(models[12], bake->clips[0].root_motion.start[0], 1e-5);
        CHECK_NEAR(models[14], bake->clips[0].root_motion.start[1], 1e-5);
    }
    crowd_bake_destroy(loaded);
    char *manifest = read_text("out/hand.crowd.json");
    REQUIRE_VOID(manifest != NULL);
    check_refused(manifest, "\"joint\":", "\"joint\":\t7, \"x\":", "joint must be an integer");
    check_refused(manifest, "\"times\":", "\"times\": 3, \"x\":", "times must be an array");
    check_refused(manifest, "\"samples\":\t[", "\"samples\": [1, ", "3 (x, z, heading)");
    check_refused(manifest, "\"times\":\t[", "\"times\": [0.5, ", "3 (x, z, heading)");
    check_refused(manifest, "\"times\":\t[0", "\"times\":\t[0.01", "must rise from 0");
    check_refused(manifest, "\"start\":", "\"start\": [1], \"x\":", "start must be an array");
    check_refused(manifest, "\"samples\":\t[", "\"samples\": [\"a\", ", "must be a finite number");
    check_refused(manifest, "\"root_motion\":", "\"root_motion\": 1, \"x\":", "must be an object");
    write_text("out/hand.crowd.json", manifest);
    free(manifest);
}

static void check_bad_requests(const crowd_asset *asset) {
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    crowd_bake_desc desc = {
        .root_motion = CROWD_ROOT_MOTION_EXTRACT, .root_joint = "nope", .lods = -1};
    CHECK(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(bake == NULL && strstr(error.reason, "'nope' is not a joint") != NULL);
    desc = (crowd_bake_desc){.root_motion = (crowd_root_motion_mode)7, .lods = -1};
    CHECK(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(bake == NULL);
    crowd_asset *still = test_asset_create(2, 6);
    desc = (crowd_bake_desc){.root_motion = CROWD_ROOT_MOTION_EXTRACT, .lods = -1};
    CHECK(crowd_bake_build(still, &desc, &bake, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(bake == NULL && strstr(error.reason, "no clips") != NULL);
    crowd_asset_destroy(still);
    /* keep: no curve, and the delta says why */
    desc = (crowd_bake_desc){.lods = -1, .fps = RATE};
    REQUIRE_VOID(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_OK);
    CHECK(bake->clips[0].root_motion.sample_count == 0 && bake->in_place_asset == NULL);
    float delta[3], turn;
    CHECK(crowd_bake_root_motion_delta(bake, 0, 0, 1, delta, &turn, &error) ==
          CROWD_ERROR_UNSUPPORTED);
    crowd_bake_destroy(bake);
    /* the source asset is left as it was by an extracting bake */
    CHECK(asset->clips[0].tracks[0].translation.key_count == KEYS);
    CHECK(asset->clips[0].tracks[0].translation.values[0] == 0.1f);
}

int main(void) {
    check_enter_temp_dir("test_bake_root_motion");
    crowd_asset *asset = make_walker();
    crowd_error error = {0};
    REQUIRE(crowd_asset_validate(asset, &error) == CROWD_OK);
    crowd_bake_desc desc = {.fps = RATE, .lods = -1, .root_motion = CROWD_ROOT_MOTION_EXTRACT};
    crowd_bake *bake = NULL;
    REQUIRE(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_OK);
    REQUIRE(bake->in_place_asset != NULL && bake->asset == bake->in_place_asset);
    REQUIRE(bake->clips[0].root_motion.sample_count > 0);
    check_curve(bake);
    check_summed(bake);
    check_in_place(asset, bake);
    check_deltas(bake);
    check_manifest(bake);
    crowd_bake_destroy(bake);
    check_bad_requests(asset);
    crowd_asset_destroy(asset);
    check_robot();
    return check_finish();
}
