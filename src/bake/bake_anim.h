/* bake_anim.h - the runtime clips of a bake (NAME.G.anim.bin, load/anim_io.h
 * is the layout): which source clip each baked clip plays, the file's bytes,
 * and how far the stored clips are from the source's in skinned positions.
 */
#ifndef CROWD_BAKE_BAKE_ANIM_H
#define CROWD_BAKE_BAKE_ANIM_H

#include <stddef.h>
#include <stdint.h>

#include "crowd/bake.h"

/* Fills sources[clip_count] with the asset clip each baked clip was made
 * from (NULL: the rest pose of an asset without clips, for "rest"); false
 * when a baked clip has none in bake->asset, so no runtime clips can be
 * written (a bake made by hand, or loaded without them). */
bool crowd__bake_anim_sources(const crowd_bake *bake, const crowd_clip **sources);

/* The file's bytes (free them) for bake->asset's skeleton and the baked
 * clips, each played from sources[c]; *out_info gets present, the counts
 * and the size (not the error). Errors: CROWD_ERROR_LIMIT (over 4 GiB),
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__bake_anim_encode(const crowd_bake *bake, const crowd_clip *const *sources,
                                     uint8_t **out_bytes, size_t *out_size,
                                     crowd_bake_anim *out_info, crowd_error *error);

/* Encodes, reads the bytes back with the loader's reader and measures the
 * clips read against the sources (crowd_bake_anim.error_*), on up to
 * thread_count threads (0: one per CPU). *out_info.present is false, and
 * CROWD_OK returned, when crowd__bake_anim_sources finds no sources. */
crowd_result crowd__bake_anim_measure(const crowd_bake *bake, uint32_t thread_count,
                                      crowd_bake_anim *out_info, crowd_error *error);

#endif
