/* manifest_io.h - NAME.crowd.json, the manifest of a bake folder
 * (docs/manifest.md is the schema, versions 1 to 4).
 *
 * The manifest names every other file of the folder and states everything a
 * player needs without opening them: counts, clips, texture layouts,
 * encodings, bounds and the range of the values stored in each texture.
 * Reading validates all of it against itself (frame totals, rows per frame,
 * clip stacking, file names that stay inside the folder); the loader then
 * checks the files against what the manifest says. Reading is the
 * runtime's (here); writing is the offline library's (bake/manifest_write.h).
 */
#ifndef CROWD_LOAD_MANIFEST_IO_H
#define CROWD_LOAD_MANIFEST_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "crowd/bake.h"

#define MANIFEST_FORMAT "crowd-bake"
#define MANIFEST_SUFFIX ".crowd.json"
#define MANIFEST_NAME_MAX 200
/* The subfolder of the OpenVAT set (bake/openvat_write.h). */
#define MANIFEST_OPENVAT_FOLDER "openvat"

/* Stored values of one texture, per channel r, g, b, a: unorm16 texels as
 * their integer codes, float texels as their (half-decoded) values. */
typedef struct manifest_range {
    float min[4], max[4];
} manifest_range;

/* Names of the files of a bake folder, relative to it. */
typedef struct manifest_files {
    char manifest[MANIFEST_NAME_MAX + 16];
    char vat_position[MANIFEST_NAME_MAX + 16]; /* "" without a VAT */
    char vat_normal[MANIFEST_NAME_MAX + 16];   /* "" unless f16/f32 */
    char bat[MANIFEST_NAME_MAX + 16];          /* "" without a BAT */
    char mesh[MANIFEST_NAME_MAX + 16];
    char anim[MANIFEST_NAME_MAX + 16];          /* "" without runtime clips (load/anim_io.h) */
    char socket_tracks[MANIFEST_NAME_MAX + 16]; /* "" without sockets */
} manifest_files;

/* True for a name the manifest may use: not empty, at most MANIFEST_NAME_MAX
 * bytes, no '/', '\\' or control characters, not starting with '.'. */
bool crowd__manifest_valid_file_name(const char *name);

/* Room for every file a manifest can name (crowd__manifest_referenced_files):
 * VAT position and normal, BAT, mesh, runtime clips, socket tracks, the
 * OpenVAT set's 3. */
#define MANIFEST_MAX_FILES 9
typedef char manifest_path[MANIFEST_NAME_MAX + 32];

/* Version 3's "files": each file of the set with its size and CRC-32, so a
 * file changed, cut short or taken from another bake is refused on load. */
typedef struct manifest_check {
    manifest_path name; /* a plain name, or "openvat/NAME" */
    uint64_t size_bytes;
    uint32_t crc32; /* zlib's crc32 of the whole file */
} manifest_check;

/* What the manifest says besides the crowd_bake fields. */
typedef struct manifest_info {
    uint32_t version; /* 1 to 4 */
    manifest_files files;
    /* Version 4's "anim" (present when it is not null): the runtime clips'
     * counts, size and measured error; the writer's input, the reader's
     * output (the loader sets bake->anim from it once the file is read). */
    crowd_bake_anim anim;
    manifest_range vat_position_range, vat_normal_range, bat_range, socket_tracks_range;
    manifest_check checks[MANIFEST_MAX_FILES]; /* version 3; every file it names */
    uint32_t check_count;                      /* 0 before version 3 */
} manifest_info;

/* The check of `name`, NULL when `info` has none for it. */
const manifest_check *crowd__manifest_find_check(const manifest_info *info, const char *name);

/* Parses and validates manifest text. Fills every crowd_bake field except
 * the texels, the asset and the LOD arrays (textures get width, height and
 * format; lods, lod_count and the LOD totals are set, and for version 1
 * lods[0].index_count is left 0 for the mesh to give); the
 * bake's strings and clips are blocks of bake->allocator per
 * bake_internal.h, also on failure, for crowd_bake_destroy. `file` names the manifest in errors and
 * gives the default bake name. Errors: CROWD_ERROR_INVALID_DATA,
 * CROWD_ERROR_UNSUPPORTED (unknown version, coordinate system or encoding),
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__manifest_read(const char *json, size_t size, const char *file, crowd_bake *bake,
                                  manifest_info *info, crowd_error *error);

/* manifest_blends.c: the manifest's optional "blends" into the bake (every
 * clip read before), each added by crowd_bake_add_blend so a loaded bake
 * holds to the rules a built one does. `root` is the parsed manifest (a
 * cJSON object). CROWD_ERROR_INVALID_DATA naming the member. */
crowd_result crowd__manifest_read_blends(const void *root, const char *file, crowd_bake *bake,
                                         crowd_error *error);

/* The files an existing manifest names besides itself, as paths relative to
 * its folder (plain names, or "openvat/NAME" for the OpenVAT set), so a bake
 * written over it can remove what it no longer has. Lenient: members that
 * are missing or not such a path are skipped. Returns how many (at most
 * MANIFEST_MAX_FILES). */
uint32_t crowd__manifest_referenced_files(const char *json, size_t size, manifest_path *paths);

#endif
