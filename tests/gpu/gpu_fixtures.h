/* gpu_fixtures.h - what the gpu tests share: a hand-built two-joint
 * character whose poses are known by construction, a "posed copy" of any
 * asset (its mesh skinned on the CPU by the reference functions, as a rigid
 * asset) to render the reference images with, and image comparison.
 */
#ifndef CROWD_TEST_GPU_FIXTURES_H
#define CROWD_TEST_GPU_FIXTURES_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/asset.h"
#include "crowd/gpu.h"

/* A 0.5 x 2 x 0.5 m box standing on y = 0, made of a lower and an upper
 * half. Joint 0 ("root") at the origin, joint 1 ("top") at y = 1, child of
 * root. Lower half: joint 0, material 0 (red); upper half: joint 1,
 * material 1 (white factor x a 2x2 blue/yellow checker texture); the ring
 * at y = 1 is weighted half and half. Clips:
 *   "bend"  loop, 1 s: top rotates about +Z linearly 0 -> 90 -> 0 degrees
 *           (keys at 0, 0.5, 1 s);
 *   "slide" loop, 2 s: root translates x 0 -> 0.6 -> 0 m (keys 0, 1, 2 s);
 *   "drop"  one-shot, 0.5 s: top rotates about +X 0 -> 60 degrees. */
crowd_asset *fixture_bar_create(void);

/* A rigid copy of `asset` (one identity joint, no clips) whose bind pose is
 * `asset` skinned with `skin_matrices` by crowd_skin_reference. Materials
 * are copied. NULL when out of memory. */
crowd_asset *fixture_posed_copy(const crowd_asset *asset, const float *skin_matrices);

/* Skinning matrices of `asset` (12 * joints floats into out) with clip
 * `clip` sampled at clip time t_s, optionally blended with clip `clip_b` at
 * t_b_s with weight w_b of the second (clip_b < 0: no blend). */
void fixture_pose(const crowd_asset *asset, int clip, float t_s, int clip_b, float t_b_s, float w_b,
                  float *out);

typedef struct image_diff {
    uint32_t differing;  /* pixels whose largest channel difference exceeds the threshold */
    uint32_t foreground; /* pixels differing from the background colour in either image */
    int max_channel;     /* largest channel difference of any pixel */
    double mean_abs;     /* mean absolute channel difference over all pixels */
} image_diff;

image_diff image_compare(const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t height,
                         int threshold);

/* Writes a PNG into the test's working folder (for looking at). */
void image_save(const char *name, const uint8_t *rgba, uint32_t width, uint32_t height);

#endif
