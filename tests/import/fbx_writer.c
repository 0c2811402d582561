/* fbx_writer.c - see fbx_writer.h. */
#include "fbx_writer.h"

#include <cglm/cglm.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define FBX_TICKS_PER_S 46186158000.0
#define PI 3.14159265358979323846
#define CM_PER_M 100.0

const double FBX_KEY_S[FBX_KEY_COUNT] = {0.0, 0.5, 1.0};
const double FBX_TURN_DEG[FBX_KEY_COUNT] = {0.0, 30.0, 90.0};

/* Object ids: one range per kind, the joint's index added. */
enum {
    ID_STACK = 1,
    ID_LAYER = 2,
    ID_ARMATURE = 99999,
    ID_MODEL = 100000,
    ID_ROTATION_NODE = 200000,
    ID_TRANSLATION_NODE = 300000,
    ID_ROTATION_CURVE = 400000,
    ID_TRANSLATION_CURVE = 500000,
};

void fbx_euler_xyz_deg(const float q[4], double out[3]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r00 = 1.0 - 2.0 * (y * y + z * z), r10 = 2.0 * (x * y + w * z);
    double r20 = 2.0 * (x * z - w * y), r21 = 2.0 * (y * z + w * x);
    double r22 = 1.0 - 2.0 * (x * x + y * y);
    /* R = Rz(c) Ry(b) Rx(a): r20 = -sin b, r21 = cos b sin a, r22 = cos b cos a,
     * r10 = sin c cos b, r00 = cos c cos b. */
    out[0] = atan2(r21, r22) * 180.0 / PI;
    out[1] = asin(fmax(-1.0, fmin(1.0, -r20))) * 180.0 / PI;
    out[2] = atan2(r10, r00) * 180.0 / PI;
}

void fbx_quat_from_euler_deg(const double euler[3], float out[4]) {
    versor qx, qy, qz, zy;
    glm_quatv(qx, (float)(euler[0] * PI / 180.0), (vec3){1.0f, 0.0f, 0.0f});
    glm_quatv(qy, (float)(euler[1] * PI / 180.0), (vec3){0.0f, 1.0f, 0.0f});
    glm_quatv(qz, (float)(euler[2] * PI / 180.0), (vec3){0.0f, 0.0f, 1.0f});
    glm_quat_mul(qz, qy, zy);
    glm_quat_mul(zy, qx, out);
}

static void write_properties(FILE *f, const double t_cm[3], const double r_deg[3],
                             const double s[3]) {
    fprintf(f, "\t\tProperties70:  {\n");
    fprintf(f, "\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",%.17g,%.17g,%.17g\n",
            t_cm[0], t_cm[1], t_cm[2]);
    fprintf(f, "\t\t\tP: \"Lcl Rotation\", \"Lcl Rotation\", \"\", \"A\",%.17g,%.17g,%.17g\n",
            r_deg[0], r_deg[1], r_deg[2]);
    fprintf(f, "\t\t\tP: \"Lcl Scaling\", \"Lcl Scaling\", \"\", \"A\",%.17g,%.17g,%.17g\n", s[0],
            s[1], s[2]);
    fprintf(f, "\t\t}\n");
}

static void write_model(FILE *f, int64_t id, const char *prefix, const char *name, const char *type,
                        const double t_cm[3], const double r_deg[3], const double s[3]) {
    fprintf(f, "\tModel: %" PRId64 ", \"Model::%s%s\", \"%s\" {\n\t\tVersion: 232\n", id, prefix,
            name, type);
    write_properties(f, t_cm, r_deg, s);
    fprintf(f, "\t\tShading: Y\n\t\tCulling: \"CullingOff\"\n\t}\n");
}

/* One AnimationCurve: `time_count` key times, `value_count` values. */
static void write_curve(FILE *f, int64_t id, const double *times_s, uint32_t time_count,
                        const double *values, uint32_t value_count) {
    fprintf(f, "\tAnimationCurve: %" PRId64 ", \"AnimCurve::\", \"\" {\n", id);
    fprintf(f, "\t\tDefault: %.9g\n\t\tKeyVer: 4009\n\t\tKeyTime: *%u {\n\t\t\ta: ", values[0],
            time_count);
    for (uint32_t k = 0; k < time_count; k++) {
        fprintf(f, "%s%" PRId64, k ? "," : "", (int64_t)llround(times_s[k] * FBX_TICKS_PER_S));
    }
    fprintf(f, "\n\t\t}\n\t\tKeyValueFloat: *%u {\n\t\t\ta: ", value_count);
    for (uint32_t k = 0; k < value_count; k++) {
        fprintf(f, "%s%.9g", k ? "," : "", values[k]);
    }
    fprintf(f, "\n\t\t}\n\t\tKeyAttrFlags: *1 {\n\t\t\ta: 24836\n\t\t}\n");
    fprintf(f, "\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,255790911,0\n\t\t}\n");
    fprintf(f, "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: %u\n\t\t}\n\t}\n", time_count);
}

