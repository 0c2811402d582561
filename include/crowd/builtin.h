/* crowd/builtin.h - the built-in character.
 *
 * A procedurally generated humanoid so that every command works with no file
 * at all (`builtin:` on the command line): about 20 joints, a few thousand
 * vertices with smooth 2-4 influence weights, three materials, and the clips
 * idle, walk, run, wave (looping) and die (one-shot). Built in memory,
 * deterministic (same bytes every call, every machine), and valid by
 * crowd_asset_validate().
 */
#ifndef CROWD_BUILTIN_H
#define CROWD_BUILTIN_H

#include "crowd/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the character. Fails only with CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd_builtin_create(crowd_asset **out_asset, crowd_error *error);

#ifdef __cplusplus
}
#endif

#endif
