/* An archetype: creation from an asset and/or a bake (checked: a loaded bake
 * is untrusted input for the GPU), its clips, its programs and mode
 * switching. Drawing is in draw.c, the world's handles in world.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

static const char *const mode_names[CROWD_GPU_MODE_COUNT] = {"static", "cpu", "gpu", "bat", "vat"};

const char *crowd_gpu_mode_name(crowd_gpu_mode mode) {
    return (unsigned)mode < CROWD_GPU_MODE_COUNT ? mode_names[mode] : "?";
}

bool crowd_gpu_mode_parse(const char *name, crowd_gpu_mode *out) {
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        if (name != NULL && strcmp(name, mode_names[m]) == 0) {
            *out = (crowd_gpu_mode)m;
            return true;
        }
    }
    return false;
}

static bool has_bat(const crowd_bake *bake) {
    return bake != NULL && bake->bat.texels != NULL && bake->bat.format != CROWD_TEXEL_NONE;
}

static bool has_vat(const crowd_bake *bake) {
    return bake != NULL && bake->vat_position.texels != NULL &&
           bake->vat_position.format != CROWD_TEXEL_NONE && bake->vat_encoding != CROWD_VAT_DEFAULT;
}

bool crowd__gpu_archetype_has_mode(const gpu_archetype *r, crowd_gpu_mode mode) {
    switch (mode) {
    case CROWD_GPU_MODE_STATIC:
        return true;
    case CROWD_GPU_MODE_CPU:
    case CROWD_GPU_MODE_GPU:
        return r->source != NULL;
    case CROWD_GPU_MODE_BAT:
        return has_bat(r->bake);
    case CROWD_GPU_MODE_VAT:
        return has_vat(r->bake);
    case CROWD_GPU_MODE_COUNT:
        break;
    }
    return false;
}

/* What a mode was missing, for the error message. */
static const char *mode_needs(crowd_gpu_mode mode) {
    switch (mode) {
    case CROWD_GPU_MODE_CPU:
    case CROWD_GPU_MODE_GPU:
        return "the source asset (skeleton and clips), or a bake with runtime clips (manifest "
               "version 4); an older bake folder alone plays static, bat and vat";
    case CROWD_GPU_MODE_BAT:
        return "a bake with a BAT texture";
    case CROWD_GPU_MODE_VAT:
        return "a bake with a VAT texture";
    default:
        return "nothing";
    }
}

/* ---- bake checks: a loaded bake is untrusted input for the GPU ---------- */

static crowd_result check_layout(const crowd_bake *bake, const crowd_texture *texture,
                                 uint32_t rows_per_frame, uint64_t elements, const char *what,
                                 crowd_error *error) {
    if (rows_per_frame == 0 || texture->width == 0 ||
        (uint64_t)texture->width * rows_per_frame < elements) {
        return crowd_error_set(
            error, CROWD_ERROR_INVALID_DATA, bake->name,
            "%s texture: %u texels x %u rows per frame cannot hold %llu elements", what,
            (unsigned)texture->width, (unsigned)rows_per_frame, (unsigned long long)elements);
    }
    if ((uint64_t)bake->frame_count * rows_per_frame > texture->height) {
        return crowd_error_set(
            error, CROWD_ERROR_INVALID_DATA, bake->name,
            "%s texture: %u frames need %llu rows, it has %u", what, (unsigned)bake->frame_count,
            (unsigned long long)bake->frame_count * rows_per_frame, (unsigned)texture->height);
    }
    return CROWD_OK;
}

