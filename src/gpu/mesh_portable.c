/* The portable tier's side of the mesh (GL 3.3 core, GLES 3.0, WebGL2: no
 * direct state access, no vertex buffer bindings, no storage buffers): the
 * buffers filled bound, the vertex array set with glVertexAttribPointer,
 * the materials as a row of RGBA32UI texels, and the instance records'
 * attributes pointed at a per-draw offset in place of a base instance.
 * Every binding changed here is in the world's saved state (state.c). */
#include "gpu/internal.h"

/* Bytes per vertex of each attribute section (mesh.c lays them out). */
static const GLsizei strides[GPU_ATTR_COUNT] = {12, 12, 8, 8, 16, 2, 4};

static void point_attribute(GLuint a, const gpu_mesh *m) {
    const void *at = (const void *)(uintptr_t)m->attr_offset[a];
    switch (a) {
    case GPU_ATTR_POSITION:
    case GPU_ATTR_NORMAL:
        glVertexAttribPointer(a, 3, GL_FLOAT, GL_FALSE, strides[a], at);
        break;
    case GPU_ATTR_UV:
        glVertexAttribPointer(a, 2, GL_FLOAT, GL_FALSE, strides[a], at);
        break;
    case GPU_ATTR_JOINTS:
        glVertexAttribIPointer(a, 4, GL_UNSIGNED_SHORT, strides[a], at);
        break;
    case GPU_ATTR_WEIGHTS:
        glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, strides[a], at);
        break;
    case GPU_ATTR_MATERIAL:
        glVertexAttribIPointer(a, 1, GL_UNSIGNED_SHORT, strides[a], at);
        break;
    default:
        glVertexAttribIPointer(a, 2, GL_UNSIGNED_SHORT, strides[a], at);
        break;
    }
}

crowd_result crowd__gpu_mesh_arrays_portable(gpu_mesh *m, const uint8_t *data, uint64_t total,
                                             const uint32_t *indices, uint64_t *memory_bytes,
                                             crowd_error *error) {
    /* The index buffer is made with the vertex array bound: WebGL2 types a
     * buffer by its first binding, and an index buffer must be one from
     * the start. */
    glGenVertexArrays(1, &m->vao);
    glBindVertexArray(m->vao);
    crowd_result result = crowd__gpu_buffer_create_bound(
        memory_bytes, &m->index_buffer, &m->index_bytes, GL_ELEMENT_ARRAY_BUFFER,
        m->index_total > 0 ? 4ull * m->index_total : 4, indices, GL_STATIC_DRAW, error);
    if (result == CROWD_OK) {
        result = crowd__gpu_buffer_create_bound(memory_bytes, &m->mesh_buffer, &m->mesh_bytes,
                                                GL_ARRAY_BUFFER, total > 0 ? total : 4, data,
                                                GL_STATIC_DRAW, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    for (GLuint a = 0; a < GPU_ATTR_COUNT; a++) {
        glEnableVertexAttribArray(a);
        point_attribute(a, m);
    }
    /* The records' attributes read one element per instance; each draw
     * points them at its first record (crowd__gpu_records_point). */
    for (GLuint k = 0; k < GPU_INSTANCE_ATTRS; k++) {
        glEnableVertexAttribArray(GPU_INSTANCE_ATTR + k);
        glVertexAttribDivisor(GPU_INSTANCE_ATTR + k, 1);
    }
    return crowd__gpu_check(error, "uploading the mesh");
}

void crowd__gpu_mesh_bind_pose_portable(const gpu_mesh *m) {
    glBindBuffer(GL_ARRAY_BUFFER, m->mesh_buffer);
    point_attribute(GPU_ATTR_POSITION, m);
    point_attribute(GPU_ATTR_NORMAL, m);
}

void crowd__gpu_records_point(GLuint buffer, uint64_t first_record) {
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    uint64_t base = first_record * sizeof(gpu_instance_record);
    GLsizei stride = sizeof(gpu_instance_record);
#define AT(word) ((const void *)(uintptr_t)(base + 4u * (word)))
    glVertexAttribPointer(GPU_INSTANCE_POSITION_ATTR, 3, GL_FLOAT, GL_FALSE, stride,
                          AT(GPU_RECORD_POSITION));
    glVertexAttribIPointer(GPU_INSTANCE_HEADING_ATTR, 1, GL_INT, stride, AT(GPU_RECORD_HEADING));
    glVertexAttribPointer(GPU_INSTANCE_MOTION_ATTR, 3, GL_FLOAT, GL_FALSE, stride,
                          AT(GPU_RECORD_SCALE));
    glVertexAttribPointer(GPU_INSTANCE_TINT_ATTR, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride,
                          AT(GPU_RECORD_TINT));
    glVertexAttribIPointer(GPU_INSTANCE_BITS_ATTR, 2, GL_UNSIGNED_INT, stride, AT(GPU_RECORD_BITS));
#undef AT
}

crowd_result crowd__gpu_material_records_portable(gpu_mesh *m, const crowd_world *world,
                                                  const gpu_material_record *records,
                                                  uint32_t count, uint64_t *memory_bytes,
                                                  crowd_error *error) {
    uint64_t width = (uint64_t)count * GPU_MATERIAL_VEC4S;
    if (width > (uint64_t)world->max_texture_size) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL,
                               "%u materials need a %llu-texel row, this GL implementation "
                               "allows %d",
                               count, (unsigned long long)width, (int)world->max_texture_size);
    }
    crowd_result result = crowd__gpu_texture_create_bound(
        world, &m->material_records, GPU_TEXTURE_MATERIAL_RECORDS, GL_RGBA32UI, (uint32_t)width, 1,
        GL_RGBA_INTEGER, GL_UNSIGNED_INT, records, error);
    if (result == CROWD_OK) {
        m->material_bytes = width * 16u;
        *memory_bytes += m->material_bytes;
    }
    return result;
}
