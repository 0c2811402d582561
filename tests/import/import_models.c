/* import_models.c - real characters: counts against the files themselves.
 *
 * glTF/GLB: expected values come from the file's JSON (gltf_expect.c).
 * Vertex rule: the importer welds identical vertices (assimp's
 * JoinIdenticalVertices) and never adds any, so vertices <= the sum of the
 * POSITION counts; triangles are exact. Other formats: the numbers are
 * written here with how each was read from the file. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "crowd/import.h"
#include "gltf_expect.h"
#include "import_tests.h"

static uint32_t triangles(const crowd_asset *asset) {
    return asset->mesh.index_count / 3;
}

static void check_clip(const crowd_asset *asset, const char *name, double duration_s,
                       double tolerance) {
    int32_t clip = crowd_asset_find_clip(asset, name);
    CHECK_MSG(clip >= 0, "%s: no clip '%s'", asset->source, name);
    if (clip >= 0) {
        CHECK_NEAR(asset->clips[clip].duration_s, duration_s, tolerance);
    }
}

static void check_gltf(const char *path) {
    if (path == NULL) {
        return;
    }
    gltf_expect expect;
    CHECK_MSG(gltf_expect_read(path, &expect), "cannot read %s as glTF", path);
    crowd_asset *asset = import_or_fail(path);
    if (asset == NULL) {
        return;
    }
    printf("%s: %u meshes, %u vertices (<= %u), %u triangles, %u materials, %u joints, %u clips\n",
           path, asset->source_mesh_count, asset->mesh.vertex_count, expect.positions,
           triangles(asset), asset->material_count, asset->skeleton.joint_count, asset->clip_count);
    CHECK_MSG(asset->source_mesh_count == expect.mesh_instances, "%s: %u meshes, file has %u", path,
              asset->source_mesh_count, expect.mesh_instances);
    CHECK(asset->mesh.submesh_count == expect.mesh_instances);
    CHECK(triangles(asset) == expect.triangles);
    CHECK(asset->mesh.vertex_count <= expect.positions);
    CHECK(asset->mesh.vertex_count >= 3);
    CHECK(asset->material_count == expect.materials);
    CHECK(asset->has_skin == expect.has_skin);
    CHECK_MSG(asset->skeleton.joint_count == expect.joints, "%s: %u joints, file says %u", path,
              asset->skeleton.joint_count, expect.joints);
    for (uint32_t j = 0; j < expect.named_joint_count; j++) {
        CHECK_MSG(crowd_asset_find_joint(asset, expect.named_joints[j]) >= 0, "%s: no joint '%s'",
                  path, expect.named_joints[j]);
    }
    CHECK(asset->clip_count == expect.clips);
    for (uint32_t c = 0; c < expect.clips && c < asset->clip_count; c++) {
        char name[80];
        /* An unnamed clip gets "clip_<index>" (counted as a rename). */
        if (expect.clip_names[c][0] == '\0') {
            snprintf(name, sizeof name, "clip_%u", c);
        } else {
            snprintf(name, sizeof name, "%s", expect.clip_names[c]);
        }
        CHECK_MSG(strcmp(asset->clips[c].name, name) == 0, "%s: clip %u is '%s', expected '%s'",
                  path, c, asset->clips[c].name, name);
        CHECK_NEAR(asset->clips[c].duration_s, expect.clip_durations[c], 1e-4);
    }
    CHECK(asset->socket_count == expect.sockets);
    crowd_asset_destroy(asset);
}

static void check_robot(void) {
    const char *path = check_shared_model("robot.glb");
    if (path == NULL) {
        return;
    }
    check_gltf(path);
    crowd_asset *asset = import_or_fail(path);
    if (asset == NULL) {
        return;
    }
    /* The issue's own statement: one mesh of 19 submeshes, >= 43 joints, 14 clips. */
    CHECK(asset->mesh.submesh_count == 19);
    CHECK(asset->skeleton.joint_count >= 43);
    CHECK(asset->clip_count == 14);
    /* Mesh nodes are named like joints (Head, Foot.L, ...): the joint must be the
     * bone node, a child of Neck, not the mesh node under RobotArmature. */
    int32_t head = crowd_asset_find_joint(asset, "Head");
    int32_t neck = crowd_asset_find_joint(asset, "Neck");
    CHECK(head >= 0 && neck >= 0 && asset->skeleton.parents[head] == neck);
    /* RobotArmature sits above the root joint "Bone": collapsed into root_transform. */
    CHECK(crowd_asset_find_joint(asset, "RobotArmature") < 0);
    CHECK(crowd_asset_find_joint(asset, "Bone") == 0 && asset->skeleton.parents[0] == -1);
    /* A one-shot clip ends in another pose than it starts. */
    int32_t death = crowd_asset_find_clip(asset, "Robot_Death");
    CHECK(death >= 0 && !asset->clips[death].loop);
    crowd_asset_destroy(asset);
}

