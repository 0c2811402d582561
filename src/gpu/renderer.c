/* The renderer: creation from an asset and/or a bake, the offscreen target,
 * mode switching, clips, and the accessors. Drawing is in frame.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool crowd_renderer_has_mode(const crowd_renderer *r, crowd_gpu_mode mode) {
    if (r == NULL) {
        return false;
    }
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
        return "the source asset (skeleton and clips); a bake folder alone plays static, bat and "
               "vat";
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
    if (!(bake->fps > 0.0f) || !isfinite(bake->fps)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, bake->name,
                               "fps %g is not positive", (double)bake->fps);
    }
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        if (clip->frame_count == 0 ||
            (uint64_t)clip->first_frame + clip->frame_count > bake->frame_count ||
            !isfinite(clip->duration_s) || clip->duration_s < 0.0f) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, bake->name,
                                   "clip %u: frames %u..+%u outside the %u baked frames",
                                   (unsigned)c, (unsigned)clip->first_frame,
                                   (unsigned)clip->frame_count, (unsigned)bake->frame_count);
        }
        /* The shaders wrap a looping clip's frame by at most two
         * subtractions (frame_pair in crowd.vert.glsl); a bake has round(d *
         * fps) frames (a loaded one within one frame of it). */
        if (clip->loop && (double)clip->duration_s * bake->fps > (double)clip->frame_count + 1.0) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, bake->name,
                                   "looping clip %u: %g s at %g fps needs more than its %u frames",
                                   (unsigned)c, (double)clip->duration_s, (double)bake->fps,
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

static char *copy_string(const char *text) {
    size_t length = strlen(text != NULL ? text : "");
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text != NULL ? text : "", length + 1);
    }
    return copy;
}

