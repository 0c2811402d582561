/* test_bakeio_models - bake folders of real characters, and the Khronos
 * glTF validator on every mesh the writer produces.
 *
 * robot.glb, greenman.glb (textured) and the built-in character are
 * imported, baked, written (with the OpenVAT set) and loaded back: every
 * texel, clip and mesh array must come back bit for bit. Each written .glb
 * (crowd's and OpenVAT's) then goes through gltf-validator, one of the npm
 * packages scripts/install-deps.sh installs from tests/browser's
 * package-lock.json (CROWD_NODE_MODULES); without node or the package the
 * test fails, saying which is missing.
 */
#define _XOPEN_SOURCE 700

#include <sys/wait.h>

#include "check.h"
#include "bakeio_fixture.h"
#include "crowd/builtin.h"
#include "crowd/import.h"

static char root[] = "/tmp/test_bakeio_models.XXXXXX";

/* Every .glb written by this test, for the validator at the end. */
static char glb_files[16][1200];
static int glb_count;

static void remember_glb(const char *dir, const char *name) {
    if (glb_count < 16) {
        fx_join(glb_files[glb_count++], sizeof glb_files[0], dir, name);
    }
}

static bool same_bytes(const void *a, const void *b, size_t size) {
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && memcmp(a, b, size) == 0);
}

static void compare_texture(const crowd_texture *a, const crowd_texture *b, const char *what) {
    CHECK_MSG(a->width == b->width && a->height == b->height && a->format == b->format,
              "%s: layout", what);
    size_t bytes = (size_t)a->width * a->height * crowd__bake_texel_size_bytes(a->format);
    CHECK_MSG(same_bytes(a->texels, b->texels, bytes), "%s: texels differ", what);
}

/* mesh.glb holds one primitive per material, in the order the materials
 * are first used, over that material's triangles in index order: the
 * loaded mesh's submeshes and indices are the built one's regrouped so. */
static void check_grouped(const crowd_mesh *m, const crowd_mesh *n) {
    uint32_t *expect = malloc((size_t)m->index_count * sizeof *expect);
    REQUIRE_VOID(expect != NULL);
    uint32_t filled = 0, runs = 0;
    for (uint32_t s = 0; s < m->submesh_count; s++) {
        bool seen = false;
        for (uint32_t t = 0; t < s; t++) {
            seen = seen || (m->submeshes[t].material == m->submeshes[s].material &&
                            m->submeshes[t].index_count > 0);
        }
        if (seen || m->submeshes[s].index_count == 0) {
            continue;
        }
        uint32_t first = filled;
        for (uint32_t t = s; t < m->submesh_count; t++) {
            const crowd_submesh *sub = &m->submeshes[t];
            for (uint32_t i = 0; sub->material == m->submeshes[s].material && i < sub->index_count;
                 i++) {
                expect[filled++] = m->indices[sub->first_index + i];
            }
        }
        CHECK_MSG(runs < n->submesh_count && n->submeshes[runs].first_index == first &&
                      n->submeshes[runs].index_count == filled - first &&
                      n->submeshes[runs].material == m->submeshes[s].material,
                  "loaded submesh %u is not material %u's triangles", runs,
                  m->submeshes[s].material);
        runs++;
    }
    CHECK_MSG(n->submesh_count == runs, "%u submeshes loaded, %u materials used", n->submesh_count,
              runs);
    CHECK(filled == m->index_count && same_bytes(expect, n->indices, 4 * (size_t)filled));
    free(expect);
}

/* The loaded bake against the one built in memory: every texel, and the
 * mesh, skeleton and materials against the asset it was built from. */
