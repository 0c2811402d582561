/* precheck_gltf_armature.c - skeletons assimp 5.2 aborts on.
 *
 * aiProcess_PopulateArmatureData looks, for every bone, for the armature:
 * the first ancestor that is no bone, bones being known by name. When a
 * bone and all its ancestors up to assimp's root node are bones it fails
 * an assertion and the process aborts. assimp's root is the scene's root
 * node when the scene has one, else a node "ROOT" it adds above them. So a
 * skin whose joints reach up to the single scene root (or that names a
 * joint "ROOT"), directly or through nodes that carry joints' names,
 * cannot be imported: rejected here as unsupported, with what to change.
 * Bones are the joints of the skins that nodes with a mesh use. Linear in
 * the nodes (names sorted once, each node's way up resolved once). */
#include <stdlib.h>
#include <string.h>

#include "import/precheck_gltf.h"

#define NO_NODE UINT32_MAX
#define SAFE (UINT32_MAX - 1) /* a node with an ancestor, or itself, that is no bone */

typedef struct armature {
    pg_check *c;
    bool *bone;         /* per node: a joint of a skin a mesh node uses */
    bool *bone_like;    /* per node: a bone, or named like one */
    const char **names; /* the bones' names, sorted */
    uint32_t name_count;
    uint32_t *top; /* per node: SAFE, NO_NODE (not yet known) or its all-bone chain's top */
} armature;

static const char *node_name(const pg_check *c, uint32_t node) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(c->lists[PG_NODES].items[node], "name");
    return cJSON_IsString(name) ? name->valuestring : NULL;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_bone_name(const armature *a, const char *name) {
    return name != NULL && a->name_count > 0 &&
           bsearch(&name, a->names, a->name_count, sizeof *a->names, compare_names) != NULL;
}

/* Marks the joints of the skins a mesh node uses (indices checked before). */
static void mark_bones(armature *a) {
    const pg_check *c = a->c;
    for (uint32_t n = 0; n < c->lists[PG_NODES].count; n++) {
        const cJSON *node = c->lists[PG_NODES].items[n];
        const cJSON *skin = cJSON_GetObjectItemCaseSensitive(node, "skin");
        if (skin == NULL || cJSON_GetObjectItemCaseSensitive(node, "mesh") == NULL) {
            continue;
        }
        const cJSON *json = c->lists[PG_SKINS].items[(uint32_t)skin->valuedouble];
        const cJSON *joints = cJSON_GetObjectItemCaseSensitive(json, "joints");
        for (const cJSON *joint = joints->child; joint != NULL; joint = joint->next) {
            a->bone[(uint32_t)joint->valuedouble] = true;
        }
    }
    for (uint32_t n = 0; n < c->lists[PG_NODES].count; n++) {
        const char *name = node_name(c, n);
        if (a->bone[n] && name != NULL) {
            a->names[a->name_count++] = name;
        }
    }
    qsort(a->names, a->name_count, sizeof *a->names, compare_names);
    for (uint32_t n = 0; n < c->lists[PG_NODES].count; n++) {
        a->bone_like[n] = a->bone[n] || is_bone_name(a, node_name(c, n));
    }
}

/* SAFE, or the top of the all-bone chain from `node` up (a node without a
 * parent); resolved once per node. */
static uint32_t chain_top(armature *a, uint32_t node) {
    const uint32_t *parents = a->c->parents;
    uint32_t n = node;
    while (a->top[n] == NO_NODE) {
        if (!a->bone_like[n]) {
            a->top[n] = SAFE;
            break;
        }
        if (parents[n] == NO_NODE) {
            a->top[n] = n;
            break;
        }
        n = parents[n];
    }
    uint32_t top = a->top[n];
    for (uint32_t m = node; m != n; m = parents[m]) {
        a->top[m] = top;
    }
    return top;
}

static crowd_result check_chains(armature *a) {
    pg_check *c = a->c;
    uint64_t scene = 0;
    gltf_json_uint(c->doc->json, "scene", 0, UINT32_MAX, &scene);
    const cJSON *roots =
        scene < c->lists[PG_SCENES].count
            ? cJSON_GetObjectItemCaseSensitive(c->lists[PG_SCENES].items[scene], "nodes")
            : NULL;
    uint32_t root = cJSON_GetArraySize(roots) == 1 ? (uint32_t)roots->child->valuedouble : NO_NODE;
    bool added_root_is_bone = root == NO_NODE && is_bone_name(a, "ROOT");
    for (uint32_t joint = 0; joint < c->lists[PG_NODES].count; joint++) {
        if (!a->bone[joint]) {
            continue;
        }
        uint32_t top = chain_top(a, joint);
        if (top != SAFE && (top == root || added_root_is_bone)) {
            return crowd_error_set(c->error, CROWD_ERROR_UNSUPPORTED, c->file,
                                   "node %u: a joint whose ancestors up to the root are all joints "
                                   "(or carry joints' names), which assimp 5.2 cannot import: it "
                                   "aborts looking for the armature above them (parent the "
                                   "skeleton under a node that is no joint)",
                                   joint);
        }
    }
    return CROWD_OK;
}

crowd_result pg_check_armatures(pg_check *c) {
    size_t nodes = (size_t)c->lists[PG_NODES].count + 1;
    armature a = {c,
                  calloc(nodes, sizeof *a.bone),
                  calloc(nodes, sizeof *a.bone_like),
                  calloc(nodes, sizeof *a.names),
                  0,
                  malloc(nodes * sizeof *a.top)};
    crowd_result result = CROWD_OK;
    if (a.bone == NULL || a.bone_like == NULL || a.names == NULL || a.top == NULL) {
        result = crowd_error_set(c->error, CROWD_ERROR_OUT_OF_MEMORY, c->file, "out of memory");
    } else {
        for (size_t n = 0; n < nodes; n++) {
            a.top[n] = NO_NODE;
        }
        mark_bones(&a);
        result = check_chains(&a);
    }
    free(a.bone);
    free(a.bone_like);
    free(a.names);
    free(a.top);
    return result;
}
