/* import_wire.c - the helper's reply (import_wire.h): writing it in the
 * helper, reading it back, untrusted, in the parent. The asset's fields are
 * written and read by one list of calls each, in the same order. */
#include "import/assimp/process/import_wire.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_LOG = 1, TAG_ERROR = 2, TAG_ASSET = 3, TAG_END = 4 };

static const char wire_magic[8] = {'c', 'r', 'o', 'w', 'd', 'i', 'm', 'p'};
#define WIRE_BYTE_ORDER 0x01020304u
/* The one problem that is this side's, not the reply's. */
static const char out_of_memory[] = "out of memory";
/* Counts the repairs are sent as (asset.h: every field is a uint32_t). */
#define REPAIR_COUNT (sizeof(crowd_repairs) / sizeof(uint32_t))
_Static_assert(sizeof(crowd_repairs) % sizeof(uint32_t) == 0, "crowd_repairs holds uint32_t only");

/* ---- writing ------------------------------------------------------------- */

static void put(import_wire_buffer *out, const void *bytes, size_t size) {
    if (out->failed || size == 0) {
        return;
    }
    if (size > SIZE_MAX / 2 - out->size) {
        out->failed = true;
        return;
    }
    if (out->size + size > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 4096;
        while (capacity < out->size + size) {
            capacity *= 2;
        }
        uint8_t *grown = realloc(out->data, capacity);
        if (grown == NULL) {
            out->failed = true;
            return;
        }
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, bytes, size);
    out->size += size;
}

static void put_u8(import_wire_buffer *out, uint8_t value) {
    put(out, &value, 1);
}

static void put_u32(import_wire_buffer *out, uint32_t value) {
    put(out, &value, sizeof value);
}

static void put_u64(import_wire_buffer *out, uint64_t value) {
    put(out, &value, sizeof value);
}

static void put_f32(import_wire_buffer *out, float value) {
    put(out, &value, sizeof value);
}

static void put_text(import_wire_buffer *out, const char *text) {
    size_t length = text ? strlen(text) : 0;
    if (length > UINT32_MAX) {
        out->failed = true;
        return;
    }
    put_u32(out, (uint32_t)length);
    put(out, text, length);
}

static void put_array(import_wire_buffer *out, const void *data, uint64_t count, size_t element) {
    if (count > SIZE_MAX / element) {
        out->failed = true;
        return;
    }
    put(out, data, (size_t)count * element);
}

/* Width, height and, when both are non-zero, the RGBA8 pixels. */
static void put_image(import_wire_buffer *out, const crowd_image *image) {
    bool pixels = image->rgba8 != NULL;
    put_u32(out, pixels ? image->width : 0);
    put_u32(out, pixels ? image->height : 0);
    if (pixels) {
        put_array(out, image->rgba8, 4ull * image->width * image->height, 1);
    }
}

/* Starts a record whose length is filled in by end_record. */
static size_t begin_record(import_wire_buffer *out, uint32_t tag) {
    put_u32(out, tag);
    size_t at = out->size;
    put_u64(out, 0);
    return at;
}

static void end_record(import_wire_buffer *out, size_t at) {
    if (!out->failed) {
        uint64_t length = out->size - at - sizeof(uint64_t);
        memcpy(out->data + at, &length, sizeof length);
    }
}

void crowd__import_wire_put_header(import_wire_buffer *out) {
    put(out, wire_magic, sizeof wire_magic);
    put_u32(out, IMPORT_WIRE_VERSION);
    put_u32(out, WIRE_BYTE_ORDER);
}

void crowd__import_wire_put_log(import_wire_buffer *out, crowd_log_level level,
                                const char *message) {
    size_t at = begin_record(out, TAG_LOG);
    put_u32(out, (uint32_t)level);
    put(out, message, strlen(message));
    end_record(out, at);
}

