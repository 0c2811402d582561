/* builtin_crowd.c - the GL 3.3 examples' world of built-in characters
 * (builtin_crowd.h). */
#include "builtin_crowd.h"

#include <stdio.h>

#include <epoxy/gl.h>

#include "crowd/bake.h"
#include "crowd/builtin.h"

crowd_result builtin_crowd_create(builtin_crowd *c, crowd_error *e) {
    *c = (builtin_crowd){0};
    const crowd_gpu_mode modes[2] = {CROWD_GPU_MODE_VAT, CROWD_GPU_MODE_GPU};
    crowd_result result = crowd_builtin_create(&c->character, e);
    if (result == CROWD_OK) {
        result = crowd_bake_build(c->character, NULL, &c->bake, e);
    }
    if (result == CROWD_OK) {
        result = crowd_world_create(NULL, &c->world, e); /* tier auto */
    }
    for (int k = 0; result == CROWD_OK && k < 2; k++) {
        crowd_archetype_desc desc = {.asset = c->character, .bake = c->bake, .mode = modes[k]};
        result = crowd_world_add_archetype(c->world, &desc, &c->kinds[k], e);
    }
    /* The builtin character has both; the first clip if it ever did not. */
    if (result == CROWD_OK) {
        crowd_archetype_find_clip(c->world, c->kinds[0], "walk", &c->walk);
        crowd_archetype_find_clip(c->world, c->kinds[0], "idle", &c->idle);
    }
    return result;
}

void builtin_crowd_destroy(builtin_crowd *c) {
    crowd_world_destroy(c->world);
    crowd_bake_destroy(c->bake);
    crowd_asset_destroy(c->character);
    *c = (builtin_crowd){0};
}

void builtin_crowd_print_context(const builtin_crowd *c) {
    GLint major = 0, minor = 0, profile = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
    crowd_world_stats stats;
    crowd_world_get_stats(c->world, &stats);
    printf("context: OpenGL %d.%d %s (%s); crowd tier: %s\n", (int)major, (int)minor,
           profile & GL_CONTEXT_CORE_PROFILE_BIT ? "core" : "not core",
           (const char *)glGetString(GL_VERSION), crowd_gpu_tier_name(stats.tier));
}
