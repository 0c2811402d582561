/* crowd/import.h - reading characters from files into a crowd_asset.
 *
 * Any format assimp reads (glTF/GLB, FBX, Collada, X, MD5, SMD, Half-Life
 * MDL, ...). All meshes of the file are merged into one mesh: skinned meshes
 * keep their weights, a static mesh parented to a node becomes rigidly
 * skinned to that node, materials become submeshes. Repairs (see
 * crowd_repairs) are counted in the asset and logged. The assimp scene is
 * released before the call returns; nothing of assimp leaks into the asset.
 *
 * Ownership: *out_asset belongs to the caller (crowd_asset_destroy).
 * Threading: import calls may run concurrently on different files.
 */
#ifndef CROWD_IMPORT_H
#define CROWD_IMPORT_H

#include "crowd/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crowd_import_desc {
    crowd_logger logger;
    /* Extra node names to expose as sockets, besides nodes named "socket_*". */
    const char *const *socket_nodes;
    uint32_t socket_node_count;
} crowd_import_desc;

/* Imports `path`. desc may be NULL (defaults). On failure *out_asset is NULL
 * and `error` says why: CROWD_ERROR_IO (missing, unreadable, a directory),
 * CROWD_ERROR_INVALID_DATA (malformed, truncated, NaN/Inf, indices out of
 * range), CROWD_ERROR_UNSUPPORTED (a format or feature crowd cannot use, e.g.
 * no triangles). The result passes crowd_asset_validate(). */
crowd_result crowd_import_file(const char *path, const crowd_import_desc *desc,
                               crowd_asset **out_asset, crowd_error *error);

/* Same, from bytes in memory; `name` is used in messages and to guess the
 * format from its extension (e.g. "robot.glb"). For fuzzing and embedding. */
crowd_result crowd_import_memory(const void *bytes, size_t size, const char *name,
                                 const crowd_import_desc *desc, crowd_asset **out_asset,
                                 crowd_error *error);

/* Merges `prop`'s mesh and materials into `asset`, rigidly skinned to the
 * joint of socket `socket_name` at the socket's offset. The prop's own
 * skeleton and clips are ignored. On failure `asset` is unchanged. */
crowd_result crowd_asset_attach(crowd_asset *asset, const char *socket_name,
                                const crowd_asset *prop, crowd_error *error);

/* Convenience for tools: "builtin:" gives crowd_builtin_create(), anything
 * else crowd_import_file(). */
crowd_result crowd_model_load(const char *spec, const crowd_import_desc *desc,
                              crowd_asset **out_asset, crowd_error *error);

#ifdef __cplusplus
}
#endif

#endif
