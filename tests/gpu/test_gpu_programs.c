/* Programs and the C/GLSL contract: archetypes of one variant share one set
 * of programs (crowd_world_stats.program_count, checked against the GL
 * program names alive in the context), warm_programs compiles every
 * playable mode up front, and the record layout the shader compiler reports
 * is the one the C structs and the vertex array (crowd_contract.glsl) use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/gl.h>

#include "check.h"
#include "crowd/bake.h"
#include "gpu/internal.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

/* A fragment function of its own, a variant of its own. */
static const char *const RED_SHADE = "vec4 crowd_shade(crowd_surface s) {\n"
                                     "    return vec4(1.0, 0.0, 0.0, 1.0);\n"
                                     "}\n";

static uint32_t program_count(const crowd_world *world) {
    crowd_world_stats stats;
    crowd_world_get_stats(world, &stats);
    return stats.program_count;
}

/* Culling pass 1, a static variant 2 (colour, depth), a bat or vat variant
 * 6 (each also with the crossfade code and fetching one frame). */
enum { CULL = 1, PLAIN = 2, BAKED = 6 };

static void test_sharing(const crowd_asset *bar, const crowd_bake *bake) {
    uint32_t before = gpu_test_live_programs();
    crowd_world *world = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_world_create(NULL, &world, &error) == CROWD_OK);
    CHECK(program_count(world) == 0);
    crowd_archetype vat[4];
    crowd_archetype_desc desc = {.asset = bar, .bake = bake, .mode = CROWD_GPU_MODE_VAT};
    for (int i = 0; i < 4; i++) {
        CHECK(crowd_world_add_archetype(world, &desc, &vat[i], &error) == CROWD_OK);
        CHECK_MSG(program_count(world) == CULL + BAKED, "%d vat archetypes: %u programs", i + 1,
                  (unsigned)program_count(world));
    }
    CHECK(gpu_test_live_programs() - before == CULL + BAKED);
    printf("  4 vat archetypes of one variant: %u programs (unshared it would be %u)\n",
           (unsigned)program_count(world), (unsigned)(CULL + 4 * BAKED));
    CHECK(crowd_archetype_set_mode(world, vat[0], CROWD_GPU_MODE_STATIC, &error) == CROWD_OK);
    CHECK(crowd_archetype_set_mode(world, vat[1], CROWD_GPU_MODE_STATIC, &error) == CROWD_OK);
    CHECK(program_count(world) == CULL + BAKED + PLAIN);
    /* The same fragment text is the same variant; crowd's default is not. */
    crowd_archetype red[2];
    crowd_archetype_desc red_desc = {.asset = bar, .fragment_source = RED_SHADE};
    CHECK(crowd_world_add_archetype(world, &red_desc, &red[0], &error) == CROWD_OK);
    CHECK(crowd_world_add_archetype(world, &red_desc, &red[1], &error) == CROWD_OK);
    CHECK(program_count(world) == CULL + BAKED + 2 * PLAIN);
    /* A set lives while an archetype holds it: vat[0] and vat[1] keep the
     * vat set they used before switching. */
    CHECK(crowd_world_remove_archetype(world, vat[2], &error) == CROWD_OK);
    CHECK(crowd_world_remove_archetype(world, vat[3], &error) == CROWD_OK);
    CHECK(program_count(world) == CULL + BAKED + 2 * PLAIN);
    CHECK(crowd_world_remove_archetype(world, vat[0], &error) == CROWD_OK);
    CHECK(crowd_world_remove_archetype(world, vat[1], &error) == CROWD_OK);
    CHECK(program_count(world) == CULL + PLAIN);
    CHECK(crowd_world_remove_archetype(world, red[0], &error) == CROWD_OK);
    CHECK(program_count(world) == CULL + PLAIN);
    CHECK(crowd_world_remove_archetype(world, red[1], &error) == CROWD_OK);
    CHECK(program_count(world) == CULL);
    CHECK(gpu_test_live_programs() - before == CULL);
    crowd_world_destroy(world);
    CHECK(gpu_test_live_programs() == before);
}

