/* test_bake_cli - `crowd bake` end to end on real characters.
 *
 * Each model is baked by the CLI in every encoding; the folder is then read
 * back with crowd_bake_load (from the files, not from memory) and every
 * vertex of every frame of every clip is compared with float32 CPU skinning
 * (crowd_anim + crowd_skin_reference) of the same model at the frame's time
 * k / fps; the loaded runtime clips (NAME.G.anim.bin) pose the mesh as the
 * source's clips do, within 1e-5 of the diagonal at every baked frame and
 * mid-step, and the bake reports an error within that. Then the options, the height limit (with the
 * fps it advises) and bad inputs, each of which must leave the output folder exactly as it was
 * (same file names, sizes and bytes).
 *
 * Each character and each of the other parts is a group (main's argv[1])
 * and a CTest test of its own (tests/bake/CMakeLists.txt).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "check.h"
#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/import.h"
#include "crowd/skin.h"
#include "run_cli.h"
#include "test_files.h"

/* The folder every bake of this run goes into: inside the test's own
 * temporary folder, readable by the unprivileged run of test_bad_inputs. */
static char root[400];

/* ---- running the CLI ------------------------------------------------------ */

/* Runs `crowd bake ARGS...` (NULL-terminated); stdout and stderr captured. */
static void run_bake(const char *const *args, const cli_limits *limits, cli_run *run) {
    const char *argv[CLI_RUN_MAX_ARGS + 1] = {"bake"};
    int argc = 1;
    for (const char *const *a = args; *a != NULL && argc < CLI_RUN_MAX_ARGS; a++) {
        argv[argc++] = *a;
    }
    argv[argc] = NULL;
    cli_run_argv(argv, limits, root, run);
}

/* ---- folders -------------------------------------------------------------- */

static uint64_t file_hash(const char *path) {
    uint64_t hash = 1469598103934665603ull; /* FNV-1a */
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return 0;
    }
    unsigned char buffer[65536];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, f)) > 0) {
        for (size_t i = 0; i < n; i++) {
            hash = (hash ^ buffer[i]) * 1099511628211ull;
        }
    }
    fclose(f);
    return hash;
}

/* "name size hash" per entry, sorted, recursive: a folder's full state. */
static void snapshot(const char *dir, char *out, size_t size) {
    struct dirent **entries = NULL;
    int count = scandir(dir, &entries, NULL, alphasort);
    for (int i = 0; i < count; i++) {
        const char *name = entries[i]->d_name;
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            char path[1024];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, name);
            size_t used = strlen(out);
            if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
                snprintf(out + used, size - used, "%s/\n", path);
                snapshot(path, out, size);
            } else {
                snprintf(out + used, size - used, "%s %lld %016llx\n", path, (long long)st.st_size,
                         (unsigned long long)file_hash(path));
            }
        }
        free(entries[i]);
    }
    free(entries);
}

/* ---- comparing a bake folder with CPU skinning ---------------------------- */

typedef struct tolerances {
    double position_rel; /* of the bounds diagonal */
    double normal_deg;
    double bat_rel; /* positions skinned with the fetched BAT matrices */
} tolerances;

static double angle_deg(const float a[3], const float b[3]) {
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1];
    double cy = (double)a[2] * b[0] - (double)a[0] * b[2];
    double cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), dot) * 180.0 / 3.14159265358979323846;
}

