/* import_child.c - test_import_child: the import in the helper process.
 *
 * - The helper's reply carries the whole asset: for real files, importing
 *   through the helper (file and bytes) gives the asset the in-process
 *   path gives, field for field and bit for bit.
 * - A helper that crashes, hangs, burns CPU, runs out of memory or sends
 *   garbage (CROWD_IMPORT_HELPER_FAULT) gives one clear error, no asset,
 *   and this process carries on; limits apply within their time.
 * - A missing helper is an error naming where it was looked for.
 * - assimp's own printing goes to the logger, not to our stderr.
 * - Imports from two threads at once each get their own helper.
 * - The reply decoder rejects every truncation of a valid reply, survives
 *   byte flips (whatever decodes is then validated) and refuses a texture
 *   size whose byte count would wrap.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "crowd/import.h"
#include "test_files.h"
#include "import/assimp/process/import_wire.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool same_bytes(const void *a, const void *b, size_t size) {
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && memcmp(a, b, size) == 0);
}

static void check_track(const crowd_track *a, const crowd_track *b, uint32_t components,
                        const char *what) {
    size_t per_key = a->interpolation == CROWD_INTERP_CUBIC ? 3u * components : components;
    CHECK_MSG(a->key_count == b->key_count && a->interpolation == b->interpolation &&
                  same_bytes(a->times_s, b->times_s, a->key_count * sizeof(float)) &&
                  same_bytes(a->values, b->values, a->key_count * per_key * sizeof(float)),
              "%s: track differs", what);
}

/* Every field of two assets, bit for bit. */
static void check_same_asset(const crowd_asset *a, const crowd_asset *b, const char *what) {
    CHECK_MSG(strcmp(a->name, b->name) == 0 && strcmp(a->source, b->source) == 0, "%s: names",
              what);
    CHECK_MSG(a->source_mesh_count == b->source_mesh_count && a->has_skin == b->has_skin &&
                  a->unit_scale == b->unit_scale &&
                  memcmp(&a->repairs, &b->repairs, sizeof a->repairs) == 0,
              "%s: counts, skin, unit or repairs", what);
    const crowd_mesh *ma = &a->mesh, *mb = &b->mesh;
    size_t v = ma->vertex_count;
    CHECK_MSG(ma->vertex_count == mb->vertex_count && ma->index_count == mb->index_count &&
                  ma->submesh_count == mb->submesh_count,
              "%s: mesh sizes", what);
    if (ma->vertex_count != mb->vertex_count || ma->index_count != mb->index_count ||
        ma->submesh_count != mb->submesh_count) {
        return;
    }
    CHECK_MSG(
        same_bytes(ma->positions, mb->positions, 3 * v * sizeof(float)) &&
            same_bytes(ma->normals, mb->normals, 3 * v * sizeof(float)) &&
            same_bytes(ma->tangents, mb->tangents, 4 * v * sizeof(float)) &&
            same_bytes(ma->uv0, mb->uv0, 2 * v * sizeof(float)) &&
            same_bytes(ma->joints, mb->joints, 4 * v * sizeof(uint16_t)) &&
            same_bytes(ma->weights, mb->weights, 4 * v * sizeof(float)) &&
            same_bytes(ma->indices, mb->indices, ma->index_count * sizeof(uint32_t)) &&
            same_bytes(ma->submeshes, mb->submeshes, ma->submesh_count * sizeof(crowd_submesh)),
        "%s: mesh arrays", what);
    CHECK_MSG(a->material_count == b->material_count, "%s: material count", what);
    for (uint32_t m = 0; m < a->material_count && a->material_count == b->material_count; m++) {
        const crowd_material *x = &a->materials[m], *y = &b->materials[m];
        CHECK_MSG(strcmp(x->name, y->name) == 0 &&
                      memcmp(x->base_color, y->base_color, sizeof x->base_color) == 0 &&
                      x->texture_width == y->texture_width &&
                      x->texture_height == y->texture_height &&
                      same_bytes(x->texture_rgba8, y->texture_rgba8,
                                 4ull * x->texture_width * x->texture_height),
                  "%s: material %u", what, m);
        CHECK_MSG(x->metallic == y->metallic && x->roughness == y->roughness &&
                      memcmp(x->emissive, y->emissive, sizeof x->emissive) == 0 &&
                      x->normal_scale == y->normal_scale &&
                      x->occlusion_strength == y->occlusion_strength &&
                      x->alpha_mode == y->alpha_mode && x->alpha_cutoff == y->alpha_cutoff &&
                      x->double_sided == y->double_sided,
                  "%s: material %u factors", what, m);
        const crowd_image *images[2][4] = {{&x->metallic_roughness_texture, &x->normal_texture,
                                            &x->emissive_texture, &x->occlusion_texture},
                                           {&y->metallic_roughness_texture, &y->normal_texture,
                                            &y->emissive_texture, &y->occlusion_texture}};
        for (int t = 0; t < 4; t++) {
            const crowd_image *p = images[0][t], *q = images[1][t];
            CHECK_MSG(p->width == q->width && p->height == q->height &&
                          same_bytes(p->rgba8, q->rgba8, 4ull * p->width * p->height),
                      "%s: material %u texture %d", what, m, t);
        }
    }
    const crowd_skeleton *sa = &a->skeleton, *sb = &b->skeleton;
    size_t j = sa->joint_count;
    CHECK_MSG(sa->joint_count == sb->joint_count, "%s: joint count", what);
    if (sa->joint_count != sb->joint_count) {
        return;
    }
    for (size_t i = 0; i < j; i++) {
        CHECK_MSG(strcmp(sa->names[i], sb->names[i]) == 0, "%s: joint %zu name", what, i);
    }
    CHECK_MSG(same_bytes(sa->parents, sb->parents, j * sizeof(int32_t)) &&
                  same_bytes(sa->rest_translation, sb->rest_translation, 3 * j * sizeof(float)) &&
                  same_bytes(sa->rest_rotation, sb->rest_rotation, 4 * j * sizeof(float)) &&
                  same_bytes(sa->rest_scale, sb->rest_scale, 3 * j * sizeof(float)) &&
                  same_bytes(sa->inverse_bind, sb->inverse_bind, 16 * j * sizeof(float)) &&
                  memcmp(sa->root_transform, sb->root_transform, sizeof sa->root_transform) == 0,
              "%s: skeleton arrays", what);
    CHECK_MSG(a->clip_count == b->clip_count, "%s: clip count", what);
    for (uint32_t c = 0; c < a->clip_count && a->clip_count == b->clip_count; c++) {
        const crowd_clip *x = &a->clips[c], *y = &b->clips[c];
        CHECK_MSG(strcmp(x->name, y->name) == 0 && x->duration_s == y->duration_s &&
                      x->loop == y->loop,
                  "%s: clip %u", what, c);
        for (size_t i = 0; i < j; i++) {
            check_track(&x->tracks[i].translation, &y->tracks[i].translation, 3, what);
            check_track(&x->tracks[i].rotation, &y->tracks[i].rotation, 4, what);
            check_track(&x->tracks[i].scale, &y->tracks[i].scale, 3, what);
        }
    }
    CHECK_MSG(a->socket_count == b->socket_count, "%s: socket count", what);
    for (uint32_t s = 0; s < a->socket_count && a->socket_count == b->socket_count; s++) {
        CHECK_MSG(strcmp(a->sockets[s].name, b->sockets[s].name) == 0 &&
                      a->sockets[s].joint == b->sockets[s].joint &&
                      memcmp(a->sockets[s].offset, b->sockets[s].offset,
                             sizeof a->sockets[s].offset) == 0,
                  "%s: socket %u", what, s);
    }
}

