/* One archetype's draw in one pass: its mode's program, the frame's
 * uniforms, its mesh and instance records, and one instanced draw (cpu mode:
 * one draw per character, each from its skinned vertices). The world saves
 * and restores the GL state around it (state.c). Uniforms go through the
 * program's location table (programs.c), the same on both tiers; the
 * portable tier's draws themselves are in draw_portable.c. */
#include "gpu/internal.h"

/* A texture on a unit: by direct state access on the GL 4.5 tier (the
 * active unit stays), bound through the active unit on the portable one
 * (the world's saved state puts both back). No sampler object: crowd's
 * textures read with their own parameters. */
void crowd__gpu_bind_texture(const crowd_world *w, GLuint unit, GLenum target, GLuint texture) {
    if (w->portable) {
        glActiveTexture(GL_TEXTURE0 + unit);
        glBindTexture(target, texture);
    } else {
        glBindTextureUnit(unit, texture);
    }
    glBindSampler(unit, 0);
}

void crowd__gpu_draw_clip_table(const gpu_archetype *r, const gpu_program *program) {
    if (program->uniform[GPU_UNIFORM_CLIPS] >= 0 && r->clip_count > 0) {
        glUniform4uiv(program->uniform[GPU_UNIFORM_CLIPS], (GLsizei)r->clip_count,
                      r->clip_table[0]);
    }
}

void crowd__gpu_draw_mode_uniforms(gpu_archetype *r, const gpu_program *program) {
    const crowd_bake *bake = r->bake;
    const GLint *at = program->uniform;
    crowd__gpu_draw_clip_table(r, program);
    switch (r->mode) {
    case CROWD_GPU_MODE_GPU: {
        glUniform1ui(at[GPU_UNIFORM_JOINT_COUNT], r->source->skeleton.joint_count);
        if (r->world->portable) {
            crowd__gpu_bind_texture(r->world, GPU_TEXTURE_PALETTES, GL_TEXTURE_2D,
                                    r->streams.palette_textures[r->world->stream_section]);
            break;
        }
        uint64_t used = 48ull * r->source->skeleton.joint_count * r->instances.count;
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_PALETTES, r->streams.palette_buffer,
                          (GLintptr)(r->world->stream_section * r->streams.palette_section_bytes),
                          (GLsizeiptr)(used > 0 ? used : 16));
        break;
    }
    case CROWD_GPU_MODE_BAT:
        glUniform1ui(at[GPU_UNIFORM_TEX_WIDTH], bake->bat.width);
        glUniform1f(at[GPU_UNIFORM_INV_TEX_WIDTH], 1.0f / (float)bake->bat.width);
        glUniform1ui(at[GPU_UNIFORM_ROWS_PER_FRAME], bake->bat_rows_per_frame);
        crowd__gpu_bind_texture(r->world, GPU_TEXTURE_BAT, GL_TEXTURE_2D, r->baked.bat_texture);
        break;
    case CROWD_GPU_MODE_VAT:
        glUniform1ui(at[GPU_UNIFORM_TEX_WIDTH], bake->vat_position.width);
        glUniform1f(at[GPU_UNIFORM_INV_TEX_WIDTH], 1.0f / (float)bake->vat_position.width);
        glUniform1ui(at[GPU_UNIFORM_ROWS_PER_FRAME], bake->vat_rows_per_frame);
        if (bake->vat_encoding == CROWD_VAT_UNORM16_OCT) {
            float extent[3];
            for (int a = 0; a < 3; a++) {
                extent[a] = bake->bounds_max[a] - bake->bounds_min[a];
            }
            glUniform3fv(at[GPU_UNIFORM_BOUNDS_MIN], 1, bake->bounds_min);
            glUniform3fv(at[GPU_UNIFORM_BOUNDS_EXTENT], 1, extent);
        } else {
            crowd__gpu_bind_texture(r->world, GPU_TEXTURE_VAT_NORMAL, GL_TEXTURE_2D,
                                    r->baked.vat_normal_texture);
        }
        crowd__gpu_bind_texture(r->world, GPU_TEXTURE_VAT_POSITION, GL_TEXTURE_2D,
                                r->baked.vat_position_texture);
        break;
    case CROWD_GPU_MODE_STATIC:
    case CROWD_GPU_MODE_CPU:
    case CROWD_GPU_MODE_COUNT:
        break;
    }
}