static double distance3(const float a[3], const float b[3]) {
    double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Every frame of every clip of the loaded bake against the model. */
static void compare_with_cpu(const crowd_bake *bake, const crowd_asset *asset,
                             const tolerances *tol, const char *label) {
    const crowd_skeleton *sk = &asset->skeleton;
    uint32_t joints = sk->joint_count, vertices = asset->mesh.vertex_count;
    CHECK_MSG(bake->vertex_count == vertices, "%s: %u vertices, model %u", label,
              bake->vertex_count, vertices);
    CHECK(bake->joint_count == joints);
    if (bake->vertex_count != vertices || bake->joint_count != joints) {
        return;
    }
    /* The mesh in the folder is the model's vertex buffer, in its order. */
    const crowd_mesh *baked_mesh = &bake->asset->mesh;
    double mesh_error = 0.0;
    for (uint32_t v = 0; v < vertices; v++) {
        mesh_error = fmax(mesh_error,
                          distance3(baked_mesh->positions + 3 * v, asset->mesh.positions + 3 * v));
    }
    CHECK_MSG(mesh_error < 1e-6, "%s: mesh.glb positions differ by %g", label, mesh_error);
    double dx = (double)bake->bounds_max[0] - bake->bounds_min[0];
    double dy = (double)bake->bounds_max[1] - bake->bounds_min[1];
    double dz = (double)bake->bounds_max[2] - bake->bounds_min[2];
    double diagonal = sqrt(dx * dx + dy * dy + dz * dz);
    crowd_transform *locals = malloc(joints * sizeof *locals);
    float *models = malloc(16 * (size_t)joints * sizeof(float));
    float *skin = malloc(12 * (size_t)joints * sizeof(float));
    float *bat = malloc(12 * (size_t)joints * sizeof(float));
    float *positions = malloc(3 * (size_t)vertices * sizeof(float));
    float *normals = malloc(3 * (size_t)vertices * sizeof(float));
    float *bat_positions = malloc(3 * (size_t)vertices * sizeof(float));
    double worst = 0.0, worst_normal = 0.0, worst_bat = 0.0;
    uint64_t samples = 0;
    bool outside_bounds = false;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        int32_t index = crowd_asset_find_clip(asset, clip->name);
        CHECK_MSG(index >= 0 || (asset->clip_count == 0 && strcmp(clip->name, "rest") == 0),
                  "%s: clip '%s' is not in the model", label, clip->name);
        for (uint32_t k = 0; k < clip->frame_count; k++) {
            /* Frame k at k / fps, the last at the duration (docs/time.md). */
            float time_s = k + 1 == clip->frame_count && clip->layout == CROWD_FRAMES_END
                               ? clip->duration_s
                               : (float)k / clip->fps;
            if (index >= 0) {
                crowd_anim_sample(sk, &asset->clips[index], time_s, NULL, locals);
            } else {
                crowd_anim_rest_pose(sk, locals);
            }
            crowd_anim_local_to_model(sk, locals, models);
            crowd_anim_skin_matrices(sk, models, NULL, skin);
            crowd_skin_reference(&asset->mesh, skin, positions, normals, NULL);
            uint32_t frame = clip->first_frame + k;
            if (bake->vat_position.texels != NULL) {
                for (uint32_t v = 0; v < vertices; v++) {
                    float p[3], n[3];
                    crowd_bake_vat_fetch(bake, frame, v, p, n);
                    worst = fmax(worst, distance3(p, positions + 3 * v));
                    worst_normal = fmax(worst_normal, angle_deg(n, normals + 3 * v));
                    /* The baker skins with the SIMD path: its extremes may
                     * differ from the reference's by float rounding. */
                    double slack = 1e-6 * diagonal;
                    for (int a = 0; a < 3; a++) {
                        double q = positions[3 * v + a];
                        outside_bounds |=
                            q < bake->bounds_min[a] - slack || q > bake->bounds_max[a] + slack;
                    }
                    samples++;
                }
            }
            if (bake->bat.texels != NULL) {
                for (uint32_t j = 0; j < joints; j++) {
                    crowd_bake_bat_fetch(bake, frame, j, bat + 12 * j);
                }
                crowd_skin_reference(&asset->mesh, bat, bat_positions, NULL, NULL);
                for (uint32_t v = 0; v < vertices; v++) {
                    worst_bat =
                        fmax(worst_bat, distance3(bat_positions + 3 * v, positions + 3 * v));
                }
            }
        }
    }
    printf("  %-34s %6u frames, %10llu vertex-frames: max %.3g (%.3g of diagonal %.4g), "
           "normal %.3f deg, BAT %.3g of diagonal\n",
           label, bake->frame_count, (unsigned long long)samples, worst, worst / diagonal, diagonal,
           worst_normal, worst_bat / diagonal);
    CHECK_MSG(worst / diagonal <= tol->position_rel, "%s: position error %.3g of the diagonal",
              label, worst / diagonal);
    CHECK_MSG(worst_normal <= tol->normal_deg, "%s: normal error %.3f deg", label, worst_normal);
    CHECK_MSG(worst_bat / diagonal <= tol->bat_rel, "%s: BAT error %.3g of the diagonal", label,
              worst_bat / diagonal);
    CHECK_MSG(!outside_bounds, "%s: a skinned vertex lies outside the manifest bounds", label);
    free(locals);
    free(models);
    free(skin);
    free(bat);
    free(positions);
    free(normals);
    free(bat_positions);
}

/* The loaded bake's runtime clips against the source's, in skinned
 * positions (crowd_skin_reference) at every baked frame's time and the
 * middle of every step, independently of the bake's own measurement. */
static void compare_runtime_clips(const crowd_bake *bake, const crowd_asset *asset,
                                  const char *label) {
    const crowd_asset *loaded = bake->asset;
    CHECK_MSG(bake->anim.present && loaded->clip_count == bake->clip_count, "%s: no runtime clips",
              label);
    if (!bake->anim.present || loaded->clip_count != bake->clip_count) {
        return;
    }
    uint32_t joints = asset->skeleton.joint_count, vertices = asset->mesh.vertex_count;
    crowd_transform *locals = malloc(joints * sizeof *locals);
    float *models = malloc(16 * sizeof(float) * joints),
          *skin = malloc(12 * sizeof(float) * joints);
    float *want = malloc(3 * sizeof(float) * vertices), *got = malloc(3 * sizeof(float) * vertices);
    double worst = 0.0;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        int32_t source = crowd_asset_find_clip(asset, bake->clips[c].name);
        crowd_clip_frames frames = crowd_bake_clip_frames(&bake->clips[c]);
        for (uint32_t k = 0; k + 1 < 2 * frames.frame_count; k++) {
            float t0 = crowd_anim_frame_time(&frames, k / 2);
            float t = k % 2 == 0 ? t0 : 0.5f * (t0 + crowd_anim_frame_time(&frames, k / 2 + 1));
            const crowd_clip *clips[2] = {source >= 0 ? &asset->clips[source] : NULL,
                                          &loaded->clips[c]};
            float *out[2] = {want, got};
            const crowd_skeleton *skeletons[2] = {&asset->skeleton, &loaded->skeleton};
            for (int i = 0; i < 2; i++) {
                if (clips[i] != NULL) {
                    crowd_anim_sample(skeletons[i], clips[i], t, NULL, locals);
                } else {
                    crowd_anim_rest_pose(skeletons[i], locals);
                }
                crowd_anim_local_to_model(skeletons[i], locals, models);
                crowd_anim_skin_matrices(skeletons[i], models, NULL, skin);
                crowd_skin_reference(&asset->mesh, skin, out[i], NULL, NULL);
            }
            for (size_t v = 0; v < 3 * (size_t)vertices; v += 3) {
                double dx = want[v] - got[v], dy = want[v + 1] - got[v + 1],
                       dz = want[v + 2] - got[v + 2];
                double d = sqrt(dx * dx + dy * dy + dz * dz);
                worst = d > worst ? d : worst;
            }
        }
    }
    double diagonal = 0.0;
    for (int a = 0; a < 3; a++) {
        double e = (double)bake->bounds_max[a] - bake->bounds_min[a];
        diagonal += e * e;
    }
    diagonal = sqrt(diagonal);
    printf("  %-34s runtime clips: %u tracks, %llu bytes, max %.3g of the diagonal (reported "
           "%.3g)\n",
           label, bake->anim.track_count, (unsigned long long)bake->anim.size_bytes,
           worst / diagonal, bake->anim.error_max_rel);
    CHECK_MSG(worst / diagonal <= 1e-5 && bake->anim.error_max_rel <= 1e-5,
              "%s: runtime clips %.3g of the diagonal from the source's (reported %.3g)", label,
              worst / diagonal, bake->anim.error_max_rel);
    free(locals);
    free(models);
    free(skin);
    free(want);
    free(got);
}

