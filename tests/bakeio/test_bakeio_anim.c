/* test_bakeio_anim - the runtime clips of a bake (NAME.G.anim.bin,
 * manifest version 4).
 *
 * A hand-made character with clips of every interpolation, constant
 * tracks (one at the rest value) and shared key times is baked, written and
 * loaded from disk and from memory: the loaded asset's clips sample bit for
 * bit like the source's, the constant tracks are one key or none, and the
 * manifest reports the counts, size and a measured error of 0. builtin: is
 * baked the same way and its measured error is within 1e-5 of the bounds
 * diagonal. The character's sockets travel in the file (version 2) and
 * come back bit for bit; a version-1 file (no sockets section) still
 * loads, without sockets. Then the file is broken: cut at every section
 * boundary, its offsets, indices, names, floats (NaN, times going back), a
 * parent after its child, a socket on a joint that is not there or with an
 * offset that is not finite, another version or encoding, and the
 * manifest's "anim"; each must fail with the file named and a reason saying
 * what is wrong, and no bake. A version-3 manifest without "anim" still
 * loads, without clips.
 */
#define _XOPEN_SOURCE 700

#include "check.h"
#include "bakeio_fixture.h"
#include "test_json.h"
#include "crowd/builtin.h"
#include "load/anim_io.h"

static char root[] = "/tmp/test_bakeio_anim.XXXXXX";
static char good[1024];
static int case_number;

/* ---- the character: clips of every kind --------------------------------------- */

/* Poses of both clips at many times (past both ends too), bit for bit. */
static void check_same_clips(const crowd_asset *source, const crowd_asset *loaded,
                             const char *what) {
    uint32_t joints = source->skeleton.joint_count;
    crowd_transform *a = calloc(joints, sizeof *a), *b = calloc(joints, sizeof *b);
    bool same = loaded->clip_count == source->clip_count;
    for (uint32_t c = 0; same && c < source->clip_count; c++) {
        const crowd_clip *x = &source->clips[c], *y = &loaded->clips[c];
        same =
            strcmp(x->name, y->name) == 0 && x->duration_s == y->duration_s && x->loop == y->loop;
        for (int i = -2; same && i <= 40; i++) {
            float t = (float)i * x->duration_s / 32.0f;
            crowd_anim_sample(&source->skeleton, x, t, NULL, a);
            crowd_anim_sample(&loaded->skeleton, y, t, NULL, b);
            same = memcmp(a, b, joints * sizeof *a) == 0;
            CHECK_MSG(same, "%s: clip %u differs at %g s", what, c, (double)t);
        }
    }
    CHECK_MSG(same, "%s: the loaded clips are not the source's", what);
    free(a);
    free(b);
}

/* Two sockets: on the head, moved and turned, and on the root. */
static void add_sockets(crowd_asset *asset) {
    asset->socket_count = 2;
    asset->sockets = calloc(2, sizeof *asset->sockets);
    const char *names[2] = {"socket_hat", "socket_belt"};
    const uint32_t joints[2] = {2, 0};
    for (int i = 0; i < 2; i++) {
        crowd_socket *socket = &asset->sockets[i];
        socket->name = fx_strdup(names[i]);
        socket->joint = joints[i];
        for (int d = 0; d < 4; d++) {
            socket->offset[5 * d] = 1.0f;
        }
        socket->offset[12] = 0.1f * (float)(i + 1);
        socket->offset[13] = 0.25f;
    }
    /* the hat's turned 90 degrees about +Y */
    float *m = asset->sockets[0].offset;
    m[0] = 0.0f;
    m[2] = -1.0f;
    m[8] = 1.0f;
    m[10] = 0.0f;
}

/* The loaded asset's sockets are the source's, bit for bit. */
static void check_same_sockets(const crowd_asset *source, const crowd_asset *loaded,
                               const char *what) {
    bool same = loaded->socket_count == source->socket_count;
    for (uint32_t i = 0; same && i < source->socket_count; i++) {
        const crowd_socket *a = &source->sockets[i], *b = &loaded->sockets[i];
        same = strcmp(a->name, b->name) == 0 && a->joint == b->joint &&
               memcmp(a->offset, b->offset, sizeof a->offset) == 0;
    }
    CHECK_MSG(same, "%s: the loaded sockets are not the source's (%u of %u)", what,
              loaded->socket_count, source->socket_count);
}

