/* Drawing a frame in the current mode, timing it, reading it back and
 * showing it in a window. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/internal.h"

static double clock_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static float srgb_encode(float c) {
    c = c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
    return c <= 0.0031308f ? c * 12.92f : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

/* Makes sure a per-instance streaming buffer holds the instance capacity,
 * mapped once for good (persistent, coherent): mapping it every frame costs
 * more than writing a few characters' data (a round trip to Mesa's GL
 * thread and a fresh allocation behind GL_MAP_INVALIDATE_BUFFER_BIT). One
 * copy is enough: crowd_renderer_draw waits for the GPU at the end of every
 * frame, so nothing still reads last frame's data when the next one writes. */
static crowd_result reserve_stream(crowd_renderer *r, GLuint *buffer, uint64_t *bytes,
                                   void **mapped, uint64_t bytes_per_instance, crowd_error *error) {
    uint64_t needed = bytes_per_instance * r->instance_capacity;
    if (*buffer != 0 && *bytes >= needed) {
        return CROWD_OK;
    }
    gpu_buffer_delete(r, buffer, bytes);
    *mapped = NULL;
    const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    crowd_result result =
        gpu_buffer_create(r, buffer, bytes, needed > 0 ? needed : 4, NULL, flags, error);
    if (result != CROWD_OK) {
        return result;
    }
    *mapped = glMapNamedBufferRange(*buffer, 0, (GLsizeiptr)*bytes, flags);
    if (*mapped == NULL) {
        gpu_buffer_delete(r, buffer, bytes);
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL, "cannot map a streaming buffer");
    }
    return CROWD_OK;
}

void gpu_streams_release(crowd_renderer *r) {
    gpu_buffer_delete(r, &r->palette_buffer, &r->palette_bytes);
    gpu_buffer_delete(r, &r->skinned_buffer, &r->skinned_bytes);
    r->palette_mapped = r->skinned_mapped = NULL;
}

/* gpu mode: every instance's skinning matrices into the palette buffer. */
static crowd_result upload_palettes(crowd_renderer *r, float now, crowd_error *error) {
    uint64_t per_instance = 48ull * r->source->skeleton.joint_count;
    crowd_result result = reserve_stream(r, &r->palette_buffer, &r->palette_bytes,
                                         &r->palette_mapped, per_instance, error);
    if (result != CROWD_OK) {
        return result;
    }
    uint64_t bytes = per_instance * r->instance_count;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_PALETTES, r->palette_buffer);
    float *mapped = r->palette_mapped;
    double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
    for (uint32_t slot = 0; slot < r->instance_count; slot++) {
        gpu_pose_palette(r, slot, now, mapped + slot * (per_instance / sizeof(float)));
    }
    r->stats.cpu_animation_time_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
    r->stats.uploaded_bytes += bytes;
    return CROWD_OK;
}

/* cpu mode: skin every character on the CPU, then one draw each. */
static crowd_result draw_cpu(crowd_renderer *r, float now, crowd_error *error) {
    uint64_t vertices = r->source->mesh.vertex_count;
    uint64_t per_instance = 24 * vertices;
    crowd_result result = reserve_stream(r, &r->skinned_buffer, &r->skinned_bytes,
                                         &r->skinned_mapped, per_instance, error);
    if (result != CROWD_OK) {
        return result;
    }
    uint64_t bytes = per_instance * r->instance_count;
    if (bytes == 0) {
        return CROWD_OK; /* an empty mesh: nothing to skin or draw */
    }
    float *mapped = r->skinned_mapped;
    double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
    for (uint32_t slot = 0; slot < r->instance_count; slot++) {
        gpu_pose_skin(r, slot, now, mapped + slot * 6 * vertices);
    }
    r->stats.cpu_animation_time_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
    r->stats.uploaded_bytes += bytes;
    for (uint32_t slot = 0; slot < r->instance_count; slot++) {
        GLintptr base = (GLintptr)(slot * per_instance);
        glVertexArrayVertexBuffer(r->vao, GPU_ATTR_POSITION, r->skinned_buffer, base, 12);
        glVertexArrayVertexBuffer(r->vao, GPU_ATTR_NORMAL, r->skinned_buffer,
                                  base + (GLintptr)(12 * vertices), 12);
        /* One instance, its record picked by the base instance. */
        glDrawElementsInstancedBaseInstance(GL_TRIANGLES, (GLsizei)r->index_count, GL_UNSIGNED_INT,
                                            NULL, 1, slot);
        r->stats.draw_calls++;
    }
    gpu_mesh_bind_pose(r);
    return CROWD_OK;
}

