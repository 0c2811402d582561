/* model_load.c - one way for tools to name any model: a file, "builtin:"
 * or a built-in prop ("builtin:sword"). */
#include <string.h>

#include "crowd/builtin.h"
#include "crowd/import.h"

crowd_result crowd_model_load(const char *spec, const crowd_import_desc *desc,
                              crowd_asset **out_asset, crowd_error *error) {
    if (spec == NULL || out_asset == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, spec,
                               "crowd_model_load: spec and out_asset must not be NULL");
    }
    if (strcmp(spec, "builtin:") == 0) {
        *out_asset = NULL;
        return crowd_builtin_create(out_asset, error);
    }
    if (strncmp(spec, "builtin:", 8) == 0) {
        /* A name that is no built-in prop is a model that is not there,
         * as a missing file is. */
        crowd_result result = crowd_builtin_prop_create(spec + 8, out_asset, error);
        if (result == CROWD_ERROR_INVALID_ARGUMENT) {
            return crowd_error_set(error, CROWD_ERROR_IO, spec,
                                   "no such built-in model (builtin:, builtin:sword, "
                                   "builtin:shield, builtin:hat)");
        }
        return result;
    }
    return crowd_import_file(spec, desc, out_asset, error);
}
