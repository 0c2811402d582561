/* test_bake_lod - the LODs and the per-clip animated bounds of
 * crowd_bake_build: golden error and bounds on a tent worked out on paper,
 * a skinned tube whose LOD errors are checked against a brute-force
 * distance computed independently here (and whose first LOD keeps the
 * bend), the structure, budgets and bounds of builtin:'s LODs, where
 * separate pieces meet (crowd__bake_lod_contacts), meshes that cannot be
 * simplified, and the desc checks (lods, max_texture_size). */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "bake/bake_lod.h"
#include "bake_test_asset.h"
#include "check.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"

typedef struct log_capture {
    char text[2048];
} log_capture;

static void capture_log(void *user, crowd_log_level level, const char *message) {
    log_capture *capture = user;
    if (level == CROWD_LOG_WARNING) {
        strncat(capture->text, message, sizeof capture->text - strlen(capture->text) - 1);
    }
}

static crowd_bake *bake_or_null(const crowd_asset *asset, const crowd_bake_desc *desc) {
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    if (crowd_bake_build(asset, desc, &bake, &error) != CROWD_OK) {
        fprintf(stderr, "bake failed: %s: %s\n", error.file, error.reason);
    }
    return bake;
}

static double diagonal_of(const crowd_bake *bake) {
    double sum = 0.0;
    for (int a = 0; a < 3; a++) {
        double d = (double)bake->bounds_max[a] - bake->bounds_min[a];
        sum += d * d;
    }
    return sqrt(sum);
}

/* ---- independent distance: plane, then edges ------------------------------- */

static double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double segment_distance(const double p[3], const double a[3], const double b[3]) {
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double length2 = dot3(ab, ab);
    double t = length2 > 0.0 ? dot3(ap, ab) / length2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    double d[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
    return sqrt(dot3(d, d));
}

/* Distance from p to triangle abc: to its plane when p projects inside
 * (same side of all three edges), else to the nearest edge. */
static double triangle_distance(const double p[3], const double a[3], const double b[3],
                                const double c[3]) {
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2],
                   ab[0] * ac[1] - ab[1] * ac[0]};
    double n2 = dot3(n, n);
    if (n2 > 0.0) {
        const double *corners[3] = {a, b, c};
        bool inside = true;
        for (int k = 0; k < 3 && inside; k++) {
            const double *u = corners[k], *v = corners[(k + 1) % 3];
            double edge[3] = {v[0] - u[0], v[1] - u[1], v[2] - u[2]};
            double up[3] = {p[0] - u[0], p[1] - u[1], p[2] - u[2]};
            double cross[3] = {edge[1] * up[2] - edge[2] * up[1], edge[2] * up[0] - edge[0] * up[2],
                               edge[0] * up[1] - edge[1] * up[0]};
            inside = dot3(cross, n) >= 0.0;
        }
        if (inside) {
            double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
            return fabs(dot3(ap, n)) / sqrt(n2);
        }
    }
    double d = segment_distance(p, a, b);
    d = fmin(d, segment_distance(p, b, c));
    return fmin(d, segment_distance(p, c, a));
}

/* Largest distance of a LOD0 vertex from LOD k's triangles over every
 * frame, by trying every triangle. */
static double brute_force_error(const crowd_bake *bake, uint32_t k) {
    const crowd_bake_lod *lod = &bake->lods[k];
    double *positions = malloc(3 * (size_t)bake->vertex_count * sizeof *positions);
    double worst = 0.0;
    for (uint32_t f = 0; f < bake->frame_count; f++) {
        for (uint32_t v = 0; v < bake->vertex_count; v++) {
            float p[3];
            crowd_bake_vat_fetch(bake, f, v, p, NULL);
            for (int a = 0; a < 3; a++) {
                positions[3 * v + (uint32_t)a] = p[a];
            }
        }
        for (uint32_t v = 0; v < bake->vertex_count; v++) {
            double nearest = INFINITY;
            for (uint32_t t = 0; t < lod->triangle_count; t++) {
                const uint32_t *tri = bake->lod_indices + lod->first_index + 3 * t;
                const uint32_t *from = bake->lod_vertices + lod->first_vertex;
                nearest =
                    fmin(nearest, triangle_distance(positions + 3 * v, positions + 3 * from[tri[0]],
                                                    positions + 3 * from[tri[1]],
                                                    positions + 3 * from[tri[2]]));
            }
            worst = fmax(worst, nearest);
        }
    }
    free(positions);
    return worst;
}

