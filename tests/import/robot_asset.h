/* robot_asset.h - ../shared/models/robot.glb imported, for the tests that
 * give it clips from other files (test_import_anim, test_import_anim_assimp). */
#ifndef ROBOT_ASSET_H
#define ROBOT_ASSET_H

struct crowd_asset;

/* robot.glb imported; NULL when the model is absent (the check helper says
 * so) or a check failed. */
struct crowd_asset *import_robot(void);

#endif
