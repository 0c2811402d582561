/* test_import - crowd_import_file/memory, crowd_asset_attach, crowd_model_load. */
#include <stdio.h>

#include "check.h"
#include "crowd/import.h"
#include "import_tests.h"

crowd_asset *import_or_fail(const char *path) {
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_import_file(path, NULL, &asset, &error);
    CHECK_MSG(result == CROWD_OK, "%s: %s: %s", path, crowd_result_str(result), error.reason);
    if (asset != NULL) {
        crowd_error invalid;
        CHECK_MSG(crowd_asset_validate(asset, &invalid) == CROWD_OK, "%s: %s", path,
                  invalid.reason);
    }
    return asset;
}

int main(void) {
    check_enter_temp_dir("test_import");
    int failures =
        test_import_models() + test_import_repairs() + test_import_attach() + test_import_errors();
    failures += CHECK_REPORT("import_or_fail");
    printf("test_import: %d failed\n", failures);
    return failures ? 1 : 0;
}