void crowd__import_wire_put_error(import_wire_buffer *out, crowd_result result,
                                  const char *reason) {
    size_t at = begin_record(out, TAG_ERROR);
    put_u32(out, (uint32_t)result);
    put(out, reason, strlen(reason));
    end_record(out, at);
}

void crowd__import_wire_put_end(import_wire_buffer *out) {
    end_record(out, begin_record(out, TAG_END));
}

void crowd__import_wire_buffer_free(import_wire_buffer *buffer) {
    free(buffer->data);
    memset(buffer, 0, sizeof *buffer);
}

static void put_track(import_wire_buffer *out, const crowd_track *track, uint32_t components) {
    put_u32(out, track->key_count);
    put_u32(out, (uint32_t)track->interpolation);
    uint64_t per_key = track->interpolation == CROWD_INTERP_CUBIC ? 3u * components : components;
    put_array(out, track->times_s, track->key_count, sizeof(float));
    put_array(out, track->values, track->key_count * per_key, sizeof(float));
}

void crowd__import_wire_put_asset(import_wire_buffer *out, const crowd_asset *asset) {
    size_t at = begin_record(out, TAG_ASSET);
    put_text(out, asset->name);
    put_text(out, asset->source);
    put_u32(out, asset->source_mesh_count);
    put_u8(out, asset->has_skin);
    put_f32(out, asset->unit_scale);
    const crowd_mesh *mesh = &asset->mesh;
    uint64_t v = mesh->vertex_count;
    put_u32(out, mesh->vertex_count);
    put_array(out, mesh->positions, 3 * v, sizeof(float));
    put_array(out, mesh->normals, 3 * v, sizeof(float));
    put_u8(out, mesh->tangents != NULL);
    if (mesh->tangents != NULL) {
        put_array(out, mesh->tangents, 4 * v, sizeof(float));
    }
    put_array(out, mesh->uv0, 2 * v, sizeof(float));
    put_array(out, mesh->joints, 4 * v, sizeof(uint16_t));
    put_array(out, mesh->weights, 4 * v, sizeof(float));
    put_u32(out, mesh->index_count);
    put_array(out, mesh->indices, mesh->index_count, sizeof(uint32_t));
    put_u32(out, mesh->submesh_count);
    put_array(out, mesh->submeshes, mesh->submesh_count, sizeof(crowd_submesh));
    put_u32(out, asset->material_count);
    for (uint32_t m = 0; m < asset->material_count; m++) {
        const crowd_material *material = &asset->materials[m];
        put_text(out, material->name);
        put_array(out, material->base_color, 4, sizeof(float));
        const crowd_image base = {material->texture_width, material->texture_height,
                                  material->texture_rgba8};
        put_image(out, &base);
        put_f32(out, material->metallic);
        put_f32(out, material->roughness);
        put_array(out, material->emissive, 3, sizeof(float));
        put_f32(out, material->normal_scale);
        put_f32(out, material->occlusion_strength);
        put_u32(out, (uint32_t)material->alpha_mode);
        put_f32(out, material->alpha_cutoff);
        put_u8(out, material->double_sided);
        put_image(out, &material->metallic_roughness_texture);
        put_image(out, &material->normal_texture);
        put_image(out, &material->emissive_texture);
        put_image(out, &material->occlusion_texture);
    }
    const crowd_skeleton *sk = &asset->skeleton;
    uint64_t j = sk->joint_count;
    put_u32(out, sk->joint_count);
    for (uint32_t i = 0; i < sk->joint_count; i++) {
        put_text(out, sk->names[i]);
    }
    put_array(out, sk->parents, j, sizeof(int32_t));
    put_array(out, sk->rest_translation, 3 * j, sizeof(float));
    put_array(out, sk->rest_rotation, 4 * j, sizeof(float));
    put_array(out, sk->rest_scale, 3 * j, sizeof(float));
    put_array(out, sk->inverse_bind, 16 * j, sizeof(float));
    put_array(out, sk->root_transform, 16, sizeof(float));
    put_u32(out, asset->clip_count);
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        const crowd_clip *clip = &asset->clips[c];
        put_text(out, clip->name);
        put_f32(out, clip->duration_s);
        put_u8(out, clip->loop);
        for (uint32_t i = 0; i < sk->joint_count; i++) {
            put_track(out, &clip->tracks[i].translation, 3);
            put_track(out, &clip->tracks[i].rotation, 4);
            put_track(out, &clip->tracks[i].scale, 3);
        }
    }
    put_u32(out, asset->socket_count);
    for (uint32_t s = 0; s < asset->socket_count; s++) {
        put_text(out, asset->sockets[s].name);
        put_u32(out, asset->sockets[s].joint);
        put_array(out, asset->sockets[s].offset, 16, sizeof(float));
    }
    put_u32(out, (uint32_t)REPAIR_COUNT);
    put_array(out, &asset->repairs, REPAIR_COUNT, sizeof(uint32_t));
    end_record(out, at);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct wire_reader {
    const uint8_t *at;
    size_t left;
    const char *problem; /* first thing found wrong, NULL while all is well */
} wire_reader;

