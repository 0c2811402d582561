/* The independent check of the whole pose pipeline on real glTF files:
 * for every clip at several times, crowd's skinned positions
 * (crowd_import_file + crowd_anim_sample / local_to_model / skin_matrices +
 * crowd_skin_reference) must equal what the glTF 2.0 specification
 * prescribes, computed here by gltf_reader.c and gltf_skinner.c straight
 * from the file's accessors, without assimp or crowd's importer, in double
 * precision. Tolerance: 1e-5 of the bounds diagonal.
 *
 * assimp reorders and splits vertices, so each crowd vertex is matched to
 * the glTF vertices with the same bind position (where the file's rest pose
 * puts them: crowd's bind mesh is its rest pose wherever a joint's rest
 * transform is its bind transform, as in all these files; the raw POSITION
 * differs where a file bakes a placement into its inverse bind matrices,
 * as RiggedFigure and simple_skin do) and,
 * where several share it, the same sorted weights; it must then agree with
 * one of them at every time. Every glTF vertex that a triangle uses must be
 * matched by some crowd vertex. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/anim.h"
#include "crowd/import.h"
#include "crowd/skin.h"
#include "gltf_reader.h"
#include "gltf_skinner.h"
#include "synthetic_glb.h"

enum { MAX_CANDIDATES = 64, TIMES_PER_CLIP = 8, KEY_TIMES_PER_CLIP = 12 };

/* One primitive of one mesh node of the scene, and where its vertices start
 * in the flat reference arrays. */
typedef struct instance {
    int node, primitive;
    uint32_t first, count;
} instance;

typedef struct reference {
    gltf_file *file;
    int instance_count;
    instance *instances;
    uint32_t vertex_count;
    double *bind_keys; /* 3 per vertex: what crowd's bind position should be */
    double *weights;   /* 4 per vertex, normalized and sorted descending */
    uint8_t *referenced;
    double *scratch; /* 3 per vertex */
    double *globals; /* 16 per node */
    uint32_t *by_x;  /* vertices sorted by bind_keys x */
} reference;

static const double *sort_keys;
static int compare_x(const void *a, const void *b) {
    double xa = sort_keys[3 * *(const uint32_t *)a], xb = sort_keys[3 * *(const uint32_t *)b];
    return xa < xb ? -1 : xa > xb;
}

static void sort_desc4(double *w) {
    for (int i = 0; i < 4; i++) {
        for (int j = i + 1; j < 4; j++) {
            if (w[j] > w[i]) {
                double t = w[i];
                w[i] = w[j];
                w[j] = t;
            }
        }
    }
}

static void reference_free(reference *ref) {
    gltf_free(ref->file);
    free(ref->instances);
    free(ref->bind_keys);
    free(ref->weights);
    free(ref->referenced);
    free(ref->scratch);
    free(ref->globals);
    free(ref->by_x);
}

/* Positions of every reference vertex for `animation` at `time_s` (NULL:
 * rest) into ref->scratch. */
static void reference_pose(reference *ref, const gltf_animation *animation, double time_s) {
    gltf_globals(ref->file, animation, time_s, ref->globals);
    for (int i = 0; i < ref->instance_count; i++) {
        const instance *in = &ref->instances[i];
        gltf_vertices(ref->file, ref->globals, in->node, in->primitive,
                      ref->scratch + 3 * in->first);
    }
}

