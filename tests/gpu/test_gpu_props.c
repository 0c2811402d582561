/* Props at run time (group props): greenman carrying greenman_sword.glb on
 * socket_hand_R by crowd_world_add_prop and crowd_instance_attach_prop
 * renders as greenman baked with the sword merged in (crowd_asset_attach,
 * what `crowd bake --attach` does), in bat, vat, cpu and gpu, on the GL 4.5
 * and the portable tier, culled on the GPU and on the CPU and not at all,
 * in the depth pass, mid-crossfade, added after a first frame, and from a
 * bake written and loaded back (no asset); the prop adds one draw; detached, the image is the
 * character's alone; two instances with different props differ from the bare pair only on their own
 * side. Bad input (an unknown socket, an asset without vertices, a prop of another archetype) is a
 * clear error that changes nothing, on the builtin character, so it runs without ../shared/models.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "crowd/builtin.h"
#include "crowd/import.h"
#include "gpu_fixtures.h"
#include "test_files.h"
#include "test_gpu.h"

static const double frame_time = 0.3;

typedef struct props_models {
    crowd_asset *plain, *attached, *sword, *hat;
    crowd_bake *plain_bake, *attached_bake;
    crowd_bake *plain_loaded, *attached_loaded; /* written and loaded back: no asset */
    crowd_bake *plain_vat, *attached_vat;       /* VAT only: vat props from socket tracks */
    crowd_camera camera;
} props_models;

/* How a frame is made: the pass and cull mode, a crossfade running, or the
 * prop added after a first frame (cpu mode's skinned stream grows). */
typedef struct variant {
    crowd_cull_mode cull;
    crowd_pass pass;
    bool fade, late;
} variant;

/* What the depth pass covered, black on white, for the image checks. */
static uint8_t *depth_as_rgba(void) {
    float *depth = gpu_test_read_depth();
    uint8_t *rgba = depth != NULL ? malloc(4 * GPU_TEST_PIXELS) : NULL;
    for (uint32_t i = 0; rgba != NULL && i < GPU_TEST_PIXELS; i++) {
        uint8_t grey = depth[i] >= 1.0f ? 255 : 0;
        rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = grey;
        rgba[4 * i + 3] = 255;
    }
    free(depth);
    return rgba;
}

/* A frame of one instance, carrying `prop` on socket_hand_R unless NULL. */
static uint8_t *render_one(const crowd_asset *asset, const crowd_bake *bake, crowd_gpu_mode mode,
                           const crowd_asset *prop, const variant *v, const crowd_camera *camera,
                           uint32_t *out_draws) {
    gpu_scene s;
    if (!gpu_scene_create(asset, bake, mode, &s)) {
        return NULL;
    }
    crowd_error error = {0};
    crowd_instance id;
    crowd_prop sword = {0};
    crowd_draw_desc desc = gpu_test_draw_desc(camera, v->pass);
    desc.cull = v->cull;
    bool ok = crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id,
                                       &error) == CROWD_OK;
    if (ok && v->late) {
        ok = gpu_test_frame(s.world, 0.1, &desc);
    }
    if (ok && prop != NULL) {
        ok = crowd_world_add_prop(s.world, s.archetype, &(crowd_prop_desc){prop, "socket_hand_R"},
                                  &sword, &error) == CROWD_OK &&
             crowd_instance_attach_prop(s.world, id, sword, &error) == CROWD_OK;
    }
    if (ok && v->fade) { /* half way through a fade into the second clip */
        crowd_world_set_time(s.world, frame_time - 0.2);
        ok = crowd_instance_play(s.world, id, 1, 0.4f, &error) == CROWD_OK;
    }
    CHECK_MSG(ok, "%s", error.reason);
    uint8_t *image = NULL;
    if (ok && gpu_test_frame(s.world, frame_time, &desc)) {
        image = v->pass == CROWD_PASS_COLOR ? gpu_test_read_rgba() : depth_as_rgba();
        crowd_world_stats stats;
        crowd_world_get_stats(s.world, &stats);
        *out_draws = stats.draw_calls;
    }
    gpu_scene_destroy(&s);
    return image;
}

