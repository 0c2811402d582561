/* test_import_anim_assimp - clips from files without a mesh that assimp
 * reads: crowd_asset_add_clips through crowd__import_clips_file's assimp path,
 * in the helper process and in this one.
 *
 * A Mixamo-style FBX (fbx_writer.h: "mixamorig:" LimbNodes, no mesh, one
 * AnimationStack) is written for the builtin humanoid and for robot.glb:
 * every joint with curves held at rest but one, turned about its parent's
 * Z axis by 0, 30 and 90 degrees at 0, 0.5 and 1 s; the leaf joints have no
 * curves. The added clip must give that joint Rz(angle) * rest at the keys
 * and halfway between the first two (15 degrees; 1e-4 per quaternion
 * component), and every other joint its rest pose (1e-4); every joint with
 * curves is matched by name, the leaves are not; the helper's clip and the
 * in-process one are equal bit for bit. Real files: CMU's 01_01.bvh, read
 * by assimp (under a name that is not .bvh, so crowd's own BVH reader does
 * not take it), matches the builtin humanoid as crowd's reader does (19
 * joints, 14 by role) and gives the same poses; the CSM marker capture
 * reads as 43 markers and one clip and matches no humanoid joint, which
 * is said. Refusals: no skeleton or clips (Collada/cameras.dae, FBX files
 * without animation), a truncated FBX and one with an unterminated name,
 * each leaving the character as it was; a character import of the
 * mesh-less FBX is still refused ("no meshes"). A curve with more key
 * times than values is dropped by assimp with a warning, which must reach
 * the logger.
 */
#define _POSIX_C_SOURCE 200809L
#include <cglm/cglm.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/anim.h"
#include "crowd/builtin.h"
#include "crowd/import.h"
#include "robot_asset.h"
#include "fbx_writer.h"
#include "import/import_run.h"
#include "test_files.h"

#define ROTATION_TOLERANCE 1e-4
#define TRANSLATION_TOLERANCE 1e-4 /* metres, and relative above 1 m */
#define PI 3.14159265358979323846

/* The two places the assimp path runs. */
static const crowd_import_desc in_process = {.in_process = true};
static const crowd_anim_import_desc through_helper = {0};
static const crowd_anim_import_desc in_this_process = {.import = &in_process};

static double quat_difference(const float *a, const float *b) {
    double dot = 0.0, worst = 0.0;
    for (int c = 0; c < 4; c++) {
        dot += (double)a[c] * b[c];
    }
    double sign = dot < 0.0 ? -1.0 : 1.0;
    for (int c = 0; c < 4; c++) {
        worst = fmax(worst, fabs(a[c] - sign * b[c]));
    }
    return worst;
}

static double vec3_difference(const float *a, const float *b) {
    double worst = 0.0;
    for (int c = 0; c < 3; c++) {
        worst = fmax(worst, fabs(a[c] - b[c]) / fmax(1.0, fabs(b[c])));
    }
    return worst;
}

/* Everything of the clips a failed add must leave as it was. */
static uint64_t clips_fingerprint(const crowd_asset *asset) {
    uint64_t h = 1469598103934665603ull;
#define MIX(p, n)                                                                                  \
    for (size_t i_ = 0; i_ < (size_t)(n); i_++) {                                                  \
        h = (h ^ ((const uint8_t *)(p))[i_]) * 1099511628211ull;                                   \
    }
    MIX(&asset->clip_count, sizeof asset->clip_count);
    MIX(&asset->repairs, sizeof asset->repairs);
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        const crowd_clip *clip = &asset->clips[c];
        MIX(clip->name, strlen(clip->name));
        MIX(&clip->duration_s, sizeof clip->duration_s);
        for (uint32_t j = 0; j < asset->skeleton.joint_count; j++) {
            const crowd_track *tracks[3] = {&clip->tracks[j].translation, &clip->tracks[j].rotation,
                                            &clip->tracks[j].scale};
            for (int t = 0; t < 3; t++) {
                uint32_t per_key = t == 1 ? 4 : 3;
                MIX(&tracks[t]->key_count, sizeof tracks[t]->key_count);
                MIX(tracks[t]->times_s, tracks[t]->key_count * sizeof(float));
                MIX(tracks[t]->values, (size_t)tracks[t]->key_count * per_key * sizeof(float));
            }
        }
    }
