/* import_errors.c - the error paths of the public import functions. (The
 * malformed files of assimp-testmodels are run through the CLI in
 * tests/cli_info, where a crash would show as a signal.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/import.h"
#include "import_tests.h"

static crowd_result import_path(const char *path, crowd_error *error) {
    crowd_asset *asset = (crowd_asset *)&asset; /* must come back NULL */
    memset(error, 0, sizeof *error);
    crowd_result result = crowd_import_file(path, NULL, &asset, error);
    CHECK(result == CROWD_OK || asset == NULL);
    crowd_asset_destroy(result == CROWD_OK ? asset : NULL);
    return result;
}

static crowd_result import_bytes(const void *bytes, size_t size, const char *name,
                                 crowd_error *error) {
    crowd_asset *asset = NULL;
    memset(error, 0, sizeof *error);
    crowd_result result = crowd_import_memory(bytes, size, name, NULL, &asset, error);
    CHECK(result == CROWD_OK || asset == NULL);
    crowd_asset_destroy(asset);
    return result;
}

static void check_files(void) {
    crowd_error error;
    CHECK(import_path("/nonexistent/robot.glb", &error) == CROWD_ERROR_IO);
    CHECK(strcmp(error.file, "/nonexistent/robot.glb") == 0 &&
          strstr(error.reason, "No such file") != NULL);
    CHECK(import_path(".", &error) == CROWD_ERROR_IO);
    CHECK(strstr(error.reason, "directory") != NULL);
    FILE *empty = fopen("empty.glb", "wb");
    CHECK(empty != NULL);
    if (empty != NULL) {
        fclose(empty);
        CHECK(import_path("empty.glb", &error) == CROWD_ERROR_INVALID_DATA);
    }
    crowd_asset *asset = NULL;
    CHECK(crowd_import_file(NULL, NULL, &asset, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_import_file("x.glb", NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_model_load(NULL, NULL, &asset, &error) == CROWD_ERROR_INVALID_ARGUMENT);

    const char *robot = check_shared_model("robot.glb");
    if (robot != NULL) {
        /* Truncated to 60% of its bytes: assimp sees a buffer shorter than declared. */
        FILE *in = fopen(robot, "rb");
        FILE *out = fopen("truncated_robot.glb", "wb");
        static unsigned char bytes[1 << 21];
        size_t size = in ? fread(bytes, 1, sizeof bytes, in) : 0;
        if (out != NULL) {
            fwrite(bytes, 1, size * 6 / 10, out);
            fclose(out);
        }
        if (in != NULL) {
            fclose(in);
        }
        CHECK(import_path("truncated_robot.glb", &error) == CROWD_ERROR_INVALID_DATA);
        CHECK(strcmp(error.file, "truncated_robot.glb") == 0 && error.reason[0] != '\0');
        CHECK(import_bytes(bytes, size / 2, "half.glb", &error) == CROWD_ERROR_INVALID_DATA);
        CHECK(import_bytes(bytes, size, "whole.glb", &error) == CROWD_OK);
    }
}

static void check_memory(void) {
    crowd_error error;
    CHECK(import_bytes("", 0, "empty.glb", &error) == CROWD_ERROR_INVALID_DATA);
    CHECK(strcmp(error.file, "empty.glb") == 0);
    static const char garbage[] = "this is not a model at all";
    crowd_result result = import_bytes(garbage, sizeof garbage, "garbage.zzz", &error);
    CHECK(result == CROWD_ERROR_UNSUPPORTED || result == CROWD_ERROR_INVALID_DATA);
    /* A GLB header claiming 4 GiB: assimp's GLB reader does not take it. */
    result = import_bytes("glTF\x02\0\0\0\xff\xff\xff\xff", 12, "bad.glb", &error);
    CHECK(result == CROWD_ERROR_UNSUPPORTED || result == CROWD_ERROR_INVALID_DATA);
    /* A scene with no mesh: nothing to play. */
    static const char no_mesh[] =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"name\":\"lonely\"}]}";
    result = import_bytes(no_mesh, strlen(no_mesh), "no_mesh.gltf", &error);
    CHECK(result == CROWD_ERROR_UNSUPPORTED || result == CROWD_ERROR_INVALID_DATA);
    crowd_asset *asset = NULL;
    CHECK(crowd_import_memory(NULL, 4, "x.glb", NULL, &asset, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
}

static void check_sockets_desc(void) {
    const char *path = check_shared_model("greenman.glb");
    if (path == NULL) {
        return;
    }
    const char *extra[] = {"hand_L"};
    crowd_import_desc desc = {0};
    desc.socket_nodes = extra;
    desc.socket_node_count = 1;
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    CHECK(crowd_import_file(path, &desc, &asset, &error) == CROWD_OK);
    CHECK(asset && asset->socket_count == 4 && crowd_asset_find_socket(asset, "hand_L") >= 0);
    crowd_asset_destroy(asset);
    asset = NULL;
    const char *missing[] = {"no_such_node"};
    desc.socket_nodes = missing;
    CHECK(crowd_import_file(path, &desc, &asset, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(asset == NULL && strstr(error.reason, "no_such_node") != NULL);
}

static void check_model_load(void) {
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    CHECK(crowd_model_load("builtin:", NULL, &asset, &error) == CROWD_OK);
    crowd_error invalid;
    CHECK(asset && crowd_asset_validate(asset, &invalid) == CROWD_OK);
    crowd_asset_destroy(asset);
    asset = NULL;
    CHECK(crowd_model_load("/nonexistent.glb", NULL, &asset, &error) == CROWD_ERROR_IO &&
          asset == NULL);
}

int test_import_errors(void) {
    check_files();
    check_memory();
    check_sockets_desc();
    check_model_load();
    return CHECK_REPORT("errors");
}
