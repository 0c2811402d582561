/* import_file.c - the public entry points: check the input (precheck.h),
 * run assimp, convert, release.
 *
 * assimp's C API keeps its last error in a process-wide string and its
 * loggers in process-wide lists, so calls into it are serialized by one
 * mutex and the error string is copied before the lock is released. The
 * conversion itself (import_scene.c) runs outside the lock.
 */
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crowd/asset.h"
#include "crowd/import.h"
#include "import/gltf_document.h"
#include "import/import_internal.h"
#include "import/precheck.h"

static pthread_mutex_t assimp_lock = PTHREAD_MUTEX_INITIALIZER;

/* assimp repairs some malformed input silently: it drops faces with indices
 * out of range, skips empty faces, invents missing materials, and only says
 * so in its log. crowd rejects such files instead of playing a character
 * with holes, so the log is watched during the import: an error-level line
 * from the reader, or the warning about dropped faces, fails the import with
 * that line. Error lines of the post-processing steps are not about the file
 * (PopulateArmatureData logs one for robot.glb, whose bones it still
 * resolves right), so they are let through. Lines look like "Error, T0: text". */
typedef struct assimp_log_watch {
    bool post_processing;
    char complaint[400];
} assimp_log_watch;

static void watch_log(const char *message, char *user) {
    assimp_log_watch *watch = (assimp_log_watch *)user;
    if (strstr(message, "Entering post processing pipeline") != NULL) {
        watch->post_processing = true;
    }
    if (watch->complaint[0] != '\0') {
        return;
    }
    bool error = !watch->post_processing && strncmp(message, "Error", 5) == 0;
    bool dropped = strstr(message, "out-of-range indices") != NULL;
    if (error || dropped) {
        const char *text = strchr(message, ':');
        text = text ? text + 1 : message;
        while (*text == ' ') {
            text++;
        }
        snprintf(watch->complaint, sizeof watch->complaint, "%s", text);
        size_t length = strlen(watch->complaint);
        while (length > 0 &&
               (watch->complaint[length - 1] == '\n' || watch->complaint[length - 1] == '.')) {
            watch->complaint[--length] = '\0';
        }
    }
}

/* Triangles only (points and lines are dropped by SortByPType), shared
 * vertices welded, bones resolved to their nodes (aiBone::mNode), UVs with
 * glTF's top-left origin, and assimp's own consistency checks. Weight
 * limiting and normal generation are done by the importer so it can count them. */
static const unsigned import_flags =
    aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_JoinIdenticalVertices |
    aiProcess_PopulateArmatureData | aiProcess_FlipUVs | aiProcess_ValidateDataStructure;

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
    if (strstr(line, "No suitable reader") != NULL) {
        result = CROWD_ERROR_UNSUPPORTED;
    } else if (strstr(line, "Unable to open file") != NULL) {
        result = CROWD_ERROR_IO;
    }
    return crowd_error_set(error, result, file, "%s", line);
}

static struct aiLogStream start_watch(assimp_log_watch *watch) {
    struct aiLogStream stream = {watch_log, (char *)watch};
    aiAttachLogStream(&stream);
    return stream;
}

/* The scene when assimp read it without complaint; otherwise NULL (the scene
 * released) with the error set. Runs under assimp_lock. */
static const struct aiScene *check_import(const struct aiScene *scene,
                                          const assimp_log_watch *watch, const char *file,
                                          crowd_error *error, crowd_result *result) {
    if (scene == NULL) {
        *result = assimp_failure(aiGetErrorString(), file, error);
        return NULL;
    }
    if (watch->complaint[0] != '\0') {
        aiReleaseImport(scene);
        *result = crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file, "malformed: %s",
                                  watch->complaint);
        return NULL;
    }
    return scene;
}

/* Name without folder and last extension: "models/robot.glb" -> "robot". */
static char *asset_name(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *name = core_copy_string(base[0] ? base : "model");
    if (name != NULL) {
        char *dot = strrchr(name, '.');
        if (dot != NULL && dot != name) {
            *dot = '\0';
        }
    }
    return name;
}

static crowd_result convert(const struct aiScene *scene, const char *file, const char *dir,
                            gltf_document *gltf, const crowd_import_desc *desc,
                            crowd_asset **out_asset, crowd_error *error) {
    static const crowd_import_desc defaults;
    import_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.scene = scene;
    ctx.file = file;
    ctx.dir = dir;
    ctx.gltf = gltf;
    ctx.desc = desc ? desc : &defaults;
    ctx.logger = &ctx.desc->logger;
    ctx.error = error;
    ctx.asset = crowd_asset_create();
    crowd_result result = CROWD_OK;
    if (ctx.asset == NULL) {
        result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    } else if (scene->mNumMeshes == 0 || scene->mMeshes == NULL) {
        result = crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, file,
                                 "no meshes (a skeleton or animation alone is not a character)");
    } else {
        ctx.asset->name = asset_name(file);
        ctx.asset->source = core_copy_string(file);
        result = ctx.asset->name && ctx.asset->source
                     ? import_scene_convert(&ctx)
                     : crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    }
    free(ctx.nodes);
    free(ctx.joint_node);
    free(ctx.joint_global);
    free(ctx.inverse_bind_from_bone);
    if (result != CROWD_OK) {
        crowd_asset_destroy(ctx.asset);
        return result;
    }
    const crowd_repairs *r = &ctx.asset->repairs;
    crowd_log(ctx.logger, CROWD_LOG_INFO,
              "%s: %u vertices, %u triangles, %u joints, %u clips; repairs: %u influences "
              "truncated, %u weights renormalized, %u unweighted, %u static meshes rigid, "
              "%u normals generated, %u clips renamed, %u keys dropped",
              file, ctx.asset->mesh.vertex_count, ctx.asset->mesh.index_count / 3,
              ctx.asset->skeleton.joint_count, ctx.asset->clip_count, r->influences_truncated,
              r->weights_renormalized, r->vertices_unweighted, r->static_meshes_rigid,
              r->normals_generated, r->clips_renamed, r->keys_dropped);
    *out_asset = ctx.asset;
    return CROWD_OK;
}

