/* The world's draw programs, shared: archetypes that draw the same variant
 * (mode, VAT normal decoding, fragment function) use one set of compiled
 * programs, counted by its users and deleted with the last of them. A
 * program reads everything per archetype from uniforms and bindings set at
 * each draw (draw.c), so nothing in it belongs to one archetype. */
#include <stdio.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

struct gpu_program_set {
    crowd_gpu_mode mode;
    bool vat_oct;
    bool vat_uint16;
    char *fragment_source; /* the caller's crowd_shade; NULL: crowd's default */
    uint32_t users;
    gpu_mode_programs programs;
};

static void delete_program(gpu_program *program) {
    if (program->id != 0) {
        glDeleteProgram(program->id);
        program->id = 0;
    }
}

/* The draw programs' uniforms by GPU_UNIFORM_* number. */
static const char *const uniform_names[GPU_UNIFORM_COUNT] = {
    [GPU_UNIFORM_VIEW_PROJ] = "u_view_proj",
    [GPU_UNIFORM_TIME] = "u_time",
    [GPU_UNIFORM_TEX_WIDTH] = "u_tex_width",
    [GPU_UNIFORM_ROWS_PER_FRAME] = "u_rows_per_frame",
    [GPU_UNIFORM_JOINT_COUNT] = "u_joint_count",
    [GPU_UNIFORM_BOUNDS_MIN] = "u_bounds_min",
    [GPU_UNIFORM_BOUNDS_EXTENT] = "u_bounds_extent",
    [GPU_UNIFORM_LIGHT_DIR] = "u_light_dir",
    [GPU_UNIFORM_INV_TEX_WIDTH] = "u_inv_tex_width",
    [GPU_UNIFORM_LIGHT_COLOR] = "u_light_color",
    [GPU_UNIFORM_AMBIENT_SKY] = "u_ambient_sky",
    [GPU_UNIFORM_AMBIENT_GROUND] = "u_ambient_ground",
    [GPU_UNIFORM_LINEAR_OUTPUT] = "u_linear_output",
    [GPU_UNIFORM_ARCHETYPE] = "u_archetype",
    [GPU_UNIFORM_LOD_TINT] = "u_lod_tint",
    [GPU_UNIFORM_PROP_BIT] = "u_prop_bit",
    [GPU_UNIFORM_CAMERA_POSITION] = "u_camera_position",
    [GPU_UNIFORM_CLIPS] = "u_clips",
};

/* Samplers and their units (GPU_TEXTURE_*): the portable tier's GLSL has
 * no layout(binding), so each unit is set once after linking. */
static const struct {
    const char *name;
    GLint unit;
} sampler_units[] = {
    {"u_textures", GPU_TEXTURE_MATERIALS},
    {"u_bat", GPU_TEXTURE_BAT},
    {"u_vat_position", GPU_TEXTURE_VAT_POSITION},
    {"u_vat_normal", GPU_TEXTURE_VAT_NORMAL},
    {"u_material_records", GPU_TEXTURE_MATERIAL_RECORDS},
    {"u_palettes", GPU_TEXTURE_PALETTES},
    {"u_side", GPU_TEXTURE_SIDE},
};

/* Links the program and fills its uniform table; on the portable tier
 * sets its samplers' units (the current program is put back). */
static crowd_result build(const crowd_world *w, const char *fragment_name, const char *defines,
                          const char *tail, gpu_program *out, crowd_error *error) {
    crowd_result result = crowd__gpu_program_create(w->glsl, "crowd.vert.glsl", fragment_name,
                                                    defines, tail, &out->id, error);
    if (result != CROWD_OK) {
        return result;
    }
    for (int u = 0; u < GPU_UNIFORM_COUNT; u++) {
        out->uniform[u] =
            uniform_names[u] != NULL ? glGetUniformLocation(out->id, uniform_names[u]) : -1;
    }
    if (w->portable) {
        GLint current = 0;
        glGetIntegerv(GL_CURRENT_PROGRAM, &current);
        glUseProgram(out->id);
        for (size_t i = 0; i < sizeof sampler_units / sizeof sampler_units[0]; i++) {
            GLint location = glGetUniformLocation(out->id, sampler_units[i].name);
            if (location >= 0) {
                glUniform1i(location, sampler_units[i].unit);
            }
        }
        glUseProgram((GLuint)current);
    }
    return crowd__gpu_check(error, "setting up a program");
}

static void delete_programs(gpu_mode_programs *p) {
    delete_program(&p->color);
    delete_program(&p->color_fade);
    delete_program(&p->depth);
    delete_program(&p->depth_fade);
    delete_program(&p->color_nearest);
    delete_program(&p->depth_nearest);
}

/* The colour and depth programs of a mode, and for bat and vat the builds
 * with the crossfade code and those that fetch one frame (crowd.vert.glsl
 * says why each is a build of its own). The
 * colour pass ends with the caller's crowd_shade or crowd's default one. */