/* One archetype's frame, alone in a world: RGBA8 or NULL. */
static uint8_t *drawn_alone(const crowd_asset *bar, const crowd_bake *bake, float x,
                            uint32_t clip) {
    gpu_scene scene;
    uint8_t *pixels = NULL;
    crowd_camera camera = gpu_test_bar_camera();
    if (gpu_scene_create(bar, bake, CROWD_GPU_MODE_VAT, &scene)) {
        crowd_instance id;
        crowd_instance_desc desc = {.position = {x, 0.0f, 0.0f}, .clip = clip};
        if (crowd_world_add_instance(scene.world, scene.archetype, &desc, &id, NULL) == CROWD_OK) {
            pixels = gpu_test_render(scene.world, 0.3, &camera);
        }
        gpu_scene_destroy(&scene);
    }
    return pixels;
}

/* Two archetypes that share programs but not textures or layouts (bakes of
 * other widths and frame rates) draw in one frame as each does alone: what
 * one sets in a shared program never reaches the other's draw. */
static void test_shared_draw(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_bake *narrow = NULL;
    crowd_error error;
    crowd_bake_desc narrow_desc = {.max_width = 16, .fps = 10.0f};
    REQUIRE_VOID(crowd_bake_build(bar, &narrow_desc, &narrow, &error) == CROWD_OK);
    CHECK(narrow->vat_position.width != bake->vat_position.width);
    uint8_t *left = drawn_alone(bar, bake, -0.6f, 0);
    uint8_t *right = drawn_alone(bar, narrow, 0.6f, 1);
    crowd_world *world = NULL;
    uint8_t *both = NULL;
    if (crowd_world_create(NULL, &world, &error) == CROWD_OK) {
        crowd_archetype a, b;
        crowd_instance ia, ib;
        crowd_archetype_desc desc = {.asset = bar, .bake = bake, .mode = CROWD_GPU_MODE_VAT};
        CHECK(crowd_world_add_archetype(world, &desc, &a, &error) == CROWD_OK);
        desc.bake = narrow;
        CHECK(crowd_world_add_archetype(world, &desc, &b, &error) == CROWD_OK);
        CHECK(program_count(world) == CULL + BAKED);
        CHECK(crowd_world_add_instance(world, a, &(crowd_instance_desc){.position = {-0.6f, 0, 0}},
                                       &ia, &error) == CROWD_OK);
        CHECK(crowd_world_add_instance(world, b,
                                       &(crowd_instance_desc){.position = {0.6f, 0, 0}, .clip = 1},
                                       &ib, &error) == CROWD_OK);
        crowd_camera camera = gpu_test_bar_camera();
        both = gpu_test_render(world, 0.3, &camera);
        crowd_world_destroy(world);
    }
    if (left != NULL && right != NULL && both != NULL) {
        /* The two do not overlap: the composite takes each pixel from the
         * left image where it is not background (its corner's colour). */
        uint8_t background[4];
        memcpy(background, left, 4);
        for (uint32_t i = 0; i < GPU_TEST_PIXELS; i++) {
            if (memcmp(left + 4 * i, background, 4) == 0) {
                memcpy(left + 4 * i, right + 4 * i, 4);
            }
        }
        gpu_test_save("programs_shared", "both", both);
        gpu_test_save("programs_shared", "composite", left);
        CHECK(gpu_test_close("two bakes on shared programs", left, both, 0.0));
    }
    free(left);
    free(right);
    free(both);
    crowd_bake_destroy(narrow);
}

static void test_warm(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_world *world = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_world_create(NULL, &world, &error) == CROWD_OK);
    crowd_archetype every, asset_only;
    crowd_archetype_desc desc = {.asset = bar, .bake = bake, .warm_programs = true};
    CHECK(crowd_world_add_archetype(world, &desc, &every, &error) == CROWD_OK);
    uint32_t warm = CULL + 3 * PLAIN + 2 * BAKED;
    CHECK_MSG(program_count(world) == warm, "warm: %u programs, expected %u",
              (unsigned)program_count(world), (unsigned)warm);
    uint32_t live = gpu_test_live_programs();
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        CHECK(crowd_archetype_set_mode(world, every, (crowd_gpu_mode)m, &error) == CROWD_OK);
    }
    CHECK(program_count(world) == warm && gpu_test_live_programs() == live);
    /* Only what it can play: an asset alone has no bat or vat. */
    crowd_archetype_desc only = {.asset = bar, .fragment_source = RED_SHADE, .warm_programs = true};
    CHECK(crowd_world_add_archetype(world, &only, &asset_only, &error) == CROWD_OK);
    CHECK(program_count(world) == warm + 3 * PLAIN);
    crowd_world_destroy(world);
}

