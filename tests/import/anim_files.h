/* anim_files.h - animation-only glTF files written by test_import_anim from
 * a character's GLB: its JSON (cJSON) with meshes, skins and materials
 * taken out, some of its animations kept, node names or rest rotations
 * changed, and its binary chunk as it is. */
#ifndef ANIM_FILES_H
#define ANIM_FILES_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct glb_file {
    cJSON *json;
    uint8_t *bin;
    size_t bin_size;
} glb_file;

bool crowd__glb_read(const char *path, glb_file *out);
bool crowd__glb_write(const char *path, const cJSON *json, const uint8_t *bin, size_t bin_size);
void glb_free(glb_file *file);

/* A copy of `file`'s JSON with no mesh, skin, material or image, and only
 * animations [first, first + count). */
cJSON *animation_only(const glb_file *file, int first, int count);

/* Every node name given `prefix` and upper case ("Hips" -> "mixamorig:HIPS"). */
void rename_nodes(cJSON *json, const char *prefix);

/* The node called `name`, or NULL. */
cJSON *find_node(cJSON *json, const char *name);

/* An asset's own clips taken away (import_anim.c). */
struct crowd_asset;
void drop_clips(struct crowd_asset *asset);

#endif
