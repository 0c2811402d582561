/* Joint and socket queries (group query): every joint and socket of an
 * instance, in model and world space, against a reference computed here
 * from the asset alone (crowd_anim_play_time, crowd_anim_sample,
 * crowd_anim_blend, crowd_anim_local_to_model, the socket's offset and the
 * instance's position, heading and scale), for every clip at 10 times (past
 * each clip's end too: the wrap and the hold), within 1e-5 of the bounds
 * diagonal; during a crossfade; in static, gpu and bat modes; for builtin:
 * (and builtin: without clips: its rest pose) and greenman.glb's
 * socket_hand_R imported, and for their bakes loaded
 * alone (sockets from NAME.G.anim.bin). The batch form gives the single
 * form's bytes; a query changes nothing the gpu mode draws; a bake without
 * runtime clips, a bad handle, an unknown joint or socket, a NULL out, an
 * unknown space and an instance of another archetype are clear errors that
 * write nothing. */
#define _XOPEN_SOURCE 700

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/import.h"
#include "test_files.h"
#include "test_gpu.h"
#include "test_json.h"

#define QUERY_TOLERANCE 1e-5

/* Where the instance stands: off the origin, turned and scaled, so world
 * space differs from model space in every part. */
static const float query_position[3] = {1.5f, 0.2f, -3.0f};
static const float query_heading = 0.7f;
static const float query_scale = 1.3f;

static void multiply(const float a[16], const float b[16], float out[16]) {
    float r[16];
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            double sum = 0.0;
            for (int k = 0; k < 4; k++) {
                sum += (double)a[4 * k + row] * b[4 * c + k];
            }
            r[4 * c + row] = (float)sum;
        }
    }
    memcpy(out, r, sizeof r);
}

/* T(position) x R_y(heading) x S(scale), column-major. */
static void placement(float out[16]) {
    float c = cosf(query_heading), s = sinf(query_heading), k = query_scale;
    memset(out, 0, 16 * sizeof *out);
    out[0] = c * k;
    out[2] = -s * k;
    out[5] = k;
    out[8] = s * k;
    out[10] = c * k;
    memcpy(out + 12, query_position, sizeof query_position);
    out[15] = 1.0f;
}

/* The reference pose: clip `to` at clip time t_to, blended with clip `from`
 * at t_from by weight w of `to` (w >= 1: no blend); clip < 0 or an asset
 * without clips: the rest pose. Model matrices into models. */
static void reference_models(const crowd_asset *asset, int to, float t_to, int from, float t_from,
                             float w, float *models) {
    const crowd_skeleton *skeleton = &asset->skeleton;
    uint32_t joints = skeleton->joint_count;
    crowd_transform *pose = calloc(joints, sizeof *pose), *other = calloc(joints, sizeof *other);
    if (to >= 0 && (uint32_t)to < asset->clip_count) {
        crowd_anim_sample(skeleton, &asset->clips[to], t_to, NULL, pose);
    } else {
        crowd_anim_rest_pose(skeleton, pose);
    }
    if (w < 1.0f) {
        crowd_anim_sample(skeleton, &asset->clips[from], t_from, NULL, other);
        const crowd_transform *poses[2] = {pose, other};
        const float weights[2] = {w, 1.0f - w};
        crowd_anim_blend(skeleton, poses, weights, 2, pose);
    }
    crowd_anim_local_to_model(skeleton, pose, models);
    free(pose);
    free(other);
}

/* Largest difference of two transforms: their translations over the
 * (scaled) diagonal, their axes over the scale. */
static double transform_error(const float got[16], const float want[16], double diagonal,
                              double scale) {
    double worst = 0.0;
    for (int c = 0; c < 4; c++) {
        double d2 = 0.0;
        for (int row = 0; row < 3; row++) {
            double d = (double)got[4 * c + row] - want[4 * c + row];
            d2 += d * d;
        }
        double e = sqrt(d2) / (c == 3 ? diagonal * scale : scale);
        worst = e > worst ? e : worst;
    }
    double w = fabs((double)got[15] - 1.0) + fabs(got[3]) + fabs(got[7]) + fabs(got[11]);
    return w > worst ? w : worst;
}

