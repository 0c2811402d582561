/* test_bake_build - crowd_bake_build, fetch, measure and the encodings, on
 * hand-built characters whose texels are worked out on paper here. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "load/bake_internal.h"
#include "bake_test_asset.h"
#include "check.h"
#include "crowd/bake.h"

static const float PI_F = 3.14159265358979f;

/* ---- encodings ------------------------------------------------------------ */

static int test_half(void) {
    CHECK(crowd__bake_half_from_float(1.0f) == 0x3c00);
    CHECK(crowd__bake_half_from_float(-2.0f) == 0xc000);
    CHECK(crowd__bake_half_from_float(65504.0f) == 0x7bff);
    CHECK(crowd__bake_half_from_float(65519.0f) == 0x7bff); /* below the halfway point */
    CHECK(crowd__bake_half_from_float(65520.0f) == 0x7c00); /* halfway: to even, i.e. infinity */
    CHECK(crowd__bake_half_from_float(1e9f) == 0x7c00);
    CHECK(crowd__bake_half_from_float(0.1f) == 0x2e66);          /* 0.0999755859375 */
    CHECK(crowd__bake_half_from_float(5.9604645e-8f) == 0x0001); /* smallest subnormal, 2^-24 */
    CHECK(crowd__bake_half_from_float(2.9802322e-8f) == 0x0000); /* 2^-25: halfway, to even (0) */
    CHECK(crowd__bake_half_from_float(4.4703484e-8f) == 0x0001); /* 1.5 * 2^-25 rounds up */
    CHECK(crowd__bake_half_from_float(6.097555e-5f) == 0x03ff);  /* largest subnormal */
    CHECK(crowd__bake_half_from_float(1.0f + 1.0f / 2048.0f) == 0x3c00); /* halfway, to even */
    CHECK(crowd__bake_half_from_float(1.0f + 3.0f / 2048.0f) == 0x3c02); /* halfway, to even */
    CHECK(crowd__bake_half_from_float(-0.0f) == 0x8000);
    CHECK(crowd__bake_half_from_float(NAN) == 0x7e00);
    CHECK(crowd__bake_half_to_float(0x3555) == 0.333251953125f);
    CHECK(crowd__bake_half_to_float(0x0001) == 5.9604645e-8f);
    CHECK(isinf(crowd__bake_half_to_float(0xfc00)) && crowd__bake_half_to_float(0xfc00) < 0.0f);
    int mismatches = 0;
    for (uint32_t bits = 0; bits < 65536; bits++) {
        bool nan = (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0;
        if (!nan &&
            crowd__bake_half_from_float(crowd__bake_half_to_float((uint16_t)bits)) != bits) {
            mismatches++;
        }
    }
    CHECK_MSG(mismatches == 0, "%d halves do not round-trip", mismatches);
    return 0;
}

static int test_unorm16(void) {
    CHECK(crowd__bake_unorm16_encode(-1.0f, -1.0f, 3.0f) == 0);
    CHECK(crowd__bake_unorm16_encode(3.0f, -1.0f, 3.0f) == 65535);
    CHECK(crowd__bake_unorm16_encode(1.0f, -1.0f, 3.0f) ==
          32768); /* 32767.5 -> the nearer decode */
    CHECK(crowd__bake_unorm16_encode(9.0f, -1.0f, 3.0f) == 65535); /* clamped */
    CHECK(crowd__bake_unorm16_encode(-9.0f, -1.0f, 3.0f) == 0);
    CHECK(crowd__bake_unorm16_encode(5.0f, 2.0f, 2.0f) == 0); /* zero extent */
    CHECK(crowd__bake_unorm16_decode(0, 2.0f, 2.0f) == 2.0f);
    CHECK(crowd__bake_unorm16_decode(65535, -1.0f, 3.0f) == 3.0f);
    /* Every value within half a step (plus float rounding) of its decode. */
    float min = -0.731f, max = 1.912f, worst = 0.0f;
    for (int i = 0; i <= 200000; i++) {
        float value = min + (max - min) * (float)i / 200000.0f;
        float error = fabsf(
            crowd__bake_unorm16_decode(crowd__bake_unorm16_encode(value, min, max), min, max) -
            value);
        worst = error > worst ? error : worst;
    }
    CHECK_MSG(worst <= (max - min) / 65535.0f * 0.5f + 4.0f * FLT_EPSILON * 2.0f,
              "worst unorm16 error %g, half step %g", (double)worst,
              (double)((max - min) / 65535.0f * 0.5f));
    return 0;
}

static double angle_deg(const float a[3], const float b[3]) {
    double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1];
    double cy = (double)a[2] * b[0] - (double)a[0] * b[2];
    double cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), dot) * 180.0 / 3.14159265358979323846;
}

