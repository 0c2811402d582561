/* test_import_interpolation - glTF STEP, LINEAR and CUBICSPLINE samplers
 * through crowd_import_memory / crowd_import_file.
 *
 * crowd's glTF reader keeps every sampler's interpolation mode and decodes
 * integer-typed outputs (assimp 5.2, which read glTF before it, lost both).
 * The files are written here, from the
 * glTF 2.0 specification: a two-joint skin whose tip joint is animated by the
 * same keys in three clips, one per mode, with values chosen so that
 * samples between keys differ between the modes; a fourth clip has
 * normalized integer rotations (int16 cubic, int8 step) and an unsigned byte
 * translation (KHR_mesh_quantization). Expected poses are worked out by hand
 * below (Hermite basis weights at u = 1/4 and 1/2 written out). The same
 * model is read as .gltf with a base64 data: URI and as .glb from memory,
 * and as .gltf with an external .bin from disk, with one or several root
 * nodes; the output bufferViews are interleaved (byteStride) and offset
 * (byteOffset). Malformed samplers must fail with CROWD_ERROR_INVALID_DATA
 * and a reason naming the problem. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/anim.h"
#include "crowd/import.h"

#define S2 0.70710678118654752 /* sqrt(1/2) */

/* ---- a small glTF writer: binary blob, bufferViews, accessors ---- */

typedef struct builder {
    uint8_t bin[4096];
    uint32_t bin_size;
    char views[4096];
    char accessors[8192];
    int view_count, accessor_count;
} builder;

static void appendf(char *out, size_t size, const char *format, ...) {
    size_t used = strlen(out);
    va_list args;
    va_start(args, format);
    vsnprintf(out + used, size - used, format, args);
    va_end(args);
}

/* Appends `size` bytes as a new bufferView (4-byte aligned); returns its index. */
static int add_view(builder *b, const void *data, uint32_t size, uint32_t stride) {
    memcpy(b->bin + b->bin_size, data, size);
    appendf(b->views, sizeof b->views, "%s{\"buffer\":0,\"byteOffset\":%u,\"byteLength\":%u",
            b->view_count ? "," : "", b->bin_size, size);
    if (stride) {
        appendf(b->views, sizeof b->views, ",\"byteStride\":%u", stride);
    }
    appendf(b->views, sizeof b->views, "}");
    b->bin_size += (size + 3) & ~3u;
    return b->view_count++;
}

static int add_accessor(builder *b, int view, uint32_t offset, int component_type, int normalized,
                        uint32_t count, const char *type, const char *extra) {
    appendf(b->accessors, sizeof b->accessors,
            "%s{\"bufferView\":%d,\"byteOffset\":%u,\"componentType\":%d,\"count\":%u,\"type\":\"%"
            "s\"%s%s}",
            b->accessor_count ? "," : "", view, offset, component_type, count, type,
            normalized ? ",\"normalized\":true" : "", extra ? extra : "");
    return b->accessor_count++;
}

/* ---- the model ---- */

/* Tip joint keys shared by the three clips "step", "linear", "cubic". */
static const float key_times[3] = {0.0f, 1.0f, 3.0f};
static const float p_keys[3][3] = {{0, 1, 0}, {2, 1, 0}, {2, 3, -2}};
static const float q_keys[3][4] = {{0, 0, 0, 1}, {0, 0, (float)S2, (float)S2}, {0, 0, 1, 0}};
/* Cubic translation per key: in-tangent, value, out-tangent. */
static const float p_cubic[3][3][3] = {
    {{7, 7, 7}, {0, 1, 0}, {4, 0, 0}},
    {{0, 2, 0}, {2, 1, 0}, {0, 0, -1}},
    {{1, 1, 1}, {2, 3, -2}, {9, 9, 9}},
};
static const float q_cubic[3][3][4] = {
    {{0, 0, -1, 0}, {0, 0, 0, 1}, {0, 0, 4, 0}},
    {{0, 0, 0, 0}, {0, 0, (float)S2, (float)S2}, {0, 0, 1, -1}},
    {{0, 0, -1, 1}, {0, 0, 1, 0}, {5, 5, 5, 5}},
};
/* Clip "quantized": keys at 0.1 s and 0.7 s. */
static const float quantized_times[2] = {0.1f, 0.7f};
static const int16_t root_rotation_i16[2][3][4] = {
    {{0, 0, 0, 0}, {0, 0, 0, 32767}, {0, 0, 16384, 0}},
    {{0, 0, -32768, 0}, {0, 0, 23170, 23170}, {0, 0, 0, 0}},
};
static const int8_t tip_rotation_i8[2][4] = {{0, 0, 0, 127}, {0, 0, 127, -128}};
static const uint8_t tip_translation_u8[2][3] = {{0, 1, 0}, {2, 1, 0}};
static const float root_translation[2][3] = {{0, 0, 0}, {0, 0.5f, 0}};

