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
// GPU_RECORD_WORDS 32-bit words, 40 bytes, packed by src/gpu/record_pack.c
// from the CPU's full state (gpu_instance_state) and decoded in one GLSL
// place (crowd_record.glsl); the culling pass reads and copies whole records.
// Precision: positions are f32 (within 1 mm up to 10 km from the origin: an
// f32 step there is 0.98 mm); the heading is an int32 code of the angle over
// the full circle (2^32 steps; the shaders' float decode keeps 24 bits of it,
// 2pi / 2^25 = 1.9e-7 rad); tints are unorm8, clamped to [0, 1]. Clip time is
// (u_time * speed + phase), u_time the clock less the world's epoch (rebased
// every GPU_EPOCH_S, so below it), phase the clip time at the epoch: 0.1 ms
// or better over a 24 h clock.
#define GPU_RECORD_WORDS 10
#define GPU_RECORD_POSITION 0 // 3 floats: world position, metres
#define GPU_RECORD_HEADING 3  // int32: heading_rad * 2^31 / pi
#define GPU_RECORD_SCALE 4
#define GPU_RECORD_SPEED 5
#define GPU_RECORD_PHASE 6 // clip time (s, unwrapped) at the epoch
#define GPU_RECORD_TINT 7  // unorm8 x4, r in the low byte
#define GPU_RECORD_BITS 8  // GPU_BITS_*
// The instance's crowd_instance.id; while GPU_BITS_EXTENDED, its side-table
// entry instead (the entry holds the id).
#define GPU_RECORD_HANDLE 9
#define GPU_EPOCH_S 64.0

// ---- the record's bits ------------------------------------------------------
// The clip (an index into the clip table), whether its time wraps (the
// instance's loop mode resolved against the clip's own), the side-table flag,
// the culling sphere (every clip's while the instance fades or blends), the
// LOD a culled pass drew it at (0 in the records themselves, set in the
// visible lists' copies) and bits 20-31 the props it carries, bit p for prop
// type p of its archetype (crowd_world_add_prop), so one record write
// attaches or detaches one and the culling pass lists each carrier per prop
// type.
#define GPU_BITS_CLIP_MASK 127u
#define GPU_BITS_LOOP 128u
#define GPU_BITS_EXTENDED 512u
#define GPU_BITS_ANY_CLIP 1024u
#define GPU_FLAG_LOD_SHIFT 11u
#define GPU_FLAG_LOD_BITS 7u
#define GPU_FLAG_LOD_MASK (GPU_FLAG_LOD_BITS << GPU_FLAG_LOD_SHIFT)
#define GPU_FLAG_PROPS_SHIFT 20u
#define GPU_MAX_PROPS 12 // = CROWD_ARCHETYPE_MAX_PROPS
#define GPU_FLAG_PROPS_MASK 0xfff00000u

// ---- the clip table ---------------------------------------------------------
// Per clip one uvec4 in the uniform array u_clips (GPU_UNIFORM_CLIPS, at most
// GPU_MAX_CLIPS): first baked frame | frame count << 16, fps (a float's
// bits), duration (a float's bits), frame layout (crowd_frame_layout) | 4
// when the clip was baked as a loop. A uniform array, not a uniform buffer:
// binding a UBO would touch the application's indexed buffer bindings.
#define GPU_MAX_CLIPS 128 // = CROWD_ARCHETYPE_MAX_CLIPS
#define GPU_CLIP_LOOPS 4u

