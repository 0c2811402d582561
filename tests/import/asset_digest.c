/* asset_digest - prints everything an import gives, one file after another,
 * so two builds of the importer can be compared number by number
 * (tests/import/asset_digest_compare.py). Not a test: a tool of the test
 * tree for refactors of src/import.
 *
 * Usage: asset_digest [--in-process] FILE...
 * Per file: the result (or the error), names and parents of the joints,
 * rest TRS, inverse binds, the root transform, mesh counts, every bind
 * position, normal, uv, joint and weight, submeshes, materials (factors and
 * texture sizes), clips (name, duration, loop, every track's keys), sockets,
 * unit scale and every repair count. Numbers are printed with %.9g so the
 * comparison can apply its own tolerance. */
#include <stdio.h>
#include <string.h>

#include "crowd/import.h"

static void print_floats(const char *label, const float *values, uint32_t count) {
    printf("%s", label);
    for (uint32_t i = 0; i < count; ++i) {
        printf(" %.9g", values ? (double)values[i] : 0.0);
    }
    printf("\n");
}

static void print_track(const char *label, const crowd_track *track, uint32_t components) {
    uint32_t per_key = components * (track->interpolation == CROWD_INTERP_CUBIC ? 3u : 1u);
    printf("    %s keys %u interp %d\n", label, track->key_count, (int)track->interpolation);
    if (track->key_count > 0) {
        print_floats("     t", track->times_s, track->key_count);
        print_floats("     v", track->values, track->key_count * per_key);
    }
}

static void print_skeleton(const crowd_skeleton *skeleton) {
    printf("joints %u\n", skeleton->joint_count);
    for (uint32_t j = 0; j < skeleton->joint_count; ++j) {
        printf("joint %u %s parent %d\n", j, skeleton->names[j], skeleton->parents[j]);
        print_floats("  t", skeleton->rest_translation + 3 * j, 3);
        print_floats("  r", skeleton->rest_rotation + 4 * j, 4);
        print_floats("  s", skeleton->rest_scale + 3 * j, 3);
        print_floats("  ib", skeleton->inverse_bind + 16 * j, 16);
    }
    print_floats("root", skeleton->root_transform, 16);
}

static void print_mesh(const crowd_mesh *mesh) {
    printf("vertices %u indices %u submeshes %u tangents %d\n", mesh->vertex_count,
           mesh->index_count, mesh->submesh_count, mesh->tangents != NULL);
    for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
        printf("v %u", v);
        print_floats(" p", mesh->positions + 3 * v, 3);
        print_floats("  n", mesh->normals + 3 * v, 3);
        print_floats("  uv", mesh->uv0 + 2 * v, 2);
        printf("  j %u %u %u %u\n", mesh->joints[4 * v], mesh->joints[4 * v + 1],
               mesh->joints[4 * v + 2], mesh->joints[4 * v + 3]);
        print_floats("  w", mesh->weights + 4 * v, 4);
    }
    printf("indices");
    for (uint32_t i = 0; i < mesh->index_count; ++i) {
        printf(" %u", mesh->indices[i]);
    }
    printf("\n");
    for (uint32_t s = 0; s < mesh->submesh_count; ++s) {
        printf("submesh %u first %u count %u material %u\n", s, mesh->submeshes[s].first_index,
               mesh->submeshes[s].index_count, mesh->submeshes[s].material);
    }
}

static void print_image(const char *label, const crowd_image *image) {
    printf("  %s %ux%u\n", label, image->width, image->height);
}

static void print_materials(const crowd_asset *asset) {
    printf("materials %u\n", asset->material_count);
    for (uint32_t m = 0; m < asset->material_count; ++m) {
        const crowd_material *material = &asset->materials[m];
        uint64_t sum = 0;
        uint64_t bytes = 4ull * material->texture_width * material->texture_height;
        for (uint64_t b = 0; b < bytes; ++b) {
            sum = sum * 31u + material->texture_rgba8[b];
        }
        printf("material %u '%s' texture %ux%u hash %llu\n", m, material->name,
               material->texture_width, material->texture_height, (unsigned long long)sum);
        print_floats("  base", material->base_color, 4);
        printf(
            "  metallic %.9g roughness %.9g normal %.9g occlusion %.9g alpha %d %.9g double %d\n",
            (double)material->metallic, (double)material->roughness, (double)material->normal_scale,
            (double)material->occlusion_strength, (int)material->alpha_mode,
            (double)material->alpha_cutoff, material->double_sided);
        print_floats("  emissive", material->emissive, 3);
        print_image("mr", &material->metallic_roughness_texture);
        print_image("normal", &material->normal_texture);
        print_image("emissive", &material->emissive_texture);
        print_image("occlusion", &material->occlusion_texture);
    }
}

static void print_clips(const crowd_asset *asset) {
    printf("clips %u\n", asset->clip_count);
    for (uint32_t c = 0; c < asset->clip_count; ++c) {
        const crowd_clip *clip = &asset->clips[c];
        printf("clip %u '%s' duration %.9g loop %d\n", c, clip->name, (double)clip->duration_s,
               clip->loop);
        for (uint32_t j = 0; j < asset->skeleton.joint_count; ++j) {
            const crowd_joint_tracks *tracks = &clip->tracks[j];
            if (tracks->translation.key_count + tracks->rotation.key_count +
                    tracks->scale.key_count ==
                0) {
                continue;
            }
            printf("   joint %u\n", j);
            print_track("t", &tracks->translation, 3);
            print_track("r", &tracks->rotation, 4);
            print_track("s", &tracks->scale, 3);
        }
    }
}

static void print_asset(const crowd_asset *asset) {
    const crowd_repairs *r = &asset->repairs;
    printf("name %s source_meshes %u has_skin %d unit_scale %.9g\n", asset->name,
           asset->source_mesh_count, asset->has_skin, (double)asset->unit_scale);
    printf("repairs truncated %u renormalized %u unweighted %u rigid %u normals %u renamed %u "
           "dropped %u extended %u unbound %u reader %u units %u by_assimp %u\n",
           r->influences_truncated, r->weights_renormalized, r->vertices_unweighted,
           r->static_meshes_rigid, r->normals_generated, r->clips_renamed, r->keys_dropped,
           r->clips_extended, r->bones_unbound, r->reader_warnings, r->units_converted,
           r->gltf_read_by_assimp);
    print_skeleton(&asset->skeleton);
    printf("sockets %u\n", asset->socket_count);
    for (uint32_t s = 0; s < asset->socket_count; ++s) {
        printf("socket %s joint %u\n", asset->sockets[s].name, asset->sockets[s].joint);
        print_floats("  offset", asset->sockets[s].offset, 16);
    }
    print_mesh(&asset->mesh);
    print_materials(asset);
    print_clips(asset);
}

int main(int argc, char **argv) {
    crowd_import_desc desc = {0}; /* a zeroed logger: the digest holds no log lines */
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--in-process") == 0) {
        desc.in_process = true;
        first = 2;
    }
    for (int i = first; i < argc; ++i) {
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        crowd_result result = crowd_import_file(argv[i], &desc, &asset, &error);
        printf("=== %s\n", argv[i]);
        if (result != CROWD_OK) {
            printf("error %d %s\n", (int)result, error.reason);
            continue;
        }
        print_asset(asset);
        crowd_asset_destroy(asset);
        fflush(stdout);
    }
    return 0;
}