static crowd_result check_bake(const crowd_bake *bake, const crowd_asset *drawn,
                               crowd_error *error) {
    if (bake->vertex_count != drawn->mesh.vertex_count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->name,
                               "the bake has %u vertices, the mesh %u",
                               (unsigned)bake->vertex_count, (unsigned)drawn->mesh.vertex_count);
    }
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        /* Frames beyond 2^16 would not fit the record's frames word
         * (gpu_frames); no texture holds that many. */
        if (clip->frame_count == 0 || bake->frame_count > 65535 ||
            (uint64_t)clip->first_frame + clip->frame_count > bake->frame_count ||
            !isfinite(clip->duration_s) || clip->duration_s < 0.0f) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, bake->name,
                                   "clip %u: frames %u..+%u outside the %u baked frames",
                                   (unsigned)c, (unsigned)clip->first_frame,
                                   (unsigned)clip->frame_count, (unsigned)bake->frame_count);
        }
        if (!(clip->fps > 0.0f) || !isfinite(clip->fps) ||
            (unsigned)clip->layout > CROWD_FRAMES_CLAMP) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, bake->name,
                                   "clip %u: fps %g is not positive, or layout %d unknown",
                                   (unsigned)c, (double)clip->fps, (int)clip->layout);
        }
        /* The shaders wrap a WRAP clip's frame by at most two subtractions
         * (crowd_frame_pair in crowd_time.glsl); such a bake has round(d *
         * fps) frames (a loaded one within one frame of it). */
        if (clip->layout == CROWD_FRAMES_WRAP &&
            (double)clip->duration_s * clip->fps > (double)clip->frame_count + 1.0) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, bake->name,
                                   "looping clip %u: %g s at %g fps needs more than its %u frames",
                                   (unsigned)c, (double)clip->duration_s, (double)clip->fps,
                                   (unsigned)clip->frame_count);
        }
    }
    crowd_result result = CROWD_OK;
    if (has_vat(bake)) {
        result = check_layout(bake, &bake->vat_position, bake->vat_rows_per_frame,
                              bake->vertex_count, "VAT", error);
        if (result == CROWD_OK && bake->vat_encoding != CROWD_VAT_UNORM16_OCT &&
            (bake->vat_normal.width != bake->vat_position.width ||
             bake->vat_normal.height != bake->vat_position.height)) {
            result =
                crowd_error_set(error, CROWD_ERROR_INVALID_DATA, bake->name,
                                "the VAT normal texture differs in size from the position one");
        }
    }
    if (result == CROWD_OK && has_bat(bake)) {
        result = check_layout(bake, &bake->bat, bake->bat_rows_per_frame, 3ull * bake->joint_count,
                              "BAT", error);
        const crowd_mesh *mesh = &drawn->mesh;
        for (uint64_t i = 0; result == CROWD_OK && i < 4ull * mesh->vertex_count; i++) {
            if (mesh->joints[i] >= bake->joint_count && mesh->weights[i] != 0.0f) {
                result = crowd_error_set(error, CROWD_ERROR_INVALID_DATA, bake->name,
                                         "vertex %llu uses joint %u, the BAT has %u",
                                         (unsigned long long)(i / 4), (unsigned)mesh->joints[i],
                                         (unsigned)bake->joint_count);
            }
        }
    }
    return result;
}

/* ---- clips -------------------------------------------------------------- */

