/* test_core_internal.c - the helpers other modules share through crowd_core
 * (core_internal.h): string copy, a path's folder, skeleton arrays, errno
 * names, system error wording and whole-file reading with its size cap and
 * every error path; memory through an optional allocator, and an asset
 * whose blocks all come from one and go back to it. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/core_internal.h"

static int write_bytes(const char *path, const uint8_t *bytes, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return 0;
    }
    int ok = fwrite(bytes, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static void test_copy_string(void) {
    const char *text = "socket_hand_R";
    char *copy = crowd__core_copy_string(text);
    CHECK(copy != NULL && copy != text && strcmp(copy, text) == 0);
    free(copy);
    copy = crowd__core_copy_string("");
    CHECK(copy != NULL && copy[0] == '\0');
    free(copy);
}

static void check_folder(const char *path, const char *expected) {
    char *folder = crowd__core_path_folder(path);
    CHECK_MSG(folder != NULL && strcmp(folder, expected) == 0, "'%s': folder '%s', expected '%s'",
              path, folder ? folder : "(null)", expected);
    free(folder);
}

static void test_path_folder(void) {
    check_folder("models/robot.glb", "models");
    check_folder("a/b/c.fbx", "a/b");
    check_folder("robot.glb", ".");
    check_folder("/robot.glb", "/");
    check_folder("models/", "models");
    check_folder("", ".");
}

/* Every array there, zeroed, for any count (0 included), freed with the asset. */
static void test_skeleton_allocate(void) {
    const uint32_t counts[3] = {0, 1, 300};
    for (int k = 0; k < 3; k++) {
        crowd_asset *asset = crowd_asset_create();
        REQUIRE_VOID(asset != NULL);
        crowd_skeleton *sk = &asset->skeleton;
        CHECK(crowd__core_skeleton_allocate(sk, counts[k]));
        CHECK(sk->joint_count == counts[k] && sk->names && sk->parents && sk->rest_translation &&
              sk->rest_rotation && sk->rest_scale && sk->inverse_bind);
        bool zero = true;
        for (uint32_t j = 0; j < counts[k]; j++) {
            zero = zero && sk->names[j] == NULL && sk->parents[j] == 0 &&
                   sk->rest_rotation[4 * j + 3] == 0.0f && sk->inverse_bind[16 * j + 15] == 0.0f;
        }
        CHECK(zero);
        crowd_asset_destroy(asset);
    }
}

static void test_system_errors(void) {
    char buffer[16];
    CHECK(strcmp(crowd__core_errno_name(ENOSPC, buffer), "ENOSPC") == 0);
    CHECK(strcmp(crowd__core_errno_name(ENOENT, buffer), "ENOENT") == 0);
    CHECK(strcmp(crowd__core_errno_name(4095, buffer), "errno 4095") == 0);

    crowd_error error = {0};
    char expected[512];
    snprintf(expected, sizeof expected, "cannot write: %s (EFBIG)", strerror(EFBIG));
    CHECK(crowd__core_system_error(&error, CROWD_ERROR_OUTPUT, "out/a.png", "cannot write",
                                   EFBIG) == CROWD_ERROR_OUTPUT);
    CHECK(error.result == CROWD_ERROR_OUTPUT);
    CHECK(strcmp(error.file, "out/a.png") == 0);
    CHECK_MSG(strcmp(error.reason, expected) == 0, "reason '%s'", error.reason);
    CHECK(crowd__core_system_error(NULL, CROWD_ERROR_IO, "x", "cannot read", EIO) ==
          CROWD_ERROR_IO);
}

