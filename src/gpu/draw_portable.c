/* The portable tier's draws (GL 3.3 core, GLES 3.0, WebGL2: no base
 * instance, no indirect draws). Each pass streams the records it draws
 * into one orphaned buffer, grouped by LOD when culled, and points the
 * records' instanced attributes at each group's first record: one
 * glDrawElementsInstanced per LOD in use (cpu mode: per character, its
 * record and skinned vertices pointed at). draw.c has set the program, the
 * uniforms, the textures and the vertex array. */
#include "gpu/internal.h"

static const void *index_offset(uint32_t first_index) {
    return (const void *)(uintptr_t)((uint64_t)first_index * sizeof(uint32_t));
}

/* The CPU culling's lists (crowd__gpu_cull_cpu), one draw per LOD: its
 * interpolating instances, then (crowd__gpu_draw_portable_nearest, with the
 * one-fetch program) its one-fetch ones; the props' lists of carriers
 * follow in the same stream, for their draws (props_draw.c). */
static crowd_result draw_culled(gpu_archetype *r, uint32_t lod_count, crowd_error *error) {
    enum { LISTS = 2 * CROWD_BAKE_MAX_LODS + GPU_MAX_PROPS };
    const gpu_instance_record *lists[LISTS] = {NULL};
    uint32_t counts[LISTS] = {0};
    uint64_t first = 0;
    uint32_t capacity = r->instances.capacity;
    for (uint32_t k = 0; k < lod_count; k++) {
        uint32_t nearest = r->cull.cpu_nearest_counts[k];
        lists[k] = r->cull.cpu_visible + (size_t)k * capacity;
        counts[k] = r->cull.cpu_counts[k] - nearest;
        lists[lod_count + k] = lists[k] + capacity - nearest;
        counts[lod_count + k] = nearest;
    }
    for (uint32_t k = 0; k < 2 * lod_count; k++) {
        first += counts[k];
    }
    uint32_t lod_lists = 2 * lod_count;
    for (uint32_t p = 0; p < r->props.count; p++) {
        gpu_prop *prop = &r->props.items[p];
        lists[lod_lists + p] = r->props.cpu_visible + (size_t)p * capacity;
        counts[lod_lists + p] = prop->cpu_count;
        prop->stream_first = first;
        first += prop->cpu_count;
    }
    crowd_result result =
        crowd__gpu_records_stream(r, lists, counts, lod_lists + r->props.count, error);
    if (result != CROWD_OK) {
        return result;
    }
    first = 0;
    for (uint32_t k = 0; k < lod_count; k++) {
        if (counts[k] > 0) {
            crowd__gpu_records_point(r->streams.records, first);
            glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)r->mesh.lod_index_count[k],
                                    GL_UNSIGNED_INT, index_offset(r->mesh.lod_first_index[k]),
                                    (GLsizei)counts[k]);
            r->world->stats.draw_calls++;
        }
        first += counts[k];
    }
    r->cull.nearest_stream_first = first;
    return CROWD_OK;
}

void crowd__gpu_draw_portable_nearest(gpu_archetype *r, uint32_t lod_count) {
    uint64_t first = r->cull.nearest_stream_first;
    for (uint32_t k = 0; k < lod_count; k++) {
        uint32_t count = r->cull.cpu_nearest_counts[k];
        if (count > 0) {
            crowd__gpu_records_point(r->streams.records, first);
            glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)r->mesh.lod_index_count[k],
                                    GL_UNSIGNED_INT, index_offset(r->mesh.lod_first_index[k]),
                                    (GLsizei)count);
            r->world->stats.draw_calls++;
        }
        first += count;
    }
}

/* cpu mode: one draw per character from this frame's uploaded vertices. */
static void draw_characters(gpu_archetype *r) {
    uint64_t vertices = crowd__gpu_skinned_vertices(r);
    uint64_t per_instance = 24 * vertices;
    if (per_instance == 0 || r->streams.skinned_buffer == 0) {
        return; /* an empty mesh, or nothing updated yet: nothing to draw */
    }
    for (uint32_t slot = 0; slot < r->instances.count; slot++) {
        uint64_t base = slot * per_instance;
        crowd__gpu_records_point(r->streams.records, slot);
        glBindBuffer(GL_ARRAY_BUFFER, r->streams.skinned_buffer);
        glVertexAttribPointer(GPU_ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, 12,
                              (const void *)(uintptr_t)base);
        glVertexAttribPointer(GPU_ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, 12,
                              (const void *)(uintptr_t)(base + 12 * vertices));
        glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)r->mesh.index_count, GL_UNSIGNED_INT, NULL,
                                1);
    }
    r->world->stats.draw_calls += r->instances.count;
    crowd__gpu_mesh_bind_pose_portable(&r->mesh);
}

crowd_result crowd__gpu_draw_portable(gpu_archetype *r, bool culled, uint32_t lod_count,
                                      crowd_error *error) {
    if (culled) {
        return draw_culled(r, lod_count, error);
    }
    const gpu_instance_record *all = r->instances.records;
    crowd_result result = crowd__gpu_records_stream(r, &all, &r->instances.count, 1, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (r->mode == CROWD_GPU_MODE_CPU) {
        draw_characters(r);
    } else {
        crowd__gpu_records_point(r->streams.records, 0);
        glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)r->mesh.index_count, GL_UNSIGNED_INT, NULL,
                                (GLsizei)r->instances.count);
        r->world->stats.draw_calls++;
    }
    crowd__gpu_count_unculled(r);
    return CROWD_OK;
}
