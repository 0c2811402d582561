// ground.vert.glsl - a square under the crowd's feet, from gl_VertexID
// alone (triangle strip of 4 vertices, no vertex buffer).

layout(location = 0) uniform mat4 u_view_proj;
layout(location = 10) uniform vec4 u_ground_extent; // centre x, centre z, half size, height y

out vec3 v_world;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0;
    vec3 world = vec3(u_ground_extent.x + corner.x * u_ground_extent.z, u_ground_extent.w,
                      u_ground_extent.y + corner.y * u_ground_extent.z);
    v_world = world;
    gl_Position = u_view_proj * vec4(world, 1.0);
}
