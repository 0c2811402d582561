/* test_core.c - the core module: asset create/destroy/find/bounds, the
 * validation pass (every invariant broken on purpose, one at a time, on a
 * small valid asset), result strings, error reports and the logger. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>

#include "check.h"
#include "crowd/asset.h"
#include "crowd/result.h"
#include "quad_asset.h"

/* Breaks one invariant of a fresh quad asset with BREAK, validates, checks
 * the result and that the reason contains EXPECT, then runs RESTORE (to put
 * back counts that destroy() relies on) and frees the asset. */
#define CHECK_BROKEN(EXPECT, BREAK, RESTORE)                                                       \
    do {                                                                                           \
        crowd_asset *a = quad_asset_create();                                                      \
        REQUIRE(a != NULL);                                                                        \
        BREAK;                                                                                     \
        crowd_error err_;                                                                          \
        memset(&err_, 0, sizeof err_);                                                             \
        crowd_result r_ = crowd_asset_validate(a, &err_);                                          \
        CHECK_MSG(r_ == CROWD_ERROR_INVALID_DATA, "%s: result %d", #BREAK, (int)r_);               \
        CHECK_MSG(err_.result == CROWD_ERROR_INVALID_DATA, "%s", #BREAK);                          \
        CHECK_MSG(strstr(err_.reason, EXPECT) != NULL, "%s: reason '%s' lacks '%s'", #BREAK,       \
                  err_.reason, EXPECT);                                                            \
        CHECK_MSG(strcmp(err_.file, "quad.gltf") == 0, "%s: file '%s'", #BREAK, err_.file);        \
        /* Without an error struct the result must be the same. */                                 \
        CHECK(crowd_asset_validate(a, NULL) == CROWD_ERROR_INVALID_DATA);                          \
        RESTORE;                                                                                   \
        crowd_asset_destroy(a);                                                                    \
    } while (0)

#define NOTHING ((void)0)

static int test_valid_assets(void) {
    crowd_asset *a = quad_asset_create();
    REQUIRE(a != NULL);
    crowd_error err = {0};
    crowd_result r = crowd_asset_validate(a, &err);
    CHECK_MSG(r == CROWD_OK, "quad asset invalid: %s", err.reason);
    CHECK(crowd_asset_validate(a, NULL) == CROWD_OK);

    /* Cubic rotation keys need not be unit: glTF normalizes after interpolating. */
    crowd_track *rot = &a->clips[0].tracks[1].rotation;
    free(rot->values);
    const float cubic[24] = {0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0,
                             0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    rot->values = quad_floats(cubic, 24);
    rot->key_count = 2;
    rot->interpolation = CROWD_INTERP_CUBIC;
    CHECK(crowd_asset_validate(a, &err) == CROWD_OK);
    /* Equal key times (a jump) are allowed: non-decreasing, not increasing. */
    rot->times_s[1] = rot->times_s[0];
    CHECK(crowd_asset_validate(a, &err) == CROWD_OK);
    /* Tangents are optional. */
    free(a->mesh.tangents);
    a->mesh.tangents = NULL;
    CHECK(crowd_asset_validate(a, &err) == CROWD_OK);
    /* Weights off by less than the tolerance pass. */
    a->mesh.weights[0] += 5e-5f;
    CHECK(crowd_asset_validate(a, &err) == CROWD_OK);
    crowd_asset_destroy(a);

    /* A skeleton with nothing else (no mesh, no clips) is a valid asset. */
    crowd_asset *bare = crowd_asset_create();
    REQUIRE(bare != NULL);
    bare->skeleton.joint_count = 1;
    bare->skeleton.names = malloc(sizeof *bare->skeleton.names);
    bare->skeleton.names[0] = quad_strdup("");
    bare->skeleton.parents = calloc(1, sizeof *bare->skeleton.parents);
    bare->skeleton.parents[0] = -1;
    const float zero3[3] = {0, 0, 0}, one3[3] = {1, 1, 1}, unit_q[4] = {0, 0, 0, 1};
    const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    bare->skeleton.rest_translation = quad_floats(zero3, 3);
    bare->skeleton.rest_rotation = quad_floats(unit_q, 4);
    bare->skeleton.rest_scale = quad_floats(one3, 3);
    bare->skeleton.inverse_bind = quad_floats(identity, 16);
    r = crowd_asset_validate(bare, &err);
    CHECK_MSG(r == CROWD_OK, "bare skeleton invalid: %s", err.reason);
    crowd_asset_destroy(bare);
    return 0;
}

static int test_invalid_skeleton(void) {
    crowd_error err = {0};
    CHECK(crowd_asset_validate(NULL, &err) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(err.result == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_asset_validate(NULL, NULL) == CROWD_ERROR_INVALID_ARGUMENT);

    crowd_asset *empty = crowd_asset_create();
    REQUIRE(empty != NULL);
    CHECK(crowd_asset_validate(empty, &err) == CROWD_ERROR_INVALID_DATA);
    CHECK(strstr(err.reason, "no joints") != NULL);
    CHECK(strcmp(err.file, "") == 0);
    crowd_asset_destroy(empty);

    CHECK_BROKEN("skeleton: no joints", a->skeleton.joint_count = 0, a->skeleton.joint_count = 2);
    CHECK_BROKEN("more than the limit", a->skeleton.joint_count = 70000,
                 a->skeleton.joint_count = 2);
    CHECK_BROKEN("NULL array",
                 (free(a->skeleton.names[0]), free(a->skeleton.names[1]), free(a->skeleton.names),
                  a->skeleton.names = NULL),
                 NOTHING);
    CHECK_BROKEN("NULL array", (free(a->skeleton.parents), a->skeleton.parents = NULL), NOTHING);
    CHECK_BROKEN("NULL array",
                 (free(a->skeleton.rest_translation), a->skeleton.rest_translation = NULL),
                 NOTHING);
    CHECK_BROKEN("NULL array", (free(a->skeleton.rest_rotation), a->skeleton.rest_rotation = NULL),
                 NOTHING);
    CHECK_BROKEN("NULL array", (free(a->skeleton.rest_scale), a->skeleton.rest_scale = NULL),
                 NOTHING);
    CHECK_BROKEN("NULL array", (free(a->skeleton.inverse_bind), a->skeleton.inverse_bind = NULL),
                 NOTHING);
    CHECK_BROKEN("joint 1: name is NULL", (free(a->skeleton.names[1]), a->skeleton.names[1] = NULL),
                 NOTHING);
    CHECK_BROKEN("joint 1: parent 1 is not before it", a->skeleton.parents[1] = 1, NOTHING);
    CHECK_BROKEN("joint 1: parent 5 is not before it", a->skeleton.parents[1] = 5, NOTHING);
    CHECK_BROKEN("joint 0: parent -2 is not before it", a->skeleton.parents[0] = -2, NOTHING);
    CHECK_BROKEN("joint 1: rest translation is not finite", a->skeleton.rest_translation[4] = NAN,
                 NOTHING);
    CHECK_BROKEN("joint 1: rest scale is not finite", a->skeleton.rest_scale[5] = INFINITY,
                 NOTHING);
    CHECK_BROKEN("joint 1: rest rotation is not finite", a->skeleton.rest_rotation[6] = -INFINITY,
                 NOTHING);
    CHECK_BROKEN("joint 1: rest rotation is not unit (length 2)",
                 a->skeleton.rest_rotation[7] = 2.0f, NOTHING);
    CHECK_BROKEN("joint 0: rest rotation is not unit (length 0)",
                 a->skeleton.rest_rotation[3] = 0.0f, NOTHING);
    CHECK_BROKEN("joint 1: inverse bind matrix is not finite",
                 a->skeleton.inverse_bind[16 + 13] = NAN, NOTHING);
    CHECK_BROKEN("root transform is not finite", a->skeleton.root_transform[12] = INFINITY,
                 NOTHING);
    return 0;
}

static int test_invalid_materials(void) {
    CHECK_BROKEN("materials: count is 2 but the array is NULL",
                 (free(a->materials[0].name), free(a->materials[1].name), free(a->materials),
                  a->materials = NULL),
                 NOTHING);
    CHECK_BROKEN("material 1: name is NULL",
                 (free(a->materials[1].name), a->materials[1].name = NULL), NOTHING);
    CHECK_BROKEN("material 0: base colour is not finite", a->materials[0].base_color[2] = NAN,
                 NOTHING);
    CHECK_BROKEN("material 1: texture is 4x4 but its pixels are NULL",
                 (a->materials[1].texture_width = 4, a->materials[1].texture_height = 4), NOTHING);
    CHECK_BROKEN(
        "material 0: texture is 0x4 but its pixels are present",
        (a->materials[0].texture_height = 4, a->materials[0].texture_rgba8 = calloc(16, 4)),
        NOTHING);
    return 0;
}

static int test_invalid_mesh(void) {
    CHECK_BROKEN("mesh: 4 vertices but a NULL attribute array",
                 (free(a->mesh.positions), a->mesh.positions = NULL), NOTHING);
    CHECK_BROKEN("NULL attribute array", (free(a->mesh.normals), a->mesh.normals = NULL), NOTHING);
    CHECK_BROKEN("NULL attribute array", (free(a->mesh.uv0), a->mesh.uv0 = NULL), NOTHING);
    CHECK_BROKEN("NULL attribute array", (free(a->mesh.joints), a->mesh.joints = NULL), NOTHING);
    CHECK_BROKEN("NULL attribute array", (free(a->mesh.weights), a->mesh.weights = NULL), NOTHING);
    CHECK_BROKEN("vertex 2: position is not finite", a->mesh.positions[7] = NAN, NOTHING);
    CHECK_BROKEN("vertex 3: normal is not finite", a->mesh.normals[9] = INFINITY, NOTHING);
    CHECK_BROKEN("vertex 3: normal is zero", a->mesh.normals[11] = 0.0f, NOTHING);
    CHECK_BROKEN("vertex 1: uv0 is not finite", a->mesh.uv0[3] = NAN, NOTHING);
    CHECK_BROKEN("vertex 0: tangent is not finite", a->mesh.tangents[3] = NAN, NOTHING);
    CHECK_BROKEN("vertex 2: influence 3 joint 2 out of range (2 joints)", a->mesh.joints[11] = 2,
                 NOTHING);
    CHECK_BROKEN("vertex 0: influence 0 joint 65535 out of range", a->mesh.joints[0] = 65535,
                 NOTHING);
    CHECK_BROKEN("vertex 1: weight 1 is negative", a->mesh.weights[5] = -0.25f, NOTHING);
    CHECK_BROKEN("vertex 0: weight 0 is not finite", a->mesh.weights[0] = NAN, NOTHING);
    CHECK_BROKEN("vertex 0: weight 2 is not finite", a->mesh.weights[2] = INFINITY, NOTHING);
    CHECK_BROKEN("vertex 3: weights sum to 0.5", (a->mesh.weights[13] = 0, a->mesh.weights[14] = 0),
                 NOTHING);
    CHECK_BROKEN("vertex 2: weights sum to 0", a->mesh.weights[8] = 0, NOTHING);
    CHECK_BROKEN("vertex 1: weights sum to 1.001", a->mesh.weights[4] = 0.751f, NOTHING);

    CHECK_BROKEN("index count 5 is not a multiple of 3", a->mesh.index_count = 5,
                 a->mesh.index_count = 6);
    CHECK_BROKEN("mesh: 6 indices but the array is NULL",
                 (free(a->mesh.indices), a->mesh.indices = NULL), NOTHING);
    CHECK_BROKEN("index 4: vertex 4 out of range (4 vertices)", a->mesh.indices[4] = 4, NOTHING);
    CHECK_BROKEN("index 5: vertex 4294967295 out of range", a->mesh.indices[5] = UINT32_MAX,
                 NOTHING);
    CHECK_BROKEN("mesh: 2 submeshes but the array is NULL",
                 (free(a->mesh.submeshes), a->mesh.submeshes = NULL), NOTHING);
    CHECK_BROKEN("mesh: 6 indices but no submesh covers them", a->mesh.submesh_count = 0, NOTHING);
    CHECK_BROKEN("submesh 1: first index 4, expected 3", a->mesh.submeshes[1].first_index = 4,
                 NOTHING);
    CHECK_BROKEN("submesh 0: first index 3, expected 0", a->mesh.submeshes[0].first_index = 3,
                 NOTHING);
    CHECK_BROKEN("submesh 1: index count 4 is not a multiple of 3",
                 a->mesh.submeshes[1].index_count = 4, NOTHING);
    CHECK_BROKEN("submesh 1: material 2 out of range (2 materials)",
                 a->mesh.submeshes[1].material = 2, NOTHING);
    CHECK_BROKEN("submeshes cover 3 indices, the mesh has 6", a->mesh.submesh_count = 1, NOTHING);
    CHECK_BROKEN("submeshes cover 9 indices, the mesh has 6", a->mesh.submeshes[1].index_count = 6,
                 NOTHING);
    /* Triangles with no vertices to point at. */
    CHECK_BROKEN("index 0: vertex 0 out of range (0 vertices)", a->mesh.vertex_count = 0, NOTHING);
    return 0;
}

static int test_invalid_clips(void) {
    /* Swap the array out, then put it back for destroy(). */
    {
        crowd_asset *a = quad_asset_create();
        REQUIRE(a != NULL);
        crowd_clip *saved = a->clips;
        a->clips = NULL;
        crowd_error err = {0};
        CHECK(crowd_asset_validate(a, &err) == CROWD_ERROR_INVALID_DATA);
        CHECK(strstr(err.reason, "clips: count is 2 but the array is NULL") != NULL);
        a->clips = saved;
        crowd_asset_destroy(a);
    }
    CHECK_BROKEN("clip 0: name is empty", a->clips[0].name[0] = '\0', NOTHING);
    CHECK_BROKEN("clip 1: name is NULL", (free(a->clips[1].name), a->clips[1].name = NULL),
                 NOTHING);
    CHECK_BROKEN("clip 1: name 'wave' is already used by clip 0", strcpy(a->clips[1].name, "wave"),
                 NOTHING);
    CHECK_BROKEN("clip 'wave': duration -1 s", a->clips[0].duration_s = -1.0f, NOTHING);
    CHECK_BROKEN("clip 'pose': duration nan s", a->clips[1].duration_s = NAN, NOTHING);
    CHECK_BROKEN("clip 'pose': duration inf s", a->clips[1].duration_s = INFINITY, NOTHING);
    CHECK_BROKEN("clip 'pose': tracks array is NULL",
                 (free(a->clips[1].tracks), a->clips[1].tracks = NULL), NOTHING);
    CHECK_BROKEN("clip 'wave' joint 1 rotation: 3 keys but a NULL times or values array",
                 (free(a->clips[0].tracks[1].rotation.times_s),
                  a->clips[0].tracks[1].rotation.times_s = NULL),
                 NOTHING);
    CHECK_BROKEN("clip 'wave' joint 0 translation: 2 keys but a NULL times or values array",
                 (free(a->clips[0].tracks[0].translation.values),
                  a->clips[0].tracks[0].translation.values = NULL),
                 NOTHING);
    CHECK_BROKEN("clip 'wave' joint 1 rotation: key 2 time 1 before previous 1.5",
                 a->clips[0].tracks[1].rotation.times_s[1] = 1.5f, NOTHING);
    CHECK_BROKEN("clip 'wave' joint 0 translation: key 0 time -0.5 is negative",
                 a->clips[0].tracks[0].translation.times_s[0] = -0.5f, NOTHING);
    CHECK_BROKEN("clip 'wave' joint 1 scale: key 1 time is not finite",
                 a->clips[0].tracks[1].scale.times_s[1] = NAN, NOTHING);
    CHECK_BROKEN("clip 'wave' joint 1 scale: key 1 value is not finite",
                 a->clips[0].tracks[1].scale.values[9 + 1] = NAN, NOTHING);
    /* A NaN in a cubic tangent counts too ("no NaN anywhere"). */
    CHECK_BROKEN("clip 'wave' joint 1 scale: key 0 value is not finite",
                 a->clips[0].tracks[1].scale.values[8] = INFINITY, NOTHING);
    CHECK_BROKEN("clip 'wave' joint 0 translation: key 1 value is not finite",
                 a->clips[0].tracks[0].translation.values[4] = NAN, NOTHING);
    CHECK_BROKEN("clip 'wave' joint 1 rotation: key 1 is not a unit quaternion (length 0.5)",
                 (a->clips[0].tracks[1].rotation.values[6] = 0.25f,
                  a->clips[0].tracks[1].rotation.values[7] = 0.4330127f),
                 NOTHING);
    CHECK_BROKEN("clip 'wave' joint 1 rotation: unknown interpolation 7",
                 a->clips[0].tracks[1].rotation.interpolation = (crowd_interpolation)7, NOTHING);
    return 0;
}

static int test_invalid_sockets(void) {
    {
        crowd_asset *a = quad_asset_create();
        REQUIRE(a != NULL);
        crowd_socket *saved = a->sockets;
        a->sockets = NULL;
        crowd_error err = {0};
        CHECK(crowd_asset_validate(a, &err) == CROWD_ERROR_INVALID_DATA);
        CHECK(strstr(err.reason, "sockets: count is 1 but the array is NULL") != NULL);
        a->sockets = saved;
        crowd_asset_destroy(a);
    }
    CHECK_BROKEN("socket 0: name is NULL", (free(a->sockets[0].name), a->sockets[0].name = NULL),
                 NOTHING);
    CHECK_BROKEN("socket 'socket_hand': joint 2 out of range (2 joints)", a->sockets[0].joint = 2,
                 NOTHING);
    CHECK_BROKEN("socket 'socket_hand': offset is not finite", a->sockets[0].offset[14] = NAN,
                 NOTHING);
    return 0;
}

static int test_asset_basics(void) {
    crowd_asset_destroy(NULL);
    crowd_asset *a = crowd_asset_create();
    REQUIRE(a != NULL);
    CHECK(a->mesh.vertex_count == 0 && a->mesh.positions == NULL && a->clip_count == 0);
    CHECK(a->skeleton.joint_count == 0 && a->name == NULL && !a->has_skin);
    for (int i = 0; i < 16; i++) {
        CHECK(a->skeleton.root_transform[i] == (i % 5 == 0 ? 1.0f : 0.0f));
    }
    float mn[3] = {7, 7, 7}, mx[3] = {7, 7, 7};
    crowd_asset_bind_bounds(a, mn, mx);
    CHECK(mn[0] == 0 && mn[1] == 0 && mn[2] == 0 && mx[0] == 0 && mx[1] == 0 && mx[2] == 0);
    CHECK(crowd_asset_find_clip(a, "walk") == -1);
    CHECK(crowd_asset_find_joint(a, "root") == -1);
    CHECK(crowd_asset_find_socket(a, "socket_hand") == -1);
    crowd_asset_destroy(a);

    a = quad_asset_create();
    REQUIRE(a != NULL);
    crowd_asset_bind_bounds(a, mn, mx);
    CHECK(mn[0] == -0.5f && mn[1] == 0.0f && mn[2] == 0.0f);
    CHECK(mx[0] == 0.5f && mx[1] == 2.0f && mx[2] == 0.0f);
    CHECK(crowd_asset_find_clip(a, "wave") == 0);
    CHECK(crowd_asset_find_clip(a, "pose") == 1);
    CHECK(crowd_asset_find_clip(a, "Wave") == -1);
    CHECK(crowd_asset_find_clip(a, "") == -1);
    CHECK(crowd_asset_find_joint(a, "root") == 0);
    CHECK(crowd_asset_find_joint(a, "child") == 1);
    CHECK(crowd_asset_find_joint(a, "chil") == -1);
    CHECK(crowd_asset_find_socket(a, "socket_hand") == 0);
    CHECK(crowd_asset_find_socket(a, "socket_head") == -1);
    crowd_asset_destroy(a);
    return 0;
}

static int test_results(void) {
    const char *seen[CROWD_RESULT_COUNT];
    for (int r = 0; r < CROWD_RESULT_COUNT; r++) {
        const char *s = crowd_result_str((crowd_result)r);
        CHECK(s != NULL && s[0] != '\0');
        CHECK(s != NULL && strcmp(s, "unknown result") != 0);
        seen[r] = s;
        for (int o = 0; o < r; o++) {
            CHECK_MSG(strcmp(seen[o], s) != 0, "results %d and %d share the string '%s'", o, r, s);
        }
    }
    CHECK(strcmp(crowd_result_str(CROWD_OK), "ok") == 0);
    CHECK(strcmp(crowd_result_str(CROWD_ERROR_INVALID_DATA), "invalid data") == 0);
    CHECK(strcmp(crowd_result_str(CROWD_RESULT_COUNT), "unknown result") == 0);
    CHECK(strcmp(crowd_result_str((crowd_result)-1), "unknown result") == 0);
    CHECK(strcmp(crowd_result_str((crowd_result)1000), "unknown result") == 0);
    return 0;
}

static int test_errors(void) {
    crowd_error err;
    memset(&err, 'x', sizeof err);
    CHECK(crowd_error_set(&err, CROWD_ERROR_IO, "robot.glb", "cannot open: %s (%d)", "No such file",
                          2) == CROWD_ERROR_IO);
    CHECK(err.result == CROWD_ERROR_IO);
    CHECK(strcmp(err.file, "robot.glb") == 0);
    CHECK(strcmp(err.reason, "cannot open: No such file (2)") == 0);

    CHECK(crowd_error_set(&err, CROWD_ERROR_LIMIT, NULL, "too tall") == CROWD_ERROR_LIMIT);
    CHECK(err.result == CROWD_ERROR_LIMIT && strcmp(err.file, "") == 0);
    CHECK(strcmp(err.reason, "too tall") == 0);

    CHECK(crowd_error_set(NULL, CROWD_ERROR_GPU, "x", "no context") == CROWD_ERROR_GPU);

    /* Over-long file names and reasons are cut, still terminated. */
    char long_text[2000];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    crowd_error_set(&err, CROWD_ERROR_OUTPUT, long_text, "%s", long_text);
    CHECK(strlen(err.file) == sizeof err.file - 1);
    CHECK(strlen(err.reason) == sizeof err.reason - 1);
    return 0;
}

typedef struct log_capture {
    int calls;
    crowd_log_level level;
    char message[1100];
} log_capture;

static void capture(void *user, crowd_log_level level, const char *message) {
    log_capture *c = user;
    c->calls++;
    c->level = level;
    snprintf(c->message, sizeof c->message, "%s", message);
}

static int test_logger(void) {
    crowd_log(NULL, CROWD_LOG_WARNING, "nobody listens %d", 1);
    crowd_logger silent = {0};
    crowd_log(&silent, CROWD_LOG_WARNING, "nobody listens %d", 2);

    log_capture c = {0};
    crowd_logger logger = {.fn = capture, .user = &c};
    crowd_log(&logger, CROWD_LOG_WARNING, "renormalized %u vertices in '%s'", 31u, "RiggedFigure");
    CHECK(c.calls == 1);
    CHECK(c.level == CROWD_LOG_WARNING);
    CHECK(strcmp(c.message, "renormalized 31 vertices in 'RiggedFigure'") == 0);
    crowd_log(&logger, CROWD_LOG_DEBUG, "x");
    CHECK(c.calls == 2 && c.level == CROWD_LOG_DEBUG && strcmp(c.message, "x") == 0);
    /* A zeroed logger with user data but no function still discards. */
    crowd_logger no_fn = {.fn = NULL, .user = &c};
    crowd_log(&no_fn, CROWD_LOG_INFO, "dropped");
    CHECK(c.calls == 2);
    /* Long messages are cut to the logger's buffer, never overrun. */
    char long_text[3000];
    memset(long_text, 'b', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    crowd_log(&logger, CROWD_LOG_INFO, "%s", long_text);
    CHECK(c.calls == 3 && strlen(c.message) > 0 && strlen(c.message) < sizeof long_text - 1);
    return 0;
}

int main(void) {
    check_enter_temp_dir("test_core");
    test_valid_assets();
    test_invalid_skeleton();
    test_invalid_materials();
    test_invalid_mesh();
    test_invalid_clips();
    test_invalid_sockets();
    test_asset_basics();
    test_results();
    test_errors();
    test_logger();
    return check_finish();
}
