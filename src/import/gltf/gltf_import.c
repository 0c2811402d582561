/* gltf_import.c - the glTF reader's entry: claim the input, run the stages
 * of gltf_internal.h in order, validate the asset, release everything. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "import/gltf/gltf_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/gltf/gltf_internal.h"

/* A glTF file larger than this is no crowd character. */
#define GLTF_MAX_FILE_BYTES ((size_t)1 << 31)

/* Required extensions crowd's reader reads. */
static const char *const read_extensions[] = {"KHR_mesh_quantization", "KHR_texture_transform",
                                              "KHR_materials_pbrSpecularGlossiness"};

/* Required extensions that change only what crowd does not use (shading,
 * lights, texture containers): the file is read as the core specification
 * says, and each is named in a warning. Any other (Draco or meshopt
 * geometry, instancing, or one crowd does not know) may change the
 * geometry, skin or motion: the file goes to assimp. */
static const char *const ignored_prefixes[] = {
    "KHR_materials_", "KHR_lights_",   "KHR_technique_", "KHR_texture_basisu",
    "EXT_texture_",   "MSFT_texture_", "KHR_xmp"};

/* The validation pass: every buffer backed by its bytes, every bufferView
 * inside its buffer, every accessor inside its view (used or not, as the
 * specification requires of a file). */
static crowd_result check_data(gltf_import *imp) {
    gltf_document *doc = imp->doc;
    crowd_result result = CROWD_OK;
    for (uint32_t b = 0; b < doc->lists[GLTF_BUFFERS].count && result == CROWD_OK; b++) {
        const uint8_t *bytes = NULL;
        char path[32];
        snprintf(path, sizeof path, "buffers[%u]", b);
        result = crowd__gltf_buffer_bytes(doc, b, 0, 0, &bytes, path);
    }
    for (uint32_t v = 0; v < doc->lists[GLTF_BUFFER_VIEWS].count && result == CROWD_OK; v++) {
        const uint8_t *bytes = NULL;
        uint64_t length = 0, stride = 0;
        result = crowd__gltf_view_bytes(doc, v, &bytes, &length, &stride);
    }
    for (uint32_t a = 0; a < doc->lists[GLTF_ACCESSORS].count && result == CROWD_OK; a++) {
        result = crowd__gltf_accessor_check(doc, a);
    }
    return result;
}

