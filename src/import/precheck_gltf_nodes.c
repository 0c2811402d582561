/* precheck_gltf_nodes.c - the node graph, scenes, skins and animations.
 *
 * Nodes must form a forest, as the specification says: children in range,
 * at most one parent each, no cycle (crowd's skeleton is a tree, and a
 * cycle is named here rather than left to assimp). Skins name nodes and enough
 * inverse bind matrices (assimp reads one per joint, and crashes on a
 * skin without them, which glTF allows: rejected as unsupported);
 * animation channels name one of their animation's samplers and a node,
 * and every sampler has the output elements its keys need (assimp reads
 * them per key). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/precheck_gltf.h"

#define NO_PARENT UINT32_MAX

/* An element of a JSON array as an index below `count`. */
static bool element_index(const cJSON *item, uint32_t count, uint32_t *out) {
    double value = item->valuedouble;
    if (!cJSON_IsNumber(item) || !(value >= 0.0) || value >= (double)count ||
        value != (double)(uint32_t)value) {
        return false;
    }
    *out = (uint32_t)value;
    return true;
}

/* Member `key` of `object`: an array (required: non-empty) of node
 * indices. With `parent`, they are the children of node `node`, and none
 * may have another parent. */
static crowd_result check_node_array(pg_check *c, const cJSON *object, const char *key,
                                     bool required, const char *where, uint32_t *parent,
                                     uint32_t node) {
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(object, key);
    if (array == NULL && !required) {
        return CROWD_OK;
    }
    if (!cJSON_IsArray(array) || (required && cJSON_GetArraySize(array) == 0)) {
        return pg_fail(c, "%s: %s is %s", where, key,
                       array == NULL ? "missing" : "not a non-empty array");
    }
    uint32_t count = c->lists[PG_NODES].count, i = 0;
    for (const cJSON *item = array->child; item != NULL; item = item->next, i++) {
        uint32_t child = 0;
        if (!element_index(item, count, &child)) {
            return pg_fail(c, "%s: %s[%u] is not one of the %u nodes", where, key, i, count);
        }
        if (parent == NULL) {
            continue;
        }
        if (child == node) {
            return pg_fail(c, "%s is its own child", where);
        }
        if (parent[child] != NO_PARENT) {
            return pg_fail(c, "node %u is a child of both node %u and node %u", child,
                           parent[child], node);
        }
        parent[child] = node;
    }
    return CROWD_OK;
}

