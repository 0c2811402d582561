/* gltf_scene.c - what the glTF reader read, as the intermediate scene
 * (scene/scene.h): the scene's nodes in pre-order (an unnamed node goes by
 * "nodes[N]"), every skin with its joints as scene nodes (-1 for a joint
 * outside the scene, which a skinned mesh may not use), and the primitives
 * as mesh instances, their influences without the zero weights, their
 * materials built in order of first use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/gltf/gltf_internal.h"

static crowd_result out_of_memory(const gltf_import *imp) {
    return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
}

static crowd_result fill_nodes(gltf_import *imp) {
    import_scene *scene = &imp->scene;
    for (uint32_t o = 0; o < imp->order_count; o++) {
        const gltf_node *from = &imp->nodes[imp->order[o]];
        import_scene_node *node = crowd__import_scene_add_node(scene);
        if (node == NULL) {
            return out_of_memory(imp);
        }
        node->parent = from->parent >= 0 ? imp->nodes[from->parent].scene_node : -1;
        memcpy(node->local, from->local, sizeof node->local);
        memcpy(node->translation, from->translation, sizeof node->translation);
        memcpy(node->rotation, from->rotation, sizeof node->rotation);
        memcpy(node->scale, from->scale, sizeof node->scale);
    }
    /* Named once the list stops growing: a name may be the node's own_name. */
    for (uint32_t o = 0; o < imp->order_count; o++) {
        scene->nodes[o].name = crowd__gltf_node_name(imp, imp->order[o], scene->nodes[o].own_name);
    }
    crowd__import_scene_nodes_finish(scene);
    return CROWD_OK;
}

/* The skins move into the scene, their joints as scene nodes. */
static crowd_result fill_skins(gltf_import *imp) {
    import_scene *scene = &imp->scene;
    scene->skins = calloc((size_t)imp->skin_count + 1, sizeof *scene->skins);
    if (scene->skins == NULL) {
        return out_of_memory(imp);
    }
    scene->skin_count = imp->skin_count;
    for (uint32_t s = 0; s < imp->skin_count; s++) {
        gltf_skin *from = &imp->skins[s];
        import_scene_skin *skin = &scene->skins[s];
        skin->nodes = malloc(((size_t)from->joint_count + 1) * sizeof *skin->nodes);
        if (skin->nodes == NULL) {
            return out_of_memory(imp);
        }
        skin->joint_count = from->joint_count;
        for (uint32_t j = 0; j < from->joint_count; j++) {
            skin->nodes[j] = imp->nodes[from->joints[j]].scene_node;
        }
        skin->inverse_binds = from->inverse_binds;
        from->inverse_binds = NULL;
    }
    return CROWD_OK;
}

/* The primitive's influences that carry weight, per vertex in file order. */
static crowd_result fill_influences(gltf_import *imp, const gltf_primitive *p,
                                    import_scene_mesh *mesh) {
    size_t total = 0;
    for (size_t i = 0; i < (size_t)p->vertex_count * p->influence_count; i++) {
        total += p->weights[i] > 0.0f;
    }
    mesh->influence_first = malloc(((size_t)p->vertex_count + 1) * sizeof(uint32_t));
    mesh->influence_joint = malloc((total + 1) * sizeof(uint32_t));
    mesh->influence_weight = malloc((total + 1) * sizeof(float));
    if (!mesh->influence_first || !mesh->influence_joint || !mesh->influence_weight) {
        return out_of_memory(imp);
    }
    uint32_t at = 0;
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        mesh->influence_first[v] = at;
        for (uint32_t k = 0; k < p->influence_count; k++) {
            size_t i = (size_t)v * p->influence_count + k;
            if (p->weights[i] > 0.0f) {
                mesh->influence_joint[at] = p->joints[i];
                mesh->influence_weight[at++] = p->weights[i];
            }
        }
    }
    mesh->influence_first[p->vertex_count] = at;
    return CROWD_OK;
}

/* A skinned primitive's skin must name nodes of the scene. */
static crowd_result check_skin(gltf_import *imp, const gltf_primitive *p) {
    int32_t s = imp->nodes[p->node].skin;
    const gltf_skin *skin = &imp->skins[s];
    for (uint32_t j = 0; j < skin->joint_count; j++) {
        if (!imp->nodes[skin->joints[j]].in_scene) {
            return crowd__gltf_fail(imp->doc, "skins[%d].joints[%u]: nodes[%u] is not in the scene",
                                    s, j, skin->joints[j]);
        }
    }
    return CROWD_OK;
}

static crowd_result fill_meshes(gltf_import *imp) {
    import_scene *scene = &imp->scene;
    uint32_t *slot_of = calloc((size_t)imp->doc->lists[GLTF_MATERIALS].count + 2, sizeof *slot_of);
    crowd_result result = slot_of != NULL ? CROWD_OK : out_of_memory(imp);
    for (uint32_t p = 0; p < imp->primitive_count && result == CROWD_OK; p++) {
        gltf_primitive *from = &imp->primitives[p];
        import_scene_mesh *mesh = crowd__import_scene_add_mesh(scene);
        if (mesh == NULL) {
            result = out_of_memory(imp);
            break;
        }
        mesh->name = from->path;
        mesh->node = (uint32_t)imp->nodes[from->node].scene_node;
        mesh->vertex_count = from->vertex_count;
        mesh->positions = from->positions;
        mesh->normals = from->normals;
        mesh->uv = from->uv;
        mesh->index_count = from->index_count;
        mesh->indices = from->indices;
        from->positions = from->normals = from->uv = NULL;
        from->indices = NULL;
        if (from->skinned) {
            mesh->skin = imp->nodes[from->node].skin;
            result = check_skin(imp, from);
            if (result == CROWD_OK) {
                result = fill_influences(imp, from, mesh);
            }
        }
        crowd_material *material = NULL;
        uint32_t key =
            from->material >= 0 ? (uint32_t)from->material : imp->doc->lists[GLTF_MATERIALS].count;
        if (result == CROWD_OK) {
            result =
                crowd__import_scene_material_slot(scene, slot_of, key, &mesh->material, &material);
        }
        if (result == CROWD_OK && material != NULL) {
            result = crowd__gltf_material_build(imp, from->material, material);
        }
    }
    free(slot_of);
    return result;
}

crowd_result crowd__gltf_scene_fill(gltf_import *imp) {
    crowd_result result = fill_nodes(imp);
    if (result == CROWD_OK) {
        result = fill_skins(imp);
    }
    if (result == CROWD_OK) {
        result = fill_meshes(imp);
    }
    return result;
}
