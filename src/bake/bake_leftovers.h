/* bake_leftovers.h - the generations of a bake's files in its folder, and
 * the files of a NAME that no manifest uses any more.
 *
 * Why generations: a bake folder must switch from one bake to the next in
 * one atomic step, so a loader never sees the new VAT beside the old mesh.
 * Every data file of a bake is written under a name no older bake of the
 * folder uses, NAME.<generation>.<kind> (NAME.3.vat.png, NAME.3.mesh.glb,
 * openvat/NAME.3_vat.png), and the manifest NAME.crowd.json, which names
 * them, is renamed into place last (atomic_set.h). Until that rename the
 * old manifest still names the old, untouched files; after it the new one
 * names only new ones. A generation counter rather than content hashes
 * keeps the names short and never equal to a name on disk, so nothing in
 * use is ever overwritten. After the switch, what the folder holds of the
 * same NAME beside the new set is a leftover: files of older generations,
 * and the temporaries and backups (".FILE.tmp-PID-N", ".FILE.bak-PID-N")
 * of bakes that were killed. Only names of exactly these shapes are ever
 * touched: a user's file, or another bake's, is never removed.
 *
 * Not safe against two bakes of one NAME into one folder at the same time.
 */
#ifndef CROWD_BAKE_LEFTOVERS_H
#define CROWD_BAKE_LEFTOVERS_H

#include <stdint.h>

#include "crowd/result.h"
#include "load/manifest_io.h"

/* Generations are 1 to this; a folder at the end refuses more bakes. */
#define BAKE_GENERATION_MAX 999999999u

/* One more than the highest generation of `name`'s files in `dir` and its
 * OpenVAT folder (1 when there are none, or `dir` does not exist).
 * Errors: CROWD_ERROR_OUTPUT (a folder that cannot be read, or generations
 * used up). */
crowd_result crowd__bake_leftovers_next_generation(const char *dir, const char *name,
                                                   uint32_t *out_generation, crowd_error *error);

/* Removes the leftovers of `name` in `dir` and its OpenVAT folder: every
 * generation file and every temporary or backup of a file of `name`, except
 * the `keep_count` files of `keep` (the set just written; the manifest
 * itself is neither). Best effort: a file
 * that cannot be removed stays for the next bake. Returns how many files
 * were removed. */
uint32_t crowd__bake_leftovers_remove(const char *dir, const char *name, const manifest_check *keep,
                                      uint32_t keep_count);

#endif
