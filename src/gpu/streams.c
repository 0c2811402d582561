/* The cpu and gpu modes' per-frame data: every instance's skinned vertices
 * (cpu) or skinning matrices (gpu), written once per frame by
 * crowd_world_update into one of CROWD_WORLD_STREAM_FRAMES sections of a
 * persistently mapped buffer. The world fences each section after the
 * frame that reads it (world.c), so writing the next section never waits
 * for the frame the GPU is drawing. The portable tier's streams (no
 * persistent mapping there) are in streams_portable.c. */
#include "gpu/internal.h"

/* Makes sure a stream holds a section of bytes_per_instance x the instance
 * capacity per frame, mapped once for good (persistent, coherent): mapping
 * it every frame costs more than writing a few characters' data (a round
 * trip to Mesa's GL thread and a fresh allocation). */
static crowd_result reserve_stream(gpu_archetype *r, GLuint *buffer, uint64_t *bytes,
                                   uint64_t *section_bytes, void **mapped,
                                   uint64_t bytes_per_instance, crowd_error *error) {
    uint64_t section = bytes_per_instance * r->instances.capacity;
    /* Sections start on a storage-buffer offset boundary (256 covers every
     * implementation's GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT). */
    section = (section + 255u) & ~(uint64_t)255u;
    if (*buffer != 0 && *section_bytes >= section) {
        return CROWD_OK;
    }
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, buffer, bytes);
    *mapped = NULL;
    const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    uint64_t total = CROWD_WORLD_STREAM_FRAMES * section;
    crowd_result result = crowd__gpu_buffer_create(&r->gpu_memory_bytes, buffer, bytes,
                                                   total > 0 ? total : 256, NULL, flags, error);
    if (result != CROWD_OK) {
        return result;
    }
    *mapped = glMapNamedBufferRange(*buffer, 0, (GLsizeiptr)*bytes, flags);
    if (*mapped == NULL) {
        crowd__gpu_buffer_delete(&r->gpu_memory_bytes, buffer, bytes);
        return crowd_error_set(error, CROWD_ERROR_GPU, r->name, "cannot map a streaming buffer");
    }
    *section_bytes = section;
    return CROWD_OK;
}

void crowd__gpu_streams_release(gpu_archetype *r) {
    if (r->world->portable) {
        crowd__gpu_streams_release_portable(r);
        return;
    }
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->streams.palette_buffer,
                             &r->streams.palette_bytes);
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &r->streams.skinned_buffer,
                             &r->streams.skinned_bytes);
    r->streams.palette_mapped = r->streams.skinned_mapped = NULL;
    r->streams.palette_section_bytes = r->streams.skinned_section_bytes = 0;
}

crowd_result crowd__gpu_streams_update(gpu_archetype *r, float now, crowd_error *error) {
    bool cpu = r->mode == CROWD_GPU_MODE_CPU;
    if (!cpu && r->mode != CROWD_GPU_MODE_GPU) {
        return CROWD_OK;
    }
    uint64_t vertices = cpu ? crowd__gpu_skinned_vertices(r) : 0;
    uint64_t per_instance = cpu ? 24 * vertices : 48ull * r->source->skeleton.joint_count;
    if (r->world->portable) {
        return crowd__gpu_streams_update_portable(r, now, error);
    }
    crowd_result result =
        cpu ? reserve_stream(r, &r->streams.skinned_buffer, &r->streams.skinned_bytes,
                             &r->streams.skinned_section_bytes, &r->streams.skinned_mapped,
                             per_instance, error)
            : reserve_stream(r, &r->streams.palette_buffer, &r->streams.palette_bytes,
                             &r->streams.palette_section_bytes, &r->streams.palette_mapped,
                             per_instance, error);
    if (result != CROWD_OK || per_instance == 0) {
        return result;
    }
    uint64_t section = cpu ? r->streams.skinned_section_bytes : r->streams.palette_section_bytes;
    char *base = (char *)(cpu ? r->streams.skinned_mapped : r->streams.palette_mapped) +
                 r->world->stream_section * section;
    crowd__gpu_streams_write(r, now, base, per_instance);
    r->world->stats.uploaded_bytes += per_instance * r->instances.count;
    return CROWD_OK;
}

void crowd__gpu_streams_write(gpu_archetype *r, float now, char *base, uint64_t per_instance) {
    bool cpu = r->mode == CROWD_GPU_MODE_CPU;
    double start = crowd__gpu_thread_cpu_s();
    for (uint32_t slot = 0; slot < r->instances.count; slot++) {
        float *out = (float *)(base + slot * per_instance);
        if (cpu) {
            crowd__gpu_pose_skin(r, slot, now, out);
        } else {
            crowd__gpu_pose_palette(r, slot, now, out);
        }
    }
    r->world->stats.cpu_animation_time_s += crowd__gpu_thread_cpu_s() - start;
}
