/* gltf_materials.c - materials used by the merged mesh: every parameter of
 * glTF's metallic-roughness model (crowd_material).
 *
 * The colour is pbrMetallicRoughness.baseColorFactor, or
 * KHR_materials_pbrSpecularGlossiness' diffuseFactor when only that is
 * given (then metallic 0 and roughness 1 - glossinessFactor, the nearest
 * metallic-roughness reading; its specular colour has no place and is
 * dropped). Factors take the spec's defaults where absent and are clamped
 * to the spec's ranges. Textures (base colour or diffuse, metallicRoughness,
 * normal, emissive, occlusion) are decoded to RGBA8 when they are a PNG,
 * embedded in a bufferView, in a data: URI or in a file next to the model;
 * JPEG and other images are left out with a warning (the factors still
 * apply). Every texture must read the same texture coordinates as the
 * base colour (crowd keeps one set, uv0): one that does not is left out
 * with a warning. A primitive without a material gets the default one: no
 * name, white, metallic 1, roughness 1 (the spec's default material).
 * Every material's members, texture references, every texture's source and
 * sampler and every image's bufferView are checked when the document is
 * read (crowd__gltf_materials_check), used or not. KHR_texture_transform on the
 * base-colour texture becomes the transform of the texture coordinates
 * (crowd__gltf_material_uv), and its texCoord chooses the TEXCOORD_n read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/gltf/gltf_internal.h"
#include "import/scene/import_png.h"

/* Textures larger than this are not a crowd character's (and 16384^2 RGBA8 is already 1 GiB). */
#define MAX_TEXTURE_SIDE 16384u

static const cJSON *member(const cJSON *object, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(object, key);
}

static const cJSON *spec_gloss(const cJSON *material) {
    return member(member(material, "extensions"), "KHR_materials_pbrSpecularGlossiness");
}

/* A textureInfo at `key` of `object` (at `path`), if present. */
static crowd_result check_texture_info(gltf_import *imp, const cJSON *object, const char *key,
                                       const char *path) {
    const cJSON *info = member(object, key);
    if (info == NULL) {
        return CROWD_OK;
    }
    char where[128];
    snprintf(where, sizeof where, "%s.%s", path, key);
    if (!cJSON_IsObject(info)) {
        return crowd__gltf_fail(imp->doc, "%s is not an object", where);
    }
    uint32_t index = 0;
    uint64_t set = 0;
    crowd_result result =
        crowd__gltf_ref(imp->doc, info, "index", GLTF_TEXTURES, true, where, &index, NULL);
    if (result == CROWD_OK && !crowd__gltf_json_uint(info, "texCoord", 0, 255, &set)) {
        result = crowd__gltf_fail(imp->doc, "%s.texCoord is not a small index", where);
    }
    const cJSON *extensions = member(info, "extensions");
    const cJSON *transform = member(extensions, "KHR_texture_transform");
    if (result == CROWD_OK && extensions != NULL && !cJSON_IsObject(extensions)) {
        result = crowd__gltf_fail(imp->doc, "%s.extensions is not an object", where);
    }
    if (result == CROWD_OK && transform != NULL) {
        float values[2];
        uint64_t coord = 0;
        const cJSON *rotation = member(transform, "rotation");
        if (!cJSON_IsObject(transform) ||
            !crowd__gltf_json_floats(transform, "offset", 2, values) ||
            !crowd__gltf_json_floats(transform, "scale", 2, values) ||
            (rotation != NULL && (!cJSON_IsNumber(rotation) || !isfinite(rotation->valuedouble))) ||
            !crowd__gltf_json_uint(transform, "texCoord", 0, 255, &coord)) {
            result =
                crowd__gltf_fail(imp->doc,
                                 "%s.extensions.KHR_texture_transform is not an object of offset, "
                                 "rotation, scale and texCoord",
                                 where);
        }
    }
    return result;
}

/* A finite number at `key` (absent: `fallback`); false when of another type. */
static bool json_number(const cJSON *object, const char *key, float fallback, float *out) {
    const cJSON *item = member(object, key);
    *out = fallback;
    if (item == NULL) {
        return true;
    }
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || fabs(item->valuedouble) > 3e38) {
        return false;
    }
    *out = (float)item->valuedouble;
    return true;
}