/* Keeps the first problem: what follows one is read out of step. */
static void fail(wire_reader *r, const char *what) {
    if (r->problem == NULL) {
        r->problem = what;
    }
}

static bool take(wire_reader *r, void *out, size_t size, const char *what) {
    if (r->problem != NULL) {
        return false;
    }
    if (size > r->left) {
        fail(r, what);
        return false;
    }
    memcpy(out, r->at, size);
    r->at += size;
    r->left -= size;
    return true;
}

static uint32_t get_u32(wire_reader *r, const char *what) {
    uint32_t value = 0;
    take(r, &value, sizeof value, what);
    return value;
}

static bool get_bool(wire_reader *r, const char *what) {
    uint8_t value = 0;
    if (take(r, &value, 1, what) && value > 1) {
        fail(r, what);
    }
    return value == 1;
}

static float get_f32(wire_reader *r, const char *what) {
    float value = 0.0f;
    take(r, &value, sizeof value, what);
    return value;
}

/* A malloc'ed array of `count` elements read from the reply; NULL (with
 * the problem set) when the reply cannot hold them. Zero elements still
 * give an allocation, as the asset's arrays are never NULL with a count. */
static void *get_array(wire_reader *r, uint64_t count, size_t element, const char *what) {
    if (r->problem != NULL) {
        return NULL;
    }
    if (count > r->left / element) {
        fail(r, what);
        return NULL;
    }
    size_t size = (size_t)count * element;
    void *data = malloc(size ? size : 1);
    if (data == NULL) {
        fail(r, out_of_memory);
        return NULL;
    }
    take(r, data, size, what);
    return data;
}

/* A NUL-terminated copy of a length-prefixed text without NUL bytes. */
static char *get_text(wire_reader *r, const char *what) {
    uint32_t length = get_u32(r, what);
    if (r->problem != NULL || length > r->left) {
        fail(r, what);
        return NULL;
    }
    char *text = malloc((size_t)length + 1);
    if (text == NULL) {
        fail(r, out_of_memory);
        return NULL;
    }
    take(r, text, length, what);
    text[length] = '\0';
    if (memchr(text, '\0', length) != NULL) {
        fail(r, what);
    }
    return text;
}

static void get_track(wire_reader *r, crowd_track *track, uint32_t components) {
    track->key_count = get_u32(r, "a track's key count");
    uint32_t interpolation = get_u32(r, "a track's interpolation");
    if (interpolation > CROWD_INTERP_CUBIC) {
        fail(r, "a track's interpolation");
        return;
    }
    track->interpolation = (crowd_interpolation)interpolation;
    uint64_t per_key = track->interpolation == CROWD_INTERP_CUBIC ? 3u * components : components;
    if (track->key_count == 0) {
        return;
    }
    track->times_s = get_array(r, track->key_count, sizeof(float), "a track's key times");
    track->values = get_array(r, track->key_count * per_key, sizeof(float), "a track's values");
}

