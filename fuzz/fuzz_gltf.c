/* fuzz_gltf.c - libFuzzer target for crowd's own glTF reader
 * (src/import/gltf/gltf_import.h), the way crowd_import_memory reaches it.
 *
 * The first byte picks the name (".glb" or ".gltf": a GLB container or
 * JSON text is meant), the rest is the file. Anything may fail; nothing
 * may crash, leak or be reported by the sanitizers, and what imports must
 * pass crowd_asset_validate(). Seeds: fuzz/corpus/import (the same
 * layout). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "import/gltf/gltf_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) {
        return 0;
    }
    const char *name = data[0] % 2 == 0 ? "fuzz.glb" : "fuzz.gltf";
    crowd_asset *asset = NULL;
    crowd_error error;
    bool claimed = false;
    if (crowd__gltf_import_memory(data + 1, size - 1, name, NULL, &asset, &error, &claimed) ==
            CROWD_OK &&
        asset != NULL) {
        crowd_error invalid;
        if (crowd_asset_validate(asset, &invalid) != CROWD_OK) {
            abort();
        }
        crowd_asset_destroy(asset);
    }
    return 0;
}