/* glTF's alphaMode: absent is OPAQUE; false for anything but the three names. */
static bool alpha_mode(const cJSON *material, crowd_alpha_mode *out) {
    static const char *const names[] = {"OPAQUE", "MASK", "BLEND"};
    static const crowd_alpha_mode modes[] = {CROWD_ALPHA_OPAQUE, CROWD_ALPHA_MASK,
                                             CROWD_ALPHA_BLEND};
    const cJSON *item = member(material, "alphaMode");
    *out = CROWD_ALPHA_OPAQUE;
    if (item == NULL) {
        return true;
    }
    for (size_t k = 0; cJSON_IsString(item) && k < sizeof names / sizeof names[0]; k++) {
        if (strcmp(item->valuestring, names[k]) == 0) {
            *out = modes[k];
            return true;
        }
    }
    return false;
}

static crowd_result check_factors(gltf_import *imp, const cJSON *material, const cJSON *metallic,
                                  const char *path) {
    float value = 0, emissive[3];
    crowd_alpha_mode mode;
    const cJSON *sided = member(material, "doubleSided");
    if (!json_number(metallic, "metallicFactor", 1, &value) ||
        !json_number(metallic, "roughnessFactor", 1, &value) ||
        !json_number(spec_gloss(material), "glossinessFactor", 1, &value) ||
        !json_number(material, "alphaCutoff", 0.5f, &value) ||
        !json_number(member(material, "normalTexture"), "scale", 1, &value) ||
        !json_number(member(material, "occlusionTexture"), "strength", 1, &value) ||
        !crowd__gltf_json_floats(material, "emissiveFactor", 3, emissive)) {
        return crowd__gltf_fail(
            imp->doc,
            "%s: metallicFactor, roughnessFactor, glossinessFactor, alphaCutoff, "
            "normalTexture.scale, occlusionTexture.strength or emissiveFactor is "
            "not of finite numbers",
            path);
    }
    if (!alpha_mode(material, &mode) || (sided != NULL && !cJSON_IsBool(sided))) {
        return crowd__gltf_fail(
            imp->doc,
            "%s: alphaMode is not OPAQUE, MASK or BLEND, or doubleSided is not a "
            "boolean",
            path);
    }
    return CROWD_OK;
}

static crowd_result check_material(gltf_import *imp, uint32_t m) {
    static const char *const own[] = {"normalTexture", "occlusionTexture", "emissiveTexture"};
    static const char *const pbr[] = {"baseColorTexture", "metallicRoughnessTexture"};
    static const char *const gloss[] = {"diffuseTexture", "specularGlossinessTexture"};
    const cJSON *material = imp->doc->lists[GLTF_MATERIALS].items[m];
    char path[96];
    snprintf(path, sizeof path, "materials[%u]", m);
    bool ok = true;
    crowd__gltf_json_string(material, "name", &ok);
    const cJSON *metallic = member(material, "pbrMetallicRoughness");
    const cJSON *extensions = member(material, "extensions");
    float color[4];
    if (!ok || (metallic != NULL && !cJSON_IsObject(metallic)) ||
        (extensions != NULL && !cJSON_IsObject(extensions)) ||
        (spec_gloss(material) != NULL && !cJSON_IsObject(spec_gloss(material)))) {
        return crowd__gltf_fail(imp->doc,
                                "%s: name, pbrMetallicRoughness or extensions is not of its type "
                                "(string, object, object)",
                                path);
    }
    if (!crowd__gltf_json_floats(metallic, "baseColorFactor", 4, color) ||
        !crowd__gltf_json_floats(spec_gloss(material), "diffuseFactor", 4, color)) {
        return crowd__gltf_fail(imp->doc, "%s: the base colour factor is not 4 finite numbers",
                                path);
    }
    crowd_result result = CROWD_OK;
    for (size_t k = 0; result == CROWD_OK && k < sizeof own / sizeof own[0]; k++) {
        result = check_texture_info(imp, material, own[k], path);
    }
    snprintf(path, sizeof path, "materials[%u].pbrMetallicRoughness", m);
    for (size_t k = 0; result == CROWD_OK && metallic && k < sizeof pbr / sizeof pbr[0]; k++) {
        result = check_texture_info(imp, metallic, pbr[k], path);
    }
    snprintf(path, sizeof path, "materials[%u].extensions.KHR_materials_pbrSpecularGlossiness", m);
    for (size_t k = 0; result == CROWD_OK && k < sizeof gloss / sizeof gloss[0]; k++) {
        result = check_texture_info(imp, spec_gloss(material), gloss[k], path);
    }
    if (result == CROWD_OK) {
        snprintf(path, sizeof path, "materials[%u]", m);
        result = check_factors(imp, material, metallic, path);
    }
    return result;
}

