/* Texture sizes for a bake. Frames go down, so a texture's height is
 * frames x rows per frame and the row limit (16384, or the smaller size a
 * target such as WebGL2 asks for) is what runs out first; when it does, the
 * user needs numbers to act on: how many frames fit, and an fps that would
 * fit. */
#include "bake/bake_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The narrowest width that still needs no more rows than max_width does:
 * 7218 vertices at a max of 4096 take 2 rows either way, and 3609 texels per
 * row wastes 1 texel per frame instead of 974. */
static uint32_t balanced_width(uint64_t items, uint32_t max_width) {
    uint64_t rows = (items + max_width - 1) / max_width;
    return (uint32_t)((items + rows - 1) / rows);
}

static uint64_t frames_at(const crowd_bake *bake, double fps) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        total += crowd_anim_frame_count(bake->clips[i].duration_s, (float)fps);
    }
    return total;
}

/* Largest fps <= `fps` whose total frame count is at most `fit`, rounded down
 * to a value that reads well, or 0 when none exists (every clip needs at least
 * one frame). The frame count only grows with fps, so bisection finds it. */
static double fitting_fps(const crowd_bake *bake, double fps, uint64_t fit) {
    if (frames_at(bake, 1e-9) > fit) {
        return 0.0;
    }
    double lo = 1e-9, hi = fps;
    for (int i = 0; i < 64; i++) {
        double mid = 0.5 * (lo + hi);
        if (frames_at(bake, mid) <= fit) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    /* Two significant digits, but whole frames per second from 10 up. */
    double step = pow(10.0, floor(log10(lo)) - 1.0);
    step = step > 1.0 ? 1.0 : step;
    double rounded = floor(lo / step) * step;
    if (rounded > 0.0 && frames_at(bake, rounded) <= fit) {
        return rounded;
    }
    return lo;
}

static crowd_result too_tall(const crowd_bake *bake, const crowd_asset *asset, const char *texture,
                             uint64_t frames, uint32_t rows_per_frame, uint64_t items,
                             const bake_layout_request *request, crowd_error *error) {
    uint32_t limit = request->max_size;
    uint64_t fit = limit / rows_per_frame;
    char advice[200];
    double fps = fitting_fps(bake, 1000.0, fit);
    if (fps > 0.0) {
        snprintf(advice, sizeof advice, "--fps %g would fit", fps);
    } else {
        snprintf(advice, sizeof advice, "no fps fits %u clips; bake fewer (--clips)",
                 bake->clip_count);
    }
    char wider[120] = "";
    uint64_t rows_at_max = (items + limit - 1) / limit;
    if (request->max_width < limit && rows_at_max < rows_per_frame) {
        snprintf(wider, sizeof wider, " (or --max-width %u: %llu frames fit)", limit,
                 (unsigned long long)(limit / rows_at_max));
    }
    return crowd_error_set(error, CROWD_ERROR_LIMIT, asset->source ? asset->source : "",
                           "the %s texture would be %.0f rows tall (%llu frames x %u rows per "
                           "frame), over the limit of %u: %llu frames fit; %s%s",
                           texture, (double)frames * rows_per_frame, (unsigned long long)frames,
                           rows_per_frame, limit, (unsigned long long)fit, advice, wider);
}

uint64_t crowd__bake_frames_fit(const crowd_bake *bake, const bake_layout_request *request) {
    uint64_t fit = UINT64_MAX;
    uint64_t items[2] = {bake->vertex_count, 3 * (uint64_t)bake->joint_count};
    bool wanted[2] = {request->what != CROWD_BAKE_BAT_ONLY, request->what != CROWD_BAKE_VAT_ONLY};
    for (int i = 0; i < 2; i++) {
        if (wanted[i]) {
            uint64_t rows = (items[i] + request->max_width - 1) / request->max_width;
            uint64_t frames = request->max_size / rows;
            fit = frames < fit ? frames : fit;
        }
    }
    return fit;
}

static crowd_result alloc_texture(crowd_texture *texture, uint32_t width, uint32_t height,
                                  crowd_texel_format format, crowd_error *error) {
    texture->width = width;
    texture->height = height;
    texture->format = format;
    texture->texels = calloc((size_t)width * height, crowd__bake_texel_size_bytes(format));
    if (texture->texels == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL,
                               "out of memory for a %ux%u texture", width, height);
    }
    return CROWD_OK;
}

