#include "synthetic_glb.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The binary chunk, in the order of the buffer views below. */
typedef struct bin {
    float positions[6 * 3];
    uint16_t joints[6 * 4];
    float weights[6 * 4];
    uint16_t indices[12];
    float inverse_bind[2 * 16];
    float times_rotation[3];
    float rotation[3 * 3 * 4]; /* cubic: in, value, out per key */
    float times_translation[3];
    float translation[3 * 3]; /* step */
    float times_scale[2];
    float scale[2 * 3]; /* linear */
    float times_root[3];
    float root_translation[3 * 3 * 3]; /* cubic */
} bin;

static void quat_z(float degrees, float *q) {
    double half = degrees * 3.14159265358979323846 / 360.0;
    q[0] = 0;
    q[1] = 0;
    q[2] = (float)sin(half);
    q[3] = (float)cos(half);
}

static void fill(bin *b) {
    memset(b, 0, sizeof *b);
    for (int v = 0; v < 6; v++) {
        b->positions[3 * v] = (v % 2) ? 0.5f : -0.5f;
        b->positions[3 * v + 1] = (float)(v / 2);
        b->positions[3 * v + 2] = 0.1f * (float)v;
        int row = v / 2;
        b->joints[4 * v] = row == 2 ? 1 : 0;
        b->joints[4 * v + 1] = row == 1 ? 1 : 0;
        b->weights[4 * v] = row == 1 ? 0.7f : 1.0f;
        b->weights[4 * v + 1] = row == 1 ? 0.3f : 0.0f;
    }
    const uint16_t indices[12] = {0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4};
    memcpy(b->indices, indices, sizeof indices);
    for (int j = 0; j < 2; j++) {
        for (int i = 0; i < 4; i++) {
            b->inverse_bind[16 * j + 5 * i] = 1;
        }
    }
    b->inverse_bind[16 + 13] = -1; /* joint 1 binds at y = 1 */

    const float rt[3] = {0, 0.5f, 1.5f};
    memcpy(b->times_rotation, rt, sizeof rt);
    const float degrees[3] = {0, 60, -30};
    for (int k = 0; k < 3; k++) {
        float *in = b->rotation + 12 * k, *value = in + 4, *out = in + 8;
        quat_z(degrees[k], value);
        /* tangents: arbitrary, not zero, different in and out */
        const float tin[4] = {0.05f, 0, 0.4f, -0.1f}, tout[4] = {0, -0.05f, -0.3f, 0.2f};
        memcpy(in, tin, sizeof tin);
        memcpy(out, tout, sizeof tout);
    }
    const float tt[3] = {0, 0.7f, 1.2f};
    memcpy(b->times_translation, tt, sizeof tt);
    const float tv[9] = {0, 1, 0, 0.2f, 1.1f, 0, 0, 0.9f, 0.1f};
    memcpy(b->translation, tv, sizeof tv);
    const float st[2] = {0.2f, 1.5f};
    memcpy(b->times_scale, st, sizeof st);
    const float sv[6] = {1, 1, 1, 1.5f, 0.8f, 1};
    memcpy(b->scale, sv, sizeof sv);
    const float rtt[3] = {0, 1, 1.5f};
    memcpy(b->times_root, rtt, sizeof rtt);
    const float rv[27] = {
        0,  0, 0, 0,    0, 0, 1,    0.5f, 0, /* in, value, out */
        -1, 0, 2, 0.3f, 0, 0, 0.5f, 0.2f, 0, 0, 1, 0, 0, 0.1f, 0, 0, 0, 0,
    };
    memcpy(b->root_translation, rv, sizeof rv);
}

