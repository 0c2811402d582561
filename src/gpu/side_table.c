/* The side table: the rare state of instances that fade or blend in bat and
 * vat modes (GPU_SIDE_* in crowd_contract.glsl), one entry of
 * GPU_SIDE_TEXELS RGBA32UI texels per such instance, dense as the slots are
 * (freeing one moves the last into it and re-points its record). The CPU
 * copy holds room for every slot, so taking an entry never fails; the
 * texture grows and is refilled at the first draw after a change, inside
 * the draw's saved GL state (a fade costs one entry write, not a texture
 * upload per call). */
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

#define ENTRY_WORDS (4u * GPU_SIDE_TEXELS)

/* Entries, rounded up to whole texture rows. */
static uint32_t row_rounded(uint32_t entries) {
    return (entries + GPU_SIDE_ROW_ENTRIES - 1u) / GPU_SIDE_ROW_ENTRIES * GPU_SIDE_ROW_ENTRIES;
}

crowd_result crowd__gpu_side_reserve(gpu_archetype *r, uint32_t capacity, crowd_error *error) {
    gpu_side_table *t = &r->instances.side;
    const crowd_allocator *allocator = &r->world->allocator;
    uint32_t old_slots = r->instances.capacity;
    uint32_t *slot_entry = crowd__mem_grow(allocator, t->slot_entry, old_slots * sizeof(uint32_t),
                                           capacity * sizeof(uint32_t));
    if (slot_entry == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    for (uint32_t s = old_slots; s < capacity; s++) {
        slot_entry[s] = UINT32_MAX;
    }
    t->slot_entry = slot_entry;
    uint32_t entries = row_rounded(capacity);
    if (entries <= t->capacity) {
        return CROWD_OK;
    }
    uint32_t *words = crowd__mem_grow(allocator, t->words, t->capacity * ENTRY_WORDS * 4u,
                                      entries * ENTRY_WORDS * 4u);
    if (words == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    memset(words + t->capacity * ENTRY_WORDS, 0, (entries - t->capacity) * ENTRY_WORDS * 4u);
    t->words = words;
    uint32_t *entry_slot = crowd__mem_grow(allocator, t->entry_slot, t->capacity * sizeof(uint32_t),
                                           entries * sizeof(uint32_t));
    if (entry_slot == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    t->entry_slot = entry_slot;
    t->capacity = entries;
    return CROWD_OK;
}

void crowd__gpu_side_release(gpu_archetype *r) {
    gpu_side_table *t = &r->instances.side;
    crowd__gpu_texture_delete(&r->gpu_memory_bytes, &t->texture, &t->texture_bytes);
    crowd__mem_free(&r->world->allocator, t->words);
    crowd__mem_free(&r->world->allocator, t->entry_slot);
    crowd__mem_free(&r->world->allocator, t->slot_entry);
    memset(t, 0, sizeof *t);
}

uint32_t *crowd__gpu_side_take(gpu_archetype *r, uint32_t slot, uint32_t *out_entry) {
    gpu_side_table *t = &r->instances.side;
    uint32_t entry = t->slot_entry[slot];
    if (entry == UINT32_MAX) {
        entry = t->count++;
        t->slot_entry[slot] = entry;
        t->entry_slot[entry] = slot;
    }
    t->dirty = true;
    *out_entry = entry;
    return t->words + (size_t)entry * ENTRY_WORDS;
}

void crowd__gpu_side_free(gpu_archetype *r, uint32_t slot) {
    gpu_side_table *t = &r->instances.side;
    uint32_t entry = t->slot_entry[slot];
    if (entry == UINT32_MAX) {
        return;
    }
    t->slot_entry[slot] = UINT32_MAX;
    uint32_t last = --t->count;
    t->dirty = true;
    if (entry == last) {
        return;
    }
    uint32_t moved = t->entry_slot[last];
    memcpy(t->words + (size_t)entry * ENTRY_WORDS, t->words + (size_t)last * ENTRY_WORDS,
           ENTRY_WORDS * 4u);
    t->entry_slot[entry] = moved;
    t->slot_entry[moved] = entry;
    /* The moved entry's record points at it by index. */
    r->instances.records[moved].handle = entry;
    if (!r->world->portable) {
        glNamedBufferSubData(
            r->instances.buffer,
            (GLintptr)(moved * sizeof(gpu_instance_record) + GPU_RECORD_HANDLE * 4u), 4,
            &r->instances.records[moved].handle);
    }
}

void crowd__gpu_side_move_slot(gpu_archetype *r, uint32_t slot, uint32_t last) {
    gpu_side_table *t = &r->instances.side;
    crowd__gpu_side_free(r, slot);
    uint32_t entry = t->slot_entry[last];
    t->slot_entry[slot] = entry;
    t->slot_entry[last] = UINT32_MAX;
    if (entry != UINT32_MAX) {
        t->entry_slot[entry] = slot;
    }
}

crowd_result crowd__gpu_side_bind(gpu_archetype *r, crowd_error *error) {
    gpu_side_table *t = &r->instances.side;
    const crowd_world *w = r->world;
    uint32_t rows = t->count > 0 ? row_rounded(t->count) / GPU_SIDE_ROW_ENTRIES : 1u;
    if (t->texture == 0 || rows > t->texture_rows) {
        uint32_t grown = rows > 2u * t->texture_rows ? rows : 2u * t->texture_rows;
        grown =
            grown < t->capacity / GPU_SIDE_ROW_ENTRIES ? grown : t->capacity / GPU_SIDE_ROW_ENTRIES;
        grown = grown > rows ? grown : rows;
        crowd__gpu_texture_delete(&r->gpu_memory_bytes, &t->texture, &t->texture_bytes);
        crowd_result result = crowd__gpu_texture_create_bound(
            w, &t->texture, GPU_TEXTURE_SIDE, GL_RGBA32UI, GPU_SIDE_ROW_ENTRIES * GPU_SIDE_TEXELS,
            grown, GL_RGBA_INTEGER, GL_UNSIGNED_INT, NULL, error);
        if (result != CROWD_OK) {
            return result;
        }
        t->texture_rows = grown;
        t->texture_bytes = (uint64_t)grown * GPU_SIDE_ROW_ENTRIES * ENTRY_WORDS * 4u;
        r->gpu_memory_bytes += t->texture_bytes;
        t->dirty = true;
    }
    crowd__gpu_bind_texture(w, GPU_TEXTURE_SIDE, GL_TEXTURE_2D, t->texture);
    if (t->dirty && t->count > 0) {
        if (!w->portable) {
            glActiveTexture(GL_TEXTURE0 + GPU_TEXTURE_SIDE);
            glBindTexture(GL_TEXTURE_2D, t->texture);
        }
        gpu_unpack_state unpack;
        crowd__gpu_unpack_begin(&unpack, w->gles);
        /* Whole rows, or the used part of the only one. */
        uint32_t width = rows > 1 ? GPU_SIDE_ROW_ENTRIES : t->count;
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)(width * GPU_SIDE_TEXELS), (GLsizei)rows,
                        GL_RGBA_INTEGER, GL_UNSIGNED_INT, t->words);
        crowd__gpu_unpack_end(&unpack, w->gles);
        r->world->stats.uploaded_bytes += (uint64_t)rows * width * ENTRY_WORDS * 4u;
    }
    t->dirty = false;
    return crowd__gpu_check(error, "filling the side table");
}