static crowd_asset *make_asset(void) {
    crowd_asset *asset = fx_asset_create(24);
    fx_add_clips(asset);
    add_sockets(asset);
    crowd_error error = {0};
    CHECK_MSG(crowd_asset_validate(asset, &error) == CROWD_OK, "fixture: %s", error.reason);
    return asset;
}

static crowd_bake *load(const char *dir) {
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_load(dir, NULL, &bake, &error);
    CHECK_MSG(result == CROWD_OK, "load %s: %s: %s", dir, error.file, error.reason);
    return bake;
}

static cJSON *read_manifest(const char *dir) {
    char path[1100];
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    return test_read_json(path);
}

static double member_number(const cJSON *object, const char *key) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? item->valuedouble : -1.0;
}

static void test_round_trip(const crowd_asset *asset) {
    fx_bake_options options = {4, CROWD_VAT_UNORM16_OCT, 4, CROWD_BAT_F32, 3};
    crowd_bake *bake = fx_bake_create(asset, &options);
    snprintf(good, sizeof good, "%s/good", root);
    REQUIRE_VOID(fx_written(bake, good, NULL));
    cJSON *json = read_manifest(good);
    const cJSON *anim = cJSON_GetObjectItemCaseSensitive(json, "anim");
    char file[1100];
    snprintf(file, sizeof file, "%s/synth.1.anim.bin", good);
    struct stat st;
    CHECK(stat(file, &st) == 0);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(anim, "file");
    CHECK(cJSON_IsString(name) && strcmp(name->valuestring, "synth.1.anim.bin") == 0);
    /* walk: 2 tracks (the rest scale left out), wave: 3 (the held rotation as one key) */
    CHECK(member_number(anim, "track_count") == 5);
    CHECK(member_number(anim, "key_count") == 3 + 3 + 2 + 1 + 2);
    CHECK(member_number(anim, "size_bytes") == (double)st.st_size);
    CHECK(member_number(anim, "error_max") == 0.0 && member_number(anim, "error_max_rel") == 0.0);
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(json, "files");
    CHECK(cJSON_GetObjectItemCaseSensitive(files, "synth.1.anim.bin") != NULL);
    cJSON_Delete(json);
    /* key times: walk's two tracks share theirs; 3 + 3 * 3 + 3 * 4 floats,
     * then wave's 2 + 18, 1 (the held key's time) + 4, 2 + 6 */
    size_t size = 0;
    uint8_t *bytes = (uint8_t *)test_read_file(file, &size);
    uint32_t data_floats = 0;
    REQUIRE_VOID(bytes != NULL && size >= ANIM_HEADER_BYTES);
    memcpy(&data_floats, bytes + 28, 4);
    CHECK_MSG(data_floats == 3 + 9 + 12 + 2 + 18 + 1 + 4 + 2 + 6, "data floats %u", data_floats);
    free(bytes);

    crowd_bake *loaded = load(good);
    if (loaded != NULL) {
        CHECK(loaded->anim.present && loaded->anim.track_count == 5 &&
              loaded->anim.size_bytes == (uint64_t)st.st_size);
        CHECK(loaded->clips[0].source_clip == 0 && loaded->clips[1].source_clip == 1);
        const crowd_clip *wave = &loaded->asset->clips[1];
        CHECK(wave->tracks[0].rotation.key_count == 1 &&
              wave->tracks[2].translation.key_count == 2 &&
              wave->tracks[2].translation.interpolation == CROWD_INTERP_CUBIC);
        CHECK(loaded->asset->clips[0].tracks[2].scale.key_count == 0);
        CHECK(loaded->asset->clips[0].tracks[0].translation.interpolation == CROWD_INTERP_STEP);
        check_same_clips(asset, loaded->asset, "from disk");
        check_same_sockets(asset, loaded->asset, "from disk");
        /* and written again from the loaded bake: the same bytes */
        char again[1100];
        snprintf(again, sizeof again, "%s/again", root);
        CHECK(fx_written(loaded, again, NULL));
        size_t first_size = 0, second_size = 0;
        char path[1200];
        snprintf(path, sizeof path, "%s/synth.1.anim.bin", again);
        char *first = test_read_file(file, &first_size),
             *second = test_read_file(path, &second_size);
        CHECK(first && second && first_size == second_size &&
              memcmp(first, second, first_size) == 0);
        free(first);
        free(second);
    }
    crowd_bake_destroy(loaded);
    crowd_bake_destroy(bake);
}

