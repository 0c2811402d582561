/* web_load_check DIR... - a digest of each bake folder as crowd_runtime's
 * core, anim, skin and load modules see it, one text line per fact.
 *
 * Built twice from this one file: natively, and for WebAssembly (make web,
 * run under node with the host's files). test_web_load compares the two
 * outputs byte for byte, so every number here is printed exactly (floats
 * with 9 significant digits, which name one float; arrays as FNV-1a hashes
 * of their bytes): any difference in decoding (libpng, OpenEXR's core,
 * cJSON, the texel decoders of bake_fetch.c), in the clip-time rule or in
 * skinning shows.
 *
 * What is digested: the manifest's counts, clips and bounds; each texture's
 * size, format and stored texels; the mesh and LOD arrays; for the first,
 * middle and last frame of every clip the decoded VAT positions and normals
 * (crowd_bake_vat_fetch) of every vertex and the decoded BAT matrices
 * (crowd_bake_bat_fetch) of every joint; the clip-time rule at a few
 * times; and the mesh skinned on the CPU with the scalar path (what wasm
 * runs; natively forced so both sides do the same operations) from the
 * rest pose through anim's local-to-model and skin matrices, and from the
 * BAT matrices of each clip's middle frame.
 *
 * Exit: 0, 1 usage or out of memory, 2 a bake that does not load. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/skin.h"

typedef struct digest {
    uint64_t state;
} digest;

static digest digest_start(void) {
    return (digest){14695981039346656037ull};
}

static void digest_add(digest *d, const void *data, size_t size_bytes) {
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size_bytes; i++) {
        d->state = (d->state ^ bytes[i]) * 1099511628211ull;
    }
}

static uint64_t digest_of(const void *data, size_t size_bytes) {
    digest d = digest_start();
    if (data != NULL) {
        digest_add(&d, data, size_bytes);
    }
    return d.state;
}

static size_t texel_size_bytes(crowd_texel_format format) {
    switch (format) {
    case CROWD_TEXEL_RGBA32F:
        return 16;
    case CROWD_TEXEL_RGBA16F:
    case CROWD_TEXEL_RGBA16_UNORM:
        return 8;
    default:
        return 0;
    }
}

static void print_texture(const char *label, const crowd_texture *texture) {
    size_t size = (size_t)texture->width * texture->height * texel_size_bytes(texture->format);
    printf("texture %s %" PRIu32 "x%" PRIu32 " format %d texels %016" PRIx64 "\n", label,
           texture->width, texture->height, (int)texture->format, digest_of(texture->texels, size));
}

static void print_mesh(const crowd_bake *bake) {
    const crowd_mesh *mesh = &bake->asset->mesh;
    size_t v = mesh->vertex_count;
    printf("mesh vertices %" PRIu32 " indices %" PRIu32 " submeshes %" PRIu32 "\n",
           mesh->vertex_count, mesh->index_count, mesh->submesh_count);
    printf("mesh positions %016" PRIx64 " normals %016" PRIx64 " uv0 %016" PRIx64 "\n",
           digest_of(mesh->positions, 12 * v), digest_of(mesh->normals, 12 * v),
           digest_of(mesh->uv0, 8 * v));
    printf("mesh joints %016" PRIx64 " weights %016" PRIx64 " indices %016" PRIx64
           " submeshes %016" PRIx64 "\n",
           digest_of(mesh->joints, 8 * v), digest_of(mesh->weights, 16 * v),
           digest_of(mesh->indices, 4 * (size_t)mesh->index_count),
           digest_of(mesh->submeshes, sizeof(crowd_submesh) * mesh->submesh_count));
    for (uint32_t k = 0; k < bake->lod_count; k++) {
        const crowd_bake_lod *lod = &bake->lods[k];
        printf("lod %" PRIu32 " indices %" PRIu32 "+%" PRIu32 " vertices %" PRIu32 "+%" PRIu32
               " error %.9g\n",
               k, lod->first_index, lod->index_count, lod->first_vertex, lod->vertex_count,
               (double)lod->error);
    }
    printf("lod arrays vertices %016" PRIx64 " indices %016" PRIx64 "\n",
           digest_of(bake->lod_vertices, 4 * (size_t)bake->lod_vertex_total),
           digest_of(bake->lod_indices, 4 * (size_t)bake->lod_index_total));
}

/* Decoded VAT and BAT of one global frame, every vertex and joint. */
static void print_frame(const crowd_bake *bake, uint32_t frame) {
    printf("frame %" PRIu32, frame);
    if (bake->vat_position.format != CROWD_TEXEL_NONE) {
        digest d = digest_start();
        for (uint32_t v = 0; v < bake->vertex_count; v++) {
            float position[3], normal[3];
            crowd_bake_vat_fetch(bake, frame, v, position, normal);
            digest_add(&d, position, sizeof position);
            digest_add(&d, normal, sizeof normal);
        }
        float position[3], normal[3];
        crowd_bake_vat_fetch(bake, frame, 0, position, normal);
        printf(" vat %016" PRIx64 " v0 (%.9g %.9g %.9g)", d.state, (double)position[0],
               (double)position[1], (double)position[2]);
    }
    if (bake->bat.format != CROWD_TEXEL_NONE) {
        digest d = digest_start();
        for (uint32_t j = 0; j < bake->joint_count; j++) {
            float matrix[12];
            crowd_bake_bat_fetch(bake, frame, j, matrix);
            digest_add(&d, matrix, sizeof matrix);
        }
        printf(" bat %016" PRIx64, d.state);
    }
    printf("\n");
}

