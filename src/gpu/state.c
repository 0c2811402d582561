/* The GL state crowd_world_draw (and archetype creation, mode changes)
 * changes, read before and put back after (CROWD_STATE_RESTORE), or for
 * CROWD_STATE_RESET only the pieces drivers answer without waiting, the rest
 * left at GL's defaults (the lists are in crowd/gpu.h, "GL state"). The
 * rest, from the bound framebuffer to the depth function, crowd never
 * touches.
 *
 * Texture units 0-3 and 6 are the ones crowd binds (GPU_TEXTURE_*; 0-6 on
 * the portable tier); a sampler object the application left on one of them
 * would change how crowd's textures are read, so crowd unbinds it while it
 * draws and puts it back. The portable tier's list is what its contexts
 * have: no storage or draw-indirect buffers, and the array buffer binding
 * (it sets its attributes with glVertexAttribPointer). */
#include <string.h>

#include "gpu/internal.h"

/* The units crowd binds: 0-3 and the side table's (6) on the GL 4.5 tier,
 * 0-6 on the portable one. */
static bool unit_used(const gpu_saved_state *s, GLuint u) {
    return s->portable || u < GPU_TEXTURE_UNITS || u == GPU_TEXTURE_SIDE;
}

/* Every storage binding point crowd's shaders use (GPU_SSBO_*). */
#define STORAGE_POINTS 6
static const GLuint storage_indices[STORAGE_POINTS] = {1, 2, 3, 4, 5, 6};
_Static_assert(GPU_SSBO_PALETTES >= 1 && GPU_SSBO_PALETTES <= STORAGE_POINTS &&
                   GPU_SSBO_MATERIALS >= 1 && GPU_SSBO_MATERIALS <= STORAGE_POINTS &&
                   GPU_SSBO_CULL_RECORDS >= 1 && GPU_SSBO_CULL_LOD_STATE <= STORAGE_POINTS &&
                   GPU_SSBO_CULL_CLIP_STEPS <= STORAGE_POINTS,
               "storage_indices lists every binding point the shaders use");

void crowd__gpu_state_save(gpu_saved_state *s, const crowd_world *world,
                           crowd_state_policy policy) {
    memset(s, 0, sizeof *s);
    s->policy = policy;
    s->portable = world->portable;
    glGetIntegerv(GL_CURRENT_PROGRAM, &s->program);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active_texture);
    s->depth_test = glIsEnabled(GL_DEPTH_TEST);
    s->cull_face = glIsEnabled(GL_CULL_FACE);
    s->blend = glIsEnabled(GL_BLEND);
    if (!s->portable) {
        glGetIntegerv(GL_DRAW_INDIRECT_BUFFER_BINDING, &s->draw_indirect_buffer);
    }
    if (policy == CROWD_STATE_RESET) {
        memset(s->color_mask, GL_TRUE, sizeof s->color_mask);
        if (s->portable) {
            /* Its palette uploads then need no reads of the unpack state. */
            crowd__gpu_unpack_defaults(world->gles);
        }
        return;
    }
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &s->vertex_array);
    if (s->portable) {
        glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &s->array_buffer);
    }
    for (GLuint u = 0; u < GPU_PORTABLE_TEXTURE_UNITS; u++) {
        if (!unit_used(s, u)) {
            continue;
        }
        glActiveTexture(GL_TEXTURE0 + u);
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->texture_2d[u]);
        glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &s->texture_2d_array[u]);
        glGetIntegerv(GL_SAMPLER_BINDING, &s->sampler[u]);
    }
    glActiveTexture((GLenum)s->active_texture);
    glGetBooleanv(GL_COLOR_WRITEMASK, s->color_mask);
    if (s->portable) {
        return;
    }
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &s->storage_buffer);
    for (int i = 0; i < STORAGE_POINTS; i++) {
        glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, storage_indices[i],
                        &s->storage_indexed[i]);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, storage_indices[i], &s->storage_start[i]);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, storage_indices[i], &s->storage_size[i]);
    }
}

static void set_enabled(GLenum capability, GLboolean on) {
    if (on) {
        glEnable(capability);
    } else {
        glDisable(capability);
    }
}

void crowd__gpu_state_restore(const gpu_saved_state *s) {
    glUseProgram((GLuint)s->program);
    glBindVertexArray((GLuint)s->vertex_array);
    for (GLuint u = 0; u < GPU_PORTABLE_TEXTURE_UNITS; u++) {
        if (!unit_used(s, u)) {
            continue;
        }
        glActiveTexture(GL_TEXTURE0 + u);
        glBindTexture(GL_TEXTURE_2D, (GLuint)s->texture_2d[u]);
        glBindTexture(GL_TEXTURE_2D_ARRAY, (GLuint)s->texture_2d_array[u]);
        glBindSampler(u, (GLuint)s->sampler[u]);
    }
    glActiveTexture((GLenum)s->active_texture);
    set_enabled(GL_DEPTH_TEST, s->depth_test);
    set_enabled(GL_CULL_FACE, s->cull_face);
    set_enabled(GL_BLEND, s->blend);
    glColorMask(s->color_mask[0], s->color_mask[1], s->color_mask[2], s->color_mask[3]);
    if (s->portable) {
        glBindBuffer(GL_ARRAY_BUFFER, (GLuint)s->array_buffer);
        return;
    }
    for (int i = 0; i < STORAGE_POINTS; i++) {
        /* A range of size 0 is how GL reports a whole-buffer binding. */
        if (s->storage_indexed[i] != 0 && s->storage_size[i] > 0) {
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, storage_indices[i],
                              (GLuint)s->storage_indexed[i], (GLintptr)s->storage_start[i],
                              (GLsizeiptr)s->storage_size[i]);
        } else {
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, storage_indices[i],
                             (GLuint)s->storage_indexed[i]);
        }
    }
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, (GLuint)s->draw_indirect_buffer);
    /* Indexed binds also set the generic binding: it goes back last. */
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)s->storage_buffer);
}
