/* test_import_precheck - the pre-check that runs on a file's bytes before
 * assimp 5.2 sees them (src/import/assimp/precheck/precheck*.c).
 *
 * Every rule is hit by a file crafted here, in memory, through
 * crowd_import_memory: the import must fail with the rule's result and a
 * reason naming the problem. Then the malformed files of assimp-testmodels
 * must fail cleanly (OutOfMemory.off by the pre-check, quickly), and the
 * good assimp-testmodels of each checked format must pass the pre-check by
 * path and from memory: no false positives. (glTF is read by crowd's own
 * reader, never by assimp: its malformed input is test_import_gltf's.) */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/import.h"
#include "import/assimp/precheck/precheck.h"

/* ---- helpers ---- */

static crowd_result import_bytes(const void *bytes, size_t size, const char *name,
                                 crowd_error *error) {
    crowd_asset *asset = NULL;
    memset(error, 0, sizeof *error);
    crowd_result result = crowd_import_memory(bytes, size, name, NULL, &asset, error);
    CHECK_MSG(result == CROWD_OK || asset == NULL, "%s: asset returned on failure", name);
    crowd_asset_destroy(asset);
    return result;
}

/* The import of `bytes` fails with `expected` and a reason containing `part`. */
static void expect_reject(const void *bytes, size_t size, const char *name, crowd_result expected,
                          const char *part) {
    crowd_error error;
    crowd_result result = import_bytes(bytes, size, name, &error);
    CHECK_MSG(result == expected && strstr(error.reason, part) != NULL,
              "%s: %s '%s', expected %s with '%s'", name, crowd_result_str(result), error.reason,
              crowd_result_str(expected), part);
    CHECK_MSG(strcmp(error.file, name) == 0, "%s: error names '%s'", name, error.file);
    printf("  %-24s %s\n", name, error.reason);
}

static void expect_reject_text(const char *text, const char *name, const char *part) {
    expect_reject(text, strlen(text), name, CROWD_ERROR_INVALID_DATA, part);
}

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ---- text and binary formats ---- */

static const char off_cube[] = "OFF\n8 6 12\n"
                               "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                               "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 1 2 6 5\n4 2 3 7 6\n4 3 0 4 7\n";

static void check_off(void) {
    crowd_error error;
    CHECK_MSG(import_bytes(off_cube, strlen(off_cube), "cube.off", &error) == CROWD_OK,
              "cube.off: %s", error.reason);
    /* 3 vertices of "0 0 0\n" and a triangle take 6 x 3 + 4 bytes at least. */
    expect_reject_text("OFF\n3535352353 6 0\n0 0 0\n", "huge.off", "declares 3535352353 vertices");
    expect_reject_text("OFF\n3 4000000000 0\n0 0 0\n0 0 1\n0 1 0\n3 0 1 2\n", "faces.off",
                       "and 4000000000 faces");
    /* Comments and the optional letters, as assimp's header reader skips them. */
    expect_reject_text("# a comment\nCNOFF\n100 1 0\n0 0 0 0 0 1 1\n", "letters.off",
                       "100 vertices");
    /* "nOFF 1": one coordinate per vertex, so 50 vertices need 100 bytes. */
    expect_reject_text("nOFF 1\n50 1 0\n0\n0\n", "dimension.off", "50 vertices");
    /* No OFF keyword: the counts come first. */
    expect_reject_text("9999 1 0\n0 0 0\n", "bare.off", "9999 vertices");
}

static const char ply_ascii_cube[] =
    "ply\nformat ascii 1.0\ncomment a tetrahedron\nelement vertex 4\nproperty float x\n"
    "property float y\nproperty float z\nelement face 4\nproperty list uchar int vertex_indices\n"
    "end_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";

