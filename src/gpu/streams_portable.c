/* The portable tier's per-frame data (GL 3.3 core, GLES 3.0, WebGL2 have
 * no persistent mapping and no storage buffers in the vertex stage):
 * crowd_world_update skins (cpu) or builds palettes (gpu) into CPU memory,
 * and the frame's first draw uploads it, inside the draw's saved state:
 *   cpu  every character's vertices into one buffer, orphaned first
 *        (glBufferData with NULL), so the driver hands out fresh storage
 *        instead of waiting for the frame still reading the old;
 *   gpu  the palettes into one of CROWD_WORLD_STREAM_FRAMES RGBA32F
 *        textures, the one of the frame's stream section: the world fences
 *        each section (world.c), so the texture written was last read
 *        frames ago and the upload never waits for the GPU.
 * Each pass's instance records are streamed the same way (orphaned). */
#include "core/core_internal.h"
#include "gpu/internal.h"

#define PALETTE_WIDTH (1u << GPU_PALETTE_WIDTH_SHIFT)

static uint64_t per_instance_bytes(const gpu_archetype *r) {
    return r->mode == CROWD_GPU_MODE_CPU ? 24ull * crowd__gpu_skinned_vertices(r)
                                         : 48ull * r->source->skeleton.joint_count;
}

/* Texture rows holding `instances` palettes (3 texels per joint). */
static uint64_t palette_rows(const gpu_archetype *r, uint64_t instances) {
    uint64_t texels = 3ull * r->source->skeleton.joint_count * instances;
    uint64_t rows = (texels + PALETTE_WIDTH - 1) / PALETTE_WIDTH;
    return rows > 0 ? rows : 1;
}

/* CPU memory of at least `bytes` in *memory (its size in *size_bytes). */
static crowd_result reserve_staging(gpu_archetype *r, void **memory, uint64_t *size_bytes,
                                    uint64_t bytes, crowd_error *error) {
    if (*memory != NULL && *size_bytes >= bytes) {
        return CROWD_OK;
    }
    crowd__mem_free(&r->world->allocator, *memory);
    *size_bytes = 0;
    *memory = bytes <= SIZE_MAX ? crowd__mem_alloc(&r->world->allocator, (size_t)bytes) : NULL;
    if (*memory == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, r->name,
                               "out of memory for %llu bytes of per-frame data",
                               (unsigned long long)bytes);
    }
    *size_bytes = bytes;
    return CROWD_OK;
}

