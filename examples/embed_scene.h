/* embed_scene.h - what examples/embed.c and embed_gl33.c draw and their
 * test checks: the picture's size, the application's flat colours (8-bit
 * values, written as they are), and embed.c's rectangle of the quad it
 * draws after crowd's draw. */
#ifndef CROWD_EXAMPLE_EMBED_SCENE_H
#define CROWD_EXAMPLE_EMBED_SCENE_H

#define EMBED_WIDTH 320
#define EMBED_HEIGHT 180

static const unsigned char embed_sky[3] = {150, 190, 230};
static const unsigned char embed_ground[3] = {96, 112, 72};
static const unsigned char embed_wall[3] = {170, 70, 50};
static const unsigned char embed_quad[3] = {255, 0, 255};

/* The quad, in pixels: columns [x0, x1), rows [y0, y1) counted from the
 * top of the picture. */
#define EMBED_QUAD_X0 256
#define EMBED_QUAD_X1 304
#define EMBED_QUAD_Y0 14
#define EMBED_QUAD_Y1 46

/* examples/embed_gl33.c and game_glfw33.c draw a ground and boxes with
 * one colour per face (level_gl33.c) in these colours, the boxes standing
 * among the characters (they hide some, some hide them). embed_gl33.c's
 * picture is three frames of GL33_WIDTH x GL33_HEIGHT side by side (the
 * frame, the level alone, the crowd alone), its level a ground and a
 * cube; game_glfw33.c takes the three as three screenshots. */
#define GL33_WIDTH 320
#define GL33_HEIGHT 180
#define GL33_PANELS 3

static const unsigned char gl33_sky[3] = {150, 190, 230};
static const unsigned char gl33_ground[3] = {96, 112, 72};
/* +x, -x, +y, -y, +z, -z */
static const unsigned char gl33_faces[6][3] = {{200, 60, 40}, {60, 200, 40},  {230, 200, 40},
                                               {40, 40, 200}, {200, 40, 200}, {40, 200, 200}};

/* game_glfw33.c's window, and so its screenshots. */
#define GAME_WIDTH 640
#define GAME_HEIGHT 360

#endif
