/* Reading NAME.G.anim.bin (anim_io.h) into a loaded bake's asset. The file
 * is untrusted: every count, offset and index is checked before it is used
 * to reach into the bytes, and every float before it is copied, so a file
 * that is cut short, patched or made up gives one clear error and leaves
 * the asset without clips and sockets. */
#include "load/anim_io.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/core_internal.h"

typedef struct anim_reader {
    const uint8_t *data;
    size_t size;
    const char *path;
    crowd_error *error;
    anim_header header;
} anim_reader;

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float lef32(const uint8_t *p) {
    uint32_t bits = le32(p);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* `count` floats at byte `at`, all finite, into out; false otherwise. */
static bool read_finite(const uint8_t *at, uint32_t count, float *out) {
    for (uint32_t i = 0; i < count; i++) {
        out[i] = lef32(at + 4 * (size_t)i);
        if (!isfinite(out[i])) {
            return false;
        }
    }
    return true;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static crowd_result
invalid(anim_reader *r, const char *format, ...) {
    char reason[sizeof r->error->reason];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    return crowd_error_set(r->error, CROWD_ERROR_INVALID_DATA, r->path, "%s", reason);
}

/* ---- header ------------------------------------------------------------------ */

static crowd_result read_header(anim_reader *r, uint32_t joint_count, uint32_t clip_count) {
    if (r->size < ANIM_HEADER_BYTES) {
        return invalid(r, "file is %zu bytes, shorter than its %u-byte header", r->size,
                       ANIM_HEADER_BYTES);
    }
    if (memcmp(r->data, ANIM_MAGIC, 8) != 0) {
        return crowd_error_set(r->error, CROWD_ERROR_INVALID_DATA, r->path,
                               "not a crowd runtime clips file (no \"%s\" magic)", ANIM_MAGIC);
    }
    const uint8_t *w = r->data + 8;
    anim_header *h = &r->header;
    h->version = le32(w);
    if (h->version != ANIM_VERSION && h->version != ANIM_VERSION_NO_SOCKETS) {
        return crowd_error_set(r->error, CROWD_ERROR_UNSUPPORTED, r->path,
                               "runtime clips version %u; this crowd reads versions %u and %u",
                               h->version, ANIM_VERSION_NO_SOCKETS, ANIM_VERSION);
    }
    anim_header stored = {0};
    uint32_t *fields[] = {&h->joint_count,       &h->clip_count,        &h->track_count,
                          &h->string_bytes,      &h->data_floats,       &stored.skeleton_offset,
                          &stored.clips_offset,  &stored.tracks_offset, &stored.strings_offset,
                          &stored.data_offset,   &stored.file_bytes,    &h->socket_count,
                          &stored.sockets_offset};
    /* Version 1 has no sockets: its last two words are reserved. */
    size_t field_count = sizeof fields / sizeof *fields - (h->version == ANIM_VERSION ? 0 : 2);
    for (size_t i = 0; i < field_count; i++) {
        *fields[i] = le32(w + 4 * (i + 1));
    }
    for (size_t at = 8 + 4 * (field_count + 1); at < ANIM_HEADER_BYTES; at++) {
        if (r->data[at] != 0) {
            return invalid(r, "header byte %zu is %u; the reserved bytes must be 0", at,
                           r->data[at]);
        }
    }
    if (h->joint_count != joint_count) {
        return invalid(r, "the file has %u joints, the mesh's skeleton %u", h->joint_count,
                       joint_count);
    }
    if (h->clip_count != clip_count) {
        return invalid(r, "the file has %u clips, the manifest %u", h->clip_count, clip_count);
    }
    if ((uint64_t)h->track_count > 3ull * joint_count * clip_count) {
        return invalid(r, "the file has %u tracks, more than 3 per joint and clip (%llu)",
                       h->track_count, 3ull * joint_count * clip_count);
    }
    if (!anim_layout(h)) {
        return invalid(r, "its counts make a file of more than 4 GiB (%u tracks, %u floats)",
                       h->track_count, h->data_floats);
    }
    if (stored.file_bytes != h->file_bytes) {
        return invalid(r, "the header says the file is %u bytes, its counts make %u",
                       stored.file_bytes, h->file_bytes);
    }
    if (r->size != h->file_bytes) {
        return invalid(r, "file is %zu bytes, its header says %u (cut short, or not one file)",
                       r->size, h->file_bytes);
    }
    const char *names[] = {"skeleton", "clips", "tracks", "strings", "data", "sockets"};
    const uint32_t expected[] = {h->skeleton_offset, h->clips_offset, h->tracks_offset,
                                 h->strings_offset,  h->data_offset,  h->sockets_offset};
    const uint32_t found[] = {stored.skeleton_offset, stored.clips_offset, stored.tracks_offset,
                              stored.strings_offset,  stored.data_offset,  stored.sockets_offset};
    for (int i = 0; i < (h->version == ANIM_VERSION ? 6 : 5); i++) {
        if (found[i] != expected[i]) {
            return invalid(r, "the %s section is at byte %u; the counts put it at %u", names[i],
                           found[i], expected[i]);
        }
    }
    for (size_t at = h->strings_offset + h->string_bytes; at < h->data_offset; at++) {
        if (r->data[at] != 0) {
            return invalid(r, "string padding byte %zu is %u, not 0", at, r->data[at]);
        }
    }
    return CROWD_OK;
}

/* Name `index` of the strings section: inside it, no NUL byte. */
static crowd_result read_name(anim_reader *r, const uint8_t *record, const char *what,
                              uint32_t index, const char **out, uint32_t *out_length) {
    uint32_t offset = le32(record), length = le32(record + 4);
    if ((uint64_t)offset + length > r->header.string_bytes) {
        return crowd_error_set(r->error, CROWD_ERROR_INVALID_DATA, r->path,
                               "%s %u's name (bytes %u..+%u) is outside the %u bytes of names",
                               what, index, offset, length, r->header.string_bytes);
    }
    const char *name = (const char *)r->data + r->header.strings_offset + offset;
    if (memchr(name, '\0', length) != NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_INVALID_DATA, r->path,
                               "%s %u's name holds a NUL byte", what, index);
    }
    *out = name;
    *out_length = length;
    return CROWD_OK;
}

static bool same_name(const char *name, uint32_t length, const char *expected) {
    return strlen(expected) == length && memcmp(name, expected, length) == 0;
}

/* Equal values (the mesh's reader may turn a -0 into 0). */
static bool same_floats(const float *a, const float *b, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (a[i] != b[i]) {
            return false;
        }
    }
    return true;
}

