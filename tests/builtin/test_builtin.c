/* test_builtin.c - the built-in character: valid, the promised shape and
 * size, deterministic, and clips that move the way their names say,
 * measured on joint positions from crowd_anim_sample + local_to_model and on
 * CPU-skinned vertices. */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "crowd/anim.h"
#include "crowd/builtin.h"
#include "crowd/skin.h"

typedef struct sampler {
    const crowd_asset *asset;
    crowd_transform *pose;
    float *models;
} sampler;

static int sampler_init(sampler *s, const crowd_asset *asset) {
    s->asset = asset;
    s->pose = malloc(asset->skeleton.joint_count * sizeof *s->pose);
    s->models = malloc(16 * asset->skeleton.joint_count * sizeof *s->models);
    return s->pose && s->models;
}

static void sampler_free(sampler *s) {
    free(s->pose);
    free(s->models);
}

/* Model matrices of every joint of `clip` at `time_s` into s->models. */
static void sample_at(sampler *s, const crowd_clip *clip, float time_s) {
    crowd_anim_sample(&s->asset->skeleton, clip, time_s, NULL, s->pose);
    crowd_anim_local_to_model(&s->asset->skeleton, s->pose, s->models);
}

static const float *joint_pos(const sampler *s, int32_t joint) {
    return s->models + 16 * joint + 12;
}

static const crowd_clip *clip_named(const crowd_asset *a, const char *name) {
    int32_t i = crowd_asset_find_clip(a, name);
    return i < 0 ? NULL : &a->clips[i];
}

