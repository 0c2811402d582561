/* One archetype's draw in one pass: its mode's program, the frame's
 * uniforms, its mesh and instance records, and one instanced draw (cpu mode:
 * one draw per character, each from its skinned vertices). The world saves
 * and restores the GL state around it (state.c). */
#include "gpu/internal.h"

static void set_mode_uniforms(gpu_archetype *r, GLuint program) {
    const crowd_bake *bake = r->bake;
    switch (r->mode) {
    case CROWD_GPU_MODE_GPU: {
        glProgramUniform1ui(program, GPU_UNIFORM_JOINT_COUNT, r->source->skeleton.joint_count);
        uint64_t used = 48ull * r->source->skeleton.joint_count * r->instances.count;
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_PALETTES, r->streams.palette_buffer,
                          (GLintptr)(r->world->stream_section * r->streams.palette_section_bytes),
                          (GLsizeiptr)(used > 0 ? used : 16));
        break;
    }
    case CROWD_GPU_MODE_BAT:
        glProgramUniform1ui(program, GPU_UNIFORM_TEX_WIDTH, bake->bat.width);
        glProgramUniform1f(program, GPU_UNIFORM_INV_TEX_WIDTH, 1.0f / (float)bake->bat.width);
        glProgramUniform1ui(program, GPU_UNIFORM_ROWS_PER_FRAME, bake->bat_rows_per_frame);
        glBindTextureUnit(GPU_TEXTURE_BAT, r->baked.bat_texture);
        glBindSampler(GPU_TEXTURE_BAT, 0);
        break;
    case CROWD_GPU_MODE_VAT:
        glProgramUniform1ui(program, GPU_UNIFORM_TEX_WIDTH, bake->vat_position.width);
        glProgramUniform1f(program, GPU_UNIFORM_INV_TEX_WIDTH,
                           1.0f / (float)bake->vat_position.width);
        glProgramUniform1ui(program, GPU_UNIFORM_ROWS_PER_FRAME, bake->vat_rows_per_frame);
        if (bake->vat_encoding == CROWD_VAT_UNORM16_OCT) {
            float extent[3];
            for (int a = 0; a < 3; a++) {
                extent[a] = bake->bounds_max[a] - bake->bounds_min[a];
            }
            glProgramUniform3fv(program, GPU_UNIFORM_BOUNDS_MIN, 1, bake->bounds_min);
            glProgramUniform3fv(program, GPU_UNIFORM_BOUNDS_EXTENT, 1, extent);
        } else {
            glBindTextureUnit(GPU_TEXTURE_VAT_NORMAL, r->baked.vat_normal_texture);
            glBindSampler(GPU_TEXTURE_VAT_NORMAL, 0);
        }
        glBindTextureUnit(GPU_TEXTURE_VAT_POSITION, r->baked.vat_position_texture);
        glBindSampler(GPU_TEXTURE_VAT_POSITION, 0);
        break;
    case CROWD_GPU_MODE_STATIC:
    case CROWD_GPU_MODE_CPU:
    case CROWD_GPU_MODE_COUNT:
        break;
    }
}

static void set_light(GLuint program, const crowd_draw_desc *desc, uint32_t archetype) {
    const crowd_light *l = &desc->light;
    glProgramUniform3fv(program, GPU_UNIFORM_LIGHT_DIR, 1, l->direction);
    glProgramUniform3fv(program, GPU_UNIFORM_LIGHT_COLOR, 1, l->color);
    glProgramUniform3fv(program, GPU_UNIFORM_AMBIENT_SKY, 1, l->ambient_sky);
    glProgramUniform3fv(program, GPU_UNIFORM_AMBIENT_GROUND, 1, l->ambient_ground);
    glProgramUniform1ui(program, GPU_UNIFORM_LINEAR_OUTPUT, desc->linear_output ? 1u : 0u);
    glProgramUniform1ui(program, GPU_UNIFORM_ARCHETYPE, archetype);
    glProgramUniform1ui(program, GPU_UNIFORM_LOD_TINT, desc->debug_lod_tint ? 1u : 0u);
    /* The eye of view = [R t]: -R^T t (column-major, so R's column k is view[4k..4k+2]). */
    const float *v = desc->view;
    float eye[3];
    for (int k = 0; k < 3; k++) {
        eye[k] = -(v[4 * k] * v[12] + v[4 * k + 1] * v[13] + v[4 * k + 2] * v[14]);
    }
    glProgramUniform3fv(program, GPU_UNIFORM_CAMERA_POSITION, 1, eye);
}

/* cpu mode: one draw per character from this frame's stream section. */
static void draw_cpu(gpu_archetype *r) {
    uint64_t vertices = r->source->mesh.vertex_count;
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
    const gpu_mode_programs *p = crowd__gpu_programs_of(r->programs[r->mode]);
    bool fading = p->color_fade != 0 && crowd__gpu_crossfade_running(r, now);
    bool depth = desc->pass == CROWD_PASS_DEPTH;
    GLuint program =
        depth ? (fading ? p->depth_fade : p->depth) : (fading ? p->color_fade : p->color);
    glUseProgram(program);
    glProgramUniformMatrix4fv(program, GPU_UNIFORM_VIEW_PROJ, 1, GL_FALSE, view_proj);
    if (!depth) {
        set_light(program, desc, r->handle);
    }
    if (r->mode == CROWD_GPU_MODE_BAT || r->mode == CROWD_GPU_MODE_VAT) {
        glProgramUniform1f(program, GPU_UNIFORM_TIME, now);
    }
    if (!depth) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_MATERIALS, r->mesh.material_buffer);
        glBindTextureUnit(GPU_TEXTURE_MATERIALS, r->mesh.material_textures);
        glBindSampler(GPU_TEXTURE_MATERIALS, 0);
    }
    /* Bound-state calls only: see crowd__gpu_mesh_upload. */
    glBindVertexArray(r->mesh.vao);
    glBindVertexBuffer(GPU_BINDING_INSTANCES, r->instances.buffer, 0, sizeof(gpu_instance_record));
    set_mode_uniforms(r, program);
    if (culled) {
        crowd__gpu_cull_submit(r, lod_count, desc->cull == CROWD_CULL_CPU);
        return CROWD_OK;
    }
    if (r->mode == CROWD_GPU_MODE_CPU) {
        draw_cpu(r);
    } else {
        glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)r->mesh.index_count, GL_UNSIGNED_INT, NULL,
                                (GLsizei)r->instances.count);
        r->world->stats.draw_calls++;
    }
    r->world->stats.vertices_drawn += (uint64_t)r->mesh.index_count * r->instances.count;
    r->world->stats.visible_instances += r->instances.count;
    return CROWD_OK;
}