static void compare_loaded(const crowd_bake *built, const crowd_bake *loaded,
                           const crowd_asset *asset) {
    CHECK(loaded->clip_count == built->clip_count && loaded->frame_count == built->frame_count);
    for (uint32_t i = 0; i < built->clip_count && i < loaded->clip_count; i++) {
        CHECK(strcmp(built->clips[i].name, loaded->clips[i].name) == 0);
        CHECK(built->clips[i].first_frame == loaded->clips[i].first_frame);
        CHECK(built->clips[i].frame_count == loaded->clips[i].frame_count);
        CHECK(built->clips[i].loop == loaded->clips[i].loop &&
              built->clips[i].duration_s == loaded->clips[i].duration_s);
    }
    CHECK(same_bytes(built->bounds_min, loaded->bounds_min, sizeof built->bounds_min));
    CHECK(same_bytes(built->bounds_max, loaded->bounds_max, sizeof built->bounds_max));
    for (uint32_t i = 0; i < built->clip_count && i < loaded->clip_count; i++) {
        const crowd_bake_clip *x = &built->clips[i], *y = &loaded->clips[i];
        CHECK(same_bytes(x->bounds_min, y->bounds_min, sizeof x->bounds_min) &&
              same_bytes(x->bounds_max, y->bounds_max, sizeof x->bounds_max) &&
              same_bytes(x->sphere_center, y->sphere_center, sizeof x->sphere_center) &&
              x->sphere_radius == y->sphere_radius);
    }
    /* the LODs, read back from the manifest and the mesh */
    CHECK(loaded->lod_count == built->lod_count);
    CHECK(same_bytes(built->lods, loaded->lods, sizeof built->lods));
    CHECK(loaded->lod_vertex_total == built->lod_vertex_total &&
          loaded->lod_index_total == built->lod_index_total);
    if (loaded->lod_vertex_total == built->lod_vertex_total &&
        loaded->lod_index_total == built->lod_index_total && built->lod_count > 1) {
        CHECK(same_bytes(built->lod_vertices, loaded->lod_vertices,
                         4 * (size_t)built->lod_vertex_total));
        CHECK(same_bytes(built->lod_indices, loaded->lod_indices,
                         4 * (size_t)built->lod_index_total));
    }
    CHECK(loaded->vat_rows_per_frame == built->vat_rows_per_frame &&
          loaded->bat_rows_per_frame == built->bat_rows_per_frame);
    compare_texture(&built->vat_position, &loaded->vat_position, "VAT position");
    compare_texture(&built->vat_normal, &loaded->vat_normal, "VAT normal");
    compare_texture(&built->bat, &loaded->bat, "BAT");
    const crowd_mesh *m = &asset->mesh, *n = &loaded->asset->mesh;
    REQUIRE_VOID(m->vertex_count == n->vertex_count && m->index_count == n->index_count);
    size_t v = m->vertex_count;
    CHECK(same_bytes(m->positions, n->positions, 12 * v) &&
          same_bytes(m->normals, n->normals, 12 * v));
    CHECK(same_bytes(m->uv0, n->uv0, 8 * v) && same_bytes(m->joints, n->joints, 8 * v));
    CHECK(same_bytes(m->weights, n->weights, 16 * v));
    check_grouped(m, n);
    const crowd_skeleton *s = &asset->skeleton, *t = &loaded->asset->skeleton;
    REQUIRE_VOID(s->joint_count == t->joint_count);
    for (uint32_t j = 0; j < s->joint_count; j++) {
        CHECK(strcmp(s->names[j], t->names[j]) == 0 && s->parents[j] == t->parents[j]);
    }
    size_t j = s->joint_count;
    CHECK(same_bytes(s->rest_translation, t->rest_translation, 12 * j));
    CHECK(same_bytes(s->rest_rotation, t->rest_rotation, 16 * j));
    CHECK(same_bytes(s->rest_scale, t->rest_scale, 12 * j));
    CHECK(same_bytes(s->inverse_bind, t->inverse_bind, 64 * j));
    for (int i = 0; i < 16; i++) {
        CHECK(s->root_transform[i] == t->root_transform[i]);
    }
    CHECK(asset->material_count == loaded->asset->material_count);
    for (uint32_t i = 0; i < asset->material_count && i < loaded->asset->material_count; i++) {
        const crowd_material *x = &asset->materials[i], *y = &loaded->asset->materials[i];
        CHECK(strcmp(x->name, y->name) == 0);
        for (int c = 0; c < 4; c++) {
            float clamped = x->base_color[c] < 0.0f   ? 0.0f
                            : x->base_color[c] > 1.0f ? 1.0f
                                                      : x->base_color[c];
            CHECK(clamped == y->base_color[c]);
        }
        CHECK(x->texture_width == y->texture_width && x->texture_height == y->texture_height);
        CHECK(same_bytes(x->texture_rgba8, y->texture_rgba8,
                         (size_t)x->texture_width * x->texture_height * 4));
        const char *differs = fx_material_differs(x, y);
        CHECK_MSG(differs == NULL, "material %u: %s", i, differs);
    }
}