/* ---- the tent: golden error and bounds -------------------------------------- */

/* Four corners (+-1, 0, +-1) on joint 0 and an apex (0, 1, 0) on joint 1,
 * four triangles; clip "lift" (one-shot, 1/30 s: 2 frames) raises joint 1
 * from y = 1 to y = 1.5. The LOD of the two triangles over the corners is
 * off by the apex's height: 1.5 at frame 1. */
static crowd_asset *tent_asset(void) {
    crowd_asset *asset = test_asset_create(2, 5);
    crowd_mesh *mesh = &asset->mesh;
    const float positions[15] = {-1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1, 0, 1, 0};
    memcpy(mesh->positions, positions, sizeof positions);
    for (uint32_t v = 0; v < 5; v++) {
        mesh->joints[4 * v] = v == 4 ? 1 : 0;
    }
    const uint32_t indices[12] = {0, 4, 1, 1, 4, 2, 2, 4, 3, 3, 4, 0};
    free(mesh->indices);
    mesh->indices = malloc(sizeof indices);
    memcpy(mesh->indices, indices, sizeof indices);
    mesh->index_count = 12;
    mesh->submeshes[0].index_count = 12;
    crowd_clip *clip = test_asset_add_clip(asset, "lift", 1.0f / 30.0f, false);
    const float times[2] = {0.0f, 1.0f / 30.0f}, values[6] = {0, 1, 0, 0, 1.5f, 0};
    test_track_set(&clip->tracks[1].translation, 2, 3, times, values);
    return asset;
}

