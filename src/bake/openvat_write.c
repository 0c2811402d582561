/* The OpenVAT-layout set (openvat_write.h). Values come from the bake's
 * own decode (crowd_bake_vat_fetch), so the copy carries exactly what the
 * crowd textures hold, converted to OpenVAT's conventions. */
#include "bake/openvat_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bake/glb_write.h"
#include "bake/png_write.h"
#include "bake/write_json.h"

static uint32_t next_power_of_two(uint64_t value) {
    uint64_t power = 1;
    while (power < value) {
        power *= 2;
    }
    return power > UINT32_MAX ? UINT32_MAX : (uint32_t)power;
}

static uint32_t log2_of(uint32_t power) {
    uint32_t log = 0;
    while (power > 1) {
        power /= 2;
        log++;
    }
    return log;
}

crowd_result crowd__openvat_plan(uint32_t vertices, uint32_t frames, openvat_layout *layout,
                                 crowd_error *error) {
    openvat_layout best = {0}, best_square = {0};
    for (uint32_t width = OPENVAT_MIN_WIDTH; width <= OPENVAT_MAX_WIDTH; width *= 2) {
        uint32_t wraps = (vertices + width - 1) / width;
        uint32_t height = next_power_of_two(2 * (uint64_t)wraps * frames);
        if (height > CROWD_BAKE_MAX_TEXTURE_SIZE) {
            continue;
        }
        uint64_t area = (uint64_t)width * height;
        openvat_layout candidate = {width, height, wraps, frames};
        if (best.width == 0 || area < (uint64_t)best.width * best.height) {
            best = candidate;
        }
        uint32_t lw = log2_of(width), lh = log2_of(height);
        bool square = (lw > lh ? lw - lh : lh - lw) <= 1;
        if (square &&
            (best_square.width == 0 || area < (uint64_t)best_square.width * best_square.height)) {
            best_square = candidate;
        }
    }
    if (best.width == 0) {
        return crowd_error_set(
            error, CROWD_ERROR_LIMIT, "",
            "OpenVAT layout: %u vertices x %u frames do not fit a %u-row texture "
            "(positions and normals, one row per frame and vertex block)",
            vertices, frames, CROWD_BAKE_MAX_TEXTURE_SIZE);
    }
    *layout = best_square.width != 0 ? best_square : best;
    return CROWD_OK;
}

/* glTF (Y up) to Blender (Z up): (x, y, z) -> (x, -z, y). */
static void to_blender(const float v[3], float out[3]) {
    out[0] = v[0];
    out[1] = -v[2];
    out[2] = v[1];
}

typedef struct openvat_texture {
    const crowd_bake *bake;
    openvat_layout layout;
    float min[3], max[3]; /* of the offsets, Blender axes */
} openvat_texture;

static void offset_and_normal(const openvat_texture *t, uint32_t frame, uint32_t vertex,
                              float offset[3], float normal[3]) {
    float position[3], n[3], delta[3];
    crowd_bake_vat_fetch(t->bake, frame, vertex, position, n);
    const float *rest = t->bake->asset->mesh.positions + 3 * (size_t)vertex;
    for (int a = 0; a < 3; a++) {
        delta[a] = position[a] - rest[a];
    }
    to_blender(delta, offset);
    to_blender(n, normal);
}

static void find_offset_range(openvat_texture *t) {
    for (int a = 0; a < 3; a++) {
        t->min[a] = INFINITY;
        t->max[a] = -INFINITY;
    }
    for (uint32_t f = 0; f < t->bake->frame_count; f++) {
        for (uint32_t v = 0; v < t->bake->vertex_count; v++) {
            float offset[3], normal[3];
            offset_and_normal(t, f, v, offset, normal);
            for (int a = 0; a < 3; a++) {
                t->min[a] = fminf(t->min[a], offset[a]);
                t->max[a] = fmaxf(t->max[a], offset[a]);
            }
        }
    }
}

static uint16_t unit_to_u16(float value) {
    float clamped = value < 0.0f ? 0.0f : value > 1.0f ? 1.0f : value;
    return (uint16_t)lroundf(clamped * 65535.0f);
}

/* Row y: positions in the top half, normals at y + height / 2; vertex
 * block y / frames, frame y % frames; texels past the last vertex stay 0. */
