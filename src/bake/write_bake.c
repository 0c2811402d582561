/* crowd_bake_write: every file of a bake folder as one all-or-nothing set
 * (atomic_set.h) that switches in one rename: data files under names of a
 * new generation, then the manifest naming them with their sizes and
 * checksums (bake_leftovers.h says why). The bake is checked before
 * anything touches the disk, and the manifest about to be written is read
 * back through the loader's own validation, so a folder this writes is one
 * the loader accepts. Once the set is in, the leftovers of older or
 * interrupted bakes of the same name are removed. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bake/atomic_set.h"
#include "bake/bake_anim.h"
#include "bake/bake_leftovers.h"
#include "bake/bake_lod.h"
#include "load/bake_internal.h"
#include "bake/exr_write.h"
#include "bake/glb_write.h"
#include "bake/manifest_write.h"
#include "bake/openvat_write.h"
#include "bake/png_write.h"
#include "core/core_internal.h"
#include "load/anim_io.h"

static bool has_texture(const crowd_texture *texture) {
    return texture->texels != NULL && texture->format != CROWD_TEXEL_NONE;
}

/* Texture dimensions the texel arrays must have for `items` texels a frame. */
static bool layout_matches(const crowd_texture *texture, uint32_t rows_per_frame, uint64_t items,
                           uint32_t frame_count) {
    return texture->width > 0 && rows_per_frame == (items + texture->width - 1) / texture->width &&
           (uint64_t)texture->height == (uint64_t)frame_count * rows_per_frame;
}

/* LOD arrays in range (the manifest read-back checks the numbers). */
static crowd_result check_lods(const crowd_bake *bake, const char *name, crowd_error *error) {
    const crowd_mesh *mesh = &bake->asset->mesh;
    const crowd_bake_lod *lod0 = &bake->lods[0];
    if (bake->lod_count < 1 || bake->lod_count > CROWD_BAKE_MAX_LODS ||
        lod0->index_count != mesh->index_count || lod0->vertex_count != mesh->vertex_count ||
        lod0->first_index != 0 || lod0->first_vertex != 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                               "lod_count is not 1 to %d or LOD 0 is not the whole mesh",
                               CROWD_BAKE_MAX_LODS);
    }
    if (bake->lod_count > 1 && (bake->lod_vertices == NULL || bake->lod_indices == NULL ||
                                bake->vertex_count >= BAKE_LOD_MAX_VERTICES)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                               "LODs without their arrays, or over %u vertices",
                               BAKE_LOD_MAX_VERTICES);
    }
    for (uint32_t k = 1; k < bake->lod_count; k++) {
        const crowd_bake_lod *lod = &bake->lods[k];
        if ((uint64_t)lod->first_vertex + lod->vertex_count > bake->lod_vertex_total ||
            (uint64_t)lod->first_index + lod->index_count > bake->lod_index_total) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                                   "LOD %u reaches beyond the LOD arrays", k);
        }
        for (uint32_t i = 0; i < lod->vertex_count; i++) {
            if (bake->lod_vertices[lod->first_vertex + i] >= bake->vertex_count) {
                return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                                       "LOD %u vertex %u names vertex %u of %u", k, i,
                                       bake->lod_vertices[lod->first_vertex + i],
                                       bake->vertex_count);
            }
        }
        for (uint32_t i = 0; i < lod->index_count; i++) {
            if (bake->lod_indices[lod->first_index + i] >= lod->vertex_count) {
                return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                                       "LOD %u index %u is %u, beyond its %u vertices", k, i,
                                       bake->lod_indices[lod->first_index + i], lod->vertex_count);
            }
        }
    }
    return CROWD_OK;
}

/* What writing needs to be safe: names, a valid asset for the mesh, texel
 * arrays as large as their stated sizes, LOD arrays in range. */
