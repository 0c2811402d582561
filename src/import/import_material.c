/* import_material.c - materials used by the merged mesh: name, base colour
 * factor and base-colour texture (decoded to RGBA8 when it is a PNG, embedded
 * or in a file next to the model; other image formats are left out and
 * logged, the factor still applies). */
#include <assimp/material.h>
#include <assimp/texture.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"
#include "import/import_internal.h"

/* Textures larger than this are not a crowd character's (and 16384^2 RGBA8 is already 1 GiB). */
#define MAX_TEXTURE_SIDE 16384u
#define MAX_TEXTURE_FILE_BYTES (256u << 20)

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *backslash = strrchr(path, '\\');
    if (backslash != NULL && (slash == NULL || backslash > slash)) {
        slash = backslash;
    }
    return slash ? slash + 1 : path;
}

static const struct aiTexture *find_embedded(const import_context *ctx, const char *path) {
    const struct aiScene *scene = ctx->scene;
    if (scene->mTextures == NULL) {
        return NULL;
    }
    if (path[0] == '*') {
        char *end = NULL;
        unsigned long index = strtoul(path + 1, &end, 10);
        if (end != path + 1 && *end == '\0' && index < scene->mNumTextures) {
            return scene->mTextures[index];
        }
        return NULL;
    }
    for (uint32_t t = 0; t < scene->mNumTextures; t++) {
        const struct aiTexture *texture = scene->mTextures[t];
        if (texture != NULL && (strcmp(texture->mFilename.data, path) == 0 ||
                                strcmp(base_name(texture->mFilename.data), base_name(path)) == 0)) {
            return texture;
        }
    }
    return NULL;
}

static bool read_whole_file(const char *path, uint8_t **out_bytes, size_t *out_size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return false;
    }
    bool ok = fseek(file, 0, SEEK_END) == 0;
    long size = ok ? ftell(file) : -1;
    ok = ok && size > 0 && (unsigned long)size <= MAX_TEXTURE_FILE_BYTES &&
         fseek(file, 0, SEEK_SET) == 0;
    uint8_t *bytes = ok ? malloc((size_t)size) : NULL;
    ok = bytes != NULL && fread(bytes, 1, (size_t)size, file) == (size_t)size;
    fclose(file);
    if (!ok) {
        free(bytes);
        return false;
    }
    *out_bytes = bytes;
    *out_size = (size_t)size;
    return true;
}

/* Uncompressed embedded texture: aiTexel is BGRA8. */
static bool copy_texels(const struct aiTexture *texture, crowd_material *material) {
    if (texture->mWidth > MAX_TEXTURE_SIDE || texture->mHeight > MAX_TEXTURE_SIDE ||
        texture->pcData == NULL) {
        return false;
    }
    size_t count = (size_t)texture->mWidth * texture->mHeight;
    material->texture_rgba8 = malloc(count * 4);
    if (material->texture_rgba8 == NULL) {
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        const struct aiTexel *t = &texture->pcData[i];
        uint8_t *o = &material->texture_rgba8[4 * i];
        o[0] = t->r;
        o[1] = t->g;
        o[2] = t->b;
        o[3] = t->a;
    }
    material->texture_width = texture->mWidth;
    material->texture_height = texture->mHeight;
    return true;
}

static void load_texture(import_context *ctx, const char *path, crowd_material *material) {
    const struct aiTexture *embedded = find_embedded(ctx, path);
    bool decoded = false;
    if (embedded != NULL && embedded->mHeight > 0) {
        decoded = copy_texels(embedded, material);
    } else if (embedded != NULL) {
        decoded = embedded->pcData != NULL &&
                  import_png_decode(embedded->pcData, embedded->mWidth, MAX_TEXTURE_SIDE,
                                    &material->texture_width, &material->texture_height,
                                    &material->texture_rgba8);
    } else if (ctx->dir != NULL && path[0] != '*') {
        size_t size = strlen(ctx->dir) + strlen(path) + 2;
        char *full = malloc(size);
        uint8_t *bytes = NULL;
        size_t byte_count = 0;
        if (full != NULL) {
            snprintf(full, size, "%s/%s", ctx->dir, path);
            if (read_whole_file(full, &bytes, &byte_count)) {
                decoded =
                    import_png_decode(bytes, byte_count, MAX_TEXTURE_SIDE, &material->texture_width,
                                      &material->texture_height, &material->texture_rgba8);
            }
        }
        free(full);
        free(bytes);
    }
    if (!decoded) {
        material->texture_width = material->texture_height = 0;
        crowd_log(ctx->logger, CROWD_LOG_WARNING,
                  "%s: material '%s': base-colour texture '%s' not loaded (missing, or not a "
                  "PNG crowd can decode); using the colour factor alone",
                  ctx->file, material->name, path);
    }
}

static crowd_result convert_material(import_context *ctx, const struct aiMaterial *source,
                                     crowd_material *material) {
    struct aiString name;
    name.length = 0;
    name.data[0] = '\0';
    if (source != NULL) {
        aiGetMaterialString(source, AI_MATKEY_NAME, &name);
    }
    material->name = core_copy_string(name.data);
    if (material->name == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    struct aiColor4D color = {1.0f, 1.0f, 1.0f, 1.0f};
    if (source != NULL &&
        aiGetMaterialColor(source, AI_MATKEY_BASE_COLOR, &color) != aiReturn_SUCCESS &&
        aiGetMaterialColor(source, AI_MATKEY_COLOR_DIFFUSE, &color) != aiReturn_SUCCESS) {
        color = (struct aiColor4D){1.0f, 1.0f, 1.0f, 1.0f};
    }
    const float rgba[4] = {color.r, color.g, color.b, color.a};
    for (int c = 0; c < 4; c++) {
        if (!isfinite(rgba[c])) {
            return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                   "material '%s': base colour is not finite", material->name);
        }
        material->base_color[c] = rgba[c];
    }
    if (source == NULL) {
        return CROWD_OK;
    }
    enum aiTextureType type = aiTextureType_BASE_COLOR;
    if (aiGetMaterialTextureCount(source, type) == 0) {
        type = aiTextureType_DIFFUSE;
    }
    struct aiString path;
    if (aiGetMaterialTextureCount(source, type) > 0 &&
        aiGetMaterialTexture(source, type, 0, &path, NULL, NULL, NULL, NULL, NULL, NULL) ==
            aiReturn_SUCCESS &&
        path.data[0] != '\0') {
        load_texture(ctx, path.data, material);
    }
    return CROWD_OK;
}

crowd_result import_materials_build(import_context *ctx, const uint32_t *scene_material_of,
                                    uint32_t material_count) {
    crowd_asset *asset = ctx->asset;
    asset->materials = calloc(material_count, sizeof *asset->materials);
    if (asset->materials == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    asset->material_count = material_count;
    const struct aiScene *scene = ctx->scene;
    for (uint32_t m = 0; m < material_count; m++) {
        const struct aiMaterial *source = scene->mNumMaterials > 0 && scene->mMaterials
                                              ? scene->mMaterials[scene_material_of[m]]
                                              : NULL;
        crowd_result result = convert_material(ctx, source, &asset->materials[m]);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}
