/* The bake loader over a file source (load_bake.h) and crowd_bake_load, its
 * folder front end (crowd_bake_load_memory is load_memory.c). The manifest is validated first and
 * sizes every later check; each texture is decoded against the size, channels and depth the
 * manifest states and every texel is checked against the stated value range; the mesh is read by
 * the strict GLB reader, checked against the manifest's counts and the VAT lookup, and must pass
 * crowd_asset_validate; its LOD meshes must match the manifest's LODs.
 * From version 3 every file's size and CRC-32 are checked against the
 * manifest's before it is decoded, so a set mixed from two bakes or a file
 * changed on disk is refused, naming the file, rather than played. Version
 * 4's runtime clips are read last, into the asset the mesh made (they
 * must name its skeleton), so a loaded bake plays every mode. */
#define _XOPEN_SOURCE 700

#include "load/load_bake.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "load/anim_io.h"
#include "load/bake_internal.h"
#include "load/exr_read.h"
#include "load/glb_read.h"
#include "load/manifest_io.h"
#include "load/png_read.h"
#include "core/core_internal.h"

/* Longer paths are refused rather than cut (PATH_MAX on Linux). */
#define LOAD_PATH_MAX 4096

typedef struct load_blob {
    const uint8_t *data;
    size_t size;
    uint8_t *owned; /* a block of the bake's allocator when the source read the file */
} load_blob;

/* What errors call a file: "folder/name" on disk, the name in memory. */
static void display_path(const load_source *source, const char *name, char *out, size_t size) {
    if (source->folder != NULL) {
        snprintf(out, size, "%s/%s", source->folder, name);
    } else {
        snprintf(out, size, "%s", name);
    }
}

/* Reads `name` of the source; `path` receives what errors call it. */
static crowd_result read_file(const load_source *source, const crowd_allocator *allocator,
                              const char *name, char path[LOAD_PATH_MAX], load_blob *blob,
                              crowd_error *error) {
    display_path(source, name, path, LOAD_PATH_MAX);
    if (source->folder != NULL) {
        if (strlen(source->folder) + 1 + strlen(name) >= LOAD_PATH_MAX) {
            return crowd_error_set(error, CROWD_ERROR_IO, name, "path too long");
        }
        uint8_t *data = NULL;
        size_t size = 0;
        crowd_result result =
            crowd__core_file_read_with(allocator, path, SIZE_MAX, &data, &size, error);
        *blob = (load_blob){data, size, data};
        return result;
    }
    for (uint32_t i = 0; i < source->file_count; i++) {
        if (strcmp(source->files[i].name, name) == 0) {
            *blob = (load_blob){source->files[i].data, source->files[i].size_bytes, NULL};
            return CROWD_OK;
        }
    }
    return crowd_error_set(error, CROWD_ERROR_IO, path, "missing: not in the file set");
}

static uint32_t crc32_of(const uint8_t *data, size_t size) {
    uLong crc = crc32(0L, Z_NULL, 0);
    while (size > 0) {
        uInt chunk = size > (1u << 30) ? (1u << 30) : (uInt)size;
        crc = crc32(crc, data, chunk);
        data += chunk;
        size -= chunk;
    }
    return (uint32_t)crc;
}

/* The file's bytes are the ones the manifest was written with (version 3). */
static crowd_result check_file(const manifest_info *info, const char *name, const load_blob *blob,
                               const char *path, crowd_error *error) {
    const manifest_check *check = crowd__manifest_find_check(info, name);
    if (info->version < 3 || check == NULL) {
        return CROWD_OK; /* crowd__manifest_read makes version 3 list every file it uses */
    }
    if (blob->size != check->size_bytes) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path,
                               "file is %zu bytes, the manifest says %llu: not the file this "
                               "bake was written with (cut short, or from another bake)",
                               blob->size, (unsigned long long)check->size_bytes);
    }
    uint32_t crc = crc32_of(blob->data, blob->size);
    if (crc != check->crc32) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path,
                               "crc32 is %08x, the manifest says %08x: the file changed after "
                               "the bake wrote it (corrupted, or from another bake)",
                               crc, check->crc32);
    }
    return CROWD_OK;
}

