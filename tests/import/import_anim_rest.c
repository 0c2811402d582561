/* import_anim_rest.c - a file whose rest pose differs from the character's.
 *
 * robot.glb's Robot_Walking is written into an animation-only GLB whose
 * UpperArm.L rests turned by 50 degrees (its rotation multiplied by a turn
 * about its local X; keys as they were), and added to a robot without
 * clips. The character must take the file's pose: at every time checked,
 * each of its bones (joint to child) points where the file's bone points,
 * within 2e-3 rad. The file's pose is computed independently, by the glTF
 * reference reader and skinner of tests/gltf_reference (double precision,
 * straight from the specification), from the file itself. Part of
 * test_import_anim. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gltf_reference/gltf_reader.h"
#include "../gltf_reference/gltf_skinner.h"
#include "anim_files.h"
#include "check.h"
#include "crowd/anim.h"
#include "crowd/import.h"
#include "robot_asset.h"

int test_anim_rest(void);

#define TURN_DEG 50.0
#define TOLERANCE_RAD 2e-3
#define PI 3.14159265358979323846

static const char turned_joint[] = "UpperArm.L";

/* q * (turn about x), doubles, (x, y, z, w). */
static void turn_rest(cJSON *node) {
    cJSON *rotation = cJSON_GetObjectItemCaseSensitive(node, "rotation");
    double q[4] = {0, 0, 0, 1};
    for (int k = 0; k < 4 && cJSON_GetArraySize(rotation) == 4; k++) {
        q[k] = cJSON_GetArrayItem(rotation, k)->valuedouble;
    }
    double h = TURN_DEG * PI / 360.0, r[4] = {sin(h), 0, 0, cos(h)};
    double out[4] = {
        q[3] * r[0] + q[0] * r[3] + q[1] * r[2] - q[2] * r[1],
        q[3] * r[1] - q[0] * r[2] + q[1] * r[3] + q[2] * r[0],
        q[3] * r[2] + q[0] * r[1] - q[1] * r[0] + q[2] * r[3],
        q[3] * r[3] - q[0] * r[0] - q[1] * r[1] - q[2] * r[2],
    };
    cJSON_DeleteItemFromObjectCaseSensitive(node, "rotation");
    cJSON_AddItemToObject(node, "rotation", cJSON_CreateDoubleArray(out, 4));
}

static int animation_index(const cJSON *json, const char *name) {
    int index = 0;
    const cJSON *animation;
    cJSON_ArrayForEach(animation, cJSON_GetObjectItemCaseSensitive(json, "animations")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(animation, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0) {
            return index;
        }
        index++;
    }
    return -1;
}

/* The reference node that is character joint j: same name, parent of the
 * parent joint's name (robot.glb has mesh nodes named like joints). */
static int reference_node(const gltf_file *ref, const crowd_skeleton *sk, int32_t j) {
    for (int n = 0; n < ref->node_count; n++) {
        const gltf_node *node = &ref->nodes[n];
        int32_t p = sk->parents[j];
        bool parent_ok = p < 0 || (node->parent >= 0 &&
                                   strcmp(ref->nodes[node->parent].name, sk->names[p]) == 0);
        if (strcmp(node->name, sk->names[j]) == 0 && parent_ok) {
            return n;
        }
    }
    return -1;
}

static double angle(const double a[3], const double b[3]) {
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    double nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    return acos(fmax(-1.0, fmin(1.0, dot / (na * nb))));
}