/* ---- the model matrix ------------------------------------------------------ */

typedef struct model_case {
    const char *label;
    const char *model; /* path or builtin: */
    const char *attach_socket;
    const char *attach_file; /* path or NULL */
} model_case;

static crowd_asset *load_case(const model_case *mc) {
    crowd_asset *asset = NULL, *prop = NULL;
    crowd_error error = {0};
    if (crowd_model_load(mc->model, NULL, &asset, &error) != CROWD_OK) {
        fprintf(stderr, "%s: %s\n", error.file, error.reason);
        return NULL;
    }
    if (mc->attach_file != NULL) {
        if (crowd_model_load(mc->attach_file, NULL, &prop, &error) != CROWD_OK ||
            crowd_asset_attach(asset, mc->attach_socket, prop, &error) != CROWD_OK) {
            fprintf(stderr, "%s: %s\n", error.file, error.reason);
            crowd_asset_destroy(asset);
            asset = NULL;
        }
        crowd_asset_destroy(prop);
    }
    return asset;
}

static bool has_file(const char *dir, const char *name, const char *suffix) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
    return check_path_exists(path);
}

/* Bakes `mc` by the CLI in each encoding and compares the folders. */
static void bake_and_compare(const model_case *mc) {
    crowd_asset *asset = load_case(mc);
    CHECK_MSG(asset != NULL, "%s does not load", mc->label);
    if (asset == NULL) {
        return;
    }
    static const struct {
        const char *vat, *bat;
        tolerances tol;
    } encodings[] = {
        /* 2e-5 of the diagonal and 1 degree for the compact encoding; f32
         * must be exact to float rounding; f16 normals within 0.1 degree.
         * f16 positions and the f16 BAT keep 11 significant bits of values
         * as large as the model: 1e-3 of its diagonal. */
        {"unorm16_oct", "f32", {2e-5, 1.0, 1e-6}},
        {"f32", "f32", {1e-6, 0.01, 1e-6}},
        {"f16", "f16", {1e-3, 0.1, 1e-3}},
    };
    for (size_t e = 0; e < sizeof encodings / sizeof encodings[0]; e++) {
        char dir[512], attach[1024], label[128];
        snprintf(dir, sizeof dir, "%s/%s-%s", root, mc->label, encodings[e].vat);
        snprintf(label, sizeof label, "%s %s/%s", mc->label, encodings[e].vat, encodings[e].bat);
        const char *args[16] = {
            mc->model,       "-o", dir, "--quiet", "--encoding", encodings[e].vat, "--bat-encoding",
            encodings[e].bat};
        int n = 8;
        /* The rates the bake picks per clip are checked on the first
         * encoding; the others are about the texels, and a fixed 30 fps
         * keeps them from repeating the rate search and the up to 240
         * frames a second it leads to (minutes under ASan). */
        if (e > 0) {
            args[n++] = "--fps";
            args[n++] = "30";
        }
        if (mc->attach_file != NULL) {
            snprintf(attach, sizeof attach, "%s=%s", mc->attach_socket, mc->attach_file);
            args[n++] = "--attach";
            args[n++] = attach;
        }
        args[n] = NULL;
        cli_run run;
        run_bake(args, NULL, &run);
        CHECK_MSG(run.exit_code == 0, "%s: exit %d: %s", label, run.exit_code, run.err);
        crowd_bake *bake = NULL;
        crowd_error error = {0};
        crowd_result result = crowd_bake_load(dir, NULL, &bake, &error);
        CHECK_MSG(result == CROWD_OK, "%s: load: %s: %s", label, error.file, error.reason);
        if (result == CROWD_OK) {
            CHECK(has_file(dir, bake->name, ".crowd.json"));
            CHECK(has_file(dir, bake->name, ".1.mesh.glb"));
            CHECK(bake->clip_count == (asset->clip_count > 0 ? asset->clip_count : 1));
            for (uint32_t c = 0; c < bake->clip_count && e == 0; c++) {
                const crowd_bake_clip *clip = &bake->clips[c];
                float base = clip->key_rate > 0.0f ? clip->key_rate : 30.0f;
                /* Within budget, or at the highest rate the budget may pick. */
                CHECK_MSG(clip->fps == base * (float)clip->rate_multiple &&
                              (clip->within_budget || clip->fps * 1.25f > 240.0f),
                          "%s: clip %s at %g fps (keys %g/s x %u)", label, clip->name,
                          (double)clip->fps, (double)clip->key_rate, clip->rate_multiple);
            }
            CHECK(bake->vat_position.texels != NULL && bake->bat.texels != NULL);
            compare_with_cpu(bake, asset, &encodings[e].tol, label);
            if (e == 0) {
                CHECK(has_file(dir, bake->name, ".1.anim.bin"));
                compare_runtime_clips(bake, asset, label);
            }
        }
        crowd_bake_destroy(bake);
        test_remove_tree(dir);
    }
    crowd_asset_destroy(asset);
}

/* Where a case's file is looked up: the shared models, assimp's test
 * models, or nowhere (builtin:). */
typedef enum { FROM_SHARED, FROM_ASSIMP, BUILT_IN } model_source;

