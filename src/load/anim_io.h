/* anim_io.h - NAME.G.anim.bin, a bake's skeleton and clips in runtime form
 * (docs/manifest.md, "The runtime clips"), so that a bake loaded alone plays
 * the cpu and gpu modes. The layout below is the single definition that the
 * offline writer (bake/bake_anim.c) and the runtime reader (anim_read.c)
 * share. Not a public header.
 *
 * Little-endian, every field 4 bytes, sections in this order and 4-byte
 * aligned, each exactly where the header says (the reader recomputes every
 * offset from the counts and refuses any other):
 *
 *   header    ANIM_HEADER_BYTES   magic, version, counts, section offsets
 *   skeleton  64 + J * 116        root transform, then per joint: name,
 *                                 parent, rest TRS, inverse bind
 *   clips     C * 24              name, duration, flags (loop: the source
 *                                 clip's own, which sampling maps time by),
 *                                 its run of tracks
 *   tracks    T * 20              joint, channel, interpolation, encoding,
 *                                 keys, where its times and values start
 *   sockets   K * 76              name, joint, offset (4x4 relative to the
 *                                 joint); version 2 on, none in version 1
 *   strings   S bytes (+ padding) names, not NUL-terminated
 *   data      F * 4               float32 key times and values
 *
 * Values are float32 (encoding 0); other encodings are refused as
 * unsupported. Tracks a clip does not store are the joint's rest value.
 */
#ifndef CROWD_LOAD_ANIM_IO_H
#define CROWD_LOAD_ANIM_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/bake.h"

#define ANIM_MAGIC "CRWDANIM"
/* Version 2 added the sockets (header words 12 and 13, zeros in version
 * 1, which is still read: a bake of it has no sockets). */
#define ANIM_VERSION 2u
#define ANIM_VERSION_NO_SOCKETS 1u
#define ANIM_HEADER_BYTES 64u
#define ANIM_ROOT_BYTES 64u
#define ANIM_JOINT_BYTES 116u
#define ANIM_CLIP_BYTES 24u
#define ANIM_TRACK_BYTES 20u
#define ANIM_SOCKET_BYTES 76u
/* Clip flags. */
#define ANIM_CLIP_LOOP 1u
/* Track channels (components 3, 4, 3). */
#define ANIM_CHANNEL_TRANSLATION 0u
#define ANIM_CHANNEL_ROTATION 1u
#define ANIM_CHANNEL_SCALE 2u
/* Track value encodings. */
#define ANIM_ENCODING_F32 0u
/* The file kind in a bake folder: NAME.G.anim.bin (bake_leftovers.h). */
#define ANIM_FILE_KIND ".anim.bin"

/* Header fields, as 32-bit words after the 8-byte magic. */
typedef struct anim_header {
    uint32_t version;
    uint32_t joint_count, clip_count, track_count;
    uint32_t string_bytes; /* names, before padding to 4 */
    uint32_t data_floats;
    uint32_t skeleton_offset, clips_offset, tracks_offset, strings_offset, data_offset;
    uint32_t file_bytes;
    uint32_t socket_count, sockets_offset; /* version 2 */
} anim_header;

/* Where each section starts for these counts (skeleton_offset ...
 * file_bytes filled in); false when the file would pass 4 GiB. */
static inline bool anim_layout(anim_header *h) {
    uint64_t at = ANIM_HEADER_BYTES;
    h->skeleton_offset = (uint32_t)at;
    at += ANIM_ROOT_BYTES + (uint64_t)h->joint_count * ANIM_JOINT_BYTES;
    h->clips_offset = (uint32_t)at;
    at += (uint64_t)h->clip_count * ANIM_CLIP_BYTES;
    h->tracks_offset = (uint32_t)at;
    at += (uint64_t)h->track_count * ANIM_TRACK_BYTES;
    h->sockets_offset = (uint32_t)at;
    at += (uint64_t)h->socket_count * ANIM_SOCKET_BYTES;
    h->strings_offset = (uint32_t)at;
    at += ((uint64_t)h->string_bytes + 3u) & ~(uint64_t)3u;
    h->data_offset = (uint32_t)at;
    at += (uint64_t)h->data_floats * 4u;
    h->file_bytes = (uint32_t)at;
    return at <= UINT32_MAX;
}

/* Fills the loaded bake's owned asset's clips (one per baked clip, in the
 * bake's order, through bake->allocator) and sockets from the file's bytes, after
 * checking every byte: magic, version, counts and section offsets against
 * the file size, the skeleton against the mesh's (names, parents, rest pose
 * and inverse binds bit for bit), the clips against the manifest's (names,
 * durations), each track's joint, channel, interpolation, key
 * range inside the data, its times finite, >= 0 and non-decreasing and its
 * values finite, each socket's name, joint (< J) and offset (finite), then
 * crowd_asset_validate. `path` names the file in errors. On failure the
 * asset's clips and sockets are released and it has none.
 * Errors: CROWD_ERROR_INVALID_DATA, CROWD_ERROR_UNSUPPORTED (another
 * version or encoding), CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__load_anim_read(const uint8_t *data, size_t size, const char *path,
                                   const crowd_bake *bake, crowd_asset *asset, crowd_error *error);

/* Releases the asset's clips and sockets (blocks of asset->allocator); it
 * has none after. */
void crowd__load_anim_release(crowd_asset *asset);

#endif
