/* gpu/gl_web_absent.h - the GL 4.5 tier's entry points that WebGL2 lacks,
 * for the WebAssembly build only (gl.h includes it there). Each aborts
 * through crowd__gpu_gl45_absent: the tier choice keeps the GL 4.5 tier off
 * an ES context, so none is ever called; they exist so that its code
 * compiles unchanged beside the portable tier's. Signatures as GL 4.5's. */
#ifndef CROWD_GPU_GL_WEB_ABSENT_H
#define CROWD_GPU_GL_WEB_ABSENT_H

static inline void glBindTextureUnit(GLuint unit, GLuint texture) {
    (void)unit;
    (void)texture;
    crowd__gpu_gl45_absent("glBindTextureUnit");
}

static inline void glBindVertexBuffer(GLuint bindingindex, GLuint buffer, GLintptr offset,
                                      GLsizei stride) {
    (void)bindingindex;
    (void)buffer;
    (void)offset;
    (void)stride;
    crowd__gpu_gl45_absent("glBindVertexBuffer");
}

static inline void glClearNamedBufferData(GLuint buffer, GLenum internalformat, GLenum format,
                                          GLenum type, const void *data) {
    (void)buffer;
    (void)internalformat;
    (void)format;
    (void)type;
    (void)data;
    crowd__gpu_gl45_absent("glClearNamedBufferData");
}

static inline void glCopyNamedBufferSubData(GLuint read_buffer, GLuint write_buffer,
                                            GLintptr read_offset, GLintptr write_offset,
                                            GLsizeiptr size) {
    (void)read_buffer;
    (void)write_buffer;
    (void)read_offset;
    (void)write_offset;
    (void)size;
    crowd__gpu_gl45_absent("glCopyNamedBufferSubData");
}

static inline void glCreateBuffers(GLsizei n, GLuint *buffers) {
    (void)n;
    (void)buffers;
    crowd__gpu_gl45_absent("glCreateBuffers");
}

static inline void glCreateQueries(GLenum target, GLsizei n, GLuint *ids) {
    (void)target;
    (void)n;
    (void)ids;
    crowd__gpu_gl45_absent("glCreateQueries");
}

static inline void glCreateTextures(GLenum target, GLsizei n, GLuint *textures) {
    (void)target;
    (void)n;
    (void)textures;
    crowd__gpu_gl45_absent("glCreateTextures");
}

static inline void glDispatchCompute(GLuint x, GLuint y, GLuint z) {
    (void)x;
    (void)y;
    (void)z;
    crowd__gpu_gl45_absent("glDispatchCompute");
}

static inline void glDrawElementsInstancedBaseInstance(GLenum mode, GLsizei count, GLenum type,
                                                       const void *indices, GLsizei instancecount,
                                                       GLuint baseinstance) {
    (void)mode;
    (void)count;
    (void)type;
    (void)indices;
    (void)instancecount;
    (void)baseinstance;
    crowd__gpu_gl45_absent("glDrawElementsInstancedBaseInstance");
}

static inline void glDrawElementsIndirect(GLenum mode, GLenum type, const void *indirect) {
    (void)mode;
    (void)type;
    (void)indirect;
    crowd__gpu_gl45_absent("glDrawElementsIndirect");
}

static inline void glGenerateTextureMipmap(GLuint texture) {
    (void)texture;
    crowd__gpu_gl45_absent("glGenerateTextureMipmap");
}

static inline void glGetQueryObjectui64v(GLuint id, GLenum pname, GLuint64 *params) {
    (void)id;
    (void)pname;
    (void)params;
    crowd__gpu_gl45_absent("glGetQueryObjectui64v");
}

static inline void *glMapNamedBufferRange(GLuint buffer, GLintptr offset, GLsizeiptr length,
                                          GLbitfield access) {
    (void)buffer;
    (void)offset;
    (void)length;
    (void)access;
    crowd__gpu_gl45_absent("glMapNamedBufferRange");
}

static inline void glMemoryBarrier(GLbitfield barriers) {
    (void)barriers;
    crowd__gpu_gl45_absent("glMemoryBarrier");
}

static inline void glMultiDrawElementsIndirect(GLenum mode, GLenum type, const void *indirect,
                                               GLsizei drawcount, GLsizei stride) {
    (void)mode;
    (void)type;
    (void)indirect;
    (void)drawcount;
    (void)stride;
    crowd__gpu_gl45_absent("glMultiDrawElementsIndirect");
}

