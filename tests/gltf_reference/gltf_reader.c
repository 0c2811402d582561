/* A glTF 2.0 reader written from the specification (sections 3.6 buffers
 * and accessors, 3.5 nodes, 3.7 meshes, 3.7.3 skins, 3.11 animations, 4.4
 * GLB), for the reference test only. */
#include "gltf_reader.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct blob {
    uint8_t *data;
    size_t size;
} blob;

typedef struct reader {
    cJSON *json;
    int buffer_count;
    blob *buffers;
    char *reason;
    size_t reason_size;
} reader;

static int fail(reader *r, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(r->reason, r->reason_size, format, args);
    va_end(args);
    return 0;
}

static int read_whole(const char *path, blob *out) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return 0;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    out->data = malloc(size > 0 ? (size_t)size : 1);
    out->size = size > 0 ? (size_t)size : 0;
    int ok = out->data != NULL && fread(out->data, 1, out->size, f) == out->size;
    fclose(f);
    return ok;
}

static int base64_value(char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

static int base64_decode(const char *text, blob *out) {
    size_t len = strlen(text);
    out->data = malloc(len * 3 / 4 + 3);
    out->size = 0;
    if (out->data == NULL) {
        return 0;
    }
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len && text[i] != '='; i++) {
        int v = base64_value(text[i]);
        if (v < 0) {
            return 0;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out->data[out->size++] = (uint8_t)(acc >> bits);
        }
    }
    return 1;
}

static int get_int(const cJSON *object, const char *key, int fallback) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? item->valueint : fallback;
}

static cJSON *array_item(const reader *r, const char *array, int index) {
    cJSON *items = cJSON_GetObjectItemCaseSensitive(r->json, array);
    return index >= 0 ? cJSON_GetArrayItem(items, index) : NULL;
}

static int components_of(const char *type) {
    static const struct {
        const char *name;
        int n;
    } types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT4", 16}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(type, types[i].name) == 0) {
            return types[i].n;
        }
    }
    return 0;
}

/* Reads accessor `index` as doubles (normalized integers mapped to [0, 1]
 * or [-1, 1] as section 3.11 / 3.7.2.1 prescribe); *count gets the element
 * count. The caller frees the result. */
static double *read_accessor(reader *r, int index, int expect_components, uint32_t *count) {
    const cJSON *accessor = array_item(r, "accessors", index);
    if (accessor == NULL) {
        fail(r, "accessor %d missing", index);
        return NULL;
    }
    if (cJSON_GetObjectItemCaseSensitive(accessor, "sparse") != NULL) {
        fail(r, "accessor %d: sparse accessors are not supported by the reference", index);
        return NULL;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(accessor, "type");
    int components = cJSON_IsString(type) ? components_of(type->valuestring) : 0;
    if (components != expect_components) {
        fail(r, "accessor %d: %d components, expected %d", index, components, expect_components);
        return NULL;
    }
    int component_type = get_int(accessor, "componentType", 0);
    int size = component_type == 5126 || component_type == 5125   ? 4
               : component_type == 5122 || component_type == 5123 ? 2
               : component_type == 5120 || component_type == 5121 ? 1
                                                                  : 0;
    if (size == 0) {
        fail(r, "accessor %d: component type %d", index, component_type);
        return NULL;
    }
    int normalized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(accessor, "normalized"));
    *count = (uint32_t)get_int(accessor, "count", 0);
    double *out = calloc((size_t)*count * (size_t)components + 1, sizeof *out);
    if (out == NULL) {
        fail(r, "out of memory");
        return NULL;
    }
    const cJSON *view = array_item(r, "bufferViews", get_int(accessor, "bufferView", -1));
    if (view == NULL) {
        return out; /* no buffer view: all zeros (3.6.2.3) */
    }
    int buffer = get_int(view, "buffer", -1);
    if (buffer < 0 || buffer >= r->buffer_count) {
        free(out);
        fail(r, "buffer view of accessor %d: bad buffer", index);
        return NULL;
    }
    size_t element = (size_t)size * (size_t)components;
    /* Matrices of 1- and 2-byte components have column padding; not used by
     * the files tested, so refuse rather than misread. */
    if (components == 16 && size != 4) {
        free(out);
        fail(r, "accessor %d: non-float matrices not supported", index);
        return NULL;
    }
    size_t stride = (size_t)get_int(view, "byteStride", 0);
    if (stride == 0) {
        stride = element;
    }
    size_t start =
        (size_t)get_int(view, "byteOffset", 0) + (size_t)get_int(accessor, "byteOffset", 0);
    size_t view_end =
        (size_t)get_int(view, "byteOffset", 0) + (size_t)get_int(view, "byteLength", 0);
    if (*count > 0 && (start + (*count - 1) * stride + element > view_end ||
                       view_end > r->buffers[buffer].size)) {
        free(out);
        fail(r, "accessor %d runs past its buffer", index);
        return NULL;
    }
    const uint8_t *base = r->buffers[buffer].data + start;
    for (uint32_t i = 0; i < *count; i++) {
        for (int c = 0; c < components; c++) {
            const uint8_t *p = base + i * stride + (size_t)c * (size_t)size;
            double v = 0;
            switch (component_type) {
            case 5126: {
                float f;
                memcpy(&f, p, 4);
                v = f;
                break;
            }
            case 5125: {
                uint32_t u;
                memcpy(&u, p, 4);
                v = u;
                break;
            }
            case 5123: {
                uint16_t u;
                memcpy(&u, p, 2);
                v = normalized ? u / 65535.0 : u;
                break;
            }
            case 5122: {
                int16_t s;
                memcpy(&s, p, 2);
                v = normalized ? (s / 32767.0 < -1 ? -1 : s / 32767.0) : s;
                break;
            }
            case 5121:
                v = normalized ? p[0] / 255.0 : p[0];
                break;
            case 5120: {
                int8_t s = (int8_t)p[0];
                v = normalized ? (s / 127.0 < -1 ? -1 : s / 127.0) : s;
                break;
            }
            }
            out[(size_t)i * (size_t)components + (size_t)c] = v;
        }
    }
    return out;
}

