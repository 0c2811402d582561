/* render_layout.c - crowd render's instance layout (render_layout.h). */
#include "render_layout.h"

#include <math.h>
#include <stdlib.h>

#include "scene_random.h"

float render_layout_spacing(const crowd_world *world, const crowd_archetype *archetypes,
                            uint32_t archetype_count) {
    float spacing = 0.0f;
    for (uint32_t r = 0; r < archetype_count; r++) {
        float min[3], max[3];
        crowd_archetype_bind_bounds(world, archetypes[r], min, max);
        float height = max[1] - min[1];
        float footprint = fminf(max[0] - min[0], max[2] - min[2]);
        spacing = fmaxf(spacing, height > 0.0f ? 0.8f * height : 1.5f * footprint);
    }
    return spacing > 0.0f ? spacing : 1.0f;
}

void render_layout_descs(const crowd_world *world, const crowd_archetype *archetypes,
                         uint32_t archetype_count, const uint32_t *clips,
                         const render_layout *layout, crowd_instance_desc *out) {
    float spacing = render_layout_spacing(world, archetypes, archetype_count);
    uint32_t count = layout->count;
    uint32_t columns = (uint32_t)ceil(sqrt((double)count));
    uint32_t rows = columns > 0 ? (count + columns - 1) / columns : 0;
    uint64_t random = layout->seed;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t r = i % archetype_count;
        crowd_instance_desc desc = {0};
        desc.position[0] = ((float)(i % columns) - 0.5f * (float)(columns - 1)) * spacing;
        desc.position[2] = ((float)(i / columns) - 0.5f * (float)(rows - 1)) * spacing;
        desc.clip = clips[r];
        uint32_t clip_count = crowd_archetype_clip_count(world, archetypes[r]);
        if (layout->seeded) {
            if (layout->random_clips && clip_count > 0) {
                desc.clip = (uint32_t)(scene_random_u64(&random) % clip_count);
            }
            crowd_clip_info info = {0};
            crowd_archetype_get_clip(world, archetypes[r], desc.clip, &info);
            desc.time_offset_s = scene_random_unit(&random) * info.duration_s;
            desc.speed = 0.8f + 0.4f * scene_random_unit(&random);
            desc.heading_rad = (scene_random_unit(&random) - 0.5f) * 1.2f;
            desc.position[0] += (scene_random_unit(&random) - 0.5f) * 0.3f * spacing;
            desc.position[2] += (scene_random_unit(&random) - 0.5f) * 0.3f * spacing;
        }
        out[i] = desc;
    }
}

crowd_result render_layout_add(crowd_world *world, const crowd_archetype *archetypes,
                               uint32_t archetype_count, const uint32_t *clips,
                               const render_layout *layout, crowd_error *error) {
    crowd_instance_desc *descs = malloc((layout->count > 0 ? layout->count : 1) * sizeof *descs);
    if (descs == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    render_layout_descs(world, archetypes, archetype_count, clips, layout, descs);
    crowd_result result = CROWD_OK;
    for (uint32_t i = 0; i < layout->count && result == CROWD_OK; i++) {
        crowd_instance instance;
        result = crowd_world_add_instance(world, archetypes[i % archetype_count], &descs[i],
                                          &instance, error);
    }
    free(descs);
    return result;
}
