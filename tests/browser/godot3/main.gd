# main.gd - draws the still frames test_godot3.mjs describes (the same specs
# as the browser page's, tests/browser/page/scene.js) with the Godot 3 crowd
# player and saves each as a PNG, then quits. Usage:
#   godot3 --path PROJECT -- SPECS.json
# SPECS.json: [{bake: manifest path, width, height, eye, target, instances,
# plays, time, out: PNG path}]. Exit code 0 when every frame was written.
extends Node

const CrowdBake = preload("res://crowd/godot3/crowd_bake.gd")

var _specs = []
var _bakes = {}
var _viewport
var _wait = 0
var _failed = false


func _ready():
	var args = OS.get_cmdline_args()
	var f = File.new()
	if args.size() == 0 or f.open(args[args.size() - 1], File.READ) != OK:
		_fail("no specs file given")
		return
	_specs = JSON.parse(f.get_as_text()).result
	f.close()
	_next()


func _fail(what):
	printerr("crowd godot3 test: ", what)
	_failed = true
	get_tree().quit(1)


# crowd render's sky and default light (tools/stage.c, crowd_light_default),
# as far as Godot's lights go: a sun and a flat ambient between crowd's sky
# and ground hemisphere colours. Colours are sRGB-encoded, as Godot takes them.
func _stage(world):
	var environment = Environment.new()
	environment.background_mode = Environment.BG_COLOR
	environment.background_color = _srgb(Color(0.32, 0.38, 0.46))
	environment.ambient_light_color = _srgb(Color(0.385, 0.405, 0.44))
	environment.ambient_light_energy = 1.0
	environment.tonemap_mode = Environment.TONE_MAPPER_LINEAR
	world.environment = environment
	var sun = DirectionalLight.new()
	sun.light_color = _srgb(Color(1.0, 0.95, 0.85))
	var towards = Vector3(0.3665, 0.8376, 0.4050).normalized()
	sun.transform = Transform().looking_at(-towards, Vector3.UP if abs(towards.y) < 0.99 else Vector3.BACK)
	return sun


static func _srgb(c):
	var out = []
	for x in [c.r, c.g, c.b]:
		out.append(x * 12.92 if x <= 0.0031308 else 1.055 * pow(x, 1.0 / 2.4) - 0.055)
	return Color(out[0], out[1], out[2])


func _next():
	if _specs.empty():
		get_tree().quit(0)
		return
	var spec = _specs[0]
	if not _bakes.has(spec["bake"]):
		var bake = CrowdBake.new()
		if not bake.load_bake(spec["bake"]):
			_fail(bake.error)
			return
		_bakes[spec["bake"]] = bake
	if _viewport != null:
		_viewport.queue_free()
	_viewport = Viewport.new()
	_viewport.size = Vector2(spec["width"], spec["height"])
	_viewport.own_world = true
	_viewport.world = World.new()
	_viewport.render_target_v_flip = true
	_viewport.render_target_update_mode = Viewport.UPDATE_ALWAYS
	add_child(_viewport)
	_viewport.add_child(_stage(_viewport.world))
	_viewport.add_child(_crowd(_bakes[spec["bake"]], spec))
	var camera = Camera.new()
	camera.fov = 45
	var eye = _vector(spec["eye"])
	var target = _vector(spec["target"])
	var distance = eye.distance_to(target)
	camera.near = 0.02 * distance
	camera.far = 20 * distance + 10
	_viewport.add_child(camera)
	camera.look_at_from_position(eye, target, Vector3.UP)
	camera.current = true
	_wait = 3


# The spec's crowd: instances set at clock 0, then its plays in order, drawn
# at its time.
func _crowd(bake, spec):
	var instances = spec["instances"]
	var crowd = bake.create_crowd(instances.size())
	for i in range(instances.size()):
		crowd.set_instance(i, _description(instances[i]))
	for p in spec.get("plays", []):
		crowd.update(p["at"])
		crowd.play(int(p["instance"]), p["clip"], p["fade"])
	crowd.update(spec["time"])
	return crowd


func _vector(a):
	return Vector3(a[0], a[1], a[2])


# A setInstance description of the specs as crowd.gd takes it.
func _description(d):
	var out = {}
	for key in d:
		out[key] = _vector(d[key]) if key == "position" else d[key]
	return out


func _process(_delta):
	if _failed or _wait == 0:
		return
	_wait -= 1
	if _wait > 0:
		return
	var image = _viewport.get_texture().get_data()
	var spec = _specs.pop_front()
	if image.save_png(spec["out"]) != OK:
		_fail("cannot write " + spec["out"])
		return
	_next()
