/* cast.c - the characters of a mixed crowd (cast.h). */
#include "cast.h"

#include <stdio.h>
#include <string.h>

crowd_result cast_load(cast *c, const char *const *specs, uint32_t count, bool bake,
                       const crowd_logger *logger, crowd_error *error) {
    memset(c, 0, sizeof *c);
    if (count > CAST_MAX_CHARACTERS) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "at most %u models at once", CAST_MAX_CHARACTERS);
    }
    for (uint32_t i = 0; i < count; i++) {
        crowd_result result =
            scene_character_load(specs[i], bake, logger, &c->characters[i], error);
        if (result != CROWD_OK) {
            cast_release(c);
            return result;
        }
        c->count = i + 1;
    }
    return CROWD_OK;
}

void cast_release(cast *c) {
    for (uint32_t i = 0; i < c->count; i++) {
        scene_character_release(&c->characters[i]);
    }
    c->count = 0;
}

bool cast_mode(const cast *c, uint32_t index, crowd_gpu_mode wanted, bool tell, crowd_gpu_mode *out,
               crowd_error *error) {
    const scene_character *character = &c->characters[index];
    if (scene_character_has_mode(character, wanted)) {
        *out = wanted;
        return true;
    }
    if (c->count == 1) {
        scene_mode_error(character, wanted, error);
        return false;
    }
    *out = scene_nearest_mode(character, wanted);
    if (tell) {
        fprintf(stderr, "crowd: warning: %s: cannot play %s: it %s; drawn in %s\n", character->spec,
                crowd_gpu_mode_name(wanted), scene_mode_needs(wanted), crowd_gpu_mode_name(*out));
    }
    return true;
}

crowd_result cast_add_archetypes(cast *c, crowd_world *world, const crowd_gpu_mode *wanted,
                                 crowd_error *error) {
    for (uint32_t i = 0; i < c->count; i++) {
        crowd_gpu_mode mode;
        if (!cast_mode(c, i, wanted[i], true, &mode, error)) {
            return error->result;
        }
        crowd_result result =
            scene_archetype_add(world, &c->characters[i], mode, NULL, &c->archetypes[i], error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

crowd_result cast_set_mode(cast *c, crowd_world *world, crowd_gpu_mode wanted, bool *fell_back,
                           crowd_error *error) {
    *fell_back = false;
    for (uint32_t i = 0; i < c->count; i++) {
        crowd_gpu_mode mode;
        if (!cast_mode(c, i, wanted, false, &mode, error)) {
            return error->result;
        }
        *fell_back = *fell_back || mode != wanted;
        crowd_result result = crowd_archetype_set_mode(world, c->archetypes[i], mode, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}