/* Reads `name` and checks it against the manifest. */
static crowd_result read_checked(const load_source *source, const crowd_allocator *allocator,
                                 const manifest_info *info, const char *name,
                                 char path[LOAD_PATH_MAX], load_blob *blob, crowd_error *error) {
    crowd_result result = read_file(source, allocator, name, path, blob, error);
    if (result == CROWD_OK) {
        result = check_file(info, name, blob, path, error);
        if (result != CROWD_OK) {
            crowd__mem_free(allocator, blob->owned);
            blob->owned = NULL;
        }
    }
    return result;
}

/* Every stored value finite and inside the manifest's range for its channel. */
static crowd_result check_values(const crowd_texture *texture, const manifest_range *range,
                                 const char *path, crowd_error *error) {
    size_t count = (size_t)texture->width * texture->height;
    for (size_t i = 0; i < count; i++) {
        for (int c = 0; c < 4; c++) {
            float value = bake_texel_stored_value(texture, 4 * i + (size_t)c);
            if (!(value >= range->min[c] && value <= range->max[c])) {
                return crowd_error_set(
                    error, CROWD_ERROR_INVALID_DATA, path,
                    "texel (%zu, %zu) channel %d is %g, outside the manifest's range [%g, %g]",
                    i % texture->width, i / texture->width, c, (double)value, (double)range->min[c],
                    (double)range->max[c]);
            }
        }
    }
    return CROWD_OK;
}

static crowd_result load_texture(const load_source *source, const crowd_allocator *allocator,
                                 const manifest_info *info, const char *name,
                                 crowd_texture *texture, const manifest_range *range,
                                 crowd_error *error) {
    char path[LOAD_PATH_MAX];
    load_blob blob;
    crowd_result result = read_checked(source, allocator, info, name, path, &blob, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (texture->format == CROWD_TEXEL_RGBA16_UNORM) {
        uint16_t *samples = NULL;
        result = crowd__png_read_rgba16(blob.data, blob.size, path, texture->width, texture->height,
                                        allocator, &samples, error);
        texture->texels = samples;
    } else {
        result = crowd__exr_read_rgba(blob.data, blob.size, path, texture->width, texture->height,
                                      texture->format, allocator, &texture->texels, error);
    }
    crowd__mem_free(allocator, blob.owned);
    return result == CROWD_OK ? check_values(texture, range, path, error) : result;
}

/* The mesh must have the manifest's counts, and with a VAT each vertex's
 * TEXCOORD_1 must be its texel centre in frame 0 (glb_read.h), bit for bit. */
static crowd_result check_mesh(const crowd_bake *bake, const crowd_asset *asset, const float *uv1,
                               const char *path, crowd_error *error) {
    if (asset->mesh.vertex_count != bake->vertex_count ||
        asset->skeleton.joint_count != bake->joint_count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path,
                               "mesh has %u vertices and %u joints, the manifest says %u and %u",
                               asset->mesh.vertex_count, asset->skeleton.joint_count,
                               bake->vertex_count, bake->joint_count);
    }
    if (bake->vat_position.format == CROWD_TEXEL_NONE) {
        return CROWD_OK;
    }
    if (uv1 == NULL) {
        return crowd_error_set(
            error, CROWD_ERROR_INVALID_DATA, path,
            "mesh has no TEXCOORD_1, which a VAT bake needs to find each vertex's texel");
    }
    glb_lookup lookup = {bake->vat_position.width, bake->vat_position.height, 1};
    for (uint32_t v = 0; v < bake->vertex_count; v++) {
        float expected[2];
        crowd__glb_lookup_uv(&lookup, v, expected);
        if (uv1[2 * v] != expected[0] || uv1[2 * v + 1] != expected[1]) {
            return crowd_error_set(
                error, CROWD_ERROR_INVALID_DATA, path,
                "TEXCOORD_1 of vertex %u is (%.9g, %.9g), its VAT texel centre is (%.9g, %.9g)", v,
                (double)uv1[2 * v], (double)uv1[2 * v + 1], (double)expected[0],
                (double)expected[1]);
        }
    }
    return CROWD_OK;
}

