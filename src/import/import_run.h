/* import_run.h - the two places assimp can run for an import: this
 * process (import_assimp.c, also what the helper does) or the helper
 * process (process/import_child.c, absent from CROWD_IMPORT_IN_PROCESS
 * builds). Both take a checked path or non-empty bytes and a desc with
 * the defaults substituted, and give what crowd_import_file() /
 * crowd_import_memory() promise. */
#ifndef CROWD_IMPORT_RUN_H
#define CROWD_IMPORT_RUN_H

#include <stddef.h>

#include "crowd/import.h"

crowd_result import_assimp_file(const char *path, const crowd_import_desc *desc,
                                crowd_asset **out_asset, crowd_error *error);
crowd_result import_assimp_memory(const void *bytes, size_t size, const char *name,
                                  const crowd_import_desc *desc, crowd_asset **out_asset,
                                  crowd_error *error);

crowd_result import_child_file(const char *path, const crowd_import_desc *desc,
                               crowd_asset **out_asset, crowd_error *error);
crowd_result import_child_memory(const void *bytes, size_t size, const char *name,
                                 const crowd_import_desc *desc, crowd_asset **out_asset,
                                 crowd_error *error);

#endif
