/* shadow.c - the shadow map (shadow.h). */
#include "shadow.h"

#include <math.h>
#include <string.h>

#include <epoxy/gl.h>

#include "mat4.h"

crowd_result shadow_map_create(uint32_t size, shadow_map *out, crowd_error *error) {
    memset(out, 0, sizeof *out);
    GLint max = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max);
    if (size == 0 || size > (uint32_t)max) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL,
                               "a %u x %u shadow map: each side must be 1 to %d", (unsigned)size,
                               (unsigned)size, (int)max);
    }
    GLuint texture, framebuffer;
    glCreateTextures(GL_TEXTURE_2D, 1, &texture);
    glTextureStorage2D(texture, 1, GL_DEPTH_COMPONENT32F, (GLsizei)size, (GLsizei)size);
    /* Linear filtering of a comparison is a 2x2 PCF for free; outside the
     * map nothing casts, so the border is the far plane (lit). */
    glTextureParameteri(texture, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(texture, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(texture, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
    glTextureParameteri(texture, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
    const float border[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    glTextureParameterfv(texture, GL_TEXTURE_BORDER_COLOR, border);
    glTextureParameteri(texture, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTextureParameteri(texture, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glCreateFramebuffers(1, &framebuffer);
    glNamedFramebufferTexture(framebuffer, GL_DEPTH_ATTACHMENT, texture, 0);
    glNamedFramebufferDrawBuffer(framebuffer, GL_NONE);
    glNamedFramebufferReadBuffer(framebuffer, GL_NONE);
    out->texture = texture;
    out->framebuffer = framebuffer;
    out->size = size;
    GLenum status = glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        shadow_map_release(out);
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL,
                               "the %u x %u shadow map is incomplete (0x%04x)", (unsigned)size,
                               (unsigned)size, (unsigned)status);
    }
    return CROWD_OK;
}

void shadow_map_release(shadow_map *map) {
    if (map->framebuffer != 0) {
        glDeleteFramebuffers(1, &map->framebuffer);
    }
    if (map->texture != 0) {
        glDeleteTextures(1, &map->texture);
    }
    memset(map, 0, sizeof *map);
}

/* glOrtho's matrix for the view-space box [lo, hi] (z negative ahead). */
static void ortho(const float lo[3], const float hi[3], float out[16]) {
    memset(out, 0, 16 * sizeof *out);
    float near = -hi[2], far = -lo[2];
    out[0] = 2.0f / (hi[0] - lo[0]);
    out[5] = 2.0f / (hi[1] - lo[1]);
    out[10] = -2.0f / (far - near);
    out[12] = -(hi[0] + lo[0]) / (hi[0] - lo[0]);
    out[13] = -(hi[1] + lo[1]) / (hi[1] - lo[1]);
    out[14] = -(far + near) / (far - near);
    out[15] = 1.0f;
}

/* Light view and projection around the crowd box [min, max]: its corners,
 * padded by a quarter of its height (limbs reach out of the bind pose's
 * box), and where its top corners' shadows fall on the plane y = min[1]. */
static bool fit(const float min_in[3], const float max_in[3], const float direction[3],
                float view[16], float projection[16]) {
    float length = sqrtf(direction[0] * direction[0] + direction[1] * direction[1] +
                         direction[2] * direction[2]);
    if (!(length > 0.0f) || !(direction[1] / length > 0.05f)) {
        return false; /* a light at or below the horizon throws no useful shadow */
    }
    float to_light[3], min[3], max[3], centre[3];
    float pad = 0.25f * (max_in[1] - min_in[1]);
    float radius = 0.0f;
    for (int a = 0; a < 3; a++) {
        to_light[a] = direction[a] / length;
        min[a] = min_in[a] - pad;
        max[a] = max_in[a] + pad;
        centre[a] = 0.5f * (min[a] + max[a]);
        radius += (max[a] - min[a]) * (max[a] - min[a]);
    }
    min[1] = min_in[1];
    radius = sqrtf(radius);
    crowd_camera light = {.up = {0.0f, 1.0f, 0.0f}, .near_m = 1.0f, .far_m = 2.0f};
    for (int a = 0; a < 3; a++) {
        light.target[a] = centre[a];
        light.eye[a] = centre[a] + to_light[a] * (radius + 1.0f);
    }
    float unused[16];
    if (!crowd_camera_matrices(&light, 1.0f, view, unused)) {
        return false;
    }
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 12; k++) {
        int top = k - 8; /* top corners: y bit (2) set, x and z from top's bits */
        int corner = k < 8 ? k : (top & 1) | 2 | (top & 2) << 1;
        float p[3] = {(corner & 1) ? max[0] : min[0], (corner & 2) ? max[1] : min[1],
                      (corner & 4) ? max[2] : min[2]};
        if (k >= 8) {
            float drop = (p[1] - min[1]) / to_light[1];
            for (int a = 0; a < 3; a++) {
                p[a] -= to_light[a] * drop;
            }
        }
        float q[3];
        mat4_point(view, p, q);
        for (int a = 0; a < 3; a++) {
            lo[a] = fminf(lo[a], q[a]);
            hi[a] = fmaxf(hi[a], q[a]);
        }
    }
    /* A little depth margin so nothing sits exactly on a clip plane. */
    lo[2] -= 0.01f * radius + 0.01f;
    hi[2] += 0.01f * radius + 0.01f;
    ortho(lo, hi, projection);
    return true;
}

crowd_result shadow_map_draw(shadow_map *map, crowd_world *world, const float light_direction[3],
                             crowd_error *error) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, map->framebuffer);
    glViewport(0, 0, (GLsizei)map->size, (GLsizei)map->size);
    const float far = 1.0f;
    glClearNamedFramebufferfv(map->framebuffer, GL_DEPTH, 0, &far);
    crowd_draw_desc draw = {.pass = CROWD_PASS_DEPTH};
    float min[3], max[3];
    if (!crowd_world_instance_bounds(world, min, max) ||
        !fit(min, max, light_direction, draw.view, draw.projection)) {
        /* Nothing to cast: a cleared map reads lit everywhere. */
        memset(map->view_proj, 0, sizeof map->view_proj);
        map->view_proj[0] = map->view_proj[5] = map->view_proj[10] = map->view_proj[15] = 1.0f;
        return CROWD_OK;
    }
    mat4_mul(draw.projection, draw.view, map->view_proj);
    return crowd_world_draw(world, &draw, error);
}
