/* robot_asset.c - robot_asset.h. */
#include "robot_asset.h"

#include "check.h"
#include "crowd/import.h"

crowd_asset *import_robot(void) {
    const char *path = check_shared_model("robot.glb");
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    if (path != NULL) {
        CHECK_MSG(crowd_import_file(path, NULL, &asset, &error) == CROWD_OK, "%s: %s", path,
                  error.reason);
    }
    return asset;
}
