# crowd.gd - Godot 3: a crowd of one bake (crowd_bake.gd) as one
# MultiMeshInstance, every instance in its own clip, start, offset, speed and
# loop mode; the state lives in each instance's custom data and colour
# (../crowd_vat.gdshader says the layout), written only when it changes.
# Time rules: docs/time.md and include/crowd/gpu.h, as crowd's runtime and
# the three.js player (integrations/three/src/crowd.js) follow them.
extends MultiMeshInstance

const LOOP_CLIP = 0
const LOOP_ON = 1
const LOOP_OFF = 2

var bake
var time = 0.0
var _materials = []


func _init(crowd_bake, count, shader):
	bake = crowd_bake
	var mm = MultiMesh.new()
	mm.transform_format = MultiMesh.TRANSFORM_3D
	mm.color_format = MultiMesh.COLOR_FLOAT
	mm.custom_data_format = MultiMesh.CUSTOM_DATA_FLOAT
	mm.mesh = bake.mesh.duplicate()
	mm.instance_count = count
	for s in range(mm.mesh.get_surface_count()):
		var material = ShaderMaterial.new()
		material.shader = shader
		for name in bake.material_params:
			material.set_shader_param(name, bake.material_params[name])
		material.set_shader_param("albedo", _srgb(bake.colors[s]))
		mm.mesh.surface_set_material(s, material)
		_materials.append(material)
	multimesh = mm
	# The vertices move in the shader: the animated bounds of every frame.
	var lo = bake.manifest["bounds"]["min"]
	var hi = bake.manifest["bounds"]["max"]
	mm.mesh.custom_aabb = AABB(Vector3(lo[0], lo[1], lo[2]),
			Vector3(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]))
	for i in range(count):
		set_instance(i, {})


# Sets the clock (seconds) the crowd is drawn at; call once per frame.
func update(time_s):
	time = time_s
	for m in _materials:
		m.set_shader_param("crowd_time", time_s)


# Replaces instance i's state (a crossfade in progress ends). desc keys, all
# optional: position (Vector3), heading (radians about +Y), scale, clip (index
# or name), time (clip time now, s), speed (1; 0 holds), loop (true, false,
# or absent for the clip's own flag).
func set_instance(i, desc):
	var heading = desc.get("heading", 0.0)
	var scale = desc.get("scale", 1.0)
	var basis = Basis(Vector3.UP, heading).scaled(Vector3(scale, scale, scale))
	multimesh.set_instance_transform(i, Transform(basis, desc.get("position", Vector3())))
	var speed = desc.get("speed", 1.0)
	var loop = LOOP_CLIP
	if desc.has("loop"):
		loop = LOOP_ON if desc["loop"] else LOOP_OFF
	var clip = bake.clip_index(desc.get("clip", 0))
	if clip < 0:
		push_error("crowd: no clip %s" % desc.get("clip"))
		return
	# clip time = (crowd_time - start) * speed + offset, from start = now
	multimesh.set_instance_custom_data(i, Color(clip * 4 + loop, time, desc.get("time", 0.0), speed))
	multimesh.set_instance_color(i, Color(0, 0, 0, 0))


# Starts `clip` from time 0 now, crossfading from the current clip over
# `fade` seconds (0 = cut); speed and loop mode carry over.
func play(i, clip, fade = 0.0):
	var index = bake.clip_index(clip)
	if index < 0:
		push_error("crowd: no clip %s" % clip)
		return
	# The fade starts with the new clip (its start), and the clip faded from
	# keeps its start, offset, speed and loop mode.
	var now = multimesh.get_instance_custom_data(i)
	var loop = int(now.r) % 4
	var from = Color(0, 0, 0, 0)
	if fade > 0.0:
		from = Color(int(now.r) / 4, now.g, now.b, fade)
	multimesh.set_instance_custom_data(i, Color(index * 4 + loop, time, 0.0, now.a))
	multimesh.set_instance_color(i, from)


# glTF colour factors are linear; hint_color uniforms take sRGB.
static func _srgb(c):
	var out = []
	for x in [c.r, c.g, c.b]:
		out.append(x * 12.92 if x <= 0.0031308 else 1.055 * pow(x, 1.0 / 2.4) - 0.055)
	return Color(out[0], out[1], out[2], c.a)