static int reference_build(reference *ref, const char *path) {
    char reason[512];
    memset(ref, 0, sizeof *ref);
    ref->file = gltf_read_file(path, reason, sizeof reason);
    if (ref->file == NULL) {
        fprintf(stderr, "%s: reference reader: %s\n", path, reason);
        return 0;
    }
    gltf_file *f = ref->file;
    int total_primitives = 0;
    for (int m = 0; m < f->mesh_count; m++) {
        total_primitives += f->meshes[m].primitive_count;
    }
    ref->instances =
        calloc((size_t)f->node_count * (size_t)total_primitives + 1, sizeof *ref->instances);
    for (int o = 0; o < f->order_count; o++) {
        const gltf_node *node = &f->nodes[f->order[o]];
        for (int p = 0; node->mesh >= 0 && p < f->meshes[node->mesh].primitive_count; p++) {
            instance *in = &ref->instances[ref->instance_count++];
            in->node = f->order[o];
            in->primitive = p;
            in->first = ref->vertex_count;
            in->count = f->meshes[node->mesh].primitives[p].vertex_count;
            ref->vertex_count += in->count;
        }
    }
    size_t v = ref->vertex_count;
    ref->bind_keys = calloc(3 * v + 1, sizeof(double));
    ref->weights = calloc(4 * v + 1, sizeof(double));
    ref->referenced = calloc(v + 1, 1);
    ref->scratch = calloc(3 * v + 1, sizeof(double));
    ref->globals = calloc(16 * (size_t)f->node_count + 1, sizeof(double));
    ref->by_x = calloc(v + 1, sizeof(uint32_t));
    reference_pose(ref, NULL, 0);
    for (int i = 0; i < ref->instance_count; i++) {
        const instance *in = &ref->instances[i];
        const gltf_node *node = &f->nodes[in->node];
        const gltf_primitive *prim = &f->meshes[node->mesh].primitives[in->primitive];
        int skinned = node->skin >= 0 && prim->joints != NULL;
        for (uint32_t k = 0; k < in->count; k++) {
            uint32_t r = in->first + k;
            double *w = ref->weights + 4 * r;
            double total = 0;
            for (int c = 0; skinned && c < 4; c++) {
                total += prim->weights[4 * k + c];
            }
            if (skinned && total > 0) {
                for (int c = 0; c < 4; c++) {
                    w[c] = prim->weights[4 * k + c] / total;
                }
            } else {
                w[0] = 1;
            }
            memcpy(ref->bind_keys + 3 * r, ref->scratch + 3 * r, 3 * sizeof(double));
            sort_desc4(w);
            ref->referenced[r] = prim->referenced[k];
            ref->by_x[r] = r;
        }
    }
    sort_keys = ref->bind_keys;
    qsort(ref->by_x, v, sizeof *ref->by_x, compare_x);
    return 1;
}

static double diagonal(const double *positions, uint32_t count) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < count; v++) {
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], positions[3 * v + a]);
            hi[a] = fmax(hi[a], positions[3 * v + a]);
        }
    }
    double d = 0;
    for (int a = 0; a < 3; a++) {
        d += (hi[a] - lo[a]) * (hi[a] - lo[a]);
    }
    return sqrt(d);
}

/* For each crowd vertex, the reference vertices it may be (count in
 * counts[v], indices in candidates[MAX_CANDIDATES * v]). Returns the number
 * of crowd vertices with no candidate. */
static uint32_t match_vertices(const reference *ref, const crowd_mesh *mesh, double tolerance,
                               uint32_t *candidates, uint8_t *counts, uint32_t *weight_mismatches,
                               uint32_t *uncovered) {
    uint8_t *covered = calloc(ref->vertex_count + 1, 1);
    uint32_t unmatched = 0;
    *weight_mismatches = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        const float *p = mesh->positions + 3 * v;
        double w[4];
        for (int c = 0; c < 4; c++) {
            w[c] = mesh->weights[4 * v + c];
        }
        sort_desc4(w);
        /* binary search for the first key with x >= p.x - tolerance */
        uint32_t lo = 0, hi = ref->vertex_count;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (ref->bind_keys[3 * ref->by_x[mid]] < p[0] - tolerance) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        uint32_t near[MAX_CANDIDATES], near_count = 0, same_weights[MAX_CANDIDATES], same_count = 0;
        for (uint32_t i = lo; i < ref->vertex_count; i++) {
            uint32_t r = ref->by_x[i];
            const double *k = ref->bind_keys + 3 * r;
            if (k[0] > p[0] + tolerance) {
                break;
            }
            if (fabs(k[1] - p[1]) > tolerance || fabs(k[2] - p[2]) > tolerance) {
                continue;
            }
            if (near_count < MAX_CANDIDATES) {
                near[near_count++] = r;
            }
            double dw = 0;
            for (int c = 0; c < 4; c++) {
                dw = fmax(dw, fabs(ref->weights[4 * r + c] - w[c]));
            }
            if (dw <= 1e-3) {
                /* Every vertex this one can stand for is covered, also past
                 * the candidates kept (a fan's centre is often repeated). */
                covered[r] = 1;
                if (same_count < MAX_CANDIDATES) {
                    same_weights[same_count++] = r;
                }
            }
        }
        const uint32_t *chosen = same_count > 0 ? same_weights : near;
        uint32_t chosen_count = same_count > 0 ? same_count : near_count;
        if (same_count == 0 && near_count > 0) {
            (*weight_mismatches)++;
        }
        if (chosen_count == 0) {
            unmatched++;
        }
        counts[v] = (uint8_t)chosen_count;
        for (uint32_t i = 0; i < chosen_count; i++) {
            candidates[MAX_CANDIDATES * v + i] = chosen[i];
            covered[chosen[i]] = 1;
        }
    }
    *uncovered = 0;
    for (uint32_t r = 0; r < ref->vertex_count; r++) {
        if (ref->referenced[r] && !covered[r] && (*uncovered)++ < 5) {
            const double *k = ref->bind_keys + 3 * r;
            printf("  uncovered glTF vertex %u: bind (%.6g, %.6g, %.6g), weights %.3g %.3g %.3g "
                   "%.3g\n",
                   r, k[0], k[1], k[2], ref->weights[4 * r], ref->weights[4 * r + 1],
                   ref->weights[4 * r + 2], ref->weights[4 * r + 3]);
        }
    }
    free(covered);
    return unmatched;
}