static double bounds_diagonal(const crowd_world *world, crowd_archetype archetype) {
    float min[3], max[3];
    if (!crowd_archetype_bind_bounds(world, archetype, min, max)) {
        return 1.0;
    }
    double sum = 0.0;
    for (int a = 0; a < 3; a++) {
        sum += ((double)max[a] - min[a]) * ((double)max[a] - min[a]);
    }
    return sqrt(sum);
}

/* Every joint and socket of `id` in both spaces against `models`; the
 * largest error so far into *worst. */
static void compare_all(crowd_world *world, crowd_instance id, const crowd_asset *asset,
                        const float *models, double diagonal, double *worst, const char *what) {
    float place[16];
    placement(place);
    uint32_t joints = asset->skeleton.joint_count;
    for (uint32_t i = 0; i < joints + asset->socket_count; i++) {
        bool joint = i < joints;
        uint32_t index = joint ? i : i - joints;
        float model[16], world_m[16];
        if (joint) {
            memcpy(model, models + 16 * (size_t)index, sizeof model);
        } else {
            const crowd_socket *socket = &asset->sockets[index];
            multiply(models + 16 * (size_t)socket->joint, socket->offset, model);
        }
        multiply(place, model, world_m);
        for (int space = 0; space < 2; space++) {
            float got[16] = {0};
            crowd_error error = {0};
            crowd_result result = joint ? crowd_instance_joint_transform(
                                              world, id, index, (crowd_space)space, got, &error)
                                        : crowd_instance_socket_transform(
                                              world, id, index, (crowd_space)space, got, &error);
            CHECK_MSG(result == CROWD_OK, "%s: %s", what, error.reason);
            double e = transform_error(got, space == 0 ? model : world_m, diagonal,
                                       space == 0 ? 1.0 : query_scale);
            CHECK_MSG(e <= QUERY_TOLERANCE, "%s: %s %u in %s space off by %.3g", what,
                      joint ? "joint" : "socket", index, space == 0 ? "model" : "world", e);
            *worst = e > *worst ? e : *worst;
        }
    }
}

static crowd_instance_desc placed_desc(uint32_t clip) {
    crowd_instance_desc desc = {.clip = clip, .heading_rad = query_heading, .scale = query_scale};
    memcpy(desc.position, query_position, sizeof desc.position);
    return desc;
}

/* Every clip at 10 times, half of them set by crowd_world_update and half
 * by crowd_world_set_time (a query reads the clock either way). */
static void check_clips(gpu_scene *s, const crowd_asset *asset, const char *label) {
    double diagonal = bounds_diagonal(s->world, s->archetype), worst = 0.0;
    crowd_world_set_time(s->world, 0.0);
    crowd_instance id;
    crowd_instance_desc desc = placed_desc(0);
    REQUIRE_VOID(crowd_world_add_instance(s->world, s->archetype, &desc, &id, NULL) == CROWD_OK);
    uint32_t joints = asset->skeleton.joint_count;
    float *models = calloc(16 * (size_t)joints, sizeof *models);
    uint32_t clips = asset->clip_count > 0 ? asset->clip_count : 1;
    for (uint32_t c = 0; c < clips; c++) {
        crowd_world_set_time(s->world, 0.0);
        desc = placed_desc(c);
        CHECK(crowd_instance_update(s->world, id, &desc, NULL) == CROWD_OK);
        const crowd_clip *clip = c < asset->clip_count ? &asset->clips[c] : NULL;
        float duration = clip != NULL ? clip->duration_s : 1.0f;
        for (int k = 0; k < 10; k++) {
            double now = 0.05 + 0.118 * k * duration;
            if (k % 2 == 0) {
                CHECK(crowd_world_update(s->world, now, NULL) == CROWD_OK);
            } else {
                crowd_world_set_time(s->world, now);
            }
            float t = clip != NULL
                          ? crowd_anim_play_time((float)now, 0.0f, 0.0f, 1.0f, duration, clip->loop)
                          : 0.0f;
            reference_models(asset, clip != NULL ? (int)c : -1, t, 0, 0.0f, 1.0f, models);
            char what[160];
            snprintf(what, sizeof what, "%s clip %u at %.3f s", label, c, now);
            compare_all(s->world, id, asset, models, diagonal, &worst, what);
        }
    }
    printf("  %s: %u clips x 10 times, %u joints and %u sockets: worst %.3g (of the diagonal)\n",
           label, clips, joints, asset->socket_count, worst);
    free(models);
    CHECK(crowd_world_remove_instance(s->world, id, NULL) == CROWD_OK);
}