#undef MIX
    return h;
}

static bool same_track(const crowd_track *a, const crowd_track *b, uint32_t components) {
    return a->key_count == b->key_count && a->interpolation == b->interpolation &&
           (a->key_count == 0 ||
            (memcmp(a->times_s, b->times_s, a->key_count * sizeof(float)) == 0 &&
             memcmp(a->values, b->values, (size_t)a->key_count * components * sizeof(float)) == 0));
}

static bool same_clip(const crowd_clip *a, const crowd_clip *b, uint32_t joint_count) {
    bool same =
        strcmp(a->name, b->name) == 0 && a->duration_s == b->duration_s && a->loop == b->loop;
    for (uint32_t j = 0; same && j < joint_count; j++) {
        same = same_track(&a->tracks[j].translation, &b->tracks[j].translation, 3) &&
               same_track(&a->tracks[j].rotation, &b->tracks[j].rotation, 4) &&
               same_track(&a->tracks[j].scale, &b->tracks[j].scale, 3);
    }
    return same;
}

static bool has_children(const crowd_skeleton *sk, uint32_t j) {
    for (uint32_t c = 0; c < sk->joint_count; c++) {
        if (sk->parents[c] == (int32_t)j) {
            return true;
        }
    }
    return false;
}

/* The angle of the turned joint at `time_s`: the keys, linear between them
 * (the FBX curve's own interpolation; halfway between two keys about one
 * axis, slerp gives the same). */
static double turn_at(double time_s) {
    for (int k = 1; k < FBX_KEY_COUNT; k++) {
        if (time_s <= FBX_KEY_S[k]) {
            double u = (time_s - FBX_KEY_S[k - 1]) / (FBX_KEY_S[k] - FBX_KEY_S[k - 1]);
            return FBX_TURN_DEG[k - 1] + u * (FBX_TURN_DEG[k] - FBX_TURN_DEG[k - 1]);
        }
    }
    return FBX_TURN_DEG[FBX_KEY_COUNT - 1];
}

/* The FBX writer's Euler angles give back every rest rotation. */
static bool euler_round_trips(const crowd_skeleton *sk) {
    double worst = 0.0;
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        double euler[3];
        float q[4];
        fbx_euler_xyz_deg(&sk->rest_rotation[4 * j], euler);
        fbx_quat_from_euler_deg(euler, q);
        worst = fmax(worst, quat_difference(q, &sk->rest_rotation[4 * j]));
    }
    CHECK_MSG(worst < 1e-6, "Euler angles miss a rest rotation by %g", worst);
    return worst < 1e-6;
}

/* The clip's pose at the checked times against the expected one. */
static void check_pose(const crowd_asset *character, const crowd_clip *clip, int32_t turned,
                       const char *label) {
    const crowd_skeleton *sk = &character->skeleton;
    crowd_transform *pose = malloc(sk->joint_count * sizeof *pose);
    REQUIRE_VOID(pose != NULL);
    static const double times_s[] = {0.0, 0.25, 0.5, 1.0};
    double worst_turned = 0.0, worst_rest = 0.0, worst_translation = 0.0;
    for (size_t t = 0; t < sizeof times_s / sizeof *times_s; t++) {
        crowd_anim_sample(sk, clip, (float)times_s[t], NULL, pose);
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            const float *rest = &sk->rest_rotation[4 * j];
            float expected[4];
            if ((int32_t)j == turned) {
                versor turn;
                glm_quatv(turn, (float)(turn_at(times_s[t]) * PI / 180.0),
                          (vec3){0.0f, 0.0f, 1.0f});
                glm_quat_mul(turn, (float *)rest, expected);
                worst_turned = fmax(worst_turned, quat_difference(pose[j].rotation, expected));
            } else {
                worst_rest = fmax(worst_rest, quat_difference(pose[j].rotation, rest));
            }
            worst_translation =
                fmax(worst_translation,
                     fmax(vec3_difference(pose[j].translation, &sk->rest_translation[3 * j]),
                          vec3_difference(pose[j].scale, &sk->rest_scale[3 * j])));
        }
    }
    printf("  %s: turned joint off by %.3g, others' rotations by %.3g, translations and scales "
           "by %.3g\n",
           label, worst_turned, worst_rest, worst_translation);
    CHECK(worst_turned <= ROTATION_TOLERANCE);
    CHECK(worst_rest <= ROTATION_TOLERANCE);
    CHECK(worst_translation <= TRANSLATION_TOLERANCE);
    free(pose);
}