/* The clip-time rule and frame pairs at times around the clip's ends. */
static void print_clip_times(const crowd_bake_clip *clip) {
    crowd_clip_frames frames = crowd_bake_clip_frames(clip);
    const float factors[] = {0.0f, 0.37f, 1.0f, 1.5f, -0.25f};
    for (size_t i = 0; i < sizeof factors / sizeof factors[0]; i++) {
        float t = crowd_anim_play_time(factors[i] * clip->duration_s, 0.0f, 0.0f, 1.0f,
                                       clip->duration_s, clip->loop);
        crowd_frame_pair pair = crowd_anim_frame_pair(&frames, t);
        printf("  time %.9g -> %.9g frames %" PRIu32 " %" PRIu32 " weight %.9g\n",
               (double)(factors[i] * clip->duration_s), (double)t, pair.frame0, pair.frame1,
               (double)pair.weight);
    }
}

static void print_clips(const crowd_bake *bake) {
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        printf("clip %s first %" PRIu32 " frames %" PRIu32
               " fps %.9g duration %.9g loop %d layout %d\n",
               clip->name, clip->first_frame, clip->frame_count, (double)clip->fps,
               (double)clip->duration_s, clip->loop ? 1 : 0, (int)clip->layout);
        printf("  bounds %.9g %.9g %.9g .. %.9g %.9g %.9g sphere %.9g %.9g %.9g r %.9g\n",
               (double)clip->bounds_min[0], (double)clip->bounds_min[1],
               (double)clip->bounds_min[2], (double)clip->bounds_max[0],
               (double)clip->bounds_max[1], (double)clip->bounds_max[2],
               (double)clip->sphere_center[0], (double)clip->sphere_center[1],
               (double)clip->sphere_center[2], (double)clip->sphere_radius);
        print_clip_times(clip);
        uint32_t last = clip->first_frame + clip->frame_count - 1;
        print_frame(bake, clip->first_frame);
        print_frame(bake, clip->first_frame + clip->frame_count / 2);
        print_frame(bake, last);
    }
}

/* Skins the mesh with the scalar path and prints the outputs' digests. */
static int print_skinned(const char *label, const crowd_skin_prepared *prepared,
                         const float *skin_matrices, float *positions, float *normals) {
    crowd_result result =
        crowd_skin_apply_path(prepared, CROWD_SKIN_PATH_SCALAR, skin_matrices, positions, normals);
    if (result != CROWD_OK) {
        fprintf(stderr, "web_load_check: scalar skinning: %s\n", crowd_result_str(result));
        return 1;
    }
    size_t size = 12 * (size_t)crowd_skin_prepared_vertex_count(prepared);
    printf("skin %s positions %016" PRIx64 " normals %016" PRIx64 "\n", label,
           digest_of(positions, size), digest_of(normals, size));
    return 0;
}

/* The rest pose through anim (local-to-model, skin matrices) and skin, then
 * every clip's middle frame from the BAT. */
