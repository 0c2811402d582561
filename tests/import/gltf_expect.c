#include "gltf_expect.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_json(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return NULL;
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)size + 1);
    if (bytes == NULL || fread(bytes, 1, (size_t)size, file) != (size_t)size) {
        fclose(file);
        free(bytes);
        return NULL;
    }
    fclose(file);
    bytes[size] = '\0';
    if (size >= 20 && memcmp(bytes, "glTF", 4) == 0) {
        /* GLB: 12-byte header, then the JSON chunk (length, type, data). */
        uint32_t length = bytes[12] | bytes[13] << 8 | bytes[14] << 16 | (uint32_t)bytes[15] << 24;
        char *json = malloc(length + 1);
        memcpy(json, bytes + 20, length);
        json[length] = '\0';
        free(bytes);
        return json;
    }
    return (char *)bytes;
}

static int item_int(const cJSON *object, const char *key, int fallback) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? item->valueint : fallback;
}

static int accessor_count(const cJSON *root, int accessor) {
    return item_int(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "accessors"), accessor), "count",
                    0);
}

/* The parent of every node (-1 for roots). */
static void parents_of(const cJSON *nodes, int *parent, int count) {
    for (int n = 0; n < count; n++) {
        parent[n] = -1;
    }
    for (int n = 0; n < count; n++) {
        const cJSON *child;
        cJSON_ArrayForEach(child, cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, n), "children")) {
            if (child->valueint >= 0 && child->valueint < count) {
                parent[child->valueint] = n;
            }
        }
    }
}

static int depth_of(const int *parent, int n) {
    int depth = 0;
    while (parent[n] >= 0) {
        n = parent[n];
        depth++;
    }
    return depth;
}

static int ancestor_of(const int *parent, int a, int b) {
    int da = depth_of(parent, a), db = depth_of(parent, b);
    for (; da > db; da--)
        a = parent[a];
    for (; db > da; db--)
        b = parent[b];
    while (a != b) {
        a = parent[a];
        b = parent[b];
    }
    return a;
}

static void count_primitives(const cJSON *root, const cJSON *mesh, gltf_expect *out,
                             bool *material_used, int material_slots) {
    const cJSON *primitive;
    cJSON_ArrayForEach(primitive, cJSON_GetObjectItem(mesh, "primitives")) {
        if (item_int(primitive, "mode", 4) != 4) {
            continue;
        }
        int positions = accessor_count(
            root, item_int(cJSON_GetObjectItem(primitive, "attributes"), "POSITION", -1));
        int indices = item_int(primitive, "indices", -1);
        out->mesh_instances++;
        out->positions += (uint32_t)positions;
        out->triangles += (uint32_t)(indices >= 0 ? accessor_count(root, indices) : positions) / 3;
        int material = item_int(primitive, "material", material_slots - 1);
        material_used[material >= 0 && material < material_slots ? material : material_slots - 1] =
            true;
    }
}

bool gltf_expect_read(const char *path, gltf_expect *out) {
    memset(out, 0, sizeof *out);
    char *json = read_json(path);
    cJSON *root = json ? cJSON_Parse(json) : NULL;
    free(json);
    if (root == NULL) {
        return false;
    }
    const cJSON *nodes = cJSON_GetObjectItem(root, "nodes");
    const cJSON *meshes = cJSON_GetObjectItem(root, "meshes");
    int node_count = cJSON_GetArraySize(nodes);
    /* The last slot stands for "no material" (assimp's default one). */
    int material_slots = cJSON_GetArraySize(cJSON_GetObjectItem(root, "materials")) + 1;
    bool *material_used = calloc((size_t)material_slots, sizeof *material_used);
    bool *mesh_done = calloc((size_t)cJSON_GetArraySize(meshes) + 1, sizeof *mesh_done);
    bool *selected = calloc((size_t)node_count + 1, sizeof *selected);
    int *parent = calloc((size_t)node_count + 1, sizeof *parent);
    parents_of(nodes, parent, node_count);

    const cJSON *skin;
    cJSON_ArrayForEach(skin, cJSON_GetObjectItem(root, "skins")) {
        out->has_skin = true;
        const cJSON *joint;
        cJSON_ArrayForEach(joint, cJSON_GetObjectItem(skin, "joints")) {
            selected[joint->valueint] = true;
        }
    }
    for (int n = 0; n < node_count; n++) {
        const cJSON *node = cJSON_GetArrayItem(nodes, n);
        const cJSON *name = cJSON_GetObjectItem(node, "name");
        int mesh = item_int(node, "mesh", -1);
        bool skinned = item_int(node, "skin", -1) >= 0;
        if (mesh >= 0 && (!skinned || !mesh_done[mesh])) {
            count_primitives(root, cJSON_GetArrayItem(meshes, mesh), out, material_used,
                             material_slots);
            mesh_done[mesh] = mesh_done[mesh] || skinned;
            selected[n] = selected[n] || (!skinned && out->has_skin);
        }
        if (cJSON_IsString(name) && strncmp(name->valuestring, "socket_", 7) == 0) {
            out->sockets++;
            selected[n] = true;
        }
        if (selected[n] && cJSON_IsString(name) && out->named_joint_count < GLTF_EXPECT_MAX) {
            snprintf(out->named_joints[out->named_joint_count++], 64, "%s", name->valuestring);
        }
    }
    const cJSON *animation;
    cJSON_ArrayForEach(animation, cJSON_GetObjectItem(root, "animations")) {
        const cJSON *channel;
        cJSON_ArrayForEach(channel, cJSON_GetObjectItem(animation, "channels")) {
            selected[item_int(cJSON_GetObjectItem(channel, "target"), "node", 0)] = true;
        }
        const cJSON *name = cJSON_GetObjectItem(animation, "name");
        snprintf(out->clip_names[out->clips], 64, "%s",
                 cJSON_IsString(name) ? name->valuestring : "");
        double duration = 0.0;
        const cJSON *sampler;
        cJSON_ArrayForEach(sampler, cJSON_GetObjectItem(animation, "samplers")) {
            const cJSON *input = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "accessors"),
                                                    item_int(sampler, "input", 0));
            const cJSON *max = cJSON_GetArrayItem(cJSON_GetObjectItem(input, "max"), 0);
            if (cJSON_IsNumber(max) && max->valuedouble > duration) {
                duration = max->valuedouble;
            }
        }
        out->clip_durations[out->clips++] = duration;
    }
    if (!out->has_skin && out->clips == 0) {
        out->joints = 1;
    } else {
        int ancestor = -1;
        for (int n = 0; n < node_count; n++) {
            if (selected[n]) {
                ancestor = ancestor < 0 ? n : ancestor_of(parent, ancestor, n);
            }
        }
        for (int n = 0; n < node_count; n++) {
            if (selected[n] && n != ancestor) {
                for (int up = parent[n]; up >= 0 && up != ancestor; up = parent[up]) {
                    selected[up] = true;
                }
            }
        }
        for (int n = 0; n < node_count; n++) {
            out->joints += selected[n];
        }
    }
    for (int m = 0; m < material_slots; m++) {
        out->materials += material_used[m];
    }
    free(material_used);
    free(mesh_done);
    free(selected);
    free(parent);
    cJSON_Delete(root);
    return true;
}
