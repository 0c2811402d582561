/* locomotion.c - see locomotion.h. */
#include "locomotion.h"

#include <stdlib.h>

typedef struct paced {
    uint32_t clip;
    float speed;
} paced;

static int by_speed(const void *a, const void *b) {
    float x = ((const paced *)a)->speed, y = ((const paced *)b)->speed;
    return x < y ? -1 : (x > y ? 1 : 0);
}

crowd_result locomotion_declare(crowd_world *world, crowd_archetype archetype, locomotion *out,
                                crowd_error *error) {
    *out = (locomotion){0};
    paced found[CROWD_BLEND_MAX_CLIPS];
    uint32_t count = 0, clips = crowd_archetype_clip_count(world, archetype);
    for (uint32_t c = 0; c < clips && count < CROWD_BLEND_MAX_CLIPS; c++) {
        crowd_clip_info info;
        float speed = crowd_archetype_clip_ground_speed(world, archetype, c);
        if (crowd_archetype_get_clip(world, archetype, c, &info) && info.loop && speed > 0.1f) {
            found[count++] = (paced){c, speed};
        }
    }
    qsort(found, count, sizeof *found, by_speed);
    uint32_t kept = 0, order[CROWD_BLEND_MAX_CLIPS];
    for (uint32_t i = 0; i < count; i++) {
        /* Thresholds must rise: of two clips at one speed the first stays. */
        if (kept == 0 || found[i].speed > found[kept - 1].speed) {
            found[kept] = found[i];
            order[kept++] = found[i].clip;
        }
    }
    if (kept < 2) {
        return CROWD_OK;
    }
    crowd_blend_desc desc = {.name = "locomotion", .clip_count = kept, .clips = order};
    crowd_result result = crowd_archetype_add_blend(world, archetype, &desc, &out->blend, error);
    if (result == CROWD_OK) {
        out->slowest = found[0].speed;
        out->fastest = found[kept - 1].speed;
    }
    return result;
}