static void set_light(const gpu_program *program, const crowd_draw_desc *desc, uint32_t archetype) {
    const crowd_light *l = &desc->light;
    const GLint *at = program->uniform;
    glUniform3fv(at[GPU_UNIFORM_LIGHT_DIR], 1, l->direction);
    glUniform3fv(at[GPU_UNIFORM_LIGHT_COLOR], 1, l->color);
    glUniform3fv(at[GPU_UNIFORM_AMBIENT_SKY], 1, l->ambient_sky);
    glUniform3fv(at[GPU_UNIFORM_AMBIENT_GROUND], 1, l->ambient_ground);
    glUniform1ui(at[GPU_UNIFORM_LINEAR_OUTPUT], desc->linear_output ? 1u : 0u);
    glUniform1ui(at[GPU_UNIFORM_ARCHETYPE], archetype);
    glUniform1ui(at[GPU_UNIFORM_LOD_TINT], desc->debug_lod_tint ? 1u : 0u);
    /* The eye of view = [R t]: -R^T t (column-major, so R's column k is view[4k..4k+2]). */
    const float *v = desc->view;
    float eye[3];
    for (int k = 0; k < 3; k++) {
        eye[k] = -(v[4 * k] * v[12] + v[4 * k + 1] * v[13] + v[4 * k + 2] * v[14]);
    }
    glUniform3fv(at[GPU_UNIFORM_CAMERA_POSITION], 1, eye);
}

/* cpu mode: one draw per character from this frame's stream section. */
static void draw_cpu(gpu_archetype *r) {
    uint64_t vertices = crowd__gpu_skinned_vertices(r);
    uint64_t per_instance = 24 * vertices;
    if (per_instance == 0) {
        return; /* an empty mesh: nothing to draw */
    }
    GLintptr section = (GLintptr)(r->world->stream_section * r->streams.skinned_section_bytes);
    for (uint32_t slot = 0; slot < r->instances.count; slot++) {
        GLintptr base = section + (GLintptr)(slot * per_instance);
        glBindVertexBuffer(GPU_ATTR_POSITION, r->streams.skinned_buffer, base, 12);
        glBindVertexBuffer(GPU_ATTR_NORMAL, r->streams.skinned_buffer,
                           base + (GLintptr)(12 * vertices), 12);
        /* One instance, its record picked by the base instance. */
        glDrawElementsInstancedBaseInstance(GL_TRIANGLES, (GLsizei)r->mesh.index_count,
                                            GL_UNSIGNED_INT, NULL, 1, slot);
    }
    r->world->stats.draw_calls += r->instances.count;
    crowd__gpu_mesh_bind_pose(&r->mesh);
}

const gpu_program *crowd__gpu_pass_program(const gpu_mode_programs *p, bool depth, bool fading) {
    return depth ? (fading ? &p->depth_fade : &p->depth) : (fading ? &p->color_fade : &p->color);
}

/* The one-fetch build of the pass (bat, vat), NULL for the other modes. */
static const gpu_program *nearest_program(const gpu_mode_programs *p, bool depth) {
    const gpu_program *program = depth ? &p->depth_nearest : &p->color_nearest;
    return program->id != 0 ? program : NULL;
}

void crowd__gpu_draw_use(gpu_archetype *r, const gpu_program *program, const gpu_mesh *mesh,
                         const crowd_draw_desc *desc, const float view_proj[16]) {
    bool depth = desc->pass == CROWD_PASS_DEPTH;
    const GLint *at = program->uniform;
    glUseProgram(program->id);
    glUniformMatrix4fv(at[GPU_UNIFORM_VIEW_PROJ], 1, GL_FALSE, view_proj);
    glUniform1ui(at[GPU_UNIFORM_PROP_BIT], 0u);
    if (!depth) {
        set_light(program, desc, r->handle);
    }
    if (at[GPU_UNIFORM_TIME] >= 0) {
        /* The records' times are relative to the epoch (record_pack.c);
         * the difference is exact in double and small as a float. */
        glUniform1f(at[GPU_UNIFORM_TIME], (float)(r->world->clock_s - r->world->epoch_s));
    }
    if (!depth) {
        if (r->world->portable) {
            crowd__gpu_bind_texture(r->world, GPU_TEXTURE_MATERIAL_RECORDS, GL_TEXTURE_2D,
                                    mesh->material_records);
        } else {
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_MATERIALS, mesh->material_buffer);
        }
        crowd__gpu_bind_texture(r->world, GPU_TEXTURE_MATERIALS, GL_TEXTURE_2D_ARRAY,
                                mesh->material_textures);
    }
    /* Bound-state calls only: see crowd__gpu_mesh_upload. */
    glBindVertexArray(mesh->vao);
}