/* What the compiler laid out against what C writes: the culling pass's
 * record (std430, as the storage buffers hold it), and the draw program's
 * record inputs against the vertex array's formats (mesh.c). */
static void test_record_layout(const crowd_asset *bar, const crowd_bake *bake) {
    gpu_scene scene;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_VAT, &scene));
    const gpu_archetype *a = crowd__gpu_world_archetype(scene.world, scene.archetype);
    REQUIRE_VOID(a != NULL);
    GLuint cull = scene.world->cull_program;
    const GLenum props[3] = {GL_OFFSET, GL_TOP_LEVEL_ARRAY_STRIDE, GL_ARRAY_STRIDE};
    GLint words[3] = {-1, -1, -1};
    GLuint index = glGetProgramResourceIndex(cull, GL_BUFFER_VARIABLE, "records[0].w[0]");
    CHECK(index != GL_INVALID_INDEX);
    glGetProgramResourceiv(cull, GL_BUFFER_VARIABLE, index, 3, props, 3, NULL, words);
    CHECK_MSG(words[0] == 0 && words[1] == (GLint)sizeof(gpu_instance_record) && words[2] == 4,
              "record words at %d, records every %d bytes (C: %zu), words every %d", words[0],
              words[1], sizeof(gpu_instance_record), words[2]);

    GLuint draw = crowd__gpu_programs_of(a->programs[CROWD_GPU_MODE_VAT])->color.id;
    /* Each record input against the vertex array's format for it: offset
     * of its first word in the C record, integer or not. */
    const struct {
        const char *name;
        GLint location;
        GLenum type;
        GLint word;
    } inputs[GPU_INSTANCE_ATTRS] = {
        {"i_position", GPU_INSTANCE_POSITION_ATTR, GL_FLOAT_VEC3, GPU_RECORD_POSITION},
        {"i_heading", GPU_INSTANCE_HEADING_ATTR, GL_INT, GPU_RECORD_HEADING},
        {"i_motion", GPU_INSTANCE_MOTION_ATTR, GL_FLOAT_VEC3, GPU_RECORD_SCALE},
        {"i_tint", GPU_INSTANCE_TINT_ATTR, GL_FLOAT_VEC4, GPU_RECORD_TINT},
        {"i_bits", GPU_INSTANCE_BITS_ATTR, GL_UNSIGNED_INT_VEC2, GPU_RECORD_BITS}};
    CHECK(offsetof(gpu_instance_record, heading) == 4 * GPU_RECORD_HEADING &&
          offsetof(gpu_instance_record, bits) == 4 * GPU_RECORD_BITS);
    for (int i = 0; i < GPU_INSTANCE_ATTRS; i++) {
        const GLenum input_props[2] = {GL_LOCATION, GL_TYPE};
        GLint got[2] = {-1, 0};
        index = glGetProgramResourceIndex(draw, GL_PROGRAM_INPUT, inputs[i].name);
        CHECK_MSG(index != GL_INVALID_INDEX, "no input %s", inputs[i].name);
        glGetProgramResourceiv(draw, GL_PROGRAM_INPUT, index, 2, input_props, 2, NULL, got);
        CHECK_MSG(got[0] == inputs[i].location && (GLenum)got[1] == inputs[i].type,
                  "%s: location %d, type 0x%x", inputs[i].name, got[0], (unsigned)got[1]);
        GLint offset = -1, integer = -1;
        GLuint location = (GLuint)inputs[i].location;
        glGetVertexArrayIndexediv(a->mesh.vao, location, GL_VERTEX_ATTRIB_RELATIVE_OFFSET, &offset);
        glGetVertexArrayIndexediv(a->mesh.vao, location, GL_VERTEX_ATTRIB_ARRAY_INTEGER, &integer);
        bool want_integer = inputs[i].type == GL_INT || inputs[i].type == GL_UNSIGNED_INT_VEC2;
        CHECK_MSG(offset == 4 * inputs[i].word && integer == want_integer,
                  "attribute %u: offset %d, integer %d", (unsigned)location, offset, integer);
    }
    gpu_scene_destroy(&scene);
}

int test_gpu_programs(void) {
    printf("programs\n");
    crowd_asset *bar = fixture_bar_create();
    crowd_bake *bake = NULL;
    crowd_error error;
    REQUIRE(bar != NULL && crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK);
    test_sharing(bar, bake);
    test_shared_draw(bar, bake);
    test_warm(bar, bake);
    test_record_layout(bar, bake);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(bar);
    return check_finish();
}