static float dist3(const float *a, const float *b) {
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

static float correlation(const float *a, const float *b, int n) {
    double ma = 0, mb = 0;
    for (int i = 0; i < n; i++) {
        ma += a[i], mb += b[i];
    }
    ma /= n, mb /= n;
    double sab = 0, saa = 0, sbb = 0;
    for (int i = 0; i < n; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return (float)(sab / sqrt(saa * sbb));
}

static float range_of(const float *v, int n) {
    float lo = v[0], hi = v[0];
    for (int i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    return hi - lo;
}

static int test_structure(const crowd_asset *a) {
    crowd_error err = {0};
    crowd_result r = crowd_asset_validate(a, &err);
    CHECK_MSG(r == CROWD_OK, "builtin invalid: %s", err.reason);
    CHECK(strcmp(a->source, "builtin:") == 0);
    CHECK(strcmp(a->name, "builtin") == 0);
    CHECK(a->has_skin);

    const crowd_skeleton *sk = &a->skeleton;
    CHECK(sk->joint_count == 20);
    const char *names[] = {"hips",        "spine",       "spine1",      "spine2",
                           "neck",        "head",        "shoulder_L",  "upper_arm_L",
                           "lower_arm_L", "hand_L",      "shoulder_R",  "upper_arm_R",
                           "lower_arm_R", "hand_R",      "upper_leg_L", "lower_leg_L",
                           "foot_L",      "upper_leg_R", "lower_leg_R", "foot_R"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        CHECK_MSG(crowd_asset_find_joint(a, names[i]) >= 0, "joint %s missing", names[i]);
    }
    CHECK(sk->parents[0] == -1);
    for (uint32_t j = 1; j < sk->joint_count; j++) {
        CHECK_MSG(sk->parents[j] >= 0, "joint %u is a second root", j);
    }
    CHECK(sk->parents[crowd_asset_find_joint(a, "hand_R")] ==
          crowd_asset_find_joint(a, "lower_arm_R"));
    CHECK(sk->parents[crowd_asset_find_joint(a, "foot_L")] ==
          crowd_asset_find_joint(a, "lower_leg_L"));
    for (int i = 0; i < 16; i++) {
        CHECK(sk->root_transform[i] == (i % 5 == 0 ? 1.0f : 0.0f));
    }

    const crowd_mesh *m = &a->mesh;
    CHECK_MSG(m->vertex_count >= 4000 && m->vertex_count <= 8000, "%u vertices", m->vertex_count);
    CHECK(m->index_count % 3 == 0 && m->index_count / 3 >= m->vertex_count);
    CHECK(a->material_count >= 2 && a->material_count <= 3);
    CHECK(m->submesh_count == a->material_count);
    for (uint32_t s = 0; s < m->submesh_count; s++) {
        CHECK(m->submeshes[s].index_count > 0);
        CHECK(m->submeshes[s].material == s);
        for (uint32_t o = 0; o < s; o++) {
            const float *c0 = a->materials[o].base_color, *c1 = a->materials[s].base_color;
            float diff = fabsf(c0[0] - c1[0]) + fabsf(c0[1] - c1[1]) + fabsf(c0[2] - c1[2]);
            CHECK_MSG(diff > 0.2f, "materials %u and %u look alike", o, s);
        }
    }
    return 0;
}

static int test_geometry(const crowd_asset *a) {
    const crowd_mesh *m = &a->mesh;
    float mn[3], mx[3];
    crowd_asset_bind_bounds(a, mn, mx);
    CHECK_MSG(mx[1] > 1.75f && mx[1] < 1.85f, "height %g", mx[1]);
    CHECK_MSG(fabsf(mn[1]) < 1e-4f, "feet at y = %g", mn[1]);
    CHECK_MSG(fabsf(mn[0] + mx[0]) < 1e-3f, "not symmetric in x: %g .. %g", mn[0], mx[0]);
    CHECK(mx[0] - mn[0] < 0.7f && mx[2] - mn[2] < 0.5f);
    /* Facing +Z: toes and nose point forward. */
    int32_t foot = crowd_asset_find_joint(a, "foot_L");
    float toe_z = -1.0f, heel_z = 1.0f;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        if (m->joints[4 * v] == foot && m->weights[4 * v] == 1.0f) {
            float z = m->positions[3 * v + 2];
            toe_z = z > toe_z ? z : toe_z;
            heel_z = z < heel_z ? z : heel_z;
        }
    }
    CHECK_MSG(toe_z > 2.0f * -heel_z, "shoe from z %g to %g: toes not forward", heel_z, toe_z);
    int32_t head = crowd_asset_find_joint(a, "head");
    float nose_z = -1.0f, back_of_head_z = 1.0f;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + 3 * v;
        if (m->joints[4 * v] == head && m->weights[4 * v] == 1.0f && p[1] > 1.66f && p[1] < 1.71f &&
            fabsf(p[0]) < 0.005f) {
            nose_z = p[2] > nose_z ? p[2] : nose_z;
            back_of_head_z = p[2] < back_of_head_z ? p[2] : back_of_head_z;
        }
    }
    CHECK_MSG(nose_z > -back_of_head_z + 0.01f, "nose at z %g, back of head at %g", nose_z,
              back_of_head_z);

    /* Unit normals, and every triangle counter-clockwise seen from outside
     * (its face normal agrees with its vertex normals) and not degenerate. */
    uint32_t bad_normals = 0, inward = 0, degenerate = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *n = m->normals + 3 * v;
        if (fabsf(sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) - 1.0f) > 1e-4f) {
            bad_normals++;
        }
    }
    for (uint32_t t = 0; t < m->index_count; t += 3) {
        const float *p0 = m->positions + 3 * m->indices[t];
        const float *p1 = m->positions + 3 * m->indices[t + 1];
        const float *p2 = m->positions + 3 * m->indices[t + 2];
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        if (sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) < 1e-10f) {
            degenerate++;
            continue;
        }
        float agree = 0.0f;
        for (int k = 0; k < 3; k++) {
            const float *n = m->normals + 3 * m->indices[t + k];
            agree += f[0] * n[0] + f[1] * n[1] + f[2] * n[2];
        }
        if (agree <= 0.0f) {
            inward++;
        }
    }
    CHECK_MSG(bad_normals == 0, "%u normals not unit", bad_normals);
    CHECK_MSG(inward == 0, "%u triangles wound inwards", inward);
    CHECK_MSG(degenerate == 0, "%u degenerate triangles", degenerate);
    for (uint32_t v = 0; v < 2 * m->vertex_count; v++) {
        if (m->uv0[v] < 0.0f || m->uv0[v] > 1.0f) {
            CHECK_MSG(0, "uv0[%u] = %g outside [0, 1]", v, m->uv0[v]);
            break;
        }
    }
    return 0;
}

/* Hops between two joints in the hierarchy. */
static int hops(const crowd_skeleton *sk, int32_t a, int32_t b) {
    int da = 0;
    for (int32_t x = a; x >= 0; x = sk->parents[x], da++) {
        int db = 0;
        for (int32_t y = b; y >= 0; y = sk->parents[y], db++) {
            if (x == y) {
                return da + db;
            }
        }
    }
    return 99;
}

