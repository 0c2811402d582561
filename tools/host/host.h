/* host.h - what an application around crowd provides, for crowd's own
 * programs (the CLI, tests, examples): an OpenGL 4.5 core context (headless
 * through EGL, or a GLFW window with its input), an offscreen colour + depth
 * target with readback, and PNG output. Not part of the installed library:
 * an engine brings its own context and framebuffer, and crowd's world
 * (crowd/gpu.h) draws into whatever is current and bound.
 *
 * Headless contexts try the EGL device platform (hardware devices first),
 * then Mesa's surfaceless platform, then the default display; a failure
 * names every attempt and how it failed.
 * Threading: a host context and its targets belong to the thread on which
 * the context is current.
 */
#ifndef CROWD_HOST_H
#define CROWD_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/result.h"

typedef struct host_context host_context;

/* Which context to make: crowd's GL 4.5 tier's, or one of the portable
 * tier's. Mesa answers a request for any core version with its highest
 * (4.5) and for GLES 3.0 with 3.2, so for HOST_CONTEXT_GL33 and
 * HOST_CONTEXT_GLES3 the host asks Mesa for exactly that version
 * (MESA_GL_VERSION_OVERRIDE / MESA_GLES_VERSION_OVERRIDE, unless already
 * set; Mesa reads them once per process, at its first context of the
 * API); other drivers give what they give, at least the version asked. */
typedef enum host_context_api {
    HOST_CONTEXT_GL45 = 0, /* OpenGL 4.5 core */
    HOST_CONTEXT_GL33,     /* OpenGL 3.3 core */
    HOST_CONTEXT_GLES3,    /* OpenGL ES 3.0 */
} host_context_api;

/* "gl45", "gl33", "gles3". */
const char *host_context_api_name(host_context_api api);

typedef struct host_context_desc {
    bool window;            /* false: headless EGL; true: a GLFW window */
    uint32_t width, height; /* window size; 0 = 1280 x 720 */
    const char *title;      /* window title; NULL = "crowd" */
    bool vsync;             /* window: swap on vertical blank */
    /* Headless only: a 4.5 compatibility-profile context instead of core,
     * for testing that crowd refuses one. */
    bool compatibility_profile;
    host_context_api api;
    crowd_logger logger;
} host_context_desc;

/* Makes the context desc->api names (4.5 core, or compatibility as desc
 * says; 3.3 core; ES 3.0) and makes it current on this thread. desc may be
 * NULL (headless 4.5 core). CROWD_ERROR_GPU with every attempt named, or
 * when the context made is below the version asked. */
crowd_result host_context_create(const host_context_desc *desc, host_context **out_context,
                                 crowd_error *error);
void host_context_destroy(host_context *context);

typedef struct host_context_info {
    const char *platform; /* "EGL device", "EGL surfaceless", "EGL default display", "GLFW" */
    const char *vendor;   /* GL_VENDOR */
    const char *renderer; /* GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" */
    const char *version;  /* GL_VERSION */
    host_context_api api; /* what was asked for */
    bool software;        /* a CPU rasterizer (llvmpipe, softpipe, swrast) */
    int max_renderbuffer_size;
} host_context_info;

/* Strings owned by the context, valid until it is destroyed. */
void host_context_get_info(const host_context *context, host_context_info *out);

/* Makes the context current on the calling thread again. */
crowd_result host_context_make_current(host_context *context, crowd_error *error);

/* Window input gathered by host_window_poll since the previous poll. */
typedef struct host_window_input {
    bool close_requested;      /* window closed or Escape pressed */
    double cursor_x, cursor_y; /* pixels from the top left */
    double cursor_dx, cursor_dy;
    bool mouse_left, mouse_right;               /* held */
    double scroll_y;                            /* wheel steps */
    bool key_up, key_down, key_left, key_right; /* arrows or W S A D, held */
    bool key_shift;                             /* held */
    uint32_t chars[32];                         /* Unicode code points typed, in order */
    uint32_t char_count;
} host_window_input;

/* Window contexts only (no-ops returning false / zeros otherwise). */
bool host_window_poll(host_context *context, host_window_input *out);
void host_window_swap(host_context *context);
void host_window_size(const host_context *context, uint32_t *width, uint32_t *height);
void host_window_set_title(host_context *context, const char *title);

/* ---- offscreen target --------------------------------------------------- */

/* An RGBA8 colour + 32-bit float depth framebuffer object. */
typedef struct host_target {
    uint32_t framebuffer, color, depth; /* GL names */
    uint32_t width, height;
} host_target;

/* Makes (or remakes at a new size) the target; CROWD_ERROR_INVALID_ARGUMENT
 * for a zero side, CROWD_ERROR_LIMIT beyond GL_MAX_RENDERBUFFER_SIZE. */
crowd_result host_target_resize(host_target *target, uint32_t width, uint32_t height,
                                crowd_error *error);
void host_target_release(host_target *target);
/* Binds it as the draw framebuffer with a full viewport, and clears colour
 * (linear RGB, written sRGB-encoded) and depth (to 1). */
void host_target_begin(const host_target *target, const float clear_rgb[3]);
/* RGBA8 pixels, rows top first: size_bytes >= width * height * 4. Waits for
 * the GPU (a readback). */
crowd_result host_target_read_rgba(const host_target *target, uint8_t *rgba, size_t size_bytes,
                                   crowd_error *error);
/* Depth values (0..1, rows top first), width * height floats. */
crowd_result host_target_read_depth(const host_target *target, float *depth, size_t count,
                                    crowd_error *error);
/* Scales the target onto the window's framebuffer (then host_window_swap). */
void host_target_present(const host_target *target, host_context *context);

/* Writes RGBA8 pixels (rows top first) as an 8-bit RGBA PNG, atomically (a
 * temporary file in the same folder renamed into place). CROWD_ERROR_OUTPUT
 * on failure, leaving no file behind. */
crowd_result host_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba,
                            crowd_error *error);

#endif