/* A Mixamo-style FBX of `character`'s skeleton, `turned` turned, onto a
 * copy of it through the helper and in this process. */
static void check_fbx_on(crowd_asset *(*make)(void), const char *turned_name, const char *file) {
    crowd_asset *character = make();
    crowd_asset *twin = make();
    if (character == NULL || twin == NULL) {
        crowd_asset_destroy(character);
        crowd_asset_destroy(twin);
        return;
    }
    const crowd_skeleton *sk = &character->skeleton;
    int32_t turned = crowd_asset_find_joint(character, turned_name);
    bool *curves = calloc(sk->joint_count, sizeof *curves);
    CHECK(turned >= 0 && curves != NULL);
    if (turned < 0 || curves == NULL || !euler_round_trips(sk)) {
        free(curves);
        crowd_asset_destroy(character);
        crowd_asset_destroy(twin);
        return;
    }
    uint32_t with_curves = 0;
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        curves[j] = has_children(sk, j) || (int32_t)j == turned;
        with_curves += curves[j];
    }
    fbx_spec spec = {"mixamorig:", curves, turned, true, NULL, false};
    CHECK(fbx_write(file, sk, &spec));
    uint32_t clips = character->clip_count;
    crowd_anim_report report, twin_report;
    crowd_error error = {0};
    CHECK_MSG(crowd_asset_add_clips(character, file, &through_helper, &report, &error) == CROWD_OK,
              "%s (helper): %s", file, error.reason);
    CHECK_MSG(crowd_asset_add_clips(twin, file, &in_this_process, &twin_report, &error) == CROWD_OK,
              "%s (in process): %s", file, error.reason);
    if (character->clip_count != clips + 1 || twin->clip_count != clips + 1) {
        CHECK(false);
        crowd_anim_report_free(&report);
        crowd_anim_report_free(&twin_report);
        free(curves);
        crowd_asset_destroy(character);
        crowd_asset_destroy(twin);
        return;
    }
    printf("%s on %s: %u clip '%s', %u of %u joints matched (%u by role, %u retargeted), %u "
           "unmatched, root x%.6f\n",
           file, character->name, report.clips_added, report.clip_names[0], report.joints_matched,
           report.joint_count, report.joints_by_role, report.joints_retargeted,
           report.unmatched_count, (double)report.root_scale);
    CHECK(report.clips_added == 1 && strcmp(report.clip_file_names[0], "mixamo.com") == 0);
    CHECK(report.joints_matched == with_curves && report.joints_by_role == 0);
    CHECK(report.unmatched_count == 0);
    CHECK_NEAR(report.root_scale, 1.0, 1e-4);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        char expected[256];
        snprintf(expected, sizeof expected, "mixamorig:%s", sk->names[j]);
        CHECK_MSG(curves[j] ? report.matched[j] != NULL && strcmp(report.matched[j], expected) == 0
                            : report.matched[j] == NULL,
                  "joint %s matched %s", sk->names[j],
                  report.matched[j] ? report.matched[j] : "nothing");
    }
    const crowd_clip *clip = &character->clips[clips];
    CHECK_NEAR(clip->duration_s, FBX_KEY_S[FBX_KEY_COUNT - 1], 1e-5);
    CHECK_MSG(same_clip(clip, &twin->clips[clips], sk->joint_count),
              "the helper's clip differs from the in-process one");
    check_pose(character, clip, turned, file);
    crowd_anim_report_free(&report);
    crowd_anim_report_free(&twin_report);
    free(curves);

    /* The same file is not a character: that import keeps refusing it. */
    crowd_asset *asset = NULL;
    CHECK(crowd_import_file(file, NULL, &asset, &error) == CROWD_ERROR_UNSUPPORTED &&
          strstr(error.reason, "no meshes (a skeleton or animation alone is not a character)"));
    CHECK(crowd_import_file(file, &in_process, &asset, &error) == CROWD_ERROR_UNSUPPORTED &&
          strstr(error.reason, "no meshes") != NULL);
    crowd_asset_destroy(character);
    crowd_asset_destroy(twin);
}

static crowd_asset *make_builtin(void) {
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_builtin_create(&asset, &error) == CROWD_OK, "builtin: %s", error.reason);
    return asset;
}

