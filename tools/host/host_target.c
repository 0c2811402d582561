/* The offscreen colour + depth target crowd's programs render into, its
 * readback and its blit onto a window: the part of a frame that belongs to
 * the application, not to crowd's world. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/gl.h>

#include "host.h"

static float srgb_encode(float c) {
    c = c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
    return c <= 0.0031308f ? c * 12.92f : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

void host_target_release(host_target *t) {
    if (t->framebuffer != 0) {
        GLuint framebuffer = t->framebuffer, color = t->color, depth = t->depth;
        glDeleteFramebuffers(1, &framebuffer);
        glDeleteRenderbuffers(1, &color);
        glDeleteRenderbuffers(1, &depth);
    }
    memset(t, 0, sizeof *t);
}

crowd_result host_target_resize(host_target *t, uint32_t width, uint32_t height,
                                crowd_error *error) {
    GLint max = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max);
    if (width == 0 || height == 0 || width > (uint32_t)max || height > (uint32_t)max) {
        return crowd_error_set(
            error, width == 0 || height == 0 ? CROWD_ERROR_INVALID_ARGUMENT : CROWD_ERROR_LIMIT,
            NULL, "image size %ux%u: each side must be 1 to %d", (unsigned)width, (unsigned)height,
            (int)max);
    }
    if (t->framebuffer != 0 && t->width == width && t->height == height) {
        return CROWD_OK;
    }
    host_target_release(t);
    /* Bound-state calls: the target serves GL 3.3 and GLES 3.0 contexts
     * too (no direct state access there). */
    GLint previous_draw = 0, previous_read = 0, previous_renderbuffer = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous_draw);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
    glGetIntegerv(GL_RENDERBUFFER_BINDING, &previous_renderbuffer);
    GLuint framebuffer, color, depth;
    glGenFramebuffers(1, &framebuffer);
    glGenRenderbuffers(1, &color);
    glGenRenderbuffers(1, &depth);
    glBindRenderbuffer(GL_RENDERBUFFER, color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, (GLsizei)width, (GLsizei)height);
    glBindRenderbuffer(GL_RENDERBUFFER, depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT32F, (GLsizei)width, (GLsizei)height);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    t->framebuffer = framebuffer;
    t->color = color;
    t->depth = depth;
    t->width = width;
    t->height = height;
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    /* Pixels read before the first frame are black, not leftovers. */
    const float black[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    if (status == GL_FRAMEBUFFER_COMPLETE) {
        glClearBufferfv(GL_COLOR, 0, black);
    }
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)previous_draw);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)previous_read);
    glBindRenderbuffer(GL_RENDERBUFFER, (GLuint)previous_renderbuffer);
    if (status != GL_FRAMEBUFFER_COMPLETE || glGetError() != GL_NO_ERROR) {
        host_target_release(t);
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL,
                               "the %ux%u render target is incomplete (0x%04x)", (unsigned)width,
                               (unsigned)height, (unsigned)status);
    }
    return CROWD_OK;
}

void host_target_begin(const host_target *t, const float clear_rgb[3]) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->framebuffer);
    glViewport(0, 0, (GLsizei)t->width, (GLsizei)t->height);
    const float color[4] = {srgb_encode(clear_rgb[0]), srgb_encode(clear_rgb[1]),
                            srgb_encode(clear_rgb[2]), 1.0f};
    const float depth = 1.0f;
    glClearBufferfv(GL_COLOR, 0, color);
    glClearBufferfv(GL_DEPTH, 0, &depth);
}

/* GL's rows run bottom up; callers want them top first. */
static crowd_result flip_rows(void *pixels, size_t row_bytes, uint32_t rows, crowd_error *error) {
    uint8_t *swap = malloc(row_bytes > 0 ? row_bytes : 1);
    if (swap == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    uint8_t *bytes = pixels;
    for (uint32_t y = 0; y < rows / 2; y++) {
        uint8_t *top = bytes + y * row_bytes, *bottom = bytes + (rows - 1 - y) * row_bytes;
        memcpy(swap, top, row_bytes);
        memcpy(top, bottom, row_bytes);
        memcpy(bottom, swap, row_bytes);
    }
    free(swap);
    return CROWD_OK;
}

static crowd_result read(const host_target *t, GLenum format, GLenum type, void *out,
                         size_t size_bytes, size_t texel_bytes, crowd_error *error) {
    size_t row = (size_t)t->width * texel_bytes;
    if (out == NULL || t->framebuffer == 0 || size_bytes < row * t->height) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "%zu bytes cannot hold the %ux%u target", size_bytes,
                               (unsigned)t->width, (unsigned)t->height);
    }
    GLint read_framebuffer = 0, pack_alignment = 4;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_framebuffer);
    glGetIntegerv(GL_PACK_ALIGNMENT, &pack_alignment);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, t->framebuffer);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)t->width, (GLsizei)t->height, format, type, out);
    glPixelStorei(GL_PACK_ALIGNMENT, pack_alignment);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_framebuffer);
    if (glGetError() != GL_NO_ERROR) {
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL, "reading the target failed");
    }
    return flip_rows(out, row, t->height, error);
}

crowd_result host_target_read_rgba(const host_target *t, uint8_t *rgba, size_t size_bytes,
                                   crowd_error *error) {
    return read(t, GL_RGBA, GL_UNSIGNED_BYTE, rgba, size_bytes, 4, error);
}

crowd_result host_target_read_depth(const host_target *t, float *depth, size_t count,
                                    crowd_error *error) {
    return read(t, GL_DEPTH_COMPONENT, GL_FLOAT, depth, count * sizeof(float), sizeof(float),
                error);
}

void host_target_present(const host_target *t, host_context *context) {
    uint32_t width, height;
    host_window_size(context, &width, &height);
    GLint previous_read = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, t->framebuffer);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitFramebuffer(0, 0, (GLint)t->width, (GLint)t->height, 0, 0, (GLint)width, (GLint)height,
                      GL_COLOR_BUFFER_BIT, GL_LINEAR);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)previous_read);
}