// ---- the side table ---------------------------------------------------------
// Rare state, for instances that fade or blend in bat and vat modes: an
// entry of GPU_SIDE_TEXELS RGBA32UI texels (32 bytes) in the texture on
// GPU_TEXTURE_SIDE, GPU_SIDE_ROW_ENTRIES entries a row, found by the
// record's handle word while GPU_BITS_EXTENDED. Words:
#define GPU_SIDE_TEXELS 2
#define GPU_SIDE_ROW_ENTRIES 512u
#define GPU_SIDE_ROW_SHIFT 9u
#define GPU_SIDE_CLIPS 0 // from clip | partner << 8 | from partner << 16 | GPU_SIDE_*
#define GPU_SIDE_HANDLE 1
#define GPU_SIDE_FADE_START 2 // float, relative to the epoch
#define GPU_SIDE_FADE_DURATION 3 // > 0 while a crossfade runs
#define GPU_SIDE_FROM_PHASE 4
#define GPU_SIDE_FROM_SPEED 5
#define GPU_SIDE_PARTNER_WEIGHT 6      // blend partner of the clip: 0 none
#define GPU_SIDE_FROM_PARTNER_WEIGHT 7 // of the clip faded from
#define GPU_SIDE_FROM_LOOP (1u << 24)  // the faded-from clip's time wraps

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
// The record as GPU_INSTANCE_ATTRS attributes (the fetch unpacks each):
// position vec3, heading int, scale / speed / phase vec3, tint as normalized
// bytes, bits and handle uvec2.
#define GPU_INSTANCE_ATTR 7 // = GPU_ATTR_COUNT
#define GPU_INSTANCE_ATTRS 5
#define GPU_INSTANCE_POSITION_ATTR 7
#define GPU_INSTANCE_HEADING_ATTR 8
#define GPU_INSTANCE_MOTION_ATTR 9
#define GPU_INSTANCE_TINT_ATTR 10
#define GPU_INSTANCE_BITS_ATTR 11
#define GPU_BINDING_INSTANCES 7

// ---- storage buffer bindings ----------------------------------------------
#define GPU_SSBO_PALETTES 1 // gpu mode's skinning matrices, 3 vec4 per joint
#define GPU_SSBO_MATERIALS 3
// the culling pass (crowd_cull.comp.glsl)
#define GPU_SSBO_CULL_RECORDS 1
#define GPU_SSBO_CULL_SPHERES 2
#define GPU_SSBO_CULL_VISIBLE 3
#define GPU_SSBO_CULL_COMMANDS 4
#define GPU_SSBO_CULL_LOD_STATE 5
// per clip its largest vertex step from one baked frame to the next (the
// bake's max_step, model units; < 0: not known)
#define GPU_SSBO_CULL_CLIP_STEPS 6
// The caller's crowd_shade may use bindings from here up (include/crowd/gpu.h).
#define GPU_FIRST_APPLICATION_BINDING 8

// ---- texture units --------------------------------------------------------
#define GPU_TEXTURE_MATERIALS 0
#define GPU_TEXTURE_BAT 1
#define GPU_TEXTURE_VAT_POSITION 2
#define GPU_TEXTURE_VAT_NORMAL 3
#define GPU_TEXTURE_UNITS 4 // the units the GL 4.5 tier binds: 0 .. 3, and GPU_TEXTURE_SIDE
// The portable tier's stand-ins for storage buffers: the materials as
// RGBA32UI texels (GPU_MATERIAL_VEC4S per material, one row) and gpu mode's
// palettes as RGBA32F texels, rows of 1 << GPU_PALETTE_WIDTH_SHIFT.
#define GPU_TEXTURE_MATERIAL_RECORDS 4
#define GPU_TEXTURE_PALETTES 5
// Both tiers: the side table (RGBA32UI).
#define GPU_TEXTURE_SIDE 6
#define GPU_PORTABLE_TEXTURE_UNITS 7 // the units the portable tier binds: 0 .. 6
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
// The clip table: GPU_MAX_CLIPS locations from here (on the GL 4.5 tier).
#define GPU_UNIFORM_CLIPS 31
#define GPU_UNIFORM_COUNT 32

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
// One-fetch playback (crowd_frame_fetch): pixels per model unit at w = 1
// over the largest step that plays the nearest frame (0: none by size), and
// the draw's frame_fetch.
#define GPU_CULL_UNIFORM_FRAME_STEP_SCALE 24
#define GPU_CULL_UNIFORM_FRAME_FETCH 25
// ---- the culling pass's indirect commands ---------------------------------
// The LODs' (interpolating) commands from 0, the prop types' from
// GPU_MAX_LODS, then the LODs' one-fetch commands: those draw the instances
// that play the nearest frame, kept at the far end of their LOD's list.
#define GPU_COMMAND_PROPS_FIRST 8   // = GPU_MAX_LODS
#define GPU_COMMAND_NEAREST_FIRST 20 // = GPU_COMMAND_PROPS_FIRST + GPU_MAX_PROPS
#define GPU_COMMAND_COUNT 28         // = GPU_COMMAND_NEAREST_FIRST + GPU_MAX_LODS

#endif
