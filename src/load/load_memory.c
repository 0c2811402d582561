/* crowd_bake_load_memory: the bake loader (load_bake.h) over a set of named
 * buffers. The set is checked before anything is read, because its names
 * come from the caller's archive rather than from a folder: each file must
 * have a name the manifest could use (so no path reaches outside the bake,
 * and "openvat/..." entries are refused rather than silently ignored), and
 * no name may appear twice (which copy would be read is not obvious). */
#include <string.h>

#include "load/load_bake.h"
#include "load/manifest_io.h"

/* Each file named, with bytes, a plain name, no two alike; *out_manifest the
 * one manifest. */
static crowd_result check_set(const crowd_bake_file *files, uint32_t file_count,
                              const char **out_manifest, crowd_error *error) {
    uint32_t manifests = 0;
    for (uint32_t i = 0; i < file_count; i++) {
        const char *name = files[i].name;
        if (name == NULL) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, "",
                                   "file %u of the set has no name", i);
        }
        if (files[i].data == NULL && files[i].size_bytes > 0) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                                   "file %u of the set has %zu bytes but no data pointer", i,
                                   files[i].size_bytes);
        }
        if (!crowd__manifest_valid_file_name(name)) {
            return crowd_error_set(
                error, CROWD_ERROR_INVALID_ARGUMENT, "",
                "file %u of the set is named \"%.100s\": not a plain file name of a bake folder "
                "(no slash or backslash, not starting with '.', at most %d bytes)",
                i, name, MANIFEST_NAME_MAX);
        }
        for (uint32_t k = 0; k < i; k++) {
            if (strcmp(files[k].name, name) == 0) {
                return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                                       "files %u and %u of the set have this name", k, i);
            }
        }
        if (crowd__load_is_manifest_name(name)) {
            *out_manifest = name;
            manifests++;
        }
    }
    if (manifests != 1) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, "",
                               "%u manifests (*%s) in the set of %u files; exactly one is needed",
                               manifests, MANIFEST_SUFFIX, file_count);
    }
    return CROWD_OK;
}

crowd_result crowd_bake_load_memory(const crowd_bake_file *files, uint32_t file_count,
                                    const crowd_bake_load_desc *desc, crowd_bake **out_bake,
                                    crowd_error *error) {
    if (out_bake != NULL) {
        *out_bake = NULL;
    }
    if (out_bake == NULL || (files == NULL && file_count > 0)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, "",
                               "crowd_bake_load_memory needs %s",
                               out_bake == NULL ? "an output pointer" : "the files (NULL given)");
    }
    crowd_result result = crowd__load_check_desc(desc, "", error);
    const char *manifest = NULL;
    if (result == CROWD_OK) {
        result = check_set(files, file_count, &manifest, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    load_source source = {.files = files, .file_count = file_count};
    return crowd__load_bake_from(&source, manifest, desc, out_bake, error);
}
