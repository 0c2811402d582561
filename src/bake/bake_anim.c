/* The runtime clips of a bake (bake_anim.h): encoding NAME.G.anim.bin and
 * measuring it.
 *
 * The form was chosen by measurement (docs/manifest.md, "The runtime
 * clips"): keys stay the source's, with its interpolation, as float32, and
 * only what sampling cannot tell apart is left out: a track whose keys all
 * hold one value (and, for cubic splines, zero tangents) is one key, and
 * none when that value is the joint's rest value; tracks of a clip with the
 * same key times share one copy of them. The error is then float rounding,
 * and it is measured, not assumed: the bytes are read back by the loader's
 * own reader and skinned against the source. */
#include "bake/bake_anim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bake/bake_build.h"
#include "crowd/skin.h"
#include "load/anim_io.h"

bool crowd__bake_anim_sources(const crowd_bake *bake, const crowd_clip **sources) {
    const crowd_asset *asset = bake->asset;
    if (asset == NULL || asset->skeleton.joint_count == 0) {
        return false;
    }
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        uint32_t index = clip->source_clip;
        if (index >= asset->clip_count || strcmp(asset->clips[index].name, clip->name) != 0) {
            int32_t found = crowd_asset_find_clip(asset, clip->name);
            index = found >= 0 ? (uint32_t)found : UINT32_MAX;
        }
        if (index != UINT32_MAX) {
            sources[c] = &asset->clips[index];
        } else if (asset->clip_count == 0 && strcmp(clip->name, "rest") == 0) {
            sources[c] = NULL;
        } else {
            return false;
        }
    }
    return true;
}

/* ---- encoding ------------------------------------------------------------------ */

typedef struct grow {
    uint8_t *bytes;
    size_t size, capacity;
    bool failed;
} grow;

static size_t grow_put(grow *g, const void *data, size_t size) {
    size_t at = g->size;
    if (g->failed) {
        return at;
    }
    if (g->size + size > g->capacity) {
        size_t capacity = g->capacity ? 2 * g->capacity : 4096;
        while (capacity < g->size + size) {
            capacity *= 2;
        }
        uint8_t *bytes = realloc(g->bytes, capacity);
        if (bytes == NULL) {
            g->failed = true;
            return at;
        }
        g->bytes = bytes;
        g->capacity = capacity;
    }
    memcpy(g->bytes + g->size, data, size);
    g->size += size;
    return at;
}

static void put32(uint8_t *p, uint32_t value) {
    p[0] = (uint8_t)value;
    p[1] = (uint8_t)(value >> 8);
    p[2] = (uint8_t)(value >> 16);
    p[3] = (uint8_t)(value >> 24);
}

static void put_floats(uint8_t *p, const float *values, size_t count) {
    for (size_t i = 0; i < count; i++) {
        uint32_t bits;
        memcpy(&bits, &values[i], sizeof bits);
        put32(p + 4 * i, bits);
    }
}

typedef struct encoder {
    grow tracks;  /* ANIM_TRACK_BYTES records */
    grow strings; /* names */
    grow data;    /* float32 in the host's order, converted when emitted */
    uint32_t key_count;
} encoder;

/* A name into the strings section: (offset, length) at record. */
static void put_name(encoder *e, uint8_t *record, const char *name) {
    size_t length = strlen(name);
    put32(record, (uint32_t)grow_put(&e->strings, name, length));
    put32(record + 4, (uint32_t)length);
}

static uint32_t data_floats(const encoder *e) {
    return (uint32_t)(e->data.size / sizeof(float));
}

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Where `count` times start in the data: a copy already written for one of
 * the clip's last `clip_tracks` tracks, or new ones. */