static void test_file_read(void) {
    uint8_t bytes[1000];
    for (size_t i = 0; i < sizeof bytes; i++) {
        bytes[i] = (uint8_t)(i * 7 + 3);
    }
    const char *path = "crowd__core_file_read.bin";
    if (!write_bytes(path, bytes, sizeof bytes)) {
        CHECK_MSG(0, "cannot write %s", path);
        return;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    crowd_error error = {0};
    CHECK(crowd__core_file_read(path, SIZE_MAX, &data, &size, &error) == CROWD_OK);
    CHECK(data != NULL && size == sizeof bytes && memcmp(data, bytes, size) == 0);
    free(data);

    /* The cap: exactly the file's size passes, one byte less is refused. */
    CHECK(crowd__core_file_read(path, sizeof bytes, &data, &size, &error) == CROWD_OK &&
          size == sizeof bytes);
    free(data);
    uint8_t sentinel = 0;
    data = &sentinel;
    CHECK(crowd__core_file_read(path, sizeof bytes - 1, &data, &size, &error) == CROWD_ERROR_LIMIT);
    CHECK(data == NULL && size == 0);
    CHECK(error.result == CROWD_ERROR_LIMIT && strcmp(error.file, path) == 0);

    /* An empty file is a buffer of size 0 that can still be freed. */
    const char *empty = "core_file_read_empty.bin";
    CHECK(write_bytes(empty, bytes, 0));
    CHECK(crowd__core_file_read(empty, SIZE_MAX, &data, &size, &error) == CROWD_OK &&
          data != NULL && size == 0);
    free(data);

    error = (crowd_error){0};
    CHECK(crowd__core_file_read("core_file_read_missing.bin", SIZE_MAX, &data, &size, &error) ==
          CROWD_ERROR_IO);
    CHECK(data == NULL);
    CHECK(strcmp(error.file, "core_file_read_missing.bin") == 0);
    CHECK_MSG(strncmp(error.reason, "missing: ", 9) == 0 &&
                  strstr(error.reason, "(ENOENT)") != NULL,
              "reason '%s'", error.reason);

    CHECK(crowd__core_file_read(".", SIZE_MAX, &data, &size, &error) == CROWD_ERROR_IO);
    CHECK(strcmp(error.reason, "not a regular file") == 0);
    CHECK(crowd__core_file_read(path, SIZE_MAX, &data, &size, NULL) == CROWD_OK);
    free(data);
    remove(path);
    remove(empty);
}

/* A counting allocator: every block the crowd__mem_* calls take comes back
 * to it, and none is freed twice or leaked. */
typedef struct counting_heap {
    int live;
    int allocations;
    size_t last_size;
} counting_heap;

static void *heap_alloc(size_t size, void *user) {
    counting_heap *heap = user;
    heap->live++;
    heap->allocations++;
    heap->last_size = size;
    return malloc(size);
}

static void heap_free(void *pointer, void *user) {
    counting_heap *heap = user;
    if (pointer != NULL) {
        heap->live--;
    }
    free(pointer);
}

static void test_memory(void) {
    counting_heap heap = {0};
    crowd_allocator allocator = {heap_alloc, heap_free, &heap};
    uint8_t *bytes = crowd__mem_alloc(&allocator, 4);
    CHECK(bytes != NULL && heap.live == 1 && heap.last_size == 4);
    memcpy(bytes, "abcd", 4);
    bytes = crowd__mem_grow(&allocator, bytes, 4, 64);
    CHECK(bytes != NULL && memcmp(bytes, "abcd", 4) == 0 && heap.live == 1 &&
          heap.allocations == 2 && heap.last_size == 64);
    bytes = crowd__mem_grow(&allocator, bytes, 64, 2); /* shrinking keeps the first bytes */
    CHECK(bytes != NULL && memcmp(bytes, "ab", 2) == 0 && heap.live == 1);
    crowd__mem_free(&allocator, bytes);
    crowd__mem_free(&allocator, NULL);
    CHECK(heap.live == 0);
    uint32_t *zeroed = crowd__mem_alloc_zeroed(&allocator, 8, sizeof(uint32_t));
    CHECK(zeroed != NULL && zeroed[0] == 0 && zeroed[7] == 0 && heap.last_size == 32);
    crowd__mem_free(&allocator, zeroed);
    CHECK(crowd__mem_alloc_zeroed(&allocator, SIZE_MAX / 2, 4) == NULL); /* overflow refused */
    CHECK(heap.live == 0 && heap.allocations == 4);
    /* Zero bytes still give a block, from either heap. */
    void *empty = crowd__mem_alloc(&allocator, 0);
    CHECK(empty != NULL && heap.last_size == 1);
    crowd__mem_free(&allocator, empty);
    /* No allocator, or one missing a function: malloc and free. */
    crowd_allocator half = {heap_alloc, NULL, &heap};
    const crowd_allocator *system_heaps[] = {NULL, &half};
    for (int i = 0; i < 2; i++) {
        char *text = crowd__mem_alloc(system_heaps[i], 3);
        CHECK(text != NULL);
        text = crowd__mem_grow(system_heaps[i], text, 3, 300);
        CHECK(text != NULL);
        crowd__mem_free(system_heaps[i], text);
    }
    CHECK(heap.live == 0 && heap.allocations == 5);
}

/* An asset made with an allocator records it, and crowd_asset_destroy
 * returns every block there, the struct last; the _with helpers and the
 * file reader take theirs from it too. */
static void test_asset_allocator(void) {
    counting_heap heap = {0};
    crowd_allocator allocator = {heap_alloc, heap_free, &heap};
    crowd_asset *asset = crowd__core_asset_create_with(&allocator);
    REQUIRE_VOID(asset != NULL);
    CHECK(heap.live == 1 && asset->allocator.user_data == &heap);
    CHECK(asset->skeleton.root_transform[0] == 1.0f && asset->skeleton.root_transform[15] == 1.0f);
    CHECK(crowd__core_skeleton_allocate_with(&allocator, &asset->skeleton, 2) && heap.live == 7);
    asset->skeleton.names[0] = crowd__core_copy_string_with(&allocator, "hip");
    asset->name = crowd__core_copy_string_with(&allocator, "figure");
    CHECK(asset->name != NULL && strcmp(asset->name, "figure") == 0 && heap.live == 9);
    const uint8_t bytes[3] = {1, 2, 3};
    REQUIRE_VOID(write_bytes("asset_file.bin", bytes, sizeof bytes));
    uint8_t *data = NULL;
    size_t size = 0;
    crowd_error error = {0};
    CHECK(crowd__core_file_read_with(&allocator, "asset_file.bin", SIZE_MAX, &data, &size,
                                     &error) == CROWD_OK &&
          size == 3 && memcmp(data, bytes, 3) == 0 && heap.live == 10);
    asset->mesh.positions = (float *)data; /* any block of the asset's allocator */
    crowd_asset_destroy(asset);
    CHECK_MSG(heap.live == 0, "%d blocks kept", heap.live);
    /* a missing file takes nothing */
    CHECK(crowd__core_file_read_with(&allocator, "no_such_file", SIZE_MAX, &data, &size, &error) ==
              CROWD_ERROR_IO &&
          data == NULL && heap.allocations == 10);
    /* without one: malloc, and a zeroed allocator recorded */
    crowd_asset *plain = crowd_asset_create();
    CHECK(plain != NULL && plain->allocator.alloc_fn == NULL && plain->allocator.free_fn == NULL);
    crowd_asset_destroy(plain);
    CHECK(heap.allocations == 10);
}

int main(void) {
    check_enter_temp_dir("test_core_internal");
    test_copy_string();
    test_path_folder();
    test_skeleton_allocate();
    test_system_errors();
    test_file_read();
    test_memory();
    test_asset_allocator();
    return check_finish();
}