/* The same files from memory. */
static void test_memory(const crowd_asset *asset) {
    const char *names[] = {"synth.crowd.json", "synth.1.vat.png", "synth.1.bat.exr",
                           "synth.1.mesh.glb", "synth.1.anim.bin"};
    crowd_bake_file files[5];
    char *data[5];
    for (int i = 0; i < 5; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", good, names[i]);
        size_t size = 0;
        data[i] = test_read_file(path, &size);
        files[i] = (crowd_bake_file){names[i], data[i], size};
    }
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_bake_load_memory(files, 5, NULL, &bake, &error) == CROWD_OK, "memory: %s",
              error.reason);
    if (bake != NULL) {
        CHECK(bake->anim.present);
        check_same_clips(asset, bake->asset, "from memory");
        check_same_sockets(asset, bake->asset, "from memory");
    }
    crowd_bake_destroy(bake);
    bake = NULL;
    CHECK(crowd_bake_load_memory(files, 4, NULL, &bake, &error) == CROWD_ERROR_IO && bake == NULL &&
          strstr(error.file, "anim.bin") != NULL);
    for (int i = 0; i < 5; i++) {
        free(data[i]);
    }
}

/* builtin:'s clips, baked (BAT only, no LODs, to keep it short): the error
 * is measured and within 1e-5 of the diagonal, and the loaded clips play
 * like the source's. */
static void test_builtin(void) {
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    REQUIRE_VOID(crowd_builtin_create(&asset, &error) == CROWD_OK);
    crowd_bake_desc desc = {.what = CROWD_BAKE_BAT_ONLY, .lods = -1};
    crowd_bake *bake = NULL;
    REQUIRE_VOID(crowd_bake_build(asset, &desc, &bake, &error) == CROWD_OK);
    printf("  builtin: %u tracks, %u keys, %llu bytes, error %.3g (%.3g of the diagonal)\n",
           bake->anim.track_count, bake->anim.key_count, (unsigned long long)bake->anim.size_bytes,
           bake->anim.error_max, bake->anim.error_max_rel);
    CHECK(bake->anim.present && bake->anim.size_bytes > 0 && bake->anim.error_max_rel <= 1e-5);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/builtin", root);
    CHECK(fx_written(bake, dir, NULL));
    crowd_bake *loaded = load(dir);
    if (loaded != NULL) {
        CHECK(loaded->anim.present && loaded->anim.error_max == bake->anim.error_max);
        check_same_clips(asset, loaded->asset, "builtin:");
        check_same_sockets(asset, loaded->asset, "builtin:");
    }
    crowd_bake_destroy(loaded);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* ---- broken files ------------------------------------------------------------ */

typedef struct anim_file {
    uint8_t *bytes;
    size_t size;
    uint32_t offsets[6]; /* skeleton, clips, tracks, strings, data, file end */
    uint32_t sockets;    /* where the sockets section starts */
} anim_file;

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t value) {
    p[0] = (uint8_t)value;
    p[1] = (uint8_t)(value >> 8);
    p[2] = (uint8_t)(value >> 16);
    p[3] = (uint8_t)(value >> 24);
}