typedef struct model_entry {
    const char *label;
    model_source source;
    const char *file;
    const char *attach_socket;
    const char *attach_file; /* in the shared models, or NULL */
} model_entry;

/* The path of `file` from `source` copied into `out`; false (the check
 * helpers print SKIP and count it) when it is absent. */
static bool find_model(model_source source, const char *file, char *out, size_t size) {
    const char *p = source == BUILT_IN      ? file
                    : source == FROM_SHARED ? check_shared_model(file)
                                            : check_assimp_model(file);
    if (p == NULL) {
        return false;
    }
    snprintf(out, size, "%s", p);
    return true;
}

/* The real characters baked and compared; `only` names one case (the
 * label), or NULL for every case. Only the files of the cases run are
 * looked up, so a group whose character is absent is skipped (77). */
static int test_models(const char *only) {
    static const model_entry cases[] = {
        {"robot", FROM_SHARED, "robot.glb", NULL, NULL},
        {"greenman+sword", FROM_SHARED, "greenman.glb", "socket_hand_R", "greenman_sword.glb"},
        {"RiggedFigure", FROM_SHARED, "RiggedFigure.glb", NULL, NULL},
        {"builtin", BUILT_IN, "builtin:", NULL, NULL},
        {"Testwuson", FROM_ASSIMP, "X/Testwuson.X", NULL, NULL},
        {"BCN_Epileptic", FROM_ASSIMP, "X/BCN_Epileptic.X", NULL, NULL},
    };
    printf("bake folders read back and compared with float32 CPU skinning:\n");
    bool matched = false;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const model_entry *c = &cases[i];
        if (only != NULL && strcmp(only, c->label) != 0) {
            continue;
        }
        matched = true;
        char model[1024], attach[1024];
        if (!find_model(c->source, c->file, model, sizeof model) ||
            (c->attach_file != NULL &&
             !find_model(FROM_SHARED, c->attach_file, attach, sizeof attach))) {
            continue;
        }
        bake_and_compare(&(model_case){c->label, model, c->attach_socket,
                                       c->attach_file != NULL ? attach : NULL});
    }
    if (!matched) { /* a CHECK only here: a skipped group must count no checks */
        CHECK_MSG(false, "no model case is named '%s'", only != NULL ? only : "");
    }
    return 0;
}

/* ---- options ---------------------------------------------------------------- */