static int test_weights(const crowd_asset *a) {
    const crowd_mesh *m = &a->mesh;
    uint32_t hist[5] = {0}, far_blends = 0, unsorted = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *w = m->weights + 4 * v;
        const uint16_t *j = m->joints + 4 * v;
        int used = 0;
        for (int i = 0; i < 4; i++) {
            used += w[i] > 0.0f;
            if (i > 0 && w[i] > w[i - 1]) {
                unsorted++;
            }
        }
        hist[used]++;
        /* A blend mixes neighbours in the hierarchy (parent, child, sibling,
         * grandparent), never two distant bones. */
        for (int x = 0; x < used; x++) {
            for (int y = 0; y < x; y++) {
                if (hops(&a->skeleton, j[x], j[y]) > 2) {
                    far_blends++;
                }
            }
        }
    }
    CHECK_MSG(hist[0] == 0, "%u vertices without weight", hist[0]);
    CHECK_MSG(unsorted == 0, "%u vertices with weights out of order", unsorted);
    CHECK_MSG(far_blends == 0, "%u blends between distant joints", far_blends);
    uint32_t blended = hist[2] + hist[3] + hist[4];
    printf("influences per vertex: 1: %u, 2: %u, 3: %u, 4: %u\n", hist[1], hist[2], hist[3],
           hist[4]);
    CHECK_MSG(blended > m->vertex_count / 5, "only %u of %u vertices blend joints", blended,
              m->vertex_count);
    CHECK(hist[3] + hist[4] > 0);

    /* Blending happens near joints: at the knee, vertices level with it mix
     * upper and lower leg, vertices mid-thigh follow the thigh alone. */
    int32_t upper = crowd_asset_find_joint(a, "upper_leg_L");
    int32_t lower = crowd_asset_find_joint(a, "lower_leg_L");
    uint32_t knee_mixed = 0, knee_total = 0, thigh_rigid = 0, thigh_total = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + 3 * v;
        const uint16_t *j = m->joints + 4 * v;
        const float *w = m->weights + 4 * v;
        if (p[0] < 0.02f || fabsf(p[2]) > 0.2f) {
            continue;
        }
        if (fabsf(p[1] - 0.50f) < 0.02f) {
            knee_total++;
            knee_mixed +=
                (j[0] == upper || j[0] == lower) && w[1] > 0.2f && (j[1] == upper || j[1] == lower);
        }
        if (fabsf(p[1] - 0.72f) < 0.01f) {
            thigh_total++;
            thigh_rigid += j[0] == upper && w[0] == 1.0f;
        }
    }
    CHECK_MSG(knee_total > 0 && knee_mixed == knee_total, "knee: %u of %u vertices blended",
              knee_mixed, knee_total);
    CHECK_MSG(thigh_total > 0 && thigh_rigid == thigh_total, "thigh: %u of %u rigid", thigh_rigid,
              thigh_total);
    return 0;
}

/* The rest pose through the anim module reproduces the bind pose: model *
 * inverse bind is identity for every joint, and the sockets sit where they
 * should. */
static int test_bind_pose(const crowd_asset *a) {
    sampler s;
    REQUIRE(sampler_init(&s, a));
    crowd_anim_rest_pose(&a->skeleton, s.pose);
    crowd_anim_local_to_model(&a->skeleton, s.pose, s.models);
    float worst = 0.0f;
    for (uint32_t j = 0; j < a->skeleton.joint_count; j++) {
        const float *mdl = s.models + 16 * j, *inv = a->skeleton.inverse_bind + 16 * j;
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 4; r++) {
                float sum = 0.0f;
                for (int k = 0; k < 4; k++) {
                    sum += mdl[k * 4 + r] * inv[c * 4 + k];
                }
                float e = fabsf(sum - (r == c ? 1.0f : 0.0f));
                worst = e > worst ? e : worst;
            }
        }
    }
    CHECK_MSG(worst < 1e-5f, "model * inverse bind differs from identity by %g", worst);
    CHECK_NEAR(joint_pos(&s, crowd_asset_find_joint(a, "hips"))[1], 0.98f, 1e-5f);

    CHECK(a->socket_count == 3);
    int32_t hand_socket = crowd_asset_find_socket(a, "socket_hand_R");
    int32_t head_socket = crowd_asset_find_socket(a, "socket_head");
    REQUIRE(hand_socket >= 0 && head_socket >= 0);
    CHECK(a->sockets[hand_socket].joint == (uint32_t)crowd_asset_find_joint(a, "hand_R"));
    CHECK(a->sockets[head_socket].joint == (uint32_t)crowd_asset_find_joint(a, "head"));
    /* The hand socket sits inside the hand: closer to its own vertices'
     * centroid than 3 cm. The head socket is on top of the head. */
    int32_t hand = crowd_asset_find_joint(a, "hand_R");
    double centroid[3] = {0, 0, 0};
    uint32_t n = 0;
    for (uint32_t v = 0; v < a->mesh.vertex_count; v++) {
        if (a->mesh.joints[4 * v] == hand && a->mesh.weights[4 * v] == 1.0f) {
            for (int k = 0; k < 3; k++) {
                centroid[k] += a->mesh.positions[3 * v + k];
            }
            n++;
        }
    }
    REQUIRE(n > 0);
    const float *hp = joint_pos(&s, hand);
    const float *off = a->sockets[hand_socket].offset;
    float socket[3] = {hp[0] + off[12], hp[1] + off[13], hp[2] + off[14]};
    float c[3] = {(float)(centroid[0] / n), (float)(centroid[1] / n), (float)(centroid[2] / n)};
    CHECK_MSG(dist3(socket, c) < 0.03f, "hand socket %g m from the hand's centre",
              dist3(socket, c));
    const float *head = joint_pos(&s, crowd_asset_find_joint(a, "head"));
    CHECK_NEAR(head[1] + a->sockets[head_socket].offset[13], 1.81f, 0.01f);
    /* The left hand's socket is the right one's mirror image in x. */
    int32_t left_socket = crowd_asset_find_socket(a, "socket_hand_L");
    REQUIRE(left_socket >= 0);
    CHECK(a->sockets[left_socket].joint == (uint32_t)crowd_asset_find_joint(a, "hand_L"));
    const float *lp = joint_pos(&s, crowd_asset_find_joint(a, "hand_L"));
    const float *loff = a->sockets[left_socket].offset;
    float left[3] = {lp[0] + loff[12], lp[1] + loff[13], lp[2] + loff[14]};
    float mirrored[3] = {-socket[0], socket[1], socket[2]};
    CHECK_MSG(dist3(left, mirrored) < 1e-4f, "left hand socket %g m from the right's mirror image",
              dist3(left, mirrored));
    sampler_free(&s);
    return 0;
}

