/* consumer.c - a program that links crowd::runtime alone, as a game would,
 * and uses only runtime API: loads the bake folder argv[1], checks that its
 * first baked vertex lies inside the bake's bounds, plays a clip of its own
 * and the bake's first runtime clip on the loaded skeleton through the anim
 * jobs, then draws it in all five modes with a crowd world in a context of
 * its own (consumer_draw.c). Prints what it found;
 * exits 0 when everything is consistent, 1 otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "crowd/anim.h"
#include "consumer_draw.h"
#include "crowd/bake.h"

/* A looping one-second quarter turn of joint 0 about +Y, linear keys. */
static float turn_times[2] = {0.0f, 1.0f};
static float turn_rotations[8] = {0, 0, 0, 1, 0, 0.70710678f, 0, 0.70710678f};

static int inside_bounds(const crowd_bake *bake, const float p[3]) {
    for (int i = 0; i < 3; i++) {
        if (!(p[i] >= bake->bounds_min[i] - 1e-4f && p[i] <= bake->bounds_max[i] + 1e-4f)) {
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: consumer BAKE_DIR\n");
        return 1;
    }
    crowd_error error = {0};
    crowd_bake *bake = NULL;
    if (crowd_bake_load(argv[1], NULL, &bake, &error) != CROWD_OK) {
        fprintf(stderr, "consumer: %s: %s\n", error.file, error.reason);
        return 1;
    }
    printf("bake %s: %u vertices, %u joints, %u clips, %u frames (the first clip at %g fps)\n",
           bake->name, bake->vertex_count, bake->joint_count, bake->clip_count, bake->frame_count,
           bake->clip_count > 0 ? (double)bake->clips[0].fps : 0.0);
    int ok = bake->vertex_count > 0 && bake->clip_count > 0;
    if (bake->vat_position.texels != NULL) {
        float position[3], normal[3];
        crowd_bake_vat_fetch(bake, 0, 0, position, normal);
        ok = ok && inside_bounds(bake, position);
        printf("vat frame 0 vertex 0: %.4f %.4f %.4f\n", position[0], position[1], position[2]);
    }

    const crowd_skeleton *skeleton = &bake->asset->skeleton;
    uint32_t joints = skeleton->joint_count;
    crowd_joint_tracks *tracks = calloc(joints, sizeof *tracks);
    crowd_transform *locals = calloc(joints, sizeof *locals);
    float *models = calloc(joints, 16 * sizeof *models);
    float *skin = calloc(joints, 12 * sizeof *skin);
    if (tracks == NULL || locals == NULL || models == NULL || skin == NULL) {
        fprintf(stderr, "consumer: out of memory\n");
        return 1;
    }
    tracks[0].rotation = (crowd_track){2, CROWD_INTERP_LINEAR, turn_times, turn_rotations};
    crowd_clip turn = {"turn", 1.0f, true, tracks};
    crowd_anim_sample(skeleton, &turn, 1.5f, NULL, locals);
    crowd_anim_local_to_model(skeleton, locals, models);
    crowd_anim_skin_matrices(skeleton, models, NULL, skin);
    /* Half way through the second loop: an eighth of a turn. */
    float expected = sinf(0.3926991f);
    ok = ok && fabsf(locals[0].rotation[1] - expected) < 1e-4f && isfinite(skin[0]);
    printf("clip sampled at 1.5 s: joint 0 rotation y %.4f (expected %.4f), %u skinning matrices\n",
           locals[0].rotation[1], expected, joints);

    /* The bake's own clips, shipped in runtime form (NAME.G.anim.bin). */
    ok = ok && bake->anim.present && bake->asset->clip_count == bake->clip_count &&
         crowd_anim_sample(skeleton, &bake->asset->clips[0], 0.25f, NULL, locals) &&
         crowd_anim_local_to_model(skeleton, locals, models) &&
         crowd_anim_skin_matrices(skeleton, models, NULL, skin) && isfinite(skin[0]);
    printf("runtime clips: %u, %u bytes; '%s' sampled at 0.25 s\n", bake->asset->clip_count,
           (unsigned)bake->anim.size_bytes,
           bake->asset->clip_count > 0 ? bake->asset->clips[0].name : "");

    /* What a game does with it: draw it into its own frame. */
    ok = ok && consumer_draw(bake) > 100;

    free(tracks);
    free(locals);
    free(models);
    free(skin);
    crowd_bake_destroy(bake);
    printf(ok ? "consumer: ok\n" : "consumer: inconsistent bake\n");
    return ok ? 0 : 1;
}
