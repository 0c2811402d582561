# time_cases.gd - runs the clip-time case table through the Godot shader's
# rule: the lines of res://crowd/crowd_vat.gdshader between its "the
# clip-time rule" markers, compiled unchanged into a canvas_item shader that
# draws every output (clip time, frame0, frame1, weight of each case) as the
# four bytes of its float32 bits, three in the RGB of one pixel and the
# fourth in the red of the next, into an 8-bit viewport read back and written
# raw: Godot 3's float viewports are half floats, and its 8-bit ones
# RGB10_A2, whose alpha holds 2 bits. The rule runs
# in fragment() here and in vertex() in the player: both are float32 on
# desktop GL. Usage:
#   godot3 --path PROJECT res://time_cases.tscn -- INPUTS.json OUT.bin
# INPUTS.json: [[clock, start, offset, speed, duration, fps, frame_count,
# layout + 4 if looping], ...]; OUT.bin: the first row's RGBA8 pixels, 8 a
# case. test_godot3_time_cases.mjs decodes and compares them.
extends Node

const SHADER = "res://crowd/crowd_vat.gdshader"
const BEGIN = "// ---- the clip-time rule"
const END = "// ---- end of the clip-time rule ----"

var _viewport
var _out = ""
var _wait = 3


func _ready():
	var args = OS.get_cmdline_args()
	var f = File.new()
	if args.size() < 2 or f.open(args[args.size() - 2], File.READ) != OK:
		_fail("usage: -- INPUTS.json OUT.bin")
		return
	var inputs = JSON.parse(f.get_as_text()).result
	f.close()
	_out = args[args.size() - 1]
	var rule = _rule()
	if rule == "":
		return
	var n = inputs.size()
	# Inputs: two RGBA32F texels a case (column = case).
	var image = Image.new()
	image.create(n, 2, false, Image.FORMAT_RGBAF)
	image.lock()
	for i in range(n):
		var c = inputs[i]
		image.set_pixel(i, 0, Color(c[0], c[1], c[2], c[3]))
		image.set_pixel(i, 1, Color(c[4], c[5], c[6], c[7]))
	image.unlock()
	var texture = ImageTexture.new()
	texture.create_from_image(image, 0)
	var shader = Shader.new()
	shader.code = "shader_type canvas_item;\nrender_mode blend_disabled;\n" + \
			"uniform sampler2D crowd_cases;\n" + rule + _fragment()
	var material = ShaderMaterial.new()
	material.shader = shader
	material.set_shader_param("crowd_cases", texture)
	_viewport = Viewport.new()
	# Two rows, the first read: Godot 3 draws nothing into a viewport one
	# pixel high.
	_viewport.size = Vector2(8 * n, 2)
	_viewport.hdr = false
	_viewport.usage = Viewport.USAGE_2D
	_viewport.render_target_update_mode = Viewport.UPDATE_ALWAYS
	add_child(_viewport)
	var rect = ColorRect.new()
	rect.rect_size = Vector2(8 * n, 2)
	rect.material = material
	_viewport.add_child(rect)


# The shader's rule, marker lines included; "" (and a failure) without it.
func _rule():
	var f = File.new()
	if f.open(SHADER, File.READ) != OK:
		_fail("cannot open " + SHADER)
		return ""
	var code = f.get_as_text()
	f.close()
	var begin = code.find(BEGIN)
	var end = code.find(END)
	if begin < 0 or end < begin:
		_fail(SHADER + " has no clip-time rule between its markers")
		return ""
	return code.substr(begin, end + END.length() - begin) + "\n"


func _fragment():
	return """
void fragment() {
	int p = int(FRAGCOORD.x);
	int i = p / 8;
	int j = (p % 8) / 2;
	vec4 play = texelFetch(crowd_cases, ivec2(i, 0), 0);
	vec4 frames = texelFetch(crowd_cases, ivec2(i, 1), 0);
	int flags = int(frames.w);
	float t = crowd_play_time(play.x, play.y, play.z, play.w, frames.x, flags >= 4);
	int f0;
	int f1;
	float weight;
	crowd_frame_pair(frames.y, frames.x, int(frames.z), flags % 4, t, f0, f1, weight);
	float value = j == 0 ? t : (j == 1 ? float(f0) : (j == 2 ? float(f1) : weight));
	uint bits = floatBitsToUint(value);
	if (p % 2 == 0) {
		COLOR = vec4(float(bits & uint(255)), float((bits >> uint(8)) & uint(255)),
				float((bits >> uint(16)) & uint(255)), 255.0) / 255.0;
	} else {
		COLOR = vec4(float(bits >> uint(24)), 0.0, 0.0, 255.0) / 255.0;
	}
}
"""


func _fail(what):
	printerr("crowd godot3 time cases: ", what)
	get_tree().quit(1)


func _process(_delta):
	if _viewport == null or _wait == 0:
		return
	_wait -= 1
	if _wait > 0:
		return
	var image = _viewport.get_texture().get_data()
	if image.get_format() != Image.FORMAT_RGBA8:
		_fail("the viewport reads back as format %d, not RGBA8" % image.get_format())
		return
	var f = File.new()
	if f.open(_out, File.WRITE) != OK:
		_fail("cannot write " + _out)
		return
	f.store_buffer(image.get_data().subarray(0, 4 * image.get_width() - 1))
	f.close()
	get_tree().quit(0)