static int test_options(void) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/options", root);
    crowd_asset *asset = load_case(&(model_case){"builtin", "builtin:", NULL, NULL});
    REQUIRE(asset != NULL);
    int32_t walk = crowd_asset_find_clip(asset, "walk"),
            idle = crowd_asset_find_clip(asset, "idle");
    REQUIRE(walk >= 0 && idle >= 0);
    const char *args[] = {"builtin:", "-o",      dir,           "--quiet", "--fps",
                          "24",       "--clips", "walk,idle",   "--once",  "walk",
                          "--loop",   "idle",    "--max-width", "1000",    NULL};
    cli_run run;
    run_bake(args, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "exit %d: %s", run.exit_code, run.err);
    CHECK(run.out[0] == '\0'); /* --quiet */
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    REQUIRE(crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK);
    REQUIRE(bake->clip_count == 2);
    CHECK(bake->clips[0].fps == 24.0f && bake->clips[1].fps == 24.0f);
    CHECK(strcmp(bake->clips[0].name, "walk") == 0 && !bake->clips[0].loop);
    CHECK(strcmp(bake->clips[1].name, "idle") == 0 && bake->clips[1].loop);
    /* Steps of 1/24 s, the last ending at d, and frame 0: looping or not. */
    double walk_frames = 1.0 + ceil((double)asset->clips[walk].duration_s * 24.0 - 1e-3);
    double idle_frames = 1.0 + ceil((double)asset->clips[idle].duration_s * 24.0 - 1e-3);
    CHECK(bake->clips[0].frame_count == (uint32_t)walk_frames);
    CHECK(bake->clips[1].frame_count == (uint32_t)idle_frames);
    CHECK(bake->clips[1].first_frame == bake->clips[0].frame_count);
    CHECK(bake->vat_position.width <= 1000);
    CHECK(bake->vat_rows_per_frame ==
          (bake->vertex_count + bake->vat_position.width - 1) / bake->vat_position.width);
    compare_with_cpu(bake, asset, &(tolerances){2e-5, 1.0, 1e-6}, "builtin options");
    crowd_bake_destroy(bake);
    test_remove_tree(dir);

    /* --what bat / vat, --compat openvat. */
    const char *bat_only[] = {"builtin:", "-o", dir, "--quiet", "--what", "bat", NULL};
    run_bake(bat_only, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "exit %d: %s", run.exit_code, run.err);
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        CHECK(bake->vat_position.texels == NULL && bake->bat.texels != NULL);
        crowd_bake_destroy(bake);
    } else {
        CHECK_MSG(false, "BAT-only load: %s", error.reason);
    }
    test_remove_tree(dir);
    const char *vat_only[] = {"builtin:", "-o",       dir,       "--quiet", "--what",
                              "vat",      "--compat", "openvat", NULL};
    run_bake(vat_only, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "exit %d: %s", run.exit_code, run.err);
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        CHECK(bake->vat_position.texels != NULL && bake->bat.texels == NULL);
        char openvat[600];
        snprintf(openvat, sizeof openvat, "%s/openvat", dir); /* the OpenVAT set's own folder */
        CHECK(has_file(openvat, bake->name, ".1-remap_info.json"));
        crowd_bake_destroy(bake);
    } else {
        CHECK_MSG(false, "VAT-only load: %s", error.reason);
    }
    test_remove_tree(dir);

    /* --event: in the manifest, in time order; a clip name may hold ':'. */
    const char *events[] = {"builtin:",     "-o",         dir,
                            "--clips",      "walk",       "--event",
                            "walk:0.5=mid", "--event",    "walk:0.25=step_l",
                            "--event",      "walk:0=a=b", NULL};
    run_bake(events, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "exit %d: %s", run.exit_code, run.err);
    CHECK(strstr(run.out, "events: 3") != NULL);
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        CHECK(bake->event_count == 3);
        if (bake->event_count == 3) {
            CHECK(strcmp(bake->events[0].name, "a=b") == 0 && bake->events[0].time_s == 0.0f);
            CHECK(strcmp(bake->events[1].name, "step_l") == 0 && bake->events[1].time_s == 0.25f);
            CHECK(strcmp(bake->events[2].name, "mid") == 0 && bake->events[2].clip == 0);
        }
        crowd_bake_destroy(bake);
    } else {
        CHECK_MSG(false, "events load: %s", error.reason);
    }
    const char *info[] = {"info", dir, NULL};
    cli_run_argv(info, NULL, root, &run);
    CHECK_MSG(run.exit_code == 0 && strstr(run.out, "event step_l") != NULL &&
                  strstr(run.out, "at 0.25 s") != NULL && strstr(run.out, "events            3"),
              "crowd info: exit %d: %s", run.exit_code, run.out);
    test_remove_tree(dir);

    /* --blend: in the manifest, with thresholds or at the ground speeds;
     * crowd info lists them. */
    const char *blends[] = {"builtin:",
                            "-o",
                            dir,
                            "--lods",
                            "0",
                            "--blend",
                            "locomotion=walk,run",
                            "--blend",
                            "stand=idle:0,walk:1.4,run:3.5",
                            NULL};
    run_bake(blends, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "exit %d: %s", run.exit_code, run.err);
    CHECK(strstr(run.out, "blend locomotion: walk run (at their ground speeds)") != NULL);
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        CHECK(bake->blend_count == 2);
        if (bake->blend_count == 2) {
            const crowd_bake_blend *a = &bake->blends[0], *b = &bake->blends[1];
            CHECK(strcmp(a->name, "locomotion") == 0 && a->clip_count == 2 && !a->has_thresholds &&
                  strcmp(bake->clips[a->clips[1]].name, "run") == 0);
            CHECK(strcmp(b->name, "stand") == 0 && b->clip_count == 3 && b->has_thresholds &&
                  b->thresholds[1] == 1.4f && b->thresholds[2] == 3.5f);
        }
        crowd_bake_destroy(bake);
    } else {
        CHECK_MSG(false, "blends load: %s", error.reason);
    }
    cli_run_argv(info, NULL, root, &run);
    CHECK_MSG(run.exit_code == 0 && strstr(run.out, "blends            2") != NULL &&
                  strstr(run.out, "'locomotion': walk at 1.5") != NULL &&
                  strstr(run.out, "'stand': idle at 0 walk at 1.4 run at 3.5") != NULL,
              "crowd info: exit %d: %s", run.exit_code, run.out);
    test_remove_tree(dir);

    /* The report: one row per encoding, the unchosen ones not written. */
    const char *report[] = {"builtin:", "-o", dir, "--report-all", NULL};
    run_bake(report, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "exit %d: %s", run.exit_code, run.err);
    printf("%s", run.out);
    CHECK(strstr(run.out, "VAT unorm16_oct") != NULL);
    CHECK(strstr(run.out, "VAT f16") != NULL && strstr(run.out, "VAT f32") != NULL);
    CHECK(strstr(run.out, "BAT f32") != NULL && strstr(run.out, "BAT f16") != NULL);
    CHECK(strstr(run.out, "(not written)") != NULL);
    CHECK(strstr(run.out, "max/diag") != NULL);
    CHECK(strstr(run.out, ".crowd.json") != NULL);
    test_remove_tree(dir);
    crowd_asset_destroy(asset);
    return 0;
}

/* robot at --max-width 64 wraps each frame over 111 rows, so 30 fps is far
 * too tall: the error must say so and advise an fps, which must then work. */
static int test_wrapping_and_limit(void) {
    const char *robot = check_shared_model("robot.glb");
    if (robot == NULL) {
        return 0;
    }
    char model[1024], dir[512];
    snprintf(model, sizeof model, "%s", robot);
    snprintf(dir, sizeof dir, "%s/wrapped", root);
    const char *args[] = {model, "-o", dir, "--quiet", "--max-width", "64", NULL};
    cli_run run;
    run_bake(args, NULL, &run);
    printf("--max-width 64 at 30 fps: exit %d: %s", run.exit_code, run.err);
    CHECK(run.exit_code == 2);
    CHECK(strstr(run.err, "crowd: error: ") == run.err);
    CHECK(strstr(run.err, "rows tall") != NULL);
    CHECK(strstr(run.err, "147 frames fit") != NULL); /* 16384 / 111 */
    CHECK(!check_path_exists(dir));
    const char *advice = strstr(run.err, "--fps ");
    REQUIRE(advice != NULL);
    char fps[32];
    snprintf(fps, sizeof fps, "%.*s", (int)strcspn(advice + 6, " "), advice + 6);
    const char *again[] = {model, "-o", dir, "--quiet", "--max-width", "64", "--fps", fps, NULL};
    run_bake(again, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "--fps %s: exit %d: %s", fps, run.exit_code, run.err);
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        crowd_asset *asset = load_case(&(model_case){"robot", model, NULL, NULL});
        CHECK(bake->vat_position.width == 64);
        CHECK(bake->vat_rows_per_frame == (bake->vertex_count + 63) / 64);
        CHECK(bake->vat_position.height == bake->frame_count * bake->vat_rows_per_frame);
        CHECK(bake->vat_position.height <= 16384);
        char label[64];
        snprintf(label, sizeof label, "robot width 64 at %s fps", fps);
        if (asset != NULL) {
            compare_with_cpu(bake, asset, &(tolerances){2e-5, 1.0, 1e-6}, label);
        }
        crowd_asset_destroy(asset);
        crowd_bake_destroy(bake);
    } else {
        CHECK_MSG(false, "wrapped load: %s", error.reason);
    }
    test_remove_tree(dir);
    return 0;
}