static bool listed(const char *name, const char *const *list, size_t count, bool prefix) {
    for (size_t i = 0; i < count; i++) {
        if (prefix ? strncmp(name, list[i], strlen(list[i])) == 0 : strcmp(name, list[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* extensionsRequired: the file handed over (imp->handed_over, the error
 * naming every extension crowd lacks) when one is neither read nor
 * ignored, else a warning for each ignored one. */
static crowd_result check_required(gltf_import *imp) {
    gltf_document *doc = imp->doc;
    const cJSON *required = cJSON_GetObjectItemCaseSensitive(doc->json, "extensionsRequired");
    if (required != NULL && !cJSON_IsArray(required)) {
        return crowd__gltf_fail(doc, "extensionsRequired is not an array");
    }
    char lacked[256] = "";
    size_t length = 0;
    uint32_t i = 0;
    for (const cJSON *item = required ? required->child : NULL; item != NULL;
         item = item->next, i++) {
        if (!cJSON_IsString(item)) {
            return crowd__gltf_fail(doc, "extensionsRequired[%u] is not a string", i);
        }
        const char *name = item->valuestring;
        bool known = listed(name, read_extensions, sizeof read_extensions / sizeof *read_extensions,
                            false) ||
                     listed(name, ignored_prefixes,
                            sizeof ignored_prefixes / sizeof *ignored_prefixes, true);
        if (!known && length < sizeof lacked) {
            length += (size_t)snprintf(lacked + length, sizeof lacked - length, "%s%.60s",
                                       length > 0 ? ", " : "", name);
        }
    }
    if (length > 0) {
        imp->handed_over = true;
        return crowd_error_set(imp->error, CROWD_ERROR_UNSUPPORTED, imp->file,
                               "extensionsRequired names %s, which crowd's glTF reader lacks",
                               lacked);
    }
    for (const cJSON *item = required ? required->child : NULL; item != NULL; item = item->next) {
        if (!listed(item->valuestring, read_extensions,
                    sizeof read_extensions / sizeof *read_extensions, false)) {
            crowd_log(imp->logger, CROWD_LOG_WARNING,
                      "%s: required extension %.60s is not read; what it changes is left as the "
                      "core specification says",
                      imp->file, item->valuestring);
        }
    }
    return CROWD_OK;
}

static crowd_result check_asset(gltf_import *imp) {
    gltf_document *doc = imp->doc;
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(doc->json, "asset");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if (asset == NULL) {
        crowd_log(imp->logger, CROWD_LOG_WARNING, "%s: no asset.version; read as glTF 2.0",
                  imp->file);
    } else if (!cJSON_IsObject(asset) || !cJSON_IsString(version)) {
        return crowd__gltf_fail(doc, "asset is not an object with a version string");
    } else if (version->valuestring[0] != '2') {
        return crowd_error_set(imp->error, CROWD_ERROR_UNSUPPORTED, imp->file,
                               "asset.version is %.20s (crowd reads glTF 2.0)",
                               version->valuestring);
    }
    uint32_t scene = 0;
    crowd_result result =
        crowd__gltf_ref(doc, doc->json, "scene", GLTF_SCENES, false, "", &scene, NULL);
    if (result != CROWD_OK) {
        return result;
    }
    return check_required(imp);
}

static crowd_result read_stages(gltf_import *imp) {
    crowd_result result = check_asset(imp);
    if (result == CROWD_OK) {
        result = check_data(imp);
    }
    if (result == CROWD_OK) {
        result = crowd__gltf_materials_check(imp);
    }
    if (result == CROWD_OK) {
        result = crowd__gltf_nodes_read(imp);
    }
    if (result == CROWD_OK) {
        result = crowd__gltf_skins_read(imp);
    }
    if (result == CROWD_OK && !imp->skeleton_only) {
        result = crowd__gltf_meshes_read(imp);
        bool any_mesh = false;
        for (uint32_t o = 0; o < imp->order_count; o++) {
            any_mesh = any_mesh || imp->nodes[imp->order[o]].mesh >= 0;
        }
        if (result == CROWD_OK && imp->primitive_count == 0) {
            result = crowd_error_set(imp->error, CROWD_ERROR_UNSUPPORTED, imp->file, "%s",
                                     any_mesh ? "no triangles: crowd plays triangle meshes only"
                                              : "no meshes (a skeleton or animation alone is not a "
                                                "character)");
        }
    }
    if (result == CROWD_OK) {
        result = crowd__gltf_scene_fill(imp);
    }
    if (result == CROWD_OK) {
        result = crowd__gltf_animations_read(imp);
    }
    return result;
}

static void release(gltf_import *imp) {
    for (uint32_t s = 0; imp->skins != NULL && s < imp->skin_count; s++) {
        free(imp->skins[s].joints);
        free(imp->skins[s].inverse_binds);
    }
    free(imp->skins);
    crowd__gltf_primitives_free(imp);
    free(imp->nodes);
    free(imp->order);
    crowd__import_scene_free(&imp->scene);
}

crowd_result crowd__gltf_import_bytes(const void *bytes, size_t size,
                                      const gltf_import_options *options,
                                      const crowd_import_desc *desc, crowd_asset **out_asset,
                                      crowd_error *error, bool *claimed) {
    static const crowd_import_desc defaults;
    gltf_import imp;
    memset(&imp, 0, sizeof imp);
    imp.file = options->file;
    imp.desc = desc ? desc : &defaults;
    imp.logger = &imp.desc->logger;
    imp.error = error;
    imp.skeleton_only = options->skeleton_only;
    crowd__import_scene_init(&imp.scene, imp.file, imp.desc, error);
    imp.scene.clips_only = options->skeleton_only;
    *out_asset = NULL;
    gltf_kind kind = GLTF_KIND_OTHER;
    crowd_result result = crowd__gltf_document_open(bytes, size, options->file, options->dir,
                                                    imp.logger, &kind, &imp.doc, error);
    *claimed = kind == GLTF_KIND_GLTF2 || kind == GLTF_KIND_BROKEN;
    if (result != CROWD_OK || kind != GLTF_KIND_GLTF2) {
        return result;
    }
    result = read_stages(&imp);
    if (result == CROWD_OK) {
        result = crowd__import_scene_convert(&imp.scene, out_asset);
    }
    release(&imp);
    crowd__gltf_document_close(imp.doc);
    *claimed = !imp.handed_over;
    return result;
}

static bool named_gltf(const char *name) {
    const char *dot = name ? strrchr(name, '.') : NULL;
    return dot != NULL && (strcasecmp(dot, ".gltf") == 0 || strcasecmp(dot, ".glb") == 0);
}

/* Whether the first bytes of a file could start glTF: GLB magic, or JSON
 * (an object after white space and a byte-order mark). */
static bool may_be_gltf(const uint8_t *bytes, size_t size) {
    if (size >= 4 && memcmp(bytes, "glTF", 4) == 0) {
        return true;
    }
    size_t at = size >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (at < size &&
           (bytes[at] == ' ' || bytes[at] == '\t' || bytes[at] == '\r' || bytes[at] == '\n')) {
        at++;
    }
    return at < size && bytes[at] == '{';
}

/* crowd__gltf_import_file and crowd__gltf_import_clips_file: the file read whole, from its folder.
 */
static crowd_result import_path(const char *path, const crowd_import_desc *desc, bool skeleton_only,
                                crowd_asset **out_asset, crowd_error *error, bool *claimed) {
    *claimed = false;
    *out_asset = NULL;
    if (!named_gltf(path)) {
        uint8_t head[256];
        FILE *file = fopen(path, "rb");
        size_t size = file ? fread(head, 1, sizeof head, file) : 0;
        if (file != NULL) {
            fclose(file);
        }
        if (!may_be_gltf(head, size)) {
            return CROWD_OK;
        }
    }
    uint8_t *bytes = NULL;
    size_t size = 0;
    crowd_result result = crowd__core_file_read(path, GLTF_MAX_FILE_BYTES, &bytes, &size, error);
    if (result != CROWD_OK) {
        *claimed = named_gltf(path);
        return result;
    }
    char *dir = crowd__core_path_folder(path);
    if (dir == NULL) {
        free(bytes);
        *claimed = true;
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    gltf_import_options options = {path, dir, skeleton_only};
    result = crowd__gltf_import_bytes(bytes, size, &options, desc, out_asset, error, claimed);
    free(dir);
    free(bytes);
    return result;
}

crowd_result crowd__gltf_import_file(const char *path, const crowd_import_desc *desc,
                                     crowd_asset **out_asset, crowd_error *error, bool *claimed) {
    return import_path(path, desc, false, out_asset, error, claimed);
}

crowd_result crowd__gltf_import_clips_file(const char *path, const crowd_import_desc *desc,
                                           crowd_asset **out_asset, crowd_error *error,
                                           bool *claimed) {
    return import_path(path, desc, true, out_asset, error, claimed);
}

crowd_result crowd__gltf_import_memory(const void *bytes, size_t size, const char *name,
                                       const crowd_import_desc *desc, crowd_asset **out_asset,
                                       crowd_error *error, bool *claimed) {
    *claimed = false;
    *out_asset = NULL;
    if (!named_gltf(name) && !may_be_gltf(bytes, size)) {
        return CROWD_OK;
    }
    gltf_import_options options = {name ? name : "(memory)", NULL, false};
    return crowd__gltf_import_bytes(bytes, size, &options, desc, out_asset, error, claimed);
}
