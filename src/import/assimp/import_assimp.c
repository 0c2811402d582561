/* import_assimp.c - assimp in this process: the pre-check, the read with
 * its log watched (import_assimp_log.c), one repair and second read, the
 * conversion (import_scene.c).
 *
 * This is what the helper process runs, where nothing else shares the
 * process, and the in-process path (desc.in_process, CROWD_IMPORT_IN_PROCESS
 * builds). assimp's C API keeps its last error string and its log streams
 * in process-wide state, so reads are serialized by one lock and the error
 * string is copied before it is released; the conversion runs outside it.
 *
 * Keys past an animation's duration: assimp's validation refuses them
 * (Minetest's character.b3d has one key one tick past), while crowd's clips
 * last until their last key anyway (scene/scene_clips.c counts the repair). Such
 * a file is read again without validation or post-processing and the steps
 * are applied after: the first read validated the node tree and the meshes
 * (assimp checks them before the animations), and what it would have
 * checked after (cameras, lights, textures, materials) crowd ignores or
 * reads defensively. The steps are applied only where none can fail:
 * assimp 5.2's aiApplyPostProcessing frees the scene when a step fails and
 * then reads it (a crash). The one step that can, SortByPType, fails when
 * no triangle would remain, which is checked first.
 *
 * A file of clips (crowd__import_clips_file: crowd_asset_add_clips) needs no mesh
 * and gets no mesh step, only the validation. Readers that find no mesh in
 * a file flag the scene AI_SCENE_FLAGS_INCOMPLETE (FBX, Collada, CSM, ...),
 * which validation accepts; the others (BVH, with crowd's skeleton meshes
 * turned off) fail it with "aiScene::mNumMeshes is 0". Setting the flag on
 * a raw scene and validating it after with aiApplyPostProcessing is what
 * cannot be done safely: a failed validation there frees the scene and
 * reads it again (the crash above). So, as for keys past the duration, the
 * validation that got that far stands for the node tree (checked first)
 * and the file is read again raw: its animations are read defensively
 * (import_clips.c), its cameras, lights, textures and materials not at
 * all, and it has no mesh. A character import keeps refusing such files.
 */
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/assimp/import_internal.h"
#include "import/import_run.h"
#include "import/assimp/precheck/precheck.h"

/* The Collada unit (import_units.c) is looked for in this many first bytes. */
#define HEAD_BYTES 65536

static pthread_mutex_t assimp_lock = PTHREAD_MUTEX_INITIALIZER;

/* Triangles only (points and lines are dropped by SortByPType), shared
 * vertices welded, bones resolved to their nodes (aiBone::mNode), UVs with
 * glTF's top-left origin, and assimp's own consistency checks. Weight
 * limiting and normal generation are done by the importer so it can count them. */
static const unsigned import_flags =
    aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_JoinIdenticalVertices |
    aiProcess_PopulateArmatureData | aiProcess_FlipUVs | aiProcess_ValidateDataStructure;
/* A file of clips: its meshes are not read, so only the checks. */
static const unsigned clips_flags = aiProcess_ValidateDataStructure;

/* What assimp reads: a file, or bytes with the extension as a hint. */
typedef struct assimp_source {
    const char *path;
    const void *bytes;
    size_t size;
    const char *hint;
} assimp_source;

