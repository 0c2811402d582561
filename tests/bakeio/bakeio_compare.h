/* bakeio_compare.h - comparing two bakes field by field and texel by texel
 * (a written one with the one loaded back, or two loads of one folder), and
 * a bake folder read into a crowd_bake_file set for crowd_bake_load_memory.
 *
 * Include after check.h and bakeio_fixture.h.
 */
#ifndef CROWD_TEST_BAKEIO_COMPARE_H
#define CROWD_TEST_BAKEIO_COMPARE_H

static inline bool fx_same_floats(const float *a, const float *b, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (a[i] != b[i]) {
            return false;
        }
    }
    return true;
}

static inline void fx_compare_textures(const crowd_texture *a, const crowd_texture *b,
                                       const char *what) {
    CHECK_MSG(a->width == b->width && a->height == b->height && a->format == b->format,
              "%s: %ux%u/%d vs %ux%u/%d", what, a->width, a->height, a->format, b->width, b->height,
              b->format);
    if (a->texels == NULL || b->texels == NULL) {
        CHECK_MSG(a->texels == b->texels, "%s: texels present on one side only", what);
        return;
    }
    size_t bytes = (size_t)a->width * a->height * crowd__bake_texel_size_bytes(a->format);
    CHECK_MSG(memcmp(a->texels, b->texels, bytes) == 0, "%s: texels differ", what);
}

static inline void fx_compare_assets(const crowd_asset *a, const crowd_asset *b) {
    const crowd_mesh *m = &a->mesh, *n = &b->mesh;
    CHECK(m->vertex_count == n->vertex_count);
    CHECK(m->index_count == n->index_count);
    if (m->vertex_count != n->vertex_count || m->index_count != n->index_count) {
        return;
    }
    uint32_t v = m->vertex_count;
    CHECK(fx_same_floats(m->positions, n->positions, 3 * (size_t)v));
    CHECK(fx_same_floats(m->normals, n->normals, 3 * (size_t)v));
    CHECK(fx_same_floats(m->uv0, n->uv0, 2 * (size_t)v));
    CHECK(memcmp(m->joints, n->joints, 4 * (size_t)v * sizeof *m->joints) == 0);
    CHECK(fx_same_floats(m->weights, n->weights, 4 * (size_t)v));
    CHECK(memcmp(m->indices, n->indices, m->index_count * sizeof *m->indices) == 0);
    CHECK(m->submesh_count == n->submesh_count);
    for (uint32_t s = 0; s < m->submesh_count && s < n->submesh_count; s++) {
        CHECK(memcmp(&m->submeshes[s], &n->submeshes[s], sizeof m->submeshes[s]) == 0);
    }
    CHECK(a->material_count == b->material_count);
    for (uint32_t i = 0; i < a->material_count && i < b->material_count; i++) {
        const crowd_material *x = &a->materials[i], *y = &b->materials[i];
        CHECK_MSG(strcmp(x->name, y->name) == 0, "material %u: \"%s\" vs \"%s\"", i, x->name,
                  y->name);
        CHECK(fx_same_floats(x->base_color, y->base_color, 4));
        CHECK(x->texture_width == y->texture_width && x->texture_height == y->texture_height);
        if (x->texture_rgba8 != NULL && y->texture_rgba8 != NULL &&
            x->texture_width == y->texture_width && x->texture_height == y->texture_height) {
            CHECK(memcmp(x->texture_rgba8, y->texture_rgba8,
                         (size_t)x->texture_width * x->texture_height * 4) == 0);
        } else {
            CHECK(x->texture_rgba8 == NULL && y->texture_rgba8 == NULL);
        }
        const char *differs = fx_material_differs(x, y);
        CHECK_MSG(differs == NULL, "material %u: %s", i, differs);
    }
    const crowd_skeleton *s = &a->skeleton, *t = &b->skeleton;
    CHECK(s->joint_count == t->joint_count);
    if (s->joint_count != t->joint_count) {
        return;
    }
    uint32_t j = s->joint_count;
    for (uint32_t i = 0; i < j; i++) {
        CHECK(strcmp(s->names[i], t->names[i]) == 0);
        CHECK(s->parents[i] == t->parents[i]);
    }
    CHECK(fx_same_floats(s->rest_translation, t->rest_translation, 3 * (size_t)j));
    CHECK(fx_same_floats(s->rest_rotation, t->rest_rotation, 4 * (size_t)j));
    CHECK(fx_same_floats(s->rest_scale, t->rest_scale, 3 * (size_t)j));
    CHECK(fx_same_floats(s->inverse_bind, t->inverse_bind, 16 * (size_t)j));
    CHECK(fx_same_floats(s->root_transform, t->root_transform, 16));
    CHECK(b->has_skin);
    /* The runtime clips: the same clips (their tracks may be stored more
     * compactly than the source's: test_bakeio_anim samples them). */
    CHECK(a->clip_count == b->clip_count);
    for (uint32_t c = 0; c < a->clip_count && c < b->clip_count; c++) {
        CHECK(strcmp(a->clips[c].name, b->clips[c].name) == 0 &&
              a->clips[c].duration_s == b->clips[c].duration_s);
    }
}