static crowd_result compile_programs(const crowd_world *w, const gpu_program_set *set,
                                     gpu_mode_programs *p, crowd_error *error) {
    static const char *const defines[CROWD_GPU_MODE_COUNT] = {
        "#define MODE_STATIC 1\n", "#define MODE_CPU 1\n", "#define MODE_GPU 1\n",
        "#define MODE_BAT 1\n", "#define MODE_VAT 1\n"};
    bool fades = set->mode == CROWD_GPU_MODE_BAT || set->mode == CROWD_GPU_MODE_VAT;
    const char *shade = set->fragment_source != NULL
                            ? set->fragment_source
                            : crowd_gpu_shader_source("crowd_shade_default.glsl");
    char text[160], fade_text[192], nearest_text[192];
    snprintf(text, sizeof text, "%s%s%s", defines[set->mode],
             set->vat_oct ? "#define VAT_OCT 1\n" : "",
             set->vat_uint16 ? "#define VAT_UINT16 1\n" : "");
    snprintf(fade_text, sizeof fade_text, "%s#define CROSSFADE 1\n", text);
    snprintf(nearest_text, sizeof nearest_text, "%s#define NEAREST_FRAME 1\n", text);
    crowd_result result = build(w, "crowd.frag.glsl", text, shade, &p->color, error);
    if (result == CROWD_OK) {
        result = build(w, "crowd_depth.frag.glsl", text, NULL, &p->depth, error);
    }
    if (result == CROWD_OK && fades) {
        result = build(w, "crowd.frag.glsl", fade_text, shade, &p->color_fade, error);
    }
    if (result == CROWD_OK && fades) {
        result = build(w, "crowd_depth.frag.glsl", fade_text, NULL, &p->depth_fade, error);
    }
    if (result == CROWD_OK && fades) {
        result = build(w, "crowd.frag.glsl", nearest_text, shade, &p->color_nearest, error);
    }
    if (result == CROWD_OK && fades) {
        result = build(w, "crowd_depth.frag.glsl", nearest_text, NULL, &p->depth_nearest, error);
    }
    if (result != CROWD_OK) {
        delete_programs(p);
    }
    return result;
}

static bool same_variant(const gpu_program_set *set, crowd_gpu_mode mode, bool vat_oct,
                         bool vat_uint16, const char *fragment_source) {
    if (set->mode != mode || set->vat_oct != vat_oct || set->vat_uint16 != vat_uint16) {
        return false;
    }
    if (set->fragment_source == NULL || fragment_source == NULL) {
        return set->fragment_source == fragment_source;
    }
    return strcmp(set->fragment_source, fragment_source) == 0;
}

static void set_free(crowd_world *w, gpu_program_set *set) {
    delete_programs(&set->programs);
    crowd__mem_free(&w->allocator, set->fragment_source);
    crowd__mem_free(&w->allocator, set);
}

/* A new set for the variant, compiled, in the world's list. */
static crowd_result set_create(crowd_world *w, crowd_gpu_mode mode, bool vat_oct, bool vat_uint16,
                               const char *fragment_source, gpu_program_set **out,
                               crowd_error *error) {
    if (w->program_set_count == w->program_set_capacity) {
        uint32_t capacity = w->program_set_capacity > 0 ? 2 * w->program_set_capacity : 8;
        void *grown = crowd__mem_grow(&w->allocator, w->program_sets,
                                      w->program_set_count * sizeof *w->program_sets,
                                      capacity * sizeof *w->program_sets);
        if (grown == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
        w->program_sets = grown;
        w->program_set_capacity = capacity;
    }
    gpu_program_set *set = crowd__mem_alloc_zeroed(&w->allocator, 1, sizeof *set);
    if (set == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    set->mode = mode;
    set->vat_oct = vat_oct;
    set->vat_uint16 = vat_uint16;
    if (fragment_source != NULL) {
        set->fragment_source = crowd__gpu_copy_string(w, fragment_source);
        if (set->fragment_source == NULL) {
            set_free(w, set);
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    crowd_result result = compile_programs(w, set, &set->programs, error);
    if (result != CROWD_OK) {
        set_free(w, set);
        return result;
    }
    w->program_sets[w->program_set_count++] = set;
    *out = set;
    return CROWD_OK;
}

crowd_result crowd__gpu_programs_acquire(crowd_world *w, crowd_gpu_mode mode, bool vat_oct,
                                         bool vat_uint16, const char *fragment_source,
                                         gpu_program_set **out, crowd_error *error) {
    *out = NULL;
    for (uint32_t i = 0; i < w->program_set_count; i++) {
        if (same_variant(w->program_sets[i], mode, vat_oct, vat_uint16, fragment_source)) {
            *out = w->program_sets[i];
            break;
        }
    }
    if (*out == NULL) {
        crowd_result result = set_create(w, mode, vat_oct, vat_uint16, fragment_source, out, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    (*out)->users++;
    return CROWD_OK;
}

void crowd__gpu_programs_release(crowd_world *w, gpu_program_set *set) {
    if (set == NULL || --set->users > 0) {
        return;
    }
    for (uint32_t i = 0; i < w->program_set_count; i++) {
        if (w->program_sets[i] == set) {
            w->program_sets[i] = w->program_sets[--w->program_set_count];
            break;
        }
    }
    set_free(w, set);
}

const gpu_mode_programs *crowd__gpu_programs_of(const gpu_program_set *set) {
    return &set->programs;
}

void crowd__gpu_programs_destroy_all(crowd_world *w) {
    for (uint32_t i = 0; i < w->program_set_count; i++) {
        set_free(w, w->program_sets[i]);
    }
    crowd__mem_free(&w->allocator, w->program_sets);
    w->program_sets = NULL;
    w->program_set_count = w->program_set_capacity = 0;
}

uint32_t crowd__gpu_programs_count(const crowd_world *w) {
    uint32_t count = w->cull_program != 0 ? 1u : 0u;
    for (uint32_t i = 0; i < w->program_set_count; i++) {
        const gpu_mode_programs *p = &w->program_sets[i]->programs;
        count += (p->color.id != 0) + (p->color_fade.id != 0) + (p->depth.id != 0) +
                 (p->depth_fade.id != 0) + (p->color_nearest.id != 0) + (p->depth_nearest.id != 0);
    }
    return count;
}