static crowd_result check_bake(const crowd_bake *bake, crowd_error *error) {
    const char *name = bake->name ? bake->name : "";
    if (bake->name == NULL || !crowd__manifest_valid_file_name(bake->name) ||
        strlen(bake->name) > MANIFEST_NAME_MAX - 32) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                               "the bake name is not usable as a file name");
    }
    const crowd_asset *asset = bake->asset;
    if (asset == NULL || asset->mesh.vertex_count != bake->vertex_count ||
        asset->skeleton.joint_count != bake->joint_count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                               "the bake's asset is missing or has other vertex or joint counts");
    }
    crowd_error invalid = {0};
    if (crowd_asset_validate(asset, &invalid) != CROWD_OK) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                               "the bake's asset is invalid: %s", invalid.reason);
    }
    bool vat = has_texture(&bake->vat_position), bat = has_texture(&bake->bat);
    if (!vat && !bat) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                               "the bake has no texture");
    }
    if (vat) {
        crowd_texel_format format = bake->vat_position.format;
        bool unorm = format == CROWD_TEXEL_RGBA16_UNORM;
        bool normal_ok = unorm ? !has_texture(&bake->vat_normal)
                               : has_texture(&bake->vat_normal) &&
                                     bake->vat_normal.format == format &&
                                     bake->vat_normal.width == bake->vat_position.width &&
                                     bake->vat_normal.height == bake->vat_position.height;
        if (!layout_matches(&bake->vat_position, bake->vat_rows_per_frame, bake->vertex_count,
                            bake->frame_count) ||
            !normal_ok || crowd__bake_texel_size_bytes(format) == 0) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                                   "the VAT textures do not match the vertex and frame counts");
        }
    }
    if (bat && (!layout_matches(&bake->bat, bake->bat_rows_per_frame,
                                3 * (uint64_t)bake->joint_count, bake->frame_count) ||
                bake->bat.format == CROWD_TEXEL_RGBA16_UNORM ||
                crowd__bake_texel_size_bytes(bake->bat.format) == 0)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                               "the BAT texture does not match the joint and frame counts");
    }
    if (has_texture(&bake->socket_tracks) &&
        (bake->socket_count != asset->socket_count ||
         bake->socket_tracks.format != CROWD_TEXEL_RGBA32F ||
         !layout_matches(&bake->socket_tracks, bake->socket_rows_per_frame,
                         3 * (uint64_t)bake->socket_count, bake->frame_count))) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name,
                               "the socket tracks do not match the socket and frame counts");
    }
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        if (bake->clips == NULL || bake->clips[i].name == NULL) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, name, "clip %u has no name",
                                   i);
        }
    }
    return check_lods(bake, name, error);
}

static crowd_result texture_range(const crowd_bake *bake, const crowd_texture *texture,
                                  const char *what, manifest_range *range, crowd_error *error) {
    if (!crowd__manifest_texture_range(texture, range)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->name,
                               "the %s texture holds values that are not finite", what);
    }
    return CROWD_OK;
}

/* The manifest text, proven loadable by the loader's own checks. */
static crowd_result build_manifest(const crowd_bake *bake, const manifest_info *info,
                                   const manifest_openvat *openvat, char **out_json,
                                   crowd_error *error) {
    crowd_result result = crowd__manifest_write(bake, info, openvat, out_json, error);
    if (result != CROWD_OK) {
        return result;
    }
    crowd_bake *check = calloc(1, sizeof *check);
    manifest_info parsed;
    crowd_error reason = {0};
    result = check ? crowd__manifest_read(*out_json, strlen(*out_json), info->files.manifest, check,
                                          &parsed, &reason)
                   : CROWD_ERROR_OUT_OF_MEMORY;
    crowd_bake_destroy(check);
    if (result != CROWD_OK) {
        cJSON_free(*out_json);
        *out_json = NULL;
        if (result == CROWD_ERROR_OUT_OF_MEMORY) {
            return crowd_error_set(error, result, bake->name, "out of memory");
        }
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->name,
                               "the bake is inconsistent: %s", reason.reason);
    }
    return CROWD_OK;
}

static void copy_row(void *user, uint32_t y, uint16_t *samples) {
    const crowd_texture *texture = user;
    memcpy(samples, (const uint16_t *)texture->texels + (size_t)y * texture->width * 4,
           (size_t)texture->width * 4 * sizeof *samples);
}

static crowd_result write_texture(atomic_set *set, const char *name, const crowd_texture *texture,
                                  crowd_error *error) {
    atomic_file *file = NULL;
    crowd_result result = crowd__atomic_set_add(set, name, &file, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (texture->format == CROWD_TEXEL_RGBA16_UNORM) {
        result = crowd__png_write_u16(file, texture->width, texture->height, 4, copy_row,
                                      (void *)texture, error);
    } else {
        result = crowd__exr_write_rgba(file, texture, error);
    }
    return result == CROWD_OK ? crowd__atomic_file_finish(file, error) : result;
}

static void add_check(manifest_info *info, const char *name, uint64_t size_bytes, uint32_t crc) {
    manifest_check *check = &info->checks[info->check_count++];
    snprintf(check->name, sizeof check->name, "%s", name);
    check->size_bytes = size_bytes;
    check->crc32 = crc;
}

/* The checks of the files the set wrote, as read back from the disk. */
static crowd_result measure_files(const atomic_set *set, manifest_info *info,
                                  const openvat_names *openvat, crowd_error *error) {
    const manifest_files *files = &info->files;
    const char *names[] = {files->vat_position,
                           files->vat_normal,
                           files->bat,
                           files->socket_tracks,
                           files->mesh,
                           files->anim,
                           openvat ? openvat->remap_info : "",
                           openvat ? openvat->texture : "",
                           openvat ? openvat->mesh : ""};
    info->check_count = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        uint64_t size = 0;
        uint32_t crc = 0;
        if (names[i][0] == '\0') {
            continue;
        }
        if (!crowd__atomic_set_measured(set, names[i], &size, &crc)) {
            return crowd_error_set(error, CROWD_ERROR_OUTPUT, names[i],
                                   "was not written before the manifest");
        }
        add_check(info, names[i], size, crc);
    }
    return CROWD_OK;
}