/* LOD 0 is the mesh (version 1 only learns its index count here); every
 * LOD mesh has the manifest's counts and, with a VAT, each vertex's
 * TEXCOORD_1 is its LOD0 vertex's texel, bit for bit. The arrays move into
 * the bake. */
static crowd_result take_lods(crowd_bake *bake, const crowd_asset *asset, glb_lod_mesh *lods,
                              const char *path, crowd_error *error) {
    crowd_bake_lod *lod0 = &bake->lods[0];
    if (bake->lod_count == 1 && lod0->index_count == 0) {
        lod0->index_count = asset->mesh.index_count;
        lod0->triangle_count = asset->mesh.index_count / 3;
    }
    if (lod0->index_count != asset->mesh.index_count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path,
                               "mesh has %u indices, the manifest's lods[0] says %u",
                               asset->mesh.index_count, lod0->index_count);
    }
    if (bake->lod_count == 1) {
        return CROWD_OK;
    }
    glb_lookup lookup = {bake->vat_position.width, bake->vat_position.height, 1};
    for (uint32_t k = 1; k < bake->lod_count; k++) {
        const crowd_bake_lod *lod = &bake->lods[k];
        const glb_lod_mesh *mesh = &lods[k - 1];
        if (mesh->vertex_count != lod->vertex_count || mesh->index_count != lod->index_count) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path,
                                   "LOD mesh %u has %u vertices and %u indices, the manifest "
                                   "says %u and %u",
                                   k, mesh->vertex_count, mesh->index_count, lod->vertex_count,
                                   lod->index_count);
        }
        if (bake->vat_position.format == CROWD_TEXEL_NONE) {
            continue;
        }
        if (mesh->uv1 == NULL) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path,
                                   "LOD mesh %u has no TEXCOORD_1, which a VAT bake needs", k);
        }
        for (uint32_t i = 0; i < mesh->vertex_count; i++) {
            float expected[2];
            crowd__glb_lookup_uv(&lookup, mesh->source[i], expected);
            if (mesh->uv1[2 * i] != expected[0] || mesh->uv1[2 * i + 1] != expected[1]) {
                return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path,
                                       "TEXCOORD_1 of LOD %u vertex %u is not the texel centre "
                                       "of its LOD0 vertex %u",
                                       k, i, mesh->source[i]);
            }
        }
    }
    bake->lod_vertices =
        crowd__mem_alloc(&bake->allocator, (size_t)bake->lod_vertex_total * sizeof(uint32_t));
    bake->lod_indices =
        crowd__mem_alloc(&bake->allocator, (size_t)bake->lod_index_total * sizeof(uint32_t));
    if (bake->lod_vertices == NULL || bake->lod_indices == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    for (uint32_t k = 1; k < bake->lod_count; k++) {
        const crowd_bake_lod *lod = &bake->lods[k];
        memcpy(bake->lod_vertices + lod->first_vertex, lods[k - 1].source,
               (size_t)lod->vertex_count * sizeof *bake->lod_vertices);
        memcpy(bake->lod_indices + lod->first_index, lods[k - 1].indices,
               (size_t)lod->index_count * sizeof *bake->lod_indices);
    }
    return CROWD_OK;
}

