/* The props' draws of one pass, after their archetype's own (draw.c): per
 * prop type that someone carries, its mesh with the character's program
 * and records, so it is skinned exactly as the character is (vat's props
 * with the bat programs over their socket track). Culled passes draw each
 * prop type's list of visible carriers (cull.c, crowd_cull.comp.glsl) with
 * one draw; unculled ones (gpu mode, CROWD_CULL_OFF) draw every record with
 * the prop's flag bit as u_prop_bit, since gpu mode's palettes are indexed
 * by the instance's slot; cpu mode draws each carrier from its skinned
 * vertices, as it draws its characters. */
#include "gpu/internal.h"

/* The programs a prop type draws with in the archetype's mode, or NULL
 * when it is not drawn in it (vat without a socket track). */
static crowd_result prop_programs(gpu_archetype *r, const gpu_prop *prop,
                                  const gpu_mode_programs **out, crowd_error *error) {
    *out = NULL;
    if (r->mode != CROWD_GPU_MODE_VAT) {
        *out = crowd__gpu_programs_of(r->programs[r->mode]);
        return CROWD_OK;
    }
    if (prop->track_texture == 0) {
        return CROWD_OK;
    }
    if (r->props.track_programs == NULL) {
        crowd_result result =
            crowd__gpu_programs_acquire(r->world, CROWD_GPU_MODE_BAT, false, false,
                                        r->fragment_source, &r->props.track_programs, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    *out = crowd__gpu_programs_of(r->props.track_programs);
    return CROWD_OK;
}

/* The socket track as a one-joint BAT: 3 texels a frame, one row. */
static void track_uniforms(gpu_archetype *r, const gpu_prop *prop, const gpu_program *program) {
    const GLint *at = program->uniform;
    glUniform1ui(at[GPU_UNIFORM_TEX_WIDTH], 3u);
    glUniform1f(at[GPU_UNIFORM_INV_TEX_WIDTH], 1.0f / 3.0f);
    glUniform1ui(at[GPU_UNIFORM_ROWS_PER_FRAME], 1u);
    crowd__gpu_bind_texture(r->world, GPU_TEXTURE_BAT, GL_TEXTURE_2D, prop->track_texture);
}

/* cpu mode: each carrier from its skinned vertices (after the character's). */
static void draw_carriers_cpu(gpu_archetype *r, const gpu_prop *prop, uint32_t bit) {
    uint64_t vertices = crowd__gpu_skinned_vertices(r);
    uint64_t per_instance = 24 * vertices;
    GLuint buffer = r->streams.skinned_buffer;
    if (buffer == 0) {
        return; /* nothing updated yet */
    }
    uint64_t section =
        r->world->portable ? 0 : r->world->stream_section * r->streams.skinned_section_bytes;
    uint64_t own = r->source->mesh.vertex_count + prop->first_skinned;
    if (!r->world->portable) {
        glBindVertexBuffer(GPU_BINDING_INSTANCES, r->instances.buffer, 0,
                           sizeof(gpu_instance_record));
    }
    for (uint32_t slot = 0; slot < r->instances.count; slot++) {
        if ((r->instances.records[slot].bits & bit) == 0) {
            continue;
        }
        uint64_t base = section + slot * per_instance;
        uint64_t positions = base + 12 * own, normals = base + 12 * (vertices + own);
        if (r->world->portable) {
            crowd__gpu_records_point(r->streams.records, slot);
            glBindBuffer(GL_ARRAY_BUFFER, buffer);
            glVertexAttribPointer(GPU_ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, 12,
                                  (const void *)(uintptr_t)positions);
            glVertexAttribPointer(GPU_ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, 12,
                                  (const void *)(uintptr_t)normals);
            glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)prop->mesh.index_count, GL_UNSIGNED_INT,
                                    NULL, 1);
        } else {
            glBindVertexBuffer(GPU_ATTR_POSITION, buffer, (GLintptr)positions, 12);
            glBindVertexBuffer(GPU_ATTR_NORMAL, buffer, (GLintptr)normals, 12);
            glDrawElementsInstancedBaseInstance(GL_TRIANGLES, (GLsizei)prop->mesh.index_count,
                                                GL_UNSIGNED_INT, NULL, 1, slot);
        }
        r->world->stats.draw_calls++;
        r->world->stats.vertices_drawn += prop->mesh.index_count;
    }
    if (r->world->portable) {
        crowd__gpu_mesh_bind_pose_portable(&prop->mesh);
    } else {
        crowd__gpu_mesh_bind_pose(&prop->mesh);
    }
}