/* What to break, for the error tests (zero: a valid file). */
typedef struct breakage {
    bool single_root;                /* one scene root above joints and mesh */
    const char *cubic_interpolation; /* instead of "CUBICSPLINE" on the cubic translation */
    uint32_t cubic_extra_elements;   /* output count larger than 3 x keys */
    uint32_t cubic_extra_offset;     /* accessor byteOffset pushed past its view */
    bool cubic_output_missing;       /* sampler output names no accessor */
    bool step_extra_element;         /* STEP output count = keys + 1 */
    bool linear_extra_element;       /* LINEAR output count = keys + 1 */
    bool input_normalized;           /* input accessor of floats marked normalized */
    bool sampler_missing;            /* a channel names sampler 9 */
    bool nan_step_time;              /* the step clip's own input, middle key NaN */
    bool rotation_not_normalized;    /* int16 rotation without normalized: true */
    bool orphan_channel;             /* a STEP channel on a node outside the scene */
} breakage;

/* Writes the JSON (with `buffer` as the buffers entry) into json and the
 * binary chunk into b. */
static void build_model(builder *b, const breakage *x, const char *buffer, char *json,
                        size_t size) {
    memset(b, 0, sizeof *b);
    /* Mesh: a strip of 3 rows, bottom on the root, middle half/half, top on the tip. */
    float positions[6][3];
    uint16_t joints[6][4];
    float weights[6][4];
    memset(joints, 0, sizeof joints);
    memset(weights, 0, sizeof weights);
    for (int v = 0; v < 6; v++) {
        positions[v][0] = (v % 2) ? 0.5f : -0.5f;
        positions[v][1] = (float)(v / 2);
        positions[v][2] = 0;
        int row = v / 2;
        joints[v][0] = row == 2 ? 1 : 0;
        joints[v][1] = 1;
        weights[v][0] = row == 1 ? 0.5f : 1.0f;
        weights[v][1] = row == 1 ? 0.5f : 0.0f;
    }
    const uint16_t indices[12] = {0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4};
    float inverse_bind[2][16] = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
                                 {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1}};
    int a_pos = add_accessor(b, add_view(b, positions, sizeof positions, 0), 0, 5126, 0, 6, "VEC3",
                             ",\"min\":[-0.5,0,0],\"max\":[0.5,2,0]");
    int a_joints =
        add_accessor(b, add_view(b, joints, sizeof joints, 0), 0, 5123, 0, 6, "VEC4", NULL);
    int a_weights =
        add_accessor(b, add_view(b, weights, sizeof weights, 0), 0, 5126, 0, 6, "VEC4", NULL);
    int a_indices =
        add_accessor(b, add_view(b, indices, sizeof indices, 0), 0, 5123, 0, 12, "SCALAR", NULL);
    int a_ibm = add_accessor(b, add_view(b, inverse_bind, sizeof inverse_bind, 0), 0, 5126, 0, 2,
                             "MAT4", NULL);

    float times3[3] = {key_times[0], key_times[1], key_times[2]};
    int a_times = add_accessor(b, add_view(b, times3, sizeof times3, 0), 0, 5126,
                               x->input_normalized, 3, "SCALAR", ",\"min\":[0],\"max\":[3]");
    float step_times[3] = {key_times[0], x->nan_step_time ? NAN : key_times[1], key_times[2]};
    int a_step_times = add_accessor(b, add_view(b, step_times, sizeof step_times, 0), 0, 5126, 0, 3,
                                    "SCALAR", ",\"min\":[0],\"max\":[3]");
    /* Linear and step translations interleaved in one view, 24 bytes apart,
     * plus one spare element each for the count tests. */
    float interleaved[4][2][3];
    memset(interleaved, 0, sizeof interleaved);
    for (int k = 0; k < 3; k++) {
        memcpy(interleaved[k][0], p_keys[k], sizeof p_keys[k]);
        memcpy(interleaved[k][1], p_keys[k], sizeof p_keys[k]);
    }
    int v_interleaved = add_view(b, interleaved, sizeof interleaved, 24);
    int a_p_linear =
        add_accessor(b, v_interleaved, 0, 5126, 0, 3 + x->linear_extra_element, "VEC3", NULL);
    int a_p_step =
        add_accessor(b, v_interleaved, 12, 5126, 0, 3 + x->step_extra_element, "VEC3", NULL);
    int a_q = add_accessor(b, add_view(b, q_keys, sizeof q_keys, 0), 0, 5126, 0, 3, "VEC4", NULL);
    /* Cubic translation: 16-byte stride after 4 bytes of offset, NaN in the gaps. */
    float strided[12][4];
    for (int i = 0; i < 12; i++) {
        strided[i][0] = strided[i][1] = strided[i][2] = strided[i][3] = NAN;
    }
    float *cubic_elements = (float *)p_cubic;
    for (int i = 0; i < 9; i++) {
        memcpy(&strided[i][1], cubic_elements + 3 * i, 3 * sizeof(float));
    }
    int a_p_cubic =
        add_accessor(b, add_view(b, strided, sizeof strided, 16), 4 + x->cubic_extra_offset, 5126,
                     0, 9 + x->cubic_extra_elements, "VEC3", NULL);
    int a_q_cubic =
        add_accessor(b, add_view(b, q_cubic, sizeof q_cubic, 0), 0, 5126, 0, 9, "VEC4", NULL);

    int a_qtimes = add_accessor(b, add_view(b, quantized_times, sizeof quantized_times, 0), 0, 5126,
                                0, 2, "SCALAR", ",\"min\":[0.1],\"max\":[0.7]");
    int a_root_q = add_accessor(b, add_view(b, root_rotation_i16, sizeof root_rotation_i16, 0), 0,
                                5122, !x->rotation_not_normalized, 6, "VEC4", NULL);
    int a_tip_q = add_accessor(b, add_view(b, tip_rotation_i8, sizeof tip_rotation_i8, 0), 0, 5120,
                               1, 2, "VEC4", NULL);
    int a_tip_p = add_accessor(b, add_view(b, tip_translation_u8, sizeof tip_translation_u8, 0), 0,
                               5121, 0, 2, "VEC3", NULL);
    int a_root_p = add_accessor(b, add_view(b, root_translation, sizeof root_translation, 0), 0,
                                5126, 0, 2, "VEC3", NULL);
    const float morph_weights[2] = {0, 1};
    int a_weights_out = add_accessor(b, add_view(b, morph_weights, sizeof morph_weights, 0), 0,
                                     5126, 0, 2, "SCALAR", NULL);

    json[0] = '\0';
    appendf(json, size,
            "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":%s}],"
            "\"nodes\":[{\"children\":[1]},{\"name\":\"tip\",\"translation\":[0,1,0]},"
            "{\"name\":\"tip\",\"mesh\":0,\"skin\":0}%s%s],",
            x->single_root ? "[3]" : "[0,2]",
            x->single_root ? ",{\"name\":\"character\",\"children\":[0,2]}" : "",
            x->orphan_channel ? ",{\"name\":\"orphan\"}" : "");
    appendf(json, size,
            "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"JOINTS_0\":%d,"
            "\"WEIGHTS_0\":%d},"
            "\"indices\":%d}]}],\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":%d}],",
            a_pos, a_joints, a_weights, a_indices, a_ibm);
    appendf(json, size,
            "\"animations\":["
            "{\"name\":\"step\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":"
            "\"translation\"}},"
            "{\"sampler\":%d,\"target\":{\"node\":1,\"path\":\"rotation\"}}%s],"
            "\"samplers\":[{\"input\":%d,\"output\":%d,\"interpolation\":\"STEP\"},"
            "{\"input\":%d,\"output\":%d,\"interpolation\":\"STEP\"}]},",
            x->sampler_missing ? 9 : 1,
            x->orphan_channel
                ? (x->single_root ? ",{\"sampler\":0,\"target\":{\"node\":4,\"path\":\"scale\"}}"
                                  : ",{\"sampler\":0,\"target\":{\"node\":3,\"path\":\"scale\"}}")
                : "",
            a_step_times, a_p_step, a_step_times, a_q);
    appendf(json, size,
            "{\"name\":\"linear\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":"
            "\"translation\"}},"
            "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}}],"
            "\"samplers\":[{\"input\":%d,\"output\":%d},"
            "{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}]},",
            a_times, a_p_linear, a_times, a_q);
    appendf(json, size,
            "{\"name\":\"cubic\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":"
            "\"translation\"}},"
            "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}}],"
            "\"samplers\":[{\"input\":%d,\"output\":%d,\"interpolation\":\"%s\"},"
            "{\"input\":%d,\"output\":%d,\"interpolation\":\"CUBICSPLINE\"}]},",
            a_times, x->cubic_output_missing ? 99 : a_p_cubic,
            x->cubic_interpolation ? x->cubic_interpolation : "CUBICSPLINE", a_times, a_q_cubic);
    appendf(json, size,
            "{\"name\":\"quantized\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":"
            "\"rotation\"}},"
            "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
            "{\"sampler\":2,\"target\":{\"node\":1,\"path\":\"translation\"}},"
            "{\"sampler\":3,\"target\":{\"node\":0,\"path\":\"translation\"}},"
            "{\"sampler\":4,\"target\":{\"node\":2,\"path\":\"weights\"}}],"
            "\"samplers\":[{\"input\":%d,\"output\":%d,\"interpolation\":\"CUBICSPLINE\"},"
            "{\"input\":%d,\"output\":%d,\"interpolation\":\"STEP\"},{\"input\":%d,\"output\":%d},"
            "{\"input\":%d,\"output\":%d},{\"input\":%d,\"output\":%d}]}],",
            a_qtimes, a_root_q, a_qtimes, a_tip_q, a_qtimes, a_tip_p, a_qtimes, a_root_p, a_qtimes,
            a_weights_out);
    appendf(json, size, "\"buffers\":[%s],\"bufferViews\":[%s],\"accessors\":[%s]}", buffer,
            b->views, b->accessors);
}

