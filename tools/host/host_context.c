/* OpenGL 4.5 core, 3.3 core and ES 3.0 contexts: headless through EGL
 * (device platform, Mesa's surfaceless platform, default display, in that
 * order) or a GLFW window. Each failed attempt is remembered so the final
 * error says what was tried. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include "host.h"

typedef struct GLFWwindow GLFWwindow;

struct host_context {
    crowd_logger logger;
    bool compatibility_profile; /* asked for instead of core */
    host_context_api api;
    EGLDisplay display;
    EGLContext egl_context;
    GLFWwindow *window;
    char platform[32];
    char vendor[128];
    char renderer[256];
    char version[128];
    bool software;
    GLint max_renderbuffer_size;
    /* Window input accumulated by GLFW callbacks between polls. */
    double scroll_y;
    uint32_t chars[32];
    uint32_t char_count;
    double last_cursor_x, last_cursor_y;
    bool have_cursor;
};

/* epoxy supplies the GL declarations; GLFW must not pull in GL/gl.h. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

/* Appends "; what: why" to the attempts log. */
static void note_attempt(char *log, size_t size, const char *what, const char *why) {
    size_t used = strlen(log);
    if (used + 1 < size) {
        snprintf(log + used, size - used, "%s%s: %s", used > 0 ? "; " : "", what, why);
    }
}

static const char *egl_error_name(EGLint code) {
    switch (code) {
    case EGL_NOT_INITIALIZED:
        return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
        return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
        return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
        return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
        return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
        return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY:
        return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
        return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER:
        return "EGL_BAD_PARAMETER";
    default:
        return "EGL error";
    }
}

/* libglvnd lets a thread have one current context across EGL and GLX:
 * making one current while the other API's is fails (BadAccess). */
static void release_egl_current(void) {
    if (eglGetCurrentContext() != EGL_NO_CONTEXT) {
        eglMakeCurrent(eglGetCurrentDisplay(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    }
}

static void release_glfw_current(void) {
    if (glfwGetCurrentContext() != NULL) {
        glfwMakeContextCurrent(NULL);
    }
}

/* Tries one EGL display: initialize, bind the GL API, create a 4.5 core
 * context and make it current without a surface. A display that fails is
 * left initialized: it may be shared with other users in this process. */
static bool try_egl_display(host_context *ctx, EGLDisplay display, const char *what, char *log,
                            size_t log_size) {
    char why[160];
    if (display == EGL_NO_DISPLAY) {
        note_attempt(log, log_size, what, "no display");
        return false;
    }
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display, &major, &minor)) {
        snprintf(why, sizeof why, "eglInitialize failed (%s)", egl_error_name(eglGetError()));
        note_attempt(log, log_size, what, why);
        return false;
    }
    bool es = ctx->api == HOST_CONTEXT_GLES3;
    if (!eglBindAPI(es ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) {
        note_attempt(log, log_size, what,
                     es ? "OpenGL ES not offered (eglBindAPI)"
                        : "desktop OpenGL not offered (eglBindAPI)");
        return false;
    }
    /* A config is only needed where EGL_KHR_no_config_context is missing. */
    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!epoxy_has_egl_extension(display, "EGL_KHR_no_config_context")) {
        const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE,
                                         es ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_NONE};
        EGLint count = 0;
        if (!eglChooseConfig(display, config_attribs, &config, 1, &count) || count < 1) {
            note_attempt(log, log_size, what, "no OpenGL-renderable config");
            return false;
        }
    }
    const EGLint gl_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                 ctx->api == HOST_CONTEXT_GL33 ? 3 : 4,
                                 EGL_CONTEXT_MINOR_VERSION,
                                 ctx->api == HOST_CONTEXT_GL33 ? 3 : 5,
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                 ctx->compatibility_profile
                                     ? EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT
                                     : EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                 EGL_NONE};
    const EGLint es_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0,
                                 EGL_NONE};
    EGLContext context =
        eglCreateContext(display, config, EGL_NO_CONTEXT, es ? es_attribs : gl_attribs);
    if (context == EGL_NO_CONTEXT) {
        snprintf(why, sizeof why, "no %s context (%s)", host_context_api_name(ctx->api),
                 egl_error_name(eglGetError()));
        note_attempt(log, log_size, what, why);
        return false;
    }
    release_glfw_current();
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        snprintf(why, sizeof why, "cannot make current without a surface (%s)",
                 egl_error_name(eglGetError()));
        note_attempt(log, log_size, what, why);
        eglDestroyContext(display, context);
        return false;
    }
    ctx->display = display;
    ctx->egl_context = context;
    snprintf(ctx->platform, sizeof ctx->platform, "%s", what);
    return true;
}