/* Largest distance between crowd's positions and the nearest candidate. */
static double pose_error(const reference *ref, const float *positions, uint32_t vertex_count,
                         const uint32_t *candidates, const uint8_t *counts,
                         uint32_t *worst_vertex) {
    double worst = 0;
    for (uint32_t v = 0; v < vertex_count; v++) {
        double best = INFINITY;
        for (uint32_t i = 0; i < counts[v]; i++) {
            const double *e = ref->scratch + 3 * candidates[MAX_CANDIDATES * v + i];
            double d = 0;
            for (int a = 0; a < 3; a++) {
                d = fmax(d, fabs(positions[3 * v + a] - e[a]));
            }
            best = fmin(best, d);
        }
        if (counts[v] > 0 && best > worst) {
            worst = best;
            *worst_vertex = v;
        }
    }
    return worst;
}

/* The glTF animation that crowd clip `c` came from: by name when the file
 * names its animations, else by position. */
static int animation_of_clip(const reference *ref, const crowd_asset *asset, uint32_t c) {
    for (int a = 0; a < ref->file->animation_count; a++) {
        if (ref->file->animations[a].name[0] != '\0' &&
            strcmp(ref->file->animations[a].name, asset->clips[c].name) == 0) {
            return a;
        }
    }
    return (uint32_t)ref->file->animation_count == asset->clip_count ? (int)c : -1;
}

/* Times to compare a clip at: spread over [0, duration) off the key grid,
 * plus up to KEY_TIMES_PER_CLIP key times exactly (where STEP keys switch),
 * plus the very end for one-shot clips (a looping clip wraps there). */
static int clip_times(const gltf_animation *animation, double duration, bool loop, float *times) {
    int count = 0;
    for (int k = 0; k < TIMES_PER_CLIP; k++) {
        times[count++] = (float)(duration * (k + 0.37) / TIMES_PER_CLIP);
    }
    if (!loop) {
        times[count - 1] = (float)duration;
    }
    uint32_t keys = 0;
    for (int c = 0; c < animation->channel_count; c++) {
        keys += animation->channels[c].key_count;
    }
    uint32_t step = keys / KEY_TIMES_PER_CLIP + 1, seen = 0;
    for (int c = 0; c < animation->channel_count; c++) {
        for (uint32_t k = 0; k < animation->channels[c].key_count; k++, seen++) {
            double t = animation->channels[c].times[k];
            if (seen % step == 0 && count < TIMES_PER_CLIP + KEY_TIMES_PER_CLIP &&
                (t < duration || !loop)) {
                times[count++] = (float)t;
            }
        }
    }
    return count;
}

/* Number of STEP / CUBICSPLINE channels of `animation` whose crowd track
 * came back with another interpolation (found by node name). assimp 5.2's
 * aiNodeAnim has no interpolation mode (it keeps the values of cubic keys,
 * drops their tangents and reads STEP as linear), so the importer reads the
 * samplers from the file itself; a lost mode is a failure. */