static int load_buffers(reader *r, const char *dir, const blob *glb_bin) {
    cJSON *buffers = cJSON_GetObjectItemCaseSensitive(r->json, "buffers");
    r->buffer_count = cJSON_GetArraySize(buffers);
    r->buffers = calloc((size_t)r->buffer_count + 1, sizeof *r->buffers);
    for (int i = 0; i < r->buffer_count; i++) {
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(buffers, i), "uri");
        blob *b = &r->buffers[i];
        if (!cJSON_IsString(uri)) {
            if (glb_bin == NULL || i != 0) {
                return fail(r, "buffer %d has no uri and there is no GLB chunk", i);
            }
            b->data = malloc(glb_bin->size + 1);
            memcpy(b->data, glb_bin->data, glb_bin->size);
            b->size = glb_bin->size;
        } else if (strncmp(uri->valuestring, "data:", 5) == 0) {
            const char *comma = strchr(uri->valuestring, ',');
            if (comma == NULL || !base64_decode(comma + 1, b)) {
                return fail(r, "buffer %d: bad data URI", i);
            }
        } else {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", uri->valuestring);
            if (!read_whole(path, b)) {
                return fail(r, "buffer %d: cannot read %s", i, path);
            }
        }
    }
    return 1;
}

static void visit(gltf_file *file, const cJSON *nodes, int node, int parent, int depth) {
    if (node < 0 || node >= file->node_count || file->nodes[node].in_scene || depth > 1000) {
        return;
    }
    file->nodes[node].in_scene = 1;
    file->nodes[node].parent = parent;
    file->order[file->order_count++] = node;
    const cJSON *child;
    cJSON_ArrayForEach(
        child, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, node), "children")) {
        visit(file, nodes, child->valueint, node, depth + 1);
    }
}

static void read_doubles(const cJSON *array, double *out, int n) {
    for (int i = 0; i < n && i < cJSON_GetArraySize(array); i++) {
        out[i] = cJSON_GetArrayItem(array, i)->valuedouble;
    }
}