static anim_file read_good(void) {
    anim_file f = {0};
    char path[1100];
    snprintf(path, sizeof path, "%s/synth.1.anim.bin", good);
    f.bytes = (uint8_t *)test_read_file(path, &f.size);
    for (int i = 0; f.bytes != NULL && i < 6; i++) {
        f.offsets[i] = le32(f.bytes + 32 + 4 * i);
    }
    f.sockets = f.bytes != NULL ? le32(f.bytes + 60) : 0;
    return f;
}

/* Writes `size` bytes as the anim file of a fresh copy of the good folder,
 * reseals it and loads it: `expected` naming the file, with `reason`. */
static void expect_anim(const uint8_t *bytes, size_t size, crowd_result expected,
                        const char *reason, const char *what) {
    char dir[1100], path[1200];
    snprintf(dir, sizeof dir, "%s/case%03d", root, ++case_number);
    fx_copy_folder(good, dir);
    snprintf(path, sizeof path, "%s/synth.1.anim.bin", dir);
    test_write_file(path, bytes, size);
    fx_reseal(dir, "synth.crowd.json");
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_load(dir, NULL, &bake, &error);
    printf("  %-26s %s: %s\n", what, crowd_result_str(result), error.reason);
    size_t length = strlen(error.file);
    bool names_file = length >= 16 && strcmp(error.file + length - 16, "synth.1.anim.bin") == 0;
    CHECK_MSG(result == expected && names_file && strstr(error.reason, reason) != NULL &&
                  bake == NULL,
              "%s: got %s, \"%s: %s\"; want %s with \"%s\"", what, crowd_result_str(result),
              error.file, error.reason, crowd_result_str(expected), reason);
    crowd_bake_destroy(bake);
}

/* A copy of the good file with the 32-bit word at `offset` set to `value`. */
static void word_case(const anim_file *f, size_t offset, uint32_t value, crowd_result expected,
                      const char *reason, const char *what) {
    uint8_t *copy = malloc(f->size);
    memcpy(copy, f->bytes, f->size);
    put32(copy + offset, value);
    expect_anim(copy, f->size, expected, reason, what);
    free(copy);
}

static void byte_case(const anim_file *f, size_t offset, uint8_t value, crowd_result expected,
                      const char *reason, const char *what) {
    uint8_t *copy = malloc(f->size);
    memcpy(copy, f->bytes, f->size);
    copy[offset] = value;
    expect_anim(copy, f->size, expected, reason, what);
    free(copy);
}

static void test_truncated(const anim_file *f) {
    const size_t cuts[] = {0,
                           7,
                           8,
                           ANIM_HEADER_BYTES - 1,
                           ANIM_HEADER_BYTES,
                           f->offsets[0] + ANIM_ROOT_BYTES,
                           f->offsets[1],
                           f->offsets[2],
                           f->sockets,
                           f->sockets + ANIM_SOCKET_BYTES,
                           f->offsets[3],
                           f->offsets[4],
                           f->size - 4,
                           f->size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        char what[64];
        snprintf(what, sizeof what, "cut at byte %zu", cuts[i]);
        expect_anim(f->bytes, cuts[i], CROWD_ERROR_INVALID_DATA,
                    cuts[i] < ANIM_HEADER_BYTES ? "shorter than its 64-byte header" : "cut short",
                    what);
    }
    /* one byte more is not the file either */
    uint8_t *longer = calloc(1, f->size + 4);
    memcpy(longer, f->bytes, f->size);
    expect_anim(longer, f->size + 4, CROWD_ERROR_INVALID_DATA, "its header says", "4 bytes more");
    free(longer);
}

