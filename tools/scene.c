/* scene.c - character loading, crowd layout and camera shared by render,
 * demo, bench and play (see scene.h). */
#define _POSIX_C_SOURCE 200809L

#include "scene.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "crowd/import.h"

#define GOLDEN_ANGLE_RAD 2.39996323f
#define PI_F 3.14159265f

bool scene_is_bake_path(const char *spec) {
    struct stat st;
    if (stat(spec, &st) == 0 && S_ISDIR(st.st_mode)) {
        return true;
    }
    size_t length = strlen(spec);
    const char suffix[] = ".crowd.json";
    return length >= sizeof suffix - 1 && strcmp(spec + length - (sizeof suffix - 1), suffix) == 0;
}

crowd_result scene_character_load(const char *spec, bool bake, const crowd_logger *logger,
                                  scene_character *out, crowd_error *error) {
    memset(out, 0, sizeof *out);
    out->spec = spec;
    double start = cli_wall_s();
    if (scene_is_bake_path(spec)) {
        crowd_bake_load_desc load = {0};
        if (logger != NULL) {
            load.logger = *logger;
        }
        crowd_result result = crowd_bake_load(spec, &load, &out->bake, error);
        out->load_s = cli_wall_s() - start;
        return result;
    }
    crowd_import_desc import = {0};
    if (logger != NULL) {
        import.logger = *logger;
    }
    crowd_result result = crowd_model_load(spec, &import, &out->asset, error);
    out->load_s = cli_wall_s() - start;
    if (result != CROWD_OK || !bake) {
        return result;
    }
    crowd_bake_desc desc = {0};
    if (logger != NULL) {
        desc.logger = *logger;
    }
    start = cli_wall_s();
    result = crowd_bake_build(out->asset, &desc, &out->bake, error);
    out->bake_s = cli_wall_s() - start;
    if (result != CROWD_OK) {
        scene_character_release(out);
    }
    return result;
}

void scene_character_release(scene_character *character) {
    crowd_bake_destroy(character->bake);
    crowd_asset_destroy(character->asset);
    character->bake = NULL;
    character->asset = NULL;
}

void scene_log(void *user, crowd_log_level level, const char *message) {
    (void)user;
    if (level == CROWD_LOG_WARNING) {
        fprintf(stderr, "crowd: warning: %s\n", message);
    } else if (cli_verbose) {
        fprintf(stderr, "crowd: %s\n", message);
    }
}

bool scene_character_has_mode(const scene_character *character, crowd_gpu_mode mode) {
    switch (mode) {
    case CROWD_GPU_MODE_STATIC:
        return character->asset != NULL || character->bake != NULL;
    case CROWD_GPU_MODE_CPU:
    case CROWD_GPU_MODE_GPU:
        return character->asset != NULL ||
               (character->bake != NULL && character->bake->anim.present);
    case CROWD_GPU_MODE_BAT:
        return character->bake != NULL && character->bake->bat.texels != NULL;
    case CROWD_GPU_MODE_VAT:
        return character->bake != NULL && character->bake->vat_position.texels != NULL;
    case CROWD_GPU_MODE_COUNT:
        break;
    }
    return false;
}

const char *scene_mode_needs(crowd_gpu_mode mode) {
    switch (mode) {
    case CROWD_GPU_MODE_CPU:
    case CROWD_GPU_MODE_GPU:
        return "needs the source asset (a model file or builtin:) or a bake folder with runtime "
               "clips (manifest version 4)";
    case CROWD_GPU_MODE_BAT:
        return "needs a bake with a bone-matrix texture";
    case CROWD_GPU_MODE_VAT:
        return "needs a bake with a vertex animation texture";
    case CROWD_GPU_MODE_STATIC:
    case CROWD_GPU_MODE_COUNT:
        break;
    }
    return "needs a model or a bake";
}