static int test_octahedral(void) {
    /* The documented decode, by hand: bytes (255, 128) -> x = 1,
     * y = 1/255, z = 1 - 1 - 1/255 < 0 -> folded x = (1 - 1/255), y = 0. */
    float n[3];
    crowd__bake_oct_decode((uint16_t)(255u << 8 | 128u), n);
    float len = sqrtf((1.0f - 1.0f / 255.0f) * (1.0f - 1.0f / 255.0f) + 1.0f / 65025.0f);
    CHECK_NEAR(n[0], (1.0f - 1.0f / 255.0f) / len, 1e-6);
    CHECK_NEAR(n[1], 0.0f, 1e-6);
    CHECK_NEAR(n[2], -(1.0f / 255.0f) / len, 1e-6);
    crowd__bake_oct_decode((uint16_t)(0u << 8 | 0u), n); /* (-1, -1): folds to (0, 0, -1) */
    CHECK_NEAR(n[0], 0.0f, 1e-6);
    CHECK_NEAR(n[1], 0.0f, 1e-6);
    CHECK_NEAR(n[2], -1.0f, 1e-6);
    const float zero[3] = {0, 0, 0}, nan3[3] = {NAN, 0, 1};
    crowd__bake_oct_decode(crowd__bake_oct_encode(zero), n);
    CHECK(n[2] > 0.99f);
    crowd__bake_oct_decode(crowd__bake_oct_encode(nan3), n);
    CHECK(isfinite(n[0]) && isfinite(n[1]) && isfinite(n[2]));
    /* A dense deterministic spread of directions: worst and mean angle. */
    double worst = 0.0, sum = 0.0;
    int count = 0;
    for (int i = 0; i < 400; i++) {
        for (int k = 0; k < 800; k++) {
            float theta = PI_F * ((float)i + 0.5f) / 400.0f, phi = 2.0f * PI_F * (float)k / 800.0f;
            float v[3] = {sinf(theta) * cosf(phi), sinf(theta) * sinf(phi), cosf(theta)};
            crowd__bake_oct_decode(crowd__bake_oct_encode(v), n);
            double a = angle_deg(v, n);
            worst = a > worst ? a : worst;
            sum += a;
            count++;
        }
    }
    printf("octahedral 8+8: worst %.3f deg, mean %.3f deg over %d directions\n", worst, sum / count,
           count);
    CHECK(worst < 1.0);
    CHECK(sum / count < 0.5);
    return 0;
}

/* ---- frame counts and clips ----------------------------------------------- */

static crowd_bake *bake_or_null(const crowd_asset *asset, const crowd_bake_desc *desc,
                                crowd_error *error) {
    crowd_bake *bake = NULL;
    crowd_result result = crowd_bake_build(asset, desc, &bake, error);
    if (result != CROWD_OK) {
        fprintf(stderr, "bake failed: %s: %s\n", error->file, error->reason);
    }
    return bake;
}

static int test_frame_counts(void) {
    crowd_asset *asset = test_asset_create(1, 3);
    /* Frames at k / 30 and the last at d, looping or not (docs/time.md):
     * 1 + max(1, ceil(d * 30 - 0.001)), 1 for d = 0. */
    test_asset_add_clip(asset, "loop1s", 1.0f, true);     /* 31: 0 .. 30/30 = d */
    test_asset_add_clip(asset, "once1s", 1.0f, false);    /* 31 */
    test_asset_add_clip(asset, "loop0", 0.0f, true);      /* 1 */
    test_asset_add_clip(asset, "once0", 0.0f, false);     /* 1 */
    test_asset_add_clip(asset, "loop1.01", 1.01f, true);  /* 1 + ceil(30.3) = 32 */
    test_asset_add_clip(asset, "once0.05", 0.05f, false); /* 1 + ceil(1.5) = 3 */
    crowd_error error = {0};
    crowd_bake *bake = bake_or_null(asset, NULL, &error);
    REQUIRE(bake != NULL);
    const uint32_t expected[] = {31, 31, 1, 1, 32, 3};
    uint32_t first = 0;
    REQUIRE(bake->clip_count == 6);
    for (uint32_t i = 0; i < 6; i++) {
        CHECK_MSG(bake->clips[i].frame_count == expected[i], "clip %s: %u frames",
                  bake->clips[i].name, bake->clips[i].frame_count);
        CHECK(bake->clips[i].first_frame == first);
        CHECK(bake->clips[i].source_clip == i);
        CHECK(bake->clips[i].loop == asset->clips[i].loop);
        /* No keys: no key rate, 30 fps, nothing moves between frames. */
        CHECK(bake->clips[i].fps == 30.0f && bake->clips[i].key_rate == 0.0f);
        CHECK(bake->clips[i].layout == CROWD_FRAMES_END && bake->clips[i].rate_multiple == 1);
        CHECK(bake->clips[i].between_error_max == 0.0f && bake->clips[i].within_budget);
        first += expected[i];
    }
    CHECK(bake->frame_count == first);
    CHECK(bake->between_error_budget_rel == CROWD_BAKE_DEFAULT_BETWEEN_ERROR);
    CHECK(bake->vat_encoding == CROWD_VAT_UNORM16_OCT);
    CHECK(bake->bat_encoding == CROWD_BAT_F32);
    CHECK(bake->vat_position.height == first);
    CHECK(bake->bat.height == first);
    CHECK(crowd_bake_find_clip(bake, "once1s") == 1);
    CHECK(crowd_bake_find_clip(bake, "nope") == -1);
    CHECK(strcmp(bake->name, "hand") == 0 && strcmp(bake->source, "hand.glb") == 0);
    CHECK(bake->asset == asset && bake->owned_asset == NULL);
    crowd_bake_destroy(bake);

    /* Selection keeps the given order; overrides flip looping; 24 fps. */
    const char *clips[] = {"once1s", "loop1s"};
    const char *loops[] = {"once1s"};
    const char *onces[] = {"loop1s"};
    crowd_bake_desc desc = {.fps = 24.0f,
                            .clips = clips,
                            .clip_count = 2,
                            .loop_clips = loops,
                            .loop_clip_count = 1,
                            .once_clips = onces,
                            .once_clip_count = 1};
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    REQUIRE(bake->clip_count == 2);
    CHECK(strcmp(bake->clips[0].name, "once1s") == 0 && bake->clips[0].loop);
    CHECK(bake->clips[0].frame_count == 25 && bake->clips[0].source_clip == 1);
    CHECK(strcmp(bake->clips[1].name, "loop1s") == 0 && !bake->clips[1].loop);
    CHECK(bake->clips[1].frame_count == 25 && bake->clips[1].first_frame == 25);
    CHECK(bake->clips[0].fps == 24.0f && bake->clips[1].fps == 24.0f);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return 0;
}