static void test_bad_words(const anim_file *f) {
    const uint32_t skeleton = f->offsets[0], clips = f->offsets[1], tracks = f->offsets[2];
    const uint32_t data = f->offsets[4];
    byte_case(f, 0, 'X', CROWD_ERROR_INVALID_DATA, "magic", "magic");
    word_case(f, 8, 3, CROWD_ERROR_UNSUPPORTED, "version 3", "version");
    word_case(f, 8, 0, CROWD_ERROR_UNSUPPORTED, "version 0", "version 0");
    word_case(f, 12, 4, CROWD_ERROR_INVALID_DATA, "4 joints", "joint count");
    word_case(f, 16, 3, CROWD_ERROR_INVALID_DATA, "3 clips", "clip count");
    word_case(f, 20, 4, CROWD_ERROR_INVALID_DATA, "header says the file is", "track count");
    word_case(f, 36, clips + 4, CROWD_ERROR_INVALID_DATA, "clips section is at byte",
              "clips offset");
    word_case(f, 44, 0xFFFFFF00u, CROWD_ERROR_INVALID_DATA, "strings section", "strings offset");
    word_case(f, 52, 0, CROWD_ERROR_INVALID_DATA, "header says the file is", "file size");
    word_case(f, 56, 3, CROWD_ERROR_INVALID_DATA, "header says the file is", "socket count");
    word_case(f, 60, f->sockets + 4, CROWD_ERROR_INVALID_DATA, "sockets section is at byte",
              "sockets offset");
    /* sockets: socket_hat on joint 2; a joint past the last, a NaN offset,
     * a name outside the strings or holding a NUL */
    word_case(f, f->sockets + 8, 3, CROWD_ERROR_INVALID_DATA, "socket 0 follows joint 3 of 3",
              "socket joint");
    word_case(f, f->sockets + ANIM_SOCKET_BYTES + 8, 0xFFFFFFFFu, CROWD_ERROR_INVALID_DATA,
              "socket 1 follows joint", "socket joint -1");
    word_case(f, f->sockets + 12 + 4 * 13, 0x7FC00000u, CROWD_ERROR_INVALID_DATA,
              "socket 0's offset holds a value that is not finite", "socket offset NaN");
    word_case(f, f->sockets + ANIM_SOCKET_BYTES + 12, 0xFF800000u, CROWD_ERROR_INVALID_DATA,
              "socket 1's offset", "socket offset -inf");
    word_case(f, f->sockets, 1000, CROWD_ERROR_INVALID_DATA, "socket 0's name", "socket name");
    word_case(f, f->sockets + 4, 0xFFFFFFF0u, CROWD_ERROR_INVALID_DATA, "outside the",
              "socket name length");
    byte_case(f, f->offsets[3] + le32(f->bytes + f->sockets) + 3, 0, CROWD_ERROR_INVALID_DATA,
              "socket 0's name holds a NUL", "NUL in a socket name");
    /* skeleton: joint 0's parent is joint 2, after it; joint 1's parent itself */
    const size_t joint0 = skeleton + ANIM_ROOT_BYTES;
    word_case(f, joint0 + 8, 2, CROWD_ERROR_INVALID_DATA, "parents come before their children",
              "parent after child");
    word_case(f, joint0 + ANIM_JOINT_BYTES + 8, 1, CROWD_ERROR_INVALID_DATA, "parents come before",
              "parent is itself");
    word_case(f, joint0, 1000, CROWD_ERROR_INVALID_DATA, "outside the", "joint name offset");
    word_case(f, joint0 + 12, 0x7FC00000u, CROWD_ERROR_INVALID_DATA, "not finite", "rest pose NaN");
    word_case(f, joint0 + 12, 0x3F800000u, CROWD_ERROR_INVALID_DATA,
              "differs from the mesh's skeleton", "rest pose differs");
    word_case(f, skeleton + 48, 0x40A00000u, CROWD_ERROR_INVALID_DATA, "root transform",
              "root differs");
    /* clips */
    word_case(f, clips + 8, 0x3F800000u, CROWD_ERROR_INVALID_DATA, "not the manifest's clip",
              "duration differs");
    word_case(f, clips + 12, 6, CROWD_ERROR_INVALID_DATA, "only bit 0", "clip flags");
    word_case(f, clips + 16, 1, CROWD_ERROR_INVALID_DATA, "tracks start at", "first track");
    word_case(f, clips + ANIM_CLIP_BYTES + 20, 9, CROWD_ERROR_INVALID_DATA, "past the last track",
              "track count of a clip");
    /* names: root spine head walk wave */
    byte_case(f, f->offsets[3] + 14, 'x', CROWD_ERROR_INVALID_DATA, "not the manifest's clip",
              "clip name differs");
    byte_case(f, f->offsets[3] + 1, 0, CROWD_ERROR_INVALID_DATA, "NUL", "NUL in a name");
    /* tracks */
    word_case(f, tracks, 3, CROWD_ERROR_INVALID_DATA, "names joint 3", "track joint");
    byte_case(f, tracks + 4, 3, CROWD_ERROR_INVALID_DATA, "channel 3", "track channel");
    byte_case(f, tracks + 5, 7, CROWD_ERROR_INVALID_DATA, "interpolation 7", "interpolation");
    byte_case(f, tracks + 6, 1, CROWD_ERROR_UNSUPPORTED, "encoding 1", "value encoding");
    word_case(f, tracks + 8, 0, CROWD_ERROR_INVALID_DATA, "0 keys", "no keys");
    word_case(f, tracks + 8, 1000, CROWD_ERROR_INVALID_DATA, "beyond the data", "keys beyond");
    word_case(f, tracks + 12, (f->size - data) / 4 - 1, CROWD_ERROR_INVALID_DATA, "beyond the data",
              "times beyond");
    word_case(f, tracks + 16, 0xFFFFFFF0u, CROWD_ERROR_INVALID_DATA, "beyond the data",
              "values beyond");
    /* track 0 (joint 0 translation) made joint 2's, after track 1 (joint 1 rotation) */
    word_case(f, tracks, 2, CROWD_ERROR_INVALID_DATA, "joint and channel", "tracks out of order");
    /* data: walk's times are floats 0..2, then track 0's values */
    word_case(f, data, 0x7FC00000u, CROWD_ERROR_INVALID_DATA, "key time is not finite", "time NaN");
    word_case(f, data + 4, 0xBF800000u, CROWD_ERROR_INVALID_DATA, "before the one before",
              "time going back");
    word_case(f, data + 16, 0x7F800000u, CROWD_ERROR_INVALID_DATA, "key value is not finite",
              "value infinite");
    /* a rotation key that is not a unit quaternion: crowd_asset_validate */
    word_case(f, data + 4 * 12, 0x40000000u, CROWD_ERROR_INVALID_DATA, "unit quaternion",
              "rotation not unit");
}

