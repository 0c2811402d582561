/* atomic_set.h - writing a set of files all-or-nothing.
 *
 * A bake is several files that only make sense together, so they are written
 * as a set: every file goes to a hidden temporary name in its final folder
 * (same filesystem, so rename is atomic), and only when all of them are
 * complete and fsync'ed are they renamed into place, in the order they were
 * added; the last file written is renamed only after the folder holding the
 * others was flushed, so a set whose last file names the others (a bake's
 * manifest, naming files no older set uses) switches in that one rename,
 * even across a crash. Files the set replaces
 * are kept as hard links until every rename and the folder's fsync succeeded,
 * so a failure at any point puts the folder back as it was: temporaries and
 * backups removed, replaced files restored, folders the set created removed.
 * A set may also delete stale files; they are kept the same way until the
 * set succeeds.
 *
 * Errors carry the final path of the file concerned and the system's reason
 * with the errno name ("File too large (EFBIG)"), because "disk full" and
 * "permission denied" need different actions from the user. Writes never
 * raise SIGXFSZ handling themselves: with the signal ignored (as the CLI
 * does) the write fails with EFBIG and that is reported like any other error.
 *
 * Not thread-safe: one set belongs to one thread.
 */
#ifndef CROWD_BAKE_ATOMIC_SET_H
#define CROWD_BAKE_ATOMIC_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/result.h"

typedef struct atomic_set atomic_set;
typedef struct atomic_file atomic_file;

/* Starts a set of files in `dir`, creating it (and missing parents) now;
 * folders created here are removed again if the set is aborted.
 * Errors: CROWD_ERROR_OUTPUT, CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__atomic_set_begin(const char *dir, atomic_set **out_set, crowd_error *error);

/* Opens the temporary file that will become `name`, a plain file name or
 * "folder/name" one level down (the folder is created if missing). The file
 * stays owned by the set. Errors: CROWD_ERROR_OUTPUT, CROWD_ERROR_OUT_OF_MEMORY,
 * CROWD_ERROR_INVALID_ARGUMENT (a name with "..", an empty part, or deeper). */
crowd_result crowd__atomic_set_add(atomic_set *set, const char *name, atomic_file **out_file,
                                   crowd_error *error);

/* Adds `name` (as crowd__atomic_set_add) holding exactly these bytes, finished.
 * Errors as crowd__atomic_set_add and crowd__atomic_file_finish. */
crowd_result crowd__atomic_set_write(atomic_set *set, const char *name, const void *data,
                                     size_t size, crowd_error *error);

/* Deletes `name` (same naming rules) at commit, if a regular file is there
 * then: the stale file of a bake being replaced. Restored if the set fails.
 * A name the set also writes is simply replaced. Call after every
 * crowd__atomic_set_add. Errors: CROWD_ERROR_INVALID_ARGUMENT,
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__atomic_set_remove(atomic_set *set, const char *name, crowd_error *error);

/* Appends `size` bytes. Returns false on failure; the first failure is kept
 * and reported by crowd__atomic_file_error, later writes are ignored. */
bool crowd__atomic_file_write(atomic_file *file, const void *data, size_t size);

/* Writes `size` bytes at `offset` (for writers that seek, like OpenEXR's). */
bool crowd__atomic_file_pwrite(atomic_file *file, const void *data, size_t size, uint64_t offset);

/* Records a failure that did not come from a write (e.g. an encoder's own
 * error), unless one is already recorded. */
void crowd__atomic_file_fail(atomic_file *file, const char *reason);

/* Reports the recorded failure as CROWD_ERROR_OUTPUT naming the final path. */
crowd_result crowd__atomic_file_error(const atomic_file *file, crowd_error *error);

/* Flushes the file to disk, measures it (crowd__atomic_set_measured) and closes
 * it; reports any recorded failure. */
crowd_result crowd__atomic_file_finish(atomic_file *file, crowd_error *error);

/* Size and CRC-32 (zlib's) of the finished file `name` of the set, as read
 * back from the disk; false when the set has no such finished file. */
bool crowd__atomic_set_measured(const atomic_set *set, const char *name, uint64_t *size_bytes,
                                uint32_t *crc32_out);

/* Final path of the file ("dir/name"), for messages. */
const char *crowd__atomic_file_path(const atomic_file *file);

/* Renames every finished file into place, or on any failure restores the
 * folder as it was. Every file must have been finished. Releases the set
 * either way. Errors: CROWD_ERROR_OUTPUT. */
crowd_result crowd__atomic_set_commit(atomic_set *set, crowd_error *error);

/* Removes the temporaries and the folders the set created; releases the set.
 * NULL is a no-op. */
void crowd__atomic_set_abort(atomic_set *set);

#endif