/* ---- containers ---- */

static char *base64(const uint8_t *bytes, size_t size) {
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(size / 3 * 4 + 5);
    size_t n = 0;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)bytes[i] << 16 | (i + 1 < size ? (uint32_t)bytes[i + 1] << 8 : 0) |
                     (i + 2 < size ? bytes[i + 2] : 0);
        out[n++] = alphabet[v >> 18];
        out[n++] = alphabet[(v >> 12) & 63];
        out[n++] = i + 1 < size ? alphabet[(v >> 6) & 63] : '=';
        out[n++] = i + 2 < size ? alphabet[v & 63] : '=';
    }
    out[n] = '\0';
    return out;
}

static char json_text[65536];

/* The model as .gltf with the buffer as a base64 data: URI. */
static size_t make_gltf(const breakage *x, char *out, size_t size) {
    builder b;
    build_model(&b, x, "{\"byteLength\":0}", json_text, sizeof json_text);
    char *encoded = base64(b.bin, b.bin_size);
    char buffer[16384];
    snprintf(buffer, sizeof buffer,
             "{\"byteLength\":%u,\"uri\":\"data:application/octet-stream;base64,%s\"}", b.bin_size,
             encoded);
    free(encoded);
    build_model(&b, x, buffer, out, size);
    return strlen(out);
}

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* The model as .glb: header, JSON chunk (space padded), BIN chunk. */
static size_t make_glb(const breakage *x, uint8_t *out, size_t size) {
    builder b;
    char buffer[64];
    build_model(&b, x, "{\"byteLength\":0}", json_text, sizeof json_text);
    snprintf(buffer, sizeof buffer, "{\"byteLength\":%u}", b.bin_size);
    build_model(&b, x, buffer, json_text, sizeof json_text);
    uint32_t json_length = (uint32_t)(strlen(json_text) + 3) & ~3u;
    uint32_t total = 12 + 8 + json_length + 8 + b.bin_size;
    if (total > size) {
        return 0;
    }
    memset(out, ' ', total);
    put_u32(out, 0x46546C67u);
    put_u32(out + 4, 2);
    put_u32(out + 8, total);
    put_u32(out + 12, json_length);
    put_u32(out + 16, 0x4E4F534Au);
    memcpy(out + 20, json_text, strlen(json_text));
    put_u32(out + 20 + json_length, b.bin_size);
    put_u32(out + 24 + json_length, 0x004E4942u);
    memcpy(out + 28 + json_length, b.bin, b.bin_size);
    return total;
}