static int read_nodes(reader *r, gltf_file *file) {
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(r->json, "nodes");
    file->node_count = cJSON_GetArraySize(nodes);
    file->nodes = calloc((size_t)file->node_count + 1, sizeof *file->nodes);
    file->order = calloc((size_t)file->node_count + 1, sizeof *file->order);
    for (int i = 0; i < file->node_count; i++) {
        const cJSON *n = cJSON_GetArrayItem(nodes, i);
        gltf_node *node = &file->nodes[i];
        node->parent = -1;
        node->mesh = get_int(n, "mesh", -1);
        node->skin = get_int(n, "skin", -1);
        node->rotation[3] = 1;
        node->scale[0] = node->scale[1] = node->scale[2] = 1;
        read_doubles(cJSON_GetObjectItemCaseSensitive(n, "translation"), node->translation, 3);
        read_doubles(cJSON_GetObjectItemCaseSensitive(n, "rotation"), node->rotation, 4);
        read_doubles(cJSON_GetObjectItemCaseSensitive(n, "scale"), node->scale, 3);
        const cJSON *matrix = cJSON_GetObjectItemCaseSensitive(n, "matrix");
        if (matrix != NULL) {
            node->has_matrix = 1;
            read_doubles(matrix, node->matrix, 16);
        }
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(n, "name");
        if (cJSON_IsString(name)) {
            snprintf(node->name, sizeof node->name, "%s", name->valuestring);
        }
    }
    const cJSON *scenes = cJSON_GetObjectItemCaseSensitive(r->json, "scenes");
    const cJSON *scene = cJSON_GetArrayItem(scenes, get_int(r->json, "scene", 0));
    const cJSON *root;
    cJSON_ArrayForEach(root, cJSON_GetObjectItemCaseSensitive(scene, "nodes")) {
        visit(file, nodes, root->valueint, -1, 0);
    }
    return 1;
}

/* Twice the squared area of a triangle: zero for degenerate ones, which
 * importers may drop (assimp's FindDegenerates), so their vertices need no
 * counterpart. */
static double triangle_area2(const double *positions, const uint32_t tri[3]) {
    const double *a = positions + 3 * tri[0], *b = positions + 3 * tri[1],
                 *c = positions + 3 * tri[2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]},
           v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    return n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
}

static int read_meshes(reader *r, gltf_file *file) {
    const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(r->json, "meshes");
    file->mesh_count = cJSON_GetArraySize(meshes);
    file->meshes = calloc((size_t)file->mesh_count + 1, sizeof *file->meshes);
    for (int m = 0; m < file->mesh_count; m++) {
        const cJSON *primitives =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(meshes, m), "primitives");
        gltf_mesh *mesh = &file->meshes[m];
        mesh->primitive_count = cJSON_GetArraySize(primitives);
        mesh->primitives = calloc((size_t)mesh->primitive_count + 1, sizeof *mesh->primitives);
        for (int p = 0; p < mesh->primitive_count; p++) {
            const cJSON *prim = cJSON_GetArrayItem(primitives, p);
            gltf_primitive *out = &mesh->primitives[p];
            if (get_int(prim, "mode", 4) != 4) {
                return fail(r, "mesh %d primitive %d: only triangles are supported", m, p);
            }
            const cJSON *attributes = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
            out->positions =
                read_accessor(r, get_int(attributes, "POSITION", -1), 3, &out->vertex_count);
            if (out->positions == NULL) {
                return 0;
            }
            int joints = get_int(attributes, "JOINTS_0", -1),
                weights = get_int(attributes, "WEIGHTS_0", -1);
            if (joints >= 0 && weights >= 0) {
                uint32_t jc = 0, wc = 0;
                double *j = read_accessor(r, joints, 4, &jc);
                out->weights = read_accessor(r, weights, 4, &wc);
                if (j == NULL || out->weights == NULL || jc != out->vertex_count ||
                    wc != out->vertex_count) {
                    free(j);
                    return fail(r, "mesh %d primitive %d: bad joints/weights", m, p);
                }
                out->joints = calloc((size_t)jc * 4 + 1, sizeof *out->joints);
                for (size_t i = 0; i < (size_t)jc * 4; i++) {
                    out->joints[i] = (uint32_t)j[i];
                }
                free(j);
            }
            out->referenced = calloc(out->vertex_count + 1u, 1);
            int indices = get_int(prim, "indices", -1);
            if (indices < 0) {
                memset(out->referenced, 1, out->vertex_count);
            } else {
                uint32_t ic = 0;
                double *idx = read_accessor(r, indices, 1, &ic);
                if (idx == NULL) {
                    return 0;
                }
                for (uint32_t i = 0; i < ic; i++) {
                    if (idx[i] < 0 || idx[i] >= out->vertex_count) {
                        free(idx);
                        return fail(r, "mesh %d primitive %d: index out of range", m, p);
                    }
                }
                for (uint32_t i = 0; i + 2 < ic; i += 3) {
                    uint32_t tri[3] = {(uint32_t)idx[i], (uint32_t)idx[i + 1],
                                       (uint32_t)idx[i + 2]};
                    if (triangle_area2(out->positions, tri) > 0) {
                        out->referenced[tri[0]] = out->referenced[tri[1]] =
                            out->referenced[tri[2]] = 1;
                    }
                }
                free(idx);
            }
        }
    }
    return 1;
}