static crowd_result make_clips(gpu_archetype *r, crowd_error *error) {
    const crowd_bake *bake = r->bake;
    r->clip_count = bake != NULL ? bake->clip_count : r->source->clip_count;
    if (r->clip_count > CROWD_ARCHETYPE_MAX_CLIPS) {
        /* The record's clip index and the shaders' clip table hold this many. */
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL, "%u clips, at most %u",
                               (unsigned)r->clip_count, (unsigned)CROWD_ARCHETYPE_MAX_CLIPS);
    }
    r->clips = crowd__mem_alloc_zeroed(&r->world->allocator, r->clip_count > 0 ? r->clip_count : 1,
                                       sizeof *r->clips);
    if (r->clips == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    for (uint32_t c = 0; c < r->clip_count; c++) {
        gpu_clip *clip = &r->clips[c];
        if (bake != NULL) {
            const crowd_bake_clip *baked = &bake->clips[c];
            clip->name = crowd__gpu_copy_string(r->world, baked->name);
            clip->duration_s = baked->duration_s;
            clip->loop = baked->loop;
            clip->first_frame = baked->first_frame;
            clip->frame_count = baked->frame_count;
            clip->fps = baked->fps;
            clip->layout = baked->layout;
            clip->source_clip = UINT32_MAX;
            if (r->source != NULL) {
                /* A bake built from this asset knows its source clip; a
                 * loaded one is matched by name. */
                int32_t found = crowd_asset_find_clip(r->source, baked->name);
                clip->source_clip = baked->source_clip < r->source->clip_count
                                        ? baked->source_clip
                                        : (found >= 0 ? (uint32_t)found : UINT32_MAX);
            }
        } else {
            const crowd_clip *source = &r->source->clips[c];
            clip->name = crowd__gpu_copy_string(r->world, source->name);
            clip->duration_s = source->duration_s;
            clip->loop = source->loop;
            clip->source_clip = c;
        }
        if (clip->name == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
        /* The shaders' clip table (u_clips, GPU_UNIFORM_CLIPS). */
        uint32_t *row = r->clip_table[c];
        row[0] = gpu_frames(clip->first_frame, clip->frame_count);
        memcpy(&row[1], &clip->fps, sizeof clip->fps);
        memcpy(&row[2], &clip->duration_s, sizeof clip->duration_s);
        row[3] = (uint32_t)clip->layout | (clip->loop ? GPU_CLIP_LOOPS : 0u);
    }
    return CROWD_OK;
}

/* ---- modes -------------------------------------------------------------- */

/* The mode's shared programs, taken from the world once per archetype. A
 * fragment function that does not compile is named by the archetype. */
static crowd_result programs_for(gpu_archetype *r, crowd_gpu_mode mode, crowd_error *error) {
    if (r->programs[mode] != NULL) {
        return CROWD_OK;
    }
    bool oct = mode == CROWD_GPU_MODE_VAT && r->bake->vat_encoding == CROWD_VAT_UNORM16_OCT;
    bool uint16 = mode == CROWD_GPU_MODE_VAT && crowd__gpu_baked_vat_uint16(r->world, r->bake);
    crowd_result result = crowd__gpu_programs_acquire(
        r->world, mode, oct, uint16, r->fragment_source, &r->programs[mode], error);
    if (result != CROWD_OK && error != NULL && r->fragment_source != NULL &&
        strcmp(error->file, "crowd.frag.glsl") == 0) {
        snprintf(error->file, sizeof error->file, "%s: fragment_source", r->name);
    }
    return result;
}

static void release_mode_resources(gpu_archetype *r) {
    crowd__gpu_baked_release(&r->baked, &r->gpu_memory_bytes);
    crowd__gpu_streams_release(r);
}

static crowd_result enter_mode(gpu_archetype *r, crowd_gpu_mode mode, crowd_error *error) {
    if (mode == CROWD_GPU_MODE_BAT || mode == CROWD_GPU_MODE_VAT) {
        return crowd__gpu_baked_upload(&r->baked, r->bake, mode, r->world, &r->gpu_memory_bytes,
                                       error);
    }
    if (mode == CROWD_GPU_MODE_CPU) {
        return crowd__gpu_pose_prepare_skinning(r, error);
    }
    return CROWD_OK;
}

crowd_result crowd__gpu_archetype_set_mode(gpu_archetype *r, crowd_gpu_mode mode,
                                           crowd_error *error) {
    if ((unsigned)mode >= CROWD_GPU_MODE_COUNT) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name, "unknown mode %d",
                               (int)mode);
    }
    if (!crowd__gpu_archetype_has_mode(r, mode)) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, r->name, "mode '%s' needs %s",
                               crowd_gpu_mode_name(mode), mode_needs(mode));
    }
    if (mode == r->mode && r->programs[mode] != NULL) {
        return CROWD_OK;
    }
    crowd_result result = programs_for(r, mode, error);
    if (result != CROWD_OK) {
        return result;
    }
    release_mode_resources(r);
    r->mode = mode;
    result = enter_mode(r, mode, error);
    if (result != CROWD_OK) {
        /* Nothing half-made stays: fall back to static, which needs no more. */
        release_mode_resources(r);
        r->mode = CROWD_GPU_MODE_STATIC;
        crowd_error ignored;
        programs_for(r, CROWD_GPU_MODE_STATIC, &ignored);
    }
    /* Side-table entries exist in bat and vat modes only. */
    crowd__gpu_records_repack_all(r);
    return result;
}

/* ---- create / destroy --------------------------------------------------- */

static crowd_result check_desc(const crowd_archetype_desc *desc, crowd_error *error) {
    if (desc == NULL ||
        (desc->asset == NULL && (desc->bake == NULL || desc->bake->asset == NULL))) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crowd_archetype_desc needs an asset or a bake");
    }
    if ((unsigned)desc->mode >= CROWD_GPU_MODE_COUNT) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "unknown mode %d",
                               (int)desc->mode);
    }
    return CROWD_OK;
}

static const char *default_name(const crowd_archetype_desc *desc) {
    if (desc->name != NULL) {
        return desc->name;
    }
    if (desc->bake != NULL && desc->bake->name != NULL) {
        return desc->bake->name;
    }
    return desc->asset != NULL && desc->asset->name != NULL ? desc->asset->name : "archetype";
}