/* EGL devices, hardware ones first (Mesa also lists a software device). */
static bool try_egl_devices(host_context *ctx, char *log, size_t log_size) {
    const char *what = "EGL device";
    if (!epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_platform_device") ||
        !epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_device_enumeration")) {
        note_attempt(log, log_size, what, "EGL_EXT_platform_device not offered");
        return false;
    }
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    if (!eglQueryDevicesEXT(16, devices, &count) || count < 1) {
        note_attempt(log, log_size, what, "no devices");
        return false;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (EGLint i = 0; i < count; i++) {
            const char *extensions = eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
            bool software =
                extensions != NULL && strstr(extensions, "EGL_MESA_device_software") != NULL;
            if (software != (pass == 1)) {
                continue;
            }
            EGLDisplay display =
                eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
            char name[48];
            snprintf(name, sizeof name, "EGL device %d%s", (int)i, software ? " (software)" : "");
            if (try_egl_display(ctx, display, name, log, log_size)) {
                snprintf(ctx->platform, sizeof ctx->platform, "%s", what);
                return true;
            }
        }
    }
    return false;
}

static bool try_egl(host_context *ctx, char *log, size_t log_size) {
    if (try_egl_devices(ctx, log, log_size)) {
        return true;
    }
    if (epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay display =
            eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (try_egl_display(ctx, display, "EGL surfaceless", log, log_size)) {
            return true;
        }
    } else {
        note_attempt(log, log_size, "EGL surfaceless", "EGL_MESA_platform_surfaceless not offered");
    }
    return try_egl_display(ctx, eglGetDisplay(EGL_DEFAULT_DISPLAY), "EGL default display", log,
                           log_size);
}

static void on_scroll(GLFWwindow *window, double dx, double dy) {
    (void)dx;
    host_context *ctx = glfwGetWindowUserPointer(window);
    ctx->scroll_y += dy;
}

static void on_char(GLFWwindow *window, unsigned int codepoint) {
    host_context *ctx = glfwGetWindowUserPointer(window);
    if (ctx->char_count < sizeof ctx->chars / sizeof ctx->chars[0]) {
        ctx->chars[ctx->char_count++] = codepoint;
    }
}

static bool try_glfw(host_context *ctx, const host_context_desc *desc, char *log, size_t log_size) {
    const char *what = "GLFW window";
    const char *message = NULL;
    if (!glfwInit()) {
        glfwGetError(&message);
        note_attempt(log, log_size, what, message != NULL ? message : "glfwInit failed");
        return false;
    }
    if (desc->api == HOST_CONTEXT_GLES3) {
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
        glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    } else {
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, desc->api == HOST_CONTEXT_GL33 ? 3 : 4);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, desc->api == HOST_CONTEXT_GL33 ? 3 : 5);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    }
    int width = desc->width != 0 ? (int)desc->width : 1280;
    int height = desc->height != 0 ? (int)desc->height : 720;
    /* GLFW makes the new context current while creating the window. */
    EGLDisplay egl_display = eglGetCurrentDisplay();
    EGLContext egl_context = eglGetCurrentContext();
    release_egl_current();
    GLFWwindow *window =
        glfwCreateWindow(width, height, desc->title != NULL ? desc->title : "crowd", NULL, NULL);
    if (window == NULL) {
        glfwGetError(&message);
        note_attempt(log, log_size, what,
                     message != NULL ? message : "no window with an OpenGL 4.5 core context");
        glfwTerminate();
        if (egl_context != EGL_NO_CONTEXT) {
            eglMakeCurrent(egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_context);
        }
        return false;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(desc->vsync ? 1 : 0);
    glfwSetWindowUserPointer(window, ctx);
    glfwSetScrollCallback(window, on_scroll);
    glfwSetCharCallback(window, on_char);
    ctx->window = window;
    snprintf(ctx->platform, sizeof ctx->platform, "GLFW");
    return true;
}

