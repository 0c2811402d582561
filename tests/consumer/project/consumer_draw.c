/* consumer_draw.c - the consumer's frame: its own OpenGL 4.5 context and
 * framebuffer, a crowd world drawing the loaded bake into them in each of
 * the five modes (cpu and gpu from the bake's runtime clips), and a
 * readback to see that characters were drawn in every one. The context comes from EGL
 * through libepoxy, which crowd's runtime already links and which loads
 * libEGL when it is first called: the consumer's link line stays
 * crowd_runtime's alone. */
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>

#include "consumer_draw.h"
#include "crowd/gpu.h"

#define WIDTH 160
#define HEIGHT 120

/* A surfaceless 4.5 core context on Mesa's surfaceless platform or the
 * default display; false when neither gives one. */
static bool make_context(void) {
    EGLDisplay display = EGL_NO_DISPLAY;
    if (epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless")) {
        display =
            eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    }
    if (display == EGL_NO_DISPLAY) {
        display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    }
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, NULL, NULL) ||
        !eglBindAPI(EGL_OPENGL_API)) {
        return false;
    }
    const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                 4,
                                 EGL_CONTEXT_MINOR_VERSION,
                                 5,
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                 EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                 EGL_NONE};
    EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
    return context != EGL_NO_CONTEXT &&
           eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
}

int consumer_draw(const crowd_bake *bake) {
    if (!make_context()) {
        fprintf(stderr, "consumer: no OpenGL 4.5 context through EGL\n");
        return 0;
    }
    GLuint framebuffer, color, depth;
    glCreateFramebuffers(1, &framebuffer);
    glCreateRenderbuffers(1, &color);
    glCreateRenderbuffers(1, &depth);
    glNamedRenderbufferStorage(color, GL_RGBA8, WIDTH, HEIGHT);
    glNamedRenderbufferStorage(depth, GL_DEPTH_COMPONENT32F, WIDTH, HEIGHT);
    glNamedFramebufferRenderbuffer(framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
    glNamedFramebufferRenderbuffer(framebuffer, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);

    crowd_error error = {0};
    crowd_world *world = NULL;
    crowd_archetype archetype;
    int least = -1;
    if (crowd_world_create(NULL, &world, &error) != CROWD_OK ||
        crowd_world_add_archetype(world,
                                  &(crowd_archetype_desc){.bake = bake, .mode = CROWD_GPU_MODE_VAT},
                                  &archetype, &error) != CROWD_OK) {
        fprintf(stderr, "consumer: %s: %s\n", error.file, error.reason);
        crowd_world_destroy(world);
        return 0;
    }
    for (int i = 0; i < 9; i++) {
        crowd_instance id;
        crowd_instance_desc desc = {.position = {(float)(i % 3) - 1.0f, 0, (float)(i / 3) - 1.0f},
                                    .time_offset_s = 0.2f * (float)i};
        crowd_world_add_instance(world, archetype, &desc, &id, &error);
    }
    float min[3], max[3];
    crowd_world_instance_bounds(world, min, max);
    crowd_camera camera;
    crowd_camera_frame_box(min, max, (float)WIDTH / HEIGHT, &camera);
    crowd_draw_desc draw = {.pass = CROWD_PASS_COLOR};
    crowd_camera_matrices(&camera, (float)WIDTH / HEIGHT, draw.view, draw.projection);
    crowd_light_default(&draw.light);

    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, WIDTH, HEIGHT);
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        crowd_gpu_mode mode = (crowd_gpu_mode)m;
        int drawn = 0;
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        if (crowd_archetype_set_mode(world, archetype, mode, &error) == CROWD_OK &&
            crowd_world_update(world, 0.5, &error) == CROWD_OK &&
            crowd_world_draw(world, &draw, &error) == CROWD_OK) {
            static unsigned char pixels[WIDTH * HEIGHT * 4];
            glReadPixels(0, 0, WIDTH, HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
            for (int p = 0; p < WIDTH * HEIGHT; p++) {
                drawn += pixels[4 * p] != 0 || pixels[4 * p + 1] != 0 || pixels[4 * p + 2] != 0;
            }
        } else {
            fprintf(stderr, "consumer: %s mode: %s\n", crowd_gpu_mode_name(mode), error.reason);
        }
        crowd_world_stats stats;
        crowd_world_get_stats(world, &stats);
        printf("%-6s drew 9 characters in %u draw call(s): %d of %d pixels covered\n",
               crowd_gpu_mode_name(mode), stats.draw_calls, drawn, WIDTH * HEIGHT);
        least = least < 0 || drawn < least ? drawn : least;
    }
    crowd_world_destroy(world);
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteRenderbuffers(1, &color);
    glDeleteRenderbuffers(1, &depth);
    return least < 0 ? 0 : least;
}