/* The runtime clips' bytes (NULL when the bake has none to write) with
 * their counts and error in info->anim and their name in info->files.anim.
 * A built bake measured them already; a loaded one carries the measurement
 * from its manifest; a bake made by hand is measured here. */
static crowd_result prepare_anim(const crowd_bake *bake, uint32_t generation, manifest_info *info,
                                 uint8_t **out_bytes, size_t *out_size, crowd_error *error) {
    *out_bytes = NULL;
    const crowd_clip **sources =
        calloc(bake->clip_count > 0 ? bake->clip_count : 1, sizeof *sources);
    if (sources == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, bake->name, "out of memory");
    }
    crowd_result result = CROWD_OK;
    if (crowd__bake_anim_sources(bake, sources)) {
        crowd_bake_anim measured = bake->anim;
        if (!measured.present) {
            result = crowd__bake_anim_measure(bake, 0, &measured, error);
        }
        if (result == CROWD_OK) {
            result =
                crowd__bake_anim_encode(bake, sources, out_bytes, out_size, &info->anim, error);
        }
        info->anim.error_max = measured.error_max;
        info->anim.error_max_rel = measured.error_max_rel;
        snprintf(info->files.anim, sizeof info->files.anim, "%s.%u%s", bake->name, generation,
                 ANIM_FILE_KIND);
    }
    free(sources);
    return result;
}

static crowd_result write_files(atomic_set *set, const crowd_bake *bake, manifest_info *info,
                                const uint8_t *anim, size_t anim_size, uint32_t generation,
                                bool openvat, crowd_error *error) {
    const manifest_files *files = &info->files;
    crowd_result result = CROWD_OK;
    if (files->anim[0] != '\0') {
        result = crowd__atomic_set_write(set, files->anim, anim, anim_size, error);
    }
    if (files->vat_position[0] != '\0') {
        result = write_texture(set, files->vat_position, &bake->vat_position, error);
    }
    if (result == CROWD_OK && files->vat_normal[0] != '\0') {
        result = write_texture(set, files->vat_normal, &bake->vat_normal, error);
    }
    if (result == CROWD_OK && files->bat[0] != '\0') {
        result = write_texture(set, files->bat, &bake->bat, error);
    }
    if (result == CROWD_OK && files->socket_tracks[0] != '\0') {
        result = write_texture(set, files->socket_tracks, &bake->socket_tracks, error);
    }
    if (result == CROWD_OK) {
        glb_write_desc desc = {
            .asset = bake->asset,
            .name = bake->name,
            .skin = true,
            .lod_count = bake->lod_count,
            .lods = bake->lods,
            .lod_vertices = bake->lod_vertices,
            .lod_indices = bake->lod_indices,
        };
        if (files->vat_position[0] != '\0') {
            desc.lookup = (glb_lookup){bake->vat_position.width, bake->vat_position.height, 1};
        }
        uint8_t *glb = NULL;
        size_t glb_size = 0;
        result = crowd__glb_write(&desc, &glb, &glb_size, error);
        if (result == CROWD_OK) {
            result = crowd__atomic_set_write(set, files->mesh, glb, glb_size, error);
        }
        free(glb);
    }
    openvat_names names;
    if (result == CROWD_OK && openvat) {
        result = crowd__openvat_write(set, bake, generation, &names, error);
    }
    if (result == CROWD_OK) {
        result = measure_files(set, info, openvat ? &names : NULL, error);
    }
    char *json = NULL;
    if (result == CROWD_OK) {
        manifest_openvat compat = {names.remap_info, names.texture, names.mesh};
        result = build_manifest(bake, info, openvat ? &compat : NULL, &json, error);
    }
    if (result == CROWD_OK) {
        result = crowd__atomic_set_write(set, files->manifest, json, strlen(json), error);
    }
    cJSON_free(json);
    return result;
}

/* A manifest this writes is far smaller; a larger file of that name is not
 * read, and nothing is removed on its word. */
#define STALE_MANIFEST_MAX_BYTES (64u << 20)

