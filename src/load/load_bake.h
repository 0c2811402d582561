/* load_bake.h - the one bake loader behind crowd_bake_load (a folder,
 * load_bake.c) and crowd_bake_load_memory (named buffers, load_memory.c):
 * a source of named files and the loader over it. Not a public header.
 *
 * Every block the loader takes comes from desc->allocator (crowd/bake.h
 * says which transient memory cannot); the loaded bake records it.
 */
#ifndef CROWD_LOAD_LOAD_BAKE_H
#define CROWD_LOAD_LOAD_BAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/bake.h"

/* Where the files come from: a folder, or a checked set (load_memory.c). */
typedef struct load_source {
    const char *folder;           /* disk: the bake folder */
    const crowd_bake_file *files; /* memory: the file set */
    uint32_t file_count;
} load_source;

/* A manifest's file name: "*.crowd.json", not starting with '.'. */
bool crowd__load_is_manifest_name(const char *name);

/* Refuses a half-set allocator (one function without the other), naming
 * `file`; a NULL desc is the defaults. */
crowd_result crowd__load_check_desc(const crowd_bake_load_desc *desc, const char *file,
                                    crowd_error *error);

/* Loads the bake whose manifest is `manifest`, a name of `source`, into
 * *out_bake (NULL on failure, with every block returned). desc may be NULL
 * and has passed crowd__load_check_desc. */
crowd_result crowd__load_bake_from(const load_source *source, const char *manifest,
                                   const crowd_bake_load_desc *desc, crowd_bake **out_bake,
                                   crowd_error *error);

#endif
