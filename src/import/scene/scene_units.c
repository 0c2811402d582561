/* scene_units.c - the asset put in metres (step 5 of scene.h): from the
 * unit the file declares (the reader says which and how much of it it
 * applied already), or by desc->scale when given.
 *
 * The asset is scaled by a uniform factor f: positions and every
 * translation (rest pose, keys, inverse binds, root transform, socket
 * offsets) times f, which is S * M * S^-1 for every matrix M, so skinning
 * gives S times the old result. Rotations, scales, normals and weights are
 * unchanged.
 */
#include "crowd/asset.h"
#include "import/scene/scene.h"

static void scale_translation(float m[16], float f) {
    m[12] *= f;
    m[13] *= f;
    m[14] *= f;
}

static void scale_all(float *values, size_t count, float f) {
    for (size_t i = 0; i < count; i++) {
        values[i] *= f;
    }
}

static void scale_asset(crowd_asset *asset, float f) {
    scale_all(asset->mesh.positions, 3 * (size_t)asset->mesh.vertex_count, f);
    crowd_skeleton *sk = &asset->skeleton;
    scale_all(sk->rest_translation, 3 * (size_t)sk->joint_count, f);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        scale_translation(&sk->inverse_bind[16 * j], f);
    }
    scale_translation(sk->root_transform, f);
    for (uint32_t s = 0; s < asset->socket_count; s++) {
        scale_translation(asset->sockets[s].offset, f);
    }
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            crowd_track *t = &asset->clips[c].tracks[j].translation;
            /* Cubic keys scale their tangents with their values. */
            size_t per_key = t->interpolation == CROWD_INTERP_CUBIC ? 9 : 3;
            scale_all(t->values, per_key * t->key_count, f);
        }
    }
}

void crowd__import_build_units(import_build *build) {
    const import_scene *scene = build->scene;
    crowd_asset *asset = build->asset;
    float chosen = scene->desc->scale > 0.0f ? scene->desc->scale : (float)scene->unit_m;
    float factor = (float)(chosen / scene->unit_applied);
    asset->unit_scale = chosen;
    if (scene->desc->scale > 0.0f) {
        crowd_log(scene->logger, CROWD_LOG_INFO,
                  "%s: coordinates scaled by %g as asked (the file's unit: %g m)", scene->file,
                  (double)chosen, scene->unit_m);
    } else if (scene->unit_source != NULL && scene->unit_m != 1.0) {
        asset->repairs.units_converted = 1;
        crowd_log(scene->logger, CROWD_LOG_INFO,
                  "%s: file unit %g m (%s): coordinates converted to metres", scene->file,
                  scene->unit_m, scene->unit_source);
    }
    if (factor != 1.0f) {
        scale_asset(asset, factor);
    }
}