/* ---- golden texels -------------------------------------------------------- */

/* One joint sliding 3 units along +X in one second (one-shot): frame k of
 * 31 at k/30 s moves every vertex by 3 * k / 30 = k / 10. */
static crowd_asset *slide_asset(uint32_t vertex_count, float duration_s) {
    crowd_asset *asset = test_asset_create(1, vertex_count);
    crowd_clip *clip = test_asset_add_clip(asset, "slide", duration_s, false);
    const float times[] = {0.0f, duration_s};
    const float values[] = {0, 0, 0, 3.0f * duration_s, 0, 0};
    test_track_set(&clip->tracks[0].translation, 2, 3, times, values);
    return asset;
}

static int test_golden_translation(void) {
    crowd_asset *asset = slide_asset(3, 1.0f);
    crowd_error error = {0};
    /* At a forced 30 fps (two keys a second apart would give 1 fps). */
    crowd_bake_desc desc = {.fps = 30.0f, .vat_encoding = CROWD_VAT_UNORM16_OCT};
    crowd_bake *bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    /* Vertices (0, .5, 0), (.25, .5, 0), (.5, .5, 0); x reaches .5 + 3. */
    CHECK(bake->frame_count == 31);
    CHECK(bake->bounds_min[0] == 0.0f && bake->bounds_max[0] == 3.5f);
    CHECK(bake->bounds_min[1] == 0.5f && bake->bounds_max[1] == 0.5f);
    CHECK(bake->bounds_min[2] == 0.0f && bake->bounds_max[2] == 0.0f);
    REQUIRE(bake->vat_position.format == CROWD_TEXEL_RGBA16_UNORM);
    CHECK(bake->vat_normal.format == CROWD_TEXEL_NONE && bake->vat_normal.texels == NULL);
    CHECK(bake->vat_position.width == 3 && bake->vat_rows_per_frame == 1);
    const uint16_t *texels = bake->vat_position.texels;
    /* frame 10, vertex 1: x = .25 + 1 = 1.25 -> round(1.25 / 3.5 * 65535) = 23405 */
    CHECK(texels[4 * (10 * 3 + 1) + 0] == 23405);
    /* frame 20, vertex 2: x = .5 + 2 = 2.5 -> round(46810.71) = 46811 */
    CHECK(texels[4 * (20 * 3 + 2) + 0] == 46811);
    CHECK(texels[4 * (30 * 3 + 2) + 0] == 65535);
    CHECK(texels[4 * (0 * 3 + 0) + 0] == 0);
    CHECK(texels[4 * (20 * 3 + 2) + 1] == 0); /* zero extent stores 0 */
    CHECK(texels[4 * (20 * 3 + 2) + 2] == 0);
    float p[3], n[3];
    crowd_bake_vat_fetch(bake, 20, 2, p, n);
    CHECK_NEAR(p[0], 2.5, 3.5 / 65535.0 / 2.0 + 1e-6);
    CHECK(p[1] == 0.5f && p[2] == 0.0f);
    CHECK(angle_deg(n, (const float[3]){0, 0, 1}) < 0.5);
    crowd_bake_destroy(bake);

    desc.vat_encoding = CROWD_VAT_F32;
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    REQUIRE(bake->vat_position.format == CROWD_TEXEL_RGBA32F);
    REQUIRE(bake->vat_normal.format == CROWD_TEXEL_RGBA32F);
    const float *f = bake->vat_position.texels;
    for (uint32_t k = 0; k < 31; k++) {
        for (uint32_t v = 0; v < 3; v++) {
            const float *texel = f + 4 * (k * 3 + v);
            CHECK_NEAR(texel[0], 0.25 * v + k / 10.0, 1e-6);
            CHECK(texel[1] == 0.5f && texel[2] == 0.0f && texel[3] == 1.0f);
            const float *normal = (const float *)bake->vat_normal.texels + 4 * (k * 3 + v);
            CHECK(normal[0] == 0.0f && normal[1] == 0.0f && normal[2] == 1.0f);
        }
    }
    crowd_bake_destroy(bake);

    desc.vat_encoding = CROWD_VAT_F16;
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    REQUIRE(bake->vat_position.format == CROWD_TEXEL_RGBA16F);
    const uint16_t *h = bake->vat_position.texels;
    CHECK(h[4 * (10 * 3 + 1) + 0] ==
          crowd__bake_half_from_float(1.25f)); /* 1.25 is exact in half */
    CHECK(h[4 * (10 * 3 + 1) + 1] == 0x3800);  /* 0.5 */
    CHECK(h[4 * (10 * 3 + 1) + 3] == 0x3c00);  /* w = 1 */
    const uint16_t *hn = bake->vat_normal.texels;
    CHECK(hn[4 * 7 + 2] == 0x3c00);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return 0;
}

/* Two joints; joint 1 (at (0, 1, 0)) turns 90 degrees about +Z in one
 * second. Vertex 1 sits at (.25, 1.5, 0) with normal +X. */