static void check_static_props(void) {
    static const char *props[] = {"greenman_hat.glb", "greenman_sword.glb", "greenman_shield.glb"};
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
        const char *path = check_shared_model(props[i]);
        if (path == NULL) {
            continue;
        }
        check_gltf(path);
        crowd_asset *asset = import_or_fail(path);
        if (asset == NULL) {
            continue;
        }
        /* No skin, no animation: valid, one rigid joint, no clips, every weight on joint 0. */
        CHECK(!asset->has_skin);
        CHECK(asset->skeleton.joint_count == 1);
        CHECK(asset->clip_count == 0);
        for (uint32_t v = 0; v < asset->mesh.vertex_count; v++) {
            CHECK(asset->mesh.joints[4 * v] == 0 && asset->mesh.weights[4 * v] == 1.0f);
        }
        CHECK(asset->materials[0].texture_rgba8 != NULL);
        crowd_asset_destroy(asset);
    }
}

static void check_testwuson(void) {
    const char *path = check_assimp_model("X/Testwuson.X");
    crowd_asset *asset = path ? import_or_fail(path) : NULL;
    if (asset == NULL) {
        return;
    }
    /* From the .X text: "Mesh mesh_Wuson { 3205;" vertices and 3732 faces, all
     * "3;a,b,c;" triangles; no Material; 3 AnimationSets (Wuson_Run, Wuson_Walk,
     * Wuson_Bind) of 39 "Animation" blocks each, naming 37 skinned frames plus the
     * frames Wuson and Root; "AnimTicksPerSecond 4800"; the last key ticks of
     * the sets are 4640, 17280 and 0. Welding cannot lower the count here: every
     * one of the 3205 vertices has its own position/normal/uv. */
    CHECK(asset->mesh.vertex_count == 3205);
    CHECK(triangles(asset) == 3732);
    CHECK(asset->source_mesh_count == 1);
    CHECK(asset->material_count == 1);
    CHECK(asset->skeleton.joint_count == 39);
    CHECK(asset->has_skin);
    CHECK(asset->clip_count == 3);
    check_clip(asset, "Wuson_Run", 4640.0 / 4800.0, 1e-5);
    check_clip(asset, "Wuson_Walk", 17280.0 / 4800.0, 1e-5);
    check_clip(asset, "Wuson_Bind", 0.0, 0.0);
    /* No PBR data in an .X file: a matte dielectric (crowd/asset.h, import_material.c). */
    const crowd_material *material = &asset->materials[0];
    CHECK(material->metallic == 0.0f && material->roughness == 1.0f);
    CHECK(material->alpha_mode == CROWD_ALPHA_OPAQUE && material->alpha_cutoff == 0.5f);
    CHECK(material->normal_scale == 1.0f && material->occlusion_strength == 1.0f);
    CHECK(material->metallic_roughness_texture.rgba8 == NULL &&
          material->normal_texture.rgba8 == NULL);
    crowd_asset_destroy(asset);
}

static void check_epileptic(void) {
    const char *path = check_assimp_model("X/BCN_Epileptic.X");
    crowd_asset *asset = path ? import_or_fail(path) : NULL;
    if (asset == NULL) {
        return;
    }
    /* From the .X text: meshes mesh_Torso (1170 vertices, 1966 triangle faces),
     * mesh_Head (1196, 2036), mesh_Legs (648, 1124); no Material; one
     * AnimationSet "Epileptisch" of 57 Animation blocks; 4800 ticks per second,
     * last key at tick 15840. */
    CHECK(asset->source_mesh_count == 3);
    CHECK(asset->mesh.vertex_count == 1170 + 1196 + 648);
    CHECK(triangles(asset) == 1966 + 2036 + 1124);
    CHECK(asset->material_count == 1);
    CHECK(asset->skeleton.joint_count == 57);
    CHECK(asset->clip_count == 1);
    check_clip(asset, "Epileptisch", 15840.0 / 4800.0, 1e-5);
    crowd_asset_destroy(asset);
}