static uint32_t put_times(encoder *e, const float *times, uint32_t count, uint32_t clip_tracks) {
    for (uint32_t i = 0; i < clip_tracks && !e->tracks.failed && !e->data.failed; i++) {
        const uint8_t *record =
            e->tracks.bytes + e->tracks.size - (size_t)(i + 1) * ANIM_TRACK_BYTES;
        uint32_t keys = get32(record + 8), first = get32(record + 12);
        const float *stored = (const float *)(const void *)e->data.bytes + first;
        if (keys == count && memcmp(stored, times, count * sizeof *times) == 0) {
            return first;
        }
    }
    return (uint32_t)(grow_put(&e->data, times, count * sizeof *times) / sizeof(float));
}

/* One source track, left out, as one key or as it is; returns whether a
 * track was written. */
static bool put_track(encoder *e, uint32_t joint, uint32_t channel, const crowd_track *track,
                      const float *rest, uint32_t clip_tracks) {
    if (track->key_count == 0) {
        return false;
    }
    uint32_t components = channel == ANIM_CHANNEL_ROTATION ? 4u : 3u;
    bool cubic = track->interpolation == CROWD_INTERP_CUBIC;
    uint32_t stride = cubic ? 3u * components : components;
    const float *first_value = track->values + (cubic ? components : 0u);
    bool constant = true;
    for (uint32_t k = 1; k < track->key_count && constant; k++) {
        constant =
            memcmp(track->values + (size_t)k * stride, track->values, stride * sizeof(float)) == 0;
    }
    for (uint32_t i = 0; cubic && constant && i < components; i++) {
        constant = track->values[i] == 0.0f && track->values[2 * components + i] == 0.0f;
    }
    if (constant && memcmp(first_value, rest, components * sizeof(float)) == 0) {
        return false;
    }
    uint32_t keys = constant ? 1u : track->key_count;
    uint8_t record[ANIM_TRACK_BYTES] = {0};
    put32(record, joint);
    record[4] = (uint8_t)channel;
    record[5] = (uint8_t)(constant ? CROWD_INTERP_LINEAR : track->interpolation);
    record[6] = ANIM_ENCODING_F32;
    put32(record + 8, keys);
    put32(record + 12, put_times(e, track->times_s, keys, clip_tracks));
    const float *values = constant ? first_value : track->values;
    size_t floats = constant ? components : (size_t)keys * stride;
    put32(record + 16, (uint32_t)(grow_put(&e->data, values, floats * sizeof(float)) / 4));
    grow_put(&e->tracks, record, sizeof record);
    e->key_count += keys;
    return true;
}

/* The clip's tracks by joint and channel; returns how many. */
static uint32_t put_clip_tracks(encoder *e, const crowd_skeleton *skeleton,
                                const crowd_clip *source) {
    uint32_t count = 0;
    for (uint32_t j = 0; source != NULL && j < skeleton->joint_count; j++) {
        const crowd_joint_tracks *tracks = &source->tracks[j];
        count += put_track(e, j, ANIM_CHANNEL_TRANSLATION, &tracks->translation,
                           skeleton->rest_translation + 3 * j, count);
        count += put_track(e, j, ANIM_CHANNEL_ROTATION, &tracks->rotation,
                           skeleton->rest_rotation + 4 * j, count);
        count += put_track(e, j, ANIM_CHANNEL_SCALE, &tracks->scale, skeleton->rest_scale + 3 * j,
                           count);
    }
    return count;
}

static void put_joint(encoder *e, const crowd_skeleton *s, uint32_t j, uint8_t *record) {
    put_name(e, record, s->names[j]);
    put32(record + 8, (uint32_t)s->parents[j]);
    put_floats(record + 12, s->rest_translation + 3 * j, 3);
    put_floats(record + 24, s->rest_rotation + 4 * j, 4);
    put_floats(record + 40, s->rest_scale + 3 * j, 3);
    put_floats(record + 52, s->inverse_bind + 16 * j, 16);
}

