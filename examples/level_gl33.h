/* level_gl33.h - the GL 3.3 examples' own level: a ground and boxes with
 * one colour per face (embed_scene.h's gl33_ colours), drawn with the
 * application's program, vertex array, element buffer and a texture on
 * unit 4 read through a sampler object, all made with GL 3.3 calls.
 * embed_gl33.c (EGL, offscreen) and game_glfw33.c (a GLFW window) draw it
 * around crowd's draw; crowd's portable tier binds its own textures to
 * units 0-5, so a level that still looks right after crowd's draw shows
 * that crowd put the application's state back.
 */
#ifndef CROWD_EXAMPLE_LEVEL_GL33_H
#define CROWD_EXAMPLE_LEVEL_GL33_H

#include <stdbool.h>

#include <epoxy/gl.h>

#define LEVEL_MAX_BOXES 8

/* An axis-aligned box standing on the ground or floating: its centre and
 * half its side, metres. */
typedef struct level_box {
    float centre[3];
    float half;
} level_box;

typedef struct level {
    GLuint program, vertex_array, vertices, indices, white, sampler;
    GLint view_proj;
    int box_count;
} level;

/* The ground (y = 0, x in [-12, 12], z in [-30, 4]) and box_count boxes
 * (at most LEVEL_MAX_BOXES); false when a GL step fails or box_count is
 * out of range (level_destroy still applies). */
bool level_create(level *lv, const level_box *boxes, int box_count);
void level_destroy(level *lv);

/* Sets the level's state (depth test with GL_LESS, back-face culling, its
 * program, vertex array, and unit 4's texture and sampler, unit 4 left
 * active) and draws the ground. */
void level_draw_ground(const level *lv, const float view_proj[16]);

/* Draws the boxes with the state level_draw_ground set, binding nothing:
 * after crowd's draw it draws right only if crowd put that state back. */
void level_draw_boxes(const level *lv);

/* Turns culling off again (what the application's other draws expect). */
void level_end(void);

#endif