static void set_mode_uniforms(crowd_renderer *r, GLuint program) {
    const crowd_bake *bake = r->bake;
    switch (r->mode) {
    case CROWD_GPU_MODE_GPU:
        glProgramUniform1ui(program, GPU_UNIFORM_JOINT_COUNT, r->source->skeleton.joint_count);
        break;
    case CROWD_GPU_MODE_BAT:
        glProgramUniform1f(program, GPU_UNIFORM_FPS, bake->fps);
        glProgramUniform1ui(program, GPU_UNIFORM_TEX_WIDTH, bake->bat.width);
        glProgramUniform1f(program, GPU_UNIFORM_INV_TEX_WIDTH, 1.0f / (float)bake->bat.width);
        glProgramUniform1ui(program, GPU_UNIFORM_ROWS_PER_FRAME, bake->bat_rows_per_frame);
        glBindTextureUnit(GPU_TEXTURE_BAT, r->bat_texture);
        break;
    case CROWD_GPU_MODE_VAT:
        glProgramUniform1f(program, GPU_UNIFORM_FPS, bake->fps);
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
            glBindTextureUnit(GPU_TEXTURE_VAT_NORMAL, r->vat_normal_texture);
        }
        glBindTextureUnit(GPU_TEXTURE_VAT_POSITION, r->vat_position_texture);
        break;
    case CROWD_GPU_MODE_STATIC:
    case CROWD_GPU_MODE_CPU:
    case CROWD_GPU_MODE_COUNT:
        break;
    }
}

static void draw_ground(crowd_renderer *r, const float view_proj[16], const float eye[3]) {
    float min[3] = {-2.0f, 0.0f, -2.0f}, max[3] = {2.0f, 0.0f, 2.0f};
    crowd_renderer_instance_bounds(r, min, max);
    float size = fmaxf(max[0] - min[0], max[2] - min[2]);
    float extent[4] = {0.5f * (min[0] + max[0]), 0.5f * (min[2] + max[2]),
                       0.5f * size + fmaxf(2.0f, 0.25f * size), min[1]};
    glUseProgram(r->ground_program);
    glProgramUniformMatrix4fv(r->ground_program, GPU_UNIFORM_VIEW_PROJ, 1, GL_FALSE, view_proj);
    glProgramUniform4fv(r->ground_program, GPU_UNIFORM_GROUND_EXTENT, 1, extent);
    glProgramUniform3fv(r->ground_program, GPU_UNIFORM_EYE, 1, eye);
    glBindVertexArray(r->empty_vao);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    r->stats.extra_draw_calls++;
}

static crowd_result check_frame(const crowd_frame_desc *frame, float view_proj[16], float aspect,
                                crowd_error *error) {
    if (frame == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "frame is NULL");
    }
    if (!isfinite(frame->time_s)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "frame time must be finite");
    }
    if (!gpu_camera_view_proj(&frame->camera, aspect, view_proj)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "degenerate camera (eye on target, or bad field of view or planes)");
    }
    return CROWD_OK;
}