/* The model as NAME.gltf + NAME.bin in the working directory (the build tree). */
static int write_gltf_and_bin(const breakage *x, const char *gltf_path, const char *bin_name) {
    builder b;
    char buffer[256];
    build_model(&b, x, "{\"byteLength\":0}", json_text, sizeof json_text);
    snprintf(buffer, sizeof buffer, "{\"byteLength\":%u,\"uri\":\"%s\"}", b.bin_size, bin_name);
    build_model(&b, x, buffer, json_text, sizeof json_text);
    FILE *json = fopen(gltf_path, "wb");
    FILE *bin = fopen(bin_name, "wb");
    int ok = json && bin && fputs(json_text, json) >= 0 &&
             fwrite(b.bin, 1, b.bin_size, bin) == b.bin_size;
    ok = (json && fclose(json) == 0) && ok;
    ok = (bin && fclose(bin) == 0) && ok;
    return ok;
}

/* ---- expectations ---- */

static int warnings;
static void count_warnings(void *user, crowd_log_level level, const char *message) {
    (void)user;
    if (level == CROWD_LOG_WARNING) {
        warnings++;
        fprintf(stderr, "warning: %s\n", message);
    }
}

static void normalize4(double *q) {
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) {
        q[i] /= length;
    }
}

/* Rotation about z by `degrees`, as (x, y, z, w). */
static void quat_z(double degrees, double *q) {
    double half = degrees * 3.14159265358979323846 / 360.0;
    q[0] = 0;
    q[1] = 0;
    q[2] = sin(half);
    q[3] = cos(half);
}

/* Hermite with the basis weights given by hand:
 * h00 p0 + h10 dt m0 + h01 p1 + h11 dt m1 (m0 = out-tangent of the first
 * key, m1 = in-tangent of the second). */
static void hermite(int n, double h00, double h10, double h01, double h11, double dt,
                    const float *p0, const float *m0, const float *p1, const float *m1,
                    double *out) {
    for (int i = 0; i < n; i++) {
        out[i] = h00 * p0[i] + h10 * dt * m0[i] + h01 * p1[i] + h11 * dt * m1[i];
    }
}

