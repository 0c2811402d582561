/* body.c - the built-in character's body: which tubes, where, how thick,
 * which material and which joints move them.
 *
 * Parts are listed by material (skin, shirt, trousers) so each material is
 * one contiguous submesh. Sizes are those of a slim 1.8 m adult; the parts
 * overlap at the joints instead of being stitched, which keeps every part a
 * simple closed tube and hides the overlaps inside the body. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin_internal.h"

#define MAX_PARTS 24

static const builtin_knot head_knots[] = {
    {0.0, 0.80, 0.85, 0.0}, {0.35, 1.0, 1.0, 0.0}, {1.0, 1.0, 1.0, 0.0}};
static const builtin_knot forearm_knots[] = {
    {0.0, 1.0, 1.0, 0.0}, {0.3, 1.05, 1.05, 0.0}, {1.0, 0.72, 0.70, 0.0}};
static const builtin_knot hand_knots[] = {
    {0.0, 0.9, 0.75, 0.0}, {0.35, 1.0, 1.0, 0.0}, {0.75, 0.85, 0.95, 0.0}, {1.0, 0.8, 0.9, 0.0}};
static const builtin_knot torso_knots[] = {{0.0, 0.95, 0.95, 0.0},
                                           {0.25, 0.88, 0.92, 0.0},
                                           {0.6, 1.0, 1.08, 0.012},
                                           {0.85, 1.05, 0.95, 0.0},
                                           {1.0, 0.6, 0.6, 0.0}};
static const builtin_knot sleeve_knots[] = {{0.0, 1.0, 1.0, 0.0}, {1.0, 0.82, 0.80, 0.0}};
static const builtin_knot pelvis_knots[] = {
    {0.0, 0.8, 0.85, 0.0}, {0.5, 1.0, 1.0, -0.005}, {1.0, 0.95, 0.95, 0.0}};
/* Radius 0.085 m at the top of the thigh, 0.053 at the knee, 0.043 at the ankle. */
static const builtin_knot leg_knots[] = {{0.0, 1.0, 1.0, 0.0},       {0.1, 1.0, 1.0, 0.0},
                                         {0.42, 0.72, 0.75, 0.0},    {0.5, 0.62, 0.64, 0.0},
                                         {0.62, 0.66, 0.70, -0.008}, {0.9, 0.5, 0.52, 0.0},
                                         {1.0, 0.5, 0.5, 0.0}};
/* The shoe: v points up, so height grows with scale_v; offset_v keeps the
 * sole at y = 0 (centre 0.05 + offset - 0.05 * scale_v = 0 at every knot,
 * and knots blend offset and scale with the same weight). */
static const builtin_knot foot_knots[] = {{0.0, 0.85, 1.0, 0.0},
                                          {0.35, 1.0, 1.2, 0.01},
                                          {0.75, 1.08, 0.7, -0.015},
                                          {1.0, 0.95, 0.6, -0.02}};

static void set3(double out[3], double x, double y, double z) {
    out[0] = x, out[1] = y, out[2] = z;
}

/* p = joint position + along * (unit direction from joint a to joint b). */
static void along_bone(uint32_t a, uint32_t b, double along_m, double out[3]) {
    double pa[3], pb[3], d[3], len = 0.0;
    crowd__builtin_joint_position(a, pa);
    crowd__builtin_joint_position(b, pb);
    for (int i = 0; i < 3; i++) {
        d[i] = pb[i] - pa[i];
        len += d[i] * d[i];
    }
    len = sqrt(len);
    for (int i = 0; i < 3; i++) {
        out[i] = pa[i] + d[i] / len * along_m;
    }
}

static void set_chain(builtin_part *p, const uint32_t *joints, uint32_t count, double falloff_m) {
    p->chain_count = count;
    p->falloff_m = falloff_m;
    for (uint32_t k = 0; k < count; k++) {
        p->chain_joints[k] = joints[k];
        crowd__builtin_joint_position(joints[k], p->chain_points[k]);
    }
}