/* The asset's sockets: name, joint, offset; names after the clips'. */
static uint8_t *put_sockets(encoder *e, const crowd_asset *asset) {
    uint8_t *records = calloc(asset->socket_count > 0 ? asset->socket_count : 1, ANIM_SOCKET_BYTES);
    for (uint32_t s = 0; records != NULL && s < asset->socket_count; s++) {
        const crowd_socket *socket = &asset->sockets[s];
        uint8_t *record = records + (size_t)s * ANIM_SOCKET_BYTES;
        put_name(e, record, socket->name);
        put32(record + 8, socket->joint);
        put_floats(record + 12, socket->offset, 16);
    }
    return records;
}

static void put_header(uint8_t *out, const anim_header *h) {
    memcpy(out, ANIM_MAGIC, 8);
    const uint32_t words[] = {
        h->version,     h->joint_count,     h->clip_count,   h->track_count,   h->string_bytes,
        h->data_floats, h->skeleton_offset, h->clips_offset, h->tracks_offset, h->strings_offset,
        h->data_offset, h->file_bytes,      h->socket_count, h->sockets_offset};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        put32(out + 8 + 4 * i, words[i]);
    }
}

crowd_result crowd__bake_anim_encode(const crowd_bake *bake, const crowd_clip *const *sources,
                                     uint8_t **out_bytes, size_t *out_size,
                                     crowd_bake_anim *out_info, crowd_error *error) {
    *out_bytes = NULL;
    const crowd_skeleton *skeleton = &bake->asset->skeleton;
    encoder e = {0};
    uint8_t *joints = calloc((size_t)skeleton->joint_count, ANIM_JOINT_BYTES);
    uint8_t *clips = calloc(bake->clip_count > 0 ? bake->clip_count : 1, ANIM_CLIP_BYTES);
    for (uint32_t j = 0; joints != NULL && j < skeleton->joint_count; j++) {
        put_joint(&e, skeleton, j, joints + (size_t)j * ANIM_JOINT_BYTES);
    }
    uint32_t track_count = 0;
    for (uint32_t c = 0; clips != NULL && c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        uint8_t *record = clips + (size_t)c * ANIM_CLIP_BYTES;
        put_name(&e, record, clip->name);
        /* The source's loop flag, not the bake's (which --loop may force):
         * crowd_anim_sample maps time by it, and the frames were baked so. */
        bool loop = sources[c] != NULL ? sources[c]->loop : clip->loop;
        put_floats(record + 8, &clip->duration_s, 1);
        put32(record + 12, loop ? ANIM_CLIP_LOOP : 0u);
        put32(record + 16, track_count);
        uint32_t count = put_clip_tracks(&e, skeleton, sources[c]);
        put32(record + 20, count);
        track_count += count;
    }
    uint8_t *sockets = put_sockets(&e, bake->asset);
    anim_header h = {
        .version = ANIM_VERSION,
        .joint_count = skeleton->joint_count,
        .clip_count = bake->clip_count,
        .track_count = track_count,
        .string_bytes = (uint32_t)e.strings.size,
        .data_floats = data_floats(&e),
        .socket_count = bake->asset->socket_count,
    };
    bool fits = e.strings.size <= UINT32_MAX && e.data.size / 4 <= UINT32_MAX && anim_layout(&h);
    uint8_t *file = NULL;
    if (fits && !e.tracks.failed && !e.strings.failed && !e.data.failed && joints && clips &&
        sockets) {
        file = calloc(1, h.file_bytes);
    }
    if (file != NULL) {
        put_header(file, &h);
        put_floats(file + h.skeleton_offset, skeleton->root_transform, 16);
        memcpy(file + h.skeleton_offset + ANIM_ROOT_BYTES, joints,
               (size_t)h.joint_count * ANIM_JOINT_BYTES);
        memcpy(file + h.clips_offset, clips, (size_t)h.clip_count * ANIM_CLIP_BYTES);
        memcpy(file + h.sockets_offset, sockets, (size_t)h.socket_count * ANIM_SOCKET_BYTES);
        if (e.tracks.size > 0) {
            memcpy(file + h.tracks_offset, e.tracks.bytes, e.tracks.size);
        }
        if (e.strings.size > 0) {
            memcpy(file + h.strings_offset, e.strings.bytes, e.strings.size);
        }
        put_floats(file + h.data_offset, (const float *)(const void *)e.data.bytes, h.data_floats);
    }
    free(joints);
    free(clips);
    free(sockets);
    free(e.tracks.bytes);
    free(e.strings.bytes);
    free(e.data.bytes);
    if (!fits) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, bake->name,
                               "the runtime clips would pass 4 GiB");
    }
    if (file == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, bake->name, "out of memory");
    }
    *out_bytes = file;
    *out_size = h.file_bytes;
    *out_info = (crowd_bake_anim){
        .present = true,
        .track_count = track_count,
        .key_count = e.key_count,
        .size_bytes = h.file_bytes,
    };
    return CROWD_OK;
}