static void check_pose(const crowd_asset *asset, const char *clip_name, const char *joint_name,
                       float time_s, const double *translation, const double *rotation,
                       const char *label) {
    int32_t c = crowd_asset_find_clip(asset, clip_name),
            j = crowd_asset_find_joint(asset, joint_name);
    CHECK_MSG(c >= 0 && j >= 0, "%s: clip %s / joint %s missing", label, clip_name, joint_name);
    if (c < 0 || j < 0) {
        return;
    }
    crowd_transform pose[8];
    if (asset->skeleton.joint_count > 8) {
        CHECK(asset->skeleton.joint_count <= 8);
        return;
    }
    crowd_anim_sample(&asset->skeleton, &asset->clips[c], time_s, NULL, pose);
    if (translation != NULL) {
        for (int i = 0; i < 3; i++) {
            CHECK_MSG(fabs(pose[j].translation[i] - translation[i]) <= 1e-5,
                      "%s %s %s t=%g translation[%d] = %.7g, expected %.7g", label, clip_name,
                      joint_name, (double)time_s, i, (double)pose[j].translation[i],
                      translation[i]);
        }
    }
    if (rotation != NULL) {
        double q[4] = {pose[j].rotation[0], pose[j].rotation[1], pose[j].rotation[2],
                       pose[j].rotation[3]};
        normalize4(q);
        /* q and -q are the same rotation. */
        double same = 0, flipped = 0;
        for (int i = 0; i < 4; i++) {
            same = fmax(same, fabs(q[i] - rotation[i]));
            flipped = fmax(flipped, fabs(q[i] + rotation[i]));
        }
        CHECK_MSG(fmin(same, flipped) <= 1e-5,
                  "%s %s %s t=%g rotation (%.6f %.6f %.6f %.6f), expected (%.6f %.6f %.6f %.6f)",
                  label, clip_name, joint_name, (double)time_s, q[0], q[1], q[2], q[3], rotation[0],
                  rotation[1], rotation[2], rotation[3]);
    }
}

static const crowd_track *track_of(const crowd_asset *asset, const char *clip_name,
                                   const char *joint_name, int path) {
    int32_t c = crowd_asset_find_clip(asset, clip_name),
            j = crowd_asset_find_joint(asset, joint_name);
    if (c < 0 || j < 0) {
        return NULL;
    }
    const crowd_joint_tracks *t = &asset->clips[c].tracks[j];
    return path == 0 ? &t->translation : path == 1 ? &t->rotation : &t->scale;
}

static void check_tracks(const crowd_asset *asset, const char *label) {
    const crowd_track *step_p = track_of(asset, "step", "tip", 0),
                      *step_q = track_of(asset, "step", "tip", 1);
    const crowd_track *lin_p = track_of(asset, "linear", "tip", 0),
                      *lin_q = track_of(asset, "linear", "tip", 1);
    const crowd_track *cub_p = track_of(asset, "cubic", "tip", 0),
                      *cub_q = track_of(asset, "cubic", "tip", 1);
    CHECK_MSG(step_p && step_q && lin_p && lin_q && cub_p && cub_q, "%s: tracks missing", label);
    if (!(step_p && step_q && lin_p && lin_q && cub_p && cub_q)) {
        return;
    }
    CHECK(step_p->interpolation == CROWD_INTERP_STEP && step_q->interpolation == CROWD_INTERP_STEP);
    CHECK(lin_p->interpolation == CROWD_INTERP_LINEAR &&
          lin_q->interpolation == CROWD_INTERP_LINEAR);
    CHECK(cub_p->interpolation == CROWD_INTERP_CUBIC && cub_q->interpolation == CROWD_INTERP_CUBIC);
    const crowd_track *all[6] = {step_p, step_q, lin_p, lin_q, cub_p, cub_q};
    for (int t = 0; t < 6; t++) {
        CHECK_MSG(all[t]->key_count == 3, "%s: track %d has %u keys", label, t, all[t]->key_count);
        /* Every mode's keys keep the file's times, one time base for all. */
        for (uint32_t k = 0; k < 3 && all[t]->key_count == 3; k++) {
            CHECK_MSG(all[t]->times_s[k] == lin_p->times_s[k] && all[t]->times_s[k] == key_times[k],
                      "%s: track %d key %u at %.9g s", label, t, k, (double)all[t]->times_s[k]);
        }
    }
    if (cub_p->key_count == 3 && cub_q->key_count == 3 && step_p->key_count == 3 &&
        step_q->key_count == 3) {
        CHECK(memcmp(cub_p->values, p_cubic, sizeof p_cubic) == 0);
        CHECK(memcmp(cub_q->values, q_cubic, sizeof q_cubic) == 0);
        CHECK(memcmp(step_p->values, p_keys, sizeof p_keys) == 0);
        for (int i = 0; i < 12; i++) {
            CHECK_NEAR(step_q->values[i], ((const float *)q_keys)[i], 1e-7);
        }
    }

    /* Normalized integers: c / 32767 and c / 127, clamped at -1. */
    const crowd_track *root_q = track_of(asset, "quantized", "nodes[0]", 1);
    const crowd_track *root_p = track_of(asset, "quantized", "nodes[0]", 0);
    const crowd_track *tip_q = track_of(asset, "quantized", "tip", 1);
    const crowd_track *tip_p = track_of(asset, "quantized", "tip", 0);
    CHECK_MSG(root_q && root_p && tip_q && tip_p, "%s: quantized tracks missing", label);
    if (!(root_q && root_p && tip_q && tip_p)) {
        return;
    }
    CHECK(root_q->interpolation == CROWD_INTERP_CUBIC && root_q->key_count == 2);
    CHECK(tip_q->interpolation == CROWD_INTERP_STEP && tip_q->key_count == 2);
    CHECK(tip_p->interpolation == CROWD_INTERP_LINEAR && tip_p->key_count == 2);
    CHECK(root_p->interpolation == CROWD_INTERP_LINEAR && root_p->key_count == 2);
    if (root_q->key_count == 2) {
        const int16_t *raw = &root_rotation_i16[0][0][0];
        for (int i = 0; i < 24; i++) {
            float expected = raw[i] == -32768 ? -1.0f : (float)(raw[i] / 32767.0);
            CHECK_MSG(root_q->values[i] == expected,
                      "%s: root rotation value %d = %.9g, expected %.9g", label, i,
                      (double)root_q->values[i], (double)expected);
        }
    }
    if (tip_q->key_count == 2 && tip_p->key_count == 2) {
        const float expected_q[8] = {0, 0, 0, 1, 0, 0, (float)S2, -(float)S2};
        const float expected_p[6] = {0, 1, 0, 2, 1, 0};
        for (int i = 0; i < 8; i++) {
            CHECK_NEAR(tip_q->values[i], expected_q[i], 1e-7);
        }
        for (int i = 0; i < 6; i++) {
            CHECK(tip_p->values[i] == expected_p[i]);
        }
    }
    if (root_p->key_count == 2) {
        for (int k = 0; k < 2; k++) {
            CHECK_MSG(root_q->times_s[k] == root_p->times_s[k] &&
                          tip_q->times_s[k] == root_p->times_s[k] &&
                          tip_p->times_s[k] == root_p->times_s[k],
                      "%s: quantized key %d times differ between tracks", label, k);
        }
    }
}