static int test_golden_rotation(void) {
    crowd_asset *asset = test_asset_create(2, 2);
    asset->mesh.normals[3 * 1 + 0] = 1.0f;
    asset->mesh.normals[3 * 1 + 2] = 0.0f;
    crowd_clip *clip = test_asset_add_clip(asset, "bend", 1.0f, false);
    const float times[] = {0.0f, 1.0f};
    const float s = sqrtf(0.5f);
    const float rotations[] = {0, 0, 0, 1, 0, 0, s, s};
    test_track_set(&clip->tracks[1].rotation, 2, 4, times, rotations);
    crowd_error error = {0};
    crowd_bake_desc desc = {.fps = 30.0f, .vat_encoding = CROWD_VAT_F32};
    crowd_bake *bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    float p[3], n[3];
    /* t = .5: 45 degrees: (.25, .5) relative to the joint turns into
     * ((.25 - .5) c, (.25 + .5) c) with c = cos 45. */
    const float c = sqrtf(0.5f);
    crowd_bake_vat_fetch(bake, 15, 1, p, n);
    CHECK_NEAR(p[0], -0.25f * c, 1e-6);
    CHECK_NEAR(p[1], 1.0f + 0.75f * c, 1e-6);
    CHECK_NEAR(p[2], 0.0f, 1e-6);
    CHECK_NEAR(n[0], c, 1e-6);
    CHECK_NEAR(n[1], c, 1e-6);
    crowd_bake_vat_fetch(bake, 30, 1, p, n);
    CHECK_NEAR(p[0], -0.5f, 1e-6);
    CHECK_NEAR(p[1], 1.25f, 1e-6);
    CHECK_NEAR(n[0], 0.0f, 1e-6);
    CHECK_NEAR(n[1], 1.0f, 1e-6);
    crowd_bake_vat_fetch(bake, 30, 0, p, n); /* joint 0 does not move */
    CHECK(p[0] == 0.0f && p[1] == 0.5f && p[2] == 0.0f);
    /* BAT at t = 1: T(0,1,0) R90 T(0,-1,0): rows (0 -1 0 1), (1 0 0 1), (0 0 1 0). */
    const float expected[12] = {0, -1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0};
    float m[12];
    crowd_bake_bat_fetch(bake, 30, 1, m);
    for (int i = 0; i < 12; i++) {
        CHECK_NEAR(m[i], expected[i], 1e-6);
    }
    crowd_bake_bat_fetch(bake, 30, 0, m);
    CHECK(m[0] == 1.0f && m[5] == 1.0f && m[10] == 1.0f && m[3] == 0.0f && m[7] == 0.0f);
    /* Bounds: bind pose plus every frame; vertex 1 sweeps to x = -.5. */
    CHECK_NEAR(bake->bounds_min[0], -0.5f, 1e-6);
    CHECK_NEAR(bake->bounds_max[0], 0.25f, 1e-6);
    /* Its height 1 + .25 sin a + .5 cos a peaks near a = 26.6 degrees; the
     * nearest frame is 9 (27 degrees). */
    const double a27 = 27.0 * 3.14159265358979323846 / 180.0;
    CHECK_NEAR(bake->bounds_max[1], 1.0 + 0.25 * sin(a27) + 0.5 * cos(a27), 1e-6);
    crowd_bake_destroy(bake);

    desc.bat_encoding = CROWD_BAT_F16;
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    REQUIRE(bake->bat.format == CROWD_TEXEL_RGBA16F);
    crowd_bake_bat_fetch(bake, 30, 1, m);
    for (int i = 0; i < 12; i++) {
        CHECK_NEAR(m[i], expected[i], 1e-3);
    }
    const uint16_t *bat = bake->bat.texels;
    CHECK(bat[(size_t)4 * (30 * 6 + 3) + 3] == 0x3c00); /* joint 1, row 0, column 3 = 1 */
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return 0;
}

/* ---- layout --------------------------------------------------------------- */

static int test_wrapping(void) {
    crowd_asset *asset = slide_asset(10, 1.0f);
    crowd_error error = {0};
    crowd_bake_desc desc = {.fps = 30.0f, .vat_encoding = CROWD_VAT_F32, .max_width = 4};
    crowd_bake *bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    /* 10 vertices at most 4 wide: 3 rows; 4 per row (ceil(10 / 3)). */
    CHECK(bake->vat_position.width == 4 && bake->vat_rows_per_frame == 3);
    CHECK(bake->vat_position.height == 31 * 3);
    /* Vertex 9 of frame 2 is texel (9 % 4, 2 * 3 + 9 / 4) = (1, 8); its
     * position is (.25, .5, .25) moved by .2 along x. */
    const float *texel = (const float *)bake->vat_position.texels + 4 * (8 * 4 + 1);
    CHECK_NEAR(texel[0], 0.45, 1e-6);
    CHECK(texel[1] == 0.5f && texel[2] == 0.25f);
    /* The two texels after vertex 9 in each frame are padding (zero). */
    const float *pad = (const float *)bake->vat_position.texels + 4 * (8 * 4 + 2);
    CHECK(pad[0] == 0.0f && pad[3] == 0.0f);
    float p[3];
    crowd_bake_vat_fetch(bake, 2, 9, p, NULL);
    CHECK(p[0] == texel[0] && p[1] == texel[1] && p[2] == texel[2]);
    /* BAT: 1 joint = 3 texels, one row at width 3. */
    CHECK(bake->bat.width == 3 && bake->bat_rows_per_frame == 1);
    crowd_bake_destroy(bake);

    /* A width that divides evenly: 10 vertices at max 5 -> 2 rows of 5. */
    desc.max_width = 5;
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    CHECK(bake->vat_position.width == 5 && bake->vat_rows_per_frame == 2);
    crowd_bake_destroy(bake);
    desc.max_width = 16384;
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    CHECK(bake->vat_position.width == 10 && bake->vat_rows_per_frame == 1);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);

    /* BAT wraps too: 2 joints = 6 texels at max 4 -> 2 rows of 3; joint 1's
     * first texel (t = 3) of frame f is (0, 2f + 1). */
    asset = test_asset_create(2, 2);
    test_asset_add_clip(asset, "still", 1.0f, true);
    desc = (crowd_bake_desc){.max_width = 4, .what = CROWD_BAKE_BAT_ONLY};
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    CHECK(bake->bat.width == 3 && bake->bat_rows_per_frame == 2 && bake->bat.height == 62);
    CHECK(bake->vat_position.texels == NULL && bake->vat_position.format == CROWD_TEXEL_NONE);
    CHECK(bake->vat_encoding == CROWD_VAT_DEFAULT && bake->vat_rows_per_frame == 0);
    const float *row = (const float *)bake->bat.texels + 4 * ((5 * 2 + 1) * 3 + 0);
    /* Rest pose: joint 1 skin matrix is identity; row 0 = (1 0 0 0). */
    CHECK(row[0] == 1.0f && row[1] == 0.0f && row[2] == 0.0f && row[3] == 0.0f);
    float m[12];
    crowd_bake_bat_fetch(bake, 5, 1, m);
    CHECK(m[0] == 1.0f && m[5] == 1.0f && m[10] == 1.0f);
    crowd_bake_destroy(bake);

    desc.what = CROWD_BAKE_VAT_ONLY;
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    CHECK(bake->bat.texels == NULL && bake->bat_encoding == CROWD_BAT_DEFAULT);
    CHECK(bake->vat_position.texels != NULL);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return 0;
}

