/* import_material.c - materials used by the merged mesh, as assimp gives
 * them: name, base colour, metallic and roughness factors, emissive colour,
 * glTF's alpha mode and cutoff, two-sidedness, and the base-colour,
 * metallic-roughness (glTF's packed texture), normal, emissive and
 * occlusion textures (decoded to RGBA8 when they are a PNG, embedded or in
 * a file next to the model; other image formats are left out and logged,
 * the factors still apply; so is a texture that reads another UV channel
 * than the first, the one crowd keeps).
 *
 * Formats without PBR data (FBX, Collada, OBJ, X, ...) have no metallic or
 * roughness keys: those materials become metallic 0 (their diffuse colour
 * is a dielectric's albedo) and roughness 1 (their Phong shininess has no
 * reliable roughness equivalent, and roughness 1 keeps the diffuse look
 * crowd always gave them); their alpha mode is opaque. glTF files that
 * reach assimp carry the glTF keys, with the glTF defaults (metallic 1,
 * roughness 1) where a factor is absent. */
#include <assimp/GltfMaterial.h>
#include <assimp/material.h>
#include <assimp/texture.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"
#include "import/assimp/import_internal.h"

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
static bool copy_texels(const struct aiTexture *texture, crowd_image *image) {
    if (texture->mWidth > MAX_TEXTURE_SIDE || texture->mHeight > MAX_TEXTURE_SIDE ||
        texture->pcData == NULL) {
        return false;
    }
    size_t count = (size_t)texture->mWidth * texture->mHeight;
    image->rgba8 = malloc(count * 4);
    if (image->rgba8 == NULL) {
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        const struct aiTexel *t = &texture->pcData[i];
        uint8_t *o = &image->rgba8[4 * i];
        o[0] = t->r;
        o[1] = t->g;
        o[2] = t->b;
        o[3] = t->a;
    }
    image->width = texture->mWidth;
    image->height = texture->mHeight;
    return true;
}

static void load_texture(import_context *ctx, const char *path, const char *what,
                         const char *material_name, crowd_image *image) {
    const struct aiTexture *embedded = find_embedded(ctx, path);
    bool decoded = false;
    if (embedded != NULL && embedded->mHeight > 0) {
        decoded = copy_texels(embedded, image);
    } else if (embedded != NULL) {
        decoded = embedded->pcData != NULL &&
                  crowd__import_png_decode(embedded->pcData, embedded->mWidth, MAX_TEXTURE_SIDE,
                                           &image->width, &image->height, &image->rgba8);
    } else if (ctx->dir != NULL && path[0] != '*') {
        size_t size = strlen(ctx->dir) + strlen(path) + 2;
        char *full = malloc(size);
        uint8_t *bytes = NULL;
        size_t byte_count = 0;
        if (full != NULL) {
            snprintf(full, size, "%s/%s", ctx->dir, path);
            if (read_whole_file(full, &bytes, &byte_count)) {
                decoded = crowd__import_png_decode(bytes, byte_count, MAX_TEXTURE_SIDE,
                                                   &image->width, &image->height, &image->rgba8);
            }
        }
        free(full);
        free(bytes);
    }
    if (!decoded) {
        *image = (crowd_image){0};
        crowd_log(ctx->logger, CROWD_LOG_WARNING,
                  "%s: material '%s': %s texture '%s' not loaded (missing, or not a PNG crowd "
                  "can decode); using the factors alone",
                  ctx->file, material_name, what, path);
    }
}

/* The first texture of `type` (index 0) into `image`, when there is one on UV channel 0. */
static void load_slot(import_context *ctx, const struct aiMaterial *source, enum aiTextureType type,
                      const char *what, const char *material_name, crowd_image *image) {
    struct aiString path;
    unsigned int uv_index = 0;
    if (aiGetMaterialTextureCount(source, type) == 0 ||
        aiGetMaterialTexture(source, type, 0, &path, NULL, &uv_index, NULL, NULL, NULL, NULL) !=
            aiReturn_SUCCESS ||
        path.data[0] == '\0') {
        return;
    }
    if (uv_index != 0) {
        crowd_log(ctx->logger, CROWD_LOG_WARNING,
                  "%s: material '%s': the %s texture reads UV channel %u (crowd keeps the first); "
                  "left out",
                  ctx->file, material_name, what, uv_index);
        return;
    }
    load_texture(ctx, path.data, what, material_name, image);
}

static float unit_clamp(float value) {
    return value < 0.0f ? 0.0f : value > 1.0f ? 1.0f : value;
}

/* A float key, or `fallback` when absent; false when present but not finite. */
static bool get_float(const struct aiMaterial *source, const char *key, unsigned int type,
                      unsigned int index, float fallback, float *out) {
    ai_real value = 0;
    *out = fallback;
    if (aiGetMaterialFloatArray(source, key, type, index, &value, NULL) != aiReturn_SUCCESS) {
        return true;
    }
    *out = (float)value;
    return isfinite(*out);
}

