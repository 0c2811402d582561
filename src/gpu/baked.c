/* The baked textures on the GPU for bat and vat modes, in their stored
 * encoding (the shaders decode). Each instance record carries its clip's
 * baked frames (instances.c), so no clip table goes to the GPU. */
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

static crowd_result upload_texture(gpu_archetype *r, const crowd_texture *texture, const char *what,
                                   GLuint *out, uint64_t *bytes_out, crowd_error *error) {
    texel_format f;
    if (!gl_format(texture->format, &f) || texture->texels == NULL || texture->width == 0 ||
        texture->height == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, r->bake->name,
                               "the bake has no usable %s texture", what);
    }
    GLint max = r->world->max_texture_size;
    if (texture->width > (uint32_t)max || texture->height > (uint32_t)max) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, r->bake->name,
                               "%s texture is %ux%u, this GL implementation allows %dx%d", what,
                               (unsigned)texture->width, (unsigned)texture->height, (int)max,
                               (int)max);
    }
    glCreateTextures(GL_TEXTURE_2D, 1, out);
    glTextureStorage2D(*out, 1, f.internal, (GLsizei)texture->width, (GLsizei)texture->height);
    *bytes_out = (uint64_t)texture->width * texture->height * f.bytes;
    r->gpu_memory_bytes += *bytes_out;
    gpu_unpack_state unpack;
    gpu_unpack_begin(&unpack);
    glTextureSubImage2D(*out, 0, 0, 0, (GLsizei)texture->width, (GLsizei)texture->height, f.format,
                        f.type, texture->texels);
    gpu_unpack_end(&unpack);
    /* texelFetch ignores filtering, but the default mipmapped minification
     * filter would leave a one-level texture incomplete on some drivers. */
    glTextureParameteri(*out, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(*out, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return gpu_check(error, "uploading a baked texture");
}

crowd_result gpu_baked_upload(gpu_archetype *r, crowd_gpu_mode mode, crowd_error *error) {
    if (mode == CROWD_GPU_MODE_BAT) {
        return upload_texture(r, &r->bake->bat, "BAT", &r->bat_texture, &r->bat_bytes, error);
    }
    crowd_result result = upload_texture(r, &r->bake->vat_position, "VAT position",
                                         &r->vat_position_texture, &r->vat_position_bytes, error);
    if (result == CROWD_OK && r->bake->vat_encoding != CROWD_VAT_UNORM16_OCT &&
        r->bake->vat_encoding != CROWD_VAT_DEFAULT) {
        result = upload_texture(r, &r->bake->vat_normal, "VAT normal", &r->vat_normal_texture,
                                &r->vat_normal_bytes, error);
    }
    return result;
}

void gpu_baked_release(gpu_archetype *r) {
    gpu_texture_delete(r, &r->bat_texture, &r->bat_bytes);
    gpu_texture_delete(r, &r->vat_position_texture, &r->vat_position_bytes);
    gpu_texture_delete(r, &r->vat_normal_texture, &r->vat_normal_bytes);
}