/* The file through the helper (from its path and, with `bytes_too`, from
 * its bytes) against the in-process import. */
static void check_round_trip(const char *path, const crowd_import_desc *base, bool bytes_too) {
    if (path == NULL) {
        return;
    }
    crowd_import_desc desc = *base;
    crowd_asset *here = NULL, *child = NULL, *bytes_child = NULL;
    crowd_error error = {0};
    desc.in_process = true;
    crowd_result result = crowd_import_file(path, &desc, &here, &error);
    CHECK_MSG(result == CROWD_OK, "%s in process: %s", path, error.reason);
    desc.in_process = false;
    result = crowd_import_file(path, &desc, &child, &error);
    CHECK_MSG(result == CROWD_OK, "%s in the helper: %s", path, error.reason);
    size_t size = 0;
    char *bytes = bytes_too ? test_read_file(path, &size) : NULL;
    CHECK(bytes != NULL || !bytes_too);
    if (bytes != NULL) {
        result = crowd_import_memory(bytes, size, path, &desc, &bytes_child, &error);
        CHECK_MSG(result == CROWD_OK, "%s as bytes in the helper: %s", path, error.reason);
    }
    if (here != NULL && child != NULL) {
        check_same_asset(here, child, path);
    }
    if (here != NULL && bytes_child != NULL) {
        check_same_asset(here, bytes_child, path);
    }
    printf("%s: the helper's asset is the in-process one\n", path);
    free(bytes);
    crowd_asset_destroy(here);
    crowd_asset_destroy(child);
    crowd_asset_destroy(bytes_child);
}