/* Files of a bake of the same name already in `dir` that this one does not
 * write (another encoding's textures, an OpenVAT set) are removed with the
 * set, so the folder never holds a stale half of an older bake. */
static crowd_result remove_stale(atomic_set *set, const char *dir, const manifest_files *files,
                                 crowd_error *error) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, files->manifest);
    uint8_t *text = NULL;
    size_t size = 0;
    crowd_error ignored;
    crowd_result read =
        crowd__core_file_read(path, STALE_MANIFEST_MAX_BYTES, &text, &size, &ignored);
    if (read == CROWD_ERROR_OUT_OF_MEMORY) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    if (read != CROWD_OK) {
        return CROWD_OK; /* no readable manifest: nothing known to be stale */
    }
    manifest_path paths[MANIFEST_MAX_FILES];
    uint32_t count = crowd__manifest_referenced_files((const char *)text, size, paths);
    free(text);
    crowd_result result = CROWD_OK;
    for (uint32_t i = 0; i < count && result == CROWD_OK; i++) {
        result = crowd__atomic_set_remove(set, paths[i], error);
    }
    return result;
}

crowd_result crowd_bake_write(const crowd_bake *bake, const char *dir,
                              const crowd_bake_write_desc *desc, crowd_error *error) {
    if (bake == NULL || dir == NULL || dir[0] == '\0') {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, dir ? dir : "",
                               "crowd_bake_write needs a bake and an output folder");
    }
    crowd_result result = check_bake(bake, error);
    manifest_info info;
    memset(&info, 0, sizeof info);
    uint32_t generation = 0;
    if (result == CROWD_OK) {
        result = crowd__bake_leftovers_next_generation(dir, bake->name, &generation, error);
    }
    if (result == CROWD_OK) {
        crowd__manifest_file_names(bake, generation, &info.files);
    }
    if (result == CROWD_OK && info.files.vat_position[0] != '\0') {
        result = texture_range(bake, &bake->vat_position, "VAT position", &info.vat_position_range,
                               error);
    }
    if (result == CROWD_OK && info.files.vat_normal[0] != '\0') {
        result =
            texture_range(bake, &bake->vat_normal, "VAT normal", &info.vat_normal_range, error);
    }
    if (result == CROWD_OK && info.files.bat[0] != '\0') {
        result = texture_range(bake, &bake->bat, "BAT", &info.bat_range, error);
    }
    if (result == CROWD_OK && info.files.socket_tracks[0] != '\0') {
        result = texture_range(bake, &bake->socket_tracks, "socket track",
                               &info.socket_tracks_range, error);
    }
    uint8_t *anim = NULL;
    size_t anim_size = 0;
    if (result == CROWD_OK) {
        result = prepare_anim(bake, generation, &info, &anim, &anim_size, error);
    }
    if (info.files.anim[0] == '\0') {
        /* The tracks follow the runtime clips' sockets: none without them. */
        info.files.socket_tracks[0] = '\0';
    }
    if (result != CROWD_OK) {
        free(anim);
        return result;
    }
    /* Check the manifest before creating any file or folder (the files'
     * checks stand in until they are written). */
    const char *named[] = {info.files.vat_position, info.files.vat_normal,
                           info.files.bat,          info.files.mesh,
                           info.files.anim,         info.files.socket_tracks};
    for (int i = 0; i < 6; i++) {
        if (named[i][0] != '\0') {
            add_check(&info, named[i], 0, 0);
        }
    }
    char *json = NULL;
    result = build_manifest(bake, &info, NULL, &json, error);
    cJSON_free(json);
    atomic_set *set = NULL;
    if (result == CROWD_OK) {
        result = crowd__atomic_set_begin(dir, &set, error);
    }
    if (result != CROWD_OK) {
        free(anim);
        return result;
    }
    bool openvat = desc != NULL && desc->openvat;
    result = write_files(set, bake, &info, anim, anim_size, generation, openvat, error);
    free(anim);
    if (result == CROWD_OK) {
        result = remove_stale(set, dir, &info.files, error);
    }
    if (result != CROWD_OK) {
        crowd__atomic_set_abort(set);
        return result;
    }
    result = crowd__atomic_set_commit(set, error);
    if (result != CROWD_OK) {
        return result;
    }
    uint32_t removed = crowd__bake_leftovers_remove(dir, bake->name, info.checks, info.check_count);
    if (desc != NULL) {
        crowd_log(&desc->logger, CROWD_LOG_INFO,
                  "wrote bake \"%s\" (generation %u) to %s%s; removed %u leftover files",
                  bake->name, generation, dir, openvat ? " (with the OpenVAT set)" : "", removed);
    }
    return CROWD_OK;
}