/* ---- measuring ----------------------------------------------------------------- */

typedef struct anim_sample {
    const crowd_clip *source, *stored; /* source NULL: the rest pose */
    float time_s;
} anim_sample;

typedef struct anim_worker {
    crowd_transform *locals;
    float *models, *skin, *source_positions, *stored_positions;
} anim_worker;

typedef struct anim_job {
    const crowd_asset *asset;
    const anim_sample *samples;
    double *errors; /* per sample */
    anim_worker *workers;
} anim_job;

static void measure_sample(void *context, uint32_t worker, uint32_t item) {
    anim_job *job = context;
    anim_worker *w = &job->workers[worker];
    const anim_sample *sample = &job->samples[item];
    const crowd_skeleton *skeleton = &job->asset->skeleton;
    const crowd_mesh *mesh = &job->asset->mesh;
    crowd__bake_pose_skin(skeleton, sample->source, sample->time_s, NULL, w->locals, w->models,
                          w->skin);
    crowd_skin_reference(mesh, w->skin, w->source_positions, NULL, NULL);
    crowd__bake_pose_skin(skeleton, sample->stored, sample->time_s, NULL, w->locals, w->models,
                          w->skin);
    crowd_skin_reference(mesh, w->skin, w->stored_positions, NULL, NULL);
    double max = 0.0;
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        double d2 = 0.0;
        for (int a = 0; a < 3; a++) {
            double d = (double)w->source_positions[3 * i + a] - w->stored_positions[3 * i + a];
            d2 += d * d;
        }
        max = d2 > max ? d2 : max;
    }
    job->errors[item] = sqrt(max);
}

/* Every baked frame's time and the middle of every step between two. */
static anim_sample *make_samples(const crowd_bake *bake, const crowd_clip *const *sources,
                                 const crowd_asset *stored, uint32_t *out_count) {
    uint64_t count = 0;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        count += 2ull * bake->clips[c].frame_count - 1;
    }
    anim_sample *samples = count <= UINT32_MAX ? calloc(count ? count : 1, sizeof *samples) : NULL;
    uint32_t n = 0;
    for (uint32_t c = 0; samples != NULL && c < bake->clip_count; c++) {
        crowd_clip_frames frames = crowd_bake_clip_frames(&bake->clips[c]);
        for (uint32_t k = 0; k < frames.frame_count; k++) {
            float t = crowd_anim_frame_time(&frames, k);
            samples[n++] = (anim_sample){sources[c], &stored->clips[c], t};
            if (k + 1 < frames.frame_count) {
                float next = crowd_anim_frame_time(&frames, k + 1);
                samples[n++] = (anim_sample){sources[c], &stored->clips[c], 0.5f * (t + next)};
            }
        }
    }
    *out_count = n;
    return samples;
}