/* The run-time prop against the merged bake, and without its prop. */
typedef enum bakes { BAKES_BUILT, BAKES_LOADED, BAKES_VAT_ONLY } bakes;

static void check_variant(const props_models *m, crowd_gpu_tier tier, crowd_gpu_mode mode,
                          const variant *v, bakes which) {
    bool loaded = which == BAKES_LOADED;
    gpu_test_tier = tier;
    char what[96];
    snprintf(what, sizeof what, "props_%s_%s_cull%d%s%s%s%s", crowd_gpu_tier_name(tier),
             crowd_gpu_mode_name(mode), (int)v->cull, v->pass == CROWD_PASS_DEPTH ? "_depth" : "",
             v->fade ? "_fade" : "", v->late ? "_late" : "",
             loaded ? "_loaded" : (which == BAKES_VAT_ONLY ? "_vatonly" : ""));
    /* A loaded bake alone: its runtime clips and sockets play every mode. */
    const crowd_asset *plain = loaded ? NULL : m->plain, *attached = loaded ? NULL : m->attached;
    const crowd_bake *plain_bake = loaded                    ? m->plain_loaded
                                   : which == BAKES_VAT_ONLY ? m->plain_vat
                                                             : m->plain_bake;
    const crowd_bake *attached_bake = loaded                    ? m->attached_loaded
                                      : which == BAKES_VAT_ONLY ? m->attached_vat
                                                                : m->attached_bake;
    uint32_t merged_draws = 0, prop_draws = 0, bare_draws = 0;
    uint8_t *merged = render_one(attached, attached_bake, mode, NULL, v, &m->camera, &merged_draws);
    uint8_t *runtime = render_one(plain, plain_bake, mode, m->sword, v, &m->camera, &prop_draws);
    uint8_t *bare = render_one(plain, plain_bake, mode, NULL, v, &m->camera, &bare_draws);
    CHECK_MSG(merged != NULL && runtime != NULL && bare != NULL, "%s: no images", what);
    if (merged != NULL && runtime != NULL && bare != NULL) {
        CHECK(gpu_test_close(what, merged, runtime,
                             v->fade ? GPU_TEST_FADE_BAKED : gpu_test_tolerance(mode)));
        /* the sword shows: the bare character differs from both; and the
         * sword is where the merged one is, to a fraction of its own pixels
         * (the tolerance above is of the whole image, larger than it). */
        CHECK(gpu_test_different(what, bare, runtime, 0.01));
        image_diff sword = image_compare(bare, merged, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 24);
        image_diff off = image_compare(merged, runtime, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 24);
        CHECK_MSG(sword.differing > 20 && off.differing * 4 <= sword.differing,
                  "%s: the sword covers %u pixels, %u differ from the merged bake", what,
                  sword.differing, off.differing);
        printf("  %-40s sword %u px, %u of them off\n", what, sword.differing, off.differing);
        /* one more draw (cpu mode: per carrier, and there is one) */
        CHECK_MSG(prop_draws == bare_draws + 1 && merged_draws == bare_draws,
                  "%s: %u draws with the prop, %u without, %u merged", what, prop_draws, bare_draws,
                  merged_draws);
        gpu_test_save(what, "merged", merged);
        gpu_test_save(what, "runtime", runtime);
    }
    free(merged);
    free(runtime);
    free(bare);
    gpu_test_tier = CROWD_TIER_AUTO;
}