static void check_ply(void) {
    crowd_error error;
    CHECK_MSG(import_bytes(ply_ascii_cube, strlen(ply_ascii_cube), "tetra.ply", &error) == CROWD_OK,
              "tetra.ply: %s", error.reason);
    expect_reject_text("ply\nformat ascii 1.0\nelement vertex 4000000000\nproperty float x\n"
                       "property float y\nproperty float z\nend_header\n0 0 0\n",
                       "ascii.ply", "4000000000 'vertex' elements");
    /* A list of 200 items on a line with room for 3. */
    expect_reject_text(
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
        "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
        "end_header\n0 0 0\n1 0 0\n0 1 0\n200 0 1 2\n",
        "list.ply", "a list of 200 items");
    expect_reject_text(
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
        "property float z\nelement face 1\nproperty list int int vertex_indices\n"
        "end_header\n0 0 0\n1 0 0\n0 1 0\n-3 0 1 2\n",
        "negative.ply", "a list of -3 items");

    /* Binary: 3 vertices of 3 floats (36 bytes), one face "3 0 1 2". */
    static const char header[] =
        "ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
        "property float x\nproperty float y\nproperty float z\n"
        "element face 1\nproperty list uchar uint vertex_indices\nend_header\n";
    uint8_t bytes[512];
    size_t h = strlen(header);
    memcpy(bytes, header, h);
    float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(bytes + h, positions, sizeof positions);
    uint8_t *face = bytes + h + sizeof positions;
    face[0] = 3;
    put_u32(face + 1, 0);
    put_u32(face + 5, 1);
    put_u32(face + 9, 2);
    size_t size = h + sizeof positions + 13;
    CHECK_MSG(import_bytes(bytes, size, "binary.ply", &error) == CROWD_OK, "binary.ply: %s",
              error.reason);
    /* An element without properties takes no bytes: the walk stays aligned. */
    static const char marked[] = "ply\nformat binary_little_endian 1.0\nelement marker 2\n"
                                 "element vertex 3\nproperty float x\nproperty float y\n"
                                 "property float z\nelement face 1\n"
                                 "property list uchar uint vertex_indices\nend_header\n";
    uint8_t marked_bytes[512];
    memcpy(marked_bytes, marked, strlen(marked));
    memcpy(marked_bytes + strlen(marked), bytes + h, size - h);
    CHECK_MSG(crowd__import_precheck_memory(marked_bytes, strlen(marked) + size - h, "marked.ply",
                                            &error) == CROWD_OK,
              "marked.ply: %s", error.reason);
    face[0] = 200; /* 800 bytes of indices in a 13-byte face */
    expect_reject(bytes, size, "binary_list.ply", CROWD_ERROR_INVALID_DATA,
                  "a list of 200 items runs past");
    face[0] = 3;
    /* 12 bytes per vertex: 3 vertices need 36, the data has 35 before the face. */
    expect_reject(bytes, h + 35, "binary_short.ply", CROWD_ERROR_INVALID_DATA,
                  "3 'vertex' elements of at least 12 bytes");

    char many[4096] = "ply\nformat ascii 1.0\nelement vertex 1\n";
    for (int p = 0; p < 65; p++) {
        snprintf(many + strlen(many), sizeof many - strlen(many), "property float p%d\n", p);
    }
    strcat(many, "end_header\n0\n");
    expect_reject(many, strlen(many), "many.ply", CROWD_ERROR_UNSUPPORTED, "more than 64");
}

