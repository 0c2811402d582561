/* crowd/import.h - reading characters from files into a crowd_asset.
 *
 * Any format assimp reads (glTF/GLB, FBX, Collada, X, MD5, SMD, Half-Life
 * MDL, ...). All meshes of the file are merged into one mesh: skinned meshes
 * keep their weights, a static mesh parented to a node becomes rigidly
 * skinned to that node, materials become submeshes. Repairs (see
 * crowd_repairs) are counted in the asset and logged; what a file's format
 * forbids (an index beyond the vertex count) is refused. Coordinates are
 * converted to metres from the unit the file declares (FBX, Collada).
 * Materials keep every glTF metallic-roughness parameter the file gives
 * (crowd_material), glTF's defaults where a glTF file says nothing; formats
 * without PBR data (FBX, Collada, OBJ, X, ...) give metallic 0 (their
 * diffuse colour is a dielectric's) and roughness 1 (Phong shininess has no
 * reliable roughness, and 1 keeps the diffuse look they always had).
 *
 * assimp runs in a helper process, crowd-import-helper, under memory,
 * CPU-time and wall-clock limits: a reader that crashes, hangs or runs out
 * of memory gives an error, never a crash of the caller, and assimp's own
 * printing reaches the logger, never the terminal. The helper is looked for
 * in this order: the environment variable CROWD_IMPORT_HELPER (a path), the
 * folder of the running program (/proc/self/exe), ../libexec from there,
 * the libexec folder of the install prefix. Its reply is checked like any untrusted input
 * (crowd_asset_validate). desc.in_process runs assimp in the calling process
 * instead, as builds configured with CROWD_IMPORT_IN_PROCESS always do (for
 * platforms without processes): then assimp's process-wide logger and error
 * string are used under a process-wide lock, what assimp prints itself
 * reaches the process's stderr, and a crashing reader takes the caller down
 * with it.
 *
 * glTF 2.0 (.gltf, .glb) is not assimp's: crowd's own reader takes it, in
 * the calling process (it trusts nothing it reads: every index and range
 * is checked against the specification and a failure names the JSON path
 * of the problem), parsing the file once. glTF 1.0 goes to assimp, and so
 * does a glTF 2.0 file requiring an extension crowd's reader lacks (Draco or
 * meshopt geometry, one it does not know): repairs.gltf_read_by_assimp and a
 * warning say so, and where assimp cannot read it either the error names
 * the extension. Required extensions that change only shading, lights or
 * texture containers stay with crowd's reader, each named in a warning.
 *
 * Clips can come from other files (crowd_asset_add_clips): an animation
 * file's skeleton is matched to the character's by joint name, its keys
 * retargeted where the two rest poses differ.
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

/* How crowd_asset_add_clips reads an animation file. Zero means default. */
typedef struct crowd_anim_import_desc {
    crowd_logger logger;
    /* How the file is read (unit scale, helper limits); NULL: defaults. */
    const crowd_import_desc *import;
    /* Factor on the root joint's translation keys; 0: the ratio of hip
     * heights (character / file), which also converts the file's unit. */
    float root_scale;
} crowd_anim_import_desc;

/* What crowd_asset_add_clips did; arrays owned by the report
 * (crowd_anim_report_free). */
typedef struct crowd_anim_report {
    uint32_t clips_added;
    uint32_t clips_renamed;     /* of those, renamed: their name was taken */
    char **clip_names;          /* clips_added names, as in the asset */
    char **clip_file_names;     /* ... and as in the file */
    uint32_t joint_count;       /* the character's */
    char **matched;             /* per character joint: the file joint it follows, or NULL */
    bool *matched_by_role;      /* per character joint: matched by humanoid role, not name */
    uint32_t joints_matched;    /* character joints that follow a file joint */
    uint32_t joints_by_role;    /* of those, matched by humanoid role */
    uint32_t joints_retargeted; /* of those, whose keys were turned (rest poses differ) */
    uint32_t unmatched_count;   /* joints of the file that the character lacks */
    char **unmatched;           /* their names */
    int32_t root_joint;         /* character joint taking the root translation, -1 */
    float root_scale;           /* factor applied to it */
} crowd_anim_report;

/* Adds the clips of the file at `path` to `character`. The file holds a
 * skeleton and animations, with or without meshes (which are neither
 * needed nor read): glTF/GLB (crowd's reader), BVH (read here), any other
 * format through assimp as crowd_import_file reads it (the helper process
 * unless desc->import asks for in_process), e.g. Mixamo's "without skin"
 * FBX downloads, Collada or CSM mocap. Its skeleton is its bones and its
 * animated nodes with the nodes between them; a file with neither is
 * CROWD_ERROR_UNSUPPORTED ("no skeleton or clips").
 *
 * Joints are matched by name, ignoring namespaces ("mixamorig:Hips",
 * "Armature|Hips", "mixamorig1:Hips" are "Hips") and case; character
 * joints left over are matched by humanoid role ("LeftArm" of CMU and
 * Mixamo rigs, "UpperArm.L", crowd's "upper_arm_L"). Where the rest poses
 * differ, rotations are retargeted in model space (the world-space delta
 * from each skeleton's rest pose, after turning the character's bone onto
 * the file's rest direction; src/import/anim/anim_retarget.c has the formulas),
 * the root's translation is scaled by the ratio of hip heights, other
 * joints keep their bone lengths; where they agree, keys are copied bit
 * for bit. Character joints the file does not animate keep their rest
 * pose; file joints the character lacks are reported. Clip names already
 * taken become "NAME_N" (counted in repairs.clips_renamed and the report).
 *
 * desc may be NULL (defaults); out may be NULL. CROWD_ERROR_UNSUPPORTED
 * when the file has no clip or no joint matches. On failure `character` is
 * unchanged. Call before the asset is shared: it is modified in place. */
crowd_result crowd_asset_add_clips(crowd_asset *character, const char *path,
                                   const crowd_anim_import_desc *desc, crowd_anim_report *out,
                                   crowd_error *error);

/* Frees the report's arrays and zeroes it. NULL is a no-op. */
void crowd_anim_report_free(crowd_anim_report *report);

/* Convenience for tools: "builtin:" gives crowd_builtin_create(),
 * "builtin:NAME" the built-in prop NAME (crowd_builtin_prop_create: sword,
 * shield, hat), anything else crowd_import_file(). */
crowd_result crowd_model_load(const char *spec, const crowd_import_desc *desc,
                              crowd_asset **out_asset, crowd_error *error);

#ifdef __cplusplus
}
#endif

#endif
