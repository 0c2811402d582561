/* bake_test_walker.h - a hand-made character whose root walks a known
 * path and turns (root motion tests: tests/bake, tests/gpu). */
#ifndef CROWD_BAKE_TEST_WALKER_H
#define CROWD_BAKE_TEST_WALKER_H

#include <math.h>

#include "bake_test_asset.h"

#define KEYS 31
#define RATE 30.0f

/* The root's path: x, y (a bob, stays in the frames), z and heading. */
static inline void root_at(float t, float out[4]) {
    const float two_pi = 6.28318530718f;
    out[0] = 0.1f + 0.2f * t + 0.05f * sinf(two_pi * t);
    out[1] = 0.1f * sinf(2.0f * two_pi * t);
    out[2] = -0.3f + 1.5f * t;
    out[3] = 0.4f * t;
}

/* 3 joints; "walk" (looping, 1 s) moves and turns the root, tilts it about
 * X and swings joint 1; "dash" (one-shot, 0.5 s) only moves it along z. */
static inline crowd_asset *make_walker(void) {
    crowd_asset *asset = test_asset_create(3, 24);
    crowd_clip *walk = test_asset_add_clip(asset, "walk", 1.0f, true);
    float times[KEYS], translations[3 * KEYS], rotations[4 * KEYS], swings[4 * KEYS];
    for (int k = 0; k < KEYS; k++) {
        float t = (float)k / RATE, root[4];
        root_at(t, root);
        times[k] = t;
        memcpy(translations + 3 * k, root, 3 * sizeof(float));
        /* R_y(h) * R_x(tilt) */
        float tilt = 0.1f * sinf(6.28318530718f * t), h = root[3];
        float ca = cosf(h / 2), sa = sinf(h / 2), cb = cosf(tilt / 2), sb = sinf(tilt / 2);
        float q[4] = {ca * sb, sa * cb, -sa * sb, ca * cb};
        memcpy(rotations + 4 * k, q, sizeof q);
        float swing = 0.3f * sinf(6.28318530718f * t);
        float s[4] = {0.0f, 0.0f, sinf(swing / 2), cosf(swing / 2)};
        memcpy(swings + 4 * k, s, sizeof s);
    }
    test_track_set(&walk->tracks[0].translation, KEYS, 3, times, translations);
    test_track_set(&walk->tracks[0].rotation, KEYS, 4, times, rotations);
    test_track_set(&walk->tracks[1].rotation, KEYS, 4, times, swings);
    crowd_clip *dash = test_asset_add_clip(asset, "dash", 0.5f, false);
    const float dash_times[2] = {0.0f, 0.5f}, dash_values[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f};
    test_track_set(&dash->tracks[0].translation, 2, 3, dash_times, dash_values);
    return asset;
}

#endif