static crowd_result measure_clips(const crowd_bake *bake, const crowd_clip *const *sources,
                                  const crowd_asset *stored, uint32_t thread_count, double *out_max,
                                  crowd_error *error) {
    uint32_t count = 0;
    anim_sample *samples = make_samples(bake, sources, stored, &count);
    uint32_t threads = crowd__bake_thread_count(thread_count, count > 0 ? count : 1);
    anim_job job = {
        .asset = bake->asset,
        .samples = samples,
        .errors = calloc(count > 0 ? count : 1, sizeof(double)),
        .workers = calloc(threads, sizeof(anim_worker)),
    };
    size_t joints = bake->asset->skeleton.joint_count, vertices = bake->asset->mesh.vertex_count;
    bool ok = samples != NULL && job.errors != NULL && job.workers != NULL;
    for (uint32_t t = 0; ok && t < threads; t++) {
        anim_worker *w = &job.workers[t];
        w->locals = malloc(joints * sizeof *w->locals);
        w->models = malloc(16 * joints * sizeof(float));
        w->skin = malloc(12 * joints * sizeof(float));
        w->source_positions = malloc(3 * vertices * sizeof(float));
        w->stored_positions = malloc(3 * vertices * sizeof(float));
        ok = w->locals && w->models && w->skin && w->source_positions && w->stored_positions;
    }
    if (ok) {
        crowd__bake_parallel_for(count, threads, measure_sample, NULL, &job);
        *out_max = 0.0;
        for (uint32_t i = 0; i < count; i++) {
            *out_max = job.errors[i] > *out_max ? job.errors[i] : *out_max;
        }
    }
    for (uint32_t t = 0; job.workers != NULL && t < threads; t++) {
        anim_worker *w = &job.workers[t];
        free(w->locals);
        free(w->models);
        free(w->skin);
        free(w->source_positions);
        free(w->stored_positions);
    }
    free(job.workers);
    free(job.errors);
    free(samples);
    return ok ? CROWD_OK
              : crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, bake->name, "out of memory");
}

static double bounds_diagonal(const crowd_bake *bake) {
    double sum = 0.0;
    for (int a = 0; a < 3; a++) {
        double e = (double)bake->bounds_max[a] - bake->bounds_min[a];
        sum += e * e;
    }
    return sqrt(sum);
}

crowd_result crowd__bake_anim_measure(const crowd_bake *bake, uint32_t thread_count,
                                      crowd_bake_anim *out_info, crowd_error *error) {
    *out_info = (crowd_bake_anim){0};
    const crowd_clip **sources =
        calloc(bake->clip_count > 0 ? bake->clip_count : 1, sizeof *sources);
    if (sources == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, bake->name, "out of memory");
    }
    if (!crowd__bake_anim_sources(bake, sources)) {
        free(sources);
        return CROWD_OK;
    }
    uint8_t *bytes = NULL;
    size_t size = 0;
    crowd_bake_anim info;
    crowd_result result = crowd__bake_anim_encode(bake, sources, &bytes, &size, &info, error);
    /* Read back as a loaded bake reads it: into the asset's skeleton and
     * mesh (a shallow copy, whose clips alone are its own). */
    crowd_asset stored = *bake->asset;
    stored.clips = NULL;
    stored.clip_count = 0;
    stored.sockets = NULL;
    stored.socket_count = 0;
    stored.allocator = (crowd_allocator){0};
    crowd_error reason = {0};
    if (result == CROWD_OK &&
        crowd__load_anim_read(bytes, size, bake->name, bake, &stored, &reason) != CROWD_OK) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, bake->name,
                                 "the runtime clips do not read back: %s", reason.reason);
    }
    double max = 0.0;
    if (result == CROWD_OK) {
        result = measure_clips(bake, sources, &stored, thread_count, &max, error);
    }
    crowd__load_anim_release(&stored);
    free(bytes);
    free(sources);
    if (result == CROWD_OK) {
        double diagonal = bounds_diagonal(bake);
        info.error_max = max;
        info.error_max_rel = diagonal > 0.0 ? max / diagonal : 0.0;
        *out_info = info;
    }
    return result;
}
