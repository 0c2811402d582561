/* Split into load/exr_read.h (runtime) and bake/exr_write.h (offline). Still
 * included under this name by tests/bakeio/test_bakeio_load.c; remove once it
 * includes the new paths. */
#include "bake/exr_write.h"
#include "load/exr_read.h"