/* Every built-in prop: a valid rigid asset of one joint and one material,
 * unit normals, every triangle wound with its vertices' normals (outward),
 * made the same every time, sized for a person, named with its socket. */
static int test_props(const crowd_asset *character) {
    CHECK(crowd_builtin_prop_count() == 3);
    for (uint32_t i = 0; i < crowd_builtin_prop_count(); i++) {
        const char *name = crowd_builtin_prop_name(i);
        crowd_asset *p = NULL, *q = NULL;
        crowd_error error = {0};
        crowd_result made = crowd_builtin_prop_create(name, &p, &error);
        CHECK_MSG(made == CROWD_OK, "%s: %s", name, error.reason);
        REQUIRE(made == CROWD_OK && crowd_builtin_prop_create(name, &q, NULL) == CROWD_OK);
        CHECK_MSG(crowd_asset_validate(p, &error) == CROWD_OK, "%s: %s", name, error.reason);
        CHECK(crowd_asset_find_socket(character, crowd_builtin_prop_socket(i)) >= 0);
        CHECK(p->skeleton.joint_count == 1 && p->material_count == 1 && !p->has_skin &&
              p->clip_count == 0 && p->mesh.vertex_count > 0);
        const crowd_mesh *m = &p->mesh;
        float lo[3] = {1e9f, 1e9f, 1e9f}, hi[3] = {-1e9f, -1e9f, -1e9f};
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            const float *n = &m->normals[3 * v];
            CHECK_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0f, 1e-5f);
            CHECK(m->joints[4 * v] == 0 && m->weights[4 * v] == 1.0f);
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(lo[k], m->positions[3 * v + k]);
                hi[k] = fmaxf(hi[k], m->positions[3 * v + k]);
            }
        }
        uint32_t inward = 0;
        for (uint32_t t = 0; t < m->index_count; t += 3) {
            const uint32_t *tri = &m->indices[t];
            const float *a = &m->positions[3 * tri[0]], *b = &m->positions[3 * tri[1]],
                        *c = &m->positions[3 * tri[2]];
            float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
            float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            float face[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                             e1[0] * e2[1] - e1[1] * e2[0]};
            float along = 0.0f;
            for (int k = 0; k < 3; k++) {
                for (int corner = 0; corner < 3; corner++) {
                    along += face[k] * m->normals[3 * tri[corner] + k];
                }
            }
            inward += along <= 0.0f;
        }
        CHECK_MSG(inward == 0, "%s: %u triangles wound against their normals", name, inward);
        float extent = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
        CHECK_MSG(extent > 0.1f && extent < 1.2f, "%s: %g m across", name, extent);
        CHECK(q->mesh.vertex_count == m->vertex_count && q->mesh.index_count == m->index_count &&
              memcmp(q->mesh.positions, m->positions, 12 * (size_t)m->vertex_count) == 0 &&
              memcmp(q->mesh.indices, m->indices, 4 * (size_t)m->index_count) == 0);
        char source[32];
        snprintf(source, sizeof source, "builtin:%s", name);
        CHECK(strcmp(p->source, source) == 0);
        crowd_asset_destroy(p);
        crowd_asset_destroy(q);
    }
    crowd_asset *none = (crowd_asset *)1;
    crowd_error error = {0};
    CHECK(crowd_builtin_prop_create("axe", &none, &error) == CROWD_ERROR_INVALID_ARGUMENT &&
          none == NULL && strstr(error.reason, "axe") != NULL);
    CHECK(crowd_builtin_prop_create(NULL, &none, NULL) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_builtin_prop_create("sword", NULL, NULL) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(crowd_builtin_prop_name(3), "") == 0 &&
          strcmp(crowd_builtin_prop_socket(99), "") == 0);
    return 0;
}

