/* fuzz_bake_load.c - libFuzzer target for the bake-folder loader
 * (crowd_bake_load_memory, the loader behind crowd_bake_load), without the
 * disk.
 *
 * An input is a whole bake folder packed as records: one byte choosing the
 * file (manifest, PNG or EXR VAT, VAT normals, BAT, mesh, under the names of
 * bakes before version 3 or of generation 1, the runtime clips of
 * version 4 and their socket tracks), a little-endian
 * uint32 length (clamped to what is left), then that many bytes. A later
 * record for the same file replaces the earlier one. The seeds
 * (fuzz/corpus/bake_load) are real bakes written by crowd_bake_write in
 * every encoding (anim_v4: runtime clips of version 1, anim_sockets:
 * version 2 with greenman's three sockets, events_v4: anim_v4 with events
 * in its manifest, gameplay_v4: greenman with events, root motion taken
 * out, a blend and the socket tracks), packed this way, so mutations reach every reader with
 * the other files intact. Anything may fail; nothing may crash, leak or be
 * reported by the sanitizers, and a bake that loads must be self-consistent.
 * The load runs on a checking allocator: every block it takes, kept or
 * transient, must come back to it (after destroy, or at once on failure),
 * and a block of it passed to free(), or a malloc'ed one passed back to it,
 * aborts.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "crowd/bake.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Kinds 0-5 are those of the first seeds (versions 1 and 2); later kinds
 * are appended, so an old seed still packs the same files. */
static const char *const names[] = {
    "bake.crowd.json",   "bake.vat.png",    "bake.vat.exr",    "bake.vat_normal.exr",
    "bake.bat.exr",      "bake.mesh.glb",   "bake.1.vat.png",  "bake.1.vat.exr",
    "bake.1.bat.exr",    "bake.1.mesh.glb", "bake.1.anim.bin", "bake.1.vat_normal.exr",
    "bake.1.sockets.exr"};
#define FILE_KINDS (sizeof names / sizeof names[0])

/* What a loaded bake promises its users (crowd/bake.h). */
static void check_loaded(const crowd_bake *bake) {
    crowd_error error;
    if (bake->asset == NULL || crowd_asset_validate(bake->asset, &error) != CROWD_OK ||
        bake->asset->mesh.vertex_count != bake->vertex_count ||
        bake->asset->skeleton.joint_count != bake->joint_count) {
        abort();
    }
    uint64_t frames = 0;
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        frames += bake->clips[i].frame_count;
    }
    if (frames != bake->frame_count) {
        abort();
    }
    if (bake->vat_position.texels != NULL) {
        float position[3], normal[3];
        crowd_bake_vat_fetch(bake, bake->frame_count - 1, bake->vertex_count - 1, position, normal);
    }
    if (bake->bat.texels != NULL) {
        float matrix[12];
        crowd_bake_bat_fetch(bake, bake->frame_count - 1, bake->joint_count - 1, matrix);
    }
    /* LODs: LOD 0 the mesh, the others inside their ranges, fewer triangles each */
    if (bake->lod_count < 1 || bake->lod_count > CROWD_BAKE_MAX_LODS ||
        bake->lods[0].index_count != bake->asset->mesh.index_count) {
        abort();
    }
    for (uint32_t k = 1; k < bake->lod_count; k++) {
        const crowd_bake_lod *lod = &bake->lods[k];
        if (lod->triangle_count >= bake->lods[k - 1].triangle_count ||
            (uint64_t)lod->first_vertex + lod->vertex_count > bake->lod_vertex_total ||
            (uint64_t)lod->first_index + lod->index_count > bake->lod_index_total) {
            abort();
        }
        for (uint32_t i = 0; i < lod->vertex_count; i++) {
            if (bake->lod_vertices[lod->first_vertex + i] >= bake->vertex_count) {
                abort();
            }
        }
        for (uint32_t i = 0; i < lod->index_count; i++) {
            if (bake->lod_indices[lod->first_index + i] >= lod->vertex_count) {
                abort();
            }
        }
    }
    /* Sockets come with the runtime clips alone (crowd_asset_validate above
     * held their joints and offsets). */
    if (!bake->anim.present && bake->asset->socket_count != 0) {
        abort();
    }
    /* Socket tracks: one track per socket of the runtime clips. */
    if (bake->socket_tracks.texels != NULL &&
        (!bake->anim.present || bake->socket_count != bake->asset->socket_count)) {
        abort();
    }
    /* Runtime clips: one per baked clip, each sampled without complaint. */
    if (bake->anim.present) {
        const crowd_asset *asset = bake->asset;
        crowd_transform *pose = malloc(asset->skeleton.joint_count * sizeof *pose);
        if (asset->clip_count != bake->clip_count || pose == NULL) {
            abort();
        }
        for (uint32_t c = 0; c < asset->clip_count; c++) {
            const crowd_clip *clip = &asset->clips[c];
            if (bake->clips[c].source_clip != c ||
                !crowd_anim_sample(&asset->skeleton, clip, 0.37f * clip->duration_s, NULL, pose) ||
                !isfinite(pose[asset->skeleton.joint_count - 1].rotation[3])) {
                abort();
            }
        }
        free(pose);
    }
    /* Events: sorted by clip and time, inside their clips, named. */
    for (uint32_t i = 0; i < bake->event_count; i++) {
        const crowd_bake_event *e = &bake->events[i];
        const crowd_bake_event *before = i > 0 ? &bake->events[i - 1] : NULL;
        if (e->clip >= bake->clip_count || e->name == NULL || e->name[0] == '\0' ||
            !(e->time_s >= 0.0f && e->time_s <= bake->clips[e->clip].duration_s) ||
            (before != NULL &&
             (before->clip > e->clip || (before->clip == e->clip && before->time_s > e->time_s)))) {
            abort();
        }
    }
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        const crowd_bake_clip *clip = &bake->clips[i];
        if (!(clip->sphere_radius >= 0.0f) || !isfinite(clip->sphere_radius)) {
            abort();
        }
        for (int a = 0; a < 3; a++) {
            if (!(clip->bounds_min[a] <= clip->bounds_max[a]) ||
                !isfinite(clip->sphere_center[a])) {
                abort();
            }
        }
    }
}