const char *host_context_api_name(host_context_api api) {
    switch (api) {
    case HOST_CONTEXT_GL45:
        return "OpenGL 4.5 core";
    case HOST_CONTEXT_GL33:
        return "OpenGL 3.3 core";
    case HOST_CONTEXT_GLES3:
        return "OpenGL ES 3.0";
    }
    return "?";
}

/* Mesa's override for exactly the version asked (see host.h), unless the
 * caller set one. */
static void ask_mesa_for(host_context_api api) {
    if (api == HOST_CONTEXT_GL33) {
        setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 0);
    } else if (api == HOST_CONTEXT_GLES3) {
        setenv("MESA_GLES_VERSION_OVERRIDE", "3.0", 0);
    }
}

static void copy_gl_string(char *out, size_t size, GLenum name) {
    const GLubyte *text = glGetString(name);
    snprintf(out, size, "%s", text != NULL ? (const char *)text : "?");
}

crowd_result host_context_create(const host_context_desc *desc, host_context **out_context,
                                 crowd_error *error) {
    const host_context_desc defaults = {0};
    if (desc == NULL) {
        desc = &defaults;
    }
    if (out_context == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "out_context is NULL");
    }
    *out_context = NULL;
    host_context *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    ctx->logger = desc->logger;
    ctx->compatibility_profile = desc->compatibility_profile;
    ctx->api = desc->api;
    ctx->display = EGL_NO_DISPLAY;
    ctx->egl_context = EGL_NO_CONTEXT;
    if ((unsigned)desc->api > HOST_CONTEXT_GLES3) {
        free(ctx);
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "unknown context kind %d",
                               (int)desc->api);
    }
    ask_mesa_for(desc->api);
    char log[900] = "";
    bool made = desc->window ? try_glfw(ctx, desc, log, sizeof log) : try_egl(ctx, log, sizeof log);
    if (!made) {
        free(ctx);
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL, "no %s context: %s",
                               host_context_api_name(desc->api), log);
    }
    int version = epoxy_gl_version();
    bool desktop = epoxy_is_desktop_gl();
    int wanted = desc->api == HOST_CONTEXT_GL45 ? 45 : (desc->api == HOST_CONTEXT_GL33 ? 33 : 30);
    if (version < wanted || desktop != (desc->api != HOST_CONTEXT_GLES3)) {
        host_context_destroy(ctx);
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL,
                               "asked for %s, the context made is %s %d.%d",
                               host_context_api_name(desc->api), desktop ? "OpenGL" : "OpenGL ES",
                               version / 10, version % 10);
    }
    copy_gl_string(ctx->vendor, sizeof ctx->vendor, GL_VENDOR);
    copy_gl_string(ctx->renderer, sizeof ctx->renderer, GL_RENDERER);
    copy_gl_string(ctx->version, sizeof ctx->version, GL_VERSION);
    ctx->software = strstr(ctx->renderer, "llvmpipe") != NULL ||
                    strstr(ctx->renderer, "softpipe") != NULL ||
                    strstr(ctx->renderer, "swrast") != NULL;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &ctx->max_renderbuffer_size);
    crowd_log(&ctx->logger, CROWD_LOG_DEBUG, "OpenGL context: %s, %s, %s", ctx->platform,
              ctx->renderer, ctx->version);
    if (log[0] != '\0') {
        crowd_log(&ctx->logger, CROWD_LOG_DEBUG, "context attempts before: %s", log);
    }
    *out_context = ctx;
    return CROWD_OK;
}