/* ---- skeleton: the mesh's, bit for bit ---------------------------------------- */

static crowd_result read_skeleton(anim_reader *r, const crowd_skeleton *skeleton) {
    const uint8_t *at = r->data + r->header.skeleton_offset;
    float root[16];
    if (!read_finite(at, 16, root)) {
        return invalid(r, "the root transform holds a value that is not finite");
    }
    if (!same_floats(root, skeleton->root_transform, 16)) {
        return invalid(r, "the root transform differs from the mesh's skeleton");
    }
    at += ANIM_ROOT_BYTES;
    for (uint32_t j = 0; j < r->header.joint_count; j++, at += ANIM_JOINT_BYTES) {
        const char *name = NULL;
        uint32_t length = 0;
        crowd_result result = read_name(r, at, "joint", j, &name, &length);
        if (result != CROWD_OK) {
            return result;
        }
        int32_t parent = (int32_t)le32(at + 8);
        if (parent < -1 || parent >= (int32_t)j) {
            return invalid(r, "joint %u's parent is %d: parents come before their children", j,
                           parent);
        }
        float trs[10], inverse_bind[16];
        if (!read_finite(at + 12, 10, trs) || !read_finite(at + 52, 16, inverse_bind)) {
            return invalid(r, "joint %u's rest pose or inverse bind is not finite", j);
        }
        if (!same_name(name, length, skeleton->names[j]) || parent != skeleton->parents[j] ||
            !same_floats(trs, skeleton->rest_translation + 3 * j, 3) ||
            !same_floats(trs + 3, skeleton->rest_rotation + 4 * j, 4) ||
            !same_floats(trs + 7, skeleton->rest_scale + 3 * j, 3) ||
            !same_floats(inverse_bind, skeleton->inverse_bind + 16 * j, 16)) {
            return invalid(r,
                           "joint %u differs from the mesh's skeleton (name, parent, rest "
                           "pose or inverse bind)",
                           j);
        }
    }
    return CROWD_OK;
}