crowd_result crowd__gltf_materials_check(gltf_import *imp) {
    gltf_document *doc = imp->doc;
    crowd_result result = CROWD_OK;
    for (uint32_t m = 0; result == CROWD_OK && m < doc->lists[GLTF_MATERIALS].count; m++) {
        result = check_material(imp, m);
    }
    for (uint32_t t = 0; result == CROWD_OK && t < doc->lists[GLTF_TEXTURES].count; t++) {
        char path[32];
        snprintf(path, sizeof path, "textures[%u]", t);
        uint32_t index = 0;
        const cJSON *texture = doc->lists[GLTF_TEXTURES].items[t];
        result = crowd__gltf_ref(doc, texture, "source", GLTF_IMAGES, false, path, &index, NULL);
        if (result == CROWD_OK) {
            result =
                crowd__gltf_ref(doc, texture, "sampler", GLTF_SAMPLERS, false, path, &index, NULL);
        }
    }
    for (uint32_t i = 0; result == CROWD_OK && i < doc->lists[GLTF_IMAGES].count; i++) {
        char path[32];
        snprintf(path, sizeof path, "images[%u]", i);
        const cJSON *image = doc->lists[GLTF_IMAGES].items[i];
        uint32_t view = 0;
        bool ok_uri = true, ok_mime = true;
        crowd__gltf_json_string(image, "uri", &ok_uri);
        crowd__gltf_json_string(image, "mimeType", &ok_mime);
        result =
            crowd__gltf_ref(doc, image, "bufferView", GLTF_BUFFER_VIEWS, false, path, &view, NULL);
        if (result == CROWD_OK && (!ok_uri || !ok_mime)) {
            result = crowd__gltf_fail(doc, "%s: uri or mimeType is not a string", path);
        }
    }
    return result;
}

/* The base-colour textureInfo of file material `m`, or NULL. */
static const cJSON *base_color_info(const gltf_import *imp, int32_t m) {
    if (m < 0) {
        return NULL;
    }
    const cJSON *material = imp->doc->lists[GLTF_MATERIALS].items[m];
    const cJSON *info = member(member(material, "pbrMetallicRoughness"), "baseColorTexture");
    return info != NULL ? info : member(spec_gloss(material), "diffuseTexture");
}

/* The texture coordinate set and transform a textureInfo reads (identity
 * and set 0 for NULL). */
static void info_uv(const cJSON *info, uint32_t *set, float m[6]) {
    static const float identity[6] = {1, 0, 0, 1, 0, 0};
    memcpy(m, identity, sizeof identity);
    uint64_t coord = 0;
    crowd__gltf_json_uint(info, "texCoord", 0, 255, &coord);
    const cJSON *transform = member(member(info, "extensions"), "KHR_texture_transform");
    if (transform != NULL) {
        float offset[2] = {0, 0}, scale[2] = {1, 1};
        const cJSON *rotation = member(transform, "rotation");
        float angle = cJSON_IsNumber(rotation) ? (float)rotation->valuedouble : 0.0f;
        crowd__gltf_json_floats(transform, "offset", 2, offset);
        crowd__gltf_json_floats(transform, "scale", 2, scale);
        crowd__gltf_json_uint(transform, "texCoord", coord, 255, &coord);
        /* The extension's T * R * S, with R = [cos sin; -sin cos]. */
        float c = cosf(angle), s = sinf(angle);
        const float composed[6] = {c * scale[0], -s * scale[0], s * scale[1],
                                   c * scale[1], offset[0],     offset[1]};
        memcpy(m, composed, sizeof composed);
    }
    *set = (uint32_t)coord;
}

void crowd__gltf_material_uv(const gltf_import *imp, int32_t material, uint32_t *set, float m[6]) {
    info_uv(base_color_info(imp, material), set, m);
}

/* The bytes of image `index`: a bufferView (pointing into the document;
 * a malformed one fails the import) or a URI (into *owned; a missing file
 * only costs the texture: *soft says why). */