static void check_stl(void) {
    /* One triangle: 80-byte header, count, normal, 3 vertices, attribute. */
    uint8_t stl[134];
    memset(stl, 0, sizeof stl);
    put_u32(stl + 80, 1);
    float triangle[12] = {0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(stl + 84, triangle, sizeof triangle);
    crowd_error error;
    CHECK_MSG(import_bytes(stl, sizeof stl, "one.stl", &error) == CROWD_OK, "one.stl: %s",
              error.reason);
    /* 85899346 x 50 + 84 is 2^32 + 88: in 32 bits a match for an 88-byte file. */
    put_u32(stl + 80, 85899346u);
    expect_reject(stl, 88, "wrapped.stl", CROWD_ERROR_INVALID_DATA, "declares 85899346 triangles");
}

static void check_quake(void) {
    uint8_t md2[68 + 64];
    memset(md2, 0, sizeof md2);
    memcpy(md2, "IDP2", 4);
    put_u32(md2 + 4, 8);
    put_u32(md2 + 40, 1);          /* one frame */
    put_u32(md2 + 32, 100000000u); /* triangles at offset 68: 1.2 GB */
    put_u32(md2 + 52, 68);
    expect_reject(md2, sizeof md2, "tris.md2", CROWD_ERROR_INVALID_DATA,
                  "MD2: 100000000 triangles");
    put_u32(md2 + 32, 0);
    put_u32(md2 + 24, 1000); /* 1000 vertices: a frame of 4040 bytes */
    put_u32(md2 + 56, 68);
    expect_reject(md2, sizeof md2, "frames.md2", CROWD_ERROR_INVALID_DATA, "MD2: 1 frames");

    uint8_t md3[108 + 108];
    memset(md3, 0, sizeof md3);
    memcpy(md3, "IDP3", 4);
    put_u32(md3 + 4, 15);
    put_u32(md3 + 84, 1); /* one surface */
    put_u32(md3 + 100, 108);
    put_u32(md3 + 108 + 84, 50000000u); /* triangles */
    put_u32(md3 + 108 + 88, 108);
    expect_reject(md3, sizeof md3, "tris.md3", CROWD_ERROR_INVALID_DATA, "MD3: 50000000 triangles");
    put_u32(md3 + 84, 70000000u);
    expect_reject(md3, sizeof md3, "surfaces.md3", CROWD_ERROR_INVALID_DATA,
                  "MD3: 70000000 surfaces");
}

static void check_md5(void) {
    expect_reject_text("MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n"
                       "mesh {\n numverts 3000000000\n}\n",
                       "verts.md5mesh", "'numverts 3000000000'");
    expect_reject_text("MD5Version 10\nnumJoints 1\nnumMeshes 1\nmesh {\n numverts 1\n"
                       " vert 4000000000 ( 0 0 ) 0 1\n}\n",
                       "index.md5mesh", "'vert 4000000000'");
    /* 40 joints: 240 components reserved in each of 3 frames, in 140 bytes. */
    expect_reject_text("MD5Version 10\ncommandline \"a long enough line to declare 40 joints\"\n"
                       "numFrames 3\nnumJoints 40\nframe 0 {\n}\nframe 1 {\n}\nframe 2 {\n}\n",
                       "frames.md5anim", "240 animated components in each of 3 frames");
}

static void check_smd(void) {
    static const char triangle[] = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n"
                                   "0 0 0 0 0 0 0\nend\ntriangles\nskin.bmp\n"
                                   "0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n";
    crowd_error error;
    CHECK_MSG(import_bytes(triangle, strlen(triangle), "triangle.smd", &error) == CROWD_OK,
              "triangle.smd: %s", error.reason);
    /* assimp 5.2 never leaves a nodes section without "end": also after a
     * vertex animation it stops at a time other than frame 0. */
    expect_reject_text("version 1\nnodes\n0 \"root\" -1\n", "no_end.smd",
                       "nodes section has no 'end' line");
    expect_reject_text("version 1\nvertexanimation\ntime 5\nnodes\n0 \"a\" -1\n", "after_va.smd",
                       "nodes section has no 'end' line");
    expect_reject_text("version 1\nnodes\n0 \"root\" -1\nend", "end_at_eof.smd",
                       "file ends with its nodes section's 'end'");
    expect_reject_text("version 1\nnodes\n4000000000 \"root\" -1\nend\n", "bone.smd",
                       "node index larger than the file could number");
    /* 10^9 links on a line of 3 bytes: assimp resizes first (7.8 GB resident). */
    expect_reject_text(
        "version 1\nnodes\n0 \"a\" -1\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0 1000000000 0 1\n"
        "0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\nend\n",
        "links.smd", "more bone links than its line holds");
    expect_reject_text("version 1\nnodes\n0 \"a\" -1\nend\ntriangles\n\f\nend\n", "form_feed.smd",
                       "form feed its reader never gets past");
    static const char nul[] = "version 1\nnodes\n0 \"a\" -1\nend\0\n";
    expect_reject(nul, sizeof nul - 1, "nul.smd", CROWD_ERROR_INVALID_DATA, "contains a NUL byte");
}

/* ---- real files ---- */

static void check_bad_folder(const char *folder) {
    const char *dir_path = check_assimp_model(folder);
    if (dir_path == NULL) {
        return;
    }
    char base[1024];
    snprintf(base, sizeof base, "%s", dir_path);
    DIR *dir = opendir(base);
    CHECK(dir != NULL);
    int files = 0;
    for (struct dirent *entry; dir != NULL && (entry = readdir(dir)) != NULL;) {
        size_t length = strlen(entry->d_name);
        /* A .gltf's .bin and .png are no models of their own.
         * invalid/malformed2.obj only names a missing material and holds an
         * empty face: both repairs, so it imports (sweep_table.txt). */
        if (entry->d_name[0] == '.' ||
            (length > 4 && (strcmp(entry->d_name + length - 4, ".bin") == 0 ||
                            strcmp(entry->d_name + length - 4, ".png") == 0)) ||
            strcmp(entry->d_name, "malformed2.obj") == 0) {
            continue;
        }
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", base, entry->d_name);
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        crowd_result result = crowd_import_file(path, NULL, &asset, &error);
        CHECK_MSG(result != CROWD_OK && asset == NULL && error.reason[0] != '\0' &&
                      strcmp(error.file, path) == 0,
                  "%s: %s '%s'", path, crowd_result_str(result), error.reason);
        crowd_asset_destroy(asset);
        files++;
    }
    if (dir != NULL) {
        closedir(dir);
    }
    printf("%s: %d files rejected\n", folder, files);
    CHECK(files > 0);
}

static void check_out_of_memory_off(void) {
    const char *path = check_assimp_model("invalid/OutOfMemory.off");
    if (path == NULL) {
        return;
    }
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    CHECK(crowd_import_file(path, NULL, &asset, &error) == CROWD_ERROR_INVALID_DATA &&
          asset == NULL);
    CHECK_MSG(strstr(error.reason, "OFF header declares 353535235358 vertices and 6 faces") != NULL,
              "OutOfMemory.off: %s", error.reason);
}

static size_t read_file(const char *path, uint8_t **out) {
    FILE *file = fopen(path, "rb");
    size_t size = 0;
    *out = NULL;
    if (file != NULL && fseek(file, 0, SEEK_END) == 0) {
        long end = ftell(file);
        *out = end > 0 ? malloc((size_t)end) : NULL;
        if (*out != NULL && fseek(file, 0, SEEK_SET) == 0) {
            size = fread(*out, 1, (size_t)end, file);
        }
    }
    if (file != NULL) {
        fclose(file);
    }
    return size;
}

/* Good files pass the pre-check by path and, when they have no external
 * buffers, from memory. */
static void expect_pass(const char *path, bool from_memory) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        *slash = '\0';
    }
    crowd_error error = {0};
    CHECK_MSG(crowd__import_precheck_file(path, dir, &error) == CROWD_OK, "%s: %s", path,
              error.reason);
    uint8_t *bytes = NULL;
    size_t size = from_memory ? read_file(path, &bytes) : 0;
    if (from_memory) {
        CHECK_MSG(size > 0 && crowd__import_precheck_memory(bytes, size, path, &error) == CROWD_OK,
                  "%s (memory): %s", path, error.reason);
    }
    free(bytes);
}

static void check_good_files(void) {
    static const char *const assimp_models[] = {"FBX/animation_with_skeleton.fbx",
                                                "MDL/MDL (HL1)/man.mdl",
                                                "X/BCN_Epileptic.X",
                                                "X/Testwuson.X",
                                                "OFF/Cube.off",
                                                "OFF/Wuson.off",
                                                "PLY/cube.ply",
                                                "PLY/cube_binary.ply",
                                                "PLY/Wuson.ply",
                                                "STL/Spider_binary.stl",
                                                "STL/Wuson.stl",
                                                "MD2/faerie.md2",
                                                "MD5/SimpleCube.md5mesh",
                                                "SMD/triangle.smd",
                                                "SMD/WusonSMD.smd"};
    for (size_t i = 0; i < sizeof assimp_models / sizeof assimp_models[0]; i++) {
        const char *path = check_assimp_model(assimp_models[i]);
        if (path != NULL) {
            expect_pass(path, true);
        }
    }
}

int main(void) {
    check_enter_temp_dir("import_precheck");
    check_off();
    check_ply();
    check_stl();
    check_quake();
    check_md5();
    check_smd();
    check_out_of_memory_off();
    check_bad_folder("invalid");
    check_good_files();
    return check_finish();
}