static inline void glNamedBufferStorage(GLuint buffer, GLsizeiptr size, const void *data,
                                        GLbitfield flags) {
    (void)buffer;
    (void)size;
    (void)data;
    (void)flags;
    crowd__gpu_gl45_absent("glNamedBufferStorage");
}

static inline void glNamedBufferSubData(GLuint buffer, GLintptr offset, GLsizeiptr size,
                                        const void *data) {
    (void)buffer;
    (void)offset;
    (void)size;
    (void)data;
    crowd__gpu_gl45_absent("glNamedBufferSubData");
}

static inline void glProgramUniform1f(GLuint program, GLint location, GLfloat v0) {
    (void)program;
    (void)location;
    (void)v0;
    crowd__gpu_gl45_absent("glProgramUniform1f");
}

static inline void glProgramUniform1fv(GLuint program, GLint location, GLsizei count,
                                       const GLfloat *value) {
    (void)program;
    (void)location;
    (void)count;
    (void)value;
    crowd__gpu_gl45_absent("glProgramUniform1fv");
}

static inline void glProgramUniform1ui(GLuint program, GLint location, GLuint v0) {
    (void)program;
    (void)location;
    (void)v0;
    crowd__gpu_gl45_absent("glProgramUniform1ui");
}

static inline void glProgramUniform4fv(GLuint program, GLint location, GLsizei count,
                                       const GLfloat *value) {
    (void)program;
    (void)location;
    (void)count;
    (void)value;
    crowd__gpu_gl45_absent("glProgramUniform4fv");
}

static inline void glTextureParameteri(GLuint texture, GLenum pname, GLint param) {
    (void)texture;
    (void)pname;
    (void)param;
    crowd__gpu_gl45_absent("glTextureParameteri");
}

static inline void glTextureStorage2D(GLuint texture, GLsizei levels, GLenum internalformat,
                                      GLsizei width, GLsizei height) {
    (void)texture;
    (void)levels;
    (void)internalformat;
    (void)width;
    (void)height;
    crowd__gpu_gl45_absent("glTextureStorage2D");
}

static inline void glTextureStorage3D(GLuint texture, GLsizei levels, GLenum internalformat,
                                      GLsizei width, GLsizei height, GLsizei depth) {
    (void)texture;
    (void)levels;
    (void)internalformat;
    (void)width;
    (void)height;
    (void)depth;
    crowd__gpu_gl45_absent("glTextureStorage3D");
}

static inline void glTextureSubImage2D(GLuint texture, GLint level, GLint xoffset, GLint yoffset,
                                       GLsizei width, GLsizei height, GLenum format, GLenum type,
                                       const void *pixels) {
    (void)texture;
    (void)level;
    (void)xoffset;
    (void)yoffset;
    (void)width;
    (void)height;
    (void)format;
    (void)type;
    (void)pixels;
    crowd__gpu_gl45_absent("glTextureSubImage2D");
}

static inline void glTextureSubImage3D(GLuint texture, GLint level, GLint xoffset, GLint yoffset,
                                       GLint zoffset, GLsizei width, GLsizei height, GLsizei depth,
                                       GLenum format, GLenum type, const void *pixels) {
    (void)texture;
    (void)level;
    (void)xoffset;
    (void)yoffset;
    (void)zoffset;
    (void)width;
    (void)height;
    (void)depth;
    (void)format;
    (void)type;
    (void)pixels;
    crowd__gpu_gl45_absent("glTextureSubImage3D");
}

static inline void glVertexAttribBinding(GLuint attribindex, GLuint bindingindex) {
    (void)attribindex;
    (void)bindingindex;
    crowd__gpu_gl45_absent("glVertexAttribBinding");
}

static inline void glVertexAttribFormat(GLuint attribindex, GLint size, GLenum type,
                                        GLboolean normalized, GLuint relativeoffset) {
    (void)attribindex;
    (void)size;
    (void)type;
    (void)normalized;
    (void)relativeoffset;
    crowd__gpu_gl45_absent("glVertexAttribFormat");
}

static inline void glVertexAttribIFormat(GLuint attribindex, GLint size, GLenum type,
                                         GLuint relativeoffset) {
    (void)attribindex;
    (void)size;
    (void)type;
    (void)relativeoffset;
    crowd__gpu_gl45_absent("glVertexAttribIFormat");
}

static inline void glVertexBindingDivisor(GLuint bindingindex, GLuint divisor) {
    (void)bindingindex;
    (void)divisor;
    crowd__gpu_gl45_absent("glVertexBindingDivisor");
}

#endif
