/* embed_app.c - the EGL examples' context and framebuffer (embed_app.h). */
#include "embed_app.h"

#include <EGL/eglext.h>

/* A core context of major.minor on `display`, current without a surface.
 * Displays without configs (Mesa's device platform) take a context without
 * one (EGL_KHR_no_config_context). A display is never terminated: EGL has
 * one per device and process, shared with any other user of that device in
 * the process, and terminating it would pull it from under them. */
static bool context_on(embed_app *app, EGLDisplay display, int major, int minor) {
    const EGLint config_wanted[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    const EGLint version[] = {EGL_CONTEXT_MAJOR_VERSION,
                              major,
                              EGL_CONTEXT_MINOR_VERSION,
                              minor,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK,
                              EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                              EGL_NONE};
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, NULL, NULL)) {
        return false;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        return false;
    }
    EGLConfig config;
    EGLint configs = 0;
    if (!eglChooseConfig(display, config_wanted, &config, 1, &configs) || configs != 1) {
        config = EGL_NO_CONFIG_KHR;
    }
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, version);
    if (context != EGL_NO_CONTEXT &&
        !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        eglDestroyContext(display, context);
        context = EGL_NO_CONTEXT;
    }
    if (context == EGL_NO_CONTEXT) {
        return false;
    }
    app->display = display;
    app->context = context;
    return true;
}

bool embed_app_create(embed_app *app, int major, int minor, int width, int height) {
    *app = (embed_app){EGL_NO_DISPLAY, EGL_NO_CONTEXT, 0, 0, 0, width, height};
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDeviceEXT devices[8];
    EGLint count = 0;
    if (query_devices == NULL || platform_display == NULL || !query_devices(8, devices, &count)) {
        count = 0;
    }
    bool made = false;
    for (EGLint i = 0; i < count && !made; i++) {
        made = context_on(app, platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL), major,
                          minor);
    }
    if (!made && !context_on(app, eglGetDisplay(EGL_DEFAULT_DISPLAY), major, minor)) {
        return false;
    }
    glGenRenderbuffers(1, &app->color);
    glBindRenderbuffer(GL_RENDERBUFFER, app->color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glGenRenderbuffers(1, &app->depth);
    glBindRenderbuffer(GL_RENDERBUFFER, app->depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glGenFramebuffers(1, &app->framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, app->framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, app->color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, app->depth);
    bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return complete;
}

void embed_app_destroy(embed_app *app) {
    if (app->context != EGL_NO_CONTEXT) {
        glDeleteFramebuffers(1, &app->framebuffer);
        glDeleteRenderbuffers(1, &app->color);
        glDeleteRenderbuffers(1, &app->depth);
        eglMakeCurrent(app->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(app->display, app->context);
        app->context = EGL_NO_CONTEXT;
    }
}

void embed_app_begin(const embed_app *app, const unsigned char sky[3]) {
    glBindFramebuffer(GL_FRAMEBUFFER, app->framebuffer);
    glViewport(0, 0, app->width, app->height);
    glClearColor(sky[0] / 255.0f, sky[1] / 255.0f, sky[2] / 255.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

bool embed_app_read(const embed_app *app, unsigned char *rgba) {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, app->framebuffer);
    glReadPixels(0, 0, app->width, app->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    return glGetError() == GL_NO_ERROR;
}