static void check_round_trips(void) {
    /* man.mdl's textures are in a second file, which bytes cannot name. */
    static const struct {
        const char *file;
        bool bytes_too;
    } files[] = {{"X/Testwuson.X", true},
                 {"FBX/animation_with_skeleton.fbx", true},
                 {"MDL/MDL (HL1)/man.mdl", false},
                 {"Collada/duck.dae", true},
                 {"glTF2/simple_skin/simple_skin.gltf", true}};
    const crowd_import_desc plain = {0};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        check_round_trip(check_assimp_model(files[f].file), &plain, files[f].bytes_too);
    }
    /* Textures, many clips and submeshes; sockets named by the caller. */
    check_round_trip(check_shared_model("robot.glb"), &plain, true);
    const char *const sockets[] = {"Head", "Foot.L"};
    const crowd_import_desc with_sockets = {.socket_nodes = sockets, .socket_node_count = 2};
    check_round_trip(check_shared_model("robot.glb"), &with_sockets, true);
}

typedef struct fault_case {
    const char *fault;
    crowd_result result;
    const char *says; /* in the reason */
} fault_case;

static void check_faults(void) {
    const char *path = check_assimp_model("X/Testwuson.X");
    if (path == NULL) {
        return;
    }
    static const fault_case cases[] = {
        {"abort", CROWD_ERROR_INVALID_DATA, "the X reader crashed on this file (signal 6"},
        {"garbage", CROWD_ERROR_INVALID_DATA, "the X reader's helper sent a malformed reply"},
        {"hang", CROWD_ERROR_LIMIT, "did not finish this file within 2 s"},
        {"spin", CROWD_ERROR_LIMIT, "more than its 1 s of CPU time"},
        {"alloc", CROWD_ERROR_LIMIT, "needed more than its memory limit (0.5 GiB)"},
    };
    crowd_import_desc desc = {0};
    desc.memory_limit_bytes = 512u << 20;
    /* Only the test build of the helper reads CROWD_IMPORT_HELPER_FAULT. */
    const char *shipped = getenv("CROWD_IMPORT_HELPER");
    char *saved = shipped ? strdup(shipped) : NULL;
    setenv("CROWD_IMPORT_HELPER", CROWD_IMPORT_HELPER_FAULTS_PATH, 1);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        /* Only the hanging helper is meant to meet the wall clock. Every
         * other one must meet its own end first (a crash, a reply, its CPU
         * or memory limit), also on a loaded machine ten times slower (the
         * allocating one was stopped at 2 s under a load of 12), so for
         * them the wall clock is a hang guard of minutes. */
        bool hang_case = strcmp(cases[c].fault, "hang") == 0;
        desc.timeout_s = hang_case ? 2 : 300;
        /* Likewise the CPU limit is for the spinning one: the others start
         * assimp and read the file first, which takes CPU time too. */
        desc.cpu_limit_s = strcmp(cases[c].fault, "spin") == 0 ? 1 : 60;
        setenv("CROWD_IMPORT_HELPER_FAULT", cases[c].fault, 1);
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        double start = now_s();
        crowd_result result = crowd_import_file(path, &desc, &asset, &error);
        double took = now_s() - start;
        CHECK_MSG(result == cases[c].result && asset == NULL, "%s: %s: %s", cases[c].fault,
                  crowd_result_str(result), error.reason);
        CHECK_MSG(strstr(error.reason, cases[c].says) != NULL &&
                      strstr(error.reason, "nothing was written") != NULL &&
                      strcmp(error.file, path) == 0,
                  "%s: '%s'", cases[c].fault, error.reason);
        /* No bound on `took`: the reason already says which limit stopped
         * the helper, and ctest's timeout guards against a hang. */
        printf("fault %-7s -> %s: %s (%.2f s)\n", cases[c].fault, crowd_result_str(result),
               error.reason, took);
        /* And from bytes, where the parent also writes to the helper. */
        size_t size = 0;
        char *bytes = test_read_file(path, &size);
        result = crowd_import_memory(bytes, size, "Testwuson.X", &desc, &asset, &error);
        CHECK_MSG(result == cases[c].result && asset == NULL, "%s from bytes: %s", cases[c].fault,
                  error.reason);
        free(bytes);
    }
    unsetenv("CROWD_IMPORT_HELPER_FAULT");
    if (saved != NULL) {
        setenv("CROWD_IMPORT_HELPER", saved, 1);
    } else {
        unsetenv("CROWD_IMPORT_HELPER");
    }
    free(saved);
    /* The process is fine: the next import works, and the shipped helper
     * has no fault injection to be asked for (the default limits: the
     * ones above are the faults'). */
    setenv("CROWD_IMPORT_HELPER_FAULT", "abort", 1);
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_import_file(path, NULL, &asset, &error) == CROWD_OK && asset != NULL,
              "the shipped helper obeyed CROWD_IMPORT_HELPER_FAULT: %s", error.reason);
    crowd_asset_destroy(asset);
    unsetenv("CROWD_IMPORT_HELPER_FAULT");
}