static void bake_model(const char *label, crowd_asset *asset, crowd_vat_encoding encoding,
                       bool expect_texture) {
    crowd_bake_desc desc = {.vat_encoding = encoding};
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_build(asset, &desc, &bake, &error);
    CHECK_MSG(result == CROWD_OK, "%s: build: %s", label, error.reason);
    if (result != CROWD_OK) {
        return;
    }
    CHECK_MSG(bake->lod_count == 1 + CROWD_BAKE_DEFAULT_LODS, "%s: %u LODs", label,
              bake->lod_count);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", root, label);
    crowd_bake_write_desc write = {.openvat = true};
    if (fx_written(bake, dir, &write)) {
        crowd_bake *loaded = NULL;
        result = crowd_bake_load(dir, NULL, &loaded, &error);
        CHECK_MSG(result == CROWD_OK, "%s: load: %s: %s", label, error.file, error.reason);
        if (loaded != NULL) {
            compare_loaded(bake, loaded, asset);
            bool textured = false;
            for (uint32_t m = 0; m < loaded->asset->material_count; m++) {
                textured = textured || loaded->asset->materials[m].texture_rgba8 != NULL;
            }
            CHECK(textured == expect_texture);
        }
        crowd_bake_destroy(loaded);
        char name[512];
        snprintf(name, sizeof name, "%s.1.mesh.glb", bake->name);
        remember_glb(dir, name);
        snprintf(name, sizeof name, "openvat/%s.1.glb", bake->name);
        remember_glb(dir, name);
    } else {
        CHECK(!"write failed");
    }
    crowd_bake_destroy(bake);
}

static void test_models(void) {
    static const struct {
        const char *file, *label;
        crowd_vat_encoding encoding;
        bool textured;
    } models[] = {
        {"robot.glb", "robot", CROWD_VAT_DEFAULT, false},
        {"robot.glb", "robot_f16", CROWD_VAT_F16, false},
        {"greenman.glb", "greenman", CROWD_VAT_F32, true},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        const char *path = check_shared_model(models[i].file);
        if (path == NULL) {
            continue;
        }
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        CHECK_MSG(crowd_import_file(path, NULL, &asset, &error) == CROWD_OK, "%s: %s", path,
                  error.reason);
        if (asset != NULL) {
            bake_model(models[i].label, asset, models[i].encoding, models[i].textured);
        }
        crowd_asset_destroy(asset);
    }
    crowd_asset *builtin = NULL;
    crowd_error error = {0};
    CHECK(crowd_builtin_create(&builtin, &error) == CROWD_OK);
    if (builtin != NULL) {
        bake_model("builtin", builtin, CROWD_VAT_DEFAULT, false);
    }
    crowd_asset_destroy(builtin);
    /* the synthetic character too: several submeshes, a textured material,
     * a skeleton under a translated root */
    crowd_asset *asset = fx_asset_create(40);
    fx_bake_options options = {16, CROWD_VAT_F32, 9, CROWD_BAT_F32, 51};
    crowd_bake *bake = fx_bake_create(asset, &options);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/synth", root);
    crowd_bake_write_desc write = {.openvat = true};
    if (fx_written(bake, dir, &write)) {
        remember_glb(dir, "synth.1.mesh.glb");
        remember_glb(dir, "openvat/synth.1.glb");
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* ---- gltf-validator ------------------------------------------------------------------ */

static int run(const char *command) {
    fflush(NULL);
    int status = system(command);
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_validator(void) {
    char package[1200], command[8192];
    int failures_before = check_failures;
    snprintf(package, sizeof package, "%s/gltf-validator/package.json", CROWD_NODE_MODULES);
    CHECK_MSG(run("command -v node >/dev/null 2>&1") == 0,
              "gltf-validator: node is not installed (scripts/install-deps.sh test)");
    CHECK_MSG(check_path_exists(package),
              "gltf-validator: %s not found (scripts/install-deps.sh test installs it)", package);
    if (check_failures > failures_before) {
        return;
    }
    int length =
        snprintf(command, sizeof command, "NODE_PATH='%s' node '%s/tests/bakeio/validate_gltf.js'",
                 CROWD_NODE_MODULES, CROWD_SOURCE_DIR);
    for (int i = 0; i < glb_count && length > 0 && (size_t)length < sizeof command; i++) {
        length +=
            snprintf(command + length, sizeof command - (size_t)length, " '%s'", glb_files[i]);
    }
    CHECK(glb_count >= 2);
    int status = run(command);
    CHECK_MSG(status == 0, "gltf-validator reported errors (exit %d)", status);
}

int main(void) {
    check_enter_temp_dir("test_bakeio_models");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_models();
    test_validator();
    test_remove_tree(root);
    return check_finish();
}