static crowd_result image_bytes(gltf_import *imp, uint32_t index, const uint8_t **bytes,
                                uint64_t *size, uint8_t **owned, crowd_error *soft) {
    gltf_document *doc = imp->doc;
    const cJSON *image = doc->lists[GLTF_IMAGES].items[index];
    char path[32];
    snprintf(path, sizeof path, "images[%u]", index);
    uint32_t view = 0;
    bool has_view = false, ok = true;
    *owned = NULL;
    crowd__gltf_ref(doc, image, "bufferView", GLTF_BUFFER_VIEWS, false, path, &view, &has_view);
    if (has_view) {
        const cJSON *json = doc->lists[GLTF_BUFFER_VIEWS].items[view];
        uint64_t offset = 0;
        uint32_t buffer = 0;
        char view_path[32];
        snprintf(view_path, sizeof view_path, "bufferViews[%u]", view);
        crowd_result result =
            crowd__gltf_ref(doc, json, "buffer", GLTF_BUFFERS, true, view_path, &buffer, NULL);
        if (result == CROWD_OK &&
            (!crowd__gltf_json_uint(json, "byteOffset", 0, UINT64_MAX >> 12, &offset) ||
             !crowd__gltf_json_uint(json, "byteLength", UINT64_MAX, UINT64_MAX >> 12, size))) {
            result = crowd__gltf_fail(
                doc, "%s.byteOffset or byteLength is missing or not a byte count", view_path);
        }
        return result == CROWD_OK
                   ? crowd__gltf_buffer_bytes(doc, buffer, offset, *size, bytes, view_path)
                   : result;
    }
    const char *uri = crowd__gltf_json_string(image, "uri", &ok);
    if (uri == NULL) {
        crowd_error_set(soft, CROWD_ERROR_INVALID_DATA, imp->file,
                        "%s has neither a bufferView nor a uri", path);
    } else if (crowd__gltf_uri_read(doc, uri, owned, size, path, soft) == CROWD_OK) {
        *bytes = *owned;
    }
    return CROWD_OK;
}

static const char *image_kind(const uint8_t *bytes, uint64_t size) {
    if (size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) {
        return "a JPEG (crowd decodes PNG only)";
    }
    return "not a PNG crowd can decode";
}

/* Decodes the texture of `info` into `out`; warns and leaves it out when
 * it cannot be had or reads other texture coordinates than uv0 (`uv_set`,
 * `uv`). Only a malformed file fails. */
static crowd_result load_texture(gltf_import *imp, const cJSON *info, const char *what,
                                 const char *material_name, uint32_t uv_set, const float uv[6],
                                 crowd_image *out) {
    gltf_document *doc = imp->doc;
    uint32_t set = 0;
    float transform[6];
    info_uv(info, &set, transform);
    if (set != uv_set || memcmp(transform, uv, sizeof transform) != 0) {
        crowd_log(imp->logger, CROWD_LOG_WARNING,
                  "%s: material '%s': the %s texture reads other texture coordinates than the "
                  "base colour (crowd keeps one set); left out",
                  imp->file, material_name, what);
        return CROWD_OK;
    }
    uint64_t texture = 0;
    crowd__gltf_json_uint(info, "index", 0, UINT32_MAX, &texture);
    const cJSON *json = doc->lists[GLTF_TEXTURES].items[texture];
    uint64_t source = 0;
    if (!crowd__gltf_json_uint(json, "source", UINT64_MAX, UINT32_MAX, &source)) {
        crowd_log(imp->logger, CROWD_LOG_WARNING,
                  "%s: material '%s': textures[%llu] has no source crowd reads (only extensions' "
                  "images); the %s texture is left out",
                  imp->file, material_name, (unsigned long long)texture, what);
        return CROWD_OK;
    }
    const uint8_t *bytes = NULL;
    uint64_t size = 0;
    uint8_t *owned = NULL;
    crowd_error soft = {0};
    crowd_result result = image_bytes(imp, (uint32_t)source, &bytes, &size, &owned, &soft);
    if (result != CROWD_OK) {
        return result;
    }
    bool decoded =
        bytes != NULL && crowd__import_png_decode(bytes, (size_t)size, MAX_TEXTURE_SIDE,
                                                  &out->width, &out->height, &out->rgba8);
    if (!decoded) {
        *out = (crowd_image){0};
        crowd_log(imp->logger, CROWD_LOG_WARNING,
                  "%s: material '%s': %s texture images[%llu] not loaded (%s); using the factors "
                  "alone",
                  imp->file, material_name, what, (unsigned long long)source,
                  bytes == NULL ? soft.reason : image_kind(bytes, size));
    }
    free(owned);
    return CROWD_OK;
}