#define SAME_ARRAY(x, y, count)                                                                    \
    CHECK_MSG(((x) == NULL && (y) == NULL) ||                                                      \
                  ((x) && (y) && memcmp((x), (y), (size_t)(count) * sizeof *(x)) == 0),            \
              "%s differs between builds", #x)

static uint64_t fnv1a(uint64_t h, const void *bytes, size_t size) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < size; i++) {
        h = (h ^ p[i]) * 1099511628211ull;
    }
    return h;
}

static int test_determinism(const crowd_asset *a) {
    crowd_asset *b = NULL;
    REQUIRE(crowd_builtin_create(&b, NULL) == CROWD_OK && b != NULL);
    const crowd_mesh *ma = &a->mesh, *mb = &b->mesh;
    REQUIRE(ma->vertex_count == mb->vertex_count && ma->index_count == mb->index_count);
    SAME_ARRAY(ma->positions, mb->positions, 3 * ma->vertex_count);
    SAME_ARRAY(ma->normals, mb->normals, 3 * ma->vertex_count);
    SAME_ARRAY(ma->tangents, mb->tangents, 4 * ma->vertex_count);
    SAME_ARRAY(ma->uv0, mb->uv0, 2 * ma->vertex_count);
    SAME_ARRAY(ma->joints, mb->joints, 4 * ma->vertex_count);
    SAME_ARRAY(ma->weights, mb->weights, 4 * ma->vertex_count);
    SAME_ARRAY(ma->indices, mb->indices, ma->index_count);
    SAME_ARRAY(ma->submeshes, mb->submeshes, ma->submesh_count);
    const crowd_skeleton *sa = &a->skeleton, *sb = &b->skeleton;
    REQUIRE(sa->joint_count == sb->joint_count);
    SAME_ARRAY(sa->parents, sb->parents, sa->joint_count);
    SAME_ARRAY(sa->rest_translation, sb->rest_translation, 3 * sa->joint_count);
    SAME_ARRAY(sa->rest_rotation, sb->rest_rotation, 4 * sa->joint_count);
    SAME_ARRAY(sa->rest_scale, sb->rest_scale, 3 * sa->joint_count);
    SAME_ARRAY(sa->inverse_bind, sb->inverse_bind, 16 * sa->joint_count);
    REQUIRE(a->clip_count == b->clip_count);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const crowd_clip *ca = &a->clips[c], *cb = &b->clips[c];
        CHECK(strcmp(ca->name, cb->name) == 0 && ca->duration_s == cb->duration_s);
        for (uint32_t j = 0; j < sa->joint_count; j++) {
            const crowd_track *ta[3] = {&ca->tracks[j].translation, &ca->tracks[j].rotation,
                                        &ca->tracks[j].scale};
            const crowd_track *tb[3] = {&cb->tracks[j].translation, &cb->tracks[j].rotation,
                                        &cb->tracks[j].scale};
            for (int k = 0; k < 3; k++) {
                REQUIRE(ta[k]->key_count == tb[k]->key_count);
                SAME_ARRAY(ta[k]->times_s, tb[k]->times_s, ta[k]->key_count);
                SAME_ARRAY(ta[k]->values, tb[k]->values, ta[k]->key_count * (k == 1 ? 4 : 3));
            }
        }
    }
    REQUIRE(a->socket_count == b->socket_count);
    for (uint32_t s = 0; s < a->socket_count; s++) {
        CHECK(memcmp(a->sockets[s].offset, b->sockets[s].offset, sizeof a->sockets[s].offset) == 0);
    }
    crowd_asset_destroy(b);
    /* Printed so builds and machines can be compared by eye. */
    uint64_t h = 14695981039346656037ull;
    h = fnv1a(h, ma->positions, 3 * ma->vertex_count * sizeof(float));
    h = fnv1a(h, ma->normals, 3 * ma->vertex_count * sizeof(float));
    h = fnv1a(h, ma->weights, 4 * ma->vertex_count * sizeof(float));
    h = fnv1a(h, ma->indices, ma->index_count * sizeof(uint32_t));
    for (uint32_t c = 0; c < a->clip_count; c++) {
        for (uint32_t j = 0; j < sa->joint_count; j++) {
            const crowd_track *t = &a->clips[c].tracks[j].rotation;
            h = fnv1a(h, t->values, 4 * t->key_count * sizeof(float));
        }
    }
    printf("content hash (positions, normals, weights, indices, rotation keys): %016llx\n",
           (unsigned long long)h);
    return 0;
}

