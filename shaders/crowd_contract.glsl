// crowd_contract.glsl - every number C and GLSL must agree on, written once:
// the instance and material record layouts, the record's flag bits, and the
// attribute, binding, texture-unit and uniform locations. The file is only
// #define lines, which read the same in C and in GLSL: src/gpu/internal.h
// includes it (and static-asserts its C structs against it), and the world
// puts it before every shader stage it compiles (glutil.c), so a change here
// reaches every consumer or stops the build.
//
// Records are read as 16-byte vectors; word w of a record is component
// w % 4 of vector w / 4. The GPU_RECORD_* and GPU_MATERIAL_* values are word
// indices. The three.js and Godot players (integrations/) keep their own
// per-instance data in their engines' formats (instanced attributes, a
// MultiMesh's custom data) and never read these bytes.

#ifndef CROWD_CONTRACT_GLSL
#define CROWD_CONTRACT_GLSL

// ---- the instance record (gpu_instance_record) ----------------------------
// Per-instance vertex attributes GPU_INSTANCE_ATTR.. in the vertex stage,
// whole records in the culling pass's storage buffers: GPU_RECORD_VEC4S
// vectors, the first GPU_RECORD_FLOAT_VEC4S of floats, the rest of uints.
#define GPU_RECORD_VEC4S 9
#define GPU_RECORD_FLOAT_VEC4S 6
#define GPU_RECORD_UINT_VEC4S 3

#define GPU_RECORD_POSITION 0 // 3 words: world position, metres
#define GPU_RECORD_COS_HEADING 3
#define GPU_RECORD_TINT 4 // 4 words
#define GPU_RECORD_SCALE 8
#define GPU_RECORD_START 9 // clock when the clip started, s
#define GPU_RECORD_OFFSET 10
#define GPU_RECORD_SPEED 11
#define GPU_RECORD_DURATION 12 // of the clip, s
#define GPU_RECORD_FADE_START 13
#define GPU_RECORD_FADE_DURATION 14 // > 0 while a crossfade is set
#define GPU_RECORD_FROM_DURATION 15 // of the clip faded from
#define GPU_RECORD_FROM_START 16
#define GPU_RECORD_FROM_OFFSET 17
#define GPU_RECORD_FROM_SPEED 18
#define GPU_RECORD_SIN_HEADING 19
// A blend (crowd_instance_play_blend) plays two clips of a segment: the
// clip above and its partner, which shares its phase (partner time = clip
// time / duration * partner duration, so the feet stay in step) and is
// mixed in with PARTNER_WEIGHT (0: no partner). The same for the clip a
// crossfade leaves.
#define GPU_RECORD_PARTNER_WEIGHT 20
#define GPU_RECORD_PARTNER_DURATION 21
#define GPU_RECORD_FROM_PARTNER_WEIGHT 22
#define GPU_RECORD_FROM_PARTNER_DURATION 23
// uints from here
#define GPU_RECORD_CLIP 24
#define GPU_RECORD_FLAGS 25     // GPU_FLAG_*
#define GPU_RECORD_FRAMES 26    // first baked frame | frame count << 16
#define GPU_RECORD_FPS_BITS 27  // the clip's fps, a float's bits
#define GPU_RECORD_FROM_CLIP 28
#define GPU_RECORD_FROM_FRAMES 29
#define GPU_RECORD_FROM_FPS_BITS 30
#define GPU_RECORD_HANDLE 31 // the instance's crowd_instance.id
#define GPU_RECORD_PARTNER_FRAMES 32 // the blend partner's, as FRAMES
#define GPU_RECORD_PARTNER_FPS_BITS 33
#define GPU_RECORD_FROM_PARTNER_FRAMES 34
#define GPU_RECORD_FROM_PARTNER_FPS_BITS 35

