# crowd_bake.gd - Godot 3: a crowd VAT bake folder (encoding f16 or f32)
# loaded at run time, from which crowds are made (crowd.gd). The shader is
# ../crowd_vat.gdshader, the Godot 4 file, with its two Godot 4 uniform hints
# rewritten (Godot 3 takes filtering from the texture's flags instead).
#
#   var bake = preload("res://crowd/godot3/crowd_bake.gd").new()
#   if not bake.load_bake("/path/to/robot.crowd.json"): push_error(bake.error)
#   var crowd = bake.create_crowd(100)   # a MultiMeshInstance; add_child(crowd)
extends Reference

const GlbMesh = preload("glb_mesh.gd")
const Crowd = preload("crowd.gd")
const SHADER = "../crowd_vat.gdshader"
# Frame layouts (crowd_frame_layout, docs/time.md), as the shader takes them.
const FRAMES_END = 0
const FRAMES_WRAP = 1
const FRAMES_CLAMP = 2

var error = ""
var manifest = {}
var clips = []
var mesh
var colors = []
var material_params = {}
var _shader


# Loads the manifest at `path` and the files it names; false with `error`.
func load_bake(path):
	var f = File.new()
	if f.open(path, File.READ) != OK:
		error = "%s: cannot open" % path
		return false
	var parsed = JSON.parse(f.get_as_text())
	f.close()
	if parsed.error != OK or typeof(parsed.result) != TYPE_DICTIONARY:
		error = "%s: not JSON" % path
		return false
	manifest = parsed.result
	if manifest.get("format") != "crowd-bake" or not manifest.get("version") in [1.0, 2.0, 3.0, 4.0]:
		error = "%s: not a crowd bake of version 1 to 4" % path
		return false
	var vat = manifest.get("vat")
	if vat == null or not vat["encoding"] in ["f16", "f32"]:
		error = "%s: needs a VAT in f16 or f32 (Godot reads 16-bit PNG as 8 bits)" % path
		return false
	clips = manifest["clips"]
	if not _check_clips(path):
		return false
	var dir = path.get_base_dir()
	var glb = GlbMesh.new()
	var loaded = glb.load_glb(dir.plus_file(manifest["mesh"]))
	if loaded == null:
		error = glb.error
		return false
	mesh = loaded["mesh"]
	colors = loaded["colors"]
	var position = _texture(dir.plus_file(vat["position"]), vat)
	var normal = _texture(dir.plus_file(vat["normal"]), vat)
	if position == null or normal == null:
		return false
	_shader = _load_shader()
	if _shader == null:
		return false
	material_params = {
		"crowd_vat_position": position, "crowd_vat_normal": normal,
		"crowd_clips": _clip_table(), "crowd_rows_per_frame": int(vat["rows_per_frame"]),
	}
	return true


# A crowd of `count` instances of this bake.
func create_crowd(count):
	return Crowd.new(self, count, _shader)


# Index of a clip given by index or name, -1 when there is none.
func clip_index(clip):
	if typeof(clip) == TYPE_STRING:
		for i in range(clips.size()):
			if clips[i]["name"] == clip:
				return i
		return -1
	return int(clip) if int(clip) >= 0 and int(clip) < clips.size() else -1


# An EXR as a texture of its exact values (Godot 3 keeps EXR as half
# floats): no filtering, no mipmaps, no repeat, no sRGB. Rows stay in file
# order, so texture row r is the manifest's row r.
func _texture(path, want):
	var image = Image.new()
	if image.load(path) != OK:
		error = "%s: cannot read the EXR" % path
		return null
	if image.get_width() != int(want["width"]) or image.get_height() != int(want["height"]):
		error = "%s: image is %dx%d, the manifest says %dx%d" % [path, image.get_width(),
				image.get_height(), want["width"], want["height"]]
		return null
	var texture = ImageTexture.new()
	texture.create_from_image(image, 0)
	return texture


# Every clip's fps and frame layout (docs/time.md): version 3 (and 4) gives each
# clip its own fps and the END layout, whose frame count must be
# 1 + max(1, ceil(d * fps - 0.001)) (1 when d is 0); versions 1 and 2 have
# the root fps and WRAP for looping, CLAMP for one-shot clips.
func _check_clips(path):
	var version = int(manifest["version"])
	for c in clips:
		if version >= 3:
			var fps = c.get("fps")
			if typeof(fps) != TYPE_REAL or not fps > 0.0:
				error = "%s: clip \"%s\" has no fps" % [path, c.get("name")]
				return false
			var want = end_frame_count(c["duration_s"], fps)
			if int(c["frame_count"]) != want:
				error = "%s: clip \"%s\": %d frames, but %s s at %s fps has %d (docs/time.md)" % [
						path, c.get("name"), c["frame_count"], c["duration_s"], fps, want]
				return false
			c["layout"] = FRAMES_END
		else:
			c["fps"] = float(manifest["fps"])
			c["layout"] = FRAMES_WRAP if c["loop"] else FRAMES_CLAMP
	return true


# Frames of an END layout (crowd_anim_frame_count of include/crowd/anim.h):
# the duration and fps as the float32 the runtime reads (a PoolRealArray
# holds float32), their product in double as there.
static func end_frame_count(duration, fps):
	var f32 = PoolRealArray([duration, fps])
	if not f32[0] > 0.0:
		return 1
	return 1 + int(max(1.0, ceil(f32[0] * f32[1] - 0.001)))


# Two texels per clip (column = clip): row 0 first_frame, frame_count,
# duration_s, fps; row 1 the frame layout, 1 if baked as a loop.
func _clip_table():
	var image = Image.new()
	image.create(clips.size(), 2, false, Image.FORMAT_RGBAF)
	image.lock()
	for i in range(clips.size()):
		var c = clips[i]
		image.set_pixel(i, 0, Color(c["first_frame"], c["frame_count"], c["duration_s"], c["fps"]))
		image.set_pixel(i, 1, Color(c["layout"], 1.0 if c["loop"] else 0.0, 0.0, 0.0))
	image.unlock()
	var texture = ImageTexture.new()
	texture.create_from_image(image, 0)
	return texture


func _load_shader():
	var f = File.new()
	var path = get_script().resource_path.get_base_dir().plus_file(SHADER)
	if f.open(path, File.READ) != OK:
		error = "%s: cannot open the shader" % path
		return null
	var code = f.get_as_text()
	f.close()
	var shader = Shader.new()
	shader.code = code.replace(" : filter_nearest, repeat_disable", "").replace(
			": source_color", ": hint_color")
	return shader