/* Clip 0 fading into clip 1 over 0.5 s from 0.4 s: the local-pose blend. */
static void check_crossfade(gpu_scene *s, const crowd_asset *asset, const char *label) {
    if (asset->clip_count < 2) {
        return;
    }
    double diagonal = bounds_diagonal(s->world, s->archetype), worst = 0.0;
    crowd_world_set_time(s->world, 0.0);
    crowd_instance id;
    crowd_instance_desc desc = placed_desc(0);
    REQUIRE_VOID(crowd_world_add_instance(s->world, s->archetype, &desc, &id, NULL) == CROWD_OK);
    const float start = 0.4f, fade = 0.5f;
    crowd_world_set_time(s->world, start);
    CHECK(crowd_instance_play(s->world, id, 1, fade, NULL) == CROWD_OK);
    float *models = calloc(16 * (size_t)asset->skeleton.joint_count, sizeof *models);
    const float after[3] = {0.1f, 0.25f, 0.4f};
    const crowd_clip *a = &asset->clips[0], *b = &asset->clips[1];
    for (int k = 0; k < 3; k++) {
        float now = start + after[k];
        CHECK(crowd_world_update(s->world, now, NULL) == CROWD_OK);
        float w = (now - start) / fade;
        reference_models(
            asset, 1, crowd_anim_play_time(now, start, 0.0f, 1.0f, b->duration_s, b->loop), 0,
            crowd_anim_play_time(now, 0.0f, 0.0f, 1.0f, a->duration_s, a->loop), w, models);
        char what[160];
        snprintf(what, sizeof what, "%s crossfade at weight %.2f", label, (double)w);
        compare_all(s->world, id, asset, models, diagonal, &worst, what);
    }
    printf("  %s: crossfade at 3 weights: worst %.3g\n", label, worst);
    free(models);
    CHECK(crowd_world_remove_instance(s->world, id, NULL) == CROWD_OK);
}

/* Several instances (clips, phases, speeds, one twice) by the batch form:
 * the single form's bytes. */
static void check_batch(gpu_scene *s, const crowd_asset *asset) {
    uint32_t clips = asset->clip_count > 0 ? asset->clip_count : 1;
    crowd_instance ids[5];
    crowd_world_set_time(s->world, 0.0);
    for (uint32_t i = 0; i < 4; i++) {
        crowd_instance_desc desc = placed_desc(i % clips);
        desc.time_offset_s = 0.3f * (float)i;
        desc.speed = 0.5f + 0.4f * (float)i;
        desc.position[0] += (float)i;
        desc.heading_rad += 0.5f * (float)i;
        CHECK(crowd_world_add_instance(s->world, s->archetype, &desc, &ids[i], NULL) == CROWD_OK);
    }
    ids[4] = ids[1];
    crowd_world_set_time(s->world, 0.77);
    uint32_t socket = 0, joint = asset->skeleton.joint_count - 1;
    bool sockets = asset->socket_count > 0;
    float batch[5 * 16], single[16];
    for (int space = 0; space < 2; space++) {
        CHECK(crowd_archetype_joint_transforms(s->world, s->archetype, ids, 5, joint,
                                               (crowd_space)space, batch, NULL) == CROWD_OK);
        for (int i = 0; i < 5; i++) {
            CHECK(crowd_instance_joint_transform(s->world, ids[i], joint, (crowd_space)space,
                                                 single, NULL) == CROWD_OK);
            CHECK_MSG(memcmp(single, batch + 16 * i, sizeof single) == 0,
                      "batch joint %d differs from the single query", i);
        }
        if (sockets) {
            CHECK(crowd_archetype_socket_transforms(s->world, s->archetype, ids, 5, socket,
                                                    (crowd_space)space, batch, NULL) == CROWD_OK);
            for (int i = 0; i < 5; i++) {
                CHECK(crowd_instance_socket_transform(s->world, ids[i], socket, (crowd_space)space,
                                                      single, NULL) == CROWD_OK);
                CHECK_MSG(memcmp(single, batch + 16 * i, sizeof single) == 0,
                          "batch socket %d differs from the single query", i);
            }
        }
    }
    CHECK(memcmp(batch + 16, batch + 64, 16 * sizeof(float)) == 0);
    for (int i = 0; i < 4; i++) {
        CHECK(crowd_world_remove_instance(s->world, ids[i], NULL) == CROWD_OK);
    }
}