// ---- the record's flags ----------------------------------------------------
// Loop mode (crowd_loop_mode) of the clip in bits 0-1, of the clip faded
// from in bits 2-3; GPU_FLAG_FADE while that clip is meaningful; whether
// each clip was baked as a loop; bits 8-10 the LOD a culled pass drew the
// instance at (0 in the records themselves, set in the visible lists'
// copies); the frame layout (crowd_frame_layout) of each clip in bits 11-12
// and 13-14, of their blend partners in bits 15-16 and 17-18.
#define GPU_FLAG_LOOP_MASK 3u
#define GPU_FLAG_FROM_LOOP_SHIFT 2u
#define GPU_FLAG_FADE 16u
#define GPU_FLAG_CLIP_LOOPS 32u
#define GPU_FLAG_FROM_CLIP_LOOPS 64u
#define GPU_FLAG_LOD_SHIFT 8u
#define GPU_FLAG_LOD_BITS 7u
#define GPU_FLAG_LOD_MASK (GPU_FLAG_LOD_BITS << GPU_FLAG_LOD_SHIFT)
#define GPU_FLAG_LAYOUT_SHIFT 11u
#define GPU_FLAG_FROM_LAYOUT_SHIFT 13u
#define GPU_FLAG_PARTNER_LAYOUT_SHIFT 15u
#define GPU_FLAG_FROM_PARTNER_LAYOUT_SHIFT 17u
#define GPU_FLAG_LAYOUT_MASK 3u
// Bits 20-31: the props the instance carries, bit p for prop type p of its
// archetype (crowd_world_add_prop), so one record write attaches or
// detaches one and the culling pass lists each carrier per prop type.
#define GPU_FLAG_PROPS_SHIFT 20u
#define GPU_MAX_PROPS 12 // = CROWD_ARCHETYPE_MAX_PROPS
#define GPU_FLAG_PROPS_MASK 0xfff00000u

// ---- the material record (gpu_material_record, `materials` in crowd.frag) --
#define GPU_MATERIAL_VEC4S 2
#define GPU_MATERIAL_BASE_COLOR 0    // 4 words, linear RGBA
#define GPU_MATERIAL_TEXTURE_LAYER 4 // an int's bits; -1: no texture
#define GPU_MATERIAL_METALLIC 5
#define GPU_MATERIAL_ROUGHNESS 6

// ---- vertex attributes ----------------------------------------------------
// Location = vertex buffer binding index for the mesh's attributes; the
// record's vectors follow, all read from binding GPU_BINDING_INSTANCES.
#define GPU_ATTR_POSITION 0
#define GPU_ATTR_NORMAL 1
#define GPU_ATTR_UV 2
#define GPU_ATTR_JOINTS 3
#define GPU_ATTR_WEIGHTS 4
#define GPU_ATTR_MATERIAL 5
#define GPU_ATTR_TEXEL 6 // the LOD0 vertex's VAT texel (column, row in a frame)
#define GPU_ATTR_COUNT 7
#define GPU_INSTANCE_ATTR 7       // = GPU_ATTR_COUNT: the record's float vectors
#define GPU_INSTANCE_UINT_ATTR 13 // = GPU_INSTANCE_ATTR + GPU_RECORD_FLOAT_VEC4S
#define GPU_BINDING_INSTANCES 7
// The same locations one by one, for the portable tier's shaders (GLSL ES
// 3.00 has no arrays of vertex inputs, and its layout values are literals).
#define GPU_INSTANCE_FLOAT_ATTR_0 7
#define GPU_INSTANCE_FLOAT_ATTR_1 8
#define GPU_INSTANCE_FLOAT_ATTR_2 9
#define GPU_INSTANCE_FLOAT_ATTR_3 10
#define GPU_INSTANCE_FLOAT_ATTR_4 11
#define GPU_INSTANCE_FLOAT_ATTR_5 12
#define GPU_INSTANCE_UINT_ATTR_0 13
#define GPU_INSTANCE_UINT_ATTR_1 14
#define GPU_INSTANCE_UINT_ATTR_2 15 // the last of the 16 attributes every tier has

// ---- storage buffer bindings ----------------------------------------------
#define GPU_SSBO_PALETTES 1 // gpu mode's skinning matrices, 3 vec4 per joint
#define GPU_SSBO_MATERIALS 3
// the culling pass (crowd_cull.comp.glsl)
#define GPU_SSBO_CULL_RECORDS 1
#define GPU_SSBO_CULL_SPHERES 2
#define GPU_SSBO_CULL_VISIBLE 3
#define GPU_SSBO_CULL_COMMANDS 4
#define GPU_SSBO_CULL_LOD_STATE 5
// The caller's crowd_shade may use bindings from here up (include/crowd/gpu.h).
#define GPU_FIRST_APPLICATION_BINDING 8

