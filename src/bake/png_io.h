/* Split into load/png_read.h (runtime) and bake/png_write.h (offline). Still
 * included under this name by tools/host/host_png.c; remove once it includes
 * the new paths. */
#include "bake/png_write.h"
#include "load/png_read.h"