static void check_poses(const crowd_asset *asset, const char *label) {
    double q[4];
    /* At and around keys, every mode gives the key's value. */
    for (int c = 0; c < 3; c++) {
        const char *clip = c == 0 ? "step" : c == 1 ? "linear" : "cubic";
        for (int k = 0; k < 3; k++) {
            double pk[3] = {p_keys[k][0], p_keys[k][1], p_keys[k][2]};
            double qk[4] = {q_keys[k][0], q_keys[k][1], q_keys[k][2], q_keys[k][3]};
            check_pose(asset, clip, "tip", key_times[k], pk, qk, label);
        }
        double last_p[3] = {2, 3, -2}, last_q[4] = {0, 0, 1, 0};
        check_pose(asset, clip, "tip", 4.0f, last_p, last_q, label); /* one-shot: clamps */
    }
    /* STEP holds the previous key. */
    double p0[3] = {0, 1, 0}, q0[4] = {0, 0, 0, 1}, p1[3] = {2, 1, 0}, q1[4] = {0, 0, S2, S2};
    check_pose(asset, "step", "tip", 0.25f, p0, q0, label);
    check_pose(asset, "step", "tip", 0.5f, p0, q0, label);
    check_pose(asset, "step", "tip", 0.999f, p0, q0, label);
    check_pose(asset, "step", "tip", 2.0f, p1, q1, label);
    check_pose(asset, "step", "tip", 2.999f, p1, q1, label);
    /* LINEAR: lerp, slerp (22.5, 45, 135 degrees). */
    double lp[3] = {0.5, 1, 0};
    quat_z(22.5, q);
    check_pose(asset, "linear", "tip", 0.25f, lp, q, label);
    double lp2[3] = {1, 1, 0};
    quat_z(45, q);
    check_pose(asset, "linear", "tip", 0.5f, lp2, q, label);
    double lp3[3] = {2, 2, -1};
    quat_z(135, q);
    check_pose(asset, "linear", "tip", 2.0f, lp3, q, label);
    /* CUBICSPLINE. u = 1/4: h00 = 27/32, h10 = 9/64, h01 = 5/32, h11 = -3/64;
     * u = 1/2: h00 = h01 = 1/2, h10 = 1/8, h11 = -1/8. dt = 1 on [0, 1], 2 on [1, 3]. */
    double cp[3] = {0.875, 0.90625,
                    0}; /* (0,1,0) 27/32 + (4,0,0) 9/64 + (2,1,0) 5/32 - (0,2,0) 3/64 */
    hermite(4, 27.0 / 32, 9.0 / 64, 5.0 / 32, -3.0 / 64, 1, q_cubic[0][1], q_cubic[0][2],
            q_cubic[1][1], q_cubic[1][0], q);
    normalize4(q);
    check_pose(asset, "cubic", "tip", 0.25f, cp, q, label);
    double cp2[3] = {1.5, 0.75, 0}; /* (0,1,0)/2 + (4,0,0)/8 + (2,1,0)/2 - (0,2,0)/8 */
    double q90[4] = {0, 0, S2, S2}; /* (0,0,s/2 + 1/2, (1+s)/2): z = w, so 90 degrees */
    check_pose(asset, "cubic", "tip", 0.5f, cp2, q90, label);
    double cp3[3] = {1.75, 1.75, -1.5}; /* (2,1,0)/2 + 2(0,0,-1)/8 + (2,3,-2)/2 - 2(1,1,1)/8 */
    double q3[4] = {0, 0, S2 / 2 + 1, S2 / 2 - 0.5}; /* q1/2 + (0,0,1,-1)/4 + q2/2 - (0,0,-1,1)/4 */
    normalize4(q3);
    check_pose(asset, "cubic", "tip", 2.0f, cp3, q3, label);
    /* The three modes really differ between keys. */
    CHECK(fabs(cp2[0] - lp2[0]) > 0.4 && fabs(lp2[0] - p0[0]) > 0.4 && fabs(cp3[2] - lp3[2]) > 0.4);

    /* Quantized clip, keys at 0.1 and 0.7: u = 1/2 at 0.4, dt = 0.6. */
    float root_keys[2][3][4];
    for (int i = 0; i < 24; i++) {
        int16_t c = (&root_rotation_i16[0][0][0])[i];
        (&root_keys[0][0][0])[i] = c == -32768 ? -1.0f : (float)(c / 32767.0);
    }
    hermite(4, 0.5, 0.125, 0.5, -0.125, 0.7 - 0.1, root_keys[0][1], root_keys[0][2],
            root_keys[1][1], root_keys[1][0], q);
    normalize4(q);
    double half_up[3] = {0, 0.25, 0};
    check_pose(asset, "quantized", "nodes[0]", 0.4f, half_up, q, label);
    double tip_mid[3] = {1, 1, 0};
    check_pose(asset, "quantized", "tip", 0.4f, tip_mid, q0, label);
    double tip_end_q[4] = {0, 0, S2, -S2}, tip_end_p[3] = {2, 1, 0};
    check_pose(asset, "quantized", "tip", 0.7f, tip_end_p, tip_end_q, label);
    double root_end[4] = {0, 0, S2, S2};
    check_pose(asset, "quantized", "nodes[0]", 0.7f, NULL, root_end, label);
}