/* CMU's BVH through assimp and through crowd's BVH reader: same match,
 * same poses. */
static void check_bvh_through_assimp(void) {
    const char *path = check_assimp_model("BVH/01_01.bvh");
    size_t size = 0;
    char *bytes = path ? test_read_file(path, &size) : NULL;
    if (bytes == NULL) {
        CHECK(path == NULL);
        return;
    }
    CHECK(test_write_file("01_01.mocap", bytes, size) == 0);
    free(bytes);
    crowd_asset *by_assimp = make_builtin(), *by_crowd = make_builtin();
    REQUIRE_VOID(by_assimp != NULL && by_crowd != NULL);
    crowd_anim_report a, c;
    crowd_error error = {0};
    CHECK_MSG(crowd_asset_add_clips(by_assimp, "01_01.mocap", NULL, &a, &error) == CROWD_OK,
              "01_01.mocap: %s", error.reason);
    CHECK_MSG(crowd_asset_add_clips(by_crowd, path, NULL, &c, &error) == CROWD_OK, "%s: %s", path,
              error.reason);
    if (a.clips_added != 1 || c.clips_added != 1) {
        CHECK(false);
        crowd_asset_destroy(by_assimp);
        crowd_asset_destroy(by_crowd);
        return;
    }
    printf("01_01.mocap (assimp's BVH reader) on builtin: %u of %u joints matched (%u by role), "
           "root x%g; crowd's reader: %u (%u by role), root x%g\n",
           a.joints_matched, a.joint_count, a.joints_by_role, (double)a.root_scale,
           c.joints_matched, c.joints_by_role, (double)c.root_scale);
    CHECK(a.joints_matched == 19 && a.joints_by_role == 14);
    CHECK(a.joints_matched == c.joints_matched && a.joints_by_role == c.joints_by_role);
    for (uint32_t j = 0; j < a.joint_count; j++) {
        CHECK_MSG((a.matched[j] == NULL) == (c.matched[j] == NULL) &&
                      (a.matched[j] == NULL || strcmp(a.matched[j], c.matched[j]) == 0),
                  "joint %s: %s by assimp, %s by crowd", by_assimp->skeleton.names[j],
                  a.matched[j] ? a.matched[j] : "-", c.matched[j] ? c.matched[j] : "-");
    }
    CHECK_NEAR(a.root_scale, c.root_scale, 1e-5);
    const crowd_clip *ca = &by_assimp->clips[by_assimp->clip_count - 1];
    const crowd_clip *cc = &by_crowd->clips[by_crowd->clip_count - 1];
    CHECK_NEAR(ca->duration_s, cc->duration_s, 1e-4);
    const crowd_skeleton *sk = &by_assimp->skeleton;
    crowd_transform *pa = malloc(sk->joint_count * sizeof *pa);
    crowd_transform *pc = malloc(sk->joint_count * sizeof *pc);
    double worst_rotation = 0.0, worst_translation = 0.0;
    for (int step = 0; pa != NULL && pc != NULL && step <= 20; step++) {
        float time_s = cc->duration_s * (float)step / 20.0f;
        crowd_anim_sample(sk, ca, time_s, NULL, pa);
        crowd_anim_sample(sk, cc, time_s, NULL, pc);
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            worst_rotation = fmax(worst_rotation, quat_difference(pa[j].rotation, pc[j].rotation));
            worst_translation =
                fmax(worst_translation, vec3_difference(pa[j].translation, pc[j].translation));
        }
    }
    printf("  poses at 21 times: rotations within %.3g, translations within %.3g of crowd's "
           "reader\n",
           worst_rotation, worst_translation);
    CHECK(worst_rotation <= 1e-4 && worst_translation <= 1e-4);
    free(pa);
    free(pc);
    crowd_anim_report_free(&a);
    crowd_anim_report_free(&c);
    crowd_asset_destroy(by_assimp);
    crowd_asset_destroy(by_crowd);
}