/* The LOD table, the fits line and --lods 0; --target web keeps textures
 * within 4096 and refuses robot at 120 fps and --max-width 2048 (1767 x
 * 9376 otherwise) with the frames and the fps that fit. */
static int test_lods_and_targets(void) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/lods", root);
    const char *plain[] = {"builtin:", "-o", dir, NULL};
    cli_run run;
    run_bake(plain, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "exit %d: %s", run.exit_code, run.err);
    printf("%s", run.out);
    CHECK(strstr(run.out, "LOD   triangles   vertices        error  error/diag") != NULL);
    CHECK(strstr(run.out, "\n3    ") != NULL);
    CHECK(strstr(run.out, "fits: desktop (16384), WebGL2 8192, WebGL2 4096; not GLES 3.0 2048") !=
          NULL);
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        CHECK(bake->lod_count == 4);
        crowd_bake_destroy(bake);
    } else {
        CHECK_MSG(false, "LOD load: %s", error.reason);
    }
    const char *none[] = {"builtin:", "-o", dir, "--lods", "0", NULL};
    run_bake(none, NULL, &run);
    CHECK(run.exit_code == 0 && strstr(run.out, "LODs: none (LOD 0 only)") != NULL);
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        CHECK(bake->lod_count == 1);
        crowd_bake_destroy(bake);
    }
    const char *two[] = {"builtin:", "-o", dir, "--lods", "2", "--quiet", NULL};
    run_bake(two, NULL, &run);
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        CHECK(bake->lod_count == 3);
        crowd_bake_destroy(bake);
    }
    /* --target web lowers a wider --max-width to 4096 */
    const char *web[] = {"builtin:", "-o", dir, "--target", "web", "--max-width", "8192", NULL};
    run_bake(web, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "exit %d: %s", run.exit_code, run.err);
    CHECK(strstr(run.err, "--max-width 8192 lowered to 4096") != NULL);
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        CHECK(bake->vat_position.width <= 4096 && bake->vat_position.height <= 4096);
        crowd_bake_destroy(bake);
    }
    test_remove_tree(dir);
    /* --target gles: within 2048, the least a GLES 3.0 device holds */
    const char *gles[] = {"builtin:", "-o", dir, "--target", "gles", "--max-width", "4096", NULL};
    run_bake(gles, NULL, &run);
    CHECK_MSG(run.exit_code == 0, "exit %d: %s", run.exit_code, run.err);
    CHECK(strstr(run.err, "--target gles: --max-width 4096 lowered to 2048") != NULL);
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        CHECK(bake->vat_position.width <= 2048 && bake->vat_position.height <= 2048);
        crowd_bake_destroy(bake);
    }
    test_remove_tree(dir);

    const char *robot = check_shared_model("robot.glb");
    if (robot == NULL) {
        return 0;
    }
    char model[1024];
    snprintf(model, sizeof model, "%s", robot);
    const char *tall[] = {model, "-o", dir, "--fps", "120", "--max-width", "2048", "--quiet", NULL};
    run_bake(tall, NULL, &run);
    printf("robot at 120 fps, width 2048, desktop: exit %d\n%s", run.exit_code, run.out);
    CHECK(run.exit_code == 0);
    if (crowd_bake_load(dir, NULL, &bake, &error) == CROWD_OK) {
        /* 14 clips of 1 + ceil(120 d) frames each (docs/time.md): 2354, 4
         * rows each. */
        CHECK(bake->vat_position.width == 1767 && bake->vat_position.height == 9416);
        crowd_bake_destroy(bake);
    }
    test_remove_tree(dir);
    const char *too_tall[] = {model,         "-o",   dir,        "--fps", "120",
                              "--max-width", "2048", "--target", "web",   NULL};
    run_bake(too_tall, NULL, &run);
    printf("the same, --target web: exit %d: %s", run.exit_code, run.err);
    CHECK(run.exit_code == 2);
    CHECK(strstr(run.err, "9416 rows tall") != NULL);
    CHECK(strstr(run.err, "over the limit of 4096: 1024 frames fit") != NULL);
    CHECK(strstr(run.err, "--fps 51 would fit") != NULL);
    CHECK(!check_path_exists(dir));
    too_tall[8] = "gles";
    run_bake(too_tall, NULL, &run);
    printf("the same, --target gles: exit %d: %s", run.exit_code, run.err);
    CHECK(run.exit_code == 2);
    CHECK(strstr(run.err, "over the limit of 2048") != NULL);
    CHECK(!check_path_exists(dir));
    return 0;
}

/* ---- bad inputs ------------------------------------------------------------- */

static char before[65536], after[65536];

static void expect_untouched(const char *dir, const char *const *args, const cli_limits *limits,
                             int exit_code, const char *needle) {
    before[0] = after[0] = '\0';
    snapshot(dir, before, sizeof before);
    cli_run run;
    run_bake(args, limits, &run);
    snapshot(dir, after, sizeof after);
    printf("  exit %d: %s", run.exit_code, run.err);
    CHECK_MSG(run.exit_code == exit_code, "%s: exit %d, expected %d", needle, run.exit_code,
              exit_code);
    CHECK_MSG(strstr(run.err, "crowd: error: ") != NULL, "no error line for %s", needle);
    CHECK_MSG(strstr(run.err, needle) != NULL, "'%s' not in: %s", needle, run.err);
    CHECK_MSG(strcmp(before, after) == 0, "%s changed the folder:\n%s---\n%s", needle, before,
              after);
}