static void test_tent(void) {
    crowd_asset *asset = tent_asset();
    crowd_bake_desc desc = {.vat_encoding = CROWD_VAT_F32, .lods = -1};
    crowd_bake *bake = bake_or_null(asset, &desc);
    REQUIRE_VOID(bake != NULL);
    CHECK(bake->lod_count == 1 && bake->lod_vertices == NULL);
    CHECK(bake->frame_count == 2);

    /* bounds: the box of corners and raised apex, centred sphere through a corner */
    const crowd_bake_clip *clip = &bake->clips[0];
    const float min[3] = {-1, 0, -1}, max[3] = {1, 1.5f, 1}, centre[3] = {0, 0.75f, 0};
    for (int a = 0; a < 3; a++) {
        CHECK(clip->bounds_min[a] == min[a] && clip->bounds_max[a] == max[a]);
        CHECK(clip->sphere_center[a] == centre[a]);
    }
    double radius = sqrt(2.0 + 0.75 * 0.75);
    CHECK(clip->sphere_radius >= radius && clip->sphere_radius <= radius * (1.0 + 1e-6));

    /* the hand-made LOD: two triangles over the corners */
    bake->lod_vertices = malloc(4 * sizeof *bake->lod_vertices);
    bake->lod_indices = malloc(6 * sizeof *bake->lod_indices);
    const uint32_t vertices[4] = {0, 1, 2, 3}, indices[6] = {0, 2, 1, 0, 3, 2};
    memcpy(bake->lod_vertices, vertices, sizeof vertices);
    memcpy(bake->lod_indices, indices, sizeof indices);
    bake->lods[1] = (crowd_bake_lod){0, 6, 0, 4, 2, 0.0f, 0.0f};
    bake->lod_vertex_total = 4;
    bake->lod_index_total = 6;
    bake->lod_count = 2;
    bake_played played;
    crowd_error error = {0};
    REQUIRE_VOID(crowd__bake_played_init(bake, &played, &error) == CROWD_OK);
    CHECK(crowd__bake_measure_lods(bake, &played, 1, 2, &error) == CROWD_OK);
    crowd__bake_played_release(&played);
    printf("tent: LOD 1 error %.9g (golden 1.5), error/diag %.9g (golden %.9g)\n",
           (double)bake->lods[1].error, (double)bake->lods[1].error_rel, 1.5 / sqrt(10.25));
    CHECK_NEAR(bake->lods[1].error, 1.5, 1e-6);
    CHECK_NEAR(bake->lods[1].error_rel, 1.5 / sqrt(10.25), 1e-6);
    crowd_bake_destroy(bake);

    /* The simplifier, asked: its LOD 1 folds the apex into the square. */
    desc.lods = 0;
    bake = bake_or_null(asset, &desc);
    REQUIRE_VOID(bake != NULL);
    CHECK(bake->lod_count >= 2);
    if (bake->lod_count >= 2 && bake->lods[1].triangle_count == 2) {
        CHECK_NEAR(bake->lods[1].error, 1.5, 1e-6);
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* ---- a skinned tube, against brute force ------------------------------------- */

enum { TUBE_AROUND = 12, TUBE_RINGS = 17 };

/* An open tube of radius 0.25 from y = 0 to 2, rings 1/8 apart, joint 0 at
 * the origin and joint 1 at y = 1 blending over y in [0.75, 1.25]; clip
 * "bend" (one-shot, 0.5 s) turns joint 1 by 90 degrees about Z. */
static crowd_asset *tube_asset(void) {
    uint32_t count = TUBE_AROUND * TUBE_RINGS;
    crowd_asset *asset = test_asset_create(2, count);
    crowd_mesh *mesh = &asset->mesh;
    for (uint32_t r = 0; r < TUBE_RINGS; r++) {
        float y = (float)r / 8.0f;
        float w1 = y <= 0.75f ? 0.0f : y >= 1.25f ? 1.0f : (y - 0.75f) / 0.5f;
        for (uint32_t s = 0; s < TUBE_AROUND; s++) {
            uint32_t v = r * TUBE_AROUND + s;
            float angle = 6.2831853f * (float)s / TUBE_AROUND;
            float *p = mesh->positions + 3 * v, *n = mesh->normals + 3 * v;
            p[0] = 0.25f * cosf(angle);
            p[1] = y;
            p[2] = 0.25f * sinf(angle);
            n[0] = cosf(angle);
            n[1] = 0.0f;
            n[2] = sinf(angle);
            mesh->joints[4 * v] = 0;
            mesh->joints[4 * v + 1] = 1;
            mesh->weights[4 * v] = 1.0f - w1;
            mesh->weights[4 * v + 1] = w1;
        }
    }
    free(mesh->indices);
    mesh->index_count = 6 * TUBE_AROUND * (TUBE_RINGS - 1);
    mesh->indices = malloc(mesh->index_count * sizeof *mesh->indices);
    uint32_t *out = mesh->indices;
    for (uint32_t r = 0; r + 1 < TUBE_RINGS; r++) {
        for (uint32_t s = 0; s < TUBE_AROUND; s++) {
            uint32_t a = r * TUBE_AROUND + s, b = r * TUBE_AROUND + (s + 1) % TUBE_AROUND;
            uint32_t c = a + TUBE_AROUND, d = b + TUBE_AROUND;
            const uint32_t quad[6] = {a, c, b, b, c, d};
            memcpy(out, quad, sizeof quad);
            out += 6;
        }
    }
    mesh->submeshes[0].index_count = mesh->index_count;
    crowd_clip *clip = test_asset_add_clip(asset, "bend", 0.5f, false);
    const float times[2] = {0.0f, 0.5f};
    const float turn[8] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
    test_track_set(&clip->tracks[1].rotation, 2, 4, times, turn);
    return asset;
}

static void test_tube(void) {
    crowd_asset *asset = tube_asset();
    crowd_bake *bake = bake_or_null(
        asset, &(crowd_bake_desc){.fps = 30, .vat_encoding = CROWD_VAT_F32, .lods = 3});
    REQUIRE_VOID(bake != NULL);
    CHECK(bake->frame_count == 16);
    CHECK(bake->lod_count == 4);
    for (uint32_t k = 1; k < bake->lod_count; k++) {
        double brute = brute_force_error(bake, k);
        printf("tube: LOD %u: %u triangles, error %.9g, brute force %.9g\n", k,
               bake->lods[k].triangle_count, (double)bake->lods[k].error, brute);
        CHECK_NEAR(bake->lods[k].error, brute, 1e-6 * diagonal_of(bake));
        CHECK(bake->lods[k].triangle_count < bake->lods[k - 1].triangle_count);
    }
    CHECK(bake->lods[3].error > 0.0f);
    /* LOD 1: the straight, rigid ends lose their rings (no error), the
     * rings that blend between the joints, where the tube bends, stay */
    const crowd_bake_lod *lod1 = &bake->lods[1];
    CHECK(lod1->error_rel <= BAKE_LOD_FIRST_BUDGET);
    CHECK(2 * lod1->triangle_count <= bake->lods[0].triangle_count);
    uint8_t kept[TUBE_AROUND * TUBE_RINGS] = {0};
    for (uint32_t i = 0; i < lod1->vertex_count; i++) {
        kept[bake->lod_vertices[lod1->first_vertex + i]] = 1;
    }
    bool blend_kept = true;
    for (uint32_t v = 0; v < TUBE_AROUND * TUBE_RINGS; v++) {
        float w1 = asset->mesh.weights[4 * v + 1];
        blend_kept = blend_kept && (w1 <= 0.0f || w1 >= 1.0f || kept[v]);
    }
    CHECK_MSG(blend_kept, "tube: LOD 1 lost a vertex where the joints blend");
    /* the result does not depend on the threads */
    crowd_bake *single = bake_or_null(
        asset,
        &(crowd_bake_desc){.fps = 30, .vat_encoding = CROWD_VAT_F32, .lods = 3, .thread_count = 1});
    REQUIRE_VOID(single != NULL);
    CHECK(memcmp(single->lods, bake->lods, sizeof bake->lods) == 0);
    crowd_bake_destroy(single);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* ---- builtin: structure and bounds ------------------------------------------- */

static void check_lod_structure(const crowd_bake *bake, const char *label) {
    const crowd_mesh *mesh = &bake->asset->mesh;
    uint32_t *materials = malloc(mesh->vertex_count * sizeof *materials);
    crowd__bake_vertex_materials(mesh, materials);
    uint8_t *seen = malloc(mesh->vertex_count);
    uint32_t vertex_total = 0, index_total = 0;
    double diagonal = diagonal_of(bake);
    CHECK(bake->lods[0].index_count == mesh->index_count &&
          bake->lods[0].vertex_count == mesh->vertex_count && bake->lods[0].error == 0.0f);
    for (uint32_t k = 1; k < bake->lod_count; k++) {
        const crowd_bake_lod *lod = &bake->lods[k], *before = &bake->lods[k - 1];
        double ratio = (double)lod->triangle_count / before->triangle_count;
        printf("%s: LOD %u: %u triangles (%.3f of LOD %u), %u vertices, error %.4g, "
               "error/diag %.3g\n",
               label, k, lod->triangle_count, ratio, k - 1, lod->vertex_count, (double)lod->error,
               (double)lod->error_rel);
        CHECK_MSG(10 * (uint64_t)lod->triangle_count < 9 * (uint64_t)before->triangle_count,
                  "%s LOD %u keeps %.3f of LOD %u (at most nine tenths)", label, k, ratio, k - 1);
        CHECK(lod->index_count == 3 * lod->triangle_count);
        CHECK(lod->first_vertex == vertex_total && lod->first_index == index_total);
        vertex_total += lod->vertex_count;
        index_total += lod->index_count;
        /* every index inside its range, every vertex used, each LOD0 vertex once */
        memset(seen, 0, mesh->vertex_count);
        bool inside = true, distinct = true, grouped = true;
        uint8_t *used = calloc(lod->vertex_count, 1);
        for (uint32_t i = 0; i < lod->index_count; i++) {
            uint32_t index = bake->lod_indices[lod->first_index + i];
            inside = inside && index < lod->vertex_count;
            if (index < lod->vertex_count) {
                used[index] = 1;
            }
        }
        bool all_used = true;
        for (uint32_t i = 0; i < lod->vertex_count; i++) {
            uint32_t v = bake->lod_vertices[lod->first_vertex + i];
            all_used = all_used && used[i];
            inside = inside && v < mesh->vertex_count;
            if (v < mesh->vertex_count) {
                distinct = distinct && !seen[v];
                seen[v] = 1;
            }
        }
        /* one material's triangles together, in material order */
        uint32_t last = 0;
        for (uint32_t t = 0; inside && t < lod->triangle_count; t++) {
            uint32_t corner = bake->lod_indices[lod->first_index + 3 * t];
            uint32_t material = materials[bake->lod_vertices[lod->first_vertex + corner]];
            grouped = grouped && material >= last;
            last = material;
        }
        free(used);
        CHECK_MSG(inside && all_used && distinct && grouped,
                  "%s LOD %u: inside %d, all used %d, distinct %d, grouped %d", label, k, inside,
                  all_used, distinct, grouped);
        CHECK(lod->error > 0.0f && lod->error >= 0.9f * before->error);
        CHECK_NEAR(lod->error_rel, lod->error / diagonal, 1e-6);
    }
    CHECK(vertex_total == bake->lod_vertex_total && index_total == bake->lod_index_total);
    free(seen);
    free(materials);
}

/* Every played position of a clip's frames lies in its box and sphere, and
 * the box in the bake's (decoding may round an ulp beyond those, which the
 * float skinning gave). */
static void check_clip_bounds(const crowd_bake *bake, const char *label) {
    bool tighter = false;
    double slack = 1e-6 * diagonal_of(bake);
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        bool in_box = true, in_sphere = true, in_global = true;
        for (uint32_t k = 0; k < clip->frame_count; k++) {
            for (uint32_t v = 0; v < bake->vertex_count; v++) {
                float p[3];
                crowd_bake_vat_fetch(bake, clip->first_frame + k, v, p, NULL);
                double d2 = 0.0;
                for (int a = 0; a < 3; a++) {
                    in_box = in_box && p[a] >= clip->bounds_min[a] && p[a] <= clip->bounds_max[a];
                    double d = (double)p[a] - clip->sphere_center[a];
                    d2 += d * d;
                }
                in_sphere = in_sphere && sqrt(d2) <= clip->sphere_radius;
            }
        }
        double volume = 1.0, global = 1.0;
        for (int a = 0; a < 3; a++) {
            in_global = in_global && clip->bounds_min[a] >= bake->bounds_min[a] - slack &&
                        clip->bounds_max[a] <= bake->bounds_max[a] + slack;
            volume *= (double)clip->bounds_max[a] - clip->bounds_min[a];
            global *= (double)bake->bounds_max[a] - bake->bounds_min[a];
        }
        printf("%s: clip %-10s box volume %.3g of the bake's %.3g, sphere radius %.4g\n", label,
               clip->name, volume, global, (double)clip->sphere_radius);
        CHECK_MSG(in_box && in_sphere && in_global, "%s clip %s: box %d, sphere %d, global %d",
                  label, clip->name, in_box, in_sphere, in_global);
        tighter = tighter || volume < 0.9 * global;
    }
    CHECK_MSG(tighter, "%s: no clip's box is tighter than the bake's", label);
}

static void test_builtin(void) {
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    REQUIRE_VOID(crowd_builtin_create(&asset, &error) == CROWD_OK);
    crowd_bake *bake = bake_or_null(asset, NULL);
    REQUIRE_VOID(bake != NULL);
    CHECK(bake->lod_count == 1 + CROWD_BAKE_DEFAULT_LODS);
    check_lod_structure(bake, "builtin");
    /* every budget met (none skipped), and LOD 3 a quarter of LOD 0 at most */
    float budget = BAKE_LOD_FIRST_BUDGET;
    for (uint32_t k = 1; k < bake->lod_count; k++, budget *= BAKE_LOD_BUDGET_STEP) {
        CHECK_MSG(bake->lods[k].error_rel <= budget,
                  "builtin LOD %u: %.3g of the diagonal, over %.3g", k,
                  (double)bake->lods[k].error_rel, (double)budget);
    }
    CHECK(bake->lod_count < 4 || 4 * bake->lods[3].triangle_count <= bake->lods[0].triangle_count);
    check_clip_bounds(bake, "builtin");
    /* LOD errors of a BAT-only bake, from skinning the decoded matrices,
     * agree with the VAT's within its quantization */
    crowd_bake *bat = bake_or_null(asset, &(crowd_bake_desc){.what = CROWD_BAKE_BAT_ONLY});
    REQUIRE_VOID(bat != NULL);
    CHECK(bat->lod_count == bake->lod_count);
    for (uint32_t k = 1; k < bat->lod_count && k < bake->lod_count; k++) {
        CHECK_NEAR(bat->lods[k].error, bake->lods[k].error, 1e-4 * diagonal_of(bake));
    }
    for (uint32_t c = 0; c < bat->clip_count; c++) {
        for (int a = 0; a < 3; a++) {
            CHECK_NEAR(bat->clips[c].bounds_min[a], bake->clips[c].bounds_min[a], 1e-3);
            CHECK_NEAR(bat->clips[c].bounds_max[a], bake->clips[c].bounds_max[a], 1e-3);
        }
    }
    crowd_bake_destroy(bat);
    crowd_bake_destroy(bake);
    /* --lods 0 */
    bake = bake_or_null(asset, &(crowd_bake_desc){.lods = -1});
    REQUIRE_VOID(bake != NULL);
    CHECK(bake->lod_count == 1 && bake->lod_vertices == NULL && bake->lod_indices == NULL);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* ---- where pieces meet ------------------------------------------------------- */

/* Two squares of two triangles each, 2 x 2 around the origin: one flat in
 * y = 0, the other through the origin tilted by `degrees` about x. */
static void crossing_squares(double degrees, float positions[24], uint32_t indices[12]) {
    double c = cos(degrees * 3.14159265358979 / 180.0), s = sin(degrees * 3.14159265358979 / 180.0);
    const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; k++) {
        float x = corners[k][0], z = corners[k][1];
        float *flat = positions + 3 * k, *tilted = positions + 12 + 3 * k;
        flat[0] = x, flat[1] = 0.0f, flat[2] = z;
        tilted[0] = x, tilted[1] = (float)(z * s), tilted[2] = (float)(z * c);
    }
    const uint32_t quads[12] = {0, 2, 1, 0, 3, 2, 4, 6, 5, 4, 7, 6};
    memcpy(indices, quads, sizeof quads);
}

static void test_contacts(void) {
    float positions[24];
    uint32_t indices[12], pieces[8];
    uint8_t contact[4];
    /* 10 degrees apart they cross at a shallow angle: every triangle is
     * near the other piece within 0.5 */
    crossing_squares(10.0, positions, indices);
    REQUIRE_VOID(crowd__bake_lod_pieces(positions, 8, indices, 12, pieces));
    CHECK(pieces[0] == pieces[2] && pieces[4] == pieces[6] && pieces[0] != pieces[4]);
    REQUIRE_VOID(crowd__bake_lod_contacts(positions, 8, indices, 12, pieces, 0.5f, contact));
    printf("contacts at 10 degrees: %d %d %d %d\n", contact[0], contact[1], contact[2], contact[3]);
    CHECK(contact[0] && contact[1] && contact[2] && contact[3]);
    /* at 60 degrees the crossing does not move much when either does */
    crossing_squares(60.0, positions, indices);
    REQUIRE_VOID(crowd__bake_lod_contacts(positions, 8, indices, 12, pieces, 0.5f, contact));
    CHECK(!contact[0] && !contact[1] && !contact[2] && !contact[3]);
    /* parallel but farther apart than the reach */
    crossing_squares(0.0, positions, indices);
    for (int k = 4; k < 8; k++) {
        positions[3 * k + 1] = 0.6f;
    }
    REQUIRE_VOID(crowd__bake_lod_contacts(positions, 8, indices, 12, pieces, 0.5f, contact));
    CHECK(!contact[0] && !contact[1] && !contact[2] && !contact[3]);
    /* one piece alone has no contacts, however close its triangles */
    REQUIRE_VOID(crowd__bake_lod_pieces(positions, 4, indices, 6, pieces));
    REQUIRE_VOID(crowd__bake_lod_contacts(positions, 4, indices, 6, pieces, 10.0f, contact));
    CHECK(!contact[0] && !contact[1]);
}

/* ---- meshes that cannot be simplified --------------------------------------- */

static void test_unsimplifiable(void) {
    /* one triangle */
    crowd_asset *asset = test_asset_create(1, 3);
    log_capture capture = {{0}};
    crowd_bake_desc desc = {.logger = {.fn = capture_log, .user = &capture}};
    crowd_bake *bake = bake_or_null(asset, &desc);
    REQUIRE_VOID(bake != NULL);
    printf("one triangle: %s\n", capture.text);
    CHECK(bake->lod_count == 1 && bake->lods[0].triangle_count == 1);
    CHECK(strstr(capture.text, "LOD 1 not made") != NULL);
    crowd_bake_destroy(bake);

    /* no triangles: a point cloud */
    asset->mesh.index_count = 0;
    asset->mesh.submeshes[0].index_count = 0;
    capture.text[0] = '\0';
    bake = bake_or_null(asset, &desc);
    REQUIRE_VOID(bake != NULL);
    printf("no triangles: %s\n", capture.text);
    CHECK(bake->lod_count == 1 && bake->lods[0].triangle_count == 0);
    CHECK(strstr(capture.text, "no triangles") != NULL);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);

    /* triangles that weld flat (all corners at one point) */
    asset = test_asset_create(1, 6);
    for (uint32_t v = 0; v < 6; v++) {
        memcpy(asset->mesh.positions + 3 * v, asset->mesh.positions, 3 * sizeof(float));
    }
    capture.text[0] = '\0';
    bake = bake_or_null(asset, &desc);
    REQUIRE_VOID(bake != NULL);
    CHECK(bake->lod_count == 1 && strstr(capture.text, "LOD 1 not made") != NULL);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* ---- desc checks ------------------------------------------------------------------ */

static void expect_result(const crowd_asset *asset, const crowd_bake_desc *desc,
                          crowd_result expected, const char *needle) {
    crowd_error error = {0};
    crowd_bake *bake = (crowd_bake *)1;
    crowd_result result = crowd_bake_build(asset, desc, &bake, &error);
    printf("  %s: %s\n", crowd_result_str(result), error.reason);
    CHECK_MSG(result == expected && bake == NULL && strstr(error.reason, needle) != NULL,
              "%s: got %s '%s'", needle, crowd_result_str(result), error.reason);
}

static void test_desc(void) {
    crowd_asset *asset = test_asset_create(1, 10);
    crowd_clip *clip = test_asset_add_clip(asset, "slide", 200.0f, false);
    const float times[2] = {0.0f, 200.0f}, values[6] = {0, 0, 0, 3, 0, 0};
    test_track_set(&clip->tracks[0].translation, 2, 3, times, values);
    const crowd_result bad = CROWD_ERROR_INVALID_ARGUMENT;
    expect_result(asset, &(crowd_bake_desc){.lods = 8}, bad, "8 LODs asked for; 0 to 7");
    expect_result(asset, &(crowd_bake_desc){.lods = -2}, bad, "-2 LODs asked for");
    expect_result(asset, &(crowd_bake_desc){.max_texture_size = 16385}, bad,
                  "max texture size 16385");
    expect_result(asset, &(crowd_bake_desc){.max_texture_size = 4096, .max_width = 4097}, bad,
                  "max width 4097 is out of range [1, 4096]");
    /* 200 s one-shot at 30 fps: 6001 frames of one row; 4096 fit at 20 fps */
    expect_result(asset, &(crowd_bake_desc){.max_texture_size = 4096, .fps = 30}, CROWD_ERROR_LIMIT,
                  "6001 rows tall (6001 frames x 1 rows per frame), over the limit of "
                  "4096: 4096 frames fit; --fps 20 would fit");
    crowd_bake *bake = bake_or_null(asset, &(crowd_bake_desc){.max_texture_size = 4096, .fps = 20});
    CHECK(bake != NULL && bake->vat_position.height == 4001 && bake->bat.height == 4001);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

int main(void) {
    check_enter_temp_dir("test_bake_lod");
    test_tent();
    test_tube();
    test_builtin();
    test_contacts();
    test_unsimplifiable();
    test_desc();
    return check_finish();
}