/* Character Studio marker capture: markers, not joints of a humanoid. */
static void check_csm(void) {
    const char *path = check_assimp_model("CSM/ThomasFechten.csm");
    if (path == NULL) {
        return;
    }
    const crowd_import_desc *descs[2] = {NULL, &in_process};
    for (int d = 0; d < 2; d++) {
        crowd_asset *file = NULL;
        crowd_error error = {0};
        CHECK_MSG(crowd__import_clips_file(path, descs[d], &file, &error) == CROWD_OK, "%s: %s",
                  path, error.reason);
        if (file == NULL) {
            continue;
        }
        printf("%s as a file of clips: %u joints (first '%s'), %u clip of %.3f s, %u vertices\n",
               path, file->skeleton.joint_count, file->skeleton.names[0], file->clip_count,
               file->clip_count ? (double)file->clips[0].duration_s : 0.0, file->mesh.vertex_count);
        CHECK(file->skeleton.joint_count == 43 && strcmp(file->skeleton.names[0], "LFHD") == 0);
        CHECK(file->clip_count == 1 && file->mesh.vertex_count == 0 && file->mesh.index_count == 0);
        /* $FirstFrame 1, $LastFrame 2439, $Rate 120 in the file's header. */
        CHECK(file->clip_count == 1 && fabs(file->clips[0].duration_s - 2439.0 / 120.0) < 1e-3);
        crowd_asset_destroy(file);
    }
    crowd_asset *builtin = make_builtin();
    REQUIRE_VOID(builtin != NULL);
    uint64_t before = clips_fingerprint(builtin);
    crowd_error error = {0};
    CHECK(crowd_asset_add_clips(builtin, path, NULL, NULL, &error) == CROWD_ERROR_UNSUPPORTED);
    printf("  onto builtin: %s\n", error.reason);
    CHECK(strstr(error.reason, "no joint of its 43 matches") != NULL);
    CHECK(clips_fingerprint(builtin) == before);
    crowd_asset_destroy(builtin);
}

/* `file` refused with `result` and a reason holding `says` (when not
 * NULL), through the helper and, unless `helper_only`, in this process;
 * the character unchanged. */
static void check_refused(crowd_asset *character, const char *file, crowd_result result,
                          const char *says, bool helper_only) {
    const crowd_anim_import_desc *descs[2] = {&through_helper, &in_this_process};
    for (int d = 0; d < (helper_only ? 1 : 2); d++) {
        uint64_t before = clips_fingerprint(character);
        crowd_error error = {0};
        crowd_anim_report report;
        crowd_result got = crowd_asset_add_clips(character, file, descs[d], &report, &error);
        printf("%s (%s): %s: %s\n", file, d ? "in process" : "helper", crowd_result_str(got),
               error.reason);
        CHECK_MSG(got == result, "%s: %s", file, crowd_result_str(got));
        CHECK_MSG(says == NULL || strstr(error.reason, says) != NULL, "%s: '%s' lacks '%s'", file,
                  error.reason, says);
        CHECK(error.reason[0] != '\0' && strstr(error.reason, "crashed") == NULL);
        CHECK(clips_fingerprint(character) == before && report.clips_added == 0);
    }
}

/* Messages of one add, kept to look for a warning. */
typedef struct captured {
    char text[8192];
    size_t size;
} captured;

static void capture(void *user, crowd_log_level level, const char *message) {
    captured *c = user;
    if (level == CROWD_LOG_WARNING) {
        int n = snprintf(c->text + c->size, sizeof c->text - c->size, "%s\n", message);
        c->size += n > 0 && (size_t)n < sizeof c->text - c->size ? (size_t)n : 0;
    }
}

/* A curve flag for every joint of `sk`, all set; NULL when out of memory. */
static bool *every_joint(const crowd_skeleton *sk) {
    bool *curves = calloc(sk->joint_count + 1, sizeof *curves);
    for (uint32_t j = 0; curves != NULL && j < sk->joint_count; j++) {
        curves[j] = true;
    }
    return curves;
}

/* A curve with more key times than values is not fatal to assimp's FBX
 * reader: it drops the curve with a warning (its DOM is lenient unless in
 * strict mode), so the clip is added, the warning reaches the logger, and
 * the axis of the dropped curve keeps its curve node's default, the rest
 * angle: the joint meant to turn stays at rest. */