static int test_height_limit(void) {
    /* 10 vertices at max width 4 = 3 rows per frame: 16384 / 3 = 5461 frames
     * fit. 200 s one-shot at 30 fps = 6001 frames; at 27 fps 5401 fit. (Its
     * two keys 200 s apart alone would give 2 frames.) */
    crowd_asset *asset = slide_asset(10, 200.0f);
    crowd_error error = {0};
    crowd_bake *bake = (crowd_bake *)1;
    crowd_bake_desc desc = {.fps = 30.0f, .max_width = 4};
    CHECK(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_ERROR_LIMIT);
    CHECK(bake == NULL);
    CHECK(error.result == CROWD_ERROR_LIMIT);
    CHECK(strcmp(error.file, "hand.glb") == 0);
    printf("height limit: %s\n", error.reason);
    CHECK(strstr(error.reason, "VAT") != NULL);
    CHECK(strstr(error.reason, "18003 rows") != NULL);
    CHECK(strstr(error.reason, "5461 frames fit") != NULL);
    CHECK(strstr(error.reason, "--fps 27 would fit") != NULL);
    CHECK(strstr(error.reason, "--max-width 16384") != NULL);
    desc.fps = 27.0f;
    bake = bake_or_null(asset, &desc, &error);
    CHECK(bake != NULL);
    if (bake != NULL) {
        CHECK(bake->vat_position.height == 5401 * 3);
    }
    crowd_bake_destroy(bake);
    desc.fps = 28.0f;
    CHECK(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_ERROR_LIMIT);
    crowd_asset_destroy(asset);

    /* Below 1 fps: a 100000 s clip; 16384 frames fit at 0.16 fps. */
    asset = slide_asset(3, 100000.0f);
    desc = (crowd_bake_desc){.fps = 30.0f, .what = CROWD_BAKE_BAT_ONLY};
    CHECK(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_ERROR_LIMIT);
    printf("height limit: %s\n", error.reason);
    CHECK(strstr(error.reason, "BAT") != NULL);
    CHECK(strstr(error.reason, "--fps 0.16 would fit") != NULL);
    crowd_asset_destroy(asset);
    return 0;
}

/* ---- errors --------------------------------------------------------------- */

static void expect_invalid(const crowd_asset *asset, const crowd_bake_desc *desc,
                           const char *needle) {
    crowd_error error = {0};
    crowd_bake *bake = (crowd_bake *)1;
    crowd_result result = crowd_bake_build(asset, desc, &bake, &error);
    CHECK_MSG(result == CROWD_ERROR_INVALID_ARGUMENT, "%s: got %s", needle,
              crowd_result_str(result));
    CHECK(bake == NULL);
    CHECK_MSG(strstr(error.reason, needle) != NULL, "'%s' not in '%s'", needle, error.reason);
}

