/* manifest_write.h - writing NAME.crowd.json (docs/manifest.md), the
 * offline half of load/manifest_io.h: the names of a bake's files, the value
 * ranges of its textures, and the manifest text itself.
 */
#ifndef CROWD_BAKE_MANIFEST_WRITE_H
#define CROWD_BAKE_MANIFEST_WRITE_H

#include <stdbool.h>

#include "crowd/bake.h"
#include "load/manifest_io.h"

/* OpenVAT set written beside the bake (paths relative to the bake folder). */
typedef struct manifest_openvat {
    const char *remap_info, *texture, *mesh;
} manifest_openvat;

/* The file names of a bake called bake->name with its encodings, its data
 * files of `generation` (bake_leftovers.h): NAME.crowd.json,
 * NAME.<generation>.mesh.glb, ... */
void crowd__manifest_file_names(const crowd_bake *bake, uint32_t generation, manifest_files *files);

/* Range of the stored values of a texture (format RGBA32F, RGBA16F or
 * RGBA16_UNORM, texels present); false when a value is NaN or infinite. */
bool crowd__manifest_texture_range(const crowd_texture *texture, manifest_range *range);

/* The manifest text (cJSON_free it) of `bake` with the names, ranges and
 * file checks in `info`. openvat may be NULL. Errors: CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__manifest_write(const crowd_bake *bake, const manifest_info *info,
                                   const manifest_openvat *openvat, char **out_json,
                                   crowd_error *error);

#endif