static int test_bad_inputs(void) {
    char dir[512], keep[600], bad_model[512];
    snprintf(dir, sizeof dir, "%s/guarded", root);
    /* The folder holds an earlier bake and a file of the user's. */
    const char *first[] = {"builtin:", "-o", dir, "--quiet", NULL};
    cli_run run;
    run_bake(first, NULL, &run);
    REQUIRE(run.exit_code == 0);
    snprintf(keep, sizeof keep, "%s/keep.txt", dir);
    FILE *f = fopen(keep, "w");
    REQUIRE(f != NULL);
    fputs("the user's own file\n", f);
    fclose(f);
    snprintf(bad_model, sizeof bad_model, "%s/broken.glb", root);
    f = fopen(bad_model, "w");
    REQUIRE(f != NULL);
    fputs("glTF but not really", f);
    fclose(f);

    printf("bad inputs (folder must stay as it was):\n");
    const char *fps0[] = {"builtin:", "-o", dir, "--fps", "0", NULL};
    expect_untouched(dir, fps0, NULL, 2, "--fps 0 is out of range");
    const char *fps_big[] = {"builtin:", "-o", dir, "--fps", "100000", NULL};
    expect_untouched(dir, fps_big, NULL, 2, "--fps 100000 is out of range");
    const char *fps_text[] = {"builtin:", "-o", dir, "--fps", "fast", NULL};
    expect_untouched(dir, fps_text, NULL, 1, "not a number");
    const char *width0[] = {"builtin:", "-o", dir, "--max-width", "0", NULL};
    expect_untouched(dir, width0, NULL, 2, "--max-width 0 is out of range");
    const char *width_big[] = {"builtin:", "-o", dir, "--max-width", "16385", NULL};
    expect_untouched(dir, width_big, NULL, 2, "out of range");
    const char *clips[] = {"builtin:", "-o", dir, "--clips", "walk,moonwalk", NULL};
    expect_untouched(dir, clips, NULL, 2, "clip 'moonwalk' is not a clip of the model");
    const char *loop[] = {"builtin:", "-o", dir, "--loop", "moonwalk", NULL};
    expect_untouched(dir, loop, NULL, 2, "'moonwalk'");
    const char *encoding[] = {"builtin:", "-o", dir, "--encoding", "bc7", NULL};
    expect_untouched(dir, encoding, NULL, 1, "--encoding");
    const char *missing[] = {"/nonexistent/model.glb", "-o", dir, NULL};
    expect_untouched(dir, missing, NULL, 2, "/nonexistent/model.glb");
    const char *broken[] = {bad_model, "-o", dir, NULL};
    before[0] = '\0';
    snapshot(dir, before, sizeof before);
    run_bake(broken, NULL, &run);
    after[0] = '\0';
    snapshot(dir, after, sizeof after);
    printf("  exit %d: %s", run.exit_code, run.err);
    CHECK(run.exit_code == 2 || run.exit_code == 3);
    CHECK(strcmp(before, after) == 0);
    const char *no_output[] = {"builtin:", NULL};
    expect_untouched(dir, no_output, NULL, 1, "-o DIR");
    const char *unknown[] = {"builtin:", "-o", dir, "--frobnicate", NULL};
    expect_untouched(dir, unknown, NULL, 1, "--frobnicate");
    const char *lods_big[] = {"builtin:", "-o", dir, "--lods", "8", NULL};
    expect_untouched(dir, lods_big, NULL, 1, "--lods: '8' is not a number of LODs from 0 to 7");
    const char *lods_negative[] = {"builtin:", "-o", dir, "--lods", "-1", NULL};
    expect_untouched(dir, lods_negative, NULL, 1, "--lods: '-1'");
    const char *lods_text[] = {"builtin:", "-o", dir, "--lods", "many", NULL};
    expect_untouched(dir, lods_text, NULL, 1, "--lods: 'many'");
    const char *target[] = {"builtin:", "-o", dir, "--target", "mobile", NULL};
    expect_untouched(dir, target, NULL, 1,
                     "--target: 'mobile' is not desktop, web, webgl2 or gles");
    const char *event_syntax[] = {"builtin:", "-o", dir, "--event", "walk=step", NULL};
    expect_untouched(dir, event_syntax, NULL, 1, "--event: 'walk=step' is not CLIP:TIME=NAME");
    const char *event_time[] = {"builtin:", "-o", dir, "--event", "walk:soon=step", NULL};
    expect_untouched(dir, event_time, NULL, 1, "has no time in seconds");
    const char *event_name[] = {"builtin:", "-o", dir, "--event", "walk:0.1=", NULL};
    expect_untouched(dir, event_name, NULL, 1, "is not CLIP:TIME=NAME");
    const char *event_clip[] = {"builtin:", "-o", dir, "--event", "moonwalk:0.1=step", NULL};
    expect_untouched(dir, event_clip, NULL, 2, "the bake has no clip \"moonwalk\"");
    const char *event_outside[] = {"builtin:", "-o", dir, "--event", "walk:99=step", NULL};
    expect_untouched(dir, event_outside, NULL, 2, "lies outside clip \"walk\"");
    const char *event_negative[] = {"builtin:", "-o", dir, "--event", "walk:-0.5=step", NULL};
    expect_untouched(dir, event_negative, NULL, 2, "lies outside clip");
    const char *blend_syntax[] = {"builtin:", "-o", dir, "--blend", "walk,run", NULL};
    expect_untouched(dir, blend_syntax, NULL, 1, "is not NAME=CLIP[:THRESHOLD],CLIP");
    const char *blend_one[] = {"builtin:", "-o", dir, "--blend", "b=walk", NULL};
    expect_untouched(dir, blend_one, NULL, 1, "needs 2 to 16 clip names");
    const char *blend_some[] = {"builtin:", "-o", dir, "--blend", "b=walk:1,run", NULL};
    expect_untouched(dir, blend_some, NULL, 1, "a threshold after some clips");
    const char *blend_clip[] = {"builtin:", "-o", dir, "--blend", "b=walk,moonwalk", NULL};
    expect_untouched(dir, blend_clip, NULL, 2, "the bake has no clip \"moonwalk\"");
    const char *blend_down[] = {"builtin:", "-o", dir, "--blend", "b=walk:2,run:1", NULL};
    expect_untouched(dir, blend_down, NULL, 2, "not above the one before");
    const char *blend_twice[] = {"builtin:",       "-o", dir, "--blend", "b=walk,run", "--blend",
                                 "b=idle:0,run:1", NULL};
    expect_untouched(dir, blend_twice, NULL, 2, "another blend of the bake has that name");
    const char *root_mode[] = {"builtin:", "-o", dir, "--root-motion", "sideways", NULL};
    expect_untouched(dir, root_mode, NULL, 1, "--root-motion: 'sideways' is not keep or extract");
    const char *root_joint[] = {"builtin:", "-o",           dir,    "--root-motion",
                                "extract",  "--root-joint", "tail", NULL};
    expect_untouched(dir, root_joint, NULL, 2, "root joint 'tail' is not a joint of the model");

    const char *greenman = check_shared_model("greenman.glb");
    const char *sword_path = check_shared_model("greenman_sword.glb");
    if (greenman != NULL && sword_path != NULL) {
        char model[1024], attach[1100], sword[1024];
        snprintf(model, sizeof model, "%s", greenman);
        snprintf(sword, sizeof sword, "%s", sword_path);
        snprintf(attach, sizeof attach, "socket_tail=%s", sword);
        const char *socket[] = {model, "-o", dir, "--attach", attach, NULL};
        expect_untouched(dir, socket, NULL, 2, "no socket named 'socket_tail'");

        /* A model with no animation bakes its rest pose, and says so. */
        char still[512];
        snprintf(still, sizeof still, "%s/still", root);
        const char *rest[] = {sword, "-o", still, NULL};
        run_bake(rest, NULL, &run);
        printf("  no animation: exit %d: %s", run.exit_code, run.err);
        CHECK(run.exit_code == 0);
        CHECK(strstr(run.err, "no animation") != NULL);
        crowd_bake *bake = NULL;
        crowd_error error = {0};
        if (crowd_bake_load(still, NULL, &bake, &error) == CROWD_OK) {
            CHECK(bake->clip_count == 1 && bake->frame_count == 1);
            CHECK(strcmp(bake->clips[0].name, "rest") == 0);
            crowd_asset *asset = load_case(&(model_case){"sword", sword, NULL, NULL});
            if (asset != NULL) {
                compare_with_cpu(bake, asset, &(tolerances){2e-5, 1.0, 1e-6}, "sword rest pose");
            }
            crowd_asset_destroy(asset);
            crowd_bake_destroy(bake);
        } else {
            CHECK_MSG(false, "rest-pose load: %s", error.reason);
        }
        test_remove_tree(still);
    }

    /* A full disk: every file may grow to 64 KiB only. */
    const char *robot = check_shared_model("robot.glb");
    const char *big_model = robot != NULL ? robot : "builtin:";
    char model[1024];
    snprintf(model, sizeof model, "%s", big_model);
    const char *full[] = {model, "-o", dir, "--quiet", NULL};
    cli_limits small = {.file_size_bytes = 64 * 1024};
    expect_untouched(dir, full, &small, 4, "");

    /* An output path that is a file, and a folder the baker may not write. */
    const char *onto_file[] = {"builtin:", "-o", keep, "--quiet", NULL};
    expect_untouched(dir, onto_file, NULL, 4, "keep.txt");
    chmod(dir, 0555);
    const char *read_only[] = {"builtin:", "-o", dir, "--quiet", NULL};
    cli_limits nobody = {.unprivileged = true};
    expect_untouched(dir, read_only, &nobody, 4, "guarded");
    chmod(dir, 0755);
    test_remove_tree(dir);
    unlink(bad_model);
    return 0;
}