static int interpolation_lost(const reference *ref, const gltf_animation *animation,
                              const crowd_asset *asset, const crowd_clip *clip) {
    int lost = 0;
    for (int c = 0; c < animation->channel_count; c++) {
        const gltf_channel *ch = &animation->channels[c];
        if (ch->interpolation == GLTF_LINEAR) {
            continue;
        }
        int32_t j = crowd_asset_find_joint(asset, ref->file->nodes[ch->node].name);
        if (j < 0) {
            continue;
        }
        const crowd_joint_tracks *tracks = &clip->tracks[j];
        const crowd_track *track = ch->path == GLTF_TRANSLATION ? &tracks->translation
                                   : ch->path == GLTF_ROTATION  ? &tracks->rotation
                                                                : &tracks->scale;
        crowd_interpolation expected =
            ch->interpolation == GLTF_STEP ? CROWD_INTERP_STEP : CROWD_INTERP_CUBIC;
        lost += track->interpolation != expected;
    }
    return lost;
}

/* What comparing one clip needs: the matched crowd asset and reference,
 * scratch arrays, the tolerance. */
typedef struct comparison {
    const char *path;
    reference *ref;
    const crowd_asset *asset;
    const uint32_t *candidates;
    const uint8_t *counts;
    double diagonal, tolerance;
    crowd_transform *pose, *pose_cursor;
    float *models, *skin, *positions;
    uint32_t *hints;
} comparison;

/* Skinned positions of the crowd asset for local pose cmp->pose. */
static void crowd_positions(comparison *cmp) {
    const crowd_skeleton *skeleton = &cmp->asset->skeleton;
    crowd_anim_local_to_model(skeleton, cmp->pose, cmp->models);
    crowd_anim_skin_matrices(skeleton, cmp->models, NULL, cmp->skin);
    crowd_skin_reference(&cmp->asset->mesh, cmp->skin, cmp->positions, NULL, NULL);
}

static void compare_clip(comparison *cmp, const gltf_animation *animation, const crowd_clip *clip,
                         const char *label) {
    const crowd_skeleton *skeleton = &cmp->asset->skeleton;
    double duration = gltf_animation_duration(animation);
    CHECK_MSG(fabs(clip->duration_s - duration) <= 1e-4 * fmax(1, duration),
              "%s %s: duration %g, file says %g", cmp->path, label, clip->duration_s, duration);
    crowd_anim_cursor cursor = {0};
    cursor.keys = cmp->hints;
    cursor.key_count = crowd_anim_cursor_size(skeleton);
    crowd_anim_cursor_reset(&cursor);
    double worst = 0;
    float worst_time = 0;
    uint32_t worst_vertex = 0;
    int cursor_differs = 0;
    float times[TIMES_PER_CLIP + KEY_TIMES_PER_CLIP];
    int time_count = clip_times(animation, duration, clip->loop, times);
    for (int k = 0; k < time_count; k++) {
        float t = times[k];
        reference_pose(cmp->ref, animation, t);
        crowd_anim_sample(skeleton, clip, t, &cursor, cmp->pose_cursor);
        crowd_anim_sample(skeleton, clip, t, NULL, cmp->pose);
        cursor_differs +=
            memcmp(cmp->pose, cmp->pose_cursor, skeleton->joint_count * sizeof *cmp->pose) != 0;
        crowd_positions(cmp);
        double e = pose_error(cmp->ref, cmp->positions, cmp->asset->mesh.vertex_count,
                              cmp->candidates, cmp->counts, &worst_vertex);
        CHECK_MSG(e <= cmp->tolerance, "%s %s t=%g: error %g > %g at crowd vertex %u", cmp->path,
                  label, (double)t, e, cmp->tolerance, worst_vertex);
        if (e >= worst) {
            worst = e;
            worst_time = t;
        }
    }
    CHECK_MSG(cursor_differs == 0, "%s %s: %d poses sampled with a cursor differ", cmp->path, label,
              cursor_differs);
    printf("  %-24s max error %.3g (%.2g of diagonal) at t=%.3f over %d times\n", label, worst,
           worst / cmp->diagonal, (double)worst_time, time_count);
}