static void write_curve_node(FILE *f, int64_t id, const char *name, const double value[3]) {
    fprintf(f, "\tAnimationCurveNode: %" PRId64 ", \"AnimCurveNode::%s\", \"\" {\n", id, name);
    fprintf(f, "\t\tProperties70:  {\n");
    for (int axis = 0; axis < 3; axis++) {
        fprintf(f, "\t\t\tP: \"d|%c\", \"Number\", \"\", \"A\",%.17g\n", "XYZ"[axis], value[axis]);
    }
    fprintf(f, "\t\t}\n\t}\n");
}

/* Rest TRS of joint j in the file's units: translation in cm, Euler degrees. */
static void rest_of(const crowd_skeleton *sk, uint32_t j, double t_cm[3], double r_deg[3],
                    double s[3]) {
    for (int c = 0; c < 3; c++) {
        t_cm[c] = sk->rest_translation[3 * j + c] * CM_PER_M;
        s[c] = sk->rest_scale[3 * j + c];
    }
    fbx_euler_xyz_deg(&sk->rest_rotation[4 * j], r_deg);
}

static bool is_identity(const float m[16]) {
    for (int e = 0; e < 16; e++) {
        if (fabsf(m[e] - ((e % 5 == 0) ? 1.0f : 0.0f)) > 1e-7f) {
            return false;
        }
    }
    return true;
}

static void write_animation(FILE *f, const crowd_skeleton *sk, const fbx_spec *spec) {
    fprintf(f, "\tAnimationStack: %d, \"AnimStack::mixamo.com\", \"\" {\n", ID_STACK);
    fprintf(f, "\t\tProperties70:  {\n\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n");
    fprintf(f, "\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",%" PRId64 "\n\t\t}\n\t}\n",
            (int64_t)llround(FBX_KEY_S[FBX_KEY_COUNT - 1] * FBX_TICKS_PER_S));
    fprintf(f, "\tAnimationLayer: %d, \"AnimLayer::BaseLayer\", \"\" {\n\t}\n", ID_LAYER);
    static const double still_s[2] = {0.0, 1.0};
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (!spec->curves[j]) {
            continue;
        }
        double t_cm[3], r_deg[3], s[3];
        rest_of(sk, j, t_cm, r_deg, s);
        write_curve_node(f, ID_ROTATION_NODE + j, "R", r_deg);
        for (int axis = 0; axis < 3; axis++) {
            int64_t id = ID_ROTATION_CURVE + 3 * (int64_t)j + axis;
            if ((int32_t)j == spec->turned) {
                double values[FBX_KEY_COUNT];
                for (uint32_t k = 0; k < FBX_KEY_COUNT; k++) {
                    values[k] = r_deg[axis] + (axis == 2 ? FBX_TURN_DEG[k] : 0.0);
                }
                uint32_t value_count =
                    spec->unequal_keys && axis == 2 ? FBX_KEY_COUNT - 1 : FBX_KEY_COUNT;
                write_curve(f, id, FBX_KEY_S, FBX_KEY_COUNT, values, value_count);
            } else {
                double values[2] = {r_deg[axis], r_deg[axis]};
                write_curve(f, id, still_s, 2, values, 2);
            }
        }
        if (sk->parents[j] < 0) {
            write_curve_node(f, ID_TRANSLATION_NODE + j, "T", t_cm);
            for (int axis = 0; axis < 3; axis++) {
                double values[2] = {t_cm[axis], t_cm[axis]};
                write_curve(f, ID_TRANSLATION_CURVE + 3 * (int64_t)j + axis, still_s, 2, values, 2);
            }
        }
    }
}

static void write_animation_connections(FILE *f, const crowd_skeleton *sk, const fbx_spec *spec) {
    fprintf(f, "\tC: \"OO\",%d,%d\n", ID_LAYER, ID_STACK);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (!spec->curves[j]) {
            continue;
        }
        int64_t node = ID_ROTATION_NODE + j, model = ID_MODEL + j;
        fprintf(f, "\tC: \"OO\",%" PRId64 ",%d\n", node, ID_LAYER);
        fprintf(f, "\tC: \"OP\",%" PRId64 ",%" PRId64 ", \"Lcl Rotation\"\n", node, model);
        for (int axis = 0; axis < 3; axis++) {
            fprintf(f, "\tC: \"OP\",%" PRId64 ",%" PRId64 ", \"d|%c\"\n",
                    ID_ROTATION_CURVE + 3 * (int64_t)j + axis, node, "XYZ"[axis]);
        }
        if (sk->parents[j] < 0) {
            node = ID_TRANSLATION_NODE + j;
            fprintf(f, "\tC: \"OO\",%" PRId64 ",%d\n", node, ID_LAYER);
            fprintf(f, "\tC: \"OP\",%" PRId64 ",%" PRId64 ", \"Lcl Translation\"\n", node, model);
            for (int axis = 0; axis < 3; axis++) {
                fprintf(f, "\tC: \"OP\",%" PRId64 ",%" PRId64 ", \"d|%c\"\n",
                        ID_TRANSLATION_CURVE + 3 * (int64_t)j + axis, node, "XYZ"[axis]);
            }
        }
    }
}