/* ---- tracks ------------------------------------------------------------------- */

typedef struct track_record {
    uint32_t joint, channel, interpolation, encoding, key_count, first_time, first_value;
} track_record;

static crowd_result read_track_record(anim_reader *r, uint32_t index, track_record *t) {
    const uint8_t *at = r->data + r->header.tracks_offset + (size_t)index * ANIM_TRACK_BYTES;
    t->joint = le32(at);
    t->channel = at[4];
    t->interpolation = at[5];
    t->encoding = at[6];
    t->key_count = le32(at + 8);
    t->first_time = le32(at + 12);
    t->first_value = le32(at + 16);
    if (t->joint >= r->header.joint_count) {
        return invalid(r, "track %u names joint %u of %u", index, t->joint, r->header.joint_count);
    }
    if (t->channel > ANIM_CHANNEL_SCALE || t->interpolation > CROWD_INTERP_CUBIC || at[7] != 0) {
        return invalid(r, "track %u: channel %u or interpolation %u is unknown", index, t->channel,
                       t->interpolation);
    }
    if (t->encoding != ANIM_ENCODING_F32) {
        return crowd_error_set(r->error, CROWD_ERROR_UNSUPPORTED, r->path,
                               "track %u: value encoding %u is unknown (0: float32)", index,
                               t->encoding);
    }
    uint64_t components = t->channel == ANIM_CHANNEL_ROTATION ? 4 : 3;
    uint64_t floats =
        (uint64_t)t->key_count * components * (t->interpolation == CROWD_INTERP_CUBIC ? 3u : 1u);
    if (t->key_count == 0 || (uint64_t)t->first_time + t->key_count > r->header.data_floats ||
        (uint64_t)t->first_value + floats > r->header.data_floats) {
        return invalid(r, "track %u: %u keys (none, or beyond the data section)", index,
                       t->key_count);
    }
    return CROWD_OK;
}

static crowd_track *channel_of(crowd_joint_tracks *tracks, uint32_t channel) {
    return channel == ANIM_CHANNEL_TRANSLATION ? &tracks->translation
           : channel == ANIM_CHANNEL_ROTATION  ? &tracks->rotation
                                               : &tracks->scale;
}

/* The track's keys into `track` (blocks of `allocator`). */
static crowd_result read_keys(anim_reader *r, const crowd_allocator *allocator, uint32_t index,
                              const track_record *t, crowd_track *track) {
    uint32_t per_key = (t->channel == ANIM_CHANNEL_ROTATION ? 4u : 3u) *
                       (t->interpolation == CROWD_INTERP_CUBIC ? 3u : 1u);
    size_t floats = (size_t)t->key_count * per_key;
    track->times_s = crowd__mem_alloc(allocator, (size_t)t->key_count * sizeof(float));
    track->values = crowd__mem_alloc(allocator, floats * sizeof(float));
    track->key_count = t->key_count;
    track->interpolation = (crowd_interpolation)t->interpolation;
    if (track->times_s == NULL || track->values == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->path, "out of memory");
    }
    const uint8_t *data = r->data + r->header.data_offset;
    if (!read_finite(data + 4 * (size_t)t->first_time, t->key_count, track->times_s)) {
        return invalid(r, "track %u: a key time is not finite", index);
    }
    for (uint32_t k = 0; k < t->key_count; k++) {
        if (track->times_s[k] < 0.0f || (k > 0 && track->times_s[k] < track->times_s[k - 1])) {
            return invalid(r, "track %u: key %u's time is negative or before the one before", index,
                           k);
        }
    }
    if (!read_finite(data + 4 * (size_t)t->first_value, (uint32_t)floats, track->values)) {
        return invalid(r, "track %u: a key value is not finite", index);
    }
    return CROWD_OK;
}