crowd_result scene_mode_error(const scene_character *character, crowd_gpu_mode mode,
                              crowd_error *error) {
    return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, character->spec,
                           "cannot play mode '%s': it %s", crowd_gpu_mode_name(mode),
                           scene_mode_needs(mode));
}

crowd_gpu_mode scene_nearest_mode(const scene_character *character, crowd_gpu_mode wanted) {
    /* Per wanted mode, the others by how alike their work is: skinning on
     * the CPU or in the shader, baked data fetched by the shader. Static
     * plays whenever there is a character at all. */
    static const crowd_gpu_mode nearest[CROWD_GPU_MODE_COUNT][CROWD_GPU_MODE_COUNT - 1] = {
        [CROWD_GPU_MODE_CPU] = {CROWD_GPU_MODE_GPU, CROWD_GPU_MODE_BAT, CROWD_GPU_MODE_VAT,
                                CROWD_GPU_MODE_STATIC},
        [CROWD_GPU_MODE_GPU] = {CROWD_GPU_MODE_BAT, CROWD_GPU_MODE_CPU, CROWD_GPU_MODE_VAT,
                                CROWD_GPU_MODE_STATIC},
        [CROWD_GPU_MODE_BAT] = {CROWD_GPU_MODE_GPU, CROWD_GPU_MODE_VAT, CROWD_GPU_MODE_CPU,
                                CROWD_GPU_MODE_STATIC},
        [CROWD_GPU_MODE_VAT] = {CROWD_GPU_MODE_BAT, CROWD_GPU_MODE_GPU, CROWD_GPU_MODE_CPU,
                                CROWD_GPU_MODE_STATIC},
    };
    if (scene_character_has_mode(character, wanted) || (unsigned)wanted >= CROWD_GPU_MODE_COUNT) {
        return wanted;
    }
    for (int k = 0; k < CROWD_GPU_MODE_COUNT - 1; k++) {
        if (scene_character_has_mode(character, nearest[wanted][k])) {
            return nearest[wanted][k];
        }
    }
    return CROWD_GPU_MODE_STATIC;
}

crowd_result scene_archetype_add(crowd_world *world, const scene_character *character,
                                 crowd_gpu_mode mode, const char *fragment_source,
                                 crowd_archetype *out, crowd_error *error) {
    crowd_archetype_desc desc = {
        .asset = character->asset,
        .bake = character->bake,
        .mode = mode,
        .fragment_source = fragment_source,
        .name = character->spec,
    };
    return crowd_world_add_archetype(world, &desc, out, error);
}

static float lerp(float a, float b, float t) {
    return a + (b - a) * t;
}

/* Distance between neighbours: room for the widest archetype's bind-pose
 * footprint (arms out in a T-pose) without crowding a slim one. */
static float spacing_m(const crowd_world *world, const crowd_archetype *archetypes,
                       uint32_t archetype_count) {
    float spacing = 0.0f;
    for (uint32_t a = 0; a < archetype_count; a++) {
        float min[3], max[3];
        if (crowd_archetype_bind_bounds(world, archetypes[a], min, max)) {
            float footprint = fmaxf(max[0] - min[0], max[2] - min[2]);
            float height = max[1] - min[1];
            spacing = fmaxf(spacing, fmaxf(0.9f * footprint, 0.45f * height));
        }
    }
    return spacing > 0.0f && isfinite(spacing) ? spacing : 1.0f;
}

/* Looping clips keep a crowd alive; a one-shot (a death) would leave it
 * lying down, so one-shots are eligible only when nothing loops. */
static bool clip_eligible(const crowd_world *world, crowd_archetype archetype, uint32_t clip,
                          bool any_loops) {
    crowd_clip_info info;
    crowd_archetype_get_clip(world, archetype, clip, &info);
    return !any_loops || (info.loop && info.duration_s > 0.0f);
}