void host_context_destroy(host_context *context) {
    if (context == NULL) {
        return;
    }
    if (context->window != NULL) {
        glfwDestroyWindow(context->window);
        glfwTerminate();
    }
    if (context->display != EGL_NO_DISPLAY) {
        /* The display stays initialized: EGL hands every caller of the same
         * platform display one shared handle, and terminating it would pull
         * it from under other contexts of this process (it also unloads the
         * driver, which then cannot account for what it allocated). */
        eglMakeCurrent(context->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(context->display, context->egl_context);
        eglReleaseThread();
    }
    free(context);
}

void host_context_get_info(const host_context *context, host_context_info *out) {
    out->platform = context->platform;
    out->vendor = context->vendor;
    out->renderer = context->renderer;
    out->version = context->version;
    out->software = context->software;
    out->api = context->api;
    out->max_renderbuffer_size = context->max_renderbuffer_size;
}

crowd_result host_context_make_current(host_context *context, crowd_error *error) {
    if (context == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "context is NULL");
    }
    if (context->window != NULL) {
        release_egl_current();
        glfwMakeContextCurrent(context->window);
        return CROWD_OK;
    }
    release_glfw_current();
    if (!eglMakeCurrent(context->display, EGL_NO_SURFACE, EGL_NO_SURFACE, context->egl_context)) {
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL, "eglMakeCurrent failed (%s)",
                               egl_error_name(eglGetError()));
    }
    return CROWD_OK;
}

bool host_window_poll(host_context *context, host_window_input *out) {
    memset(out, 0, sizeof *out);
    if (context == NULL || context->window == NULL) {
        return false;
    }
    GLFWwindow *w = context->window;
    glfwPollEvents();
    out->close_requested = glfwWindowShouldClose(w) || glfwGetKey(w, GLFW_KEY_ESCAPE) == GLFW_PRESS;
    glfwGetCursorPos(w, &out->cursor_x, &out->cursor_y);
    if (context->have_cursor) {
        out->cursor_dx = out->cursor_x - context->last_cursor_x;
        out->cursor_dy = out->cursor_y - context->last_cursor_y;
    }
    context->last_cursor_x = out->cursor_x;
    context->last_cursor_y = out->cursor_y;
    context->have_cursor = true;
    out->mouse_left = glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
    out->mouse_right = glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS;
    out->scroll_y = context->scroll_y;
    context->scroll_y = 0.0;
    out->key_up =
        glfwGetKey(w, GLFW_KEY_UP) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_W) == GLFW_PRESS;
    out->key_down =
        glfwGetKey(w, GLFW_KEY_DOWN) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_S) == GLFW_PRESS;
    out->key_left =
        glfwGetKey(w, GLFW_KEY_LEFT) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_A) == GLFW_PRESS;
    out->key_right =
        glfwGetKey(w, GLFW_KEY_RIGHT) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_D) == GLFW_PRESS;
    out->key_shift = glfwGetKey(w, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
                     glfwGetKey(w, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
    memcpy(out->chars, context->chars, context->char_count * sizeof context->chars[0]);
    out->char_count = context->char_count;
    context->char_count = 0;
    return true;
}

void host_window_swap(host_context *context) {
    if (context != NULL && context->window != NULL) {
        glfwSwapBuffers(context->window);
    }
}

void host_window_size(const host_context *context, uint32_t *width, uint32_t *height) {
    int w = 0, h = 0;
    if (context != NULL && context->window != NULL) {
        glfwGetFramebufferSize(context->window, &w, &h);
    }
    *width = (uint32_t)(w > 0 ? w : 0);
    *height = (uint32_t)(h > 0 ? h : 0);
}

void host_window_set_title(host_context *context, const char *title) {
    if (context != NULL && context->window != NULL && title != NULL) {
        glfwSetWindowTitle(context->window, title);
    }
}