crowd_result crowd__gpu_archetype_create(crowd_world *world, const crowd_archetype_desc *desc,
                                         gpu_archetype **out, crowd_error *error) {
    *out = NULL;
    crowd_result result = check_desc(desc, error);
    if (result != CROWD_OK) {
        return result;
    }
    gpu_archetype *r = crowd__mem_alloc_zeroed(&world->allocator, 1, sizeof *r);
    if (r == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    r->world = world;
    r->bake = desc->bake;
    /* A loaded bake's asset plays on the CPU when it holds the runtime clips
     * (manifest version 4); without them it is drawn, not played. */
    r->source = desc->asset != NULL                                             ? desc->asset
                : (desc->bake->owned_asset == NULL || desc->bake->anim.present) ? desc->bake->asset
                                                                                : NULL;
    r->drawn = desc->bake != NULL ? desc->bake->asset : desc->asset;
    r->name = crowd__gpu_copy_string(world, default_name(desc));
    r->fragment_source =
        desc->fragment_source != NULL ? crowd__gpu_copy_string(world, desc->fragment_source) : NULL;
    if (r->name == NULL || (desc->fragment_source != NULL && r->fragment_source == NULL)) {
        crowd__gpu_archetype_destroy(r);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    crowd_asset_bind_bounds(r->drawn, r->bind_min, r->bind_max);

    if (r->source != NULL && r->source->mesh.vertex_count != r->drawn->mesh.vertex_count) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                 "the asset has %u vertices, the bake's mesh %u",
                                 (unsigned)r->source->mesh.vertex_count,
                                 (unsigned)r->drawn->mesh.vertex_count);
    }
    if (result == CROWD_OK && r->bake != NULL) {
        result = check_bake(r->bake, r->drawn, error);
    }
    if (result == CROWD_OK) {
        result = make_clips(r, error);
    }
    if (result == CROWD_OK) {
        result = crowd__gpu_events_init(r, error);
    }
    if (result == CROWD_OK) {
        result = crowd__gpu_mesh_upload(&r->mesh, r->drawn, r->bake, r->world, &r->gpu_memory_bytes,
                                        error);
    }
    if (result == CROWD_OK) {
        result = crowd__gpu_cull_init(r, error);
    }
    if (result == CROWD_OK) {
        result = crowd__gpu_instances_init(r, error);
    }
    if (result == CROWD_OK) {
        result = crowd__gpu_blends_declare_baked(r, error);
    }
    if (result == CROWD_OK && !crowd__gpu_archetype_has_mode(r, desc->mode)) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name, "mode '%s' needs %s",
                                 crowd_gpu_mode_name(desc->mode), mode_needs(desc->mode));
    }
    if (result == CROWD_OK) {
        result = crowd__gpu_archetype_set_mode(r, desc->mode, error);
    }
    /* Every playable mode's programs now, so no later switch compiles. */
    for (int m = 0; result == CROWD_OK && desc->warm_programs && m < CROWD_GPU_MODE_COUNT; m++) {
        if (crowd__gpu_archetype_has_mode(r, (crowd_gpu_mode)m)) {
            result = programs_for(r, (crowd_gpu_mode)m, error);
        }
    }
    if (result != CROWD_OK) {
        crowd__gpu_archetype_destroy(r);
        return result;
    }
    *out = r;
    return CROWD_OK;
}

void crowd__gpu_archetype_destroy(gpu_archetype *r) {
    if (r == NULL) {
        return;
    }
    release_mode_resources(r);
    crowd__gpu_cull_release(r);
    crowd__gpu_props_release(r);
    crowd__gpu_instances_release(r);
    crowd__gpu_mesh_release(&r->mesh, &r->gpu_memory_bytes);
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        crowd__gpu_programs_release(r->world, r->programs[m]);
    }
    crowd__gpu_pose_release(r);
    crowd__gpu_query_release(r);
    for (uint32_t c = 0; r->clips != NULL && c < r->clip_count; c++) {
        crowd__mem_free(&r->world->allocator, r->clips[c].name);
    }
    const crowd_allocator *allocator = &r->world->allocator;
    crowd__mem_free(allocator, r->clips);
    crowd__mem_free(allocator, r->fragment_source);
    crowd__mem_free(allocator, r->name);
    crowd__mem_free(allocator, r);
}
