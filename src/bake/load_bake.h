/* Moved to load/load_bake.h (the runtime library). Still included under this
 * name by tests/bakeio/test_bakeio.c and fuzz/fuzz_bake_load.c; remove once
 * they include the new path. */
#include "load/load_bake.h"