static builtin_part *new_part(builtin_part *parts, uint32_t *count, uint32_t material) {
    builtin_part *p = &parts[(*count)++];
    memset(p, 0, sizeof *p);
    p->material = material;
    p->exponent = 2.0;
    set3(p->front, 0.0, 0.0, 1.0);
    return p;
}

static void add_head(builtin_part *parts, uint32_t *n) {
    static const uint32_t head_chain[] = {BJ_NECK, BJ_HEAD};
    static const uint32_t neck_chain[] = {BJ_SPINE2, BJ_NECK, BJ_HEAD};
    builtin_part *p = new_part(parts, n, BM_SKIN);
    set3(p->start, 0.0, 1.575, 0.005);
    set3(p->end, 0.0, 1.81, 0.005);
    p->radius_u_m = 0.085, p->radius_v_m = 0.10;
    p->cap_start_m = p->cap_end_m = 0.1175;
    p->sides = 24, p->cap_rings = 10, p->body_rings = 0;
    p->knots = head_knots, p->knot_count = 3;
    set_chain(p, head_chain, 2, 0.035);

    p = new_part(parts, n, BM_SKIN); /* nose */
    set3(p->start, 0.0, 1.66, 0.10);
    set3(p->end, 0.0, 1.71, 0.10);
    p->radius_u_m = 0.014, p->radius_v_m = 0.025;
    p->cap_start_m = p->cap_end_m = 0.025;
    p->sides = 12, p->cap_rings = 4;
    set_chain(p, head_chain + 1, 1, 0.035);

    p = new_part(parts, n, BM_SKIN); /* neck */
    set3(p->start, 0.0, 1.42, 0.0);
    set3(p->end, 0.0, 1.62, 0.0);
    p->radius_u_m = 0.052, p->radius_v_m = 0.050;
    p->cap_start_m = p->cap_end_m = 0.03;
    p->sides = 16, p->cap_rings = 3, p->body_rings = 6;
    set_chain(p, neck_chain, 3, 0.04);
}

static void add_arm_skin(builtin_part *parts, uint32_t *n, bool left) {
    uint32_t shoulder = left ? BJ_SHOULDER_L : BJ_SHOULDER_R;
    uint32_t upper = left ? BJ_UPPER_ARM_L : BJ_UPPER_ARM_R;
    uint32_t lower = left ? BJ_LOWER_ARM_L : BJ_LOWER_ARM_R;
    uint32_t hand = left ? BJ_HAND_L : BJ_HAND_R;
    const uint32_t arm_chain[] = {shoulder, upper, lower, hand};

    builtin_part *p = new_part(parts, n, BM_SKIN); /* forearm */
    along_bone(lower, hand, -0.03, p->start);
    along_bone(lower, hand, 0.26, p->end);
    p->radius_u_m = 0.042, p->radius_v_m = 0.045;
    p->cap_start_m = p->cap_end_m = 0.03;
    p->sides = 16, p->cap_rings = 3, p->body_rings = 12;
    p->knots = forearm_knots, p->knot_count = 3;
    set_chain(p, arm_chain + 1, 3, 0.05);

    p = new_part(parts, n, BM_SKIN); /* hand: thin across, wide front to back */
    along_bone(lower, hand, 0.24, p->start);
    along_bone(lower, hand, 0.42, p->end);
    p->radius_u_m = 0.022, p->radius_v_m = 0.045;
    p->exponent = 3.0;
    p->cap_start_m = 0.03, p->cap_end_m = 0.04;
    p->sides = 16, p->cap_rings = 3, p->body_rings = 8;
    p->knots = hand_knots, p->knot_count = 4;
    set_chain(p, arm_chain + 2, 2, 0.025);
}