int synthetic_glb_write(const char *path) {
    bin b;
    fill(&b);
    /* byte offsets of the views, in struct order */
    size_t o_pos = offsetof(bin, positions), o_j = offsetof(bin, joints),
           o_w = offsetof(bin, weights), o_i = offsetof(bin, indices),
           o_ib = offsetof(bin, inverse_bind), o_rt = offsetof(bin, times_rotation),
           o_r = offsetof(bin, rotation), o_tt = offsetof(bin, times_translation),
           o_t = offsetof(bin, translation), o_st = offsetof(bin, times_scale),
           o_s = offsetof(bin, scale), o_rtt = offsetof(bin, times_root),
           o_rv = offsetof(bin, root_translation);
    char json[8192];
    int n =
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],"
                 "\"nodes\":[{\"name\":\"root_joint\",\"children\":[1]},"
                 "{\"name\":\"tip_joint\",\"translation\":[0,1,0]},"
                 "{\"name\":\"strip\",\"mesh\":0,\"skin\":0}],"
                 "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,"
                 "\"WEIGHTS_0\":2},\"indices\":3}]}],"
                 "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":4}],"
                 "\"animations\":[{\"name\":\"every_interpolation\",\"channels\":["
                 "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
                 "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"translation\"}},"
                 "{\"sampler\":2,\"target\":{\"node\":0,\"path\":\"scale\"}},"
                 "{\"sampler\":3,\"target\":{\"node\":0,\"path\":\"translation\"}}],"
                 "\"samplers\":[{\"input\":5,\"output\":6,\"interpolation\":\"CUBICSPLINE\"},"
                 "{\"input\":7,\"output\":8,\"interpolation\":\"STEP\"},"
                 "{\"input\":9,\"output\":10,\"interpolation\":\"LINEAR\"},"
                 "{\"input\":11,\"output\":12,\"interpolation\":\"CUBICSPLINE\"}]}],"
                 "\"buffers\":[{\"byteLength\":%zu}],"
                 "\"bufferViews\":["
                 "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,"
                 "\"byteOffset\":%zu,\"byteLength\":%zu},"
                 "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,"
                 "\"byteOffset\":%zu,\"byteLength\":%zu},"
                 "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,"
                 "\"byteOffset\":%zu,\"byteLength\":%zu},"
                 "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,"
                 "\"byteOffset\":%zu,\"byteLength\":%zu},"
                 "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,"
                 "\"byteOffset\":%zu,\"byteLength\":%zu},"
                 "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,"
                 "\"byteOffset\":%zu,\"byteLength\":%zu},"
                 "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
                 "\"accessors\":["
                 "{\"bufferView\":0,\"componentType\":5126,\"count\":6,\"type\":\"VEC3\",\"min\":[-"
                 "0.5,0,0],\"max\":[0.5,2,0.5]},"
                 "{\"bufferView\":1,\"componentType\":5123,\"count\":6,\"type\":\"VEC4\"},"
                 "{\"bufferView\":2,\"componentType\":5126,\"count\":6,\"type\":\"VEC4\"},"
                 "{\"bufferView\":3,\"componentType\":5123,\"count\":12,\"type\":\"SCALAR\"},"
                 "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},"
                 "{\"bufferView\":5,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":"
                 "[0],\"max\":[1.5]},"
                 "{\"bufferView\":6,\"componentType\":5126,\"count\":9,\"type\":\"VEC4\"},"
                 "{\"bufferView\":7,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":"
                 "[0],\"max\":[1.2]},"
                 "{\"bufferView\":8,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
                 "{\"bufferView\":9,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":"
                 "[0.2],\"max\":[1.5]},"
                 "{\"bufferView\":10,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
                 "{\"bufferView\":11,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\","
                 "\"min\":[0],\"max\":[1.5]},"
                 "{\"bufferView\":12,\"componentType\":5126,\"count\":9,\"type\":\"VEC3\"}]}",
                 sizeof b, o_pos, sizeof b.positions, o_j, sizeof b.joints, o_w, sizeof b.weights,
                 o_i, sizeof b.indices, o_ib, sizeof b.inverse_bind, o_rt, sizeof b.times_rotation,
                 o_r, sizeof b.rotation, o_tt, sizeof b.times_translation, o_t,
                 sizeof b.translation, o_st, sizeof b.times_scale, o_s, sizeof b.scale, o_rtt,
                 sizeof b.times_root, o_rv, sizeof b.root_translation);
    if (n < 0 || (size_t)n >= sizeof json) {
        return 0;
    }
    /* Chunks are 4-byte aligned: JSON padded with spaces, BIN with zeros. */
    uint32_t json_length = (uint32_t)((n + 3) & ~3);
    while ((uint32_t)n < json_length) {
        json[n++] = ' ';
    }
    uint32_t bin_length = (uint32_t)((sizeof b + 3) & ~(size_t)3);
    uint32_t total = 12 + 8 + json_length + 8 + bin_length;
    uint32_t header[3] = {0x46546C67u, 2, total};
    uint32_t json_header[2] = {json_length, 0x4E4F534Au};
    uint32_t bin_header[2] = {bin_length, 0x004E4942u};
    static const uint8_t zeros[4] = {0};
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return 0;
    }
    int ok = fwrite(header, sizeof header, 1, f) == 1 &&
             fwrite(json_header, sizeof json_header, 1, f) == 1 &&
             fwrite(json, 1, json_length, f) == json_length &&
             fwrite(bin_header, sizeof bin_header, 1, f) == 1 && fwrite(&b, sizeof b, 1, f) == 1 &&
             fwrite(zeros, 1, bin_length - sizeof b, f) == bin_length - sizeof b;
    return fclose(f) == 0 && ok;
}