/* A sentinel the failed calls must leave as it is. */
static void fill(float *out, size_t count) {
    for (size_t i = 0; i < count; i++) {
        out[i] = -7.0f;
    }
}

static bool untouched(const float *out, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (out[i] != -7.0f) {
            return false;
        }
    }
    return true;
}

static void expect_refused(crowd_result result, crowd_result expected, const crowd_error *error,
                           const char *reason, const float *out, size_t count, const char *what) {
    printf("  %-32s %s: %s\n", what, crowd_result_str(result), error->reason);
    CHECK_MSG(result == expected && strstr(error->reason, reason) != NULL && untouched(out, count),
              "%s: got %s \"%s\"; want %s with \"%s\", out untouched", what,
              crowd_result_str(result), error->reason, crowd_result_str(expected), reason);
}

/* Bad handles, indices, outputs and spaces: errors that write nothing. */
static void check_refusals(gpu_scene *s, const crowd_asset *asset) {
    crowd_world_set_time(s->world, 0.0);
    crowd_instance id, other, gone;
    crowd_instance_desc desc = placed_desc(0);
    REQUIRE_VOID(crowd_world_add_instance(s->world, s->archetype, &desc, &id, NULL) == CROWD_OK);
    REQUIRE_VOID(crowd_world_add_instance(s->world, s->archetype, &desc, &gone, NULL) == CROWD_OK);
    CHECK(crowd_world_remove_instance(s->world, gone, NULL) == CROWD_OK);
    crowd_archetype_desc second = {.asset = asset};
    crowd_archetype second_archetype;
    REQUIRE_VOID(crowd_world_add_archetype(s->world, &second, &second_archetype, NULL) == CROWD_OK);
    REQUIRE_VOID(crowd_world_add_instance(s->world, second_archetype, &desc, &other, NULL) ==
                 CROWD_OK);
    uint32_t joints = asset->skeleton.joint_count;
    float out[32];
    crowd_error error = {0};
    crowd_result r;
    const crowd_result invalid = CROWD_ERROR_INVALID_ARGUMENT;
    fill(out, 32);
    r = crowd_instance_joint_transform(s->world, (crowd_instance){0}, 0, CROWD_SPACE_MODEL, out,
                                       &error);
    expect_refused(r, invalid, &error, "does not exist", out, 32, "zero handle");
    r = crowd_instance_joint_transform(s->world, gone, 0, CROWD_SPACE_WORLD, out, &error);
    expect_refused(r, invalid, &error, "does not exist", out, 32, "removed instance");
    r = crowd_instance_socket_transform(NULL, id, 0, CROWD_SPACE_WORLD, out, &error);
    expect_refused(r, invalid, &error, "world is NULL", out, 32, "NULL world");
    r = crowd_instance_joint_transform(s->world, id, joints, CROWD_SPACE_MODEL, out, &error);
    expect_refused(r, invalid, &error, "out of range", out, 32, "joint past the last");
    r = crowd_instance_socket_transform(s->world, id, asset->socket_count, CROWD_SPACE_MODEL, out,
                                        &error);
    expect_refused(r, invalid, &error, "socket", out, 32, "unknown socket");
    r = crowd_instance_joint_transform(s->world, id, 0, (crowd_space)2, out, &error);
    expect_refused(r, invalid, &error, "unknown space", out, 32, "unknown space");
    r = crowd_instance_joint_transform(s->world, id, 0, CROWD_SPACE_MODEL, NULL, &error);
    expect_refused(r, invalid, &error, "out is NULL", out, 32, "NULL out");
    crowd_instance mixed[2] = {id, other};
    r = crowd_archetype_joint_transforms(s->world, s->archetype, mixed, 2, 0, CROWD_SPACE_WORLD,
                                         out, &error);
    expect_refused(r, invalid, &error, "instances[1]", out, 32, "batch: another archetype's");
    crowd_instance stale[2] = {id, gone};
    r = crowd_archetype_socket_transforms(s->world, s->archetype, stale, 2, 0, CROWD_SPACE_WORLD,
                                          out, &error);
    expect_refused(r, invalid, &error, asset->socket_count > 0 ? "instances[1]" : "socket", out, 32,
                   "batch: a removed instance");
    r = crowd_archetype_joint_transforms(s->world, (crowd_archetype){0}, mixed, 1, 0,
                                         CROWD_SPACE_WORLD, out, &error);
    expect_refused(r, invalid, &error, "archetype 0 does not exist", out, 32,
                   "batch: zero archetype");
    r = crowd_archetype_joint_transforms(s->world, s->archetype, NULL, 2, 0, CROWD_SPACE_WORLD, out,
                                         &error);
    expect_refused(r, invalid, &error, "instances is NULL", out, 32, "batch: NULL instances");
    r = crowd_archetype_joint_transforms(s->world, s->archetype, NULL, 0, joints, CROWD_SPACE_WORLD,
                                         NULL, &error);
    expect_refused(r, invalid, &error, "out of range", out, 32, "batch: none, bad joint");
    CHECK(crowd_archetype_joint_transforms(s->world, s->archetype, NULL, 0, 0, CROWD_SPACE_WORLD,
                                           NULL, NULL) == CROWD_OK);
    /* names */
    uint32_t index = 12345;
    CHECK(!crowd_archetype_find_socket(s->world, s->archetype, "no_such_socket", &index) &&
          !crowd_archetype_find_joint(s->world, s->archetype, "no_such_joint", &index) &&
          !crowd_archetype_find_joint(s->world, s->archetype, NULL, &index) &&
          !crowd_archetype_find_socket(s->world, (crowd_archetype){0}, "x", &index) &&
          index == 12345);
    crowd_socket_info info = {.name = "unset"};
    CHECK(!crowd_archetype_get_socket(s->world, s->archetype, asset->socket_count, &info) &&
          strcmp(info.name, "unset") == 0);
    CHECK(crowd_archetype_joint_count(NULL, s->archetype) == 0 &&
          crowd_archetype_socket_count(s->world, (crowd_archetype){0}) == 0 &&
          strcmp(crowd_archetype_joint_name(s->world, s->archetype, joints), "") == 0);
    CHECK(crowd_world_remove_archetype(s->world, second_archetype, NULL) == CROWD_OK);
    CHECK(crowd_world_remove_instance(s->world, id, NULL) == CROWD_OK);
}