/* Pixels differing in the left and right halves. */
static void half_differences(const uint8_t *a, const uint8_t *b, uint32_t *left, uint32_t *right) {
    *left = *right = 0;
    for (uint32_t y = 0; y < GPU_TEST_HEIGHT; y++) {
        for (uint32_t x = 0; x < GPU_TEST_WIDTH; x++) {
            size_t i = 4 * ((size_t)y * GPU_TEST_WIDTH + x);
            if (memcmp(a + i, b + i, 3) != 0) {
                *(x < GPU_TEST_WIDTH / 2 ? left : right) += 1;
            }
        }
    }
}

/* Two instances side by side: a sword on the left one, a hat on the right
 * one, swapped at run time; each change shows on its own side only. */
static void check_pair(const props_models *m, crowd_gpu_tier tier, crowd_gpu_mode mode) {
    gpu_test_tier = tier;
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(m->plain, m->plain_bake, mode, &s));
    crowd_error error = {0};
    crowd_instance left, right;
    crowd_prop sword, hat;
    CHECK(crowd_world_add_instance(s.world, s.archetype,
                                   &(crowd_instance_desc){.position = {-1.5f, 0.0f, 0.0f}}, &left,
                                   NULL) == CROWD_OK);
    CHECK(crowd_world_add_instance(s.world, s.archetype,
                                   &(crowd_instance_desc){.position = {1.5f, 0.0f, 0.0f}}, &right,
                                   NULL) == CROWD_OK);
    CHECK_MSG(crowd_world_add_prop(s.world, s.archetype,
                                   &(crowd_prop_desc){m->sword, "socket_hand_R"}, &sword,
                                   &error) == CROWD_OK,
              "%s", error.reason);
    CHECK_MSG(crowd_world_add_prop(s.world, s.archetype, &(crowd_prop_desc){m->hat, "socket_hat"},
                                   &hat, &error) == CROWD_OK,
              "%s", error.reason);
    /* both characters, 1.5 m to each side */
    float min[3], max[3];
    memcpy(min, m->attached_bake->bounds_min, sizeof min);
    memcpy(max, m->attached_bake->bounds_max, sizeof max);
    min[0] -= 1.8f;
    max[0] += 1.8f;
    crowd_camera camera;
    crowd_camera_frame_box(min, max, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &camera);
    crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    uint8_t *images[3] = {NULL, NULL, NULL};
    uint32_t draws[3] = {0};
    for (int k = 0; k < 3; k++) {
        if (k == 1) {
            CHECK(crowd_instance_attach_prop(s.world, left, sword, NULL) == CROWD_OK);
        }
        if (k == 2) { /* the sword moves to the right one, which also gets a hat */
            CHECK(crowd_instance_detach_prop(s.world, left, sword, NULL) == CROWD_OK);
            CHECK(crowd_instance_attach_prop(s.world, right, hat, NULL) == CROWD_OK);
        }
        if (gpu_test_frame(s.world, frame_time, &desc)) {
            images[k] = gpu_test_read_rgba();
            crowd_world_stats stats;
            crowd_world_get_stats(s.world, &stats);
            draws[k] = stats.draw_calls;
        }
    }
    CHECK(crowd_instance_has_prop(s.world, right, hat) &&
          !crowd_instance_has_prop(s.world, left, sword));
    crowd_prop_info info;
    CHECK(crowd_prop_get_info(s.world, hat, &info) && info.carriers == 1 &&
          strcmp(info.socket, "socket_hat") == 0 && info.mesh_bytes > 0);
    CHECK(mode != CROWD_GPU_MODE_VAT ||
          info.socket_track_bytes == 48ull * (m->plain_bake->frame_count + info.joint));
    printf("  hat: %u vertices, %llu mesh bytes, %llu socket track bytes\n", info.vertex_count,
           (unsigned long long)info.mesh_bytes, (unsigned long long)info.socket_track_bytes);
    if (images[0] != NULL && images[1] != NULL && images[2] != NULL) {
        uint32_t l, r;
        half_differences(images[0], images[1], &l, &r);
        CHECK_MSG(l > 20 && r == 0, "sword on the left: %u left, %u right pixels changed", l, r);
        half_differences(images[0], images[2], &l, &r);
        CHECK_MSG(l == 0 && r > 20, "hat on the right: %u left, %u right pixels changed", l, r);
        CHECK_MSG(draws[1] == draws[0] + 1 && draws[2] == draws[0] + 1,
                  "draws: %u bare, %u with a sword, %u with a hat", draws[0], draws[1], draws[2]);
        gpu_test_save("props_pair", crowd_gpu_mode_name(mode), images[1]);
    }
    for (int k = 0; k < 3; k++) {
        free(images[k]);
    }
    gpu_scene_destroy(&s);
    gpu_test_tier = CROWD_TIER_AUTO;
}