static struct aiPropertyStore *make_properties(void) {
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (props == NULL) {
        return NULL;
    }
    /* FBX: no $AssimpFbx$_Translation/_Rotation/... helper nodes; the pivots are
     * folded into the real nodes, which the skeleton and the channels then name. */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    /* A file with bones and no mesh must not get assimp's made-up bone mesh. */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    aiSetImportPropertyInteger(props, AI_CONFIG_PP_SBP_REMOVE,
                               aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    return props;
}

static const struct aiScene *read_scene(const assimp_source *src, unsigned flags,
                                        const struct aiPropertyStore *props) {
    if (src->path != NULL) {
        return aiImportFileExWithProperties(src->path, flags, NULL, props);
    }
    return aiImportFileFromMemoryWithProperties(src->bytes, (unsigned)src->size, flags, src->hint,
                                                props);
}

static void watch_log(const char *message, char *user) {
    crowd__import_log_watch_line((import_log_watch *)user, message);
}

/* assimp's message on one line, and what kind of failure it means. */
static crowd_result assimp_failure(const char *message, const char *file, crowd_error *error) {
    if (message == NULL || message[0] == '\0') {
        message = "assimp could not read it";
    }
    char line[400];
    snprintf(line, sizeof line, "%s", message);
    for (char *c = line; *c; c++) {
        if (*c == '\n' || *c == '\r' || *c == '\t') {
            *c = ' ';
        }
    }
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == ' ' || line[length - 1] == '.')) {
        line[--length] = '\0';
    }
    crowd_result result = CROWD_ERROR_INVALID_DATA;
    /* assimp's validation refuses a scene without meshes before crowd sees it. */
    if (strstr(line, "mNumMeshes is 0") != NULL) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, file,
                               "no meshes (a skeleton or animation alone is not a character)");
    }
    if (strstr(line, "No suitable reader") != NULL) {
        result = CROWD_ERROR_UNSUPPORTED;
    } else if (strstr(line, "Unable to open file") != NULL) {
        result = CROWD_ERROR_IO;
    } else if (strstr(line, "bad_alloc") != NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file,
                               "assimp ran out of memory reading it");
    }
    return crowd_error_set(error, result, file, "%s", line);
}

static bool has_triangles(const struct aiScene *scene) {
    for (uint32_t m = 0; m < scene->mNumMeshes && scene->mMeshes != NULL; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        for (uint32_t f = 0; mesh != NULL && mesh->mFaces != NULL && f < mesh->mNumFaces; f++) {
            if (mesh->mFaces[f].mNumIndices >= 3) {
                return true;
            }
        }
    }
    return false;
}

/* The file read again without validation or post-processing (see above),
 * its reader's lines watched as a repeat; NULL with the error set when
 * assimp cannot read it. Under assimp_lock. */
static const struct aiScene *read_raw(const assimp_source *src, const struct aiPropertyStore *props,
                                      import_log_watch *watch, const char *file, crowd_error *error,
                                      crowd_result *result) {
    watch->repeat = true;
    watch->post_processing = false;
    watch->reader_warnings = 0;
    const struct aiScene *raw = read_scene(src, 0, props);
    if (raw == NULL) {
        *result = assimp_failure(aiGetErrorString(), file, error);
    }
    return raw;
}

/* A character read again after validation refused keys past an
 * animation's duration: raw, then the steps that cannot fail (see above).
 * Under assimp_lock. */
static const struct aiScene *read_again(const assimp_source *src,
                                        const struct aiPropertyStore *props,
                                        import_log_watch *watch, const char *file,
                                        crowd_error *error, crowd_result *result) {
    const struct aiScene *raw = read_raw(src, props, watch, file, error, result);
    if (raw == NULL) {
        return NULL;
    }
    if (!has_triangles(raw)) {
        aiReleaseImport(raw);
        *result = crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, file,
                                  "no triangles: crowd plays triangle meshes only");
        return NULL;
    }
    const struct aiScene *scene =
        aiApplyPostProcessing(raw, import_flags & ~(unsigned)aiProcess_ValidateDataStructure);
    if (scene == NULL) {
        *result = assimp_failure(watch->last_error, file, error);
    }
    return scene;
}

/* The scene when assimp read it and no reader line refused it; otherwise
 * NULL with the error set. */