static float unit_clamp(float value) {
    return value < 0.0f ? 0.0f : value > 1.0f ? 1.0f : value;
}

/* The factors of `json` (checked by crowd__gltf_materials_check) with the spec's
 * defaults and ranges. */
static void read_factors(const cJSON *json, crowd_material *material) {
    const cJSON *metallic = member(json, "pbrMetallicRoughness");
    const cJSON *gloss = metallic == NULL ? spec_gloss(json) : NULL;
    float color[4] = {1, 1, 1, 1}, glossiness = 1;
    if (gloss != NULL) {
        crowd__gltf_json_floats(gloss, "diffuseFactor", 4, color);
        json_number(gloss, "glossinessFactor", 1, &glossiness);
        material->metallic = 0.0f;
        material->roughness = 1.0f - unit_clamp(glossiness);
    } else {
        crowd__gltf_json_floats(metallic, "baseColorFactor", 4, color);
        json_number(metallic, "metallicFactor", 1, &material->metallic);
        json_number(metallic, "roughnessFactor", 1, &material->roughness);
    }
    memcpy(material->base_color, color, sizeof color);
    material->metallic = unit_clamp(material->metallic);
    material->roughness = unit_clamp(material->roughness);
    crowd__gltf_json_floats(json, "emissiveFactor", 3, material->emissive);
    for (int c = 0; c < 3; c++) {
        material->emissive[c] = material->emissive[c] > 0.0f ? material->emissive[c] : 0.0f;
    }
    json_number(member(json, "normalTexture"), "scale", 1, &material->normal_scale);
    json_number(member(json, "occlusionTexture"), "strength", 1, &material->occlusion_strength);
    material->occlusion_strength = unit_clamp(material->occlusion_strength);
    json_number(json, "alphaCutoff", 0.5f, &material->alpha_cutoff);
    material->alpha_cutoff = material->alpha_cutoff > 0.0f ? material->alpha_cutoff : 0.0f;
    alpha_mode(json, &material->alpha_mode);
    material->double_sided = cJSON_IsTrue(member(json, "doubleSided"));
}

crowd_result crowd__gltf_material_build(gltf_import *imp, int32_t m, crowd_material *material) {
    const cJSON *json = m >= 0 ? imp->doc->lists[GLTF_MATERIALS].items[m] : NULL;
    bool ok = true;
    const char *name = crowd__gltf_json_string(json, "name", &ok);
    material->name = crowd__core_copy_string(name ? name : "");
    if (material->name == NULL) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    crowd__core_material_defaults(material);
    read_factors(json, material);
    uint32_t set = 0;
    float uv[6];
    crowd__gltf_material_uv(imp, m, &set, uv);
    const cJSON *pbr = member(json, "pbrMetallicRoughness");
    const struct {
        const cJSON *info;
        const char *what;
        crowd_image *out;
    } slots[] = {
        {member(pbr, "metallicRoughnessTexture"), "metallic-roughness",
         &material->metallic_roughness_texture},
        {member(json, "normalTexture"), "normal", &material->normal_texture},
        {member(json, "emissiveTexture"), "emissive", &material->emissive_texture},
        {member(json, "occlusionTexture"), "occlusion", &material->occlusion_texture},
    };
    crowd_image base = {0};
    const cJSON *info = base_color_info(imp, m);
    crowd_result result =
        info != NULL ? load_texture(imp, info, "base-colour", material->name, set, uv, &base)
                     : CROWD_OK;
    material->texture_width = base.width;
    material->texture_height = base.height;
    material->texture_rgba8 = base.rgba8;
    for (size_t k = 0; result == CROWD_OK && k < sizeof slots / sizeof slots[0]; k++) {
        if (slots[k].info != NULL) {
            result = load_texture(imp, slots[k].info, slots[k].what, material->name, set, uv,
                                  slots[k].out);
        }
    }
    if (result == CROWD_OK && member(spec_gloss(json), "specularGlossinessTexture") != NULL) {
        crowd_log(imp->logger, CROWD_LOG_WARNING,
                  "%s: material '%s': specularGlossinessTexture has no metallic-roughness "
                  "equivalent; left out",
                  imp->file, material->name);
    }
    return result;
}
