/* import_attach.c - crowd_asset_attach: greenman + sword on socket_hand_R. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "crowd/import.h"
#include "import_tests.h"

/* Rest model matrix of joint j, composed from the rest TRS here (independent
 * of the importer's own maths): root_transform * local(j0) * ... * local(j). */
static void rest_model(const crowd_skeleton *sk, int32_t j, double out[16]) {
    double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (j < 0) {
        for (int e = 0; e < 16; e++) {
            out[e] = sk->root_transform[e];
        }
        return;
    }
    rest_model(sk, sk->parents[j], m);
    const float *t = &sk->rest_translation[3 * j], *q = &sk->rest_rotation[4 * j],
                *s = &sk->rest_scale[3 * j];
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    double local[16] = {
        r[0] * s[0], r[1] * s[0], r[2] * s[0], 0, r[3] * s[1], r[4] * s[1], r[5] * s[1], 0,
        r[6] * s[2], r[7] * s[2], r[8] * s[2], 0, t[0],        t[1],        t[2],        1};
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            double sum = 0;
            for (int k = 0; k < 4; k++) {
                sum += m[k * 4 + row] * local[c * 4 + k];
            }
            out[c * 4 + row] = sum;
        }
    }
}

static void transform(const double *m, const float *p, double out[3]) {
    for (int r = 0; r < 3; r++) {
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    }
}

static void transform_f(const float *m, const float *p, double out[3]) {
    for (int r = 0; r < 3; r++) {
        out[r] =
            (double)m[r] * p[0] + (double)m[4 + r] * p[1] + (double)m[8 + r] * p[2] + m[12 + r];
    }
}

int test_import_attach(void) {
    const char *path = check_shared_model("greenman.glb");
    crowd_asset *man = path ? import_or_fail(path) : NULL;
    path = check_shared_model("greenman_sword.glb");
    crowd_asset *sword = path ? import_or_fail(path) : NULL;
    if (man == NULL || sword == NULL) {
        crowd_asset_destroy(man);
        crowd_asset_destroy(sword);
        return CHECK_REPORT("attach");
    }
    uint32_t man_vertices = man->mesh.vertex_count, man_indices = man->mesh.index_count;
    uint32_t man_materials = man->material_count, man_submeshes = man->mesh.submesh_count;
    crowd_error error = {0};

    /* Unknown socket: a clear error naming it, and the asset untouched. */
    CHECK(crowd_asset_attach(man, "socket_tail", sword, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "socket_tail") != NULL &&
          strstr(error.reason, "socket_hand_R") != NULL);
    CHECK(man->mesh.vertex_count == man_vertices && man->material_count == man_materials);
    CHECK(crowd_asset_attach(NULL, "socket_hand_R", sword, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_asset_attach(man, "socket_hand_R", NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);

    CHECK(crowd_asset_attach(man, "socket_hand_R", sword, &error) == CROWD_OK);
    crowd_error invalid;
    CHECK_MSG(crowd_asset_validate(man, &invalid) == CROWD_OK, "%s", invalid.reason);
    CHECK(man->mesh.vertex_count == man_vertices + sword->mesh.vertex_count);
    CHECK(man->mesh.index_count == man_indices + sword->mesh.index_count);
    CHECK(man->material_count == man_materials + sword->material_count);
    CHECK(man->mesh.submesh_count == man_submeshes + sword->mesh.submesh_count);
    CHECK(man->materials[man_materials].texture_rgba8 != NULL);

    int32_t socket = crowd_asset_find_socket(man, "socket_hand_R");
    int32_t joint = crowd_asset_find_joint(man, "socket_hand_R");
    CHECK(socket >= 0 && joint >= 0 && man->sockets[socket].joint == (uint32_t)joint);
    double model[16];
    rest_model(&man->skeleton, joint, model);
    const float *inverse_bind = &man->skeleton.inverse_bind[16 * joint];
    double worst = 0.0;
    for (uint32_t v = 0; v < sword->mesh.vertex_count; v++) {
        uint32_t o = man_vertices + v;
        CHECK(man->mesh.joints[4 * o] == joint && man->mesh.weights[4 * o] == 1.0f);
        /* At rest, skinning (model * inverse_bind * p) must put the vertex on
         * the socket: model * sword vertex (socket offset is identity here). */
        double bound[3], skinned[3], expected[3];
        transform_f(inverse_bind, &man->mesh.positions[3 * o], bound);
        const float boundf[3] = {(float)bound[0], (float)bound[1], (float)bound[2]};
        transform(model, boundf, skinned);
        transform(model, &sword->mesh.positions[3 * v], expected);
        for (int a = 0; a < 3; a++) {
            worst = fmax(worst, fabs(skinned[a] - expected[a]));
        }
    }
    printf("attach: sword vertices on socket_hand_R within %g\n", worst);
    CHECK(worst < 1e-4);
    /* The new indices point at the new vertices. */
    for (uint32_t i = man_indices; i < man->mesh.index_count; i++) {
        CHECK(man->mesh.indices[i] >= man_vertices);
    }
    crowd_asset_destroy(man);
    crowd_asset_destroy(sword);
    return CHECK_REPORT("attach");
}
