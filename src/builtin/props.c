/* props.c - crowd_builtin_prop_create(): the built-in props, static meshes
 * made of boxes and cylinders in their sockets' space (crowd/builtin.h), so
 * that props work with no file, as the character does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin_internal.h"
#include "core/core_internal.h"
#include "crowd/builtin.h"

#define PI 3.14159265358979323846
#define MAX_PARTS 4

/* A box (axis-aligned half extents) or a closed cylinder (radius and half
 * length along `axis`) centred at `centre`, in the prop's space (metres). */
typedef enum shape { SHAPE_BOX, SHAPE_CYLINDER } shape;
typedef struct prop_part {
    shape shape;
    float centre[3];
    float half[3];  /* box */
    uint32_t axis;  /* cylinder: 0 x, 1 y, 2 z */
    float radius_m; /* cylinder */
    float half_m;   /* cylinder: half its length */
    float taper;    /* cylinder: the far end's radius over the near one's */
    uint32_t sides; /* cylinder */
} prop_part;

typedef struct prop_spec {
    const char *name;
    const char *socket; /* the socket it is made for */
    const char *material;
    float color[4]; /* linear */
    float metallic, roughness;
    prop_part parts[MAX_PARTS];
    uint32_t part_count;
} prop_spec;

/* sword: along +Y from the fist (socket_hand_R turns +Y forward): grip,
 * crossguard, blade. shield: a round board facing +X (the left hand's
 * outside), held at its centre. hat: brim and crown standing on +Y at the
 * top of the head. */
static const prop_spec specs[] = {
    {"sword",
     "socket_hand_R",
     "steel",
     {0.56f, 0.57f, 0.60f, 1.0f},
     1.0f,
     0.35f,
     {{SHAPE_CYLINDER, {0, 0, 0}, {0}, 1, 0.016f, 0.07f, 1.0f, 10},
      {SHAPE_BOX, {0, 0.08f, 0}, {0.018f, 0.012f, 0.09f}, 0, 0, 0, 0, 0},
      {SHAPE_BOX, {0, 0.47f, 0}, {0.005f, 0.38f, 0.024f}, 0, 0, 0, 0, 0}},
     3},
    {"shield",
     "socket_hand_L",
     "wood",
     {0.30f, 0.15f, 0.05f, 1.0f},
     0.0f,
     0.8f,
     {{SHAPE_CYLINDER, {0.045f, 0, 0}, {0}, 0, 0.26f, 0.012f, 1.0f, 24},
      {SHAPE_CYLINDER, {0.06f, 0, 0}, {0}, 0, 0.06f, 0.01f, 1.0f, 12}},
     2},
    {"hat",
     "socket_head",
     "felt",
     {0.05f, 0.04f, 0.15f, 1.0f},
     0.0f,
     0.9f,
     {{SHAPE_CYLINDER, {0, -0.045f, 0}, {0}, 1, 0.17f, 0.006f, 1.0f, 24},
      {SHAPE_CYLINDER, {0, 0.02f, 0}, {0}, 1, 0.105f, 0.065f, 0.85f, 24}},
     2},
};
#define SPEC_COUNT (sizeof specs / sizeof specs[0])

static void part_counts(const prop_part *p, uint32_t *vertices, uint32_t *indices) {
    if (p->shape == SHAPE_BOX) {
        *vertices += 24;
        *indices += 36;
    } else {
        /* sides + 1 around (a seam) at each end for the side; a centre
         * and a ring of sides for each cap */
        *vertices += 2 * (p->sides + 1) + 2 * (p->sides + 1);
        *indices += 6 * p->sides + 2 * 3 * p->sides;
    }
}

typedef struct emitter {
    crowd_mesh *mesh;
    uint32_t vertex, index;
} emitter;

static uint32_t vertex(emitter *e, const float p[3], const float n[3]) {
    uint32_t v = e->vertex++;
    memcpy(&e->mesh->positions[3 * v], p, 3 * sizeof(float));
    memcpy(&e->mesh->normals[3 * v], n, 3 * sizeof(float));
    e->mesh->weights[4 * v] = 1.0f; /* rigid: joint 0 */
    return v;
}