static void texture_row(void *user, uint32_t y, uint16_t *samples) {
    const openvat_texture *t = user;
    const openvat_layout *layout = &t->layout;
    bool normals = y >= layout->height / 2;
    uint32_t row = normals ? y - layout->height / 2 : y;
    uint32_t block = row / layout->frames, frame = row % layout->frames;
    memset(samples, 0, (size_t)layout->width * 3 * sizeof *samples);
    for (uint32_t x = 0; x < layout->width && block < layout->wraps; x++) {
        uint64_t vertex = (uint64_t)block * layout->width + x;
        if (vertex >= t->bake->vertex_count) {
            break;
        }
        float offset[3], normal[3];
        offset_and_normal(t, frame, (uint32_t)vertex, offset, normal);
        for (int a = 0; a < 3; a++) {
            float extent = t->max[a] - t->min[a];
            float value = normals         ? (normal[a] + 1.0f) * 0.5f
                          : extent > 0.0f ? (offset[a] - t->min[a]) / extent
                                          : 0.0f;
            samples[3 * x + (uint32_t)a] = unit_to_u16(value);
        }
    }
}

/* {"os-remap": {"Min", "Max", "Frames"}, "animations": {name: {...}}};
 * OpenVAT counts frames from 1, end inclusive. */
static crowd_result write_remap_info(atomic_set *set, const openvat_texture *t, const char *name,
                                     crowd_error *error) {
    const crowd_bake *bake = t->bake;
    bool failed = false;
    cJSON *root = cJSON_CreateObject();
    cJSON *remap = crowd__json_put(&failed, root, "os-remap", cJSON_CreateObject());
    crowd__json_put_floats(&failed, remap, "Min", t->min, 3);
    crowd__json_put_floats(&failed, remap, "Max", t->max, 3);
    crowd__json_put_number(&failed, remap, "Frames", bake->frame_count);
    cJSON *animations = crowd__json_put(&failed, root, "animations", cJSON_CreateObject());
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        const crowd_bake_clip *clip = &bake->clips[i];
        cJSON *object = crowd__json_put(&failed, animations, clip->name, cJSON_CreateObject());
        crowd__json_put_number(&failed, object, "startFrame", (double)clip->first_frame + 1);
        crowd__json_put_number(&failed, object, "endFrame",
                               (double)clip->first_frame + clip->frame_count);
        crowd__json_put_number(&failed, object, "framerate", clip->fps);
        crowd__json_put_bool(&failed, object, "looping", clip->loop);
    }
    char *json = failed ? NULL : cJSON_Print(root);
    cJSON_Delete(root);
    if (json == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, name, "out of memory");
    }
    crowd_result result = crowd__atomic_set_write(set, name, json, strlen(json), error);
    cJSON_free(json);
    return result;
}

crowd_result crowd__openvat_write(atomic_set *set, const crowd_bake *bake, uint32_t generation,
                                  openvat_names *names, crowd_error *error) {
    if (bake->vat_position.texels == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->name,
                               "the OpenVAT set needs a VAT (bake with --what vat or both)");
    }
    openvat_texture t = {.bake = bake};
    crowd_result result =
        crowd__openvat_plan(bake->vertex_count, bake->frame_count, &t.layout, error);
    if (result != CROWD_OK) {
        return result;
    }
    snprintf(names->remap_info, sizeof names->remap_info, "%s/%s.%u-remap_info.json",
             MANIFEST_OPENVAT_FOLDER, bake->name, generation);
    snprintf(names->texture, sizeof names->texture, "%s/%s.%u_vat.png", MANIFEST_OPENVAT_FOLDER,
             bake->name, generation);
    snprintf(names->mesh, sizeof names->mesh, "%s/%s.%u.glb", MANIFEST_OPENVAT_FOLDER, bake->name,
             generation);
    find_offset_range(&t);
    result = write_remap_info(set, &t, names->remap_info, error);
    atomic_file *file = NULL;
    if (result == CROWD_OK) {
        result = crowd__atomic_set_add(set, names->texture, &file, error);
    }
    if (result == CROWD_OK) {
        result =
            crowd__png_write_u16(file, t.layout.width, t.layout.height, 3, texture_row, &t, error);
    }
    if (result == CROWD_OK) {
        result = crowd__atomic_file_finish(file, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    glb_write_desc desc = {
        .asset = bake->asset,
        .name = bake->name,
        .skin = false,
        .lookup = {t.layout.width, t.layout.height, t.layout.frames},
    };
    uint8_t *glb = NULL;
    size_t glb_size = 0;
    result = crowd__glb_write(&desc, &glb, &glb_size, error);
    if (result == CROWD_OK) {
        result = crowd__atomic_set_write(set, names->mesh, glb, glb_size, error);
    }
    free(glb);
    return result;
}