static void check_man_mdl(void) {
    const char *path = check_assimp_model("MDL/MDL (HL1)/man.mdl");
    crowd_asset *asset = path ? import_or_fail(path) : NULL;
    if (asset == NULL) {
        return;
    }
    /* From the binary studiohdr_t of man.mdl: numbones 8; 3 sequences
     * "reference" (30 fps, 2 frames), "walk" (30 fps, 26 frames), "arms_up"
     * (25 fps, 2 frames, 4 blends: assimp makes one animation per blend, so the
     * three repeats are renamed); 2 body parts whose models have 5 meshes in
     * all, with 190 triangles in their strips and fans (sum of count - 2) over
     * 111 model vertices; manT.mdl's skin table maps the 5 meshes to 3
     * textures. Duration = (frames - 1) / fps. Vertices: assimp gives one per
     * triangle corner, welded: between 111 and 3 * 190. */
    CHECK(asset->source_mesh_count == 5);
    CHECK(triangles(asset) == 190);
    CHECK(asset->mesh.vertex_count >= 111 && asset->mesh.vertex_count <= 3 * 190);
    CHECK(asset->material_count == 3);
    CHECK(asset->skeleton.joint_count == 8);
    CHECK(asset->clip_count == 6);
    check_clip(asset, "reference", 1.0 / 30.0, 1e-5);
    check_clip(asset, "walk", 25.0 / 30.0, 1e-5);
    check_clip(asset, "arms_up", 1.0 / 25.0, 1e-5);
    CHECK(asset->repairs.clips_renamed == 3);
    crowd_asset_destroy(asset);
}

static void check_fbx(void) {
    const char *path = check_assimp_model("FBX/animation_with_skeleton.fbx");
    crowd_asset *asset = path ? import_or_fail(path) : NULL;
    if (asset == NULL) {
        return;
    }
    /* From the binary FBX node records: Geometry "Vertices" holds 1058 points,
     * "PolygonVertexIndex" 4224 corners in 1056 quads (2112 triangles); 14
     * Deformer Clusters (Bone .. Bone.013) under the animated Null "Armature";
     * one Material; AnimationStack "Armature|ArmatureAction" with LocalStop at
     * 0.8333 s. Vertices: one per polygon corner, welded: between 1058 and
     * 4224. Blender wrote up to 14 unnormalized influences per vertex, so
     * repairs are expected there. */
    CHECK(triangles(asset) == 2112);
    CHECK(asset->mesh.vertex_count >= 1058 && asset->mesh.vertex_count <= 4224);
    CHECK(asset->material_count == 1);
    CHECK(asset->skeleton.joint_count == 15);
    CHECK(crowd_asset_find_joint(asset, "Bone.013") >= 0);
    CHECK(asset->clip_count == 1);
    check_clip(asset, "Armature|ArmatureAction", 20.0 / 24.0, 1e-4);
    CHECK(asset->repairs.influences_truncated > 0);
    /* No FBX pivot helper nodes survive as joints. */
    for (uint32_t j = 0; j < asset->skeleton.joint_count; j++) {
        CHECK(strstr(asset->skeleton.names[j], "$AssimpFbx$") == NULL);
    }
    crowd_asset_destroy(asset);
}

int test_import_models(void) {
    check_robot();
    const char *path = check_shared_model("greenman.glb");
    check_gltf(path);
    path = check_shared_model("RiggedFigure.glb");
    check_gltf(path);
    if (path != NULL) {
        crowd_asset *figure = import_or_fail(path);
        /* docs/architecture.md, "Importing": RiggedFigure has vertices whose
         * weights sum to 0.2-0.99. */
        CHECK(figure && figure->repairs.weights_renormalized > 0);
        CHECK(figure && figure->repairs.clips_renamed == 1);
        crowd_asset_destroy(figure);
    }
    check_static_props();
    check_gltf(check_assimp_model("glTF2/simple_skin/simple_skin.gltf"));
    check_testwuson();
    check_epileptic();
    check_man_mdl();
    check_fbx();
    return CHECK_REPORT("models");
}