/* The good file as version 1: its sockets section taken out (their names
 * stay in the strings, unused), the later offsets moved back. */
static uint8_t *as_version_1(const anim_file *f, size_t *out_size) {
    uint32_t cut = le32(f->bytes + 56) * ANIM_SOCKET_BYTES;
    uint8_t *v1 = malloc(f->size - cut);
    memcpy(v1, f->bytes, f->sockets);
    memcpy(v1 + f->sockets, f->bytes + f->sockets + cut, f->size - f->sockets - cut);
    put32(v1 + 8, 1);
    for (size_t at = 44; at <= 52; at += 4) { /* strings, data, file size */
        put32(v1 + at, le32(v1 + at) - cut);
    }
    put32(v1 + 56, 0);
    put32(v1 + 60, 0);
    *out_size = f->size - cut;
    return v1;
}

/* Version 1 (before sockets) still loads: the clips, no sockets; its last
 * header words stay reserved. */
static void test_version_1(const anim_file *f, const crowd_asset *asset) {
    size_t size = 0;
    uint8_t *v1 = as_version_1(f, &size);
    char dir[1100], path[1200];
    snprintf(dir, sizeof dir, "%s/anim_v1", root);
    fx_copy_folder(good, dir);
    snprintf(path, sizeof path, "%s/synth.1.anim.bin", dir);
    test_write_file(path, v1, size);
    fx_reseal(dir, "synth.crowd.json");
    crowd_bake *bake = load(dir);
    if (bake != NULL) {
        CHECK(bake->anim.present && bake->asset->socket_count == 0 && bake->asset->sockets == NULL);
        check_same_clips(asset, bake->asset, "version 1");
    }
    crowd_bake_destroy(bake);
    v1[60] = 1;
    expect_anim(v1, size, CROWD_ERROR_INVALID_DATA, "reserved", "version 1 reserved byte");
    free(v1);
}

