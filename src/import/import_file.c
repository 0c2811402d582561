/* import_file.c - the public entry points, and the internal one for a file
 * of clips (crowd__import_clips_file): check the arguments and the path, then hand
 * the input to where assimp runs (import_run.h): the helper process, or
 * this process when desc.in_process asks or the build has no processes
 * (CROWD_IMPORT_IN_PROCESS).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "crowd/asset.h"
#include "crowd/import.h"
#include "import/gltf/gltf_import.h"
#include "import/import_run.h"

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

/* The desc with zeros for NULL; false (error set) for values it forbids. */
static bool take_desc(const crowd_import_desc *desc, crowd_import_desc *out, const char *file,
                      crowd_error *error) {
    static const crowd_import_desc defaults;
    *out = desc ? *desc : defaults;
    if (!(isfinite(out->scale) && out->scale >= 0.0f)) {
        crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, file,
                        "scale %g is not a positive number of metres per unit (0: the file's)",
                        (double)out->scale);
        return false;
    }
    return true;
}

/* A glTF file crowd's reader handed over (`handed` names the extensions it
 * lacks) and assimp then read (`result`): said in the repairs and the log,
 * or, where assimp could not read it either, in the error. The helper
 * process runs this same path, so what it said already is not said twice. */
static crowd_result after_handover(crowd_result result, const crowd_error *handed,
                                   const crowd_import_desc *desc, crowd_asset *asset,
                                   crowd_error *error) {
    if (result == CROWD_OK) {
        if (asset->repairs.gltf_read_by_assimp == 0) {
            asset->repairs.gltf_read_by_assimp = 1;
            crowd_log(&desc->logger, CROWD_LOG_WARNING, "%s: %s; read by assimp instead",
                      handed->file, handed->reason);
        }
        return CROWD_OK;
    }
    if (strncmp(error->reason, handed->reason, strlen(handed->reason)) == 0) {
        return result;
    }
    crowd_error assimp = *error;
    return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, handed->file,
                           "%s, and assimp cannot read it either (%s)", handed->reason,
                           assimp.reason);
}

/* crowd_import_file and crowd__import_clips_file. */
static crowd_result import_path(const char *path, const crowd_import_desc *desc, bool clips_only,
                                crowd_asset **out_asset, crowd_error *error) {
    crowd_error ignored;
    error = error ? error : &ignored; /* after_handover reads what the readers said */
    if (out_asset == NULL || path == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, path,
                               "crowd_import_file: path and out_asset must not be NULL");
    }
    *out_asset = NULL;
    crowd_import_desc checked;
    if (!take_desc(desc, &checked, path, error)) {
        return CROWD_ERROR_INVALID_ARGUMENT;
    }
    crowd_result result = check_path(path, error);
    if (result != CROWD_OK) {
        return result;
    }
    /* glTF 2.0: crowd's own reader, in this process (gltf_import.h); all else: assimp. */
    bool gltf = false;
    result = clips_only ? crowd__gltf_import_clips_file(path, &checked, out_asset, error, &gltf)
                        : crowd__gltf_import_file(path, &checked, out_asset, error, &gltf);
    if (gltf) {
        return result;
    }
    crowd_error handed = result != CROWD_OK ? *error : (crowd_error){0};
#ifndef CROWD_IMPORT_IN_PROCESS
    if (!checked.in_process) {
        result = crowd__import_child_file(path, &checked, clips_only, out_asset, error);
    } else
#endif
    {
        result = crowd__import_assimp_file(path, &checked, clips_only, out_asset, error);
    }
    return handed.result != CROWD_OK ? after_handover(result, &handed, &checked, *out_asset, error)
                                     : result;
}

crowd_result crowd_import_file(const char *path, const crowd_import_desc *desc,
                               crowd_asset **out_asset, crowd_error *error) {
    return import_path(path, desc, false, out_asset, error);
}

crowd_result crowd__import_clips_file(const char *path, const crowd_import_desc *desc,
                                      crowd_asset **out_asset, crowd_error *error) {
    return import_path(path, desc, true, out_asset, error);
}

crowd_result crowd_import_memory(const void *bytes, size_t size, const char *name,
                                 const crowd_import_desc *desc, crowd_asset **out_asset,
                                 crowd_error *error) {
    crowd_error ignored;
    error = error ? error : &ignored; /* after_handover reads what the readers said */
    const char *file = name ? name : "(memory)";
    if (out_asset == NULL || (bytes == NULL && size > 0)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, file,
                               "crowd_import_memory: bytes and out_asset must not be NULL");
    }
    *out_asset = NULL;
    crowd_import_desc checked;
    if (!take_desc(desc, &checked, file, error)) {
        return CROWD_ERROR_INVALID_ARGUMENT;
    }
    if (size == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file, "empty buffer");
    }
    if (size > UINT_MAX) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, file, "buffer larger than 4 GiB");
    }
    /* glTF 2.0: crowd's own reader, in this process (gltf_import.h); all else: assimp. */
    bool gltf = false;
    crowd_result read =
        crowd__gltf_import_memory(bytes, size, name, &checked, out_asset, error, &gltf);
    if (gltf) {
        return read;
    }
    crowd_error handed = read != CROWD_OK ? *error : (crowd_error){0};
#ifndef CROWD_IMPORT_IN_PROCESS
    if (!checked.in_process) {
        read = crowd__import_child_memory(bytes, size, name, &checked, out_asset, error);
    } else
#endif
    {
        read = crowd__import_assimp_memory(bytes, size, name, &checked, out_asset, error);
    }
    return handed.result != CROWD_OK ? after_handover(read, &handed, &checked, *out_asset, error)
                                     : read;
}