static void free_clip(crowd_clip *clip, uint32_t joint_count) {
    for (uint32_t j = 0; j < joint_count; j++) {
        free(clip->tracks[j].translation.times_s);
        free(clip->tracks[j].translation.values);
        free(clip->tracks[j].rotation.times_s);
        free(clip->tracks[j].rotation.values);
        free(clip->tracks[j].scale.times_s);
        free(clip->tracks[j].scale.values);
    }
    free(clip->tracks);
    free(clip);
}

/* A crowd clip holding the file's keys exactly as the reference read them,
 * interpolation modes included, for the joints found by node name; NULL if
 * a channel's node is not a crowd joint. Released with free_clip. */
static crowd_clip *clip_from_reference(const reference *ref, const gltf_animation *animation,
                                       const crowd_asset *asset) {
    uint32_t joint_count = asset->skeleton.joint_count;
    crowd_clip *clip = calloc(1, sizeof *clip);
    clip->tracks = calloc(joint_count, sizeof *clip->tracks);
    clip->duration_s = (float)gltf_animation_duration(animation);
    clip->loop = false;
    clip->name = "keys as in the file";
    for (int c = 0; c < animation->channel_count; c++) {
        const gltf_channel *ch = &animation->channels[c];
        int32_t j = crowd_asset_find_joint(asset, ref->file->nodes[ch->node].name);
        if (j < 0) {
            free_clip(clip, joint_count);
            return NULL;
        }
        crowd_joint_tracks *tracks = &clip->tracks[j];
        crowd_track *track = ch->path == GLTF_TRANSLATION ? &tracks->translation
                             : ch->path == GLTF_ROTATION  ? &tracks->rotation
                                                          : &tracks->scale;
        size_t per_key =
            (ch->path == GLTF_ROTATION ? 4u : 3u) * (ch->interpolation == GLTF_CUBIC ? 3u : 1u);
        track->key_count = ch->key_count;
        track->interpolation = ch->interpolation == GLTF_STEP    ? CROWD_INTERP_STEP
                               : ch->interpolation == GLTF_CUBIC ? CROWD_INTERP_CUBIC
                                                                 : CROWD_INTERP_LINEAR;
        track->times_s = malloc(ch->key_count * sizeof(float));
        track->values = malloc(ch->key_count * per_key * sizeof(float));
        for (uint32_t k = 0; k < ch->key_count; k++) {
            track->times_s[k] = (float)ch->times[k];
        }
        for (size_t i = 0; i < ch->key_count * per_key; i++) {
            track->values[i] = (float)ch->values[i];
        }
    }
    return clip;
}