/* Factors past the base colour; the glTF keys where assimp read a glTF file. */
static crowd_result convert_factors(import_context *ctx, const struct aiMaterial *source,
                                    crowd_material *material, bool *out_gltf) {
    struct aiString mode;
    mode.length = 0;
    mode.data[0] = '\0';
    bool gltf = aiGetMaterialString(source, AI_MATKEY_GLTF_ALPHAMODE, &mode) == aiReturn_SUCCESS;
    *out_gltf = gltf;
    float fallback = gltf ? 1.0f : 0.0f; /* glTF's default metallic, else a dielectric */
    float normal_scale = 1, strength = 1, cutoff = 0.5f;
    bool ok = get_float(source, AI_MATKEY_METALLIC_FACTOR, fallback, &material->metallic) &&
              get_float(source, AI_MATKEY_ROUGHNESS_FACTOR, 1.0f, &material->roughness) &&
              get_float(source, AI_MATKEY_GLTF_ALPHACUTOFF, 0.5f, &cutoff) &&
              get_float(source, AI_MATKEY_GLTF_TEXTURE_SCALE(aiTextureType_NORMALS, 0), 1.0f,
                        &normal_scale) &&
              get_float(source, AI_MATKEY_GLTF_TEXTURE_STRENGTH(aiTextureType_LIGHTMAP, 0), 1.0f,
                        &strength);
    struct aiColor4D emissive = {0, 0, 0, 1};
    if (aiGetMaterialColor(source, AI_MATKEY_COLOR_EMISSIVE, &emissive) != aiReturn_SUCCESS) {
        emissive = (struct aiColor4D){0, 0, 0, 1};
    }
    const float rgb[3] = {emissive.r, emissive.g, emissive.b};
    for (int c = 0; c < 3; c++) {
        ok = ok && isfinite(rgb[c]);
        material->emissive[c] = rgb[c] > 0.0f ? rgb[c] : 0.0f;
    }
    if (!ok) {
        return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                               "material '%s': a metallic, roughness, emissive, alpha cutoff, "
                               "normal scale or occlusion strength value is not finite",
                               material->name);
    }
    material->metallic = unit_clamp(material->metallic);
    material->roughness = unit_clamp(material->roughness);
    material->normal_scale = normal_scale;
    material->occlusion_strength = unit_clamp(strength);
    material->alpha_cutoff = cutoff > 0.0f ? cutoff : 0.0f;
    material->alpha_mode = strcmp(mode.data, "MASK") == 0    ? CROWD_ALPHA_MASK
                           : strcmp(mode.data, "BLEND") == 0 ? CROWD_ALPHA_BLEND
                                                             : CROWD_ALPHA_OPAQUE;
    int two_sided = 0;
    material->double_sided = aiGetMaterialIntegerArray(source, AI_MATKEY_TWOSIDED, &two_sided,
                                                       NULL) == aiReturn_SUCCESS &&
                             two_sided != 0;
    return CROWD_OK;
}

static crowd_result convert_material(import_context *ctx, const struct aiMaterial *source,
                                     crowd_material *material) {
    struct aiString name;
    name.length = 0;
    name.data[0] = '\0';
    if (source != NULL) {
        aiGetMaterialString(source, AI_MATKEY_NAME, &name);
    }
    material->name = crowd__core_copy_string(name.data);
    if (material->name == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    crowd__core_material_defaults(material);
    material->metallic = 0.0f; /* no material at all: the non-PBR default */
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
    bool gltf = false;
    crowd_result result = convert_factors(ctx, source, material, &gltf);
    if (result != CROWD_OK) {
        return result;
    }
    enum aiTextureType type = aiTextureType_BASE_COLOR;
    if (aiGetMaterialTextureCount(source, type) == 0) {
        type = aiTextureType_DIFFUSE;
    }
    crowd_image base = {0};
    load_slot(ctx, source, type, "base-colour", material->name, &base);
    material->texture_width = base.width;
    material->texture_height = base.height;
    material->texture_rgba8 = base.rgba8;
    if (gltf) { /* assimp's glTF reader files the packed texture as UNKNOWN; other formats
                 * put unrelated maps there */
        load_slot(ctx, source, aiTextureType_UNKNOWN, "metallic-roughness", material->name,
                  &material->metallic_roughness_texture);
    }
    load_slot(ctx, source, aiTextureType_NORMALS, "normal", material->name,
              &material->normal_texture);
    load_slot(ctx, source, aiTextureType_EMISSIVE, "emissive", material->name,
              &material->emissive_texture);
    type = aiGetMaterialTextureCount(source, aiTextureType_AMBIENT_OCCLUSION) > 0
               ? aiTextureType_AMBIENT_OCCLUSION
               : aiTextureType_LIGHTMAP;
    load_slot(ctx, source, type, "occlusion", material->name, &material->occlusion_texture);
    return CROWD_OK;
}

crowd_result crowd__import_material_convert(import_context *ctx, uint32_t index,
                                            crowd_material *out) {
    const struct aiScene *scene = ctx->scene;
    const struct aiMaterial *source =
        scene->mNumMaterials > 0 && scene->mMaterials ? scene->mMaterials[index] : NULL;
    return convert_material(ctx, source, out);
}