static void triangle(emitter *e, uint32_t a, uint32_t b, uint32_t c) {
    e->mesh->indices[e->index++] = a;
    e->mesh->indices[e->index++] = b;
    e->mesh->indices[e->index++] = c;
}

/* Six faces, four corners each, counter-clockwise seen from outside. */
static void emit_box(emitter *e, const prop_part *p) {
    for (uint32_t axis = 0; axis < 3; axis++) {
        for (int side = -1; side <= 1; side += 2) {
            uint32_t u = (axis + 1) % 3, w = (axis + 2) % 3;
            float n[3] = {0, 0, 0};
            n[axis] = (float)side;
            uint32_t first = e->vertex;
            static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
            for (int k = 0; k < 4; k++) {
                float q[3];
                q[axis] = p->centre[axis] + (float)side * p->half[axis];
                q[u] = p->centre[u] + corners[k][0] * p->half[u];
                q[w] = p->centre[w] + corners[k][1] * p->half[w];
                vertex(e, q, n);
            }
            /* (u, w, axis) is right-handed: +side faces outward with this order. */
            if (side > 0) {
                triangle(e, first, first + 1, first + 2);
                triangle(e, first, first + 2, first + 3);
            } else {
                triangle(e, first, first + 2, first + 1);
                triangle(e, first, first + 3, first + 2);
            }
        }
    }
}

static void emit_cylinder(emitter *e, const prop_part *p) {
    uint32_t a = p->axis, u = (a + 1) % 3, w = (a + 2) % 3;
    float radius[2] = {p->radius_m, p->radius_m * p->taper};
    /* The side's normal leans towards the narrow end by the taper's slope. */
    float slope = (radius[0] - radius[1]) / (2.0f * p->half_m);
    float lean = slope / sqrtf(1.0f + slope * slope), flat = 1.0f / sqrtf(1.0f + slope * slope);
    uint32_t ring[2];
    for (int end = 0; end < 2; end++) {
        ring[end] = e->vertex;
        for (uint32_t s = 0; s <= p->sides; s++) {
            double angle = 2.0 * PI * (double)(s % p->sides) / (double)p->sides;
            float c = (float)cos(angle), sn = (float)sin(angle), q[3], n[3];
            q[a] = p->centre[a] + (end == 0 ? -p->half_m : p->half_m);
            q[u] = p->centre[u] + radius[end] * c;
            q[w] = p->centre[w] + radius[end] * sn;
            n[a] = lean;
            n[u] = flat * c;
            n[w] = flat * sn;
            vertex(e, q, n);
        }
    }
    for (uint32_t s = 0; s < p->sides; s++) {
        triangle(e, ring[0] + s, ring[0] + s + 1, ring[1] + s + 1);
        triangle(e, ring[0] + s, ring[1] + s + 1, ring[1] + s);
    }
    for (int end = 0; end < 2; end++) {
        float n[3] = {0, 0, 0}, q[3];
        n[a] = end == 0 ? -1.0f : 1.0f;
        memcpy(q, p->centre, sizeof q);
        q[a] += end == 0 ? -p->half_m : p->half_m;
        uint32_t centre = vertex(e, q, n), first = e->vertex;
        for (uint32_t s = 0; s < p->sides; s++) {
            double angle = 2.0 * PI * (double)s / (double)p->sides;
            q[u] = p->centre[u] + radius[end] * (float)cos(angle);
            q[w] = p->centre[w] + radius[end] * (float)sin(angle);
            vertex(e, q, n);
        }
        for (uint32_t s = 0; s < p->sides; s++) {
            uint32_t next = first + (s + 1) % p->sides;
            if (end == 1) {
                triangle(e, centre, first + s, next);
            } else {
                triangle(e, centre, next, first + s);
            }
        }
    }
}

/* One joint at the origin: what a rigid file imports as (crowd_asset's
 * skeleton has at least one joint). */
