/* The character's mesh on the GPU, shared by every mode: one buffer holding
 * each vertex attribute as its own section, the index buffer, the vertex
 * array (which also reads the instance records, instances.c), and the
 * materials (a storage buffer of base colours plus one
 * texture array holding every base-colour texture at a common size). The
 * portable tier's buffers, vertex array and material records are made in
 * mesh_portable.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "gpu/internal.h"

/* One mesh upload: the part it fills and what it reads. */
typedef struct mesh_upload {
    gpu_mesh *mesh;
    const crowd_asset *drawn; /* mesh and materials */
    const crowd_bake *bake;   /* LODs and VAT layout, or NULL */
    const crowd_world *world; /* allocator, logger, texture limits */
    uint64_t *memory_bytes;
} mesh_upload;

/* Per-vertex material index from the submeshes (a vertex shared between
 * submeshes keeps the first one's material). */
static uint16_t *vertex_materials(const crowd_allocator *allocator, const crowd_mesh *mesh,
                                  uint32_t material_count, uint32_t *shared_out) {
    uint16_t *materials = crowd__mem_alloc_zeroed(
        allocator, mesh->vertex_count > 0 ? mesh->vertex_count : 1, sizeof *materials);
    uint8_t *set =
        crowd__mem_alloc_zeroed(allocator, mesh->vertex_count > 0 ? mesh->vertex_count : 1, 1);
    if (materials == NULL || set == NULL) {
        crowd__mem_free(allocator, materials);
        crowd__mem_free(allocator, set);
        return NULL;
    }
    uint32_t shared = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const crowd_submesh *sub = &mesh->submeshes[s];
        uint16_t material = (uint16_t)(sub->material < material_count ? sub->material : 0);
        for (uint32_t i = sub->first_index; i < sub->first_index + sub->index_count; i++) {
            uint32_t v = mesh->indices[i];
            if (set[v] && materials[v] != material) {
                shared++;
            } else if (!set[v]) {
                materials[v] = material;
                set[v] = 1;
            }
        }
    }
    crowd__mem_free(allocator, set);
    *shared_out = shared;
    return materials;
}

/* Bilinear resample of an RGBA8 image to width x height (texel centres). */
static void resample(const uint8_t *src, uint32_t sw, uint32_t sh, uint8_t *dst, uint32_t dw,
                     uint32_t dh) {
    for (uint32_t y = 0; y < dh; y++) {
        float fy = ((float)y + 0.5f) * (float)sh / (float)dh - 0.5f;
        fy = fy < 0.0f ? 0.0f : fy;
        uint32_t y0 = (uint32_t)fy;
        y0 = y0 < sh - 1 ? y0 : sh - 1;
        uint32_t y1 = y0 + 1 < sh ? y0 + 1 : y0;
        float ay = fy - (float)y0;
        for (uint32_t x = 0; x < dw; x++) {
            float fx = ((float)x + 0.5f) * (float)sw / (float)dw - 0.5f;
            fx = fx < 0.0f ? 0.0f : fx;
            uint32_t x0 = (uint32_t)fx;
            x0 = x0 < sw - 1 ? x0 : sw - 1;
            uint32_t x1 = x0 + 1 < sw ? x0 + 1 : x0;
            float ax = fx - (float)x0;
            for (int c = 0; c < 4; c++) {
                float a = src[((size_t)y0 * sw + x0) * 4 + c];
                float b = src[((size_t)y0 * sw + x1) * 4 + c];
                float d = src[((size_t)y1 * sw + x0) * 4 + c];
                float e = src[((size_t)y1 * sw + x1) * 4 + c];
                float top = a + (b - a) * ax;
                float bottom = d + (e - d) * ax;
                dst[((size_t)y * dw + x) * 4 + c] = (uint8_t)lrintf(top + (bottom - top) * ay);
            }
        }
    }
}

