/* play_props.c - `crowd play --prop SOCKET=FILE`: see play_props.h. */
#include "play_props.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "crowd/import.h"

bool props_option(props *p, const char *value) {
    if (!cli_socket_file_check("--prop", value)) {
        return false;
    }
    if (p->count == PROPS_MAX) {
        cli_fail(CLI_EXIT_USAGE, "--prop: at most %u props", (unsigned)PROPS_MAX);
        return false;
    }
    p->specs[p->count++] = value;
    return true;
}

static void socket_of(const char *spec, char out[CLI_SOCKET_NAME_BYTES]) {
    const char *equals = strchr(spec, '=');
    snprintf(out, CLI_SOCKET_NAME_BYTES, "%.*s", (int)(equals - spec), spec);
}

crowd_result props_load(props *p, const crowd_logger *logger, crowd_error *error) {
    crowd_import_desc import = {.logger = logger != NULL ? *logger : (crowd_logger){0}};
    for (uint32_t i = 0; i < p->count; i++) {
        const char *file = strchr(p->specs[i], '=') + 1;
        crowd_result result = crowd_model_load(file, &import, &p->assets[i], error);
        if (result != CROWD_OK) {
            return result;
        }
        if (p->assets[i]->mesh.vertex_count == 0) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, file,
                                   "--prop: the model has no mesh to carry");
        }
    }
    p->on = true;
    return CROWD_OK;
}

crowd_result props_add(props *p, crowd_world *world, const cast *c, crowd_error *error) {
    for (uint32_t i = 0; i < p->count; i++) {
        char socket[CLI_SOCKET_NAME_BYTES];
        socket_of(p->specs[i], socket);
        bool somewhere = false;
        for (uint32_t a = 0; a < c->count; a++) {
            uint32_t found;
            if (!crowd_archetype_find_socket(world, c->archetypes[a], socket, &found)) {
                continue;
            }
            crowd_prop_desc desc = {p->assets[i], socket};
            crowd_result result =
                crowd_world_add_prop(world, c->archetypes[a], &desc, &p->types[a][i], error);
            if (result != CROWD_OK) {
                return result;
            }
            somewhere = true;
        }
        if (!somewhere) {
            /* The error the library gives, with the sockets there are. */
            crowd_prop unused;
            crowd_prop_desc desc = {p->assets[i], socket};
            return crowd_world_add_prop(world, c->archetypes[0], &desc, &unused, error);
        }
    }
    return CROWD_OK;
}

/* Whether instance `i` carries prop spec `k` in the dressing rule. */
static bool carries(const props *p, uint32_t i, uint32_t k) {
    uint32_t choice = i % (p->count + 1);
    return choice == k || (p->count > 1 && i % 3 == 0 && k == (choice + 1) % p->count);
}

static crowd_result dress(const props *p, crowd_world *world, const cast *c,
                          const crowd_instance *ids, uint32_t first, uint32_t count, bool on,
                          crowd_error *error) {
    for (uint32_t i = first; i < count; i++) {
        const crowd_prop *types = p->types[i % c->count];
        for (uint32_t k = 0; k < p->count; k++) {
            if (types[k].id == 0 || !carries(p, i, k)) {
                continue;
            }
            crowd_result result = on ? crowd_instance_attach_prop(world, ids[i], types[k], error)
                                     : crowd_instance_detach_prop(world, ids[i], types[k], error);
            if (result != CROWD_OK) {
                return result;
            }
        }
    }
    return CROWD_OK;
}

crowd_result props_dress(const props *p, crowd_world *world, const cast *c,
                         const crowd_instance *ids, uint32_t first, uint32_t count,
                         crowd_error *error) {
    return p->on ? dress(p, world, c, ids, first, count, true, error) : CROWD_OK;
}

crowd_result props_set_on(props *p, crowd_world *world, const cast *c, const crowd_instance *ids,
                          uint32_t count, bool on, crowd_error *error) {
    crowd_result result = dress(p, world, c, ids, 0, count, on, error);
    if (result == CROWD_OK) {
        p->on = on;
    }
    return result;
}

void props_release(props *p) {
    for (uint32_t i = 0; i < p->count; i++) {
        crowd_asset_destroy(p->assets[i]);
        p->assets[i] = NULL;
    }
}