static int test_clip_table(const crowd_asset *a) {
    static const struct {
        const char *name;
        bool loop;
        float min_s, max_s;
    } expected[] = {
        {"idle", true, 1.5f, 3.0f}, {"walk", true, 0.8f, 1.3f}, {"run", true, 0.4f, 0.8f},
        {"wave", true, 0.8f, 2.0f}, {"die", false, 1.0f, 2.0f},
    };
    CHECK(a->clip_count == 5);
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const crowd_clip *c = clip_named(a, expected[i].name);
        CHECK_MSG(c != NULL, "clip %s missing", expected[i].name);
        if (c == NULL) {
            continue;
        }
        CHECK_MSG(c->loop == expected[i].loop, "clip %s loop flag", c->name);
        CHECK_MSG(c->duration_s >= expected[i].min_s && c->duration_s <= expected[i].max_s,
                  "clip %s lasts %g s", c->name, c->duration_s);
        uint32_t animated = 0;
        for (uint32_t j = 0; j < a->skeleton.joint_count; j++) {
            const crowd_joint_tracks *t = &c->tracks[j];
            animated += t->rotation.key_count > 0;
            /* Every track spans the whole clip. */
            const crowd_track *tracks[3] = {&t->translation, &t->rotation, &t->scale};
            for (int k = 0; k < 3; k++) {
                if (tracks[k]->key_count > 0) {
                    CHECK(tracks[k]->times_s[0] == 0.0f);
                    CHECK(tracks[k]->times_s[tracks[k]->key_count - 1] == c->duration_s);
                }
            }
            /* Loops: the last key is the first, bit for bit. */
            if (c->loop) {
                for (int k = 0; k < 3; k++) {
                    uint32_t n = tracks[k]->key_count, comps = k == 1 ? 4 : 3;
                    if (n > 0) {
                        CHECK_MSG(memcmp(tracks[k]->values, tracks[k]->values + (n - 1) * comps,
                                         comps * sizeof(float)) == 0,
                                  "clip %s joint %u: last key is not the first", c->name, j);
                    }
                }
            }
        }
        CHECK_MSG(animated >= 6, "clip %s moves only %u joints", c->name, animated);
    }
    return 0;
}

#define STEPS 48

/* Joint positions of `joint` over one pass through the clip. */
static void trace(sampler *s, const crowd_clip *c, int32_t joint, int axis, float *out) {
    for (int i = 0; i < STEPS; i++) {
        sample_at(s, c, c->duration_s * (float)i / STEPS);
        out[i] = joint_pos(s, joint)[axis];
    }
}