static void check_dropped_curve(int32_t turned) {
    crowd_asset *builtin = make_builtin();
    REQUIRE_VOID(builtin != NULL);
    const crowd_skeleton *sk = &builtin->skeleton;
    bool *curves = every_joint(sk);
    REQUIRE_VOID(curves != NULL);
    fbx_spec unequal = {"mixamorig:", curves, turned, true, NULL, true};
    CHECK(fbx_write("unequal_keys.fbx", sk, &unequal));
    for (int d = 0; d < 2; d++) {
        captured log = {.size = 0};
        crowd_import_desc import = {.in_process = true, .logger = {capture, &log}};
        crowd_anim_import_desc desc = {{capture, &log}, d ? &import : NULL, 0.0f};
        crowd_error error = {0};
        uint32_t clips = builtin->clip_count;
        CHECK_MSG(crowd_asset_add_clips(builtin, "unequal_keys.fbx", &desc, NULL, &error) ==
                      CROWD_OK,
                  "unequal_keys.fbx: %s", error.reason);
        CHECK_MSG(strstr(log.text, "the number of key times does not match") != NULL,
                  "no warning about the dropped curve in: %s", log.text);
        if (builtin->clip_count == clips + 1) {
            crowd_transform *pose = malloc(sk->joint_count * sizeof *pose);
            REQUIRE_VOID(pose != NULL);
            crowd_anim_sample(sk, &builtin->clips[clips], 1.0f, NULL, pose);
            double off = quat_difference(pose[turned].rotation, &sk->rest_rotation[4 * turned]);
            printf("unequal_keys.fbx (%s): added; the dropped curve's joint is %.3g off its rest "
                   "rotation at 1 s\n",
                   d ? "in process" : "helper", off);
            CHECK(off <= ROTATION_TOLERANCE);
            free(pose);
        }
    }
    free(curves);
    crowd_asset_destroy(builtin);
}

static void check_refusals(void) {
    crowd_asset *builtin = make_builtin();
    REQUIRE_VOID(builtin != NULL);
    const crowd_skeleton *sk = &builtin->skeleton;
    bool *curves = every_joint(sk);
    REQUIRE_VOID(curves != NULL);
    int32_t turned = crowd_asset_find_joint(builtin, "lower_arm_L");
    /* Nodes and no animation: nothing to take clips from. */
    fbx_spec still = {"mixamorig:", curves, turned, false, NULL, false};
    CHECK(fbx_write("still.fbx", sk, &still));
    check_refused(builtin, "still.fbx", CROWD_ERROR_UNSUPPORTED, "no skeleton or clips", false);
    fbx_spec nulls = {"", curves, turned, false, "Null", false};
    CHECK(fbx_write("nulls.fbx", sk, &nulls));
    check_refused(builtin, "nulls.fbx", CROWD_ERROR_UNSUPPORTED, "no skeleton or clips", false);
    const char *cameras = check_assimp_model("Collada/cameras.dae");
    if (cameras != NULL) {
        check_refused(builtin, cameras, CROWD_ERROR_UNSUPPORTED, "no skeleton or clips", false);
    }
    /* Malformed: a name left unterminated (assimp's tokenizer refuses it);
     * the file cut in the middle (its parser does, and leaks what it had
     * parsed: under LeakSanitizer the helper then exits 1, so this one runs
     * in the helper only, where either way it is an error). */
    fbx_spec good = {"mixamorig:", curves, turned, true, NULL, false};
    CHECK(fbx_write("whole.fbx", sk, &good));
    size_t size = 0;
    char *bytes = test_read_file("whole.fbx", &size);
    REQUIRE_VOID(bytes != NULL);
    CHECK(test_write_file("cut.fbx", bytes, size / 2) == 0);
    check_refused(builtin, "cut.fbx", CROWD_ERROR_INVALID_DATA, NULL, true);
    char *name = strstr(bytes, "\"Model::mixamorig:hips\"");
    REQUIRE_VOID(name != NULL);
    memmove(name + 22, name + 23, size - (size_t)(name + 23 - bytes) + 1);
    CHECK(test_write_file("quote.fbx", bytes, size - 1) == 0);
    check_refused(builtin, "quote.fbx", CROWD_ERROR_INVALID_DATA, "unexpected double-quote", false);
    free(bytes);
    check_dropped_curve(turned);
    free(curves);
    crowd_asset_destroy(builtin);
}

int main(void) {
    check_enter_temp_dir("import_anim_assimp");
    check_fbx_on(make_builtin, "lower_arm_L", "builtin_mixamo.fbx");
    check_fbx_on(import_robot, "LowerArm.L", "robot_mixamo.fbx");
    check_bvh_through_assimp();
    check_csm();
    check_refusals();
    return check_finish();
}