static void get_mesh(wire_reader *r, crowd_mesh *mesh) {
    mesh->vertex_count = get_u32(r, "the vertex count");
    uint64_t v = mesh->vertex_count;
    mesh->positions = get_array(r, 3 * v, sizeof(float), "positions");
    mesh->normals = get_array(r, 3 * v, sizeof(float), "normals");
    if (get_bool(r, "the tangent flag")) {
        mesh->tangents = get_array(r, 4 * v, sizeof(float), "tangents");
    }
    mesh->uv0 = get_array(r, 2 * v, sizeof(float), "texture coordinates");
    mesh->joints = get_array(r, 4 * v, sizeof(uint16_t), "joint indices");
    mesh->weights = get_array(r, 4 * v, sizeof(float), "weights");
    mesh->index_count = get_u32(r, "the index count");
    mesh->indices = get_array(r, mesh->index_count, sizeof(uint32_t), "indices");
    uint32_t submeshes = get_u32(r, "the submesh count");
    mesh->submeshes = get_array(r, submeshes, sizeof(crowd_submesh), "submeshes");
    if (mesh->submeshes != NULL) {
        mesh->submesh_count = submeshes;
    }
}

/* A zeroed array for the count read next, each element taking at least
 * `least_bytes` of what is left; *out_count set once it is allocated. */
static void *get_list(wire_reader *r, uint32_t *out_count, uint64_t least_bytes, size_t element,
                      const char *what) {
    uint32_t count = get_u32(r, what);
    if (r->problem != NULL || count > r->left / least_bytes) {
        fail(r, what);
        return NULL;
    }
    void *list = calloc(count ? count : 1, element);
    if (list == NULL) {
        fail(r, out_of_memory);
        return NULL;
    }
    *out_count = count;
    return list;
}

static void get_image(wire_reader *r, crowd_image *image) {
    uint32_t width = get_u32(r, "a texture width");
    uint32_t height = get_u32(r, "a texture height");
    if ((width == 0) != (height == 0) || (uint64_t)width * height > r->left / 4) {
        fail(r, "a texture size");
    } else if (width > 0) {
        image->rgba8 = get_array(r, 4ull * width * height, 1, "a texture");
        image->width = width;
        image->height = height;
    }
}

static void get_materials(wire_reader *r, crowd_asset *asset) {
    /* A material takes at least its name length, colour, factors and texture sizes. */
    asset->materials =
        get_list(r, &asset->material_count, 97, sizeof *asset->materials, "the material count");
    for (uint32_t m = 0; m < asset->material_count && r->problem == NULL; m++) {
        crowd_material *material = &asset->materials[m];
        material->name = get_text(r, "a material name");
        for (int c = 0; c < 4; c++) {
            material->base_color[c] = get_f32(r, "a base colour");
        }
        crowd_image base = {0};
        get_image(r, &base);
        material->texture_width = base.width;
        material->texture_height = base.height;
        material->texture_rgba8 = base.rgba8;
        material->metallic = get_f32(r, "a metallic factor");
        material->roughness = get_f32(r, "a roughness factor");
        for (int c = 0; c < 3; c++) {
            material->emissive[c] = get_f32(r, "an emissive factor");
        }
        material->normal_scale = get_f32(r, "a normal scale");
        material->occlusion_strength = get_f32(r, "an occlusion strength");
        uint32_t mode = get_u32(r, "an alpha mode");
        if (mode > CROWD_ALPHA_BLEND) {
            fail(r, "an alpha mode");
        }
        material->alpha_mode = (crowd_alpha_mode)mode;
        material->alpha_cutoff = get_f32(r, "an alpha cutoff");
        material->double_sided = get_bool(r, "a double-sided flag");
        get_image(r, &material->metallic_roughness_texture);
        get_image(r, &material->normal_texture);
        get_image(r, &material->emissive_texture);
        get_image(r, &material->occlusion_texture);
    }
}