static int test_walk_and_run(const crowd_asset *a) {
    sampler s;
    REQUIRE(sampler_init(&s, a));
    const crowd_clip *walk = clip_named(a, "walk"), *run = clip_named(a, "run");
    REQUIRE(walk && run);
    int32_t foot_l = crowd_asset_find_joint(a, "foot_L"),
            foot_r = crowd_asset_find_joint(a, "foot_R");
    int32_t hand_l = crowd_asset_find_joint(a, "hand_L"), hips = crowd_asset_find_joint(a, "hips");
    int32_t upper_leg_l = crowd_asset_find_joint(a, "upper_leg_L");
    int32_t head = crowd_asset_find_joint(a, "head");
    float stride[2];
    const crowd_clip *clips[2] = {walk, run};
    for (int g = 0; g < 2; g++) {
        const crowd_clip *c = clips[g];
        float zl[STEPS], zr[STEPS], hand_z[STEPS], hips_x[STEPS], hips_y[STEPS], hips_z[STEPS];
        trace(&s, c, foot_l, 2, zl);
        trace(&s, c, foot_r, 2, zr);
        trace(&s, c, hand_l, 2, hand_z);
        trace(&s, c, hips, 0, hips_x);
        trace(&s, c, hips, 1, hips_y);
        trace(&s, c, hips, 2, hips_z);
        /* Feet alternate: one forward while the other is back. */
        float corr = correlation(zl, zr, STEPS);
        CHECK_MSG(corr < -0.8f, "%s: feet move together (correlation %g)", c->name, corr);
        int front = 0;
        for (int i = 1; i < STEPS; i++) {
            front = zl[i] > zl[front] ? i : front;
        }
        CHECK_MSG(zl[front] - zr[front] > 0.3f, "%s: left foot at most %g m ahead of the right",
                  c->name, zl[front] - zr[front]);
        stride[g] = range_of(zl, STEPS);
        /* Arms swing against the legs: the left hand goes back as the left foot goes forward. */
        float arm = correlation(hand_z, zl, STEPS);
        CHECK_MSG(arm < -0.5f, "%s: left arm swings with the left leg (%g)", c->name, arm);
        /* In place, bobbing. */
        CHECK_MSG(range_of(hips_x, STEPS) < 0.01f && range_of(hips_z, STEPS) < 0.01f,
                  "%s: root moves", c->name);
        CHECK_MSG(range_of(hips_y, STEPS) > 0.01f, "%s: hips do not bob", c->name);
        /* The knee bends: hip to ankle gets clearly shorter than the straight leg. */
        float shortest = 10.0f;
        for (int i = 0; i < STEPS; i++) {
            sample_at(&s, c, c->duration_s * (float)i / STEPS);
            float d = dist3(joint_pos(&s, upper_leg_l), joint_pos(&s, foot_l));
            shortest = d < shortest ? d : shortest;
        }
        CHECK_MSG(shortest < 0.8f, "%s: knee never bends (hip-ankle %g m)", c->name, shortest);
    }
    printf("stride (left ankle z range): walk %.3f m in %.2f s, run %.3f m in %.2f s\n", stride[0],
           walk->duration_s, stride[1], run->duration_s);
    CHECK_MSG(stride[0] > 0.3f, "walk stride %g m", stride[0]);
    CHECK_MSG(stride[1] > 1.2f * stride[0], "run stride %g m not larger than walk %g m", stride[1],
              stride[0]);
    CHECK(run->duration_s < walk->duration_s);
    /* Running leans forward: the head ahead of the hips on average. */
    float lean = 0.0f;
    for (int i = 0; i < STEPS; i++) {
        sample_at(&s, run, run->duration_s * (float)i / STEPS);
        lean += joint_pos(&s, head)[2] - joint_pos(&s, hips)[2];
    }
    CHECK_MSG(lean / STEPS > 0.05f, "run leans %g m forward", lean / STEPS);
    sampler_free(&s);
    return 0;
}

static int test_wave_idle_die(const crowd_asset *a) {
    sampler s;
    REQUIRE(sampler_init(&s, a));
    const crowd_clip *wave = clip_named(a, "wave"), *idle = clip_named(a, "idle");
    const crowd_clip *die = clip_named(a, "die");
    REQUIRE(wave && idle && die);
    int32_t hand_r = crowd_asset_find_joint(a, "hand_R"),
            hand_l = crowd_asset_find_joint(a, "hand_L");
    int32_t head = crowd_asset_find_joint(a, "head"), hips = crowd_asset_find_joint(a, "hips");

    float hand_x[STEPS];
    for (int i = 0; i < STEPS; i++) {
        sample_at(&s, wave, wave->duration_s * (float)i / STEPS);
        const float *h = joint_pos(&s, hand_r);
        hand_x[i] = h[0];
        CHECK_MSG(h[1] > joint_pos(&s, head)[1] + 0.15f, "wave: right hand at y %g, head at %g",
                  h[1], joint_pos(&s, head)[1]);
        CHECK_MSG(h[0] < 0.0f, "wave: right hand on the left side");
        CHECK(joint_pos(&s, hand_l)[1] < 1.0f);
    }
    CHECK_MSG(range_of(hand_x, STEPS) > 0.1f, "wave: hand moves only %g m side to side",
              range_of(hand_x, STEPS));

    /* Idle: alive but small. */
    uint32_t joints = a->skeleton.joint_count;
    float *first = malloc(16 * joints * sizeof *first);
    REQUIRE(first != NULL);
    sample_at(&s, idle, 0.0f);
    memcpy(first, s.models, 16 * joints * sizeof *first);
    float most = 0.0f, feet = 0.0f;
    for (int i = 1; i < STEPS; i++) {
        sample_at(&s, idle, idle->duration_s * (float)i / STEPS);
        for (uint32_t j = 0; j < joints; j++) {
            float d = dist3(s.models + 16 * j + 12, first + 16 * j + 12);
            most = d > most ? d : most;
            if (strncmp(a->skeleton.names[j], "foot", 4) == 0) {
                feet = d > feet ? d : feet;
            }
        }
    }
    CHECK_MSG(most > 0.005f && most < 0.05f, "idle: joints move up to %g m", most);
    CHECK_MSG(feet < 0.005f, "idle: feet slide %g m", feet);

    /* Die: from standing to lying, then it stays there. */
    sample_at(&s, die, 0.0f);
    CHECK(joint_pos(&s, hips)[1] > 0.9f && joint_pos(&s, head)[1] > 1.5f);
    sample_at(&s, die, die->duration_s * 0.5f);
    float mid_hips = joint_pos(&s, hips)[1];
    sample_at(&s, die, die->duration_s);
    float end_hips = joint_pos(&s, hips)[1], end_head = joint_pos(&s, head)[1];
    memcpy(first, s.models, 16 * joints * sizeof *first);
    CHECK_MSG(end_hips < 0.4f && end_head < 0.4f, "die: ends with hips at %g m, head at %g m",
              end_hips, end_head);
    CHECK(mid_hips < 0.95f && mid_hips > end_hips);
    sample_at(&s, die, die->duration_s * 3.0f);
    CHECK_MSG(memcmp(first, s.models, 16 * joints * sizeof *first) == 0, "die does not clamp");
    free(first);

    /* Loops meet: just before the end looks like the start. */
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const crowd_clip *clip = &a->clips[c];
        if (!clip->loop) {
            continue;
        }
        float *start = malloc(16 * joints * sizeof *start);
        REQUIRE(start != NULL);
        sample_at(&s, clip, 0.0f);
        memcpy(start, s.models, 16 * joints * sizeof *start);
        sample_at(&s, clip, clip->duration_s - 1e-4f);
        float worst = 0.0f;
        for (uint32_t j = 0; j < joints; j++) {
            float d = dist3(s.models + 16 * j + 12, start + 16 * j + 12);
            worst = d > worst ? d : worst;
        }
        CHECK_MSG(worst < 0.002f, "clip %s jumps %g m at the loop", clip->name, worst);
        free(start);
    }
    sampler_free(&s);
    return 0;
}

