/* Reading single values back out of a bake, decoded: what a shader does per
 * vertex, done on the CPU for tests, the error report and tools. The texel
 * format of each texture decides the decode (a loaded bake may be any). */
#include "load/bake_internal.h"

#include <math.h>
#include <string.h>

static size_t texel_index(uint32_t width, uint32_t rows_per_frame, uint32_t frame, uint32_t item) {
    size_t row = (size_t)frame * rows_per_frame + item / width;
    return row * width + item % width;
}

static void read_rgba(const crowd_texture *texture, size_t index, float rgba[4]) {
    for (int c = 0; c < 4; c++) {
        rgba[c] = bake_texel_stored_value(texture, 4 * index + (size_t)c);
    }
}

static void normalize3(float v[3]) {
    float length = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (length > 0.0f) {
        v[0] /= length;
        v[1] /= length;
        v[2] /= length;
    }
}

void crowd_bake_vat_fetch(const crowd_bake *bake, uint32_t frame, uint32_t vertex,
                          float position[3], float normal[3]) {
    const crowd_texture *texture = &bake->vat_position;
    size_t index = texel_index(texture->width, bake->vat_rows_per_frame, frame, vertex);
    if (texture->format == CROWD_TEXEL_RGBA16_UNORM) {
        const uint16_t *texel = (const uint16_t *)texture->texels + 4 * index;
        for (int a = 0; a < 3; a++) {
            position[a] =
                crowd__bake_unorm16_decode(texel[a], bake->bounds_min[a], bake->bounds_max[a]);
        }
        if (normal != NULL) {
            crowd__bake_oct_decode(texel[3], normal);
        }
        return;
    }
    float rgba[4];
    read_rgba(texture, index, rgba);
    memcpy(position, rgba, 3 * sizeof(float));
    if (normal != NULL) {
        read_rgba(&bake->vat_normal, index, rgba);
        memcpy(normal, rgba, 3 * sizeof(float));
        normalize3(normal);
    }
}

void crowd_bake_bat_fetch(const crowd_bake *bake, uint32_t frame, uint32_t joint,
                          float matrix[12]) {
    const crowd_texture *texture = &bake->bat;
    for (uint32_t k = 0; k < 3; k++) {
        size_t index = texel_index(texture->width, bake->bat_rows_per_frame, frame, 3 * joint + k);
        read_rgba(texture, index, matrix + 4 * k);
    }
}

int32_t crowd_bake_find_clip(const crowd_bake *bake, const char *name) {
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        if (bake->clips[i].name != NULL && strcmp(bake->clips[i].name, name) == 0) {
            return (int32_t)i;
        }
    }
    return -1;
}

crowd_clip_frames crowd_bake_clip_frames(const crowd_bake_clip *clip) {
    crowd_clip_frames frames = {clip->fps, clip->duration_s, clip->frame_count, clip->layout};
    return frames;
}

crowd_result crowd_bake_root_motion_delta(const crowd_bake *bake, uint32_t clip, float from_t,
                                          float to_t, float out_delta_position[3],
                                          float *out_delta_heading, crowd_error *error) {
    if (bake == NULL || out_delta_position == NULL || out_delta_heading == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "bake, out_delta_position or out_delta_heading is NULL");
    }
    if (clip >= bake->clip_count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->name,
                               "clip %u out of range (%u clips)", clip, bake->clip_count);
    }
    const crowd_bake_clip *c = &bake->clips[clip];
    if (c->root_motion.sample_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, bake->name,
                               "clip '%s' has no root motion (baked with --root-motion keep)",
                               c->name);
    }
    if (!crowd_anim_root_motion_delta(&c->root_motion, c->duration_s, c->loop, from_t, to_t,
                                      out_delta_position, out_delta_heading)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->name,
                               "root motion of clip '%s' between %g and %g: a time is not finite",
                               c->name, (double)from_t, (double)to_t);
    }
    return CROWD_OK;
}