/* Blocks carry a header with a mark, so a block that did not come from here
 * is caught when it is returned, and one of ours handed to free() is not a
 * pointer malloc gave (AddressSanitizer reports it). */
#define HEAP_MARK 0x63726f77646d656dull
typedef struct heap_header {
    uint64_t mark;
    uint64_t pad; /* keeps the payload 16-byte aligned, as malloc's */
} heap_header;

static void *heap_alloc(size_t size, void *user) {
    heap_header *header = malloc(sizeof *header + size);
    if (header == NULL) {
        return NULL;
    }
    header->mark = HEAP_MARK;
    (*(long *)user)++;
    return header + 1;
}

static void heap_free(void *pointer, void *user) {
    if (pointer == NULL) {
        return;
    }
    heap_header *header = (heap_header *)pointer - 1;
    if (header->mark != HEAP_MARK) {
        abort();
    }
    header->mark = 0;
    (*(long *)user)--;
    free(header);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    crowd_bake_file files[FILE_KINDS] = {{0}};
    while (size >= 5) {
        size_t kind = data[0] % FILE_KINDS;
        size_t length =
            (size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16 | (size_t)data[4] << 24;
        data += 5;
        size -= 5;
        length = length < size ? length : size;
        files[kind] = (crowd_bake_file){names[kind], data, length};
        data += length;
        size -= length;
    }
    crowd_bake_file present[FILE_KINDS];
    uint32_t count = 0;
    for (size_t i = 0; i < FILE_KINDS; i++) {
        if (files[i].name != NULL) {
            present[count++] = files[i];
        }
    }
    long live = 0;
    crowd_bake_load_desc desc = {.allocator = {heap_alloc, heap_free, &live}};
    crowd_bake *bake = NULL;
    crowd_error error;
    if (crowd_bake_load_memory(present, count, &desc, &bake, &error) == CROWD_OK) {
        check_loaded(bake);
        crowd_bake_destroy(bake);
    }
    if (live != 0) {
        abort();
    }
    return 0;
}
