/* test_bakeio_memory - crowd_bake_load_memory and the loader's allocator.
 *
 * One bake folder loaded from disk and from its files in memory gives the
 * same bake, field for field and texel for texel (and the same as the bake
 * written). Both loads run on a checking heap: every block the bake owns
 * comes from it and all of them come back on destroy; blocks carry a mark,
 * so a malloc'ed block returned to the heap is counted, and one of the
 * heap's handed to free() is not a pointer malloc gave (glibc aborts). The
 * decoders' own memory (libpng, OpenEXR) is seen going through it, and a
 * heap that fails its n-th allocation, for every n until a load succeeds,
 * gets every block back with an out-of-memory error each time. Then every
 * error of the file set.
 */
#define _XOPEN_SOURCE 700

#include "check.h"
#include "bakeio_fixture.h"
#include "bakeio_compare.h"
#include "load/exr_read.h"
#include "load/png_read.h"

static char root[] = "/tmp/test_bakeio_memory.XXXXXX";

/* ---- a checking heap ------------------------------------------------------- */

#define HEAP_MARK 0x63726f77646d656dull

typedef struct heap_header {
    uint64_t mark;
    uint64_t size; /* also keeps the payload 16-byte aligned, as malloc's */
} heap_header;

typedef struct test_heap {
    long live;        /* blocks taken and not yet returned */
    long allocations; /* blocks taken in all */
    long foreign;     /* blocks returned that this heap did not give */
    long fail_at;     /* the allocation (0-based) that fails; -1: none */
    size_t largest;   /* the largest block asked for */
} test_heap;

static void *heap_alloc(size_t size, void *user) {
    test_heap *heap = user;
    if (heap->fail_at >= 0 && heap->allocations >= heap->fail_at) {
        return NULL;
    }
    heap_header *header = malloc(sizeof *header + size);
    if (header == NULL) {
        return NULL;
    }
    *header = (heap_header){HEAP_MARK, size};
    heap->live++;
    heap->allocations++;
    heap->largest = size > heap->largest ? size : heap->largest;
    return header + 1;
}

static void heap_free(void *pointer, void *user) {
    test_heap *heap = user;
    if (pointer == NULL) {
        return;
    }
    heap_header *header = (heap_header *)pointer - 1;
    if (header->mark != HEAP_MARK) {
        heap->foreign++; /* leaked rather than freed: it is not ours to free */
        return;
    }
    header->mark = 0;
    heap->live--;
    free(header);
}

static crowd_bake_load_desc heap_desc(test_heap *heap) {
    *heap = (test_heap){.fail_at = -1};
    return (crowd_bake_load_desc){.allocator = {heap_alloc, heap_free, heap}};
}

/* ---- fixtures -------------------------------------------------------------- */

/* The fixture bake with `lods` LODs in the given encodings, written to
 * root/label; *out_bake is the written bake (its asset in *out_asset). */
static bool write_fixture(const char *label, fx_bake_options options, uint32_t lods, char *dir,
                          size_t size, crowd_bake **out_bake, crowd_asset **out_asset) {
    *out_asset = fx_asset_create(37);
    fx_add_clips(*out_asset); /* so the set has runtime clips too */
    *out_bake = fx_bake_create(*out_asset, &options);
    fx_add_lods(*out_bake, lods);
    fx_join(dir, size, root, label);
    return fx_written(*out_bake, dir, NULL);
}