static int test_errors(void) {
    crowd_asset *asset = slide_asset(3, 1.0f);
    test_asset_add_clip(asset, "other", 1.0f, true);
    expect_invalid(asset, &(crowd_bake_desc){.fps = -1.0f}, "fps -1 is out of range (0, 1000]");
    expect_invalid(asset, &(crowd_bake_desc){.fps = 1000.5f}, "out of range");
    expect_invalid(asset, &(crowd_bake_desc){.fps = 100000.0f}, "fps 100000");
    expect_invalid(asset, &(crowd_bake_desc){.fps = NAN}, "out of range");
    expect_invalid(asset, &(crowd_bake_desc){.fps = INFINITY}, "out of range");
    expect_invalid(asset, &(crowd_bake_desc){.max_width = 16385}, "max width 16385");
    expect_invalid(asset, &(crowd_bake_desc){.vat_encoding = (crowd_vat_encoding)9}, "VAT");
    expect_invalid(asset, &(crowd_bake_desc){.bat_encoding = (crowd_bat_encoding)9}, "BAT");
    expect_invalid(asset, &(crowd_bake_desc){.what = (crowd_bake_what)7}, "selection");
    const char *unknown[] = {"slide", "Slide"};
    expect_invalid(asset, &(crowd_bake_desc){.clips = unknown, .clip_count = 2},
                   "clip 'Slide' is not a clip of the model (clips: slide, other)");
    const char *twice[] = {"slide", "slide"};
    expect_invalid(asset, &(crowd_bake_desc){.clips = twice, .clip_count = 2}, "listed twice");
    const char *just_slide[] = {"slide"};
    const char *other[] = {"other"};
    expect_invalid(
        asset,
        &(crowd_bake_desc){
            .clips = just_slide, .clip_count = 1, .loop_clips = other, .loop_clip_count = 1},
        "looping clip 'other' is not among the clips being baked");
    const char *nope[] = {"nope"};
    expect_invalid(asset, &(crowd_bake_desc){.once_clips = nope, .once_clip_count = 1},
                   "one-shot clip 'nope' is not a clip");
    expect_invalid(
        asset,
        &(crowd_bake_desc){
            .loop_clips = other, .loop_clip_count = 1, .once_clips = other, .once_clip_count = 1},
        "asked to loop and to play once");
    crowd_error error = {0};
    CHECK(crowd_bake_build(asset, NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    crowd_bake *bake = NULL;
    CHECK(crowd_bake_build(NULL, NULL, &bake, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    /* A broken asset is rejected by validation, not baked. */
    asset->mesh.weights[0] = 0.5f;
    CHECK(crowd_bake_build(asset, NULL, &bake, &error) == CROWD_ERROR_INVALID_DATA);
    CHECK(bake == NULL);
    asset->mesh.weights[0] = 1.0f;
    /* Positions beyond half range cannot be stored as f16. */
    for (uint32_t v = 0; v < 3; v++) {
        asset->mesh.positions[3 * v] = 70000.0f;
    }
    CHECK(crowd_bake_build(asset, &(crowd_bake_desc){.vat_encoding = CROWD_VAT_F16}, &bake,
                           &error) == CROWD_ERROR_LIMIT);
    CHECK(strstr(error.reason, "f16") != NULL);
    CHECK(crowd_bake_build(asset, &(crowd_bake_desc){.vat_encoding = CROWD_VAT_F32}, &bake,
                           &error) == CROWD_OK);
    crowd_bake_destroy(bake);
    crowd_bake_destroy(NULL);
    crowd_asset_destroy(asset);
    return 0;
}

/* ---- no clips, threads, progress, measure --------------------------------- */

typedef struct log_capture {
    char text[1024];
} log_capture;

static void capture_log(void *user, crowd_log_level level, const char *message) {
    log_capture *capture = user;
    (void)level;
    strncat(capture->text, message, sizeof capture->text - strlen(capture->text) - 1);
}

static int test_no_clips(void) {
    crowd_asset *asset = test_asset_create(2, 5);
    log_capture capture = {{0}};
    crowd_error error = {0};
    crowd_bake_desc desc = {.vat_encoding = CROWD_VAT_F32,
                            .logger = {.fn = capture_log, .user = &capture}};
    crowd_bake *bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    CHECK(bake->clip_count == 1 && bake->frame_count == 1);
    CHECK(strcmp(bake->clips[0].name, "rest") == 0);
    CHECK(bake->clips[0].source_clip == UINT32_MAX && bake->clips[0].duration_s == 0.0f);
    CHECK(strstr(capture.text, "no animation") != NULL);
    CHECK(strstr(capture.text, "'rest'") != NULL);
    /* The rest pose of this skeleton is its bind pose. */
    for (uint32_t v = 0; v < 5; v++) {
        float p[3];
        crowd_bake_vat_fetch(bake, 0, v, p, NULL);
        CHECK(memcmp(p, asset->mesh.positions + 3 * v, sizeof p) == 0);
    }
    crowd_bake_report report;
    CHECK(crowd_bake_measure(bake, asset, 0, &report, &error) == CROWD_OK);
    CHECK(report.position_error_max_rel < 1e-6);
    crowd_bake_destroy(bake);
    const char *clips[] = {"walk"};
    expect_invalid(asset, &(crowd_bake_desc){.clips = clips, .clip_count = 1},
                   "clip 'walk': the model has no clips");
    crowd_asset_destroy(asset);
    return 0;
}

typedef struct progress_log {
    int calls;
    float last;
    bool monotonic;
} progress_log;

static void on_progress(void *user, float fraction) {
    progress_log *log = user;
    log->monotonic = log->monotonic && fraction >= log->last && fraction <= 1.0f;
    log->last = fraction;
    log->calls++;
}

/* A bigger animated chain: 6 joints each turning about a different axis. */
static crowd_asset *wavy_asset(void) {
    crowd_asset *asset = test_asset_create(6, 600);
    for (uint32_t v = 0; v < 600; v++) {
        float *n = asset->mesh.normals + 3 * v;
        float angle = 0.37f * (float)v;
        n[0] = cosf(angle);
        n[1] = 0.3f;
        n[2] = sinf(angle);
        if (v % 3 == 1) { /* two influences */
            asset->mesh.joints[4 * v + 1] = (uint16_t)((v + 1) % 6);
            asset->mesh.weights[4 * v] = 0.625f;
            asset->mesh.weights[4 * v + 1] = 0.375f;
        }
    }
    const float times[] = {0.0f, 0.5f, 1.3f};
    for (int c = 0; c < 2; c++) {
        crowd_clip *clip = test_asset_add_clip(asset, c == 0 ? "wave" : "shake", 1.3f, c == 0);
        for (uint32_t j = 1; j < 6; j++) {
            float a = 0.3f * (float)j + (float)c, s = sinf(a), co = cosf(a);
            float axis[3] = {(float)(j % 2), (float)((j / 2) % 2), 0.5f};
            float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
            float rotations[12] = {
                0, 0, 0, 1, s * axis[0] / len, s * axis[1] / len, s * axis[2] / len, co,
                0, 0, 0, 1};
            test_track_set(&clip->tracks[j].rotation, 3, 4, times, rotations);
            float translations[9] = {0, 1, 0, 0.1f * (float)j, 1.2f, 0, 0, 1, 0};
            test_track_set(&clip->tracks[j].translation, 3, 3, times, translations);
        }
    }
    return asset;
}

static bool same_texture(const crowd_texture *a, const crowd_texture *b) {
    if (a->width != b->width || a->height != b->height || a->format != b->format) {
        return false;
    }
    if (a->texels == NULL || b->texels == NULL) {
        return a->texels == b->texels;
    }
    return memcmp(a->texels, b->texels,
                  (size_t)a->width * a->height * crowd__bake_texel_size_bytes(a->format)) == 0;
}

static int test_threads_progress_measure(void) {
    crowd_asset *asset = wavy_asset();
    crowd_error error = {0};
    progress_log log = {.monotonic = true};
    const crowd_vat_encoding encodings[] = {CROWD_VAT_UNORM16_OCT, CROWD_VAT_F16, CROWD_VAT_F32};
    for (int e = 0; e < 3; e++) {
        crowd_bake_desc one = {.vat_encoding = encodings[e],
                               .thread_count = 1,
                               .progress = on_progress,
                               .progress_user = &log};
        crowd_bake_desc many = {.vat_encoding = encodings[e], .thread_count = 5};
        crowd_bake *a = bake_or_null(asset, &one, &error);
        crowd_bake *b = bake_or_null(asset, &many, &error);
        REQUIRE(a != NULL && b != NULL);
        CHECK(same_texture(&a->vat_position, &b->vat_position));
        CHECK(same_texture(&a->vat_normal, &b->vat_normal));
        CHECK(same_texture(&a->bat, &b->bat));
        CHECK(memcmp(a->bounds_min, b->bounds_min, sizeof a->bounds_min) == 0);
        CHECK(memcmp(a->bounds_max, b->bounds_max, sizeof a->bounds_max) == 0);
        CHECK(log.monotonic && log.calls > 1 && log.last == 1.0f);
        log = (progress_log){.monotonic = true};

        crowd_bake_report report, again;
        REQUIRE(crowd_bake_measure(a, asset, 0, &report, &error) == CROWD_OK);
        REQUIRE(crowd_bake_measure(a, asset, 1, &again, &error) == CROWD_OK);
        CHECK(memcmp(&report, &again, sizeof report) == 0);
        CHECK(report.vertex_frames == (uint64_t)a->frame_count * 600);
        CHECK(report.position_error_mean <= report.position_error_max);
        CHECK(report.bat_position_error_max_rel < 1e-6);
        CHECK(report.bat_size_bytes == (uint64_t)a->bat.width * a->bat.height * 16);
        printf("%-12s max %.3g (rel %.3g), mean rel %.3g, normal max %.3f mean %.3f deg, "
               "VAT %llu bytes\n",
               e == 0   ? "unorm16_oct"
               : e == 1 ? "f16"
                        : "f32",
               report.position_error_max, report.position_error_max_rel,
               report.position_error_mean_rel, report.normal_error_max_deg,
               report.normal_error_mean_deg, (unsigned long long)report.vat_size_bytes);
        if (encodings[e] == CROWD_VAT_UNORM16_OCT) {
            CHECK(report.position_error_max_rel <= 0.5 * sqrt(3.0) / 65535.0 * 1.01);
            CHECK(report.normal_error_max_deg < 1.0);
            CHECK(report.vat_size_bytes == (uint64_t)600 * a->frame_count * 8);
        } else if (encodings[e] == CROWD_VAT_F16) {
            CHECK(report.normal_error_max_deg < 0.1);
            CHECK(report.vat_size_bytes == (uint64_t)600 * a->frame_count * 16);
        } else {
            /* The baker skins with the SIMD path, the report with the
             * reference: equal to float rounding. */
            CHECK(report.position_error_max_rel < 1e-6);
            CHECK(report.normal_error_max_deg < 1e-3);
            CHECK(report.vat_size_bytes == (uint64_t)600 * a->frame_count * 32);
        }
        crowd_bake_destroy(a);
        crowd_bake_destroy(b);
    }
    /* Measure's own errors. */
    crowd_bake *bake = bake_or_null(asset, NULL, &error);
    REQUIRE(bake != NULL);
    crowd_asset *other = slide_asset(600, 1.0f);
    crowd_bake_report report;
    CHECK(crowd_bake_measure(bake, other, 0, &report, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "joints") != NULL);
    crowd_asset_destroy(other);
    other = slide_asset(3, 1.0f);
    CHECK(crowd_bake_measure(bake, other, 0, &report, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "vertices") != NULL);
    crowd_asset_destroy(other);
    CHECK(crowd_bake_measure(NULL, asset, 0, &report, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    free(asset->clips[1].name);
    asset->clips[1].name = test_strdup("renamed");
    CHECK(crowd_bake_measure(bake, asset, 0, &report, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "'shake'") != NULL);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return 0;
}

/* A joint turning about +Y by 90 degrees per key, keys at 4 a second:
 * between two frames 1 / fps apart a vertex at radius r sweeps an arc of
 * theta = 90 * 4 / fps degrees, whose middle lies r (1 - cos(theta / 2))
 * from the middle of its chord. The farthest vertex is at r = 0.75 and the
 * bounds are +-0.75 in x and z: a diagonal of 1.5 sqrt 2. */
static crowd_asset *spin_asset(void) {
    crowd_asset *asset = test_asset_create(1, 4);
    crowd_clip *clip = test_asset_add_clip(asset, "spin", 1.0f, true);
    const float times[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f};
    float rotations[20];
    for (int k = 0; k < 5; k++) {
        float half = 0.25f * 3.14159265f * (float)k; /* half of 90 k degrees */
        const float q[4] = {0.0f, sinf(half), 0.0f, cosf(half)};
        memcpy(rotations + 4 * k, q, sizeof q);
    }
    test_track_set(&clip->tracks[0].rotation, 5, 4, times, rotations);
    /* Two keys a second apart on a joint-less track: still on the grid. */
    return asset;
}

static double sagitta(double r, double fps) {
    return r * (1.0 - cos(0.5 * (90.0 * 4.0 / fps) * 3.14159265358979 / 180.0));
}

static int test_rates(void) {
    crowd_asset *asset = spin_asset();
    crowd_error error = {0};
    const double diagonal = 1.5 * sqrt(2.0);
    /* Forced rates: the measured error is the sagitta. */
    const float forced[] = {4.0f, 8.0f, 30.0f};
    for (int i = 0; i < 3; i++) {
        crowd_bake_desc desc = {.fps = forced[i], .what = CROWD_BAKE_BAT_ONLY, .lods = -1};
        crowd_bake *bake = bake_or_null(asset, &desc, &error);
        REQUIRE(bake != NULL);
        const crowd_bake_clip *clip = &bake->clips[0];
        CHECK(clip->fps == forced[i] && clip->rate_multiple == 1 && clip->key_rate == 4.0f);
        CHECK(clip->frame_count == 1 + (uint32_t)ceil(forced[i] - 1e-3));
        CHECK_NEAR(clip->between_error_max, sagitta(0.75, forced[i]), 1e-5);
        crowd_bake_destroy(bake);
    }
    /* Chosen: the budget 0.02 of the diagonal (0.0424) rules out 4 fps
     * (0.220) and 8 (0.0571) and takes 12 (0.0256): frames on the keys. */
    crowd_bake_desc desc = {.between_error_rel = 0.02, .what = CROWD_BAKE_BAT_ONLY, .lods = -1};
    crowd_bake *bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    const crowd_bake_clip *clip = &bake->clips[0];
    CHECK(clip->key_rate == 4.0f && clip->rate_multiple == 3 && clip->fps == 12.0f);
    CHECK(clip->frame_count == 13 && clip->within_budget && clip->layout == CROWD_FRAMES_END);
    CHECK_NEAR(clip->between_error_max, sagitta(0.75, 12.0), 1e-5);
    CHECK(clip->between_error_max <= 0.02 * diagonal);
    CHECK(bake->between_error_budget_rel == 0.02);
    crowd_bake_destroy(bake);
    /* The default budget (5e-4: 1.06 mm) needs 60 fps (sagitta 0.64 mm; 48
     * gives 1.0 mm, just within too): the smallest multiple that meets it. */
    desc.between_error_rel = 0.0;
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    clip = &bake->clips[0];
    CHECK(sagitta(0.75, clip->fps) <= 5e-4 * diagonal);
    CHECK_MSG(clip->rate_multiple == 1 || sagitta(0.75, clip->fps * 0.8) > 5e-4 * diagonal,
              "%g fps chosen", (double)clip->fps);
    CHECK(fmodf(clip->fps, 4.0f) == 0.0f && clip->within_budget);
    crowd_bake_destroy(bake);
    /* Textures that hold only 30 frames lower the rate (never below the
     * key rate) until they fit. */
    desc.max_texture_size = 30;
    desc.max_width = 30;
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    CHECK(bake->frame_count <= 30 && !bake->clips[0].within_budget);
    CHECK(fmodf(bake->clips[0].fps, 4.0f) == 0.0f);
    crowd_bake_destroy(bake);
    /* Keys off any grid of up to 240 a second: no key rate, 30 fps. */
    asset->clips[0].tracks[0].rotation.times_s[1] = 0.2513f;
    desc = (crowd_bake_desc){.between_error_rel = 0.5, .what = CROWD_BAKE_BAT_ONLY, .lods = -1};
    bake = bake_or_null(asset, &desc, &error);
    REQUIRE(bake != NULL);
    CHECK(bake->clips[0].key_rate == 0.0f && bake->clips[0].fps == 30.0f);
    crowd_bake_destroy(bake);
    /* Out-of-range budgets. */
    desc.between_error_rel = 1.0;
    CHECK(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc.between_error_rel = -1e-3;
    CHECK(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc.between_error_rel = NAN;
    CHECK(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    crowd_asset_destroy(asset);
    return 0;
}

int main(void) {
    check_enter_temp_dir("test_bake_build");
    test_rates();
    test_half();
    test_unorm16();
    test_octahedral();
    test_frame_counts();
    test_golden_translation();
    test_golden_rotation();
    test_wrapping();
    test_height_limit();
    test_errors();
    test_no_clips();
    test_threads_progress_measure();
    return check_finish();
}