crowd_result crowd_renderer_draw(crowd_renderer *r, const crowd_frame_desc *frame,
                                 crowd_error *error) {
    if (r == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "renderer is NULL");
    }
    float view_proj[16];
    crowd_result result = check_frame(frame, view_proj, (float)r->width / (float)r->height, error);
    if (result != CROWD_OK) {
        return result;
    }
    double wall_start = clock_s(CLOCK_MONOTONIC);
    double cpu_start = clock_s(CLOCK_THREAD_CPUTIME_ID);
    r->clock_s = frame->time_s;
    float now = (float)frame->time_s;
    memset(&r->stats, 0, sizeof r->stats);
    r->stats.uploaded_bytes = r->pending_upload_bytes;
    r->pending_upload_bytes = 0;

    glBindFramebuffer(GL_FRAMEBUFFER, r->framebuffer);
    glViewport(0, 0, (GLsizei)r->width, (GLsizei)r->height);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    const float default_clear[4] = {0.32f, 0.38f, 0.46f, 1.0f};
    const float *clear = frame->clear_color;
    if (clear[0] == 0.0f && clear[1] == 0.0f && clear[2] == 0.0f && clear[3] == 0.0f) {
        clear = default_clear;
    }
    glClearColor(srgb_encode(clear[0]), srgb_encode(clear[1]), srgb_encode(clear[2]), clear[3]);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

    if (frame->ground) {
        draw_ground(r, view_proj, frame->camera.eye);
    }
    if (r->instance_count > 0) {
        GLuint program = r->fade_programs[r->mode] != 0 && gpu_crossfade_running(r, now)
                             ? r->fade_programs[r->mode]
                             : r->programs[r->mode];
        const float sun[3] = {0.3665f, 0.8376f, 0.4050f};
        glUseProgram(program);
        glProgramUniformMatrix4fv(program, GPU_UNIFORM_VIEW_PROJ, 1, GL_FALSE, view_proj);
        glProgramUniform3fv(program, GPU_UNIFORM_SUN_DIR, 1, sun);
        if (r->mode == CROWD_GPU_MODE_BAT || r->mode == CROWD_GPU_MODE_VAT) {
            glProgramUniform1f(program, GPU_UNIFORM_TIME, now);
        }
        glVertexArrayVertexBuffer(r->vao, GPU_BINDING_INSTANCES, r->instance_buffer, 0,
                                  sizeof(gpu_instance_record));
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, GPU_SSBO_MATERIALS, r->material_buffer);
        glBindTextureUnit(GPU_TEXTURE_MATERIALS, r->material_textures);
        glBindVertexArray(r->vao);
        set_mode_uniforms(r, program);
        if (r->mode == CROWD_GPU_MODE_CPU) {
            result = draw_cpu(r, now, error);
        } else {
            if (r->mode == CROWD_GPU_MODE_GPU) {
                result = upload_palettes(r, now, error);
            }
            if (result == CROWD_OK) {
                glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)r->index_count, GL_UNSIGNED_INT,
                                        NULL, (GLsizei)r->instance_count);
                r->stats.draw_calls++;
            }
        }
        r->stats.vertices_drawn = (uint64_t)r->index_count * r->instance_count;
    }
    double cpu_end = clock_s(CLOCK_THREAD_CPUTIME_ID);
    glFinish();
    double wall_end = clock_s(CLOCK_MONOTONIC);
    glBindVertexArray(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    r->stats.cpu_time_s = cpu_end - cpu_start;
    r->stats.frame_time_s = wall_end - wall_start;
    if (result == CROWD_OK) {
        result = gpu_check(error, "drawing the frame");
    }
    return result;
}

crowd_result crowd_renderer_read_pixels(crowd_renderer *r, uint8_t *rgba, size_t size_bytes,
                                        crowd_error *error) {
    if (r == NULL || rgba == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "renderer or pixels is NULL");
    }
    size_t row = (size_t)r->width * 4;
    if (size_bytes < row * r->height) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "%zu bytes cannot hold %ux%u RGBA8 pixels", size_bytes,
                               (unsigned)r->width, (unsigned)r->height);
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, r->framebuffer);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)r->width, (GLsizei)r->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    /* GL's rows run bottom up. */
    uint8_t *swap = malloc(row > 0 ? row : 1);
    if (swap == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    for (uint32_t y = 0; y < r->height / 2; y++) {
        uint8_t *top = rgba + y * row, *bottom = rgba + (r->height - 1 - y) * row;
        memcpy(swap, top, row);
        memcpy(top, bottom, row);
        memcpy(bottom, swap, row);
    }
    free(swap);
    return gpu_check(error, "reading pixels");
}

crowd_result crowd_renderer_present(crowd_renderer *r, crowd_error *error) {
    if (r == NULL || r->context->window == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "present needs a renderer on a window context");
    }
    uint32_t width, height;
    crowd_gpu_window_size(r->context, &width, &height);
    glBlitNamedFramebuffer(r->framebuffer, 0, 0, 0, (GLint)r->width, (GLint)r->height, 0, 0,
                           (GLint)width, (GLint)height, GL_COLOR_BUFFER_BIT, GL_LINEAR);
    return gpu_check(error, "presenting the frame");
}
