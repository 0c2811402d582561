/* test_import_anim - clips from other files (crowd_asset_add_clips).
 *
 * robot.glb's clips are written into two animation-only GLBs (no mesh, no
 * skin: the skeleton's nodes and the animations; the second with every
 * node renamed "mixamorig:" + upper case) and added to a robot whose own
 * clips were taken away: the bake of that character (crowd_bake_build)
 * must equal the bake of robot.glb bit for bit, VAT and BAT. Names that
 * collide are made unique and counted; files without clips or without a
 * matching joint are refused and leave the character as it was. A CMU
 * BVH mocap (assimp-testmodels) goes onto the builtin humanoid: joints
 * matched by name and humanoid role, the hips at their height, the feet on
 * the ground. A rest pose that differs is import_anim_rest.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim_files.h"
#include "check.h"
#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/import.h"
#include "import/anim/anim_internal.h"
#include "robot_asset.h"

int test_anim_rest(void); /* import_anim_rest.c */

/* The character's own clips taken away (as if it came without any). */
void drop_clips(crowd_asset *asset) {
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        crowd__anim_clip_release(&asset->clips[c], asset->skeleton.joint_count);
    }
    free(asset->clips);
    asset->clips = NULL;
    asset->clip_count = 0;
}

static bool write_animation_files(void) {
    const char *path = check_shared_model("robot.glb");
    glb_file robot;
    if (path == NULL || !crowd__glb_read(path, &robot)) {
        CHECK_MSG(path == NULL, "cannot read %s", path);
        return false;
    }
    cJSON *first = animation_only(&robot, 0, 7);
    cJSON *second = animation_only(&robot, 7, 7);
    rename_nodes(second, "mixamorig:");
    bool ok = crowd__glb_write("robot_clips_a.glb", first, robot.bin, robot.bin_size) &&
              crowd__glb_write("robot_clips_b.glb", second, robot.bin, robot.bin_size);
    CHECK(ok);
    cJSON_Delete(first);
    cJSON_Delete(second);
    glb_free(&robot);
    return ok;
}

static size_t texel_bytes(crowd_texel_format format) {
    return format == CROWD_TEXEL_RGBA32F ? 16 : format == CROWD_TEXEL_NONE ? 0 : 8;
}

static bool same_texture(const crowd_texture *a, const crowd_texture *b) {
    size_t bytes = (size_t)a->width * a->height * texel_bytes(a->format);
    return a->width == b->width && a->height == b->height && a->format == b->format &&
           (bytes == 0 || memcmp(a->texels, b->texels, bytes) == 0);
}

static crowd_bake *bake(const crowd_asset *asset) {
    crowd_bake_desc desc = {0};
    desc.lods = -1;
    crowd_bake *out = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_bake_build(asset, &desc, &out, &error) == CROWD_OK, "bake: %s", error.reason);
    return out;
}

static void check_same_bake(void) {
    crowd_asset *original = import_robot();
    crowd_asset *character = import_robot();
    if (original == NULL || character == NULL || !write_animation_files()) {
        crowd_asset_destroy(original);
        crowd_asset_destroy(character);
        return;
    }
    drop_clips(character);
    const char *files[2] = {"robot_clips_a.glb", "robot_clips_b.glb"};
    for (int f = 0; f < 2; f++) {
        crowd_anim_report report;
        crowd_error error = {0};
        CHECK_MSG(crowd_asset_add_clips(character, files[f], NULL, &report, &error) == CROWD_OK,
                  "%s: %s", files[f], error.reason);
        printf("%s: %u clips, %u of %u joints matched, %u retargeted, %u unmatched, root x%g\n",
               files[f], report.clips_added, report.joints_matched, report.joint_count,
               report.joints_retargeted, report.unmatched_count, (double)report.root_scale);
        CHECK(report.clips_added == 7 && report.clips_renamed == 0);
        CHECK(report.joints_matched == original->skeleton.joint_count);
        CHECK(report.joints_by_role == 0 && report.joints_retargeted == 0);
        CHECK(report.unmatched_count == 0 && report.root_scale == 1.0f);
        CHECK(f == 0 || strcmp(report.matched[3], "mixamorig:HIPS") == 0);
        crowd_anim_report_free(&report);
    }
    CHECK(character->clip_count == original->clip_count);
    for (uint32_t c = 0; c < character->clip_count && c < original->clip_count; c++) {
        CHECK(strcmp(character->clips[c].name, original->clips[c].name) == 0 &&
              character->clips[c].duration_s == original->clips[c].duration_s &&
              character->clips[c].loop == original->clips[c].loop);
    }
    crowd_bake *expected = bake(original), *got = bake(character);
    if (expected != NULL && got != NULL) {
        CHECK(expected->frame_count == got->frame_count && expected->clip_count == got->clip_count);
        CHECK_MSG(same_texture(&expected->vat_position, &got->vat_position),
                  "VAT positions differ from the single-file bake");
        CHECK_MSG(same_texture(&expected->vat_normal, &got->vat_normal),
                  "VAT normals differ from the single-file bake");
        CHECK_MSG(same_texture(&expected->bat, &got->bat), "BAT differs from the single-file bake");
        printf(
            "bake with clips from 2 files: %u frames, VAT %ux%u and BAT %ux%u equal bit for bit\n",
            got->frame_count, got->vat_position.width, got->vat_position.height, got->bat.width,
            got->bat.height);
    }
    crowd_bake_destroy(expected);
    crowd_bake_destroy(got);
    crowd_asset_destroy(original);
    crowd_asset_destroy(character);
}

