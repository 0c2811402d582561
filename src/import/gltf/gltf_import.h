/* gltf_import.h - crowd's own glTF 2.0 reader: the importer's entry for
 * glTF and GLB files (import_file.c hands them here before anything else
 * sees them; assimp reads glTF 2.0 only when this reader hands it over).
 *
 * The file is parsed once (gltf_document.h), checked against the
 * specification as it is read, and turned into a crowd_asset by the stages
 * of gltf_internal.h. What is not glTF 2.0 (glTF 1.0, other formats) is
 * not claimed: *claimed comes back false, nothing is touched and the caller
 * hands the file to another reader. A glTF 2.0 file that requires an
 * extension crowd's reader lacks (Draco, meshopt, one it does not know) is
 * not claimed either, but comes back with CROWD_ERROR_UNSUPPORTED and an
 * error naming the extensions: the caller hands it to assimp and says why.
 * Once claimed, the result is the import's: CROWD_OK with an asset that
 * passes crowd_asset_validate(), or an error naming the file and the JSON
 * path of what is wrong.
 *
 * Threading: calls on different files may run concurrently; nothing is
 * global.
 */
#ifndef CROWD_IMPORT_GLTF_IMPORT_H
#define CROWD_IMPORT_GLTF_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "crowd/import.h"

/* crowd_import_file's glTF half: `path` must exist (checked by the caller).
 * Only files named .gltf / .glb or starting as GLB or JSON are read. */
crowd_result crowd__gltf_import_file(const char *path, const crowd_import_desc *desc,
                                     crowd_asset **out_asset, crowd_error *error, bool *claimed);

/* crowd_import_memory's glTF half: `name` names the bytes in messages and
 * its extension says glTF was meant; external files cannot be read. */
crowd_result crowd__gltf_import_memory(const void *bytes, size_t size, const char *name,
                                       const crowd_import_desc *desc, crowd_asset **out_asset,
                                       crowd_error *error, bool *claimed);

/* The same for a file of clips (crowd_asset_add_clips): its skeleton and
 * clips, meshes neither needed nor read (the asset's mesh is empty). */
crowd_result crowd__gltf_import_clips_file(const char *path, const crowd_import_desc *desc,
                                           crowd_asset **out_asset, crowd_error *error,
                                           bool *claimed);

/* What crowd__gltf_import_bytes is asked for. */
typedef struct gltf_import_options {
    const char *file; /* names the input in messages (its extension says glTF was meant) */
    const char *dir;  /* folder of external buffers and images; NULL: none can be read */
    /* A file of clips (crowd_asset_add_clips): meshes are neither needed
     * nor read; the asset has a skeleton and clips and an empty mesh. */
    bool skeleton_only;
} gltf_import_options;

/* The reader on bytes in memory (kept, not copied, for the call). */
crowd_result crowd__gltf_import_bytes(const void *bytes, size_t size,
                                      const gltf_import_options *options,
                                      const crowd_import_desc *desc, crowd_asset **out_asset,
                                      crowd_error *error, bool *claimed);

#endif