static bool fill_skeleton(crowd_skeleton *k) {
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    k->names = calloc(1, sizeof *k->names);
    k->parents = calloc(1, sizeof *k->parents);
    k->rest_translation = calloc(3, sizeof(float));
    k->rest_rotation = calloc(4, sizeof(float));
    k->rest_scale = calloc(3, sizeof(float));
    k->inverse_bind = calloc(16, sizeof(float));
    if (!k->names || !k->parents || !k->rest_translation || !k->rest_rotation || !k->rest_scale ||
        !k->inverse_bind) {
        return false;
    }
    k->joint_count = 1;
    k->names[0] = crowd__core_copy_string("prop");
    k->parents[0] = -1;
    k->rest_rotation[3] = 1.0f;
    k->rest_scale[0] = k->rest_scale[1] = k->rest_scale[2] = 1.0f;
    memcpy(k->inverse_bind, identity, sizeof identity);
    memcpy(k->root_transform, identity, sizeof identity);
    return k->names[0] != NULL;
}

static bool fill(const prop_spec *spec, crowd_asset *asset) {
    crowd_mesh *mesh = &asset->mesh;
    uint32_t vertices = 0, indices = 0;
    for (uint32_t i = 0; i < spec->part_count; i++) {
        part_counts(&spec->parts[i], &vertices, &indices);
    }
    mesh->positions = calloc(3 * (size_t)vertices, sizeof(float));
    mesh->normals = calloc(3 * (size_t)vertices, sizeof(float));
    mesh->uv0 = calloc(2 * (size_t)vertices, sizeof(float));
    mesh->joints = calloc(4 * (size_t)vertices, sizeof(uint16_t));
    mesh->weights = calloc(4 * (size_t)vertices, sizeof(float));
    mesh->indices = calloc(indices, sizeof(uint32_t));
    mesh->submeshes = calloc(1, sizeof *mesh->submeshes);
    asset->materials = calloc(1, sizeof *asset->materials);
    if (!mesh->positions || !mesh->normals || !mesh->uv0 || !mesh->joints || !mesh->weights ||
        !mesh->indices || !mesh->submeshes || !asset->materials) {
        return false;
    }
    mesh->vertex_count = vertices;
    mesh->index_count = indices;
    mesh->submesh_count = 1;
    mesh->submeshes[0].index_count = indices;
    emitter e = {mesh, 0, 0};
    for (uint32_t i = 0; i < spec->part_count; i++) {
        if (spec->parts[i].shape == SHAPE_BOX) {
            emit_box(&e, &spec->parts[i]);
        } else {
            emit_cylinder(&e, &spec->parts[i]);
        }
    }
    asset->material_count = 1;
    crowd__core_material_defaults(&asset->materials[0]);
    asset->materials[0].name = crowd__core_copy_string(spec->material);
    memcpy(asset->materials[0].base_color, spec->color, sizeof spec->color);
    asset->materials[0].metallic = spec->metallic;
    asset->materials[0].roughness = spec->roughness;
    return asset->materials[0].name != NULL && fill_skeleton(&asset->skeleton);
}

uint32_t crowd_builtin_prop_count(void) {
    return (uint32_t)SPEC_COUNT;
}

const char *crowd_builtin_prop_name(uint32_t index) {
    return index < SPEC_COUNT ? specs[index].name : "";
}

const char *crowd_builtin_prop_socket(uint32_t index) {
    return index < SPEC_COUNT ? specs[index].socket : "";
}

crowd_result crowd_builtin_prop_create(const char *name, crowd_asset **out_asset,
                                       crowd_error *error) {
    if (out_asset == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "crowd_builtin_prop_create: out_asset must not be NULL");
    }
    *out_asset = NULL;
    const prop_spec *spec = NULL;
    for (uint32_t i = 0; i < SPEC_COUNT && name != NULL; i++) {
        spec = strcmp(specs[i].name, name) == 0 ? &specs[i] : spec;
    }
    if (spec == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "no built-in prop '%s' (sword, shield, hat)",
                               name != NULL ? name : "(null)");
    }
    crowd_asset *asset = crowd_asset_create();
    bool ok = asset != NULL;
    if (ok) {
        asset->name = crowd__core_copy_string(spec->name);
        char source[32];
        snprintf(source, sizeof source, "builtin:%s", spec->name);
        asset->source = crowd__core_copy_string(source);
        asset->source_mesh_count = 1;
        ok = asset->name && asset->source && fill(spec, asset);
    }
    if (!ok) {
        crowd_asset_destroy(asset);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY,
                               "builtin:", "out of memory building the built-in %s", spec->name);
    }
    *out_asset = asset;
    return CROWD_OK;
}