/* ---- clips -------------------------------------------------------------------- */

static crowd_result read_clip(anim_reader *r, const crowd_allocator *allocator, uint32_t c,
                              const crowd_bake_clip *baked, uint32_t *next_track,
                              crowd_clip *clip) {
    const uint8_t *at = r->data + r->header.clips_offset + (size_t)c * ANIM_CLIP_BYTES;
    const char *name = NULL;
    uint32_t length = 0;
    crowd_result result = read_name(r, at, "clip", c, &name, &length);
    if (result != CROWD_OK) {
        return result;
    }
    float duration = lef32(at + 8);
    uint32_t flags = le32(at + 12), first = le32(at + 16), count = le32(at + 20);
    if (!same_name(name, length, baked->name) || duration != baked->duration_s) {
        return crowd_error_set(r->error, CROWD_ERROR_INVALID_DATA, r->path,
                               "clip %u is not the manifest's clip '%s' (the name or duration "
                               "differs)",
                               c, baked->name);
    }
    if ((flags & ~ANIM_CLIP_LOOP) != 0) {
        return invalid(r, "clip %u: flags 0x%x, of which only bit 0 (loop) is defined", c, flags);
    }
    if (first != *next_track || (uint64_t)first + count > r->header.track_count) {
        return invalid(r,
                       "clip %u's tracks start at %u, the clips before it end at %u (or it runs "
                       "past the last track)",
                       c, first, *next_track);
    }
    *next_track += count;
    clip->name = crowd__core_copy_string_with(allocator, baked->name);
    clip->duration_s = duration;
    clip->loop = (flags & ANIM_CLIP_LOOP) != 0;
    clip->tracks = crowd__mem_alloc_zeroed(allocator, r->header.joint_count, sizeof *clip->tracks);
    if (clip->name == NULL || clip->tracks == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->path, "out of memory");
    }
    uint64_t previous = 0; /* joint * 3 + channel + 1 of the track before */
    for (uint32_t i = first; i < first + count; i++) {
        track_record t;
        result = read_track_record(r, i, &t);
        if (result != CROWD_OK) {
            return result;
        }
        uint64_t order = (uint64_t)t.joint * 3 + t.channel + 1;
        if (order <= previous) {
            return invalid(
                r, "track %u: a clip's tracks go by joint and channel, each once (clip %u)", i, c);
        }
        previous = order;
        result = read_keys(r, allocator, i, &t, channel_of(&clip->tracks[t.joint], t.channel));
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

/* ---- sockets ------------------------------------------------------------------ */

static crowd_result read_sockets(anim_reader *r, crowd_asset *asset) {
    uint32_t count = r->header.socket_count;
    if (count == 0) {
        return CROWD_OK;
    }
    const crowd_allocator *allocator = &asset->allocator;
    asset->sockets = crowd__mem_alloc_zeroed(allocator, count, sizeof *asset->sockets);
    if (asset->sockets == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->path, "out of memory");
    }
    asset->socket_count = count;
    const uint8_t *at = r->data + r->header.sockets_offset;
    for (uint32_t s = 0; s < count; s++, at += ANIM_SOCKET_BYTES) {
        const char *name = NULL;
        uint32_t length = 0;
        crowd_result result = read_name(r, at, "socket", s, &name, &length);
        if (result != CROWD_OK) {
            return result;
        }
        crowd_socket *socket = &asset->sockets[s];
        socket->joint = le32(at + 8);
        if (socket->joint >= r->header.joint_count) {
            return invalid(r, "socket %u follows joint %u of %u", s, socket->joint,
                           r->header.joint_count);
        }
        if (!read_finite(at + 12, 16, socket->offset)) {
            return invalid(r, "socket %u's offset holds a value that is not finite", s);
        }
        socket->name = crowd__mem_alloc(allocator, (size_t)length + 1);
        if (socket->name == NULL) {
            return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->path, "out of memory");
        }
        memcpy(socket->name, name, length);
        socket->name[length] = '\0';
    }
    return CROWD_OK;
}