/* Largest angle between the character's bones and the file's at `time_s`. */
static double pose_gap(const crowd_asset *character, const crowd_clip *clip, const gltf_file *ref,
                       const int *node_of, float time_s, const char **worst) {
    const crowd_skeleton *sk = &character->skeleton;
    crowd_transform *pose = malloc(sk->joint_count * sizeof *pose);
    float *models = malloc(16 * sizeof(float) * sk->joint_count);
    double *globals = malloc(16 * sizeof(double) * (size_t)ref->node_count);
    double gap = 0.0;
    crowd_anim_sample(sk, clip, time_s, NULL, pose);
    crowd_anim_local_to_model(sk, pose, models);
    gltf_globals(ref, &ref->animations[0], time_s, globals);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        int32_t p = sk->parents[j];
        if (p < 0 || node_of[j] < 0 || node_of[p] < 0) {
            continue;
        }
        double mine[3], theirs[3];
        for (int c = 0; c < 3; c++) {
            mine[c] = models[16 * j + 12 + c] - models[16 * p + 12 + c];
            theirs[c] = globals[16 * node_of[j] + 12 + c] - globals[16 * node_of[p] + 12 + c];
        }
        if (sqrt(theirs[0] * theirs[0] + theirs[1] * theirs[1] + theirs[2] * theirs[2]) < 1e-4) {
            continue;
        }
        double a = angle(mine, theirs);
        if (a > gap) {
            gap = a;
            *worst = sk->names[j];
        }
    }
    free(pose);
    free(models);
    free(globals);
    return gap;
}

int test_anim_rest(void) {
    const char *path = check_shared_model("robot.glb");
    glb_file robot;
    if (path == NULL || !crowd__glb_read(path, &robot)) {
        return check_failures;
    }
    int walk = animation_index(robot.json, "Robot_Walking");
    CHECK(walk >= 0);
    cJSON *json = animation_only(&robot, walk, 1);
    cJSON *node = find_node(json, turned_joint);
    CHECK(node != NULL);
    if (node != NULL) {
        turn_rest(node);
    }
    CHECK(crowd__glb_write("robot_rest_differs.glb", json, robot.bin, robot.bin_size));
    cJSON_Delete(json);
    glb_free(&robot);

    crowd_asset *character = import_robot();
    char reason[256];
    gltf_file *ref = gltf_read_file("robot_rest_differs.glb", reason, sizeof reason);
    CHECK_MSG(ref != NULL, "reference reader: %s", reason);
    if (character == NULL || ref == NULL) {
        crowd_asset_destroy(character);
        gltf_free(ref);
        return check_failures;
    }
    drop_clips(character);
    crowd_anim_report report;
    crowd_error error = {0};
    CHECK_MSG(crowd_asset_add_clips(character, "robot_rest_differs.glb", NULL, &report, &error) ==
                  CROWD_OK,
              "robot_rest_differs.glb: %s", error.reason);
    CHECK(report.clips_added == 1 && report.joints_retargeted > 0);
    printf("robot_rest_differs.glb (%s turned %g degrees at rest): %u joints retargeted, the "
           "rest copied\n",
           turned_joint, TURN_DEG, report.joints_retargeted);
    crowd_anim_report_free(&report);
    const crowd_skeleton *sk = &character->skeleton;
    int *node_of = malloc(sk->joint_count * sizeof *node_of);
    for (uint32_t j = 0; node_of != NULL && j < sk->joint_count; j++) {
        node_of[j] = reference_node(ref, sk, (int32_t)j);
    }
    if (node_of != NULL && character->clip_count == 1) {
        const crowd_clip *clip = &character->clips[0];
        double worst_gap = 0.0;
        for (int k = 0; k < 7; k++) {
            float t = clip->duration_s * (float)(k + 0.3) / 7.0f;
            const char *worst = "";
            double gap = pose_gap(character, clip, ref, node_of, t, &worst);
            CHECK_MSG(gap <= TOLERANCE_RAD, "t=%g: bone of '%s' %g rad from the file's", (double)t,
                      worst, gap);
            worst_gap = fmax(worst_gap, gap);
        }
        printf("  every bone within %.2g rad of the file's pose (tolerance %g) at 7 times\n",
               worst_gap, TOLERANCE_RAD);
    }
    free(node_of);
    gltf_free(ref);
    crowd_asset_destroy(character);
    printf("anim_rest: %d checks, %d failed\n", check_count, check_failures);
    return check_failures;
}