/* The robot's own clips again: every name taken, every one renamed. */
static void check_renames(void) {
    crowd_asset *robot = import_robot();
    if (robot == NULL) {
        return;
    }
    uint32_t before = robot->repairs.clips_renamed;
    crowd_anim_report report;
    crowd_error error = {0};
    CHECK(crowd_asset_add_clips(robot, "robot_clips_a.glb", NULL, &report, &error) == CROWD_OK);
    CHECK(report.clips_added == 7 && report.clips_renamed == 7);
    CHECK(robot->clip_count == 21 && robot->repairs.clips_renamed == before + 7);
    for (uint32_t c = 0; c < report.clips_added; c++) {
        char expected[64];
        snprintf(expected, sizeof expected, "%s_%u", report.clip_file_names[c], 14 + c);
        CHECK_MSG(strcmp(report.clip_names[c], expected) == 0, "clip %s, expected %s",
                  report.clip_names[c], expected);
    }
    crowd_anim_report_free(&report);
    crowd_asset_destroy(robot);
}

static void check_refusals(void) {
    crowd_asset *robot = import_robot();
    if (robot == NULL) {
        return;
    }
    uint32_t clips = robot->clip_count;
    crowd_error error = {0};
    CHECK(crowd_asset_add_clips(robot, "no_such_file.glb", NULL, NULL, &error) == CROWD_ERROR_IO);
    const char *hat = check_shared_model("greenman_hat.glb");
    if (hat != NULL) {
        /* Neither a skin nor an animation: refused as crowd/import.h says
         * for every format (glTF too, since both readers share one pipeline). */
        CHECK_MSG(crowd_asset_add_clips(robot, hat, NULL, NULL, &error) ==
                          CROWD_ERROR_UNSUPPORTED &&
                      strstr(error.reason, "no skeleton or clips") != NULL,
                  "%s", error.reason);
    }
    glb_file file;
    if (crowd__glb_read(check_shared_model("robot.glb"), &file)) {
        cJSON *json = animation_only(&file, 0, 1);
        rename_nodes(json, "zz");
        CHECK(crowd__glb_write("robot_no_match.glb", json, file.bin, file.bin_size));
        crowd_asset *builtin = NULL;
        CHECK(crowd_builtin_create(&builtin, &error) == CROWD_OK);
        uint32_t builtin_clips = builtin ? builtin->clip_count : 0;
        CHECK(builtin && crowd_asset_add_clips(builtin, "robot_no_match.glb", NULL, NULL, &error) ==
                             CROWD_ERROR_UNSUPPORTED);
        CHECK(strstr(error.reason, "no joint of its") != NULL);
        CHECK(builtin && builtin->clip_count == builtin_clips);
        printf("robot_no_match.glb on builtin: %s\n", error.reason);
        crowd_asset_destroy(builtin);
        cJSON_Delete(json);
        glb_free(&file);
    }
    CHECK(robot->clip_count == clips);
    CHECK(crowd_asset_add_clips(NULL, "x.glb", NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    crowd_asset_destroy(robot);
}

/* "Frames:" and "Frame Time:" of a BVH file, read from its text here. */
static bool bvh_timing(const char *path, double *frames, double *frame_time) {
    FILE *file = fopen(path, "r");
    char line[512];
    *frames = *frame_time = 0.0;
    while (file != NULL && fgets(line, sizeof line, file) != NULL) {
        sscanf(line, "Frames: %lf", frames);
        sscanf(line, "Frame Time: %lf", frame_time);
    }
    if (file != NULL) {
        fclose(file);
    }
    return *frames > 0.0 && *frame_time > 0.0;
}

static const char *matched(const crowd_asset *asset, const crowd_anim_report *r,
                           const char *joint) {
    int32_t j = crowd_asset_find_joint(asset, joint);
    return j >= 0 && r->matched[j] ? r->matched[j] : "";
}

static void check_bvh(void) {
    const char *path = check_assimp_model("BVH/01_01.bvh");
    crowd_asset *builtin = NULL;
    crowd_error error = {0};
    if (path == NULL || crowd_builtin_create(&builtin, &error) != CROWD_OK) {
        return;
    }
    crowd_anim_report report;
    CHECK_MSG(crowd_asset_add_clips(builtin, path, NULL, &report, &error) == CROWD_OK, "%s: %s",
              path, error.reason);
    if (report.clips_added != 1) {
        crowd_asset_destroy(builtin);
        return;
    }
    printf("%s on builtin: %u of %u joints matched (%u by humanoid role), root x%g; the file's "
           "%u others:",
           path, report.joints_matched, report.joint_count, report.joints_by_role,
           (double)report.root_scale, report.unmatched_count);
    for (uint32_t f = 0; f < report.unmatched_count; f++) {
        printf(" %s", report.unmatched[f]);
    }
    printf("\n");
    /* The names CMU's skeleton shares with the builtin one, then its limbs by role. */
    CHECK(strcmp(matched(builtin, &report, "hips"), "Hips") == 0);
    CHECK(strcmp(matched(builtin, &report, "spine"), "Spine") == 0);
    CHECK(strcmp(matched(builtin, &report, "head"), "Head") == 0);
    CHECK(strcmp(matched(builtin, &report, "upper_arm_L"), "LeftArm") == 0);
    CHECK(strcmp(matched(builtin, &report, "lower_arm_R"), "RightForeArm") == 0);
    CHECK(strcmp(matched(builtin, &report, "upper_leg_L"), "LeftUpLeg") == 0);
    CHECK(strcmp(matched(builtin, &report, "foot_R"), "RightFoot") == 0);
    CHECK(report.joints_matched == 19 && report.joints_by_role == 14);
    double frames = 0.0, frame_time = 0.0;
    CHECK(bvh_timing(path, &frames, &frame_time));
    const crowd_clip *clip = &builtin->clips[builtin->clip_count - 1];
    CHECK(strcmp(clip->name, "01_01") == 0);
    CHECK_NEAR(clip->duration_s, (frames - 1.0) * frame_time, 1e-3);
    /* First frame (CMU subject 1 stands before it jumps): hips at about
     * the builtin's hip height, the feet on the ground. */
    const crowd_skeleton *sk = &builtin->skeleton;
    crowd_transform *pose = malloc(sk->joint_count * sizeof *pose);
    float *models = malloc(16 * sizeof(float) * sk->joint_count);
    if (pose != NULL && models != NULL) {
        crowd_anim_sample(sk, clip, 0.0f, NULL, pose);
        crowd_anim_local_to_model(sk, pose, models);
        float hips = models[16 * crowd_asset_find_joint(builtin, "hips") + 13];
        float foot_l = models[16 * crowd_asset_find_joint(builtin, "foot_L") + 13];
        float foot_r = models[16 * crowd_asset_find_joint(builtin, "foot_R") + 13];
        printf("  t=0: hips at %.3f m, feet at %.3f and %.3f m\n", (double)hips, (double)foot_l,
               (double)foot_r);
        CHECK(hips > 0.85f && hips < 1.1f);
        CHECK(foot_l > -0.05f && foot_l < 0.2f && foot_r > -0.05f && foot_r < 0.2f);
    }
    free(pose);
    free(models);
    crowd_anim_report_free(&report);
    crowd_asset_destroy(builtin);
}

int main(void) {
    check_enter_temp_dir("import_anim");
    check_same_bake();
    check_renames();
    check_refusals();
    check_bvh();
    int failures = check_failures + test_anim_rest();
    printf("test_import_anim: %d failed\n", failures);
    return failures ? 1 : 0;
}