/* The archetype's names and sockets are the asset's. */
static void check_names(gpu_scene *s, const crowd_asset *asset, const char *label) {
    uint32_t joints = asset->skeleton.joint_count;
    CHECK(crowd_archetype_joint_count(s->world, s->archetype) == joints);
    CHECK_MSG(crowd_archetype_socket_count(s->world, s->archetype) == asset->socket_count,
              "%s: %u sockets, the asset has %u", label,
              crowd_archetype_socket_count(s->world, s->archetype), asset->socket_count);
    for (uint32_t j = 0; j < joints; j++) {
        uint32_t found = UINT32_MAX;
        CHECK(strcmp(crowd_archetype_joint_name(s->world, s->archetype, j),
                     asset->skeleton.names[j]) == 0);
        CHECK(
            crowd_archetype_find_joint(s->world, s->archetype, asset->skeleton.names[j], &found) &&
            found == (uint32_t)crowd_asset_find_joint(asset, asset->skeleton.names[j]));
    }
    for (uint32_t k = 0; k < asset->socket_count; k++) {
        const crowd_socket *socket = &asset->sockets[k];
        crowd_socket_info info = {0};
        uint32_t found = UINT32_MAX;
        CHECK_MSG(crowd_archetype_get_socket(s->world, s->archetype, k, &info) &&
                      strcmp(info.name, socket->name) == 0 && info.joint == socket->joint &&
                      memcmp(info.offset, socket->offset, sizeof info.offset) == 0,
                  "%s: socket %u is not the asset's", label, k);
        CHECK(crowd_archetype_find_socket(s->world, s->archetype, socket->name, &found) &&
              found == k);
    }
}