static crowd_result check_path(const char *path, crowd_error *error) {
    struct stat st;
    if (stat(path, &st) != 0) {
        return crowd_error_set(error, CROWD_ERROR_IO, path, "cannot open: %s", strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        return crowd_error_set(error, CROWD_ERROR_IO, path, "is a directory, not a model file");
    }
    if (!S_ISREG(st.st_mode)) {
        return crowd_error_set(error, CROWD_ERROR_IO, path, "not a regular file");
    }
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return crowd_error_set(error, CROWD_ERROR_IO, path, "cannot open: %s", strerror(errno));
    }
    fclose(file);
    if (st.st_size == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path, "empty file");
    }
    return CROWD_OK;
}

crowd_result crowd_import_file(const char *path, const crowd_import_desc *desc,
                               crowd_asset **out_asset, crowd_error *error) {
    if (out_asset == NULL || path == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, path,
                               "crowd_import_file: path and out_asset must not be NULL");
    }
    *out_asset = NULL;
    crowd_result result = check_path(path, error);
    if (result != CROWD_OK) {
        return result;
    }
    char *dir = core_copy_string(path);
    struct aiPropertyStore *props = make_properties();
    if (dir == NULL || props == NULL) {
        free(dir);
        if (props != NULL) {
            aiReleasePropertyStore(props);
        }
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    char *slash = strrchr(dir, '/');
    if (slash == NULL) {
        strcpy(dir, ".");
    } else {
        slash[slash == dir] = '\0'; /* "/robot.glb" keeps "/" */
    }
    /* assimp trusts declared counts and offsets: see precheck.h. */
    result = import_precheck_file(path, dir, error);
    if (result != CROWD_OK) {
        free(dir);
        aiReleasePropertyStore(props);
        return result;
    }
    assimp_log_watch watch = {false, ""};
    pthread_mutex_lock(&assimp_lock);
    struct aiLogStream stream = start_watch(&watch);
    const struct aiScene *scene = aiImportFileExWithProperties(path, import_flags, NULL, props);
    aiDetachLogStream(&stream);
    scene = check_import(scene, &watch, path, error, &result);
    pthread_mutex_unlock(&assimp_lock);
    aiReleasePropertyStore(props);
    if (scene != NULL) {
        /* assimp keeps no glTF sampler interpolation: the file is read again
         * for it (gltf_samplers.c) when it has animations. */
        gltf_document *gltf = NULL;
        if (scene->mNumAnimations > 0) {
            result = gltf_document_open_file(path, dir, &gltf, error);
        }
        if (result == CROWD_OK) {
            result = convert(scene, path, dir, gltf, desc, out_asset, error);
        }
        gltf_document_close(gltf);
        aiReleaseImport(scene);
    }
    free(dir);
    return result;
}

crowd_result crowd_import_memory(const void *bytes, size_t size, const char *name,
                                 const crowd_import_desc *desc, crowd_asset **out_asset,
                                 crowd_error *error) {
    const char *file = name ? name : "(memory)";
    if (out_asset == NULL || (bytes == NULL && size > 0)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, file,
                               "crowd_import_memory: bytes and out_asset must not be NULL");
    }
    *out_asset = NULL;
    if (size == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file, "empty buffer");
    }
    if (size > UINT_MAX) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, file, "buffer larger than 4 GiB");
    }
    crowd_result checked = import_precheck_memory(bytes, size, name, error);
    if (checked != CROWD_OK) {
        return checked;
    }
    const char *dot = name ? strrchr(name, '.') : NULL;
    const char *hint = dot && dot[1] != '\0' ? dot + 1 : "";
    struct aiPropertyStore *props = make_properties();
    if (props == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    }
    crowd_result result = CROWD_OK;
    assimp_log_watch watch = {false, ""};
    pthread_mutex_lock(&assimp_lock);
    struct aiLogStream stream = start_watch(&watch);
    const struct aiScene *scene =
        aiImportFileFromMemoryWithProperties(bytes, (unsigned)size, import_flags, hint, props);
    aiDetachLogStream(&stream);
    scene = check_import(scene, &watch, file, error, &result);
    pthread_mutex_unlock(&assimp_lock);
    aiReleasePropertyStore(props);
    if (scene != NULL) {
        gltf_document *gltf = NULL;
        if (scene->mNumAnimations > 0) {
            result = gltf_document_open_memory(bytes, size, name, &gltf, error);
        }
        if (result == CROWD_OK) {
            result = convert(scene, file, NULL, gltf, desc, out_asset, error);
        }
        gltf_document_close(gltf);
        aiReleaseImport(scene);
    }
    return result;
}