static crowd_result load_mesh(const load_source *source, const manifest_info *info,
                              crowd_bake *bake, crowd_error *error) {
    const crowd_allocator *allocator = &bake->allocator;
    const char *name = info->files.mesh;
    char path[LOAD_PATH_MAX];
    load_blob blob;
    crowd_result result = read_checked(source, allocator, info, name, path, &blob, error);
    if (result != CROWD_OK) {
        return result;
    }
    crowd_asset *asset = crowd__core_asset_create_with(allocator);
    float *uv1 = NULL;
    glb_lod_mesh lods[CROWD_BAKE_MAX_LODS - 1];
    uint32_t lod_meshes = bake->lod_count - 1;
    result = asset
                 ? crowd__glb_read(blob.data, blob.size, path, asset, &uv1, lod_meshes, lods, error)
                 : crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    crowd__mem_free(allocator, blob.owned);
    if (result == CROWD_OK) {
        result = check_mesh(bake, asset, uv1, path, error);
    }
    if (result == CROWD_OK) {
        result = take_lods(bake, asset, lods, path, error);
    }
    if (asset != NULL) {
        crowd__glb_lod_meshes_free(allocator, lods, lod_meshes);
    }
    if (result == CROWD_OK &&
        ((asset->name = crowd__core_copy_string_with(allocator, bake->name)) == NULL ||
         (asset->source = crowd__core_copy_string_with(allocator, bake->source)) == NULL)) {
        result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    crowd_error invalid = {0};
    if (result == CROWD_OK && crowd_asset_validate(asset, &invalid) != CROWD_OK) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path, "mesh: %s", invalid.reason);
    }
    crowd__mem_free(allocator, uv1);
    if (result != CROWD_OK) {
        crowd_asset_destroy(asset);
        return result;
    }
    asset->source_mesh_count = 1;
    bake->owned_asset = asset;
    bake->asset = asset;
    return CROWD_OK;
}

/* The runtime clips into the mesh's asset; clip c of the bake then plays
 * the asset's clip c. */
static crowd_result load_anim(const load_source *source, const manifest_info *info,
                              crowd_bake *bake, crowd_error *error) {
    char path[LOAD_PATH_MAX];
    load_blob blob;
    crowd_result result =
        read_checked(source, &bake->allocator, info, info->files.anim, path, &blob, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (blob.size != info->anim.size_bytes) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path,
                                 "file is %zu bytes, the manifest's anim.size_bytes says %llu",
                                 blob.size, (unsigned long long)info->anim.size_bytes);
    } else {
        result = crowd__load_anim_read(blob.data, blob.size, path, bake, bake->owned_asset, error);
    }
    crowd__mem_free(&bake->allocator, blob.owned);
    if (result != CROWD_OK) {
        return result;
    }
    bake->anim = info->anim;
    bake->anim.present = true;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        bake->clips[c].source_clip = c;
    }
    return CROWD_OK;
}

/* The socket tracks, which follow the runtime clips' sockets one to one. */
static crowd_result load_socket_tracks(const load_source *source, const manifest_info *info,
                                       crowd_bake *bake, crowd_error *error) {
    const char *file = info->files.socket_tracks;
    uint32_t sockets = bake->owned_asset != NULL ? bake->owned_asset->socket_count : 0;
    if (!bake->anim.present || sockets != bake->socket_count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file,
                               "holds tracks of %u sockets, the runtime clips have %u",
                               bake->socket_count, sockets);
    }
    return load_texture(source, &bake->allocator, info, file, &bake->socket_tracks,
                        &info->socket_tracks_range, error);
}

crowd_result crowd__load_bake_from(const load_source *source, const char *manifest,
                                   const crowd_bake_load_desc *desc, crowd_bake **out_bake,
                                   crowd_error *error) {
    const crowd_bake_load_desc defaults = {0};
    desc = desc != NULL ? desc : &defaults;
    crowd_bake *bake = crowd__mem_alloc_zeroed(&desc->allocator, 1, sizeof *bake);
    if (bake == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, manifest, "out of memory");
    }
    bake->allocator = desc->allocator;
    const crowd_allocator *allocator = &bake->allocator;
    char path[LOAD_PATH_MAX];
    load_blob blob;
    manifest_info info;
    crowd_result result = read_file(source, allocator, manifest, path, &blob, error);
    if (result == CROWD_OK) {
        result = crowd__manifest_read((const char *)blob.data, blob.size, path, bake, &info, error);
        crowd__mem_free(allocator, blob.owned);
    }
    if (result == CROWD_OK && info.files.vat_position[0] != '\0') {
        result = load_texture(source, allocator, &info, info.files.vat_position,
                              &bake->vat_position, &info.vat_position_range, error);
    }
    if (result == CROWD_OK && info.files.vat_normal[0] != '\0') {
        result = load_texture(source, allocator, &info, info.files.vat_normal, &bake->vat_normal,
                              &info.vat_normal_range, error);
    }
    if (result == CROWD_OK && info.files.bat[0] != '\0') {
        result = load_texture(source, allocator, &info, info.files.bat, &bake->bat, &info.bat_range,
                              error);
    }
    if (result == CROWD_OK) {
        result = load_mesh(source, &info, bake, error);
    }
    if (result == CROWD_OK && info.files.anim[0] != '\0') {
        result = load_anim(source, &info, bake, error);
    }
    if (result == CROWD_OK && info.files.socket_tracks[0] != '\0') {
        result = load_socket_tracks(source, &info, bake, error);
    }
    if (result != CROWD_OK) {
        crowd_bake_destroy(bake);
        return result;
    }
    crowd_log(&desc->logger, CROWD_LOG_INFO,
              "loaded bake \"%s\": %u vertices, %u joints, %u clips, %u frames%s", bake->name,
              bake->vertex_count, bake->joint_count, bake->clip_count, bake->frame_count,
              bake->anim.present ? ", runtime clips" : "");
    *out_bake = bake;
    return CROWD_OK;
}

