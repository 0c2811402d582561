/* import_repairs.c - every importer repair forced on purpose, on small files
 * written here (glTF with an embedded base64 buffer, and a text .X), imported
 * with crowd_import_memory.
 *
 * The glTF scene: root -> j0..j5 (joints at x = 0..5, inverse binds their
 * inverse translations), root -> "skinned" (a triangle, node at z = 5, whose
 * transform glTF says to ignore), j2 -> "prop" at z = 1 (a static triangle).
 * Triangle vertices:
 *   v0 (0,0,0): 6 influences 0.30 0.25 0.20 0.12 0.08 0.05 (JOINTS_0 + JOINTS_1)
 *   v1 (1,0,0): 0.5 on j1 + 0.25 on j2 (sum 0.75)
 *   v2 (0,1,0): no weight at all
 * Animations: "wave" (j0 turns and comes back), "turn" (j0 turns), "wave"
 * again (a duplicate name), "bad" whose middle translation key is NaN.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/import.h"
#include "import_tests.h"

typedef struct gltf_builder {
    unsigned char data[4096];
    size_t size;
    char views[4096], accessors[8192];
    int count;
} gltf_builder;

static int add(gltf_builder *b, const void *bytes, size_t n, int component, int count,
               const char *type, const char *extra) {
    memcpy(b->data + b->size, bytes, n);
    size_t vl = strlen(b->views), al = strlen(b->accessors);
    snprintf(b->views + vl, sizeof b->views - vl,
             "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", b->count ? "," : "", b->size,
             n);
    snprintf(b->accessors + al, sizeof b->accessors - al,
             "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%d,\"type\":\"%s\"%s}",
             b->count ? "," : "", b->count, component, count, type, extra);
    b->size += (n + 3) & ~(size_t)3;
    return b->count++;
}

static char *base64(const unsigned char *data, size_t size) {
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(4 * ((size + 2) / 3) + 1), *o = out;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < size ? data[i + 1] << 8 : 0) |
                     (i + 2 < size ? data[i + 2] : 0);
        *o++ = table[v >> 18 & 63];
        *o++ = table[v >> 12 & 63];
        *o++ = i + 1 < size ? table[v >> 6 & 63] : '=';
        *o++ = i + 2 < size ? table[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

enum { FLOAT = 5126, USHORT = 5123 };

static char *repair_scene(void) {
    gltf_builder b;
    memset(&b, 0, sizeof b);
    const float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint16_t joints0[12] = {0, 1, 2, 3, 1, 2, 0, 0, 0, 0, 0, 0};
    const float weights0[12] = {0.30f, 0.25f, 0.20f, 0.12f, 0.5f, 0.25f, 0, 0, 0, 0, 0, 0};
    const uint16_t joints1[12] = {4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const float weights1[12] = {0.08f, 0.05f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    float ibm[6 * 16];
    for (int j = 0; j < 6; j++) {
        for (int e = 0; e < 16; e++) {
            ibm[16 * j + e] = e % 5 == 0 ? 1.0f : 0.0f;
        }
        ibm[16 * j + 12] = -(float)j;
    }
    const float times_wave[3] = {0, 1, 2}, times_turn[2] = {0, 1};
    const float s = 0.70710678f;
    const float rot_wave[12] = {0, 0, 0, 1, 0, 0, s, s, 0, 0, 0, 1};
    const float rot_turn[8] = {0, 0, 0, 1, 0, 0, s, s};
    const float trans_bad[9] = {0, 0, 0, NAN, 0, 0, 2, 0, 0};
    int pos =
        add(&b, positions, sizeof positions, FLOAT, 3, "VEC3", ",\"min\":[0,0,0],\"max\":[1,1,0]");
    int j0 = add(&b, joints0, sizeof joints0, USHORT, 3, "VEC4", "");
    int w0 = add(&b, weights0, sizeof weights0, FLOAT, 3, "VEC4", "");
    int j1 = add(&b, joints1, sizeof joints1, USHORT, 3, "VEC4", "");
    int w1 = add(&b, weights1, sizeof weights1, FLOAT, 3, "VEC4", "");
    int inv = add(&b, ibm, sizeof ibm, FLOAT, 6, "MAT4", "");
    int tw = add(&b, times_wave, sizeof times_wave, FLOAT, 3, "SCALAR", ",\"min\":[0],\"max\":[2]");
    int rw = add(&b, rot_wave, sizeof rot_wave, FLOAT, 3, "VEC4", "");
    int tt = add(&b, times_turn, sizeof times_turn, FLOAT, 2, "SCALAR", ",\"min\":[0],\"max\":[1]");
    int rt = add(&b, rot_turn, sizeof rot_turn, FLOAT, 2, "VEC4", "");
    int vb = add(&b, trans_bad, sizeof trans_bad, FLOAT, 3, "VEC3", "");
    char *data = base64(b.data, b.size);
    size_t size = strlen(data) + 16384;
    char *json = malloc(size);
    snprintf(
        json, size,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"name\":\"root\",\"children\":[1,2,3,4,5,6,7]},"
        "{\"name\":\"j0\"},{\"name\":\"j1\",\"translation\":[1,0,0]},"
        "{\"name\":\"j2\",\"translation\":[2,0,0],\"children\":[8]},"
        "{\"name\":\"j3\",\"translation\":[3,0,0]},{\"name\":\"j4\",\"translation\":[4,0,0]},"
        "{\"name\":\"j5\",\"translation\":[5,0,0]},"
        "{\"name\":\"skinned\",\"mesh\":0,\"skin\":0,\"translation\":[0,0,5]},"
        "{\"name\":\"prop\",\"mesh\":1,\"translation\":[0,0,1]}],"
        "\"skins\":[{\"joints\":[1,2,3,4,5,6],\"inverseBindMatrices\":%d}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"JOINTS_0\":%d,"
        "\"WEIGHTS_0\":%d,\"JOINTS_1\":%d,\"WEIGHTS_1\":%d}}]},"
        "{\"primitives\":[{\"attributes\":{\"POSITION\":%d}}]}],"
        "\"animations\":["
        "{\"name\":\"wave\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":"
        "\"rotation\"}}],"
        "\"samplers\":[{\"input\":%d,\"output\":%d}]},"
        "{\"name\":\"turn\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":"
        "\"rotation\"}}],"
        "\"samplers\":[{\"input\":%d,\"output\":%d}]},"
        "{\"name\":\"wave\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":"
        "\"rotation\"}}],"
        "\"samplers\":[{\"input\":%d,\"output\":%d}]},"
        "{\"name\":\"bad\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":"
        "\"translation\"}}],"
        "\"samplers\":[{\"input\":%d,\"output\":%d}]}],"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[%s],\"accessors\":[%s]}",
        inv, pos, j0, w0, j1, w1, pos, tw, rw, tt, rt, tw, rw, tw, vb, b.size, data, b.views,
        b.accessors);
    free(data);
    return json;
}

/* The vertex at `p` (positions are distinct), or -1. */
static int32_t vertex_at(const crowd_mesh *mesh, float x, float y, float z) {
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        const float *p = &mesh->positions[3 * v];
        if (fabsf(p[0] - x) < 1e-5f && fabsf(p[1] - y) < 1e-5f && fabsf(p[2] - z) < 1e-5f) {
            return (int32_t)v;
        }
    }
    return -1;
}