/* The characters' own draws of the pass. */
static crowd_result draw_characters(gpu_archetype *r, const crowd_draw_desc *desc,
                                    const float view_proj[16], float now, bool culled,
                                    uint32_t lod_count, crowd_error *error) {
    const gpu_mode_programs *p = crowd__gpu_programs_of(r->programs[r->mode]);
    bool depth = desc->pass == CROWD_PASS_DEPTH;
    bool fading = p->color_fade.id != 0 && crowd__gpu_crossfade_running(r, now);
    const gpu_program *nearest = nearest_program(p, depth);
    const gpu_program *program = crowd__gpu_pass_program(p, depth, fading);
    /* Unculled, only a forced nearest frame can take the one-fetch build,
     * and only while no instance mixes clips. */
    bool all_nearest =
        !culled && nearest != NULL && !fading && desc->frame_fetch == CROWD_FRAME_FETCH_NEAREST;
    crowd__gpu_draw_use(r, all_nearest ? nearest : program, &r->mesh, desc, view_proj);
    crowd__gpu_draw_mode_uniforms(r, all_nearest ? nearest : program);
    if (fading) {
        crowd_result result = crowd__gpu_side_bind(r, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    bool nearest_lists =
        culled && nearest != NULL && crowd__gpu_cull_any_nearest(r, desc, lod_count);
    if (r->world->portable) {
        crowd_result result = crowd__gpu_draw_portable(r, culled, lod_count, error);
        if (result == CROWD_OK && nearest_lists) {
            crowd__gpu_draw_use(r, nearest, &r->mesh, desc, view_proj);
            crowd__gpu_draw_mode_uniforms(r, nearest);
            crowd__gpu_draw_portable_nearest(r, lod_count);
        }
        if (all_nearest) {
            r->world->stats.nearest_instances += r->instances.count;
        }
        return result;
    }
    glBindVertexBuffer(GPU_BINDING_INSTANCES, r->instances.buffer, 0, sizeof(gpu_instance_record));
    if (culled) {
        bool counted = desc->cull == CROWD_CULL_CPU;
        crowd__gpu_cull_submit(r, lod_count, counted, false);
        if (nearest_lists) {
            crowd__gpu_draw_use(r, nearest, &r->mesh, desc, view_proj);
            crowd__gpu_draw_mode_uniforms(r, nearest);
            crowd__gpu_cull_submit(r, lod_count, counted, true);
        }
        return CROWD_OK;
    }
    if (all_nearest) {
        r->world->stats.nearest_instances += r->instances.count;
    }
    if (r->mode == CROWD_GPU_MODE_CPU) {
        draw_cpu(r);
    } else {
        glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)r->mesh.index_count, GL_UNSIGNED_INT, NULL,
                                (GLsizei)r->instances.count);
        r->world->stats.draw_calls++;
    }
    crowd__gpu_count_unculled(r);
    return CROWD_OK;
}

crowd_result crowd__gpu_archetype_draw(gpu_archetype *r, const crowd_draw_desc *desc,
                                       const float view_proj[16], float now, crowd_error *error) {
    bool culled = desc->cull != CROWD_CULL_OFF && crowd__gpu_cull_applies(r);
    uint32_t lod_count = 0;
    if (culled) {
        crowd_result result = crowd__gpu_cull_run(r, desc, view_proj, &lod_count, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    if (r->world->portable) {
        crowd_result result = crowd__gpu_streams_upload_portable(r, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    crowd_result result = draw_characters(r, desc, view_proj, now, culled, lod_count, error);
    if (result != CROWD_OK || r->props.count == 0) {
        return result;
    }
    return crowd__gpu_props_draw(r, desc, view_proj, now, culled, error);
}

void crowd__gpu_count_unculled(gpu_archetype *r) {
    r->world->stats.vertices_drawn += (uint64_t)r->mesh.index_count * r->instances.count;
    r->world->stats.visible_instances += r->instances.count;
    r->world->stats.visible_per_lod[0] += r->instances.count;
}