/* Queries between an update and the draw (other instances' and this one's,
 * at the same clock) change nothing gpu mode draws. */
static void check_draw_unchanged(gpu_scene *s, const crowd_asset *asset) {
    if (!crowd_archetype_has_mode(s->world, s->archetype, CROWD_GPU_MODE_GPU)) {
        return;
    }
    CHECK(crowd_archetype_set_mode(s->world, s->archetype, CROWD_GPU_MODE_GPU, NULL) == CROWD_OK);
    crowd_world_set_time(s->world, 0.0);
    crowd_instance id;
    crowd_instance_desc desc = {.clip = asset->clip_count > 1 ? 1 : 0};
    REQUIRE_VOID(crowd_world_add_instance(s->world, s->archetype, &desc, &id, NULL) == CROWD_OK);
    float min[3], max[3];
    crowd_archetype_bind_bounds(s->world, s->archetype, min, max);
    crowd_camera camera;
    crowd_camera_frame_box(min, max, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &camera);
    uint8_t *before = gpu_test_render(s->world, 0.45, &camera);
    crowd_draw_desc draw = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    host_target_begin(&gpu_test_target, gpu_test_clear);
    CHECK(crowd_world_update(s->world, 0.45, NULL) == CROWD_OK);
    float out[16 * 3];
    crowd_instance three[3] = {id, id, id};
    for (uint32_t j = 0; j < asset->skeleton.joint_count; j++) {
        CHECK(crowd_archetype_joint_transforms(s->world, s->archetype, three, 3, j,
                                               CROWD_SPACE_WORLD, out, NULL) == CROWD_OK);
    }
    CHECK(crowd_world_draw(s->world, &draw, NULL) == CROWD_OK);
    uint8_t *after = gpu_test_read_rgba();
    CHECK_MSG(before != NULL && after != NULL &&
                  memcmp(before, after, 4 * (size_t)GPU_TEST_PIXELS) == 0,
              "queries between the update and the draw changed the image");
    free(before);
    free(after);
    CHECK(crowd_world_remove_instance(s->world, id, NULL) == CROWD_OK);
}

/* One archetype of `asset` (and `bake`, may be NULL), queried in `modes`. */
static void check_archetype(const crowd_asset *drawn_from, const crowd_bake *bake,
                            const crowd_asset *reference, const crowd_gpu_mode *modes,
                            int mode_count, const char *label) {
    gpu_scene s = {0};
    if (!gpu_scene_create(drawn_from, bake, modes[0], &s)) {
        CHECK(false);
        return;
    }
    check_names(&s, reference, label);
    for (int m = 0; m < mode_count; m++) {
        CHECK(crowd_archetype_set_mode(s.world, s.archetype, modes[m], NULL) == CROWD_OK);
        char what[160];
        snprintf(what, sizeof what, "%s (%s)", label, crowd_gpu_mode_name(modes[m]));
        check_clips(&s, reference, what);
    }
    check_crossfade(&s, reference, label);
    check_batch(&s, reference);
    check_refusals(&s, reference);
    check_draw_unchanged(&s, reference);
    gpu_scene_destroy(&s);
}