uint32_t scene_pick_clip(const crowd_world *world, crowd_archetype archetype, uint64_t *state,
                         uint32_t current) {
    uint32_t clip_count = crowd_archetype_clip_count(world, archetype);
    bool any_loops = false;
    for (uint32_t c = 0; c < clip_count; c++) {
        crowd_clip_info clip;
        crowd_archetype_get_clip(world, archetype, c, &clip);
        any_loops = any_loops || (clip.loop && clip.duration_s > 0.0f);
    }
    uint32_t candidates = 0;
    for (uint32_t c = 0; c < clip_count; c++) {
        candidates +=
            clip_eligible(world, archetype, c, any_loops) && (c != current || clip_count == 1);
    }
    if (candidates == 0) {
        return current < clip_count ? current : 0;
    }
    uint32_t pick = (uint32_t)(scene_random_u64(state) % candidates);
    for (uint32_t c = 0; c < clip_count; c++) {
        if (clip_eligible(world, archetype, c, any_loops) && (c != current || clip_count == 1) &&
            pick-- == 0) {
            return c;
        }
    }
    return 0;
}

void scene_instance_desc(const crowd_world *world, const crowd_archetype *archetypes,
                         uint32_t archetype_count, uint64_t seed, uint32_t index,
                         crowd_instance_desc *out) {
    memset(out, 0, sizeof *out);
    crowd_archetype archetype = archetypes[index % archetype_count];
    uint64_t state = seed * 0xD1B54A32D192ED03ull + index;
    scene_random_u64(&state);
    /* Sunflower spiral: radius grows with sqrt(index), so every person has
     * about the same room (pi * 0.55^2 ~ hexagonal packing at `spacing`). */
    float spacing = spacing_m(world, archetypes, archetype_count);
    float radius = 0.55f * spacing * sqrtf((float)index + 0.5f);
    float angle = (float)index * GOLDEN_ANGLE_RAD;
    out->position[0] =
        radius * cosf(angle) + lerp(-0.15f, 0.15f, scene_random_unit(&state)) * spacing;
    out->position[2] =
        radius * sinf(angle) + lerp(-0.15f, 0.15f, scene_random_unit(&state)) * spacing;
    out->heading_rad = lerp(-0.7f, 0.7f, scene_random_unit(&state));
    out->scale = lerp(0.9f, 1.1f, scene_random_unit(&state));
    out->clip = scene_pick_clip(world, archetype, &state, UINT32_MAX);
    crowd_clip_info clip = {0};
    crowd_archetype_get_clip(world, archetype, out->clip, &clip);
    out->time_offset_s = clip.duration_s * scene_random_unit(&state);
    out->speed = lerp(0.85f, 1.15f, scene_random_unit(&state));
    for (int c = 0; c < 3; c++) {
        out->tint[c] = lerp(0.7f, 1.0f, scene_random_unit(&state));
    }
    out->tint[3] = 1.0f;
}

