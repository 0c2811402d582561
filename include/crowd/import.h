/* crowd/import.h - reading characters from files into a crowd_asset.
 *
 * Any format assimp reads (glTF/GLB, FBX, Collada, X, MD5, SMD, Half-Life
 * MDL, ...). All meshes of the file are merged into one mesh: skinned meshes
 * keep their weights, a static mesh parented to a node becomes rigidly
 * skinned to that node, materials become submeshes. Repairs (see
 * crowd_repairs) are counted in the asset and logged; what a file's format
 * forbids (an index beyond the vertex count) is refused. Coordinates are
 * converted to metres from the unit the file declares (FBX, Collada).
 *
 * assimp runs in a helper process, crowd-import-helper, under memory,
 * CPU-time and wall-clock limits: a reader that crashes, hangs or runs out
 * of memory gives an error, never a crash of the caller, and assimp's own
 * printing reaches the logger, never the terminal. The helper is looked for
 * in this order: the environment variable CROWD_IMPORT_HELPER (a path), the
 * folder of the running program (/proc/self/exe), the install's libexec
 * folder. Its reply is checked like any untrusted input
 * (crowd_asset_validate). desc.in_process runs assimp in the calling process
 * instead, as builds configured with CROWD_IMPORT_IN_PROCESS always do (for
 * platforms without processes): then assimp's process-wide logger and error
 * string are used under a process-wide lock, what assimp prints itself
 * reaches the process's stderr, and a crashing reader takes the caller down
 * with it.
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
    /* Metres per unit of the file, replacing the unit the file declares
     * (FBX UnitScaleFactor, Collada <unit>); 0 keeps the file's own. */
    float scale;
    /* Run assimp in this process instead of the helper (see above). */
    bool in_process;
    /* Limits of the helper process, 0 for the defaults: address space
     * (8 GiB), CPU time (300 s) and wall-clock time (600 s). */
    uint64_t memory_limit_bytes;
    uint32_t cpu_limit_s;
    uint32_t timeout_s;
} crowd_import_desc;

/* Imports `path`. desc may be NULL (defaults). On failure *out_asset is NULL
 * and `error` says why: CROWD_ERROR_IO (missing, unreadable, a directory),
 * CROWD_ERROR_INVALID_DATA (malformed, truncated, NaN/Inf, indices out of
 * range, a reader that crashed on it), CROWD_ERROR_UNSUPPORTED (a format or
 * feature crowd cannot use, e.g. no triangles), CROWD_ERROR_LIMIT (the
 * helper ran out of memory, CPU time or wall-clock time on it),
 * CROWD_ERROR_IO also when the helper cannot be found or started. The
 * result passes crowd_asset_validate(). */
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