static void add_shirt(builtin_part *parts, uint32_t *n) {
    static const uint32_t torso_chain[] = {BJ_HIPS, BJ_SPINE, BJ_SPINE1, BJ_SPINE2, BJ_NECK};
    builtin_part *p = new_part(parts, n, BM_SHIRT);
    set3(p->start, 0.0, 0.99, 0.0);
    set3(p->end, 0.0, 1.53, 0.0);
    p->radius_u_m = 0.165, p->radius_v_m = 0.105;
    p->exponent = 2.4;
    p->cap_start_m = 0.03, p->cap_end_m = 0.07;
    p->sides = 28, p->cap_rings = 4, p->body_rings = 18;
    p->knots = torso_knots, p->knot_count = 5;
    set_chain(p, torso_chain, 5, 0.06);
    /* The top corners of the chest follow the collarbones. */
    p->lateral = true;
    p->lateral_joint_pos_x = BJ_SHOULDER_L, p->lateral_joint_neg_x = BJ_SHOULDER_R;
    p->lateral_x0 = 0.07, p->lateral_x1 = 0.16;
    p->lateral_y0 = 1.30, p->lateral_y1 = 1.42;
    p->lateral_max = 0.6;

    for (int side = 0; side < 2; side++) {
        bool left = side == 0;
        uint32_t shoulder = left ? BJ_SHOULDER_L : BJ_SHOULDER_R;
        uint32_t upper = left ? BJ_UPPER_ARM_L : BJ_UPPER_ARM_R;
        uint32_t lower = left ? BJ_LOWER_ARM_L : BJ_LOWER_ARM_R;
        uint32_t hand = left ? BJ_HAND_L : BJ_HAND_R;
        const uint32_t arm_chain[] = {shoulder, upper, lower, hand};
        p = new_part(parts, n, BM_SHIRT); /* sleeve, down over the elbow */
        along_bone(upper, lower, -0.045, p->start);
        along_bone(upper, lower, 0.32, p->end);
        p->radius_u_m = 0.056, p->radius_v_m = 0.058;
        p->cap_start_m = 0.045, p->cap_end_m = 0.02;
        p->sides = 16, p->cap_rings = 4, p->body_rings = 10;
        p->knots = sleeve_knots, p->knot_count = 2;
        set_chain(p, arm_chain, 4, 0.05);
    }
}

