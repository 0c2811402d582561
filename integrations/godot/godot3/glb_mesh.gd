# glb_mesh.gd - Godot 3: a crowd bake's NAME.mesh.glb as an ArrayMesh, read
# at run time (Godot 3.2 imports glTF only in the editor). Reads glTF mesh 0
# (LOD0): per primitive a surface holding only the vertices it uses, with
# POSITION, NORMAL, TEXCOORD_0 and TEXCOORD_1 (UV2, the vertex's VAT texel,
# which is why vertices may be reordered and dropped freely).
extends Reference

const FLOAT = 5126
const UNSIGNED_INT = 5125
const UNSIGNED_SHORT = 5123
const SIZES = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}

var error = ""
var _json
var _bin = StreamPeerBuffer.new()
var _bin_offset = 0
var _accessors = {}  # read once: every primitive shares the vertex accessors


# Returns {mesh: ArrayMesh, colors: [Color] (each primitive's baseColorFactor,
# linear)}, or null with `error` set.
func load_glb(path):
	var f = File.new()
	if f.open(path, File.READ) != OK:
		error = "%s: cannot open" % path
		return null
	var bytes = f.get_buffer(f.get_len())
	f.close()
	_bin.data_array = bytes
	_bin.seek(0)
	if bytes.size() < 20 or _bin.get_u32() != 0x46546C67:
		error = "%s: not a GLB file" % path
		return null
	_bin.seek(12)
	var json_length = _bin.get_u32()
	var parsed = JSON.parse(bytes.subarray(20, 20 + json_length - 1).get_string_from_utf8())
	if parsed.error != OK:
		error = "%s: bad JSON chunk" % path
		return null
	_json = parsed.result
	_bin_offset = 20 + json_length + 8
	var mesh = ArrayMesh.new()
	var colors = []
	for primitive in _json["meshes"][0]["primitives"]:
		var a = primitive["attributes"]
		if not a.has("TEXCOORD_1"):
			error = "%s: no TEXCOORD_1 (a bake without a VAT?)" % path
			return null
		mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, _surface(primitive), [], 0)
		var material = _json["materials"][primitive.get("material", 0)]
		var factor = material.get("pbrMetallicRoughness", {}).get("baseColorFactor", [1, 1, 1, 1])
		colors.append(Color(factor[0], factor[1], factor[2], factor[3]))
	return {"mesh": mesh, "colors": colors}


# Values of an accessor, flattened.
func _read(index):
	if _accessors.has(index):
		return _accessors[index]
	var accessor = _json["accessors"][index]
	var view = _json["bufferViews"][accessor["bufferView"]]
	var n = int(accessor["count"]) * SIZES[accessor["type"]]
	var kind = int(accessor["componentType"])
	_bin.seek(_bin_offset + int(view.get("byteOffset", 0)) + int(accessor.get("byteOffset", 0)))
	var out = []
	out.resize(n)
	for i in range(n):
		if kind == FLOAT:
			out[i] = _bin.get_float()
		elif kind == UNSIGNED_INT:
			out[i] = _bin.get_u32()
		else:
			out[i] = _bin.get_u16()
	_accessors[index] = out
	return out


# The vertices a primitive uses, renumbered in first-use order, and its
# triangles wound clockwise (Godot's front faces; glTF's are
# counter-clockwise). No vertex compression: UV2 must keep full precision to
# land in its texel.
func _surface(primitive):
	var a = primitive["attributes"]
	var position = _read(a["POSITION"])
	var normal = _read(a["NORMAL"])
	var uv = _read(a["TEXCOORD_0"])
	var uv2 = _read(a["TEXCOORD_1"])
	var indices = _read(primitive["indices"])
	var local = {}
	var p = PoolVector3Array()
	var n = PoolVector3Array()
	var t = PoolVector2Array()
	var t2 = PoolVector2Array()
	var out = PoolIntArray()
	for k in range(indices.size()):
		var corner = k - k % 3 + [0, 2, 1][k % 3]
		var v = indices[corner]
		if not local.has(v):
			local[v] = p.size()
			p.append(Vector3(position[3 * v], position[3 * v + 1], position[3 * v + 2]))
			n.append(Vector3(normal[3 * v], normal[3 * v + 1], normal[3 * v + 2]))
			t.append(Vector2(uv[2 * v], uv[2 * v + 1]))
			t2.append(Vector2(uv2[2 * v], uv2[2 * v + 1]))
		out.append(local[v])
	var arrays = []
	arrays.resize(Mesh.ARRAY_MAX)
	arrays[Mesh.ARRAY_VERTEX] = p
	arrays[Mesh.ARRAY_NORMAL] = n
	arrays[Mesh.ARRAY_TEX_UV] = t
	arrays[Mesh.ARRAY_TEX_UV2] = t2
	arrays[Mesh.ARRAY_INDEX] = out
	return arrays