static void check_missing_helper(void) {
    const char *path = check_assimp_model("X/Testwuson.X");
    const char *helper = getenv("CROWD_IMPORT_HELPER");
    if (path == NULL || helper == NULL) {
        return;
    }
    char saved[4096];
    snprintf(saved, sizeof saved, "%s", helper);
    setenv("CROWD_IMPORT_HELPER", "/nonexistent/crowd-import-helper", 1);
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_import_file(path, NULL, &asset, &error);
    CHECK_MSG(result == CROWD_ERROR_IO && asset == NULL &&
                  strstr(error.reason, "/nonexistent/crowd-import-helper") != NULL,
              "missing helper: %s", error.reason);
    setenv("CROWD_IMPORT_HELPER", saved, 1);
}

typedef struct held_lines {
    char text[8192];
    size_t length;
} held_lines;

static void hold(void *user, crowd_log_level level, const char *message) {
    held_lines *held = user;
    (void)level;
    size_t left = sizeof held->text - held->length;
    int n = snprintf(held->text + held->length, left, "%s\n", message);
    if (n > 0 && (size_t)n < left) {
        held->length += (size_t)n;
    }
}

/* OpenGEX/empty_camera.ogex makes assimp print a line itself. */
static void check_stderr_kept(void) {
    const char *path = check_assimp_model("OpenGEX/empty_camera.ogex");
    if (path == NULL) {
        return;
    }
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    int capture = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(capture, STDERR_FILENO);
    held_lines held = {"", 0};
    crowd_import_desc desc = {0};
    desc.logger = (crowd_logger){hold, &held};
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_import_file(path, &desc, &asset, &error);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(capture);
    crowd_asset_destroy(asset);
    size_t n = 0;
    char *printed = test_read_file("stderr.txt", &n);
    CHECK_MSG(printed != NULL && n == 0, "assimp printed on our stderr: %s", printed);
    free(printed);
    CHECK_MSG(strstr(held.text, "reader printed: ") != NULL, "no printed line in the log: %s",
              held.text);
    printf("empty_camera.ogex: %s: %s; logged:\n%s", crowd_result_str(result), error.reason,
           held.text);
}

typedef struct thread_job {
    const char *path;
    int failures;
} thread_job;

static void *import_repeatedly(void *user) {
    thread_job *job = user;
    for (int i = 0; i < 3; i++) {
        crowd_asset *asset = NULL;
        crowd_error error;
        if (crowd_import_file(job->path, NULL, &asset, &error) != CROWD_OK) {
            job->failures++;
        }
        crowd_asset_destroy(asset);
    }
    return NULL;
}

