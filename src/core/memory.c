/* crowd__mem_* (core_internal.h): allocation through an optional
 * crowd_allocator, so the runtime's objects can live in an engine's heap. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"

static bool uses_allocator(const crowd_allocator *allocator) {
    return allocator != NULL && allocator->alloc_fn != NULL && allocator->free_fn != NULL;
}

void *crowd__mem_alloc(const crowd_allocator *allocator, size_t bytes) {
    if (bytes == 0) {
        bytes = 1; /* one answer for every allocator: a block or NULL */
    }
    if (uses_allocator(allocator)) {
        return allocator->alloc_fn(bytes, allocator->user_data);
    }
    return malloc(bytes);
}

void *crowd__mem_alloc_zeroed(const crowd_allocator *allocator, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) {
        return NULL;
    }
    void *block = crowd__mem_alloc(allocator, count * size);
    if (block != NULL) {
        memset(block, 0, count * size == 0 ? 1 : count * size);
    }
    return block;
}

void *crowd__mem_grow(const crowd_allocator *allocator, void *pointer, size_t old_bytes,
                      size_t new_bytes) {
    if (!uses_allocator(allocator)) {
        return realloc(pointer, new_bytes == 0 ? 1 : new_bytes);
    }
    void *block = crowd__mem_alloc(allocator, new_bytes);
    if (block == NULL) {
        return NULL;
    }
    if (pointer != NULL) {
        memcpy(block, pointer, old_bytes < new_bytes ? old_bytes : new_bytes);
        allocator->free_fn(pointer, allocator->user_data);
    }
    return block;
}

void crowd__mem_free(const crowd_allocator *allocator, void *pointer) {
    if (pointer == NULL) {
        return;
    }
    if (uses_allocator(allocator)) {
        allocator->free_fn(pointer, allocator->user_data);
    } else {
        free(pointer);
    }
}