static float weight_of(const crowd_mesh *mesh, int32_t v, int32_t joint) {
    float sum = 0.0f;
    for (int k = 0; k < 4; k++) {
        if (mesh->joints[4 * v + k] == joint) {
            sum += mesh->weights[4 * v + k];
        }
    }
    return sum;
}

static void check_gltf_repairs(void) {
    char *json = repair_scene();
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    crowd_result result =
        crowd_import_memory(json, strlen(json), "repairs.gltf", NULL, &asset, &error);
    free(json);
    CHECK_MSG(result == CROWD_OK, "repairs.gltf: %s", error.reason);
    if (asset == NULL) {
        return;
    }
    const crowd_mesh *mesh = &asset->mesh;
    const crowd_repairs *r = &asset->repairs;
    /* j0..j5 + "skinned" (holds the unweighted vertex) + "prop" (static mesh). */
    CHECK(asset->skeleton.joint_count == 8);
    int32_t j[6];
    for (int k = 0; k < 6; k++) {
        char name[4] = {'j', (char)('0' + k), 0, 0};
        j[k] = crowd_asset_find_joint(asset, name);
        CHECK(j[k] >= 0);
    }
    int32_t skinned = crowd_asset_find_joint(asset, "skinned");
    int32_t prop = crowd_asset_find_joint(asset, "prop");
    CHECK(skinned >= 0 && prop >= 0 && asset->skeleton.parents[prop] == j[2]);

    CHECK(r->influences_truncated == 1);
    int32_t v0 = vertex_at(mesh, 0, 0, 0);
    CHECK(v0 >= 0);
    if (v0 >= 0) {
        /* Kept the 4 largest (0.30 0.25 0.20 0.12, sum 0.87), renormalized. */
        CHECK_NEAR(weight_of(mesh, v0, j[0]), 0.30 / 0.87, 1e-6);
        CHECK_NEAR(weight_of(mesh, v0, j[1]), 0.25 / 0.87, 1e-6);
        CHECK_NEAR(weight_of(mesh, v0, j[2]), 0.20 / 0.87, 1e-6);
        CHECK_NEAR(weight_of(mesh, v0, j[3]), 0.12 / 0.87, 1e-6);
        CHECK(weight_of(mesh, v0, j[4]) == 0.0f && weight_of(mesh, v0, j[5]) == 0.0f);
    }
    /* v0 summed to 1 before truncation: only v1 counts as renormalized. */
    CHECK(r->weights_renormalized == 1);
    int32_t v1 = vertex_at(mesh, 1, 0, 0);
    CHECK(v1 >= 0);
    if (v1 >= 0) {
        CHECK_NEAR(weight_of(mesh, v1, j[1]), 2.0 / 3.0, 1e-6);
        CHECK_NEAR(weight_of(mesh, v1, j[2]), 1.0 / 3.0, 1e-6);
    }
    /* v2 had no weight: rigid on its mesh's node, so in bind space it sits
     * where that node puts it (z = 5). */
    CHECK(r->vertices_unweighted == 1);
    int32_t v2 = vertex_at(mesh, 0, 1, 5);
    CHECK(v2 >= 0);
    if (v2 >= 0) {
        CHECK(weight_of(mesh, v2, skinned) == 1.0f);
    }
    /* The prop's triangle: rigid on "prop", placed by j2 (x = 2) and prop (z = 1). */
    CHECK(r->static_meshes_rigid == 1);
    int32_t p0 = vertex_at(mesh, 2, 0, 1), p1 = vertex_at(mesh, 3, 0, 1),
            p2 = vertex_at(mesh, 2, 1, 1);
    CHECK(p0 >= 0 && p1 >= 0 && p2 >= 0);
    if (p0 >= 0) {
        CHECK(weight_of(mesh, p0, prop) == 1.0f);
    }
    /* No NORMAL in the file: all 6 normals generated; the prop's triangle faces +z. */
    CHECK(r->normals_generated == 6);
    CHECK(p0 < 0 || fabsf(mesh->normals[3 * p0 + 2] - 1.0f) < 1e-6f);

    CHECK(asset->clip_count == 4);
    int32_t wave = crowd_asset_find_clip(asset, "wave");
    int32_t turn = crowd_asset_find_clip(asset, "turn");
    CHECK(wave == 0 && turn == 1);
    CHECK(wave >= 0 && asset->clips[wave].loop && asset->clips[wave].duration_s == 2.0f);
    CHECK(turn >= 0 && !asset->clips[turn].loop && asset->clips[turn].duration_s == 1.0f);
    CHECK(r->clips_renamed == 1);
    CHECK(asset->clip_count == 4 && strcmp(asset->clips[2].name, "wave_2") == 0);
    /* "bad": the NaN key is dropped, the two others kept. (Keys out of order
     * never reach crowd from glTF: assimp's validation rejects them.) */
    CHECK(r->keys_dropped == 1);
    int32_t bad = crowd_asset_find_clip(asset, "bad");
    CHECK(bad >= 0 && asset->clips[bad].tracks[j[1]].translation.key_count == 2);
    crowd_asset_destroy(asset);
}