static void check_asset(const crowd_asset *asset, const char *label) {
    CHECK_MSG(asset != NULL, "%s: not imported", label);
    if (asset == NULL) {
        return;
    }
    crowd_error invalid;
    CHECK_MSG(crowd_asset_validate(asset, &invalid) == CROWD_OK, "%s: %s", label, invalid.reason);
    CHECK_MSG(asset->clip_count == 4 && asset->skeleton.joint_count == 2, "%s: %u clips, %u joints",
              label, asset->clip_count, asset->skeleton.joint_count);
    CHECK(asset->repairs.keys_dropped == 0);
    int32_t cubic = crowd_asset_find_clip(asset, "cubic");
    CHECK(cubic >= 0 && asset->clips[cubic].duration_s == 3.0f && !asset->clips[cubic].loop);
    check_tracks(asset, label);
    check_poses(asset, label);
}

static crowd_asset *import_bytes(const void *bytes, size_t size, const char *name,
                                 crowd_error *error) {
    crowd_import_desc desc = {0};
    desc.logger.fn = count_warnings;
    crowd_asset *asset = NULL;
    memset(error, 0, sizeof *error);
    crowd_result result = crowd_import_memory(bytes, size, name, &desc, &asset, error);
    CHECK_MSG(result == CROWD_OK || asset == NULL, "%s: asset returned on failure", name);
    return result == CROWD_OK ? asset : NULL;
}

static uint8_t file_bytes[1 << 16];

static void check_valid_files(void) {
    breakage none = {0};
    crowd_error error;
    warnings = 0;

    size_t size = make_gltf(&none, (char *)file_bytes, sizeof file_bytes);
    crowd_asset *asset = import_bytes(file_bytes, size, "interpolation.gltf", &error);
    CHECK_MSG(asset != NULL, "interpolation.gltf: %s", error.reason);
    check_asset(asset, ".gltf, data: URI");
    crowd_asset_destroy(asset);

    size = make_glb(&none, file_bytes, sizeof file_bytes);
    asset = import_bytes(file_bytes, size, "interpolation.glb", &error);
    CHECK_MSG(asset != NULL, "interpolation.glb: %s", error.reason);
    check_asset(asset, ".glb");
    crowd_asset_destroy(asset);

    breakage single = {0};
    single.single_root = true;
    CHECK(write_gltf_and_bin(&single, "interpolation_external.gltf", "interpolation_external.bin"));
    crowd_import_desc desc = {0};
    desc.logger.fn = count_warnings;
    asset = NULL;
    crowd_result result = crowd_import_file("interpolation_external.gltf", &desc, &asset, &error);
    CHECK_MSG(result == CROWD_OK, "interpolation_external.gltf: %s", error.reason);
    check_asset(asset, ".gltf + .bin, one root");
    crowd_asset_destroy(asset);
    CHECK_MSG(warnings == 0, "%d warnings on valid files", warnings);
}