/* Skinned with the reference skinner, no clip pushes the body through the
 * floor and no clip tears the mesh apart (an edge stretching to several
 * times its rest length would mean weights and bones disagree). */
static int test_skinned(const crowd_asset *a) {
    const crowd_mesh *m = &a->mesh;
    uint32_t joints = a->skeleton.joint_count;
    sampler s;
    REQUIRE(sampler_init(&s, a));
    float *skin = malloc(12 * joints * sizeof *skin);
    float *pos = malloc(3 * (size_t)m->vertex_count * sizeof *pos);
    REQUIRE(skin && pos);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const crowd_clip *clip = &a->clips[c];
        float lowest = 10.0f, stretch = 0.0f;
        for (int i = 0; i <= 24; i++) {
            sample_at(&s, clip, clip->duration_s * (float)i / 24);
            crowd_anim_skin_matrices(&a->skeleton, s.models, NULL, skin);
            crowd_skin_reference(m, skin, pos, NULL, NULL);
            for (uint32_t v = 0; v < m->vertex_count; v++) {
                lowest = pos[3 * v + 1] < lowest ? pos[3 * v + 1] : lowest;
            }
            for (uint32_t t = 0; t < m->index_count; t++) {
                uint32_t v0 = m->indices[t], v1 = m->indices[t - t % 3 + (t + 1) % 3];
                float rest = dist3(m->positions + 3 * v0, m->positions + 3 * v1);
                float now = dist3(pos + 3 * v0, pos + 3 * v1);
                if (rest > 1e-4f && now / rest > stretch) {
                    stretch = now / rest;
                }
            }
        }
        printf("clip %-5s lowest skinned point %.4f m, largest edge stretch %.2fx\n", clip->name,
               lowest, stretch);
        CHECK_MSG(lowest > -0.02f, "clip %s sinks %g m into the floor", clip->name, lowest);
        CHECK_MSG(stretch < 4.0f, "clip %s stretches an edge %gx", clip->name, stretch);
    }
    free(skin);
    free(pos);
    sampler_free(&s);
    return 0;
}

int main(void) {
    check_enter_temp_dir("test_builtin");
    crowd_asset *a = NULL;
    crowd_error err = {0};
    crowd_result r = crowd_builtin_create(&a, &err);
    CHECK_MSG(r == CROWD_OK, "crowd_builtin_create: %s", err.reason);
    if (a == NULL) {
        return check_finish();
    }
    printf("builtin: %u joints, %u vertices, %u triangles, %u materials, %u clips, %u sockets\n",
           a->skeleton.joint_count, a->mesh.vertex_count, a->mesh.index_count / 3,
           a->material_count, a->clip_count, a->socket_count);
    test_structure(a);
    test_geometry(a);
    test_weights(a);
    test_bind_pose(a);
    test_determinism(a);
    test_clip_table(a);
    test_walk_and_run(a);
    test_wave_idle_die(a);
    test_skinned(a);
    test_props(a);
    crowd_asset_destroy(a);
    return check_finish();
}
