/* test_gpu.h - helpers shared by the gpu test groups. check.h's counters are
 * per file, so each group ends with check_finish() and returns its result. */
#ifndef CROWD_TEST_GPU_H
#define CROWD_TEST_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/bake.h"
#include "crowd/gpu.h"

#define GPU_TEST_WIDTH 160u
#define GPU_TEST_HEIGHT 120u

extern crowd_gpu_context *gpu_test_context;

/* A 160x120 renderer, or NULL (printed). */
crowd_renderer *gpu_test_renderer(const crowd_asset *asset, const crowd_bake *bake,
                                  crowd_gpu_mode mode);
/* Draws at time_s and reads back: malloc'ed RGBA8 or NULL (printed). */
uint8_t *gpu_test_render(crowd_renderer *r, double time_s, const crowd_camera *camera);
/* The reference image: `asset` posed by skin_matrices, drawn rigidly. */
uint8_t *gpu_test_reference(const crowd_asset *asset, const float *skin_matrices,
                            const crowd_camera *camera);
/* Prints the comparison; true when at most max_fraction of all pixels
 * differ (and the images show something). */
bool gpu_test_close(const char *what, const uint8_t *a, const uint8_t *b, double max_fraction);
/* True when at least min_fraction of the foreground pixels differ. */
bool gpu_test_different(const char *what, const uint8_t *a, const uint8_t *b, double min_fraction);

/* Groups: each returns 0 when all its checks passed. */
int test_gpu_bar(void);
int test_gpu_api(void);
int test_gpu_models(void);
int test_gpu_cli(void);

#endif