static void check_threads(void) {
    static char paths[2][1024];
    const char *a = check_assimp_model("X/Testwuson.X");
    snprintf(paths[0], sizeof paths[0], "%s", a ? a : "");
    const char *b = check_assimp_model("FBX/animation_with_skeleton.fbx");
    snprintf(paths[1], sizeof paths[1], "%s", b ? b : "");
    if (a == NULL || b == NULL) {
        return;
    }
    thread_job jobs[2] = {{paths[0], 0}, {paths[1], 0}};
    pthread_t threads[2];
    for (int t = 0; t < 2; t++) {
        CHECK(pthread_create(&threads[t], NULL, import_repeatedly, &jobs[t]) == 0);
    }
    for (int t = 0; t < 2; t++) {
        pthread_join(threads[t], NULL);
        CHECK_MSG(jobs[t].failures == 0, "thread %d: %d imports failed", t, jobs[t].failures);
    }
}

/* Every truncation of a small real reply, and byte flips of it. */
static void check_decoder(void) {
    const char *path = check_assimp_model("OBJ/box.obj");
    if (path == NULL) {
        return;
    }
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    const crowd_import_desc desc = {.in_process = true};
    if (crowd_import_file(path, &desc, &asset, &error) != CROWD_OK) {
        CHECK_MSG(false, "%s: %s", path, error.reason);
        return;
    }
    import_wire_buffer reply = {0};
    crowd__import_wire_put_header(&reply);
    crowd__import_wire_put_log(&reply, CROWD_LOG_INFO, "a message");
    crowd__import_wire_put_asset(&reply, asset);
    crowd__import_wire_put_end(&reply);
    REQUIRE_VOID(!reply.failed);
    crowd_asset *decoded = NULL;
    bool helper_said = false;
    CHECK(crowd__import_wire_decode(reply.data, reply.size, NULL, &decoded, &error, &helper_said) ==
              CROWD_OK &&
          helper_said);
    if (decoded != NULL) {
        check_same_asset(asset, decoded, "decoded reply");
        crowd_asset_destroy(decoded);
    }
    int accepted = 0;
    for (size_t size = 0; size < reply.size; size++) {
        decoded = NULL;
        crowd_result result =
            crowd__import_wire_decode(reply.data, size, NULL, &decoded, &error, &helper_said);
        accepted += result == CROWD_OK || decoded != NULL || helper_said;
        crowd_asset_destroy(decoded);
    }
    CHECK_MSG(accepted == 0, "%d truncated replies accepted", accepted);
    uint8_t *copy = malloc(reply.size);
    uint32_t x = 12345;
    int valid = 0;
    for (int round = 0; round < 4000 && copy != NULL; round++) {
        memcpy(copy, reply.data, reply.size);
        for (int flips = 0; flips < 1 + round % 3; flips++) {
            x = x * 1664525u + 1013904223u;
            copy[(x >> 8) % reply.size] ^= (uint8_t)(1u + (x >> 24) % 255u);
        }
        decoded = NULL;
        if (crowd__import_wire_decode(copy, reply.size, NULL, &decoded, &error, &helper_said) ==
            CROWD_OK) {
            crowd_error invalid;
            valid += crowd_asset_validate(decoded, &invalid) == CROWD_OK;
        }
        crowd_asset_destroy(decoded);
    }
    printf("decoder: %zu truncations refused; 4000 flipped replies survived (%d still valid)\n",
           reply.size, valid);
    free(copy);
    crowd__import_wire_buffer_free(&reply);
    /* A texture of 2^31 x 2^31 texels: 4 * w * h wraps to 0 bytes in 64 bits. */
    crowd_material *material = &asset->materials[0];
    uint8_t texel[4] = {0};
    material->texture_width = material->texture_height = 1u << 31;
    material->texture_rgba8 = texel;
    crowd__import_wire_put_header(&reply);
    crowd__import_wire_put_asset(&reply, asset);
    crowd__import_wire_put_end(&reply);
    material->texture_width = material->texture_height = 0;
    material->texture_rgba8 = NULL;
    decoded = NULL;
    CHECK(crowd__import_wire_decode(reply.data, reply.size, NULL, &decoded, &error, &helper_said) ==
              CROWD_ERROR_INVALID_DATA &&
          decoded == NULL && strstr(error.reason, "a texture size") != NULL);
    crowd__import_wire_buffer_free(&reply);
    crowd_asset_destroy(asset);
}

int main(void) {
    check_enter_temp_dir("test_import_child");
    check_round_trips();
    check_faults();
    check_missing_helper();
    check_stderr_kept();
    check_threads();
    check_decoder();
    return check_finish();
}