static void add_trousers(builtin_part *parts, uint32_t *n) {
    static const uint32_t hips_chain[] = {BJ_HIPS};
    static const uint32_t head_chain[] = {BJ_HEAD};
    builtin_part *p = new_part(parts, n, BM_TROUSERS); /* pelvis */
    set3(p->start, 0.0, 0.83, 0.0);
    set3(p->end, 0.0, 1.07, 0.0);
    p->radius_u_m = 0.160, p->radius_v_m = 0.105;
    p->cap_start_m = 0.06, p->cap_end_m = 0.03;
    p->sides = 28, p->cap_rings = 4, p->body_rings = 8;
    p->knots = pelvis_knots, p->knot_count = 3;
    set_chain(p, hips_chain, 1, 0.06);
    /* The lower pelvis follows the thighs half way. */
    p->lateral = true;
    p->lateral_joint_pos_x = BJ_UPPER_LEG_L, p->lateral_joint_neg_x = BJ_UPPER_LEG_R;
    p->lateral_x0 = 0.03, p->lateral_x1 = 0.10;
    p->lateral_y0 = 0.97, p->lateral_y1 = 0.88;
    p->lateral_max = 0.5;

    for (int side = 0; side < 2; side++) {
        bool left = side == 0;
        double x = left ? 0.095 : -0.095;
        uint32_t upper = left ? BJ_UPPER_LEG_L : BJ_UPPER_LEG_R;
        uint32_t lower = left ? BJ_LOWER_LEG_L : BJ_LOWER_LEG_R;
        uint32_t foot = left ? BJ_FOOT_L : BJ_FOOT_R;
        const uint32_t leg_chain[] = {BJ_HIPS, upper, lower, foot};
        const uint32_t foot_chain[] = {foot};

        p = new_part(parts, n, BM_TROUSERS); /* leg, hip to ankle */
        set3(p->start, x, 1.00, 0.0);
        set3(p->end, x, 0.05, 0.0);
        p->radius_u_m = 0.085, p->radius_v_m = 0.088;
        p->cap_start_m = 0.05, p->cap_end_m = 0.035;
        p->sides = 20, p->cap_rings = 4, p->body_rings = 26;
        p->knots = leg_knots, p->knot_count = 7;
        set_chain(p, leg_chain, 4, 0.06);

        p = new_part(parts, n, BM_TROUSERS); /* shoe, heel to toe along +Z */
        set3(p->start, x, 0.05, -0.075);
        set3(p->end, x, 0.05, 0.20);
        set3(p->front, 0.0, 1.0, 0.0);
        p->radius_u_m = 0.048, p->radius_v_m = 0.05;
        p->exponent = 4.0;
        p->cap_start_m = 0.04, p->cap_end_m = 0.05;
        p->sides = 20, p->cap_rings = 4, p->body_rings = 10;
        p->knots = foot_knots, p->knot_count = 4;
        set_chain(p, foot_chain, 1, 0.04);

        p = new_part(parts, n, BM_TROUSERS); /* eye: dark, like the trousers */
        set3(p->start, left ? 0.032 : -0.032, 1.687, 0.093);
        set3(p->end, left ? 0.032 : -0.032, 1.713, 0.093);
        p->radius_u_m = 0.013, p->radius_v_m = 0.013;
        p->cap_start_m = p->cap_end_m = 0.013;
        p->sides = 10, p->cap_rings = 4;
        set_chain(p, head_chain, 1, 0.04);
    }
}

static uint32_t body_parts(builtin_part *parts) {
    uint32_t n = 0;
    add_head(parts, &n);
    add_arm_skin(parts, &n, true);
    add_arm_skin(parts, &n, false);
    add_shirt(parts, &n);
    add_trousers(parts, &n);
    return n;
}

bool crowd__builtin_body_fill(crowd_mesh *mesh) {
    builtin_part parts[MAX_PARTS];
    uint32_t part_count = body_parts(parts);

    /* Pass 1 counts, pass 2 writes. */
    crowd_mesh counted = {0};
    for (uint32_t i = 0; i < part_count; i++) {
        crowd__builtin_tube_emit(&parts[i], &counted);
    }
    uint32_t v = counted.vertex_count;
    mesh->positions = malloc(3 * (size_t)v * sizeof(float));
    mesh->normals = malloc(3 * (size_t)v * sizeof(float));
    mesh->uv0 = malloc(2 * (size_t)v * sizeof(float));
    mesh->joints = malloc(4 * (size_t)v * sizeof(uint16_t));
    mesh->weights = malloc(4 * (size_t)v * sizeof(float));
    mesh->indices = malloc((size_t)counted.index_count * sizeof(uint32_t));
    mesh->submeshes = calloc(BM_COUNT, sizeof *mesh->submeshes);
    if (!mesh->positions || !mesh->normals || !mesh->uv0 || !mesh->joints || !mesh->weights ||
        !mesh->indices || !mesh->submeshes) {
        return false;
    }
    mesh->vertex_count = 0;
    mesh->index_count = 0;
    mesh->submesh_count = BM_COUNT;
    for (uint32_t m = 0; m < BM_COUNT; m++) {
        crowd_submesh *sub = &mesh->submeshes[m];
        sub->first_index = mesh->index_count;
        sub->material = m;
        for (uint32_t i = 0; i < part_count; i++) {
            if (parts[i].material == m) {
                crowd__builtin_tube_emit(&parts[i], mesh);
            }
        }
        sub->index_count = mesh->index_count - sub->first_index;
    }
    return true;
}
