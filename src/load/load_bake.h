/* load_bake.h - loading a bake from files held in memory.
 *
 * crowd_bake_load reads a folder; the same loader runs on a set of named
 * in-memory files, which is what the fuzz target (fuzz/fuzz_bake_load.c)
 * uses and what a game loading from its own archive would use. Every check
 * of crowd_bake_load applies; errors name the file as given here.
 */
#ifndef CROWD_LOAD_LOAD_BAKE_H
#define CROWD_LOAD_LOAD_BAKE_H

#include <stddef.h>
#include <stdint.h>

#include "crowd/bake.h"

typedef struct load_memory_file {
    const char *name; /* as the manifest names it, e.g. "robot.vat.png" */
    const void *data;
    size_t size_bytes;
} load_memory_file;

/* Loads the bake whose manifest is the one file named "*.crowd.json" among
 * `files`; the files are only read during the call. Errors as
 * crowd_bake_load, plus CROWD_ERROR_INVALID_ARGUMENT when there is not
 * exactly one manifest, and CROWD_ERROR_IO for a file the manifest names
 * that is not in the set. */
crowd_result load_bake_memory(const load_memory_file *files, uint32_t file_count,
                              const crowd_logger *logger, crowd_bake **out_bake,
                              crowd_error *error);

#endif