bool crowd__load_is_manifest_name(const char *name) {
    size_t length = strlen(name), suffix = strlen(MANIFEST_SUFFIX);
    return length > suffix && name[0] != '.' &&
           strcmp(name + length - suffix, MANIFEST_SUFFIX) == 0;
}

crowd_result crowd__load_check_desc(const crowd_bake_load_desc *desc, const char *file,
                                    crowd_error *error) {
    if (desc != NULL && (desc->allocator.alloc_fn == NULL) != (desc->allocator.free_fn == NULL)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, file,
                               "crowd_bake_load_desc.allocator has %s but no %s: set both or "
                               "neither",
                               desc->allocator.alloc_fn ? "alloc_fn" : "free_fn",
                               desc->allocator.alloc_fn ? "free_fn" : "alloc_fn");
    }
    return CROWD_OK;
}

/* The one manifest in `folder`, into out (a file name). */
static crowd_result find_manifest(const char *folder, char *out, size_t size, crowd_error *error) {
    DIR *dir = opendir(folder);
    if (dir == NULL) {
        return crowd__core_system_error(error, CROWD_ERROR_IO, folder, "cannot open folder", errno);
    }
    unsigned found = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (crowd__load_is_manifest_name(entry->d_name)) {
            if (found++ == 0) {
                snprintf(out, size, "%s", entry->d_name);
            }
        }
    }
    closedir(dir);
    if (found == 0) {
        return crowd_error_set(error, CROWD_ERROR_IO, folder, "no bake here: no *%s manifest",
                               MANIFEST_SUFFIX);
    }
    if (found > 1) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, folder,
                               "%u bakes in this folder; give the path of one .crowd.json", found);
    }
    return CROWD_OK;
}

crowd_result crowd_bake_load(const char *path, const crowd_bake_load_desc *desc,
                             crowd_bake **out_bake, crowd_error *error) {
    if (out_bake != NULL) {
        *out_bake = NULL;
    }
    if (path == NULL || out_bake == NULL || path[0] == '\0') {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, path ? path : "",
                               "crowd_bake_load needs a path and an output pointer");
    }
    crowd_result result = crowd__load_check_desc(desc, path, error);
    if (result != CROWD_OK) {
        return result;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        return crowd__core_system_error(error, CROWD_ERROR_IO, path, "cannot open", errno);
    }
    char folder[LOAD_PATH_MAX], manifest[MANIFEST_NAME_MAX + 64];
    if (strlen(path) >= sizeof folder) {
        return crowd_error_set(error, CROWD_ERROR_IO, path, "path too long");
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(folder, sizeof folder, "%s", path);
        result = find_manifest(folder, manifest, sizeof manifest, error);
        if (result != CROWD_OK) {
            return result;
        }
    } else {
        const char *slash = strrchr(path, '/');
        if (slash == NULL) {
            snprintf(folder, sizeof folder, ".");
        } else {
            snprintf(folder, sizeof folder, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        }
        snprintf(manifest, sizeof manifest, "%s", slash ? slash + 1 : path);
    }
    load_source source = {.folder = folder};
    return crowd__load_bake_from(&source, manifest, desc, out_bake, error);
}
