/* import_run.h - the two places assimp can run for an import: this
 * process (import_assimp.c, also what the helper does) or the helper
 * process (process/import_child.c, absent from CROWD_IMPORT_IN_PROCESS
 * builds). Both take a checked path or non-empty bytes and a desc with
 * the defaults substituted, and give what crowd_import_file() /
 * crowd_import_memory() promise; with `clips_only`, what
 * crowd__import_clips_file() promises instead.
 *
 * crowd__import_clips_file() is crowd_import_file() for a file of clips
 * (crowd_asset_add_clips, anim_add.c): glTF by crowd's reader, anything
 * else through assimp like a character, but no mesh is needed or read. The
 * asset has the file's skeleton (its bones and animated nodes with the
 * nodes between them, import_internal.h) and clips, an empty mesh, and
 * passes crowd_asset_validate(); a file with neither bones nor animation
 * is CROWD_ERROR_UNSUPPORTED ("no skeleton or clips"). Internal: the
 * public API reaches it through crowd_asset_add_clips only. */
#ifndef CROWD_IMPORT_RUN_H
#define CROWD_IMPORT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "crowd/import.h"

crowd_result crowd__import_clips_file(const char *path, const crowd_import_desc *desc,
                                      crowd_asset **out_asset, crowd_error *error);

crowd_result crowd__import_assimp_file(const char *path, const crowd_import_desc *desc,
                                       bool clips_only, crowd_asset **out_asset,
                                       crowd_error *error);
crowd_result crowd__import_assimp_memory(const void *bytes, size_t size, const char *name,
                                         const crowd_import_desc *desc, crowd_asset **out_asset,
                                         crowd_error *error);

crowd_result crowd__import_child_file(const char *path, const crowd_import_desc *desc,
                                      bool clips_only, crowd_asset **out_asset, crowd_error *error);
crowd_result crowd__import_child_memory(const void *bytes, size_t size, const char *name,
                                        const crowd_import_desc *desc, crowd_asset **out_asset,
                                        crowd_error *error);

#endif