static void get_skeleton(wire_reader *r, crowd_skeleton *sk) {
    /* A joint takes at least its name length, parent, rest pose and inverse bind. */
    sk->names = get_list(r, &sk->joint_count, 112, sizeof *sk->names, "the joint count");
    if (sk->names == NULL) {
        return;
    }
    for (uint32_t j = 0; j < sk->joint_count && r->problem == NULL; j++) {
        sk->names[j] = get_text(r, "a joint name");
    }
    uint64_t j = sk->joint_count;
    sk->parents = get_array(r, j, sizeof(int32_t), "joint parents");
    sk->rest_translation = get_array(r, 3 * j, sizeof(float), "rest translations");
    sk->rest_rotation = get_array(r, 4 * j, sizeof(float), "rest rotations");
    sk->rest_scale = get_array(r, 3 * j, sizeof(float), "rest scales");
    sk->inverse_bind = get_array(r, 16 * j, sizeof(float), "inverse binds");
    for (int e = 0; e < 16; e++) {
        sk->root_transform[e] = get_f32(r, "the root transform");
    }
}

static void get_clips(wire_reader *r, crowd_asset *asset) {
    uint32_t joints = asset->skeleton.joint_count;
    /* A clip takes at least its name length, duration, loop flag and
     * 24 bytes of empty tracks per joint. */
    asset->clips = get_list(r, &asset->clip_count, 9 + 24 * (uint64_t)joints, sizeof *asset->clips,
                            "the clip count");
    for (uint32_t c = 0; c < asset->clip_count && r->problem == NULL; c++) {
        crowd_clip *clip = &asset->clips[c];
        clip->name = get_text(r, "a clip name");
        clip->duration_s = get_f32(r, "a clip duration");
        clip->loop = get_bool(r, "a loop flag");
        clip->tracks = calloc(joints ? joints : 1, sizeof *clip->tracks);
        if (clip->tracks == NULL) {
            fail(r, out_of_memory);
            return;
        }
        for (uint32_t j = 0; j < joints && r->problem == NULL; j++) {
            get_track(r, &clip->tracks[j].translation, 3);
            get_track(r, &clip->tracks[j].rotation, 4);
            get_track(r, &clip->tracks[j].scale, 3);
        }
    }
}

static void get_sockets(wire_reader *r, crowd_asset *asset) {
    /* A socket takes its name length, joint and offset. */
    asset->sockets =
        get_list(r, &asset->socket_count, 72, sizeof *asset->sockets, "the socket count");
    for (uint32_t s = 0; s < asset->socket_count && r->problem == NULL; s++) {
        asset->sockets[s].name = get_text(r, "a socket name");
        asset->sockets[s].joint = get_u32(r, "a socket joint");
        for (int e = 0; e < 16; e++) {
            asset->sockets[s].offset[e] = get_f32(r, "a socket offset");
        }
    }
}

static crowd_asset *get_asset(wire_reader *r) {
    crowd_asset *asset = crowd_asset_create();
    if (asset == NULL) {
        fail(r, out_of_memory);
        return NULL;
    }
    asset->name = get_text(r, "the asset name");
    asset->source = get_text(r, "the asset source");
    asset->source_mesh_count = get_u32(r, "the source mesh count");
    asset->has_skin = get_bool(r, "the skin flag");
    asset->unit_scale = get_f32(r, "the unit scale");
    if (!(isfinite(asset->unit_scale) && asset->unit_scale > 0.0f)) {
        fail(r, "the unit scale");
    }
    get_mesh(r, &asset->mesh);
    get_materials(r, asset);
    get_skeleton(r, &asset->skeleton);
    get_clips(r, asset);
    get_sockets(r, asset);
    if (get_u32(r, "the repair count") != REPAIR_COUNT) {
        fail(r, "the repair count");
    }
    take(r, &asset->repairs, sizeof asset->repairs, "the repairs");
    if (r->problem == NULL && r->left != 0) {
        fail(r, "bytes after the asset");
    }
    if (r->problem != NULL) {
        crowd_asset_destroy(asset);
        return NULL;
    }
    return asset;
}