static void check_model(const char *path) {
    if (path == NULL) {
        return;
    }
    reference ref;
    if (!reference_build(&ref, path)) {
        CHECK_MSG(0, "%s: the reference could not read the file", path);
        reference_free(&ref);
        return;
    }
    crowd_asset *asset = NULL;
    crowd_error error;
    crowd_result result = crowd_import_file(path, NULL, &asset, &error);
    CHECK_MSG(result == CROWD_OK, "%s: import: %s", path, error.reason);
    if (result != CROWD_OK) {
        reference_free(&ref);
        return;
    }
    reference_pose(&ref, NULL, 0);
    const crowd_mesh *mesh = &asset->mesh;
    const crowd_skeleton *skeleton = &asset->skeleton;
    comparison cmp = {0};
    cmp.path = path;
    cmp.ref = &ref;
    cmp.asset = asset;
    cmp.diagonal = diagonal(ref.scratch, ref.vertex_count);
    cmp.tolerance = 1e-5 * cmp.diagonal;
    uint32_t *candidates =
        calloc((size_t)mesh->vertex_count * MAX_CANDIDATES + 1, sizeof *candidates);
    uint8_t *counts = calloc(mesh->vertex_count + 1u, 1);
    cmp.candidates = candidates;
    cmp.counts = counts;
    uint32_t weight_mismatches = 0, uncovered = 0;
    uint32_t unmatched = match_vertices(&ref, mesh, 1e-6 * cmp.diagonal + 1e-6, candidates, counts,
                                        &weight_mismatches, &uncovered);
    printf("%s: %u crowd vertices, %u glTF vertices, %u joints, %u clips, diagonal %.4g\n", path,
           mesh->vertex_count, ref.vertex_count, skeleton->joint_count, asset->clip_count,
           cmp.diagonal);
    printf("  matching: %u unmatched, %u matched by position only (weights differ), %u used glTF "
           "vertices uncovered\n",
           unmatched, weight_mismatches, uncovered);
    CHECK_MSG(unmatched == 0, "%s: %u crowd vertices have no glTF vertex at their bind position",
              path, unmatched);
    CHECK_MSG(uncovered == 0, "%s: %u glTF vertices have no crowd vertex", path, uncovered);
    CHECK_MSG(weight_mismatches == 0, "%s: %u vertices' weights differ from the file's", path,
              weight_mismatches);

    cmp.pose = malloc(skeleton->joint_count * sizeof *cmp.pose);
    cmp.pose_cursor = malloc(skeleton->joint_count * sizeof *cmp.pose_cursor);
    cmp.models = malloc(16 * sizeof(float) * skeleton->joint_count);
    cmp.skin = malloc(12 * sizeof(float) * skeleton->joint_count);
    cmp.positions = malloc(3 * sizeof(float) * mesh->vertex_count + 1);
    cmp.hints = malloc(crowd_anim_cursor_size(skeleton) * sizeof *cmp.hints);

    /* The rest pose: nodes at their own TRS. */
    uint32_t worst_vertex = 0;
    crowd_anim_rest_pose(skeleton, cmp.pose);
    crowd_positions(&cmp);
    double rest_error =
        pose_error(&ref, cmp.positions, mesh->vertex_count, candidates, counts, &worst_vertex);
    printf("  %-24s max error %.3g (%.2g of diagonal)\n", "rest pose", rest_error,
           rest_error / cmp.diagonal);
    CHECK_MSG(rest_error <= cmp.tolerance, "%s rest pose: error %g > %g at vertex %u", path,
              rest_error, cmp.tolerance, worst_vertex);

    CHECK_MSG((int)asset->clip_count == ref.file->animation_count, "%s: %u clips, %d animations",
              path, asset->clip_count, ref.file->animation_count);
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        const crowd_clip *clip = &asset->clips[c];
        int a = animation_of_clip(&ref, asset, c);
        CHECK_MSG(a >= 0, "%s: clip %s has no glTF animation", path, clip->name);
        if (a < 0) {
            continue;
        }
        const gltf_animation *animation = &ref.file->animations[a];
        int lost = interpolation_lost(&ref, animation, asset, clip);
        if (lost == 0) {
            compare_clip(&cmp, animation, clip, clip->name);
            continue;
        }
        CHECK_MSG(lost == 0,
                  "%s %s: the importer turned %d STEP/CUBICSPLINE channels into linear ones", path,
                  clip->name, lost);
        /* Tells the importer's fault from the sampler's: crowd's sampler is
         * still held to the specification with the keys as the file has them. */
        crowd_clip *exact = clip_from_reference(&ref, animation, asset);
        CHECK_MSG(exact != NULL, "%s %s: animated node without a crowd joint", path, clip->name);
        if (exact != NULL) {
            compare_clip(&cmp, animation, exact, exact->name);
            free_clip(exact, skeleton->joint_count);
        }
    }
    free(cmp.pose);
    free(cmp.pose_cursor);
    free(cmp.models);
    free(cmp.skin);
    free(cmp.positions);
    free(cmp.hints);
    free(candidates);
    free(counts);
    crowd_asset_destroy(asset);
    reference_free(&ref);
}

int main(void) {
    check_enter_temp_dir("test_gltf_reference");
    /* Written into the test's own folder (check_enter_temp_dir). */
    const char *synthetic = "synthetic_every_interpolation.glb";
    CHECK(synthetic_glb_write(synthetic));
    check_model(synthetic);
    check_model(check_assimp_model("glTF2/simple_skin/simple_skin.gltf"));
    check_model(check_shared_model("RiggedFigure.glb"));
    check_model(check_shared_model("greenman.glb"));
    check_model(check_shared_model("robot.glb"));
    return check_finish();
}
