/* fuzz_import.c - libFuzzer target for crowd_import_memory.
 *
 * The first byte picks the format hint (assimp guesses the reader from it
 * and from the bytes), the rest is the file. Anything may fail; nothing may
 * crash, leak or be reported by the sanitizers, and whatever imports must
 * pass crowd_asset_validate(). assimp runs in this process (desc.in_process),
 * so the sanitizers and the fuzzer see into it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "crowd/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const names[] = {"fuzz.glb", "fuzz.gltf", "fuzz.fbx", "fuzz.x",
                                        "fuzz.dae", "fuzz.obj",  "fuzz.mdl", "fuzz.smd"};
    if (size < 1) {
        return 0;
    }
    const char *name = names[data[0] % (sizeof names / sizeof names[0])];
    crowd_asset *asset = NULL;
    crowd_error error;
    const crowd_import_desc desc = {.in_process = true};
    if (crowd_import_memory(data + 1, size - 1, name, &desc, &asset, &error) == CROWD_OK) {
        crowd_error invalid;
        if (crowd_asset_validate(asset, &invalid) != CROWD_OK) {
            abort();
        }
        crowd_asset_destroy(asset);
    }
    return 0;
}