/* Groups (argv[1]), so ctest -j spreads the bakes: "model:LABEL" for one
 * real character (robot, greenman+sword, RiggedFigure, builtin, Testwuson,
 * BCN_Epileptic), "options", "wrapping", "lods", "bad"; no group runs all. */
int main(int argc, char **argv) {
    const char *group = argc > 1 ? argv[1] : NULL;
    check_enter_temp_dir("test_bake_cli");
    /* The test depends on the CLI target: without it the build is broken. */
    if (!check_path_exists(CROWD_CLI)) {
        fprintf(stderr, "FAIL: %s not built\n", CROWD_CLI);
        return 1;
    }
    char here[380];
    if (getcwd(here, sizeof here) == NULL) {
        perror("getcwd");
        return 1;
    }
    snprintf(root, sizeof root, "%s/bakes", here);
    /* The unprivileged run must reach the folders inside. */
    if (mkdir(root, 0755) != 0 || chmod(here, 0755) != 0 || chmod(root, 0755) != 0) {
        perror(root);
        return 1;
    }
    bool all = group == NULL;
    if (all || strncmp(group, "model:", 6) == 0) {
        test_models(all ? NULL : group + 6);
    }
    if (all || strcmp(group, "options") == 0) {
        test_options();
    }
    if (all || strcmp(group, "wrapping") == 0) {
        test_wrapping_and_limit();
    }
    if (all || strcmp(group, "lods") == 0) {
        test_lods_and_targets();
    }
    if (all || strcmp(group, "bad") == 0) {
        test_bad_inputs();
    }
    return check_finish();
}
