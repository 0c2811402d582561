/* embed_app.h - what the embedding examples' applications own and crowd
 * never does: a headless OpenGL context made with plain EGL, a framebuffer
 * object to draw in, and the picture read back (the camera and the PNG
 * writer are app_common.h's). embed.c asks for OpenGL 4.5 core,
 * embed_gl33.c for 3.3 core; both are engines' code, not crowd's (crowd
 * draws into whatever context is current, crowd/gpu.h).
 */
#ifndef CROWD_EXAMPLE_EMBED_APP_H
#define CROWD_EXAMPLE_EMBED_APP_H

#include <stdbool.h>

/* epoxy first: it declares the Khronos types EGL's headers would too. */
#include <epoxy/gl.h>
#include <EGL/egl.h>

typedef struct embed_app {
    EGLDisplay display;
    EGLContext context;
    GLuint framebuffer, color, depth;
    int width, height;
} embed_app;

/* A desktop OpenGL core-profile context of at least major.minor, current
 * without a surface on the first EGL device that gives one (a GPU, or
 * Mesa's software rasterizer), else on the default display; then an
 * RGBA8 + 24-bit depth framebuffer object of width x height, made with
 * GL 3.3 calls. false when any step fails (embed_app_destroy still applies). */
bool embed_app_create(embed_app *app, int major, int minor, int width, int height);
void embed_app_destroy(embed_app *app);

/* Binds the framebuffer and a full viewport, clears colour (8-bit sRGB
 * values, written as they are) and depth. */
void embed_app_begin(const embed_app *app, const unsigned char sky[3]);

/* The framebuffer's RGBA8 pixels, rows bottom first as GL stores them,
 * width * height * 4 bytes; false on a GL error. */
bool embed_app_read(const embed_app *app, unsigned char *rgba);

#endif