static crowd_result check_graph(pg_check *c, uint32_t *parent, uint32_t *mark) {
    uint32_t count = c->lists[PG_NODES].count;
    for (uint32_t n = 0; n < count; n++) {
        const cJSON *node = c->lists[PG_NODES].items[n];
        char where[32];
        snprintf(where, sizeof where, "node %u", n);
        crowd_result result = check_node_array(c, node, "children", false, where, parent, n);
        uint32_t index = 0;
        bool present;
        if (result == CROWD_OK) {
            result = pg_ref(c, node, "mesh", PG_MESHES, false, where, &index, &present);
        }
        if (result == CROWD_OK) {
            result = pg_ref(c, node, "skin", PG_SKINS, false, where, &index, &present);
        }
        if (result == CROWD_OK) {
            result = pg_ref(c, node, "camera", PG_CAMERAS, false, where, &index, &present);
        }
        if (result != CROWD_OK) {
            return result;
        }
    }
    /* With one parent each, a cycle is a walk up from some node that comes
     * back to a node marked by the same walk. */
    for (uint32_t start = 0; start < count; start++) {
        uint32_t n = start;
        while (n != NO_PARENT && mark[n] == 0) {
            mark[n] = start + 1;
            n = parent[n];
        }
        if (n != NO_PARENT && mark[n] == start + 1) {
            return pg_fail(c, "node %u is its own ancestor (the node hierarchy has a cycle)", n);
        }
    }
    for (uint32_t s = 0; s < c->lists[PG_SCENES].count; s++) {
        char where[32];
        snprintf(where, sizeof where, "scene %u", s);
        crowd_result result =
            check_node_array(c, c->lists[PG_SCENES].items[s], "nodes", false, where, NULL, 0);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

crowd_result pg_check_nodes(pg_check *c) {
    uint32_t count = c->lists[PG_NODES].count;
    uint32_t *parent = c->parents = malloc(((size_t)count + 1) * sizeof *parent);
    uint32_t *mark = calloc((size_t)count + 1, sizeof *mark);
    crowd_result result = CROWD_OK;
    if (parent == NULL || mark == NULL) {
        result = crowd_error_set(c->error, CROWD_ERROR_OUT_OF_MEMORY, c->file, "out of memory");
    } else {
        for (uint32_t n = 0; n < count; n++) {
            parent[n] = NO_PARENT;
        }
        result = check_graph(c, parent, mark);
    }
    free(mark);
    return result;
}

crowd_result pg_check_skins(pg_check *c) {
    for (uint32_t s = 0; s < c->lists[PG_SKINS].count; s++) {
        const cJSON *skin = c->lists[PG_SKINS].items[s];
        char where[32];
        snprintf(where, sizeof where, "skin %u", s);
        crowd_result result = check_node_array(c, skin, "joints", true, where, NULL, 0);
        uint32_t index = 0;
        bool present = false;
        if (result == CROWD_OK) {
            result = pg_ref(c, skin, "skeleton", PG_NODES, false, where, &index, &present);
        }
        if (result == CROWD_OK) {
            result = pg_ref(c, skin, "inverseBindMatrices", PG_ACCESSORS, false, where, &index,
                            &present);
        }
        if (result != CROWD_OK) {
            return result;
        }
        if (!present) {
            /* Optional in glTF (identity matrices), but assimp 5.2 reads
             * through the missing accessor and crashes. */
            return crowd_error_set(c->error, CROWD_ERROR_UNSUPPORTED, c->file,
                                   "%s has no inverseBindMatrices, which assimp 5.2 cannot read "
                                   "(write the identity matrices out)",
                                   where);
        }
        const pg_accessor *a = &c->accessors[index];
        uint32_t joints =
            (uint32_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(skin, "joints"));
        if (strcmp(a->type, "MAT4") != 0 || a->component_type != PG_FLOAT) {
            return pg_fail(c, "%s: inverseBindMatrices accessor %u is not MAT4 of floats", where,
                           index);
        }
        if (a->count < joints) {
            return pg_fail(c, "%s: %u joints, inverseBindMatrices accessor %u has %u matrices",
                           where, joints, index, a->count);
        }
    }
    return CROWD_OK;
}

static crowd_result check_sampler(pg_check *c, const cJSON *sampler, const char *where) {
    uint32_t input = 0, output = 0;
    bool present;
    crowd_result result = pg_ref(c, sampler, "input", PG_ACCESSORS, true, where, &input, &present);
    if (result == CROWD_OK) {
        result = pg_ref(c, sampler, "output", PG_ACCESSORS, true, where, &output, &present);
    }
    if (result != CROWD_OK) {
        return result;
    }
    const cJSON *interpolation = cJSON_GetObjectItemCaseSensitive(sampler, "interpolation");
    const char *mode = cJSON_IsString(interpolation) ? interpolation->valuestring : "LINEAR";
    if ((interpolation != NULL && !cJSON_IsString(interpolation)) ||
        (strcmp(mode, "LINEAR") != 0 && strcmp(mode, "STEP") != 0 &&
         strcmp(mode, "CUBICSPLINE") != 0)) {
        return pg_fail(c, "%s: unknown interpolation '%.40s' (LINEAR, STEP or CUBICSPLINE)", where,
                       cJSON_IsString(interpolation) ? mode : "(not a string)");
    }
    uint32_t keys = c->accessors[input].count;
    uint64_t needed = (uint64_t)keys * (strcmp(mode, "CUBICSPLINE") == 0 ? 3 : 1);
    if (c->accessors[output].count < needed) {
        return pg_fail(c, "%s: %u keys need %llu output elements, the output accessor has %u",
                       where, keys, (unsigned long long)needed, c->accessors[output].count);
    }
    return CROWD_OK;
}

static crowd_result check_animation(pg_check *c, uint32_t a) {
    const cJSON *animation = c->lists[PG_ANIMATIONS].items[a];
    const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(animation, "samplers");
    const cJSON *channels = cJSON_GetObjectItemCaseSensitive(animation, "channels");
    if (!cJSON_IsArray(samplers) || !cJSON_IsArray(channels)) {
        return pg_fail(c, "animation %u: samplers or channels is missing or not an array", a);
    }
    uint32_t sampler_count = (uint32_t)cJSON_GetArraySize(samplers), i = 0;
    for (const cJSON *sampler = samplers->child; sampler != NULL; sampler = sampler->next, i++) {
        char where[48];
        snprintf(where, sizeof where, "animation %u sampler %u", a, i);
        crowd_result result = cJSON_IsObject(sampler) ? check_sampler(c, sampler, where)
                                                      : pg_fail(c, "%s is not an object", where);
        if (result != CROWD_OK) {
            return result;
        }
    }
    i = 0;
    for (const cJSON *channel = channels->child; channel != NULL; channel = channel->next, i++) {
        const cJSON *sampler = cJSON_GetObjectItemCaseSensitive(channel, "sampler");
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(channel, "target");
        uint32_t index = 0;
        if (sampler == NULL || !element_index(sampler, sampler_count, &index)) {
            return pg_fail(
                c, "animation %u channel %u: sampler is missing or not one of the animation's %u",
                a, i, sampler_count);
        }
        if (!cJSON_IsObject(target)) {
            return pg_fail(c, "animation %u channel %u: target is missing or not an object", a, i);
        }
        char where[48];
        snprintf(where, sizeof where, "animation %u channel %u target", a, i);
        bool present;
        crowd_result result = pg_ref(c, target, "node", PG_NODES, false, where, &index, &present);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

crowd_result pg_check_animations(pg_check *c) {
    for (uint32_t a = 0; a < c->lists[PG_ANIMATIONS].count; a++) {
        crowd_result result = check_animation(c, a);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}