static crowd_result malformed_reply(crowd_error *error, const char *what) {
    if (what == out_of_memory) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL,
                               "out of memory reading the helper's reply");
    }
    return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, NULL, "%s", what);
}

/* Bytes of a LOG or ERROR payload after its u32 as a NUL-terminated text. */
static bool payload_text(wire_reader *payload, char *out, size_t size) {
    size_t length = payload->left < size - 1 ? payload->left : size - 1;
    memcpy(out, payload->at, length);
    out[length] = '\0';
    return memchr(payload->at, '\0', payload->left) == NULL;
}

crowd_result crowd__import_wire_decode(const uint8_t *bytes, size_t size,
                                       const crowd_logger *logger, crowd_asset **out_asset,
                                       crowd_error *error, bool *helper_said) {
    *out_asset = NULL;
    *helper_said = false;
    wire_reader r = {bytes, size, NULL};
    char magic[sizeof wire_magic];
    if (!take(&r, magic, sizeof magic, "header") || memcmp(magic, wire_magic, sizeof magic) != 0) {
        return malformed_reply(error, "no reply header");
    }
    uint32_t version = get_u32(&r, "header");
    uint32_t order = get_u32(&r, "header");
    if (r.problem != NULL || version != IMPORT_WIRE_VERSION || order != WIRE_BYTE_ORDER) {
        return malformed_reply(error, "another protocol version or byte order");
    }
    crowd_asset *asset = NULL;
    crowd_result result = CROWD_OK;
    bool done = false, ended = false;
    while (!ended) {
        uint32_t tag = get_u32(&r, "record");
        uint64_t length = 0;
        take(&r, &length, sizeof length, "record");
        if (r.problem != NULL) {
            crowd_asset_destroy(asset);
            return malformed_reply(error, "the reply ends before its last record");
        }
        if (length > r.left) {
            crowd_asset_destroy(asset);
            return malformed_reply(error, "a record longer than the reply");
        }
        wire_reader payload = {r.at, (size_t)length, NULL};
        r.at += length;
        r.left -= (size_t)length;
        const char *problem = NULL;
        if (tag == TAG_END) {
            problem = !done    ? "no result before the end"
                      : length ? "an end record with data"
                               : NULL;
            ended = true;
        } else if (done) {
            problem = "records after the result";
        } else if (tag == TAG_LOG || tag == TAG_ERROR) {
            uint32_t code = get_u32(&payload, "record");
            char text[1024];
            bool clean = payload.problem == NULL && payload_text(&payload, text, sizeof text);
            if (!clean) {
                problem = "a message record holding no text";
            } else if (tag == TAG_LOG && code <= CROWD_LOG_WARNING) {
                crowd_log(logger, (crowd_log_level)code, "%s", text);
            } else if (tag == TAG_ERROR && code > CROWD_OK && code < CROWD_RESULT_COUNT) {
                result = crowd_error_set(error, (crowd_result)code, NULL, "%s", text);
                done = true;
            } else {
                problem = "a message record with an unknown level or result";
            }
        } else if (tag == TAG_ASSET) {
            asset = get_asset(&payload);
            problem = payload.problem;
            done = true;
        } else {
            problem = "a record of unknown kind";
        }
        if (problem != NULL) {
            crowd_asset_destroy(asset);
            if (problem == out_of_memory) {
                return malformed_reply(error, problem);
            }
            char what[200];
            snprintf(what, sizeof what, "at %s%s", tag == TAG_ASSET ? "the asset's " : "", problem);
            return malformed_reply(error, what);
        }
    }
    if (r.left != 0) {
        crowd_asset_destroy(asset);
        return malformed_reply(error, "bytes after the end record");
    }
    *out_asset = asset;
    *helper_said = true;
    return asset != NULL ? CROWD_OK : result;
}