/* A text .X file without AnimTicksPerSecond: assimp reports 0 ticks per
 * second, crowd assumes 25, so the key at tick 50 is at 2 s. The mesh hangs
 * from the animated frame "Root" without weights: a static mesh, rigid on it. */
static const char x_without_ticks[] =
    "xof 0303txt 0032\n"
    "Frame Root {\n"
    " FrameTransformMatrix { 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,0.0,0.0,1.0;; "
    "}\n"
    " Mesh tri {\n"
    "  3;\n  0.0;0.0;0.0;,\n  1.0;0.0;0.0;,\n  0.0;1.0;0.0;;\n"
    "  1;\n  3;0,1,2;;\n"
    " }\n"
    "}\n"
    "AnimationSet Move {\n"
    " Animation {\n  { Root }\n"
    "  AnimationKey {\n   2;\n   2;\n   0;3;0.0,0.0,0.0;;,\n   50;3;1.0,0.0,0.0;;;\n  }\n"
    " }\n"
    "}\n";

static void check_ticks_per_second_zero(void) {
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_import_memory(x_without_ticks, strlen(x_without_ticks), "ticks.x",
                                              NULL, &asset, &error);
    CHECK_MSG(result == CROWD_OK, "ticks.x: %s", error.reason);
    if (asset == NULL) {
        return;
    }
    CHECK(asset->clip_count == 1);
    CHECK(asset->clip_count == 1 && asset->clips[0].duration_s == 2.0f);
    CHECK(asset->clip_count == 1 && !asset->clips[0].loop);
    CHECK(!asset->has_skin);
    CHECK(asset->repairs.static_meshes_rigid == 1);
    CHECK(asset->skeleton.joint_count >= 1 && crowd_asset_find_joint(asset, "Root") >= 0);
    crowd_asset_destroy(asset);
}

int test_import_repairs(void) {
    check_gltf_repairs();
    check_ticks_per_second_zero();
    return CHECK_REPORT("repairs");
}
