/* core_internal.h - helpers the other modules share through crowd_core that
 * are not public API: a string copy, system errors worded one way, and
 * whole-file reading.
 *
 * System errors name the errno value as well as its text ("No space left on
 * device (ENOSPC)"), because "disk full" and "permission denied" need
 * different actions from the user and the text alone is localized.
 *
 * All functions are thread-safe; none keeps state.
 */
#ifndef CROWD_CORE_INTERNAL_H
#define CROWD_CORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/asset.h"
#include "crowd/result.h"

/* strdup() for C11: a malloc'ed copy of `text`, NULL when out of memory.
 * The _with form allocates through `allocator` (NULL: malloc). */
char *crowd__core_copy_string(const char *text);
char *crowd__core_copy_string_with(const crowd_allocator *allocator, const char *text);

/* crowd_asset_create() with the asset's blocks, the struct included, taken
 * from `allocator` (NULL: malloc) and recorded in asset->allocator, so
 * crowd_asset_destroy returns them there; producers that use it fill the
 * asset's arrays through the same allocator. */
crowd_asset *crowd__core_asset_create_with(const crowd_allocator *allocator);

/* glTF 2.0's material defaults: base colour white, metallic 1, roughness 1,
 * no emission, normal scale 1, occlusion strength 1, opaque with cutoff 0.5,
 * single-sided. The name and the textures are left as they are. */
void crowd__core_material_defaults(crowd_material *material);
/* Frees what a material points to (its name and textures), not the
 * material; the _with form frees through `allocator` (NULL: free). */
void crowd__core_material_release(crowd_material *material);
void crowd__core_material_release_with(const crowd_allocator *allocator, crowd_material *material);

/* The asset's socket names, ", "-separated, into out[size] (cut short
 * where they do not fit): what an error naming an unknown socket lists. */
void crowd__core_socket_names(const crowd_asset *asset, char *out, size_t size);

/* The arrays of a skeleton of `joint_count` joints, zeroed (names NULL),
 * and joint_count set; false when out of memory (what was allocated is
 * freed with the asset, as every array of it). */
bool crowd__core_skeleton_allocate(crowd_skeleton *skeleton, uint32_t joint_count);
bool crowd__core_skeleton_allocate_with(const crowd_allocator *allocator, crowd_skeleton *skeleton,
                                        uint32_t joint_count);

/* The folder of `path`, malloc'ed: "models/robot.glb" -> "models",
 * "robot.glb" -> ".", "/robot.glb" -> "/"; NULL when out of memory. */
char *crowd__core_path_folder(const char *path);

/* Symbolic name of an errno value ("ENOSPC"), or "errno N" (written into
 * `buffer`) for rare ones. */
const char *crowd__core_errno_name(int errnum, char buffer[16]);

/* Fills `error` with `result`, `path` and the reason "<what>: <strerror>
 * (<ENAME>)" and returns `result`. */
crowd_result crowd__core_system_error(crowd_error *error, crowd_result result, const char *path,
                                      const char *what, int errnum);

/* Reads the whole regular file at `path` into a malloc'ed buffer (at least
 * one byte allocated, so an empty file gives a non-NULL pointer and size 0).
 * Files larger than `max_bytes` are refused before anything is allocated;
 * SIZE_MAX means no limit. Errors name `path`: CROWD_ERROR_IO ("missing",
 * cannot open, not a regular file, cannot read, shrank while read),
 * CROWD_ERROR_LIMIT (larger than max_bytes), CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__core_file_read(const char *path, size_t max_bytes, uint8_t **out_data,
                                   size_t *out_size, crowd_error *error);
/* The same, the buffer taken from `allocator` (NULL: malloc), to be freed
 * with crowd__mem_free(allocator, ...). */
crowd_result crowd__core_file_read_with(const crowd_allocator *allocator, const char *path,
                                        size_t max_bytes, uint8_t **out_data, size_t *out_size,
                                        crowd_error *error);

/* Memory through an optional crowd_allocator (NULL or zeroed: malloc and
 * free). crowd__mem_alloc_array refuses a count * size that overflows;
 * crowd__mem_grow moves `old_bytes` of `pointer` into a new block of
 * `new_bytes` (the allocator has no realloc) and frees the old one, or returns
 * NULL and leaves `pointer` as it was. */
void *crowd__mem_alloc(const crowd_allocator *allocator, size_t bytes);
void *crowd__mem_alloc_zeroed(const crowd_allocator *allocator, size_t count, size_t size);
void *crowd__mem_grow(const crowd_allocator *allocator, void *pointer, size_t old_bytes,
                      size_t new_bytes);
void crowd__mem_free(const crowd_allocator *allocator, void *pointer);

#endif