static int read_skins(reader *r, gltf_file *file) {
    const cJSON *skins = cJSON_GetObjectItemCaseSensitive(r->json, "skins");
    file->skin_count = cJSON_GetArraySize(skins);
    file->skins = calloc((size_t)file->skin_count + 1, sizeof *file->skins);
    for (int s = 0; s < file->skin_count; s++) {
        const cJSON *skin = cJSON_GetArrayItem(skins, s);
        const cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints");
        gltf_skin *out = &file->skins[s];
        out->joint_count = cJSON_GetArraySize(joints);
        out->joints = calloc((size_t)out->joint_count + 1, sizeof *out->joints);
        for (int j = 0; j < out->joint_count; j++) {
            out->joints[j] = cJSON_GetArrayItem(joints, j)->valueint;
            if (out->joints[j] < 0 || out->joints[j] >= file->node_count) {
                return fail(r, "skin %d: joint %d out of range", s, j);
            }
        }
        int ibm = get_int(skin, "inverseBindMatrices", -1);
        if (ibm >= 0) {
            uint32_t count = 0;
            out->inverse_bind = read_accessor(r, ibm, 16, &count);
            if (out->inverse_bind == NULL || (int)count < out->joint_count) {
                return fail(r, "skin %d: bad inverse bind matrices", s);
            }
        } else {
            out->inverse_bind = calloc((size_t)out->joint_count * 16 + 1, sizeof(double));
            for (int j = 0; j < out->joint_count; j++) {
                for (int i = 0; i < 4; i++) {
                    out->inverse_bind[16 * j + 5 * i] = 1;
                }
            }
        }
    }
    return 1;
}

static int read_animations(reader *r, gltf_file *file) {
    const cJSON *animations = cJSON_GetObjectItemCaseSensitive(r->json, "animations");
    file->animation_count = cJSON_GetArraySize(animations);
    file->animations = calloc((size_t)file->animation_count + 1, sizeof *file->animations);
    for (int a = 0; a < file->animation_count; a++) {
        const cJSON *animation = cJSON_GetArrayItem(animations, a);
        gltf_animation *out = &file->animations[a];
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(animation, "name");
        if (cJSON_IsString(name)) {
            snprintf(out->name, sizeof out->name, "%s", name->valuestring);
        }
        const cJSON *channels = cJSON_GetObjectItemCaseSensitive(animation, "channels");
        const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(animation, "samplers");
        out->channels = calloc((size_t)cJSON_GetArraySize(channels) + 1, sizeof *out->channels);
        const cJSON *channel;
        cJSON_ArrayForEach(channel, channels) {
            const cJSON *target = cJSON_GetObjectItemCaseSensitive(channel, "target");
            const cJSON *path = cJSON_GetObjectItemCaseSensitive(target, "path");
            const cJSON *sampler = cJSON_GetArrayItem(samplers, get_int(channel, "sampler", -1));
            gltf_channel *c = &out->channels[out->channel_count];
            c->node = get_int(target, "node", -1);
            if (!cJSON_IsString(path) || sampler == NULL || c->node < 0 ||
                c->node >= file->node_count) {
                return fail(r, "animation %d: malformed channel", a);
            }
            int components;
            if (strcmp(path->valuestring, "translation") == 0) {
                c->path = GLTF_TRANSLATION;
                components = 3;
            } else if (strcmp(path->valuestring, "rotation") == 0) {
                c->path = GLTF_ROTATION;
                components = 4;
            } else if (strcmp(path->valuestring, "scale") == 0) {
                c->path = GLTF_SCALE;
                components = 3;
            } else {
                return fail(r, "animation %d: path %s not supported by the reference", a,
                            path->valuestring);
            }
            const cJSON *interp = cJSON_GetObjectItemCaseSensitive(sampler, "interpolation");
            const char *interp_name = cJSON_IsString(interp) ? interp->valuestring : "LINEAR";
            c->interpolation = strcmp(interp_name, "STEP") == 0          ? GLTF_STEP
                               : strcmp(interp_name, "CUBICSPLINE") == 0 ? GLTF_CUBIC
                                                                         : GLTF_LINEAR;
            uint32_t value_count = 0;
            c->times = read_accessor(r, get_int(sampler, "input", -1), 1, &c->key_count);
            c->values = read_accessor(r, get_int(sampler, "output", -1), components, &value_count);
            uint32_t expected = c->interpolation == GLTF_CUBIC ? 3 * c->key_count : c->key_count;
            out->channel_count++;
            if (c->times == NULL || c->values == NULL || value_count != expected ||
                c->key_count == 0) {
                return fail(r, "animation %d: sampler input/output mismatch", a);
            }
            /* Rotation keys must be unit quaternions (3.11); some files
             * write them rounded (simple_skin.gltf: 0.707), which every
             * engine reads as the rotation they stand for. Tangents stay. */
            for (uint32_t k = 0; c->path == GLTF_ROTATION && k < c->key_count; k++) {
                double *q = c->values + (c->interpolation == GLTF_CUBIC ? 12 * k + 4 : 4 * k);
                double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                for (int i = 0; len > 0 && i < 4; i++) {
                    q[i] /= len;
                }
            }
        }
    }
    return 1;
}