static uint32_t mip_levels(uint32_t width, uint32_t height) {
    uint32_t size = width > height ? width : height;
    uint32_t levels = 1;
    while (size > 1) {
        size /= 2;
        levels++;
    }
    return levels;
}

static uint64_t mip_chain_bytes(uint32_t width, uint32_t height, uint32_t levels, uint32_t layers,
                                uint32_t texel_bytes) {
    uint64_t total = 0;
    for (uint32_t l = 0; l < levels; l++) {
        total += (uint64_t)width * height * layers * texel_bytes;
        width = width > 1 ? width / 2 : 1;
        height = height > 1 ? height / 2 : 1;
    }
    return total;
}

/* The base-colour texture array: immutable storage by direct state access
 * on the GL 4.5 tier; on the portable tier (GL 3.3 has neither) made bound
 * on unit GPU_TEXTURE_MATERIALS, whose binding the world's saved state puts
 * back. */
static void material_array_storage(mesh_upload *u, uint32_t levels, uint32_t size,
                                   uint32_t layers) {
    if (!u->world->portable) {
        glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &u->mesh->material_textures);
        glTextureStorage3D(u->mesh->material_textures, (GLsizei)levels, GL_SRGB8_ALPHA8,
                           (GLsizei)size, (GLsizei)size, (GLsizei)layers);
        return;
    }
    glGenTextures(1, &u->mesh->material_textures);
    glActiveTexture(GL_TEXTURE0 + GPU_TEXTURE_MATERIALS);
    glBindTexture(GL_TEXTURE_2D_ARRAY, u->mesh->material_textures);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_SRGB8_ALPHA8, (GLsizei)size, (GLsizei)size,
                 (GLsizei)layers, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
}