static void release_sockets(crowd_asset *asset) {
    for (uint32_t s = 0; s < asset->socket_count && asset->sockets != NULL; s++) {
        crowd__mem_free(&asset->allocator, asset->sockets[s].name);
    }
    crowd__mem_free(&asset->allocator, asset->sockets);
    asset->sockets = NULL;
    asset->socket_count = 0;
}

void crowd__load_anim_release(crowd_asset *asset) {
    release_sockets(asset);
    const crowd_allocator *allocator = &asset->allocator;
    for (uint32_t c = 0; c < asset->clip_count && asset->clips != NULL; c++) {
        crowd_clip *clip = &asset->clips[c];
        crowd__mem_free(allocator, clip->name);
        for (uint32_t j = 0; j < asset->skeleton.joint_count && clip->tracks != NULL; j++) {
            crowd_track *tracks[] = {&clip->tracks[j].translation, &clip->tracks[j].rotation,
                                     &clip->tracks[j].scale};
            for (int k = 0; k < 3; k++) {
                crowd__mem_free(allocator, tracks[k]->times_s);
                crowd__mem_free(allocator, tracks[k]->values);
            }
        }
        crowd__mem_free(allocator, clip->tracks);
    }
    crowd__mem_free(allocator, asset->clips);
    asset->clips = NULL;
    asset->clip_count = 0;
}

crowd_result crowd__load_anim_read(const uint8_t *data, size_t size, const char *path,
                                   const crowd_bake *bake, crowd_asset *asset, crowd_error *error) {
    anim_reader r = {data, size, path, error, {0}};
    crowd__load_anim_release(asset);
    crowd_result result = read_header(&r, asset->skeleton.joint_count, bake->clip_count);
    if (result == CROWD_OK) {
        result = read_skeleton(&r, &asset->skeleton);
    }
    if (result == CROWD_OK && bake->clip_count > 0) {
        asset->clips =
            crowd__mem_alloc_zeroed(&asset->allocator, bake->clip_count, sizeof *asset->clips);
        result = asset->clips != NULL
                     ? CROWD_OK
                     : crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
        asset->clip_count = asset->clips != NULL ? bake->clip_count : 0;
    }
    uint32_t next_track = 0;
    for (uint32_t c = 0; result == CROWD_OK && c < bake->clip_count; c++) {
        result =
            read_clip(&r, &asset->allocator, c, &bake->clips[c], &next_track, &asset->clips[c]);
    }
    if (result == CROWD_OK && next_track != r.header.track_count) {
        result = invalid(&r, "the clips use %u tracks, the header says %u", next_track,
                         r.header.track_count);
    }
    if (result == CROWD_OK) {
        result = read_sockets(&r, asset);
    }
    crowd_error reason = {0};
    if (result == CROWD_OK && crowd_asset_validate(asset, &reason) != CROWD_OK) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_DATA, path, "%s", reason.reason);
    }
    if (result != CROWD_OK) {
        crowd__load_anim_release(asset);
    }
    return result;
}