crowd_result crowd__gpu_streams_update_portable(gpu_archetype *r, float now, crowd_error *error) {
    bool cpu = r->mode == CROWD_GPU_MODE_CPU;
    uint64_t per_instance = per_instance_bytes(r);
    if (per_instance == 0) {
        return CROWD_OK;
    }
    crowd_result result;
    void **staging = cpu ? &r->streams.skinned_mapped : &r->streams.palette_mapped;
    if (cpu) {
        result = reserve_staging(r, staging, &r->streams.skinned_section_bytes,
                                 per_instance * r->instances.capacity, error);
    } else {
        uint64_t rows = palette_rows(r, r->instances.capacity);
        if (rows > (uint64_t)r->world->max_texture_size) {
            return crowd_error_set(
                error, CROWD_ERROR_LIMIT, r->name,
                "gpu mode's palettes of %u instances x %u joints need a "
                "%ux%llu texture, this GL implementation allows %dx%d",
                (unsigned)r->instances.capacity, (unsigned)r->source->skeleton.joint_count,
                (unsigned)PALETTE_WIDTH, (unsigned long long)rows, (int)r->world->max_texture_size,
                (int)r->world->max_texture_size);
        }
        result = reserve_staging(r, staging, &r->streams.palette_section_bytes,
                                 rows * PALETTE_WIDTH * 16u, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    crowd__gpu_streams_write(r, now, *staging, per_instance);
    r->world->stats.uploaded_bytes += per_instance * r->instances.count;
    return CROWD_OK;
}

static void count_buffer(gpu_archetype *r, uint64_t *size_field, uint64_t bytes) {
    r->gpu_memory_bytes = r->gpu_memory_bytes - *size_field + bytes;
    *size_field = bytes;
}

/* The ring's textures gone (the first one counted in the archetype's GPU
 * memory stands for the ring's size). */
static void release_palette_textures(gpu_archetype *r) {
    gpu_streams *s = &r->streams;
    crowd__gpu_texture_delete(&r->gpu_memory_bytes, &s->palette_textures[0],
                              &s->palette_texture_bytes);
    glDeleteTextures(CROWD_WORLD_STREAM_FRAMES - 1, &s->palette_textures[1]);
    for (uint32_t f = 0; f < CROWD_WORLD_STREAM_FRAMES; f++) {
        s->palette_textures[f] = 0;
    }
    s->palette_rows = 0;
}

/* The ring of palette textures, each `rows` tall (made again when the
 * instance capacity grows). */
static crowd_result reserve_palette_textures(gpu_archetype *r, uint32_t rows, crowd_error *error) {
    gpu_streams *s = &r->streams;
    if (s->palette_textures[0] != 0 && s->palette_rows >= rows) {
        return CROWD_OK;
    }
    release_palette_textures(r);
    for (uint32_t f = 0; f < CROWD_WORLD_STREAM_FRAMES; f++) {
        crowd_result result = crowd__gpu_texture_create_bound(
            r->world, &s->palette_textures[f], GPU_TEXTURE_PALETTES, GL_RGBA32F, PALETTE_WIDTH,
            rows, GL_RGBA, GL_FLOAT, NULL, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    s->palette_rows = rows;
    /* Counted as one block on the first texture's size field. */
    count_buffer(r, &s->palette_texture_bytes,
                 (uint64_t)CROWD_WORLD_STREAM_FRAMES * rows * PALETTE_WIDTH * 16u);
    return CROWD_OK;
}

crowd_result crowd__gpu_streams_upload_portable(gpu_archetype *r, crowd_error *error) {
    gpu_streams *s = &r->streams;
    bool cpu = r->mode == CROWD_GPU_MODE_CPU;
    if (s->uploaded_frame == r->world->frame + 1u) {
        return CROWD_OK; /* this frame's is up */
    }
    void *staging = cpu ? s->skinned_mapped : s->palette_mapped;
    if (staging == NULL) {
        return CROWD_OK; /* nothing written yet (no update, or an empty mesh) */
    }
    s->uploaded_frame = r->world->frame + 1u;
    uint64_t bytes = per_instance_bytes(r) * r->instances.count;
    if (cpu) {
        if (s->skinned_buffer == 0) {
            glGenBuffers(1, &s->skinned_buffer);
        }
        glBindBuffer(GL_ARRAY_BUFFER, s->skinned_buffer);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_DRAW);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, staging);
        count_buffer(r, &s->skinned_bytes, bytes);
        return CROWD_OK;
    }
    uint64_t capacity_rows = s->palette_section_bytes / (PALETTE_WIDTH * 16u);
    crowd_result result = reserve_palette_textures(r, (uint32_t)capacity_rows, error);
    if (result != CROWD_OK) {
        return result;
    }
    glActiveTexture(GL_TEXTURE0 + GPU_TEXTURE_PALETTES);
    glBindTexture(GL_TEXTURE_2D, s->palette_textures[r->world->stream_section]);
    /* Under CROWD_STATE_RESET the unpack state is left at GL's defaults
     * (state.c), which suit these rows, and set without reading it: a read
     * would cost a wait per frame where glGet waits (WebGL in Chromium). */
    bool reset = r->world->state_policy == CROWD_STATE_RESET;
    gpu_unpack_state unpack;
    if (reset) {
        crowd__gpu_unpack_defaults(r->world->gles);
    } else {
        crowd__gpu_unpack_begin(&unpack, r->world->gles);
    }
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)PALETTE_WIDTH,
                    (GLsizei)palette_rows(r, r->instances.count), GL_RGBA, GL_FLOAT, staging);
    if (!reset) {
        crowd__gpu_unpack_end(&unpack, r->world->gles);
    }
    return CROWD_OK;
}

crowd_result crowd__gpu_records_stream(gpu_archetype *r, const gpu_instance_record *const lists[],
                                       const uint32_t counts[], uint32_t list_count,
                                       crowd_error *error) {
    gpu_streams *s = &r->streams;
    uint64_t total = 0;
    for (uint32_t i = 0; i < list_count; i++) {
        total += (uint64_t)counts[i] * sizeof(gpu_instance_record);
    }
    if (s->records == 0) {
        glGenBuffers(1, &s->records);
    }
    glBindBuffer(GL_ARRAY_BUFFER, s->records);
    /* Orphaned: the pass before may still be reading the old storage. */
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(total > 0 ? total : sizeof(gpu_instance_record)),
                 NULL, GL_STREAM_DRAW);
    uint64_t at = 0;
    for (uint32_t i = 0; i < list_count; i++) {
        uint64_t bytes = (uint64_t)counts[i] * sizeof(gpu_instance_record);
        if (bytes > 0) {
            glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)at, (GLsizeiptr)bytes, lists[i]);
        }
        at += bytes;
    }
    count_buffer(r, &s->records_bytes, total);
    r->world->stats.uploaded_bytes += total;
#ifndef NDEBUG
    return crowd__gpu_check(error, "streaming instance records");
#else
    (void)error;
    return CROWD_OK;
#endif
}

void crowd__gpu_streams_release_portable(gpu_archetype *r) {
    gpu_streams *s = &r->streams;
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &s->skinned_buffer, &s->skinned_bytes);
    crowd__gpu_buffer_delete(&r->gpu_memory_bytes, &s->records, &s->records_bytes);
    release_palette_textures(r);
    crowd__mem_free(&r->world->allocator, s->palette_mapped);
    crowd__mem_free(&r->world->allocator, s->skinned_mapped);
    s->palette_mapped = s->skinned_mapped = NULL;
    s->palette_section_bytes = s->skinned_section_bytes = 0;
    s->uploaded_frame = 0;
}