/* A STEP channel on a node outside the scene: nothing to animate, one warning. */
static void check_orphan_channel(void) {
    for (int single = 0; single < 2; single++) {
        breakage x = {0};
        x.orphan_channel = true;
        x.single_root = single;
        size_t size = make_glb(&x, file_bytes, sizeof file_bytes);
        crowd_error error;
        warnings = 0;
        crowd_asset *asset = import_bytes(file_bytes, size, "orphan.glb", &error);
        CHECK_MSG(asset != NULL, "orphan.glb: %s", error.reason);
        check_asset(asset, "orphan channel");
        CHECK_MSG(warnings == 1, "orphan.glb: %d warnings, expected 1", warnings);
        crowd_asset_destroy(asset);
    }
}

/* A NaN key time is dropped and counted once per track that reads it. */
static void check_dropped_key(void) {
    breakage x = {0};
    x.nan_step_time = true;
    size_t size = make_glb(&x, file_bytes, sizeof file_bytes);
    crowd_error error;
    crowd_asset *asset = import_bytes(file_bytes, size, "nan_time.glb", &error);
    CHECK_MSG(asset != NULL, "nan_time.glb: %s", error.reason);
    if (asset == NULL) {
        return;
    }
    const crowd_track *p = track_of(asset, "step", "tip", 0),
                      *q = track_of(asset, "step", "tip", 1);
    CHECK(p && q && p->key_count == 2 && q->key_count == 2 &&
          p->interpolation == CROWD_INTERP_STEP);
    CHECK_MSG(asset->repairs.keys_dropped == 2, "keys_dropped %u, expected 2 (one per track)",
              asset->repairs.keys_dropped);
    if (p && p->key_count == 2) {
        CHECK(p->times_s[0] == 0.0f && p->times_s[1] == 3.0f && p->values[3] == 2.0f &&
              p->values[4] == 3.0f);
    }
    crowd_asset_destroy(asset);
}

static void expect_invalid(const breakage *x, const char *name, const char *reason_part) {
    static char text[1 << 16];
    crowd_error error;
    for (int container = 0; container < 2; container++) {
        size_t size = container == 0 ? make_gltf(x, text, sizeof text)
                                     : make_glb(x, (uint8_t *)text, sizeof text);
        char file[64];
        snprintf(file, sizeof file, "%s.%s", name, container == 0 ? "gltf" : "glb");
        crowd_asset *asset = import_bytes(text, size, file, &error);
        CHECK_MSG(asset == NULL && error.result == CROWD_ERROR_INVALID_DATA,
                  "%s: imported or wrong error (%s)", file, crowd_result_str(error.result));
        CHECK_MSG(strcmp(error.file, file) == 0, "%s: error names '%s'", file, error.file);
        CHECK_MSG(strstr(error.reason, reason_part) != NULL, "%s: reason '%s' lacks '%s'", file,
                  error.reason, reason_part);
        printf("  %-28s %s\n", file, error.reason);
        crowd_asset_destroy(asset);
    }
}

static void check_malformed(void) {
    breakage x;
    memset(&x, 0, sizeof x);
    x.cubic_interpolation = "SMOOTH";
    expect_invalid(&x, "unknown_interpolation", "unknown interpolation 'SMOOTH'");
    memset(&x, 0, sizeof x);
    x.cubic_extra_elements = 3;
    expect_invalid(&x, "cubic_count", "3 keys need 9 output elements, the output accessor has 12");
    memset(&x, 0, sizeof x);
    x.step_extra_element = true;
    expect_invalid(&x, "step_count", "3 keys need 3 output elements, the output accessor has 4");
    memset(&x, 0, sizeof x);
    x.linear_extra_element = true;
    expect_invalid(&x, "linear_count", "3 keys need 3 output elements, the output accessor has 4");
    memset(&x, 0, sizeof x);
    x.cubic_extra_offset = 64; /* 4 + 64 + 8 x 16 + 12 > 12 x 16 */
    expect_invalid(&x, "cubic_range", "needs bytes [68, 208) of bufferView");
    memset(&x, 0, sizeof x);
    x.cubic_output_missing = true;
    expect_invalid(&x, "cubic_missing", "accessor");
    memset(&x, 0, sizeof x);
    x.input_normalized = true;
    expect_invalid(&x, "input_normalized",
                   "accessors[5].normalized is not false for componentType 5126");
    memset(&x, 0, sizeof x);
    x.sampler_missing = true;
    expect_invalid(&x, "sampler_missing",
                   "animations[0].channels[1].sampler is missing or not one of the animation's 2");
    memset(&x, 0, sizeof x);
    x.rotation_not_normalized = true;
    expect_invalid(&x, "rotation_raw_int", "not VEC4 of floats or normalized integers");
}

int test_gltf_document(void); /* import_gltf_document.c */

int main(void) {
    check_enter_temp_dir("import_interpolation");
    check_valid_files();
    check_dropped_key();
    check_orphan_channel();
    check_malformed();
    printf("interpolation: %d checks, %d failed\n", check_count, check_failures);
    int failures = check_failures + test_gltf_document();
    printf("test_import_interpolation: %d failed\n", failures);
    return failures ? 1 : 0;
}