gltf_file *gltf_read(const uint8_t *bytes, size_t size, const char *dir, char *reason,
                     size_t reason_size) {
    reader r = {0};
    r.reason = reason;
    r.reason_size = reason_size;
    blob bin = {0};
    int have_bin = 0;
    const char *json_text = (const char *)bytes;
    size_t json_size = size;
    if (size >= 12 && memcmp(bytes, "glTF", 4) == 0) {
        /* GLB: 12-byte header, then chunks of (length, type, data). */
        size_t offset = 12;
        json_text = NULL;
        while (offset + 8 <= size) {
            uint32_t length, type;
            memcpy(&length, bytes + offset, 4);
            memcpy(&type, bytes + offset + 4, 4);
            if (length > size - offset - 8) {
                fail(&r, "GLB chunk runs past the file");
                return NULL;
            }
            if (type == 0x4E4F534Au && json_text == NULL) {
                json_text = (const char *)bytes + offset + 8;
                json_size = length;
            } else if (type == 0x004E4942u && !have_bin) {
                bin.data = (uint8_t *)bytes + offset + 8;
                bin.size = length;
                have_bin = 1;
            }
            offset += 8 + (size_t)length;
        }
        if (json_text == NULL) {
            fail(&r, "GLB without a JSON chunk");
            return NULL;
        }
    }
    r.json = cJSON_ParseWithLength(json_text, json_size);
    if (r.json == NULL) {
        fail(&r, "JSON does not parse");
        return NULL;
    }
    gltf_file *file = calloc(1, sizeof *file);
    int ok = file != NULL && load_buffers(&r, dir, have_bin ? &bin : NULL) &&
             read_nodes(&r, file) && read_meshes(&r, file) && read_skins(&r, file) &&
             read_animations(&r, file);
    for (int i = 0; i < r.buffer_count; i++) {
        free(r.buffers[i].data);
    }
    free(r.buffers);
    cJSON_Delete(r.json);
    if (!ok) {
        gltf_free(file);
        return NULL;
    }
    return file;
}

gltf_file *gltf_read_file(const char *path, char *reason, size_t reason_size) {
    blob b = {0};
    if (!read_whole(path, &b)) {
        free(b.data);
        snprintf(reason, reason_size, "cannot read %s", path);
        return NULL;
    }
    char dir[2048];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        *slash = '\0';
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    gltf_file *file = gltf_read(b.data, b.size, dir, reason, reason_size);
    free(b.data);
    return file;
}

void gltf_free(gltf_file *file) {
    if (file == NULL) {
        return;
    }
    for (int m = 0; m < file->mesh_count; m++) {
        for (int p = 0; p < file->meshes[m].primitive_count; p++) {
            gltf_primitive *prim = &file->meshes[m].primitives[p];
            free(prim->positions);
            free(prim->joints);
            free(prim->weights);
            free(prim->referenced);
        }
        free(file->meshes[m].primitives);
    }
    for (int s = 0; s < file->skin_count; s++) {
        free(file->skins[s].joints);
        free(file->skins[s].inverse_bind);
    }
    for (int a = 0; a < file->animation_count; a++) {
        for (int c = 0; c < file->animations[a].channel_count; c++) {
            free(file->animations[a].channels[c].times);
            free(file->animations[a].channels[c].values);
        }
        free(file->animations[a].channels);
    }
    free(file->nodes);
    free(file->meshes);
    free(file->skins);
    free(file->animations);
    free(file->order);
    free(file);
}