/* One draw of the prop type `p`: its list of visible carriers, or every
 * record with its bit as u_prop_bit. */
static void draw_prop(gpu_archetype *r, uint32_t p, const gpu_program *program, bool culled,
                      bool cpu_culled) {
    const gpu_prop *prop = &r->props.items[p];
    GLsizei indices = (GLsizei)prop->mesh.index_count;
    uint32_t bit = 1u << (GPU_FLAG_PROPS_SHIFT + p);
    if (r->mode == CROWD_GPU_MODE_CPU) {
        draw_carriers_cpu(r, prop, bit);
        return;
    }
    if (!culled) {
        glUniform1ui(program->uniform[GPU_UNIFORM_PROP_BIT], bit);
        if (r->world->portable) {
            crowd__gpu_records_point(r->streams.records, 0);
        } else {
            glBindVertexBuffer(GPU_BINDING_INSTANCES, r->instances.buffer, 0,
                               sizeof(gpu_instance_record));
        }
        glDrawElementsInstanced(GL_TRIANGLES, indices, GL_UNSIGNED_INT, NULL,
                                (GLsizei)r->instances.count);
        r->world->stats.vertices_drawn += (uint64_t)indices * prop->carriers;
    } else if (r->world->portable) {
        if (prop->cpu_count == 0) {
            return;
        }
        crowd__gpu_records_point(r->streams.records, prop->stream_first);
        glDrawElementsInstanced(GL_TRIANGLES, indices, GL_UNSIGNED_INT, NULL,
                                (GLsizei)prop->cpu_count);
        r->world->stats.vertices_drawn += (uint64_t)indices * prop->cpu_count;
    } else {
        glBindVertexBuffer(GPU_BINDING_INSTANCES, r->cull.visible_buffer, 0,
                           sizeof(gpu_instance_record));
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, r->cull.command_buffer);
        glDrawElementsIndirect(
            GL_TRIANGLES, GL_UNSIGNED_INT,
            (const void *)(uintptr_t)((GPU_COMMAND_PROPS_FIRST + p) * 5u * sizeof(GLuint)));
        /* GPU culling: only the GPU knows how many (an upper bound here). */
        r->world->stats.vertices_drawn +=
            (uint64_t)indices * (cpu_culled ? prop->cpu_count : prop->carriers);
    }
    r->world->stats.draw_calls++;
}

crowd_result crowd__gpu_props_draw(gpu_archetype *r, const crowd_draw_desc *desc,
                                   const float view_proj[16], float now, bool culled,
                                   crowd_error *error) {
    bool depth = desc->pass == CROWD_PASS_DEPTH;
    bool fade_running = crowd__gpu_crossfade_running(r, now);
    for (uint32_t p = 0; p < r->props.count; p++) {
        const gpu_prop *prop = &r->props.items[p];
        if (prop->carriers == 0) {
            continue;
        }
        const gpu_mode_programs *programs;
        crowd_result result = prop_programs(r, prop, &programs, error);
        if (result != CROWD_OK) {
            return result;
        }
        if (programs == NULL) {
            continue;
        }
        bool fading = programs->color_fade.id != 0 && fade_running;
        const gpu_program *program = crowd__gpu_pass_program(programs, depth, fading);
        crowd__gpu_draw_use(r, program, &prop->mesh, desc, view_proj);
        if (r->mode == CROWD_GPU_MODE_VAT) {
            crowd__gpu_draw_clip_table(r, program);
            track_uniforms(r, prop, program);
        } else {
            crowd__gpu_draw_mode_uniforms(r, program);
        }
        if (fading) {
            result = crowd__gpu_side_bind(r, error);
            if (result != CROWD_OK) {
                return result;
            }
        }
        draw_prop(r, p, program, culled, desc->cull == CROWD_CULL_CPU);
    }
    return CROWD_OK;
}
