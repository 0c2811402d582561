/* The baked textures on the GPU for bat and vat modes, in their stored
 * encoding (the shaders decode). Each instance record carries its clip's
 * baked frames (instances.c), so no clip table goes to the GPU. GLES
 * without EXT_texture_norm16 cannot sample 16-bit normalized textures:
 * there unorm16 texels go up as RGBA16UI, the same bits, and the shader
 * divides by 65535 (VAT_UINT16). */
#include "gpu/internal.h"

typedef struct texel_format {
    GLenum internal, format, type;
    uint32_t bytes;
} texel_format;

static bool gl_format(crowd_texel_format format, texel_format *out) {
    switch (format) {
    case CROWD_TEXEL_RGBA32F:
        *out = (texel_format){GL_RGBA32F, GL_RGBA, GL_FLOAT, 16};
        return true;
    case CROWD_TEXEL_RGBA16F:
        *out = (texel_format){GL_RGBA16F, GL_RGBA, GL_HALF_FLOAT, 8};
        return true;
    case CROWD_TEXEL_RGBA16_UNORM:
        *out = (texel_format){GL_RGBA16, GL_RGBA, GL_UNSIGNED_SHORT, 8};
        return true;
    case CROWD_TEXEL_NONE:
        break;
    }
    return false;
}

/* What an upload needs besides the texture: whose it is, the GL limit and
 * where its bytes are counted. */
typedef struct upload_target {
    const crowd_world *world;
    const char *bake_name;
    GLint max_texture_size;
    uint64_t *memory_bytes;
} upload_target;

static crowd_result upload_texture(const upload_target *to, const crowd_texture *texture,
                                   const char *what, GLuint *out, uint64_t *bytes_out,
                                   crowd_error *error) {
    texel_format f;
    if (!gl_format(texture->format, &f) || texture->texels == NULL || texture->width == 0 ||
        texture->height == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, to->bake_name,
                               "the bake has no usable %s texture", what);
    }
    GLint max = to->max_texture_size;
    if (texture->width > (uint32_t)max || texture->height > (uint32_t)max) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, to->bake_name,
                               "%s texture is %ux%u, this GL implementation allows %dx%d", what,
                               (unsigned)texture->width, (unsigned)texture->height, (int)max,
                               (int)max);
    }
    if (to->world->portable) {
        if (f.internal == GL_RGBA16 && !to->world->unorm16_textures) {
            f = (texel_format){GL_RGBA16UI, GL_RGBA_INTEGER, GL_UNSIGNED_SHORT, 8};
        }
        /* Bound on unit 0, whose binding the world's saved state puts back. */
        crowd_result result = crowd__gpu_texture_create_bound(
            to->world, out, GPU_TEXTURE_MATERIALS, f.internal, texture->width, texture->height,
            f.format, f.type, texture->texels, error);
        if (result == CROWD_OK) {
            *bytes_out = (uint64_t)texture->width * texture->height * f.bytes;
            *to->memory_bytes += *bytes_out;
        }
        return result;
    }
    glCreateTextures(GL_TEXTURE_2D, 1, out);
    glTextureStorage2D(*out, 1, f.internal, (GLsizei)texture->width, (GLsizei)texture->height);
    *bytes_out = (uint64_t)texture->width * texture->height * f.bytes;
    *to->memory_bytes += *bytes_out;
    gpu_unpack_state unpack;
    crowd__gpu_unpack_begin(&unpack, false);
    glTextureSubImage2D(*out, 0, 0, 0, (GLsizei)texture->width, (GLsizei)texture->height, f.format,
                        f.type, texture->texels);
    crowd__gpu_unpack_end(&unpack, false);
    /* texelFetch ignores filtering, but the default mipmapped minification
     * filter would leave a one-level texture incomplete on some drivers. */
    glTextureParameteri(*out, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(*out, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return crowd__gpu_check(error, "uploading a baked texture");
}

bool crowd__gpu_baked_vat_uint16(const crowd_world *world, const crowd_bake *bake) {
    return world->portable && !world->unorm16_textures &&
           bake->vat_position.format == CROWD_TEXEL_RGBA16_UNORM;
}

crowd_result crowd__gpu_baked_upload(gpu_baked *baked, const crowd_bake *bake, crowd_gpu_mode mode,
                                     const crowd_world *world, uint64_t *memory_bytes,
                                     crowd_error *error) {
    const upload_target to = {world, bake->name, world->max_texture_size, memory_bytes};
    if (mode == CROWD_GPU_MODE_BAT) {
        return upload_texture(&to, &bake->bat, "BAT", &baked->bat_texture, &baked->bat_bytes,
                              error);
    }
    crowd_result result =
        upload_texture(&to, &bake->vat_position, "VAT position", &baked->vat_position_texture,
                       &baked->vat_position_bytes, error);
    if (result == CROWD_OK && bake->vat_encoding != CROWD_VAT_UNORM16_OCT &&
        bake->vat_encoding != CROWD_VAT_DEFAULT) {
        result = upload_texture(&to, &bake->vat_normal, "VAT normal", &baked->vat_normal_texture,
                                &baked->vat_normal_bytes, error);
    }
    return result;
}

void crowd__gpu_baked_release(gpu_baked *baked, uint64_t *memory_bytes) {
    crowd__gpu_texture_delete(memory_bytes, &baked->bat_texture, &baked->bat_bytes);
    crowd__gpu_texture_delete(memory_bytes, &baked->vat_position_texture,
                              &baked->vat_position_bytes);
    crowd__gpu_texture_delete(memory_bytes, &baked->vat_normal_texture, &baked->vat_normal_bytes);
}