/* The archetype holds CROWD_ARCHETYPE_MAX_PROPS prop types (one has been
 * added), the next is CROWD_ERROR_LIMIT with nothing changed; the last
 * one's flag bit (the record's top bit) and the blend partners' layout
 * bits beside it do not disturb each other. */
static void check_prop_limit(gpu_scene *s, const crowd_asset *builtin, const char *socket) {
    crowd_prop last = {0};
    crowd_error error = {0};
    while (crowd_archetype_prop_count(s->world, s->archetype) < CROWD_ARCHETYPE_MAX_PROPS) {
        REQUIRE_VOID(crowd_world_add_prop(s->world, s->archetype,
                                          &(crowd_prop_desc){builtin, socket}, &last,
                                          &error) == CROWD_OK);
    }
    crowd_prop more = {7};
    CHECK(crowd_world_add_prop(s->world, s->archetype, &(crowd_prop_desc){builtin, socket}, &more,
                               &error) == CROWD_ERROR_LIMIT &&
          more.id == 0 && crowd_archetype_prop_count(s->world, s->archetype) == 12);
    printf("  prop limit: %s\n", error.reason);
    crowd_prop first = crowd_archetype_prop(s->world, s->archetype, 0);
    uint32_t walk = 0, run = 0;
    CHECK(crowd_archetype_find_clip(s->world, s->archetype, "walk", &walk) &&
          crowd_archetype_find_clip(s->world, s->archetype, "run", &run));
    crowd_blend blend = {0};
    CHECK(crowd_archetype_add_blend(s->world, s->archetype,
                                    &(crowd_blend_desc){"pace", 2, (uint32_t[]){walk, run}, NULL},
                                    &blend, &error) == CROWD_OK);
    crowd_instance one;
    CHECK(crowd_world_add_instance(s->world, s->archetype, &(crowd_instance_desc){0}, &one, NULL) ==
          CROWD_OK);
    CHECK(crowd_instance_attach_prop(s->world, one, last, NULL) == CROWD_OK &&
          crowd_instance_play_blend(s->world, one, blend, 2.0f, 0.3f, NULL) == CROWD_OK &&
          crowd_instance_set_ground_speed(s->world, one, 2.5f, NULL) == CROWD_OK);
    CHECK(crowd_instance_has_prop(s->world, one, last) &&
          !crowd_instance_has_prop(s->world, one, first));
    CHECK(crowd_instance_play(s->world, one, walk, 0.2f, NULL) == CROWD_OK &&
          crowd_instance_has_prop(s->world, one, last));
    CHECK(crowd_instance_detach_prop(s->world, one, last, NULL) == CROWD_OK &&
          !crowd_instance_has_prop(s->world, one, last));
    crowd_blend which = {0};
    float parameter = 0.0f;
    CHECK(!crowd_instance_get_blend(s->world, one, &which, &parameter));
    CHECK(crowd_instance_play_blend(s->world, one, blend, 2.0f, 0.0f, NULL) == CROWD_OK &&
          crowd_instance_get_blend(s->world, one, &which, &parameter) && parameter == 2.0f);
}