// ---- texture units --------------------------------------------------------
#define GPU_TEXTURE_MATERIALS 0
#define GPU_TEXTURE_BAT 1
#define GPU_TEXTURE_VAT_POSITION 2
#define GPU_TEXTURE_VAT_NORMAL 3
#define GPU_TEXTURE_UNITS 4 // the units the GL 4.5 tier binds: 0 .. 3
// The portable tier's stand-ins for storage buffers: the materials as
// RGBA32UI texels (GPU_MATERIAL_VEC4S per material, one row) and gpu mode's
// palettes as RGBA32F texels, rows of 1 << GPU_PALETTE_WIDTH_SHIFT.
#define GPU_TEXTURE_MATERIAL_RECORDS 4
#define GPU_TEXTURE_PALETTES 5
#define GPU_PORTABLE_TEXTURE_UNITS 6 // the units the portable tier binds: 0 .. 5
#define GPU_PALETTE_WIDTH_SHIFT 10u
#define GPU_PALETTE_WIDTH_MASK 1023u

// ---- uniform locations of the draw programs ---------------------------------
#define GPU_UNIFORM_VIEW_PROJ 0
#define GPU_UNIFORM_TIME 1
#define GPU_UNIFORM_TEX_WIDTH 4
#define GPU_UNIFORM_ROWS_PER_FRAME 5
#define GPU_UNIFORM_JOINT_COUNT 6
#define GPU_UNIFORM_BOUNDS_MIN 7
#define GPU_UNIFORM_BOUNDS_EXTENT 8
#define GPU_UNIFORM_LIGHT_DIR 9
#define GPU_UNIFORM_INV_TEX_WIDTH 12
#define GPU_UNIFORM_LIGHT_COLOR 13
#define GPU_UNIFORM_AMBIENT_SKY 14
#define GPU_UNIFORM_AMBIENT_GROUND 15
#define GPU_UNIFORM_LINEAR_OUTPUT 16
#define GPU_UNIFORM_ARCHETYPE 17
#define GPU_UNIFORM_LOD_TINT 18
// A prop draw over every instance (no culled list): the carriers' flag bit
// (GPU_FLAG_PROPS_*); 0 draws every instance (characters, culled lists).
#define GPU_UNIFORM_PROP_BIT 29
#define GPU_UNIFORM_CAMERA_POSITION 30
// The portable tier has no layout(location) on uniforms: it looks each of
// these up by name after linking (programs.c), into a table this long.
#define GPU_UNIFORM_COUNT 31

// ---- the culling pass -----------------------------------------------------
#define GPU_CULL_GROUP_SIZE 64 // invocations per work group
#define GPU_MAX_LODS 8         // = CROWD_BAKE_MAX_LODS
#define GPU_CULL_UNIFORM_COUNT 0
#define GPU_CULL_UNIFORM_PLANES 1 // 6 vec4
#define GPU_CULL_UNIFORM_CLIP_W 7
#define GPU_CULL_UNIFORM_LOD_SCALED_ERROR 8 // GPU_MAX_LODS floats
#define GPU_CULL_UNIFORM_LOD_COUNT 16
#define GPU_CULL_UNIFORM_HYSTERESIS 17
#define GPU_CULL_UNIFORM_CAPACITY 18
#define GPU_CULL_UNIFORM_BIND_POSE 19
#define GPU_CULL_UNIFORM_BIND_SPHERE 20
#define GPU_CULL_UNIFORM_KEEP_LOD_STATE 21
// Props: the list the first prop type's carriers go to (lists after the
// LODs'), their command at GPU_MAX_LODS + prop, and which props have lists.
#define GPU_CULL_UNIFORM_PROP_FIRST_LIST 22
#define GPU_CULL_UNIFORM_PROP_MASK 23

#endif