bool fbx_write(const char *path, const crowd_skeleton *sk, const fbx_spec *spec) {
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return false;
    }
    const char *type = spec->type ? spec->type : "LimbNode";
    fprintf(f, "; FBX 7.4.0 project file\n; written by crowd's test_import_anim_assimp\n\n");
    fprintf(f, "FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n");
    fprintf(f, "\tCreator: \"crowd test_import_anim_assimp\"\n}\n");
    fprintf(f, "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n");
    static const char *const settings[] = {
        "\"UpAxis\", \"int\", \"Integer\", \"\",1",
        "\"UpAxisSign\", \"int\", \"Integer\", \"\",1",
        "\"FrontAxis\", \"int\", \"Integer\", \"\",2",
        "\"FrontAxisSign\", \"int\", \"Integer\", \"\",1",
        "\"CoordAxis\", \"int\", \"Integer\", \"\",0",
        "\"CoordAxisSign\", \"int\", \"Integer\", \"\",1",
        "\"UnitScaleFactor\", \"double\", \"Number\", \"\",1",
        "\"TimeMode\", \"enum\", \"\", \"\",6",
    };
    for (size_t i = 0; i < sizeof settings / sizeof *settings; i++) {
        fprintf(f, "\t\tP: %s\n", settings[i]);
    }
    fprintf(f, "\t}\n}\n\n");
    bool armature = !is_identity(sk->root_transform);
    uint32_t curve_nodes = 0;
    for (uint32_t j = 0; spec->animation && j < sk->joint_count; j++) {
        curve_nodes += spec->curves[j] ? (sk->parents[j] < 0 ? 2u : 1u) : 0u;
    }
    uint32_t models = sk->joint_count + armature;
    uint32_t stacks = spec->animation ? 1u : 0u;
    fprintf(f, "Definitions:  {\n\tVersion: 100\n\tCount: %u\n",
            models + 2 * stacks + 4 * curve_nodes);
    fprintf(f, "\tObjectType: \"Model\" {\n\t\tCount: %u\n\t}\n", models);
    if (spec->animation) {
        fprintf(f, "\tObjectType: \"AnimationStack\" {\n\t\tCount: 1\n\t}\n");
        fprintf(f, "\tObjectType: \"AnimationLayer\" {\n\t\tCount: 1\n\t}\n");
        fprintf(f, "\tObjectType: \"AnimationCurveNode\" {\n\t\tCount: %u\n\t}\n", curve_nodes);
        fprintf(f, "\tObjectType: \"AnimationCurve\" {\n\t\tCount: %u\n\t}\n", 3 * curve_nodes);
    }
    fprintf(f, "}\n\nObjects:  {\n");
    if (armature) {
        /* The root transform as a node above the skeleton, as Mixamo's "Armature". */
        mat4 m, r;
        vec4 t;
        vec3 scale;
        versor q;
        memcpy(m, sk->root_transform, sizeof m);
        glm_decompose(m, t, r, scale);
        glm_mat4_quat(r, q);
        double t_cm[3], r_deg[3], s[3];
        for (int c = 0; c < 3; c++) {
            t_cm[c] = t[c] * CM_PER_M;
            s[c] = scale[c];
        }
        fbx_euler_xyz_deg(q, r_deg);
        write_model(f, ID_ARMATURE, "", "Armature", "Null", t_cm, r_deg, s);
    }
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        double t_cm[3], r_deg[3], s[3];
        rest_of(sk, j, t_cm, r_deg, s);
        write_model(f, ID_MODEL + j, spec->prefix, sk->names[j], type, t_cm, r_deg, s);
    }
    if (spec->animation) {
        write_animation(f, sk, spec);
    }
    fprintf(f, "}\n\nConnections:  {\n");
    if (armature) {
        fprintf(f, "\tC: \"OO\",%d,0\n", ID_ARMATURE);
    }
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        int64_t parent = sk->parents[j] >= 0 ? ID_MODEL + sk->parents[j]
                         : armature          ? ID_ARMATURE
                                             : 0;
        fprintf(f, "\tC: \"OO\",%" PRId64 ",%" PRId64 "\n", ID_MODEL + (int64_t)j, parent);
    }
    if (spec->animation) {
        write_animation_connections(f, sk, spec);
    }
    fprintf(f, "}\n");
    return fclose(f) == 0;
}