static crowd_result make_clips(crowd_renderer *r, crowd_error *error) {
    const crowd_bake *bake = r->bake;
    r->clip_count = bake != NULL ? bake->clip_count : r->source->clip_count;
    r->clips = calloc(r->clip_count > 0 ? r->clip_count : 1, sizeof *r->clips);
    if (r->clips == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    for (uint32_t c = 0; c < r->clip_count; c++) {
        gpu_clip *clip = &r->clips[c];
        if (bake != NULL) {
            const crowd_bake_clip *baked = &bake->clips[c];
            clip->name = copy_string(baked->name);
            clip->duration_s = baked->duration_s;
            clip->loop = baked->loop;
            clip->first_frame = baked->first_frame;
            clip->frame_count = baked->frame_count;
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
            clip->name = copy_string(source->name);
            clip->duration_s = source->duration_s;
            clip->loop = source->loop;
            clip->source_clip = c;
        }
        if (clip->name == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    return CROWD_OK;
}

uint32_t crowd_renderer_clip_count(const crowd_renderer *r) {
    return r != NULL ? r->clip_count : 0;
}

bool crowd_renderer_get_clip(const crowd_renderer *r, uint32_t clip, crowd_renderer_clip *out) {
    if (r == NULL || clip >= r->clip_count) {
        return false;
    }
    out->name = r->clips[clip].name;
    out->duration_s = r->clips[clip].duration_s;
    out->loop = r->clips[clip].loop;
    return true;
}

int32_t crowd_renderer_find_clip(const crowd_renderer *r, const char *name) {
    for (uint32_t c = 0; r != NULL && name != NULL && c < r->clip_count; c++) {
        if (strcmp(r->clips[c].name, name) == 0) {
            return (int32_t)c;
        }
    }
    return -1;
}

/* ---- render target ------------------------------------------------------ */

static void release_target(crowd_renderer *r) {
    if (r->framebuffer != 0) {
        glDeleteFramebuffers(1, &r->framebuffer);
        glDeleteRenderbuffers(1, &r->color_renderbuffer);
        glDeleteRenderbuffers(1, &r->depth_renderbuffer);
        r->gpu_memory_bytes -= r->target_bytes;
    }
    r->framebuffer = r->color_renderbuffer = r->depth_renderbuffer = 0;
    r->target_bytes = 0;
}

static crowd_result make_target(crowd_renderer *r, uint32_t width, uint32_t height,
                                crowd_error *error) {
    GLint max = r->context->max_renderbuffer_size;
    if (width == 0 || height == 0 || width > (uint32_t)max || height > (uint32_t)max) {
        return crowd_error_set(
            error, width == 0 || height == 0 ? CROWD_ERROR_INVALID_ARGUMENT : CROWD_ERROR_LIMIT,
            NULL, "image size %ux%u: each side must be 1 to %d", (unsigned)width, (unsigned)height,
            (int)max);
    }
    release_target(r);
    glCreateFramebuffers(1, &r->framebuffer);
    glCreateRenderbuffers(1, &r->color_renderbuffer);
    glCreateRenderbuffers(1, &r->depth_renderbuffer);
    glNamedRenderbufferStorage(r->color_renderbuffer, GL_RGBA8, (GLsizei)width, (GLsizei)height);
    glNamedRenderbufferStorage(r->depth_renderbuffer, GL_DEPTH_COMPONENT32F, (GLsizei)width,
                               (GLsizei)height);
    glNamedFramebufferRenderbuffer(r->framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                   r->color_renderbuffer);
    glNamedFramebufferRenderbuffer(r->framebuffer, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER,
                                   r->depth_renderbuffer);
    r->target_bytes = 8ull * width * height;
    r->gpu_memory_bytes += r->target_bytes;
    crowd_result result = gpu_check(error, "creating the render target");
    if (result != CROWD_OK) {
        return result;
    }
    GLenum status = glCheckNamedFramebufferStatus(r->framebuffer, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL,
                               "the %ux%u render target is incomplete (0x%04x)", (unsigned)width,
                               (unsigned)height, (unsigned)status);
    }
    /* Pixels read before the first frame are black, not leftovers. */
    const float black[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    glClearNamedFramebufferfv(r->framebuffer, GL_COLOR, 0, black);
    r->width = width;
    r->height = height;
    return CROWD_OK;
}

crowd_result crowd_renderer_resize(crowd_renderer *r, uint32_t width, uint32_t height,
                                   crowd_error *error) {
    if (r == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "renderer is NULL");
    }
    if (width == r->width && height == r->height) {
        return CROWD_OK;
    }
    return make_target(r, width, height, error);
}

void crowd_renderer_size(const crowd_renderer *r, uint32_t *width, uint32_t *height) {
    *width = r != NULL ? r->width : 0;
    *height = r != NULL ? r->height : 0;
}

/* ---- modes -------------------------------------------------------------- */

/* The mode's program, and for bat and vat the build with the crossfade
 * code too (crowd.vert.glsl says why there are two). */
static crowd_result program_for(crowd_renderer *r, crowd_gpu_mode mode, crowd_error *error) {
    static const char *const defines[CROWD_GPU_MODE_COUNT] = {
        "#define MODE_STATIC 1\n", "#define MODE_CPU 1\n", "#define MODE_GPU 1\n",
        "#define MODE_BAT 1\n", "#define MODE_VAT 1\n"};
    char text[128];
    bool oct = mode == CROWD_GPU_MODE_VAT && r->bake->vat_encoding == CROWD_VAT_UNORM16_OCT;
    snprintf(text, sizeof text, "%s%s", defines[mode], oct ? "#define VAT_OCT 1\n" : "");
    crowd_result result = CROWD_OK;
    if (r->programs[mode] == 0) {
        result = gpu_program_create("crowd.vert.glsl", "crowd.frag.glsl", text, &r->programs[mode],
                                    error);
    }
    bool fades = mode == CROWD_GPU_MODE_BAT || mode == CROWD_GPU_MODE_VAT;
    if (result == CROWD_OK && fades && r->fade_programs[mode] == 0) {
        char fade_text[sizeof text + 32];
        snprintf(fade_text, sizeof fade_text, "%s#define CROSSFADE 1\n", text);
        result = gpu_program_create("crowd.vert.glsl", "crowd.frag.glsl", fade_text,
                                    &r->fade_programs[mode], error);
    }
    return result;
}

static void release_mode_resources(crowd_renderer *r) {
    gpu_baked_release(r);
    gpu_streams_release(r);
}

static crowd_result enter_mode(crowd_renderer *r, crowd_gpu_mode mode, crowd_error *error) {
    if (mode == CROWD_GPU_MODE_BAT || mode == CROWD_GPU_MODE_VAT) {
        return gpu_baked_upload(r, mode, error);
    }
    if (mode == CROWD_GPU_MODE_CPU) {
        return gpu_pose_prepare_skinning(r, error);
    }
    return CROWD_OK;
}

crowd_result crowd_renderer_set_mode(crowd_renderer *r, crowd_gpu_mode mode, crowd_error *error) {
    if (r == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "renderer is NULL");
    }
    if ((unsigned)mode >= CROWD_GPU_MODE_COUNT) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "unknown mode %d",
                               (int)mode);
    }
    if (!crowd_renderer_has_mode(r, mode)) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, NULL, "mode '%s' needs %s",
                               crowd_gpu_mode_name(mode), mode_needs(mode));
    }
    if (mode == r->mode && r->programs[mode] != 0) {
        return CROWD_OK;
    }
    crowd_result result = program_for(r, mode, error);
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
        program_for(r, CROWD_GPU_MODE_STATIC, &ignored);
    }
    return result;
}