/* ---- the manifest's "anim" ------------------------------------------------ */

typedef void (*json_edit)(cJSON *document);

static void manifest_case(json_edit edit, crowd_result expected, const char *reason,
                          const char *what) {
    char dir[1100], path[1200];
    snprintf(dir, sizeof dir, "%s/case%03d", root, ++case_number);
    fx_copy_folder(good, dir);
    cJSON *json = read_manifest(dir);
    edit(json);
    char *printed = cJSON_Print(json);
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    test_write_file(path, printed, strlen(printed));
    cJSON_free(printed);
    cJSON_Delete(json);
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_load(dir, NULL, &bake, &error);
    printf("  %-26s %s: %s\n", what, crowd_result_str(result), error.reason);
    CHECK_MSG(result == expected && strstr(error.reason, reason) != NULL && bake == NULL,
              "%s: got %s \"%s\"; want %s with \"%s\"", what, crowd_result_str(result),
              error.reason, crowd_result_str(expected), reason);
    crowd_bake_destroy(bake);
}

static cJSON *anim_of(cJSON *r) {
    return cJSON_GetObjectItemCaseSensitive(r, "anim");
}
static void edit_no_anim(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(r, "anim");
}
static void edit_anim_number(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(r, "anim", cJSON_CreateNumber(1));
}
static void edit_anim_size(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(anim_of(r), "size_bytes", cJSON_CreateNumber(12));
}
static void edit_anim_error(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(anim_of(r), "error_max", cJSON_CreateNumber(-1));
}
static void edit_anim_file(cJSON *r) {
    cJSON_ReplaceItemInObjectCaseSensitive(anim_of(r), "file", cJSON_CreateString("../x.bin"));
}
static void edit_anim_unlisted(cJSON *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "files"),
                                            "synth.1.anim.bin");
}

/* A version-3 manifest: no "anim"; loads, and has no runtime clips. */
static void test_version_3(void) {
    char dir[1100], path[1200];
    snprintf(dir, sizeof dir, "%s/v3", root);
    fx_copy_folder(good, dir);
    cJSON *json = read_manifest(dir);
    cJSON_ReplaceItemInObjectCaseSensitive(json, "version", cJSON_CreateNumber(3));
    edit_no_anim(json);
    edit_anim_unlisted(json);
    char *printed = cJSON_Print(json);
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    test_write_file(path, printed, strlen(printed));
    cJSON_free(printed);
    cJSON_Delete(json);
    crowd_bake *bake = load(dir);
    CHECK(bake != NULL && !bake->anim.present && bake->asset->clip_count == 0 &&
          bake->clips[0].source_clip == UINT32_MAX);
    crowd_bake_destroy(bake);
}

int main(void) {
    check_enter_temp_dir("test_bakeio_anim");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    crowd_asset *asset = make_asset();
    test_round_trip(asset);
    test_memory(asset);
    test_builtin();
    anim_file f = read_good();
    if (f.bytes != NULL) {
        test_truncated(&f);
        test_bad_words(&f);
        test_version_1(&f, asset);
    }
    free(f.bytes);
    manifest_case(edit_no_anim, CROWD_ERROR_INVALID_DATA, "anim is missing", "no anim");
    manifest_case(edit_anim_number, CROWD_ERROR_INVALID_DATA, "object or null", "anim a number");
    manifest_case(edit_anim_file, CROWD_ERROR_INVALID_DATA, "not a plain file name", "anim file");
    manifest_case(edit_anim_error, CROWD_ERROR_INVALID_DATA, ">= 0", "negative error");
    manifest_case(edit_anim_unlisted, CROWD_ERROR_INVALID_DATA, "no size and checksum",
                  "anim not in files");
    manifest_case(edit_anim_size, CROWD_ERROR_INVALID_DATA, "anim.size_bytes", "anim size");
    test_version_3();
    crowd_asset_destroy(asset);
    test_remove_tree(root);
    return check_finish();
}