/* The bake written, loaded alone (its sockets from the runtime clips),
 * queried like the asset; then as version 3, which cannot answer. */
static void check_loaded(const crowd_asset *asset, const char *label) {
    crowd_bake_desc desc = {.what = CROWD_BAKE_BAT_ONLY, .lods = -1};
    crowd_bake *bake = NULL, *loaded = NULL;
    crowd_error error = {0};
    REQUIRE_VOID(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_OK);
    char dir[128];
    snprintf(dir, sizeof dir, "gpu_query_%s_XXXXXX", label);
    REQUIRE_VOID(mkdtemp(dir) != NULL);
    CHECK_MSG(crowd_bake_write(bake, dir, NULL, &error) == CROWD_OK, "%s", error.reason);
    CHECK_MSG(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK, "%s", error.reason);
    if (loaded != NULL) {
        char what[96];
        snprintf(what, sizeof what, "%s loaded", label);
        const crowd_gpu_mode modes[] = {CROWD_GPU_MODE_BAT};
        check_archetype(NULL, loaded, asset, modes, 1, what);
    }
    crowd_bake_destroy(loaded);
    loaded = NULL;
    CHECK(test_strip_runtime_clips(dir, bake->name));
    CHECK_MSG(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK, "%s", error.reason);
    gpu_scene s = {0};
    if (loaded != NULL && gpu_scene_create(NULL, loaded, CROWD_GPU_MODE_BAT, &s)) {
        crowd_instance id;
        CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id,
                                       NULL) == CROWD_OK);
        float out[16];
        fill(out, 16);
        crowd_result r =
            crowd_instance_joint_transform(s.world, id, 0, CROWD_SPACE_WORLD, out, &error);
        expect_refused(r, CROWD_ERROR_UNSUPPORTED, &error, "runtime clips", out, 16,
                       "version 3 bake");
        r = crowd_archetype_socket_transforms(s.world, s.archetype, &id, 1, 0, CROWD_SPACE_MODEL,
                                              out, &error);
        expect_refused(r, CROWD_ERROR_UNSUPPORTED, &error, "runtime clips", out, 16,
                       "version 3 bake: socket");
        uint32_t joint = UINT32_MAX;
        CHECK(crowd_archetype_socket_count(s.world, s.archetype) == 0 &&
              crowd_archetype_find_joint(s.world, s.archetype, asset->skeleton.names[0], &joint) &&
              joint == 0);
    } else {
        CHECK(false);
    }
    gpu_scene_destroy(&s);
    crowd_bake_destroy(loaded);
    crowd_bake_destroy(bake);
    test_remove_tree(dir);
}

static void check_asset(const crowd_asset *asset, const char *label) {
    const crowd_gpu_mode modes[] = {CROWD_GPU_MODE_STATIC, CROWD_GPU_MODE_GPU};
    check_archetype(asset, NULL, asset, modes, 2, label);
    check_loaded(asset, label);
}

int test_gpu_query(void) {
    printf("joint and socket queries\n");
    crowd_asset *builtin = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_builtin_create(&builtin, &error) == CROWD_OK, "%s", error.reason);
    if (builtin != NULL) {
        CHECK(builtin->socket_count > 0);
        check_asset(builtin, "builtin");
        /* Without clips: the rest pose, as cpu and gpu draw it (the bake's
         * one "rest" clip too). A shallow copy, borrowed. */
        crowd_asset rest = *builtin;
        rest.clip_count = 0;
        rest.clips = NULL;
        check_asset(&rest, "builtin_rest");
    }
    crowd_asset_destroy(builtin);
    const char *path = check_shared_model("greenman.glb");
    if (path != NULL) {
        crowd_asset *greenman = NULL;
        CHECK_MSG(crowd_import_file(path, NULL, &greenman, &error) == CROWD_OK, "%s", error.reason);
        if (greenman != NULL) {
            CHECK(crowd_asset_find_socket(greenman, "socket_hand_R") >= 0);
            check_asset(greenman, "greenman");
        }
        crowd_asset_destroy(greenman);
    }
    return check_finish();
}