crowd_gpu_mode crowd_renderer_mode(const crowd_renderer *r) {
    return r != NULL ? r->mode : CROWD_GPU_MODE_STATIC;
}

/* ---- create / destroy --------------------------------------------------- */

static crowd_result check_desc(const crowd_renderer_desc *desc, crowd_error *error) {
    if (desc == NULL || desc->context == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crowd_renderer_desc.context is required");
    }
    if (desc->asset == NULL && (desc->bake == NULL || desc->bake->asset == NULL)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crowd_renderer_desc needs an asset or a bake");
    }
    if (desc->max_instances > CROWD_RENDERER_MAX_INSTANCES) {
        return crowd_error_set(
            error, CROWD_ERROR_LIMIT, NULL, "max_instances %u is above the limit of %u",
            (unsigned)desc->max_instances, (unsigned)CROWD_RENDERER_MAX_INSTANCES);
    }
    if ((unsigned)desc->mode >= CROWD_GPU_MODE_COUNT) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "unknown mode %d",
                               (int)desc->mode);
    }
    return CROWD_OK;
}

crowd_result crowd_renderer_create(const crowd_renderer_desc *desc, crowd_renderer **out_renderer,
                                   crowd_error *error) {
    if (out_renderer == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "out_renderer is NULL");
    }
    *out_renderer = NULL;
    crowd_result result = check_desc(desc, error);
    if (result != CROWD_OK) {
        return result;
    }
    crowd_renderer *r = calloc(1, sizeof *r);
    if (r == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    r->context = desc->context;
    r->logger = desc->logger;
    r->bake = desc->bake;
    /* A loaded bake's asset has no clips to sample: it is drawn, not played
     * on the CPU. */
    r->source = desc->asset != NULL ? desc->asset
                                    : (desc->bake->owned_asset == NULL ? desc->bake->asset : NULL);
    r->drawn = desc->bake != NULL ? desc->bake->asset : desc->asset;
    r->max_instances =
        desc->max_instances != 0 ? desc->max_instances : CROWD_RENDERER_DEFAULT_MAX_INSTANCES;
    crowd_asset_bind_bounds(r->drawn, r->bind_min, r->bind_max);

    if (r->source != NULL && r->source->mesh.vertex_count != r->drawn->mesh.vertex_count) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
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
        result =
            make_target(r, desc->width != 0 ? desc->width : CROWD_RENDERER_DEFAULT_WIDTH,
                        desc->height != 0 ? desc->height : CROWD_RENDERER_DEFAULT_HEIGHT, error);
    }
    if (result == CROWD_OK) {
        result = gpu_mesh_upload(r, error);
    }
    if (result == CROWD_OK) {
        result = gpu_instances_init(r, error);
    }
    if (result == CROWD_OK) {
        result = gpu_program_create("ground.vert.glsl", "ground.frag.glsl", NULL,
                                    &r->ground_program, error);
    }
    if (result == CROWD_OK) {
        result = crowd_renderer_set_mode(r, desc->mode, error);
    }
    if (result != CROWD_OK) {
        crowd_renderer_destroy(r);
        return result;
    }
    *out_renderer = r;
    return CROWD_OK;
}

void crowd_renderer_destroy(crowd_renderer *r) {
    if (r == NULL) {
        return;
    }
    release_mode_resources(r);
    gpu_instances_release(r);
    gpu_mesh_release(r);
    release_target(r);
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        if (r->programs[m] != 0) {
            glDeleteProgram(r->programs[m]);
        }
        if (r->fade_programs[m] != 0) {
            glDeleteProgram(r->fade_programs[m]);
        }
    }
    if (r->ground_program != 0) {
        glDeleteProgram(r->ground_program);
    }
    gpu_pose_release(r);
    for (uint32_t c = 0; r->clips != NULL && c < r->clip_count; c++) {
        free(r->clips[c].name);
    }
    free(r->clips);
    free(r);
}

/* ---- accessors ---------------------------------------------------------- */

void crowd_renderer_bind_bounds(const crowd_renderer *r, float min[3], float max[3]) {
    memcpy(min, r->bind_min, sizeof r->bind_min);
    memcpy(max, r->bind_max, sizeof r->bind_max);
}

void crowd_renderer_set_time(crowd_renderer *r, double time_s) {
    if (r != NULL && isfinite(time_s)) {
        r->clock_s = time_s;
    }
}

double crowd_renderer_time(const crowd_renderer *r) {
    return r != NULL ? r->clock_s : 0.0;
}

void crowd_renderer_get_stats(const crowd_renderer *r, crowd_renderer_stats *out) {
    *out = r->stats;
    out->mode = r->mode;
    out->instance_count = r->instance_count;
    out->gpu_memory_bytes = r->gpu_memory_bytes;
}
