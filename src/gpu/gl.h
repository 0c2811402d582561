/* gpu/gl.h - the one GL include of the gpu module, and the three questions
 * it asks of the context (desktop or ES, version, extension).
 *
 * Desktop: libepoxy, which loads every entry point of the GL 4.5 and the
 * portable tiers and answers the questions from the current context.
 *
 * WebAssembly (emscripten): emscripten's GLES 3.0 headers over WebGL2, the
 * questions answered from emscripten's current WebGL context. WebGL2 is an
 * ES 3.0 context, so crowd__gpu_context_check never chooses the GL 4.5 tier
 * there (a forced gl45 is refused with its message). That tier's code still
 * compiles: its entry points that WebGL2 lacks are in gl_web_absent.h, each
 * one a call that aborts naming itself, and its enums are defined below, so
 * one source serves both builds without an #ifdef around every GL 4.5 line.
 */
#ifndef CROWD_GPU_GL_H
#define CROWD_GPU_GL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __EMSCRIPTEN__

#include <GLES3/gl3.h>
#include <emscripten/html5.h>

/* No fences around the stream sections on WebGL2: gl.clientWaitSync takes
 * no timeout above MAX_CLIENT_WAIT_TIMEOUT_WEBGL (0 in browsers), so it
 * could only poll, and nothing needs its answer, as the portable tier's
 * uploads are copies the browser orders itself. */
#define GPU_STREAM_FENCES 0

/* The GL 4.5 tier's enums, absent from GLES 3.0 (values of the GL registry;
 * GL_RGBA16 is EXT_texture_norm16's GL_RGBA16_EXT too). */
#define GL_BUFFER_UPDATE_BARRIER_BIT 0x00000200
#define GL_COMMAND_BARRIER_BIT 0x00000040
#define GL_COMPUTE_SHADER 0x91B9
#define GL_CONTEXT_COMPATIBILITY_PROFILE_BIT 0x00000002
#define GL_CONTEXT_CORE_PROFILE_BIT 0x00000001
#define GL_CONTEXT_PROFILE_MASK 0x9126
#define GL_DRAW_INDIRECT_BUFFER 0x8F3F
#define GL_DRAW_INDIRECT_BUFFER_BINDING 0x8F43
#define GL_DYNAMIC_STORAGE_BIT 0x0100
#define GL_MAP_COHERENT_BIT 0x0080
#define GL_MAP_PERSISTENT_BIT 0x0040
#define GL_QUERY_BUFFER 0x9192
#define GL_QUERY_BUFFER_BINDING 0x9193
#define GL_RGBA16 0x805B
#define GL_SHADER_STORAGE_BUFFER 0x90D2
#define GL_SHADER_STORAGE_BUFFER_BINDING 0x90D3
#define GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT 0x90DF
#define GL_SHADER_STORAGE_BUFFER_SIZE 0x90D5
#define GL_SHADER_STORAGE_BUFFER_START 0x90D4
#define GL_TIME_ELAPSED 0x88BF
#define GL_UNPACK_LSB_FIRST 0x0CF1
#define GL_UNPACK_SWAP_BYTES 0x0CF0
#define GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT 0x00000001

/* Aborts with "crowd: internal error: NAME ..." on stderr: a GL 4.5 entry
 * point reached on WebGL2, which only a bug in the tier choice can do. */
_Noreturn void crowd__gpu_gl45_absent(const char *name);
#include "gpu/gl_web_absent.h"

static inline bool crowd__gpu_gl_is_desktop(void) {
    return false;
}

/* WebGL 2 is OpenGL ES 3.0 (30), WebGL 1 is ES 2.0 (20); 0 without a
 * current context, as epoxy gives. */
static inline int crowd__gpu_gl_version(void) {
    EMSCRIPTEN_WEBGL_CONTEXT_HANDLE context = emscripten_webgl_get_current_context();
    EmscriptenWebGLContextAttributes attributes;
    if (context == 0 || emscripten_webgl_get_context_attributes(context, &attributes) !=
                            EMSCRIPTEN_RESULT_SUCCESS) {
        return 0;
    }
    return attributes.majorVersion >= 2 ? 30 : 20;
}

/* `name` as GL spells it ("GL_EXT_texture_norm16"); WebGL names drop the
 * GL_ prefix. Enabling is asking: a WebGL extension exists for the context
 * once getExtension has returned it. */
static inline bool crowd__gpu_gl_has_extension(const char *name) {
    EMSCRIPTEN_WEBGL_CONTEXT_HANDLE context = emscripten_webgl_get_current_context();
    const char *webgl = name[0] == 'G' && name[1] == 'L' && name[2] == '_' ? name + 3 : name;
    return context != 0 && emscripten_webgl_enable_extension(context, webgl);
}

#else

#include <epoxy/gl.h>

/* On desktop a stream section is written again only once the GPU is done
 * with the frame that last read it (world.c). */
#define GPU_STREAM_FENCES 1

static inline bool crowd__gpu_gl_is_desktop(void) {
    return epoxy_is_desktop_gl();
}

static inline int crowd__gpu_gl_version(void) {
    return epoxy_gl_version();
}

static inline bool crowd__gpu_gl_has_extension(const char *name) {
    return epoxy_has_gl_extension(name);
}

#endif

#endif