static void destroy_fixture(crowd_bake *bake, crowd_asset *asset) {
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

static const fx_bake_options unorm16 = {10, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 41};
static const fx_bake_options half = {16, CROWD_VAT_F16, 9, CROWD_BAT_F16, 42};

/* ---- disk and memory, one bake ------------------------------------------- */

static void disk_and_memory(const char *label, fx_bake_options options) {
    char dir[1024];
    crowd_bake *written = NULL;
    crowd_asset *asset = NULL;
    REQUIRE_VOID(write_fixture(label, options, 3, dir, sizeof dir, &written, &asset));
    CHECK(written->lod_count == 3);

    test_heap disk_heap, memory_heap;
    crowd_bake_load_desc disk_desc = heap_desc(&disk_heap);
    crowd_bake_load_desc memory_desc = heap_desc(&memory_heap);
    crowd_bake *from_disk = NULL, *from_memory = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_load(dir, &disk_desc, &from_disk, &error);
    CHECK_MSG(result == CROWD_OK, "%s: disk: %s: %s", label, error.file, error.reason);
    fx_memory_set set;
    fx_memory_set_load(&set, dir);
    result = crowd_bake_load_memory(set.files, set.count, &memory_desc, &from_memory, &error);
    CHECK_MSG(result == CROWD_OK, "%s: memory: %s: %s", label, error.file, error.reason);
    if (from_disk != NULL && from_memory != NULL) {
        fx_compare_bakes(written, from_memory);
        fx_compare_bakes(from_disk, from_memory);
        CHECK(from_memory->allocator.user_data == &memory_heap &&
              from_memory->owned_asset->allocator.user_data == &memory_heap);
        CHECK(from_disk->allocator.alloc_fn == heap_alloc &&
              from_disk->owned_asset->allocator.free_fn == heap_free);
    }
    /* what the bakes own is on the heaps ... */
    long disk_blocks = disk_heap.live, memory_blocks = memory_heap.live;
    CHECK_MSG(disk_blocks > 20 && memory_blocks == disk_blocks, "%s: %ld and %ld blocks", label,
              disk_blocks, memory_blocks);
    /* ... and so was the transient memory: the decoders' blocks, and from
     * disk the file buffers (the largest file, at least) */
    CHECK_MSG(memory_heap.allocations > memory_blocks + 10, "%s: %ld allocations for %ld blocks",
              label, memory_heap.allocations, memory_blocks);
    size_t largest_file = 0;
    for (uint32_t i = 0; i < set.count; i++) {
        largest_file =
            set.files[i].size_bytes > largest_file ? set.files[i].size_bytes : largest_file;
    }
    CHECK(disk_heap.largest >= largest_file);
    crowd_bake_destroy(from_disk);
    crowd_bake_destroy(from_memory);
    CHECK_MSG(disk_heap.live == 0 && memory_heap.live == 0, "%s: %ld and %ld blocks kept", label,
              disk_heap.live, memory_heap.live);
    CHECK(disk_heap.foreign == 0 && memory_heap.foreign == 0);
    fx_memory_set_free(&set);
    destroy_fixture(written, asset);
}

static void test_disk_and_memory(void) {
    disk_and_memory("unorm16", unorm16); /* PNG VAT, EXR BAT */
    disk_and_memory("half", half);       /* EXR position and normal VAT, half BAT */
    disk_and_memory("bat_only", (fx_bake_options){0, CROWD_VAT_DEFAULT, 9, CROWD_BAT_F32, 43});
}

/* ---- the decoders' own memory --------------------------------------------- */

/* The file of the set whose name ends in `suffix`, or -1. */
static int find_file(const fx_memory_set *set, const char *suffix) {
    for (uint32_t i = 0; i < set->count; i++) {
        size_t length = strlen(set->names[i]), tail = strlen(suffix);
        if (length >= tail && strcmp(set->names[i] + length - tail, suffix) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static void test_decoders(void) {
    char dir[1024], png_dir[1024];
    crowd_bake *written = NULL, *png_bake = NULL;
    crowd_asset *asset = NULL, *png_asset = NULL;
    REQUIRE_VOID(write_fixture("decoders", half, 1, dir, sizeof dir, &written, &asset));
    REQUIRE_VOID(
        write_fixture("decoders_png", unorm16, 1, png_dir, sizeof png_dir, &png_bake, &png_asset));
    fx_memory_set exr_set, png_set;
    fx_memory_set_load(&exr_set, dir);
    fx_memory_set_load(&png_set, png_dir);
    int png = find_file(&png_set, ".vat.png"), exr = find_file(&exr_set, ".vat.exr");
    REQUIRE_VOID(png >= 0 && exr >= 0);
    /* libpng: its structs and inflate state are blocks of the heap */
    test_heap heap;
    crowd_bake_load_desc desc = heap_desc(&heap);
    uint16_t *samples = NULL;
    crowd_error error = {0};
    const crowd_texture *vat = &png_bake->vat_position;
    const crowd_bake_file *file = &png_set.files[png];
    CHECK(crowd__png_read_rgba16(file->data, file->size_bytes, file->name, vat->width, vat->height,
                                 &desc.allocator, &samples, &error) == CROWD_OK);
    CHECK_MSG(heap.live == 1 && heap.allocations > 3, "png: %ld live of %ld", heap.live,
              heap.allocations);
    CHECK(samples != NULL &&
          memcmp(samples, vat->texels, (size_t)vat->width * vat->height * 8) == 0);
    heap_free(samples, &heap);
    /* OpenEXR: its context's blocks, handed over through the thread-local */
    desc = heap_desc(&heap);
    void *texels = NULL;
    vat = &written->vat_position;
    file = &exr_set.files[exr];
    CHECK(crowd__exr_read_rgba(file->data, file->size_bytes, file->name, vat->width, vat->height,
                               vat->format, &desc.allocator, &texels, &error) == CROWD_OK);
    CHECK_MSG(heap.live == 1 && heap.allocations > 3, "exr: %ld live of %ld", heap.live,
              heap.allocations);
    CHECK(texels != NULL && memcmp(texels, vat->texels, (size_t)vat->width * vat->height * 8) == 0);
    heap_free(texels, &heap);
    /* the thread-local is put back: a later decode without an allocator is malloc's */
    long before = heap.allocations;
    texels = NULL;
    CHECK(crowd__exr_read_rgba(file->data, file->size_bytes, file->name, vat->width, vat->height,
                               vat->format, NULL, &texels, &error) == CROWD_OK);
    CHECK(heap.allocations == before && heap.live == 0 && texels != NULL);
    free(texels);
    CHECK(heap.foreign == 0);
    fx_memory_set_free(&exr_set);
    fx_memory_set_free(&png_set);
    destroy_fixture(written, asset);
    destroy_fixture(png_bake, png_asset);
}

/* ---- out of memory at every allocation --------------------------------------- */

/* Loads with a heap failing allocation n for n = 0, 1, ... until a load
 * succeeds: each failure is an out-of-memory error with every block back. */
static void fail_each_allocation(const char *label, const char *dir, bool from_disk) {
    fx_memory_set set;
    fx_memory_set_load(&set, dir);
    long failures = 0, wrong_result = 0, kept = 0;
    bool loaded = false;
    for (long n = 0; !loaded && n < 100000; n++) {
        test_heap heap;
        crowd_bake_load_desc desc = heap_desc(&heap);
        heap.fail_at = n;
        crowd_bake *bake = (crowd_bake *)&heap; /* must come back NULL on failure */
        crowd_error error = {0};
        crowd_result result =
            from_disk ? crowd_bake_load(dir, &desc, &bake, &error)
                      : crowd_bake_load_memory(set.files, set.count, &desc, &bake, &error);
        if (result == CROWD_OK) {
            loaded = true;
            CHECK(heap.allocations == n); /* every block before the n-th one was needed */
            crowd_bake_destroy(bake);
        } else {
            failures++;
            if (result != CROWD_ERROR_OUT_OF_MEMORY || bake != NULL) {
                if (wrong_result++ == 0) {
                    fprintf(stderr, "  %s: allocation %ld failed: %s: %s: %s\n", label, n,
                            crowd_result_str(result), error.file, error.reason);
                }
            }
        }
        kept += heap.live;
        CHECK(heap.foreign == 0);
    }
    CHECK_MSG(loaded && failures > 20, "%s: %ld failing loads", label, failures);
    CHECK_MSG(wrong_result == 0, "%s: %ld failures were not out-of-memory errors", label,
              wrong_result);
    CHECK_MSG(kept == 0, "%s: %ld blocks never came back", label, kept);
    fx_memory_set_free(&set);
}

static void test_out_of_memory(void) {
    char dir[1024];
    crowd_bake *written = NULL;
    crowd_asset *asset = NULL;
    REQUIRE_VOID(write_fixture("oom_unorm16", unorm16, 3, dir, sizeof dir, &written, &asset));
    fail_each_allocation("unorm16 from memory", dir, false);
    fail_each_allocation("unorm16 from disk", dir, true);
    destroy_fixture(written, asset);
    REQUIRE_VOID(write_fixture("oom_half", half, 2, dir, sizeof dir, &written, &asset));
    fail_each_allocation("half from memory", dir, false);
    destroy_fixture(written, asset);
}

/* ---- the file set's errors ------------------------------------------------- */

/* Loads `files` and expects `expected`, with *out reset to NULL, the error
 * naming `file` (NULL: any) and its reason containing `words`. */
static void expect_set(const char *what, const crowd_bake_file *files, uint32_t count,
                       const crowd_bake_load_desc *desc, crowd_result expected, const char *file,
                       const char *words) {
    crowd_bake *bake = (crowd_bake *)files; /* a value that must be overwritten */
    crowd_error error = {0};
    crowd_result result = crowd_bake_load_memory(files, count, desc, &bake, &error);
    CHECK_MSG(result == expected && (result == CROWD_OK) == (bake != NULL), "%s: %s (%s: %s)", what,
              crowd_result_str(result), error.file, error.reason);
    CHECK_MSG(file == NULL || strcmp(error.file, file) == 0, "%s: error names \"%s\"", what,
              error.file);
    CHECK_MSG(strstr(error.reason, words) != NULL, "%s: reason \"%s\" lacks \"%s\"", what,
              error.reason, words);
    if (result == CROWD_OK) {
        crowd_bake_destroy(bake);
    }
}

static void on_log(void *user, crowd_log_level level, const char *message) {
    if (level == CROWD_LOG_INFO && strstr(message, "loaded bake \"synth\"") != NULL) {
        (*(int *)user)++;
    }
}

static void test_set_errors(void) {
    char dir[1024];
    crowd_bake *written = NULL;
    crowd_asset *asset = NULL;
    REQUIRE_VOID(write_fixture("errors", unorm16, 1, dir, sizeof dir, &written, &asset));
    fx_memory_set set;
    fx_memory_set_load(&set, dir);
    REQUIRE_VOID(set.count == 5); /* manifest, VAT, BAT, mesh, runtime clips */
    int manifest = find_file(&set, ".crowd.json"), mesh = find_file(&set, ".mesh.glb");
    int vat = find_file(&set, ".vat.png");
    REQUIRE_VOID(manifest >= 0 && mesh >= 0 && vat >= 0);
    crowd_bake_file files[8];
    const uint32_t n = set.count;

    /* the good set, with an extra file the manifest does not name, and the logger */
    memcpy(files, set.files, n * sizeof *files);
    files[n] = (crowd_bake_file){"readme.txt", "hi", 2};
    int logged = 0;
    crowd_bake_load_desc logging = {.logger = {on_log, &logged}};
    expect_set("good set", files, n + 1, &logging, CROWD_OK, "", "");
    CHECK(logged == 1);
    /* arguments */
    crowd_error error = {0};
    CHECK(crowd_bake_load_memory(set.files, n, NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "output pointer") != NULL);
    expect_set("no files", NULL, 3, NULL, CROWD_ERROR_INVALID_ARGUMENT, "", "NULL given");
    expect_set("empty set", set.files, 0, NULL, CROWD_ERROR_INVALID_ARGUMENT, "", "0 manifests");
    /* one file at a time broken */
    memcpy(files, set.files, n * sizeof *files);
    files[1].name = NULL;
    expect_set("no name", files, n, NULL, CROWD_ERROR_INVALID_ARGUMENT, "", "file 1 ");
    memcpy(files, set.files, n * sizeof *files);
    files[mesh].data = NULL;
    expect_set("no bytes", files, n, NULL, CROWD_ERROR_INVALID_ARGUMENT, set.names[mesh],
               "no data pointer");
    /* an empty file (NULL, 0) is allowed as such, and fails its manifest check */
    files[mesh].size_bytes = 0;
    expect_set("empty file", files, n, NULL, CROWD_ERROR_INVALID_DATA, set.names[mesh], "0 bytes");
    static const char *const bad_names[] = {"openvat/synth.png", "../synth.vat.png", "..",
                                            ".synth.vat.png",    "a\\b.png",         ""};
    for (size_t k = 0; k < sizeof bad_names / sizeof bad_names[0]; k++) {
        memcpy(files, set.files, n * sizeof *files);
        files[n] = (crowd_bake_file){bad_names[k], "x", 1};
        expect_set(bad_names[k], files, n + 1, NULL, CROWD_ERROR_INVALID_ARGUMENT, "",
                   "not a plain file name");
    }
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    files[n] = (crowd_bake_file){long_name, "x", 1};
    expect_set("long name", files, n + 1, NULL, CROWD_ERROR_INVALID_ARGUMENT, "", "at most 200");
    /* two files of one name, even with the same bytes */
    memcpy(files, set.files, n * sizeof *files);
    files[n] = set.files[vat];
    expect_set("duplicate", files, n + 1, NULL, CROWD_ERROR_INVALID_ARGUMENT, set.names[vat],
               "have this name");
    /* manifests: none, two */
    memcpy(files, set.files, n * sizeof *files);
    files[manifest] = files[n - 1];
    expect_set("no manifest", files, n - 1, NULL, CROWD_ERROR_INVALID_ARGUMENT, "", "0 manifests");
    memcpy(files, set.files, n * sizeof *files);
    files[n] = set.files[manifest];
    files[n].name = "other.crowd.json";
    expect_set("two manifests", files, n + 1, NULL, CROWD_ERROR_INVALID_ARGUMENT, "",
               "2 manifests");
    /* a file the manifest names is missing */
    memcpy(files, set.files, n * sizeof *files);
    files[mesh] = files[n - 1];
    expect_set("mesh missing", files, n - 1, NULL, CROWD_ERROR_IO, set.names[mesh],
               "not in the file set");
    /* a half-set allocator, refused by both loads before anything is taken */
    test_heap heap;
    crowd_bake_load_desc halves[2] = {heap_desc(&heap), heap_desc(&heap)};
    halves[0].allocator.free_fn = NULL;
    halves[1].allocator.alloc_fn = NULL;
    for (int k = 0; k < 2; k++) {
        expect_set("half allocator", set.files, n, &halves[k], CROWD_ERROR_INVALID_ARGUMENT, "",
                   k == 0 ? "has alloc_fn but no free_fn" : "has free_fn but no alloc_fn");
        crowd_bake *bake = NULL;
        CHECK(crowd_bake_load(dir, &halves[k], &bake, &error) == CROWD_ERROR_INVALID_ARGUMENT &&
              bake == NULL && strcmp(error.file, dir) == 0);
    }
    CHECK(heap.allocations == 0);
    fx_memory_set_free(&set);
    destroy_fixture(written, asset);
}

int main(void) {
    check_enter_temp_dir("test_bakeio_memory");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_disk_and_memory();
    test_decoders();
    test_out_of_memory();
    test_set_errors();
    test_remove_tree(root);
    return check_finish();
}
