/* ground.c - the ground's program and draw (ground.h). The GLSL lives here
 * because the ground is the application's drawing, not crowd's: crowd only
 * draws characters into whatever the application has bound. */
#include "ground.h"

#include <math.h>
#include <string.h>

#include <epoxy/gl.h>

enum {
    LOCATION_VIEW_PROJ = 0,
    LOCATION_EXTENT = 1,
    LOCATION_EYE = 2,
    LOCATION_LIGHT_VIEW_PROJ = 3,
    BINDING_SHADOW_MAP = 0,
};

/* A square from gl_VertexID alone (triangle strip of 4, no vertex buffer). */
static const char vertex_source[] =
    "layout(location = 0) uniform mat4 u_view_proj;\n"
    "layout(location = 1) uniform vec4 u_extent; // centre x, centre z, half size, y\n"
    "out vec3 v_world;\n"
    "void main() {\n"
    "    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0;\n"
    "    v_world = vec3(u_extent.x + corner.x * u_extent.z, u_extent.w,\n"
    "                   u_extent.y + corner.y * u_extent.z);\n"
    "    gl_Position = u_view_proj * vec4(v_world, 1.0);\n"
    "}\n";

/* The checkerboard fades to its average where a pixel covers several
 * squares (no moire), darkens towards its edge and into the distance. In
 * shadow it keeps 40%, the sky's share of a sunny ground's light; 3 x 3
 * bilinear comparisons soften the map's texels into a penumbra. The ground
 * casts nothing into the map, so it needs only a small bias against the
 * feet. */
static const char fragment_source[] =
    "in vec3 v_world;\n"
    "layout(location = 1) uniform vec4 u_extent;\n"
    "layout(location = 2) uniform vec3 u_eye;\n"
    "out vec4 o_color;\n"
    "#ifdef SHADOWS\n"
    "layout(location = 3) uniform mat4 u_light_view_proj;\n"
    "layout(binding = 0) uniform sampler2DShadow u_shadow_map;\n"
    "float lit() {\n"
    "    vec3 p = (u_light_view_proj * vec4(v_world, 1.0)).xyz * 0.5 + 0.5;\n"
    "    if (any(lessThan(p, vec3(0.0))) || any(greaterThan(p, vec3(1.0)))) {\n"
    "        return 1.0;\n"
    "    }\n"
    "    vec2 texel = 1.0 / vec2(textureSize(u_shadow_map, 0));\n"
    "    float sum = 0.0;\n"
    "    for (int y = -1; y <= 1; y++) {\n"
    "        for (int x = -1; x <= 1; x++) {\n"
    "            sum += texture(u_shadow_map, vec3(p.xy + vec2(x, y) * texel, p.z - 0.001));\n"
    "        }\n"
    "    }\n"
    "    return sum / 9.0;\n"
    "}\n"
    "#else\n"
    "float lit() { return 1.0; }\n"
    "#endif\n"
    "vec3 srgb_encode(vec3 c) {\n"
    "    c = clamp(c, 0.0, 1.0);\n"
    "    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));\n"
    "}\n"
    "void main() {\n"
    "    vec2 cell = floor(v_world.xz);\n"
    "    vec2 footprint = fwidth(v_world.xz);\n"
    "    float blur = clamp(2.0 * max(footprint.x, footprint.y) - 0.5, 0.0, 1.0);\n"
    "    float checker = mix(mod(cell.x + cell.y, 2.0), 0.5, blur);\n"
    "    vec3 base = mix(vec3(0.30, 0.31, 0.30), vec3(0.36, 0.37, 0.35), checker);\n"
    "    float edge = length(v_world.xz - u_extent.xy) / u_extent.z;\n"
    "    base *= 1.0 - 0.5 * smoothstep(0.6, 1.0, edge);\n"
    "    base *= 1.0 - 0.3 * smoothstep(20.0, 200.0, length(v_world - u_eye));\n"
    "    base *= mix(0.4, 1.0, lit());\n"
    "    o_color = vec4(srgb_encode(base), 1.0);\n"
    "}\n";

/* The square under the crowd's feet: centre x and z, half size, height. A
 * world without instances gets a 4 m square at y = 0. */
static void ground_extent(const crowd_world *world, float out[4]) {
    float min[3] = {-2.0f, 0.0f, -2.0f}, max[3] = {2.0f, 0.0f, 2.0f};
    crowd_world_instance_bounds(world, min, max);
    float size = fmaxf(max[0] - min[0], max[2] - min[2]);
    out[0] = 0.5f * (min[0] + max[0]);
    out[1] = 0.5f * (min[2] + max[2]);
    out[2] = 0.5f * size + fmaxf(2.0f, 0.25f * size);
    out[3] = min[1];
}

static GLuint compile(GLenum type, const char *defines, const char *source, char *log,
                      size_t log_size) {
    const char *parts[3] = {"#version 450 core\n", defines, source};
    GLuint shader = glCreateShader(type);
    glShaderSource(shader, 3, parts, NULL);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(shader, (GLsizei)log_size, NULL, log);
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

crowd_result ground_create(bool shadows, ground *out, crowd_error *error) {
    memset(out, 0, sizeof *out);
    out->shadows = shadows;
    const char *defines = shadows ? "#define SHADOWS\n" : "";
    char log[1024] = "";
    GLuint vertex = compile(GL_VERTEX_SHADER, defines, vertex_source, log, sizeof log);
    GLuint fragment =
        vertex != 0 ? compile(GL_FRAGMENT_SHADER, defines, fragment_source, log, sizeof log) : 0;
    GLint linked = GL_FALSE;
    if (fragment != 0) {
        out->program = glCreateProgram();
        glAttachShader(out->program, vertex);
        glAttachShader(out->program, fragment);
        glLinkProgram(out->program);
        glGetProgramiv(out->program, GL_LINK_STATUS, &linked);
        if (!linked) {
            glGetProgramInfoLog(out->program, (GLsizei)sizeof log, NULL, log);
        }
    }
    glDeleteShader(vertex);
    glDeleteShader(fragment);
    if (!linked) {
        ground_release(out);
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL, "the ground's shader: %s", log);
    }
    glCreateVertexArrays(1, &out->vao);
    return CROWD_OK;
}

void ground_release(ground *g) {
    if (g->program != 0) {
        glDeleteProgram(g->program);
    }
    if (g->vao != 0) {
        glDeleteVertexArrays(1, &g->vao);
    }
    memset(g, 0, sizeof *g);
}

void ground_draw(const ground *g, const crowd_world *world, const float view_proj[16],
                 const float eye[3], uint32_t shadow_texture, const float light_view_proj[16]) {
    float extent[4];
    ground_extent(world, extent);
    glUseProgram(g->program);
    glProgramUniformMatrix4fv(g->program, LOCATION_VIEW_PROJ, 1, GL_FALSE, view_proj);
    glProgramUniform4fv(g->program, LOCATION_EXTENT, 1, extent);
    glProgramUniform3fv(g->program, LOCATION_EYE, 1, eye);
    if (g->shadows) {
        glProgramUniformMatrix4fv(g->program, LOCATION_LIGHT_VIEW_PROJ, 1, GL_FALSE,
                                  light_view_proj);
        glBindTextureUnit(BINDING_SHADOW_MAP, shadow_texture);
    }
    glBindVertexArray(g->vao);
    glEnable(GL_DEPTH_TEST);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    /* Left bound, a deleted program stays alive as the current one, and
     * whoever saves and restores the binding (crowd's draws do) would
     * restore a name that died in between. */
    glUseProgram(0);
    glBindVertexArray(0);
}