static void check_bad_input(void) {
    crowd_asset *builtin = NULL;
    REQUIRE_VOID(crowd_builtin_create(&builtin, NULL) == CROWD_OK);
    gpu_scene s;
    if (!gpu_scene_create(builtin, NULL, CROWD_GPU_MODE_GPU, &s)) {
        crowd_asset_destroy(builtin);
        return;
    }
    REQUIRE_VOID(builtin->socket_count > 0);
    const char *socket = builtin->sockets[0].name;
    crowd_error error = {0};
    crowd_prop prop = {7};
    CHECK(crowd_world_add_prop(s.world, s.archetype, &(crowd_prop_desc){builtin, "socket_nope"},
                               &prop, &error) == CROWD_ERROR_INVALID_ARGUMENT &&
          prop.id == 0);
    CHECK(strstr(error.reason, "socket_nope") != NULL && strstr(error.reason, socket) != NULL);
    printf("  unknown socket: %s\n", error.reason);
    crowd_asset empty = {0};
    CHECK(crowd_world_add_prop(s.world, s.archetype, &(crowd_prop_desc){&empty, socket}, &prop,
                               &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "not a mesh") != NULL);
    printf("  no vertices: %s\n", error.reason);
    CHECK(crowd_world_add_prop(s.world, s.archetype, NULL, &prop, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_archetype_prop_count(s.world, s.archetype) == 0);
    /* a good one; then one of another archetype */
    CHECK(crowd_world_add_prop(s.world, s.archetype, &(crowd_prop_desc){builtin, socket}, &prop,
                               &error) == CROWD_OK);
    CHECK(crowd_archetype_prop_count(s.world, s.archetype) == 1 &&
          crowd_archetype_prop(s.world, s.archetype, 0).id == prop.id);
    crowd_archetype second;
    CHECK(crowd_world_add_archetype(
              s.world, &(crowd_archetype_desc){.asset = builtin, .mode = CROWD_GPU_MODE_GPU},
              &second, NULL) == CROWD_OK);
    crowd_instance mine, theirs;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &mine, NULL) ==
          CROWD_OK);
    CHECK(crowd_world_add_instance(s.world, second, &(crowd_instance_desc){0}, &theirs, NULL) ==
          CROWD_OK);
    CHECK(crowd_instance_attach_prop(s.world, theirs, prop, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    printf("  another archetype's prop: %s\n", error.reason);
    CHECK(!crowd_instance_has_prop(s.world, theirs, prop));
    CHECK(crowd_instance_attach_prop(s.world, mine, (crowd_prop){0}, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    /* carriers follow removal */
    CHECK(crowd_instance_attach_prop(s.world, mine, prop, NULL) == CROWD_OK);
    CHECK(crowd_instance_attach_prop(s.world, mine, prop, NULL) == CROWD_OK);
    crowd_prop_info info;
    CHECK(crowd_prop_get_info(s.world, prop, &info) && info.carriers == 1);
    CHECK(crowd_instance_play(s.world, mine, 0, 0.2f, NULL) == CROWD_OK &&
          crowd_instance_has_prop(s.world, mine, prop));
    CHECK(crowd_instance_update(s.world, mine, &(crowd_instance_desc){0}, NULL) == CROWD_OK &&
          crowd_instance_has_prop(s.world, mine, prop));
    CHECK(crowd_world_remove_instance(s.world, mine, NULL) == CROWD_OK);
    CHECK(crowd_prop_get_info(s.world, prop, &info) && info.carriers == 0);
    check_prop_limit(&s, builtin, socket);
    gpu_scene_destroy(&s);
    crowd_asset_destroy(builtin);
}

/* The socket tracks against the CPU query at every baked frame of clip 0:
 * the socket's model matrix within 1e-5 of the bounds diagonal. */
static void check_tracks_values(const props_models *m) {
    const crowd_bake *bake = m->plain_bake;
    REQUIRE_VOID(bake->socket_count == m->plain->socket_count && bake->socket_count > 0);
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(m->plain, bake, CROWD_GPU_MODE_BAT, &s));
    crowd_instance id;
    REQUIRE_VOID(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id,
                                          NULL) == CROWD_OK);
    double diagonal = 0.0, worst = 0.0;
    for (int a = 0; a < 3; a++) {
        double d = bake->bounds_max[a] - bake->bounds_min[a];
        diagonal += d * d;
    }
    diagonal = sqrt(diagonal);
    const crowd_bake_clip *clip = &bake->clips[0];
    crowd_clip_frames frames = crowd_bake_clip_frames(clip);
    const crowd_texture *t = &bake->socket_tracks;
    for (uint32_t k = 0; k < clip->frame_count; k++) {
        crowd_world_set_time(s.world, crowd_anim_frame_time(&frames, k));
        for (uint32_t socket = 0; socket < bake->socket_count; socket++) {
            float model[16];
            REQUIRE_VOID(crowd_instance_socket_transform(s.world, id, socket, CROWD_SPACE_MODEL,
                                                         model, NULL) == CROWD_OK);
            for (uint32_t row = 0; row < 3; row++) {
                uint64_t element = 3ull * socket + row;
                uint64_t y = (uint64_t)(clip->first_frame + k) * bake->socket_rows_per_frame +
                             element / t->width;
                const float *texel =
                    (const float *)t->texels + 4 * (y * t->width + element % t->width);
                for (int c = 0; c < 4; c++) {
                    double d = fabs((double)texel[c] - (double)model[4 * c + row]);
                    worst = d > worst ? d : worst;
                }
            }
        }
    }
    printf("  socket tracks vs the socket query: %u frames x %u sockets, worst %.3g (%.3g of the "
           "diagonal)\n",
           clip->frame_count, bake->socket_count, worst, worst / diagonal);
    CHECK(worst <= 1e-5 * diagonal);
    gpu_scene_destroy(&s);
}

/* The written bake's socket tracks file: loaded back bit for bit; cut short
 * or missing, the load fails naming it and gives no bake. */
/* The manifest names the sockets of the tracks (socket_tracks.names, for
 * players without the runtime clips): the asset's, in order; a list of
 * another length is refused. */
static void check_socket_names(const crowd_bake *built) {
    char path[300], want[2048] = "\"names\":\t[";
    snprintf(path, sizeof path, "plain/%s.crowd.json", built->name);
    for (uint32_t s = 0; s < built->asset->socket_count; s++) {
        size_t at = strlen(want);
        snprintf(want + at, sizeof want - at, "%s\"%s\"", s > 0 ? ", " : "",
                 built->asset->sockets[s].name);
    }
    size_t size = 0;
    char *json = test_read_file(path, &size);
    REQUIRE_VOID(json != NULL);
    CHECK_MSG(strstr(json, want) != NULL, "the manifest lacks %s]", want);
    char *at = strstr(json, "\"names\":\t[");
    if (at != NULL) {
        size_t head = (size_t)(at - json) + strlen("\"names\":\t[");
        char *edited = malloc(size + 8);
        REQUIRE_VOID(edited != NULL);
        memcpy(edited, json, head);
        memcpy(edited + head, "\"x\", ", 5);
        memcpy(edited + head + 5, json + head, size - head);
        test_write_file(path, edited, size + 5);
        free(edited);
        crowd_bake *bake = NULL;
        crowd_error error = {0};
        crowd_result result = crowd_bake_load("plain", NULL, &bake, &error);
        printf("  a socket name too many: %s\n", error.reason);
        CHECK(result == CROWD_ERROR_INVALID_DATA && strstr(error.reason, "socket_tracks.names"));
        crowd_bake_destroy(bake);
    }
    test_write_file(path, json, size);
    free(json);
}

static void check_tracks_file(const props_models *m) {
    const crowd_bake *loaded = m->plain_loaded, *built = m->plain_bake;
    REQUIRE_VOID(loaded != NULL);
    size_t bytes = (size_t)built->socket_tracks.width * built->socket_tracks.height * 16;
    CHECK(loaded->socket_count == built->socket_count &&
          loaded->socket_tracks.width == built->socket_tracks.width &&
          loaded->socket_tracks.height == built->socket_tracks.height &&
          memcmp(loaded->socket_tracks.texels, built->socket_tracks.texels, bytes) == 0);
    char name[256] = "";
    DIR *dir = opendir("plain");
    for (struct dirent *e; dir != NULL && (e = readdir(dir)) != NULL;) {
        size_t length = strlen(e->d_name);
        if (length > 12 && strcmp(e->d_name + length - 12, ".sockets.exr") == 0) {
            snprintf(name, sizeof name, "%s", e->d_name);
        }
    }
    if (dir != NULL) {
        closedir(dir);
    }
    REQUIRE_VOID(name[0] != '\0');
    char path[300];
    snprintf(path, sizeof path, "plain/%s", name);
    size_t size = 0;
    char *data = test_read_file(path, &size);
    REQUIRE_VOID(data != NULL);
    const char *cases[2] = {"cut short", "missing"};
    for (int k = 0; k < 2; k++) {
        if (k == 0) {
            test_write_file(path, data, size / 2);
        } else {
            unlink(path);
        }
        crowd_bake *bake = NULL;
        crowd_error error = {0};
        crowd_result result = crowd_bake_load("plain", NULL, &bake, &error);
        CHECK_MSG(result != CROWD_OK && bake == NULL && strstr(error.file, name) != NULL,
                  "socket tracks %s: %s: %s", cases[k], error.file, error.reason);
        printf("  socket tracks %s: %s: %s\n", cases[k], error.file, error.reason);
        crowd_bake_destroy(bake);
    }
    test_write_file(path, data, size);
    free(data);
    check_socket_names(built);
}

static bool load_models(props_models *m) {
    const char *names[4] = {"greenman.glb", "greenman.glb", "greenman_sword.glb",
                            "greenman_hat.glb"};
    crowd_asset **out[4] = {&m->plain, &m->attached, &m->sword, &m->hat};
    crowd_error error = {0};
    for (int i = 0; i < 4; i++) {
        const char *found = check_shared_model(names[i]);
        if (found == NULL) {
            return false;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s", found);
        if (crowd_import_file(path, NULL, out[i], &error) != CROWD_OK) {
            CHECK_MSG(false, "%s", error.reason);
            return false;
        }
    }
    CHECK_MSG(crowd_asset_attach(m->attached, "socket_hand_R", m->sword, &error) == CROWD_OK, "%s",
              error.reason);
    const char *clips[2] = {"3_attack", "1_idle"};
    crowd_bake_desc desc = {.clips = clips, .clip_count = 2, .lods = -1, .fps = 30.0f};
    CHECK_MSG(crowd_bake_build(m->plain, &desc, &m->plain_bake, &error) == CROWD_OK, "%s",
              error.reason);
    CHECK_MSG(crowd_bake_build(m->attached, &desc, &m->attached_bake, &error) == CROWD_OK, "%s",
              error.reason);
    if (m->plain_bake == NULL || m->attached_bake == NULL) {
        return false;
    }
    crowd_bake_desc vat_only = desc;
    vat_only.what = CROWD_BAKE_VAT_ONLY;
    CHECK_MSG(crowd_bake_build(m->plain, &vat_only, &m->plain_vat, &error) == CROWD_OK &&
                  crowd_bake_build(m->attached, &vat_only, &m->attached_vat, &error) == CROWD_OK,
              "%s", error.reason);
    CHECK_MSG(crowd_bake_write(m->plain_bake, "plain", NULL, &error) == CROWD_OK &&
                  crowd_bake_write(m->attached_bake, "attached", NULL, &error) == CROWD_OK &&
                  crowd_bake_load("plain", NULL, &m->plain_loaded, &error) == CROWD_OK &&
                  crowd_bake_load("attached", NULL, &m->attached_loaded, &error) == CROWD_OK,
              "%s", error.reason);
    crowd_camera_frame_box(m->attached_bake->bounds_min, m->attached_bake->bounds_max,
                           (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &m->camera);
    return true;
}

int test_gpu_props(void) {
    printf("props at run time\n");
    check_bad_input();
    props_models m = {0};
    if (load_models(&m)) {
        const crowd_gpu_mode modes[4] = {CROWD_GPU_MODE_BAT, CROWD_GPU_MODE_VAT, CROWD_GPU_MODE_CPU,
                                         CROWD_GPU_MODE_GPU};
        const crowd_gpu_tier tiers[2] = {CROWD_TIER_GL45, CROWD_TIER_PORTABLE};
        const variant plain = {.cull = CROWD_CULL_GPU};
        for (int t = 0; t < 2; t++) {
            for (int k = 0; k < 4; k++) {
                check_variant(&m, tiers[t], modes[k], &plain, BAKES_BUILT);
            }
            check_variant(&m, tiers[t], CROWD_GPU_MODE_STATIC, &plain, BAKES_BUILT);
            check_pair(&m, tiers[t], CROWD_GPU_MODE_VAT);
            check_pair(&m, tiers[t], CROWD_GPU_MODE_GPU);
        }
        const variant cpu_culled = {.cull = CROWD_CULL_CPU}, unculled = {.cull = CROWD_CULL_OFF};
        const variant depth = {.cull = CROWD_CULL_GPU, .pass = CROWD_PASS_DEPTH};
        const variant fade = {.cull = CROWD_CULL_GPU, .fade = true};
        const variant late = {.cull = CROWD_CULL_GPU, .late = true};
        check_variant(&m, CROWD_TIER_GL45, CROWD_GPU_MODE_BAT, &cpu_culled, BAKES_BUILT);
        check_variant(&m, CROWD_TIER_GL45, CROWD_GPU_MODE_VAT, &unculled, BAKES_BUILT);
        for (int k = 0; k < 4; k++) {
            check_variant(&m, CROWD_TIER_GL45, modes[k], &depth, BAKES_BUILT);
            check_variant(&m, CROWD_TIER_GL45, modes[k], &fade, BAKES_BUILT);
            check_variant(&m, CROWD_TIER_PORTABLE, modes[k], &fade, BAKES_BUILT);
            if (m.plain_loaded != NULL && m.attached_loaded != NULL) {
                check_variant(&m, CROWD_TIER_GL45, modes[k], &plain, BAKES_LOADED);
            }
        }
        if (m.plain_vat != NULL && m.attached_vat != NULL) {
            check_variant(&m, CROWD_TIER_GL45, CROWD_GPU_MODE_VAT, &plain, BAKES_VAT_ONLY);
            check_variant(&m, CROWD_TIER_PORTABLE, CROWD_GPU_MODE_VAT, &fade, BAKES_VAT_ONLY);
        }
        check_tracks_values(&m);
        check_tracks_file(&m);
        check_variant(&m, CROWD_TIER_GL45, CROWD_GPU_MODE_CPU, &late, BAKES_BUILT);
        check_variant(&m, CROWD_TIER_PORTABLE, CROWD_GPU_MODE_CPU, &late, BAKES_BUILT);
    }
    crowd_bake_destroy(m.plain_vat);
    crowd_bake_destroy(m.attached_vat);
    crowd_bake_destroy(m.plain_loaded);
    crowd_bake_destroy(m.attached_loaded);
    crowd_bake_destroy(m.plain_bake);
    crowd_bake_destroy(m.attached_bake);
    crowd_asset_destroy(m.plain);
    crowd_asset_destroy(m.attached);
    crowd_asset_destroy(m.sword);
    crowd_asset_destroy(m.hat);
    return check_finish();
}