static void material_array_layer(mesh_upload *u, uint32_t layer, uint32_t size,
                                 const uint8_t *rgba) {
    if (!u->world->portable) {
        glTextureSubImage3D(u->mesh->material_textures, 0, 0, 0, (GLint)layer, (GLsizei)size,
                            (GLsizei)size, 1, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    } else {
        glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, (GLint)layer, (GLsizei)size, (GLsizei)size, 1,
                        GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    }
}

static void material_array_finish(mesh_upload *u) {
    const GLenum names[4] = {GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER, GL_TEXTURE_WRAP_S,
                             GL_TEXTURE_WRAP_T};
    const GLint values[4] = {GL_LINEAR_MIPMAP_LINEAR, GL_LINEAR, GL_REPEAT, GL_REPEAT};
    if (!u->world->portable) {
        glGenerateTextureMipmap(u->mesh->material_textures);
    } else {
        glGenerateMipmap(GL_TEXTURE_2D_ARRAY);
    }
    for (int i = 0; i < 4; i++) {
        if (!u->world->portable) {
            glTextureParameteri(u->mesh->material_textures, names[i], values[i]);
        } else {
            glTexParameteri(GL_TEXTURE_2D_ARRAY, names[i], values[i]);
        }
    }
}

static crowd_result upload_materials(mesh_upload *u, crowd_error *error) {
    const crowd_allocator *allocator = &u->world->allocator;
    const crowd_asset *asset = u->drawn;
    uint32_t count = asset->material_count > 0 ? asset->material_count : 1;
    gpu_material_record *records = crowd__mem_alloc_zeroed(allocator, count, sizeof *records);
    if (records == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    uint32_t size = 1, layers = 0;
    for (uint32_t m = 0; m < count; m++) {
        records[m].texture_layer = -1;
        /* no material at all: a matte dielectric, as crowd always drew it */
        records[m].metallic = asset->material_count > 0 ? asset->materials[m].metallic : 0.0f;
        records[m].roughness = asset->material_count > 0 ? asset->materials[m].roughness : 1.0f;
        for (int c = 0; c < 4; c++) {
            records[m].base_color[c] = asset->material_count > 0 ? asset->materials[m].base_color[c]
                                                                 : (c < 3 ? 0.7f : 1.0f);
        }
        if (asset->material_count > 0 && asset->materials[m].texture_rgba8 != NULL &&
            asset->materials[m].texture_width > 0 && asset->materials[m].texture_height > 0) {
            records[m].texture_layer = (int32_t)layers++;
            uint32_t big = asset->materials[m].texture_width > asset->materials[m].texture_height
                               ? asset->materials[m].texture_width
                               : asset->materials[m].texture_height;
            size = big > size ? big : size;
        }
    }
    uint32_t cap = CROWD_WORLD_MAX_MATERIAL_TEXTURE;
    if ((uint32_t)u->world->max_texture_size < cap) {
        cap = (uint32_t)u->world->max_texture_size;
    }
    size = size < cap ? size : cap;
    if (layers > (uint32_t)u->world->max_texture_layers) {
        crowd__mem_free(allocator, records);
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL,
                               "%u textured materials, the GL implementation allows %d", layers,
                               u->world->max_texture_layers);
    }
    crowd_result result =
        u->world->portable
            ? crowd__gpu_material_records_portable(u->mesh, u->world, records, count,
                                                   u->memory_bytes, error)
            : crowd__gpu_buffer_create(u->memory_bytes, &u->mesh->material_buffer,
                                       &u->mesh->material_bytes, (uint64_t)count * sizeof *records,
                                       records, 0, error);
    crowd__mem_free(allocator, records);
    if (result != CROWD_OK) {
        return result;
    }

    /* Always an array, so the sampler is valid: a white texel when nothing is textured. */
    uint32_t layer_count = layers > 0 ? layers : 1;
    uint32_t levels = mip_levels(size, size);
    material_array_storage(u, levels, size, layer_count);
    u->mesh->material_texture_bytes = mip_chain_bytes(size, size, levels, layer_count, 4);
    *u->memory_bytes += u->mesh->material_texture_bytes;
    uint8_t *pixels = crowd__mem_alloc(allocator, (size_t)size * size * 4);
    if (pixels == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    gpu_unpack_state unpack;
    crowd__gpu_unpack_begin(&unpack, u->world->gles);
    if (layers == 0) {
        memset(pixels, 255, (size_t)size * size * 4);
        material_array_layer(u, 0, size, pixels);
    }
    for (uint32_t m = 0, layer = 0; m < asset->material_count; m++) {
        const crowd_material *mat = &asset->materials[m];
        if (mat->texture_rgba8 == NULL || mat->texture_width == 0 || mat->texture_height == 0) {
            continue;
        }
        const uint8_t *src = mat->texture_rgba8;
        if (mat->texture_width != size || mat->texture_height != size) {
            resample(mat->texture_rgba8, mat->texture_width, mat->texture_height, pixels, size,
                     size);
            src = pixels;
        }
        material_array_layer(u, layer, size, src);
        layer++;
    }
    crowd__gpu_unpack_end(&unpack, u->world->gles);
    crowd__mem_free(allocator, pixels);
    material_array_finish(u);
    return crowd__gpu_check(error, "uploading material textures");
}

/* The LOD0 vertex that vertex `i` of the uploaded buffer copies: itself
 * for LOD0, its source for the LODs' compacted vertices that follow. */
static uint32_t source_vertex(const mesh_upload *u, uint64_t i) {
    uint32_t v = u->drawn->mesh.vertex_count;
    return i < v ? (uint32_t)i : u->bake->lod_vertices[i - v];
}

/* Copies `element` bytes per vertex from LOD0's array into every uploaded
 * vertex (zeros when the mesh lacks the attribute). */
static void gather(const mesh_upload *u, const void *source, size_t element, uint8_t *out) {
    for (uint64_t i = 0; i < u->mesh->vertex_total; i++) {
        if (source != NULL) {
            memcpy(out + i * element, (const uint8_t *)source + source_vertex(u, i) * element,
                   element);
        } else {
            memset(out + i * element, 0, element);
        }
    }
}

/* The LODs' ranges in the uploaded index buffer: LOD0's indices, then each
 * LOD's rebased onto its compacted vertices after LOD0's. A bake without
 * LODs (or an asset alone) has LOD0 only. */
static void plan_lods(mesh_upload *u) {
    const crowd_mesh *mesh = &u->drawn->mesh;
    const crowd_bake *bake = u->bake;
    u->mesh->lod_count = bake != NULL && bake->lod_count > 1 ? bake->lod_count : 1;
    u->mesh->vertex_total = mesh->vertex_count;
    u->mesh->index_total = mesh->index_count;
    u->mesh->lod_first_index[0] = 0;
    u->mesh->lod_index_count[0] = mesh->index_count;
    u->mesh->lod_error[0] = 0.0f;
    for (uint32_t k = 1; k < u->mesh->lod_count; k++) {
        u->mesh->lod_first_index[k] = u->mesh->index_total;
        u->mesh->lod_index_count[k] = bake->lods[k].index_count;
        u->mesh->lod_error[k] = bake->lods[k].error;
        u->mesh->index_total += bake->lods[k].index_count;
    }
    if (u->mesh->lod_count > 1) {
        u->mesh->vertex_total += bake->lod_vertex_total;
    }
}

static uint32_t *lod_indices(const mesh_upload *u) {
    const crowd_allocator *allocator = &u->world->allocator;
    const crowd_mesh *mesh = &u->drawn->mesh;
    uint32_t *indices = crowd__mem_alloc(
        allocator, (u->mesh->index_total > 0 ? u->mesh->index_total : 1) * sizeof *indices);
    if (indices == NULL) {
        return NULL;
    }
    if (mesh->index_count > 0) {
        memcpy(indices, mesh->indices, mesh->index_count * sizeof *indices);
    }
    for (uint32_t k = 1; k < u->mesh->lod_count; k++) {
        const crowd_bake_lod *lod = &u->bake->lods[k];
        uint32_t base = mesh->vertex_count + lod->first_vertex;
        for (uint32_t i = 0; i < lod->index_count; i++) {
            indices[u->mesh->lod_first_index[k] + i] =
                base + u->bake->lod_indices[lod->first_index + i];
        }
    }
    return indices;
}

/* The GL 4.5 tier's buffers (immutable storage) and vertex array (vertex
 * buffer bindings, formats and a binding divisor). */
static crowd_result arrays_gl45(gpu_mesh *m, const uint8_t *data, uint64_t total,
                                const uint32_t *indices, uint64_t *memory_bytes,
                                crowd_error *error) {
    crowd_result result = crowd__gpu_buffer_create(memory_bytes, &m->mesh_buffer, &m->mesh_bytes,
                                                   total > 0 ? total : 4, data, 0, error);
    if (result == CROWD_OK) {
        result = crowd__gpu_buffer_create(memory_bytes, &m->index_buffer, &m->index_bytes,
                                          m->index_total > 0 ? 4ull * m->index_total : 4, indices,
                                          0, error);
    }
    if (result != CROWD_OK) {
        return result;
    }

    /* The vertex array is set up bound, not through direct state access:
     * a driver that runs GL on its own thread (Mesa's glthread) follows
     * bound-state calls, and a draw from a vertex array whose buffers it
     * could not follow makes it wait for that thread. The caller's binding
     * is put back by the world (state.c). */
    glGenVertexArrays(1, &m->vao);
    glBindVertexArray(m->vao);
    const GLuint strides[GPU_ATTR_COUNT] = {12, 12, 8, 8, 16, 2, 4};
    for (GLuint a = 0; a < GPU_ATTR_COUNT; a++) {
        glEnableVertexAttribArray(a);
        glVertexAttribBinding(a, a);
        glBindVertexBuffer(a, m->mesh_buffer, m->attr_offset[a], (GLsizei)strides[a]);
    }
    glVertexAttribFormat(GPU_ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, 0);
    glVertexAttribFormat(GPU_ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, 0);
    glVertexAttribFormat(GPU_ATTR_UV, 2, GL_FLOAT, GL_FALSE, 0);
    glVertexAttribIFormat(GPU_ATTR_JOINTS, 4, GL_UNSIGNED_SHORT, 0);
    glVertexAttribFormat(GPU_ATTR_WEIGHTS, 4, GL_FLOAT, GL_FALSE, 0);
    glVertexAttribIFormat(GPU_ATTR_MATERIAL, 1, GL_UNSIGNED_SHORT, 0);
    glVertexAttribIFormat(GPU_ATTR_TEXEL, 2, GL_UNSIGNED_SHORT, 0);
    /* Instance records, one per instance (the buffer is bound at draw time:
     * it is replaced when it grows). */
    for (GLuint k = 0; k < GPU_INSTANCE_ATTRS; k++) {
        glEnableVertexAttribArray(GPU_INSTANCE_ATTR + k);
        glVertexAttribBinding(GPU_INSTANCE_ATTR + k, GPU_BINDING_INSTANCES);
    }
    glVertexAttribFormat(GPU_INSTANCE_POSITION_ATTR, 3, GL_FLOAT, GL_FALSE,
                         4 * GPU_RECORD_POSITION);
    glVertexAttribIFormat(GPU_INSTANCE_HEADING_ATTR, 1, GL_INT, 4 * GPU_RECORD_HEADING);
    glVertexAttribFormat(GPU_INSTANCE_MOTION_ATTR, 3, GL_FLOAT, GL_FALSE, 4 * GPU_RECORD_SCALE);
    glVertexAttribFormat(GPU_INSTANCE_TINT_ATTR, 4, GL_UNSIGNED_BYTE, GL_TRUE, 4 * GPU_RECORD_TINT);
    glVertexAttribIFormat(GPU_INSTANCE_BITS_ATTR, 2, GL_UNSIGNED_INT, 4 * GPU_RECORD_BITS);
    glVertexBindingDivisor(GPU_BINDING_INSTANCES, 1);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m->index_buffer);
    return crowd__gpu_check(error, "uploading the mesh");
}

static crowd_result upload(mesh_upload *u, crowd_error *error) {
    const crowd_allocator *allocator = &u->world->allocator;
    const crowd_mesh *mesh = &u->drawn->mesh;
    plan_lods(u);
    uint64_t v = u->mesh->vertex_total;
    /* Sections: position, normal (3 floats), uv (2 floats), joints (4 u16),
     * weights (4 floats), material (u16, padded to 4 bytes per vertex
     * pair), VAT texel of the LOD0 vertex (column and row, u16 each). */
    const uint64_t sizes[GPU_ATTR_COUNT] = {12 * v, 12 * v, 8 * v, 8 * v, 16 * v, 4 * ((v + 1) / 2),
                                            4 * v};
    uint64_t total = 0;
    for (int a = 0; a < GPU_ATTR_COUNT; a++) {
        u->mesh->attr_offset[a] = (GLintptr)total;
        total += sizes[a];
    }
    uint32_t shared = 0;
    uint16_t *materials = vertex_materials(allocator, mesh, u->drawn->material_count, &shared);
    uint32_t *texels = crowd__mem_alloc(allocator, (v > 0 ? v : 1) * sizeof *texels);
    uint32_t *indices = lod_indices(u);
    uint8_t *data = crowd__mem_alloc_zeroed(allocator, total > 0 ? total : 1, 1);
    if (materials == NULL || texels == NULL || indices == NULL || data == NULL) {
        crowd__mem_free(allocator, materials);
        crowd__mem_free(allocator, texels);
        crowd__mem_free(allocator, indices);
        crowd__mem_free(allocator, data);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    if (shared > 0) {
        crowd_log(&u->world->logger, CROWD_LOG_WARNING,
                  "%u vertex uses are shared between materials; each vertex keeps its first",
                  shared);
    }
    /* The VAT texel of each vertex's LOD0 vertex, column and row within a
     * frame (v % width, v / width), worked out here once instead of for
     * every vertex of every frame. */
    uint32_t width = u->bake != NULL && u->bake->vat_position.width > 0
                         ? u->bake->vat_position.width
                         : UINT32_MAX;
    for (uint64_t i = 0; i < v; i++) {
        uint32_t source = source_vertex(u, i);
        texels[i] = (source % width) | (source / width) << 16;
    }
    gather(u, mesh->positions, 12, data + u->mesh->attr_offset[GPU_ATTR_POSITION]);
    gather(u, mesh->normals, 12, data + u->mesh->attr_offset[GPU_ATTR_NORMAL]);
    gather(u, mesh->uv0, 8, data + u->mesh->attr_offset[GPU_ATTR_UV]);
    gather(u, mesh->joints, 8, data + u->mesh->attr_offset[GPU_ATTR_JOINTS]);
    gather(u, mesh->weights, 16, data + u->mesh->attr_offset[GPU_ATTR_WEIGHTS]);
    gather(u, materials, 2, data + u->mesh->attr_offset[GPU_ATTR_MATERIAL]);
    memcpy(data + u->mesh->attr_offset[GPU_ATTR_TEXEL], texels, 4 * v);
    crowd_result result =
        u->world->portable
            ? crowd__gpu_mesh_arrays_portable(u->mesh, data, total, indices, u->memory_bytes, error)
            : arrays_gl45(u->mesh, data, total, indices, u->memory_bytes, error);
    crowd__mem_free(allocator, materials);
    crowd__mem_free(allocator, texels);
    crowd__mem_free(allocator, data);
    crowd__mem_free(allocator, indices);
    if (result != CROWD_OK) {
        return result;
    }
    u->mesh->index_count = mesh->index_count;
    return upload_materials(u, error);
}

crowd_result crowd__gpu_mesh_upload(gpu_mesh *mesh, const crowd_asset *drawn,
                                    const crowd_bake *bake, const crowd_world *world,
                                    uint64_t *memory_bytes, crowd_error *error) {
    mesh_upload u = {mesh, drawn, bake, world, memory_bytes};
    return upload(&u, error);
}

/* Points the position and normal attributes of the bound vertex array (the
 * archetype's) back at the bind-pose mesh (cpu mode points them at each
 * character's skinned vertices). The portable tier's is in mesh_portable.c. */
void crowd__gpu_mesh_bind_pose(const gpu_mesh *mesh) {
    glBindVertexBuffer(GPU_ATTR_POSITION, mesh->mesh_buffer, mesh->attr_offset[GPU_ATTR_POSITION],
                       12);
    glBindVertexBuffer(GPU_ATTR_NORMAL, mesh->mesh_buffer, mesh->attr_offset[GPU_ATTR_NORMAL], 12);
}

void crowd__gpu_mesh_release(gpu_mesh *mesh, uint64_t *memory_bytes) {
    if (mesh->vao != 0) {
        glDeleteVertexArrays(1, &mesh->vao);
        mesh->vao = 0;
    }
    crowd__gpu_buffer_delete(memory_bytes, &mesh->mesh_buffer, &mesh->mesh_bytes);
    crowd__gpu_buffer_delete(memory_bytes, &mesh->index_buffer, &mesh->index_bytes);
    crowd__gpu_buffer_delete(memory_bytes, &mesh->material_buffer, &mesh->material_bytes);
    if (mesh->material_records != 0) {
        glDeleteTextures(1, &mesh->material_records);
        mesh->material_records = 0;
        *memory_bytes -= mesh->material_bytes;
        mesh->material_bytes = 0;
    }
    crowd__gpu_texture_delete(memory_bytes, &mesh->material_textures,
                              &mesh->material_texture_bytes);
}
