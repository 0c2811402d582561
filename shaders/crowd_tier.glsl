// crowd_tier.glsl - what differs between the GL 4.5 tier and the portable
// one (GLSL 3.30 core, GLSL ES 3.00 for GLES 3.0 and WebGL2), so that each
// stage keeps one source. The world puts it right after the #version line
// and the tier's macro: CROWD_TIER_GL45 or CROWD_TIER_PORTABLE (glutil.c).
//
// GLSL 3.30 and ES 3.00 take no layout(location) on uniforms and no
// layout(binding): there the world looks uniforms up by name after
// linking and sets each sampler's unit once (programs.c). ES also has no
// default float precision in the fragment stage and none for integer
// samplers and arrays: everything is highp, as on the desktop.

#if defined(CROWD_TIER_GL45)
#define CROWD_UNIFORM(loc) layout(location = loc)
#define CROWD_BINDING(unit) layout(binding = unit)
#else
#define CROWD_UNIFORM(loc)
#define CROWD_BINDING(unit)
#endif

#if defined(GL_ES)
precision highp float;
precision highp int;
precision highp sampler2D;
precision highp sampler2DArray;
precision highp usampler2D;
#endif
