#define _POSIX_C_SOURCE 200809L /* test_files.h */
#include "anim_files.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_files.h"

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

bool crowd__glb_read(const char *path, glb_file *out) {
    memset(out, 0, sizeof *out);
    size_t size = 0;
    uint8_t *bytes = path ? (uint8_t *)test_read_file(path, &size) : NULL;
    bool ok = bytes != NULL && size > 28 && memcmp(bytes, "glTF", 4) == 0;
    uint32_t json_length = ok ? get_u32(bytes + 12) : 0;
    ok = ok && 20 + (size_t)json_length + 8 <= size;
    if (ok) {
        out->json = cJSON_ParseWithLength((const char *)bytes + 20, json_length);
        size_t bin_at = 20 + (size_t)json_length;
        out->bin_size = get_u32(bytes + bin_at);
        ok = out->json != NULL && bin_at + 8 + out->bin_size <= size;
        out->bin = ok ? malloc(out->bin_size + 1) : NULL;
        ok = ok && out->bin != NULL;
        if (ok) {
            memcpy(out->bin, bytes + bin_at + 8, out->bin_size);
        }
    }
    free(bytes);
    if (!ok) {
        glb_free(out);
    }
    return ok;
}

bool crowd__glb_write(const char *path, const cJSON *json, const uint8_t *bin, size_t bin_size) {
    char *text = cJSON_PrintUnformatted(json);
    if (text == NULL) {
        return false;
    }
    size_t length = strlen(text), padded = (length + 3) & ~(size_t)3;
    size_t bin_padded = (bin_size + 3) & ~(size_t)3;
    size_t total = 12 + 8 + padded + 8 + bin_padded;
    uint8_t *bytes = calloc(total, 1);
    FILE *file = bytes ? fopen(path, "wb") : NULL;
    bool ok = file != NULL;
    if (ok) {
        memcpy(bytes, "glTF", 4);
        put_u32(bytes + 4, 2);
        put_u32(bytes + 8, (uint32_t)total);
        put_u32(bytes + 12, (uint32_t)padded);
        memcpy(bytes + 16, "JSON", 4);
        memset(bytes + 20, ' ', padded);
        memcpy(bytes + 20, text, length);
        uint8_t *chunk = bytes + 20 + padded;
        put_u32(chunk, (uint32_t)bin_padded);
        memcpy(chunk + 4, "BIN\0", 4);
        memcpy(chunk + 8, bin, bin_size);
        ok = fwrite(bytes, 1, total, file) == total;
    }
    if (file != NULL) {
        ok = fclose(file) == 0 && ok;
    }
    free(bytes);
    cJSON_free(text);
    return ok;
}

void glb_free(glb_file *file) {
    cJSON_Delete(file->json);
    free(file->bin);
    memset(file, 0, sizeof *file);
}

cJSON *animation_only(const glb_file *file, int first, int count) {
    cJSON *json = cJSON_Duplicate(file->json, 1);
    static const char *const gone[] = {"meshes",   "skins",  "materials",
                                       "textures", "images", "samplers"};
    for (size_t k = 0; k < sizeof gone / sizeof *gone; k++) {
        cJSON_DeleteItemFromObjectCaseSensitive(json, gone[k]);
    }
    cJSON *node;
    cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(json, "nodes")) {
        cJSON_DeleteItemFromObjectCaseSensitive(node, "mesh");
        cJSON_DeleteItemFromObjectCaseSensitive(node, "skin");
    }
    cJSON *animations = cJSON_GetObjectItemCaseSensitive(json, "animations");
    int total = cJSON_GetArraySize(animations);
    for (int a = total - 1; a >= 0; a--) {
        if (a < first || a >= first + count) {
            cJSON_DeleteItemFromArray(animations, a);
        }
    }
    return json;
}

void rename_nodes(cJSON *json, const char *prefix) {
    cJSON *node;
    cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(json, "nodes")) {
        cJSON *name = cJSON_GetObjectItemCaseSensitive(node, "name");
        if (!cJSON_IsString(name)) {
            continue;
        }
        char renamed[256];
        snprintf(renamed, sizeof renamed, "%s%s", prefix, name->valuestring);
        for (char *c = renamed + strlen(prefix); *c != '\0'; c++) {
            *c = (char)toupper((unsigned char)*c);
        }
        cJSON_SetValuestring(name, renamed);
    }
}

cJSON *find_node(cJSON *json, const char *name) {
    cJSON *node;
    cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(json, "nodes")) {
        cJSON *n = cJSON_GetObjectItemCaseSensitive(node, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0) {
            return node;
        }
    }
    return NULL;
}