static const struct aiScene *read_watched(const assimp_source *src, bool clips_only,
                                          import_log_watch *watch, const char *file,
                                          crowd_error *error, crowd_result *result) {
    struct aiPropertyStore *props = make_properties();
    if (props == NULL) {
        *result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
        return NULL;
    }
    pthread_mutex_lock(&assimp_lock);
    struct aiLogStream stream = {watch_log, (char *)watch};
    aiAttachLogStream(&stream);
    const struct aiScene *scene = read_scene(src, clips_only ? clips_flags : import_flags, props);
    const char *why = scene == NULL ? aiGetErrorString() : "";
    bool past_duration = strstr(why, "than aiAnimation::mDuration") != NULL;
    if (scene == NULL && clips_only && (past_duration || strstr(why, "mNumMeshes is 0") != NULL)) {
        /* a file of clips needs no mesh step: the raw read is all */
        scene = read_raw(src, props, watch, file, error, result);
    } else if (scene == NULL && past_duration) {
        scene = read_again(src, props, watch, file, error, result);
    } else if (scene == NULL) {
        *result = assimp_failure(why, file, error);
    }
    aiDetachLogStream(&stream);
    pthread_mutex_unlock(&assimp_lock);
    aiReleasePropertyStore(props);
    if (scene != NULL && watch->refusal[0] != '\0') {
        aiReleaseImport(scene);
        *result =
            crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file, "malformed: %s", watch->refusal);
        return NULL;
    }
    return scene;
}

/* The unit, the conversion; releases the scene. `head` holds the file's
 * first bytes. */
static crowd_result convert(const struct aiScene *scene, bool clips_only, const char *file,
                            const char *dir, const uint8_t *head, size_t head_size,
                            const import_log_watch *watch, const crowd_import_desc *desc,
                            crowd_asset **out_asset, crowd_error *error) {
    import_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.scene = scene;
    ctx.clips_only = clips_only;
    ctx.file = file;
    ctx.dir = dir;
    ctx.desc = desc;
    ctx.logger = &desc->logger;
    ctx.error = error;
    ctx.reader_warnings = watch->reader_warnings;
    crowd__import_units_find(scene, head, head_size, &ctx.units);
    crowd_result result = crowd__import_assimp_convert(&ctx, out_asset);
    aiReleaseImport(scene);
    return result;
}

crowd_result crowd__import_assimp_file(const char *path, const crowd_import_desc *desc,
                                       bool clips_only, crowd_asset **out_asset,
                                       crowd_error *error) {
    char *dir = crowd__core_path_folder(path);
    if (dir == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    /* assimp trusts declared counts and offsets: see precheck.h. */
    crowd_result result = crowd__import_precheck_file(path, dir, error);
    const assimp_source src = {path, NULL, 0, NULL};
    import_log_watch watch = {&desc->logger, path, false, false, 0, "", ""};
    const struct aiScene *scene =
        result == CROWD_OK ? read_watched(&src, clips_only, &watch, path, error, &result) : NULL;
    if (scene != NULL) {
        uint8_t *head = malloc(HEAD_BYTES);
        FILE *file = head ? fopen(path, "rb") : NULL;
        size_t head_size = file ? fread(head, 1, HEAD_BYTES, file) : 0;
        if (file != NULL) {
            fclose(file);
        }
        result =
            convert(scene, clips_only, path, dir, head, head_size, &watch, desc, out_asset, error);
        free(head);
    }
    free(dir);
    return result;
}

crowd_result crowd__import_assimp_memory(const void *bytes, size_t size, const char *name,
                                         const crowd_import_desc *desc, crowd_asset **out_asset,
                                         crowd_error *error) {
    const char *file = name ? name : "(memory)";
    crowd_result result = crowd__import_precheck_memory(bytes, size, name, error);
    if (result != CROWD_OK) {
        return result;
    }
    const char *dot = name ? strrchr(name, '.') : NULL;
    const assimp_source src = {NULL, bytes, size, dot && dot[1] != '\0' ? dot + 1 : ""};
    import_log_watch watch = {&desc->logger, file, false, false, 0, "", ""};
    const struct aiScene *scene = read_watched(&src, false, &watch, file, error, &result);
    if (scene == NULL) {
        return result;
    }
    return convert(scene, false, file, NULL, bytes, size, &watch, desc, out_asset, error);
}