static inline void fx_compare_bakes(const crowd_bake *a, const crowd_bake *b) {
    CHECK(strcmp(a->name, b->name) == 0);
    CHECK(strcmp(a->source, b->source) == 0);
    CHECK(a->vertex_count == b->vertex_count && a->joint_count == b->joint_count);
    CHECK(a->between_error_budget_rel == b->between_error_budget_rel);
    CHECK(fx_same_floats(a->bounds_min, b->bounds_min, 3) &&
          fx_same_floats(a->bounds_max, b->bounds_max, 3));
    CHECK(a->frame_count == b->frame_count);
    CHECK(a->clip_count == b->clip_count);
    for (uint32_t i = 0; i < a->clip_count && i < b->clip_count; i++) {
        const crowd_bake_clip *x = &a->clips[i], *y = &b->clips[i];
        CHECK(strcmp(x->name, y->name) == 0);
        CHECK(x->duration_s == y->duration_s && x->loop == y->loop);
        CHECK(x->first_frame == y->first_frame && x->frame_count == y->frame_count);
        CHECK(x->fps == y->fps && x->layout == y->layout && x->key_rate == y->key_rate);
        CHECK(x->rate_multiple == y->rate_multiple && x->within_budget == y->within_budget);
        CHECK(x->between_error_max == y->between_error_max &&
              x->between_error_mean == y->between_error_mean);
        CHECK(y->source_clip == (b->anim.present ? i : UINT32_MAX));
        CHECK(fx_same_floats(x->bounds_min, y->bounds_min, 3) &&
              fx_same_floats(x->bounds_max, y->bounds_max, 3));
        CHECK(fx_same_floats(x->sphere_center, y->sphere_center, 3) &&
              x->sphere_radius == y->sphere_radius);
    }
    /* LODs: the same ranges, errors and arrays, word for word */
    CHECK(a->lod_count == b->lod_count);
    CHECK(memcmp(a->lods, b->lods, sizeof a->lods) == 0);
    CHECK(a->lod_vertex_total == b->lod_vertex_total && a->lod_index_total == b->lod_index_total);
    if (a->lod_count > 1 && a->lod_count == b->lod_count &&
        a->lod_vertex_total == b->lod_vertex_total && a->lod_index_total == b->lod_index_total) {
        CHECK(memcmp(a->lod_vertices, b->lod_vertices, a->lod_vertex_total * sizeof(uint32_t)) ==
              0);
        CHECK(memcmp(a->lod_indices, b->lod_indices, a->lod_index_total * sizeof(uint32_t)) == 0);
    }
    bool vat = a->vat_position.texels != NULL, bat = a->bat.texels != NULL;
    if (vat) {
        crowd_vat_encoding expected =
            a->vat_encoding == CROWD_VAT_DEFAULT ? CROWD_VAT_UNORM16_OCT : a->vat_encoding;
        CHECK(b->vat_encoding == expected);
        CHECK(a->vat_rows_per_frame == b->vat_rows_per_frame);
    }
    if (bat) {
        crowd_bat_encoding expected =
            a->bat_encoding == CROWD_BAT_DEFAULT ? CROWD_BAT_F32 : a->bat_encoding;
        CHECK(b->bat_encoding == expected);
        CHECK(a->bat_rows_per_frame == b->bat_rows_per_frame);
    }
    fx_compare_textures(&a->vat_position, &b->vat_position, "vat position");
    fx_compare_textures(&a->vat_normal, &b->vat_normal, "vat normal");
    fx_compare_textures(&a->bat, &b->bat, "bat");
    /* Runtime clips when the first bake has them (built, or loaded), or
     * its asset has the clips (a bake made by hand: measured when written). */
    CHECK(b->anim.present == (a->anim.present || a->asset->clip_count > 0));
    CHECK(!a->anim.present ||
          (a->anim.track_count == b->anim.track_count && a->anim.key_count == b->anim.key_count &&
           a->anim.size_bytes == b->anim.size_bytes));
    CHECK(b->asset == b->owned_asset && b->asset != NULL);
    if (b->asset != NULL) {
        fx_compare_assets(a->asset, b->asset);
        CHECK(strcmp(b->asset->name, a->name) == 0);
    }
}

/* Reads every file of a folder into a memory file set. */
typedef struct fx_memory_set {
    crowd_bake_file files[16];
    char names[16][256];
    char *data[16];
    uint32_t count;
} fx_memory_set;

static inline void fx_memory_set_load(fx_memory_set *set, const char *dir) {
    memset(set, 0, sizeof *set);
    DIR *d = opendir(dir);
    struct dirent *entry;
    while (d != NULL && (entry = readdir(d)) != NULL && set->count < 16) {
        char path[1024];
        fx_join(path, sizeof path, dir, entry->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            continue;
        }
        uint32_t i = set->count++;
        snprintf(set->names[i], sizeof set->names[i], "%s", entry->d_name);
        size_t size = 0;
        set->data[i] = test_read_file(path, &size);
        set->files[i] = (crowd_bake_file){set->names[i], set->data[i], size};
    }
    if (d != NULL) {
        closedir(d);
    }
}

static inline void fx_memory_set_free(fx_memory_set *set) {
    for (uint32_t i = 0; i < set->count; i++) {
        free(set->data[i]);
    }
}

#endif