crowd_result scene_populate(crowd_world *world, const crowd_archetype *archetypes,
                            uint32_t archetype_count, uint64_t seed, uint32_t count,
                            crowd_instance *ids, crowd_error *error) {
    uint32_t current = crowd_world_instance_count(world);
    for (uint32_t i = current; i > count; i--) {
        crowd_result result = crowd_world_remove_instance(world, ids[i - 1], error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    for (uint32_t i = current; i < count; i++) {
        crowd_instance_desc desc;
        scene_instance_desc(world, archetypes, archetype_count, seed, i, &desc);
        crowd_result result =
            crowd_world_add_instance(world, archetypes[i % archetype_count], &desc, &ids[i], error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void scene_camera(const crowd_world *world, crowd_archetype fallback, float aspect, float yaw_rad,
                  float pitch_rad, float zoom, crowd_camera *out) {
    memset(out, 0, sizeof *out);
    out->fov_y_rad = 40.0f * PI_F / 180.0f;
    out->up[1] = 1.0f;
    float min[3], max[3];
    if (!crowd_world_instance_bounds(world, min, max) &&
        !crowd_archetype_bind_bounds(world, fallback, min, max)) {
        memset(min, 0, sizeof min);
        memset(max, 0, sizeof max);
    }
    float centre[3];
    for (int a = 0; a < 3; a++) {
        centre[a] = 0.5f * (min[a] + max[a]);
    }
    float cp = cosf(pitch_rad), sp = sinf(pitch_rad);
    float back[3] = {sinf(yaw_rad) * cp, sp, cosf(yaw_rad) * cp};
    float right[3] = {cosf(yaw_rad), 0.0f, -sinf(yaw_rad)};
    float up[3] = {-sinf(yaw_rad) * sp, cp, -cosf(yaw_rad) * sp};
    float ty = tanf(0.5f * out->fov_y_rad), tx = ty * (aspect > 0.0f ? aspect : 1.0f);
    /* A corner at offset q from the centre lies at depth D - q.back; it is
     * in view when D >= |q.right| / tx + q.back and D >= |q.up| / ty + q.back. */
    float distance = 0.0f;
    for (int corner = 0; corner < 8; corner++) {
        float q[3] = {((corner & 1) ? max[0] : min[0]) - centre[0],
                      ((corner & 2) ? max[1] : min[1]) - centre[1],
                      ((corner & 4) ? max[2] : min[2]) - centre[2]};
        distance = fmaxf(distance, fabsf(dot3(q, right)) / tx + dot3(q, back));
        distance = fmaxf(distance, fabsf(dot3(q, up)) / ty + dot3(q, back));
    }
    distance = (distance > 0.01f ? distance * 1.05f : 1.0f) * (zoom > 0.0f ? zoom : 1.0f);
    for (int a = 0; a < 3; a++) {
        out->target[a] = centre[a];
        out->eye[a] = centre[a] + back[a] * distance;
    }
}

bool scene_gl_thread_setup(bool enable) {
    if (enable) {
        setenv("mesa_glthread", "true", 0);
    }
    const char *value = getenv("mesa_glthread");
    return value != NULL && strcmp(value, "true") == 0;
}

crowd_result scene_context_create(const host_context_desc *desc, host_context **out,
                                  crowd_error *error) {
    fflush(stderr);
    int saved = getenv("mesa_glthread") != NULL ? dup(STDERR_FILENO) : -1;
    int null_fd = saved >= 0 ? open("/dev/null", O_WRONLY) : -1;
    if (null_fd >= 0) {
        dup2(null_fd, STDERR_FILENO);
        close(null_fd);
    }
    crowd_result result = host_context_create(desc, out, error);
    if (saved >= 0) {
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    return result;
}

bool scene_parse_tier(const char *option, const char *text, crowd_gpu_tier *out) {
    const crowd_gpu_tier tiers[3] = {CROWD_TIER_AUTO, CROWD_TIER_GL45, CROWD_TIER_PORTABLE};
    for (int i = 0; i < 3; i++) {
        if (strcmp(text, crowd_gpu_tier_name(tiers[i])) == 0) {
            *out = tiers[i];
            return true;
        }
    }
    cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not auto, gl45 or portable", option, text);
    return false;
}

const char *scene_context_label(host_context_api api) {
    return api == HOST_CONTEXT_GL33 ? "gl33" : (api == HOST_CONTEXT_GLES3 ? "gles3" : "gl45");
}

bool scene_parse_context(const char *option, const char *text, host_context_api *out) {
    const host_context_api apis[3] = {HOST_CONTEXT_GL45, HOST_CONTEXT_GL33, HOST_CONTEXT_GLES3};
    for (int i = 0; i < 3; i++) {
        if (strcmp(text, scene_context_label(apis[i])) == 0) {
            *out = apis[i];
            return true;
        }
    }
    cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not gl45, gl33 or gles3", option, text);
    return false;
}
