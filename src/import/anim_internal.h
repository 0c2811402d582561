/* anim_internal.h - what the clip-adding code (crowd_asset_add_clips,
 * anim_*.c) shares with the glTF reader.
 *
 * Clips from several files end up in one asset, so clip names are made
 * unique in one place (anim_names.c), as are the joint-name comparisons
 * that match an animation file's skeleton to a character's.
 */
#ifndef CROWD_IMPORT_ANIM_INTERNAL_H
#define CROWD_IMPORT_ANIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/asset.h"

/* Clips [first, clip_count) of `asset` with an empty name or one an
 * earlier clip has become "clip_N" / "NAME_N" (the first N from the clip's
 * index that is free), each counted in repairs.clips_renamed and logged. */
crowd_result anim_clip_names_unique(crowd_asset *asset, uint32_t first, const crowd_logger *logger,
                                    const char *file, crowd_error *error);

/* A joint name without its namespace ("mixamorig:Hips", "Armature|Hips",
 * "mixamorig1:Hips" -> "Hips"): what follows the last ':' or '|'. */
const char *anim_name_stem(const char *name);

/* Joint names that mean the same joint: equal stems ignoring case. */
bool anim_names_match(const char *a, const char *b);

#endif