/* Width and rows per frame for `items` texels per frame; checks the height. */
static crowd_result plan_one(const crowd_bake *bake, const crowd_asset *asset, const char *name,
                             uint64_t frames, uint64_t items, const bake_layout_request *request,
                             uint32_t *out_width, uint32_t *out_rows, crowd_error *error) {
    uint32_t width = balanced_width(items, request->max_width);
    uint64_t rows = (items + width - 1) / width;
    uint32_t limit = request->max_size;
    if (rows > limit) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, asset->source ? asset->source : "",
                               "one frame of the %s texture needs %llu rows at width %u, over "
                               "the limit of %u; raise --max-width",
                               name, (unsigned long long)rows, width, limit);
    }
    if (frames > limit || frames * rows > limit) {
        return too_tall(bake, asset, name, frames, (uint32_t)rows, items, request, error);
    }
    *out_width = width;
    *out_rows = (uint32_t)rows;
    return CROWD_OK;
}

crowd_result crowd__bake_plan_textures(crowd_bake *bake, const crowd_asset *asset,
                                       uint64_t total_frames, const bake_layout_request *request,
                                       crowd_error *error) {
    bool vat = request->what != CROWD_BAKE_BAT_ONLY;
    bool bat = request->what != CROWD_BAKE_VAT_ONLY;
    uint32_t vat_width = 0, vat_rows = 0, bat_width = 0, bat_rows = 0;
    crowd_result result = CROWD_OK;
    if (vat) {
        result = plan_one(bake, asset, "VAT", total_frames, bake->vertex_count, request, &vat_width,
                          &vat_rows, error);
    }
    if (result == CROWD_OK && bat) {
        result = plan_one(bake, asset, "BAT", total_frames, 3 * (uint64_t)bake->joint_count,
                          request, &bat_width, &bat_rows, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    bake->frame_count = (uint32_t)total_frames;
    if (vat) {
        bool unorm = request->vat_encoding == CROWD_VAT_UNORM16_OCT;
        crowd_texel_format format = unorm ? CROWD_TEXEL_RGBA16_UNORM
                                    : request->vat_encoding == CROWD_VAT_F16 ? CROWD_TEXEL_RGBA16F
                                                                             : CROWD_TEXEL_RGBA32F;
        bake->vat_encoding = request->vat_encoding;
        bake->vat_rows_per_frame = vat_rows;
        uint32_t height = bake->frame_count * vat_rows;
        result = alloc_texture(&bake->vat_position, vat_width, height, format, error);
        if (result == CROWD_OK && !unorm) {
            result = alloc_texture(&bake->vat_normal, vat_width, height, format, error);
        }
    }
    uint32_t socket_width = 0, socket_rows = 0;
    if (result == CROWD_OK && asset->socket_count > 0) {
        result =
            plan_one(bake, asset, "socket track", total_frames, 3 * (uint64_t)asset->socket_count,
                     request, &socket_width, &socket_rows, error);
    }
    if (result == CROWD_OK && asset->socket_count > 0) {
        bake->socket_count = asset->socket_count;
        bake->socket_rows_per_frame = socket_rows;
        result = alloc_texture(&bake->socket_tracks, socket_width, bake->frame_count * socket_rows,
                               CROWD_TEXEL_RGBA32F, error);
    }
    if (result == CROWD_OK && bat) {
        bake->bat_encoding = request->bat_encoding;
        bake->bat_rows_per_frame = bat_rows;
        crowd_texel_format format =
            request->bat_encoding == CROWD_BAT_F16 ? CROWD_TEXEL_RGBA16F : CROWD_TEXEL_RGBA32F;
        result = alloc_texture(&bake->bat, bat_width, bake->frame_count * bat_rows, format, error);
    }
    return result;
}
