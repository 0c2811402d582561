/* Moved to load/bake_internal.h (the runtime library). Still included under
 * this name by tests/bake/test_bake_build.c and tests/bakeio/bakeio_fixture.h;
 * remove once they include the new path. */
#include "load/bake_internal.h"