static int print_skinning(const crowd_bake *bake) {
    const crowd_skeleton *skeleton = &bake->asset->skeleton;
    uint32_t joints = skeleton->joint_count, vertices = bake->asset->mesh.vertex_count;
    crowd_transform *locals = malloc(sizeof *locals * joints);
    float *models = malloc(sizeof(float) * 16 * joints);
    float *skin = malloc(sizeof(float) * 12 * joints);
    float *positions = malloc(sizeof(float) * 3 * vertices);
    float *normals = malloc(sizeof(float) * 3 * vertices);
    crowd_skin_prepared *prepared = NULL;
    crowd_error error = {0};
    int status = 1;
    if (!locals || !models || !skin || !positions || !normals) {
        fprintf(stderr, "web_load_check: out of memory\n");
        goto done;
    }
    if (crowd_skin_prepared_create(&bake->asset->mesh, &prepared, &error) != CROWD_OK) {
        fprintf(stderr, "web_load_check: %s\n", error.reason);
        goto done;
    }
    printf("skeleton parents %016" PRIx64 " translation %016" PRIx64 " rotation %016" PRIx64
           " scale %016" PRIx64 " inverse bind %016" PRIx64 "\n",
           digest_of(skeleton->parents, 4 * (size_t)joints),
           digest_of(skeleton->rest_translation, 12 * (size_t)joints),
           digest_of(skeleton->rest_rotation, 16 * (size_t)joints),
           digest_of(skeleton->rest_scale, 12 * (size_t)joints),
           digest_of(skeleton->inverse_bind, 64 * (size_t)joints));
    /* wasm has no SSE2 or AVX2 path: AUTO must resolve to scalar there. */
    printf("skin path %s sse2 %d avx2 %d\n", crowd_skin_path_name(crowd_skin_path_best()),
           crowd_skin_path_supported(CROWD_SKIN_PATH_SSE2) ? 1 : 0,
           crowd_skin_path_supported(CROWD_SKIN_PATH_AVX2) ? 1 : 0);
    crowd_anim_rest_pose(skeleton, locals);
    crowd_anim_local_to_model(skeleton, locals, models);
    printf("rest models %016" PRIx64 "\n", digest_of(models, sizeof(float) * 16 * joints));
    crowd_anim_skin_matrices(skeleton, models, NULL, skin);
    printf("rest skin matrices %016" PRIx64 "\n", digest_of(skin, sizeof(float) * 12 * joints));
    if (print_skinned("rest", prepared, skin, positions, normals) != 0) {
        goto done;
    }
    for (uint32_t c = 0; c < bake->clip_count && bake->bat.format != CROWD_TEXEL_NONE; c++) {
        uint32_t frame = bake->clips[c].first_frame + bake->clips[c].frame_count / 2;
        for (uint32_t j = 0; j < joints; j++) {
            crowd_bake_bat_fetch(bake, frame, j, skin + 12 * j);
        }
        if (print_skinned(bake->clips[c].name, prepared, skin, positions, normals) != 0) {
            goto done;
        }
    }
    status = 0;
done:
    crowd_skin_prepared_destroy(prepared);
    free(locals);
    free(models);
    free(skin);
    free(positions);
    free(normals);
    return status;
}

static int print_bake(const char *path) {
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    if (crowd_bake_load(path, NULL, &bake, &error) != CROWD_OK) {
        fprintf(stderr, "web_load_check: error: %s: %s\n", error.file, error.reason);
        return 2;
    }
    printf("bake %s vertices %" PRIu32 " joints %" PRIu32 " clips %" PRIu32 " frames %" PRIu32
           " lods %" PRIu32 "\n",
           bake->name, bake->vertex_count, bake->joint_count, bake->clip_count, bake->frame_count,
           bake->lod_count);
    printf("bounds %.9g %.9g %.9g .. %.9g %.9g %.9g\n", (double)bake->bounds_min[0],
           (double)bake->bounds_min[1], (double)bake->bounds_min[2], (double)bake->bounds_max[0],
           (double)bake->bounds_max[1], (double)bake->bounds_max[2]);
    printf("vat encoding %d rows %" PRIu32 " bat encoding %d rows %" PRIu32 "\n",
           (int)bake->vat_encoding, bake->vat_rows_per_frame, (int)bake->bat_encoding,
           bake->bat_rows_per_frame);
    print_texture("vat_position", &bake->vat_position);
    print_texture("vat_normal", &bake->vat_normal);
    print_texture("bat", &bake->bat);
    print_mesh(bake);
    print_clips(bake);
    int status = print_skinning(bake);
    crowd_bake_destroy(bake);
    return status;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: web_load_check BAKE_DIR...\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        int status = print_bake(argv[i]);
        if (status != 0) {
            return status;
        }
    }
    return 0;
}
