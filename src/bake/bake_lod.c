/* LODs with meshoptimizer (bake_lod.h): each LOD simplified from LOD 0
 * (errors of a chain would add up) to as few triangles as keep its error,
 * measured over the baked frames (bake_lod_error.c), within its budget
 * (below): the runtime picks LODs by that error, so a LOD's budget decides
 * where it is drawn.
 *
 * Debian 12 ships meshoptimizer 0.18, whose simplifier has neither attribute
 * weights (meshopt_simplifyWithAttributes came with 0.20), regularization
 * (0.22) nor vertex locks; it measures its error in the bind pose. What it
 * has: a target triangle count and meshopt_SimplifyLockBorder. So the
 * mesh is simplified on a welded copy (bake_lod_weld.c) cut into parts
 * (below), each part to its own fraction of triangles, and the search
 * measures what meshopt cannot see: the error over the animation, normals
 * and crossings between pieces. Each LOD's triangles are then grouped by
 * material (the mesh file has one primitive per material), each group
 * ordered for the vertex cache, and the vertices compacted in first-use
 * order (meshopt_optimizeVertexFetchRemap). */
#include "bake/bake_lod.h"

#include <float.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

/* Triangles grouped by material in material order, each group ordered for
 * the vertex cache. scratch: count indices. */
static bool order_by_material(const bake_lod_weld *weld, uint32_t material_count,
                              uint32_t vertex_count, uint32_t *indices, uint32_t count,
                              uint32_t *scratch) {
    uint32_t *first = calloc((size_t)material_count + 1, sizeof *first);
    if (first == NULL) {
        return false;
    }
    for (uint32_t t = 0; t < count; t += 3) {
        first[weld->materials[indices[t]] + 1] += 3;
    }
    for (uint32_t m = 0; m < material_count; m++) {
        first[m + 1] += first[m];
    }
    for (uint32_t t = 0; t < count; t += 3) {
        uint32_t *slot = &first[weld->materials[indices[t]]];
        memcpy(scratch + *slot, indices + t, 3 * sizeof *indices);
        *slot += 3;
    }
    uint32_t start = 0;
    for (uint32_t m = 0; m < material_count; m++) {
        /* first[m] now ends group m */
        if (first[m] > start) {
            meshopt_optimizeVertexCache(indices + start, scratch + start, first[m] - start,
                                        vertex_count);
        }
        start = first[m];
    }
    free(first);
    return true;
}

/* Appends LOD `lod` (indices into the baked vertices) to the bake with its
 * vertices compacted. remap: scratch of vertex_count entries. */
static bool append_lod(crowd_bake *bake, uint32_t lod, const uint32_t *indices, uint32_t count,
                       uint32_t *remap) {
    uint32_t vertex_count = bake->vertex_count;
    uint32_t used = (uint32_t)meshopt_optimizeVertexFetchRemap(remap, indices, count, vertex_count);
    uint32_t *vertices =
        realloc(bake->lod_vertices, ((size_t)bake->lod_vertex_total + used) * sizeof *vertices);
    if (vertices == NULL) {
        return false;
    }
    bake->lod_vertices = vertices;
    uint32_t *lod_indices =
        realloc(bake->lod_indices, ((size_t)bake->lod_index_total + count) * sizeof *lod_indices);
    if (lod_indices == NULL) {
        return false;
    }
    bake->lod_indices = lod_indices;
    for (uint32_t v = 0; v < vertex_count; v++) {
        if (remap[v] != UINT32_MAX) {
            vertices[bake->lod_vertex_total + remap[v]] = v;
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        lod_indices[bake->lod_index_total + i] = remap[indices[i]];
    }
    bake->lods[lod] = (crowd_bake_lod){
        .first_index = bake->lod_index_total,
        .index_count = count,
        .first_vertex = bake->lod_vertex_total,
        .vertex_count = used,
        .triangle_count = count / 3,
    };
    bake->lod_vertex_total += used;
    bake->lod_index_total += count;
    bake->lod_count = lod + 1;
    return true;
}

/* ---- parts: the mesh cut by piece and joint --------------------------------------- */

/* meshoptimizer measures its error in the bind pose, where a straight limb
 * is flat across the elbow: on the whole mesh it merges the rings that
 * bend there, and the LOD is off by a lot once the arm bends (builtin:,
 * half its triangles: 1.4 % of the diagonal). So the mesh is cut into
 * parts: a triangle goes to its piece of the mesh (crowd__bake_lod_pieces) and
 * to the joint that carries most of its corners' weight, within the first
 * budget also by whether it moves rigidly with that joint. Each part is
 * simplified alone with its outline locked (meshopt_SimplifyLockBorder),
 * so where parts meet, which is where the skinning hands over from one
 * joint to the next, LOD 0's edges stay; and each part only as far as its
 * own vertices stay within the LOD's limits over the baked frames (the
 * search below): a forearm loses most of its rings while the part that
 * holds the elbow's blended vertices keeps them, and a rivet that cannot
 * lose a triangle does not hold back the plate it sits on. Within the
 * first budget, triangles near another piece (crowd__bake_lod_contacts) stay as
 * they are. The coarsest LODs can do
 * better with the whole mesh as one part (pieces and joints merge): both
 * ways are tried. */

/* A corner moves rigidly with a joint that carries this much of it. */
#define LOD_RIGID 0.999f

/* Weight of `joint` in baked vertex v's skin. */
static float joint_weight(const crowd_mesh *mesh, uint32_t v, uint32_t joint) {
    float weight = 0.0f;
    for (uint32_t i = 0; i < CROWD_MAX_INFLUENCES; i++) {
        weight +=
            mesh->joints[4 * (size_t)v + i] == joint ? mesh->weights[4 * (size_t)v + i] : 0.0f;
    }
    return weight;
}

/* A welded triangle's joint: the one with the largest total weight over
 * its corners (ties: the lower joint). */
static uint32_t triangle_joint(const crowd_mesh *mesh, const bake_lod_weld *weld,
                               const uint32_t *tri) {
    /* copies of a welded vertex share its skin: the first stands for all */
    uint32_t corners[3];
    for (int k = 0; k < 3; k++) {
        corners[k] = weld->copies[weld->first[tri[k]]];
    }
    uint32_t best_joint = 0;
    float best = -1.0f;
    for (int k = 0; k < 3; k++) {
        for (uint32_t i = 0; i < CROWD_MAX_INFLUENCES; i++) {
            uint32_t joint = mesh->joints[4 * (size_t)corners[k] + i];
            float total = joint_weight(mesh, corners[0], joint) +
                          joint_weight(mesh, corners[1], joint) +
                          joint_weight(mesh, corners[2], joint);
            if (total > best || (total == best && joint < best_joint)) {
                best = total;
                best_joint = joint;
            }
        }
    }
    return best_joint;
}

/* Whether every corner of a welded triangle moves rigidly with `joint`. */
static bool moves_rigidly(const crowd_mesh *mesh, const bake_lod_weld *weld, const uint32_t *tri,
                          uint32_t joint) {
    bool rigid = true;
    for (int k = 0; k < 3; k++) {
        rigid = rigid && joint_weight(mesh, weld->copies[weld->first[tri[k]]], joint) >= LOD_RIGID;
    }
    return rigid;
}

/* What the search works on and with. */
typedef struct lod_scratch {
    /* LOD 0, welded: its triangles' joints, rigidity and contacts. */
    bake_lod_weld weld;
    uint32_t welded_count; /* LOD 0's welded indices */
    uint32_t *welded;      /* LOD 0 in welded vertices */
    uint32_t *pieces;      /* per welded vertex (crowd__bake_lod_pieces) */
    uint32_t *joint;       /* per welded triangle: triangle_joint */
    uint8_t *rigid;        /* per welded triangle: moves_rigidly */
    uint8_t *contact;      /* per welded triangle: near another piece */
    uint8_t *smooth;       /* per baked vertex (crowd__bake_lod_weld_smooth) */
    /* The parts of the LOD being made, `parts` of them (the arrays hold the
     * most a LOD can have); triangles kept as they are form part `parts`. */
    uint32_t parts;
    bool keep_contacts;
    uint32_t *part;        /* per welded triangle */
    uint32_t *sorted;      /* welded triangles grouped by part */
    uint32_t *part_first;  /* parts + 2: part j's are sorted[part_first[j] ..] */
    uint32_t *vertex_part; /* per welded vertex: the part it is inside, or `parts` */
    /* The grouped triangles over each part's own vertices (meshopt's cost
     * grows with the vertices it is given, used or not): part j's are
     * local_first[j] .. local_first[j + 1] of local_vertex (welded) and
     * local_positions; local: s->sorted in them. */
    uint32_t *local, *local_first, *local_vertex, *local_stamp, *local_of;
    float *local_positions;
    /* A candidate LOD and its screening. */
    uint32_t *simplified;   /* welded */
    uint32_t *baked;        /* simplified, in baked vertices */
    uint32_t *ordered;      /* scratch of order_by_material */
    uint32_t *remap;        /* scratch of append_lod */
    uint8_t *in_lod;        /* per welded vertex: used by the candidate */
    bake_lod_limits limits; /* of the LOD being made */
    uint8_t *over;          /* per baked vertex (crowd__bake_screen_lod) */
    /* Per part: the fraction of its triangles to keep, the least known to
     * pass, the most known to fail, the best candidate's; whether it has
     * a vertex over the limits. */
    float *keep, *passed, *failed, *best_keep;
    uint8_t *part_over;
} lod_scratch;

static void free_scratch(lod_scratch *s) {
    crowd__bake_lod_weld_free(&s->weld);
    free(s->welded);
    free(s->pieces);
    free(s->joint);
    free(s->rigid);
    free(s->part);
    free(s->contact);
    free(s->sorted);
    free(s->part_first);
    free(s->local);
    free(s->local_first);
    free(s->local_vertex);
    free(s->local_stamp);
    free(s->local_of);
    free(s->local_positions);
    free(s->vertex_part);
    free(s->simplified);
    free(s->baked);
    free(s->ordered);
    free(s->remap);
    free(s->over);
    free(s->smooth);
    free(s->in_lod);
    free(s->keep);
    free(s->passed);
    free(s->failed);
    free(s->best_keep);
    free(s->part_over);
}

/* Numbers the parts: a triangle's is its piece and its joint, with
 * `split` also whether it moves rigidly (a straight, rigid forearm can
 * lose every ring, the blended ones at its elbow none). */
static bool number_parts(lod_scratch *s, bool split) {
    uint32_t triangles = s->welded_count / 3;
    uint32_t(*keys)[3] = malloc((size_t)triangles * sizeof *keys + 1);
    if (keys == NULL) {
        return false;
    }
    for (uint32_t t = 0; t < triangles; t++) {
        keys[t][0] = s->pieces[s->welded[3 * (size_t)t]];
        keys[t][1] = s->joint[t];
        keys[t][2] = split && s->rigid[t];
    }
    s->parts = (uint32_t)meshopt_generateVertexRemap(s->part, NULL, triangles, keys, triangles,
                                                     sizeof *keys);
    /* the whole mesh is one part, also without triangles */
    s->parts = s->parts > 0 ? s->parts : 1;
    free(keys);
    return true;
}

/* Welded triangle t's part: 0 for the whole mesh, else its own, or
 * `parts` (kept as it is) near another piece. */
static uint32_t part_of(const lod_scratch *s, uint32_t t, bool whole, uint32_t parts) {
    return whole ? 0 : s->keep_contacts && s->contact[t] ? parts : s->part[t];
}

/* Each part's vertices numbered from 0 (lod_scratch's local arrays). */
static void number_locally(lod_scratch *s) {
    uint32_t count = 0;
    memset(s->local_stamp, 0, s->weld.count * sizeof *s->local_stamp);
    for (uint32_t j = 0; j < s->parts; j++) {
        s->local_first[j] = count;
        for (uint32_t i = s->part_first[j]; i < s->part_first[j + 1]; i++) {
            uint32_t u = s->sorted[i];
            /* local_stamp[u]: the part u was last numbered in, plus one */
            if (s->local_stamp[u] != j + 1) {
                s->local_stamp[u] = j + 1;
                s->local_vertex[count] = u;
                memcpy(s->local_positions + 3 * (size_t)count, s->weld.positions + 3 * (size_t)u,
                       3 * sizeof(float));
                s->local_of[u] = count++;
            }
            s->local[i] = s->local_of[u] - s->local_first[j];
        }
    }
    s->local_first[s->parts] = count;
}

/* The welded triangles grouped by part into s->sorted (part j in
 * part_first[j] .. part_first[j + 1], j <= parts), and the part each
 * welded vertex is inside (all its triangles in it), `parts` for the
 * vertices where parts meet. */
static void group_by_part(lod_scratch *s, bool whole) {
    uint32_t parts = s->parts, *first = s->part_first, triangles = s->welded_count / 3;
    memset(first, 0, ((size_t)parts + 2) * sizeof *first);
    for (uint32_t t = 0; t < triangles; t++) {
        first[part_of(s, t, whole, parts) + 1] += 3;
    }
    for (uint32_t j = 0; j <= parts; j++) {
        first[j + 1] += first[j];
    }
    memset(s->vertex_part, 0xff, s->weld.count * sizeof *s->vertex_part);
    for (uint32_t t = 0; t < triangles; t++) {
        uint32_t part = part_of(s, t, whole, parts);
        const uint32_t *tri = s->welded + 3 * (size_t)t;
        for (int k = 0; k < 3; k++) {
            uint32_t *inside = &s->vertex_part[tri[k]];
            *inside = *inside == UINT32_MAX || *inside == part ? part : parts;
        }
        /* first[part] runs ahead while filling and is shifted back below */
        memcpy(s->sorted + first[part], tri, 3 * sizeof *s->sorted);
        first[part] += 3;
    }
    for (uint32_t j = parts + 1; j > 0; j--) {
        first[j] = first[j - 1];
    }
    first[0] = 0;
    number_locally(s);
}

/* The grouped triangles into s->simplified, part j simplified to keep[j]
 * of its triangles (1: as it is); returns the index count. The whole mesh
 * has no outline to keep: its borders may move as meshopt sees fit. */
static uint32_t simplify_parts(lod_scratch *s, bool whole, const float *keep) {
    uint32_t parts = s->parts;
    const uint32_t *first = s->part_first;
    uint32_t count = 0;
    for (uint32_t j = 0; j <= parts; j++) {
        uint32_t n = first[j + 1] - first[j];
        if (j < parts && keep[j] < 1.0f && n > 0) {
            size_t target = 3 * (size_t)fmaxf(1.0f, floorf(keep[j] * (float)(n / 3)));
            uint32_t *out = s->simplified + count, base = s->local_first[j];
            uint32_t got = (uint32_t)meshopt_simplify(
                out, s->local + first[j], n, s->local_positions + 3 * (size_t)base,
                s->local_first[j + 1] - base, 3 * sizeof(float), target, FLT_MAX,
                whole ? 0 : meshopt_SimplifyLockBorder, NULL);
            for (uint32_t i = 0; i < got; i++) {
                out[i] = s->local_vertex[base + out[i]];
            }
            count += got;
        } else {
            memcpy(s->simplified + count, s->sorted + first[j], n * sizeof *s->simplified);
            count += n;
        }
    }
    return count;
}

/* ---- the error-bounded search ---------------------------------------------------- */

/* The budgets (BAKE_LOD_FIRST_BUDGET, BAKE_LOD_BUDGET_STEP): how far LOD k
 * may be from LOD 0 over the baked frames, 0.15 % of the bounds diagonal
 * and five times that per level. The runtime draws a LOD once its error
 * projects to about a pixel, so LOD 1 comes in when a character is some
 * 1 / 0.0015 = 670 pixels across, each LOD at five times the distance of
 * the one before. At LOD 1's switch builtin: and robot.glb differ from LOD
 * 0 in under 1 % of their pixels (test_gpu cull); at 0.2 % robot.glb came
 * to 1.2 % (its rivets go first). A step of four left builtin:'s LOD 3 at
 * 27 % of its triangles, five at 14 %. */
/* Within the first budget, how far a smooth vertex's normal may turn (in
 * the bind pose, radians: 20 degrees): meshopt 0.18 has no attribute
 * weights, and on builtin: it merged a forearm's rings within the distance
 * budget but shaded it a quarter darker (2 % of the pixels differed; 30
 * degrees let that through, 20 and 10 do not). */
#define LOD_NORMAL_ANGLE 0.35f
/* Screenings per way and LOD: each part's fraction bisected, to 1/64. */
#define LOD_SEARCH_STEPS 6
/* Tries at fixing the combination of every part's best fraction. */
#define LOD_REPAIRS 3

typedef struct lod_search {
    crowd_bake *bake;
    const bake_played *played;
    bake_lod_sample sample;
    uint32_t thread_count;
    lod_scratch *s;
} lod_search;

/* Removes LODs k.. from the bake. */
static void drop_lods(crowd_bake *bake, uint32_t k) {
    if (bake->lod_count > k) {
        bake->lod_vertex_total = bake->lods[k].first_vertex;
        bake->lod_index_total = bake->lods[k].first_index;
        bake->lod_count = k;
    }
}

/* Makes LOD k from the grouped triangles, keeping `keep` of each part, in
 * place of any LOD k already there: its triangle count (0: none made), or
 * UINT32_MAX when out of memory. */
static uint32_t make_lod(lod_search *q, uint32_t k, bool whole, const float *keep) {
    crowd_bake *bake = q->bake;
    const crowd_asset *asset = bake->asset;
    const crowd_mesh *mesh = &asset->mesh;
    lod_scratch *s = q->s;
    drop_lods(bake, k);
    uint32_t count = simplify_parts(s, whole, keep);
    if (count == 0) {
        return 0;
    }
    memset(s->in_lod, 0, s->weld.count);
    for (uint32_t i = 0; i < count; i++) {
        s->in_lod[s->simplified[i]] = 1;
    }
    crowd__bake_lod_unweld(mesh, &s->weld, s->simplified, count, s->baked);
    bool ok = order_by_material(&s->weld, asset->material_count, mesh->vertex_count, s->baked,
                                count, s->ordered) &&
              append_lod(bake, k, s->baked, count, s->remap);
    return ok ? count / 3 : UINT32_MAX;
}

/* Screens LOD k against s->limits: s->part_over[j] for each part with a
 * vertex over them, *pass when no vertex is. A vertex the LOD removed was
 * inside one part (meshopt moves no vertex of a part's outline). A copy
 * of a welded vertex the LOD kept is where LOD 0 has it, and its normal
 * is one of the welded vertex's: off only where LOD 0 is too (a triangle
 * that welds flat), which no simplification can help. */
static crowd_result screen(lod_search *q, uint32_t k, bool *pass, crowd_error *error) {
    lod_scratch *s = q->s;
    crowd_result result = crowd__bake_screen_lod(q->bake, q->played, &q->sample, k, &s->limits,
                                                 q->thread_count, s->over, error);
    if (result != CROWD_OK) {
        return result;
    }
    memset(s->part_over, 0, s->parts);
    *pass = true;
    for (uint32_t v = 0; v < q->bake->vertex_count; v++) {
        uint32_t welded = s->weld.remap[v], part = s->vertex_part[welded];
        if (s->over[v] && !s->in_lod[welded]) {
            *pass = false;
            if (part < s->parts) {
                s->part_over[part] = 1;
            }
        }
    }
    return CROWD_OK;
}

/* The best candidate of a LOD so far (its fractions in s->best_keep). */
typedef struct lod_best {
    uint32_t most;      /* a candidate must have fewer triangles than this */
    uint32_t triangles; /* UINT32_MAX: none yet */
    bool whole;
} lod_best;

/* Makes and screens LOD k with `keep`; it becomes *best when it passes
 * with fewer triangles. *made: false when it has no triangles. */
static crowd_result try_keep(lod_search *q, uint32_t k, bool whole, const float *keep,
                             lod_best *best, bool *made, bool *pass, crowd_error *error) {
    uint32_t triangles = make_lod(q, k, whole, keep);
    if (triangles == UINT32_MAX) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    *made = triangles > 0;
    *pass = false;
    crowd_result result = *made ? screen(q, k, pass, error) : CROWD_OK;
    if (*pass && triangles < best->most && triangles < best->triangles) {
        best->triangles = triangles;
        best->whole = whole;
        memcpy(q->s->best_keep, keep, q->s->parts * sizeof *keep);
    }
    return result;
}

/* Each part's next fraction, halfway between the least that passed and
 * the most that failed. */
static void bisect_parts(lod_scratch *s) {
    for (uint32_t j = 0; j < s->parts; j++) {
        *(s->part_over[j] ? &s->failed[j] : &s->passed[j]) = s->keep[j];
        s->keep[j] = 0.5f * (s->passed[j] + s->failed[j]);
    }
}

/* Tries one way of cutting LOD k: every part's fraction bisected on its
 * own by whether its vertices stay within the limits (all parts in each
 * screening), then all parts at the least that passed, together. A vertex
 * near another part may pass thanks to that part's surface, which the
 * combination can have moved: parts over in the combination go halfway
 * back to keeping everything, on the last try all the way. */
static crowd_result search_way(lod_search *q, uint32_t k, bool whole, lod_best *best,
                               crowd_error *error) {
    lod_scratch *s = q->s;
    group_by_part(s, whole);
    for (uint32_t j = 0; j < s->parts; j++) {
        s->keep[j] = 0.5f;
        s->passed[j] = 1.0f;
        s->failed[j] = 0.0f;
    }
    bool made = true, pass = false;
    crowd_result result = CROWD_OK;
    for (int step = 0; step < LOD_SEARCH_STEPS && made && result == CROWD_OK; step++) {
        result = try_keep(q, k, whole, s->keep, best, &made, &pass, error);
        bisect_parts(s);
    }
    for (int repair = 0; repair < LOD_REPAIRS && made && result == CROWD_OK && !pass; repair++) {
        result = try_keep(q, k, whole, s->passed, best, &made, &pass, error);
        float back = repair + 2 < LOD_REPAIRS ? 0.5f : 1.0f;
        for (uint32_t j = 0; j < s->parts; j++) {
            s->passed[j] += s->part_over[j] ? back * (1.0f - s->passed[j]) : 0.0f;
        }
    }
    return result;
}

/* LOD k within `budget` with as few triangles as either way reaches in
 * the screenings (of every frame or a sample), and fewer than nine tenths
 * of LOD k-1's: *made false when none does (LOD k left out). */
static crowd_result search_lod(lod_search *q, uint32_t k, float budget, bool every_frame,
                               bool *made, crowd_error *error) {
    lod_best best = {
        .most = (uint32_t)((uint64_t)q->bake->lods[k - 1].triangle_count * 9 / 10),
        .triangles = UINT32_MAX,
    };
    /* Contacts and normals are held within the first budget only: LODs
     * there are drawn on the largest characters, where they show most;
     * the coarser LODs come in on characters five times smaller and more,
     * and keeping their contacts too would cost them a third of their
     * reduction (robot.glb's LOD 2: 1432 triangles against 986). */
    bool first = budget <= BAKE_LOD_FIRST_BUDGET;
    if (!number_parts(q->s, first)) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    q->s->keep_contacts = first;
    q->s->limits = (bake_lod_limits){
        .error_rel = budget,
        .normal_cos = first ? cosf(LOD_NORMAL_ANGLE) : -1.0f,
        .smooth = q->s->smooth,
        .every_frame = every_frame,
    };
    for (int whole = 0; whole < 2; whole++) {
        crowd_result result = search_way(q, k, whole, &best, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    *made = best.triangles != UINT32_MAX;
    if (!*made) {
        drop_lods(q->bake, k);
        return CROWD_OK;
    }
    group_by_part(q->s, best.whole);
    return make_lod(q, k, best.whole, q->s->best_keep) != UINT32_MAX
               ? CROWD_OK
               : crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}

static const char *source_of(const crowd_bake *bake) {
    return bake->source != NULL && bake->source[0] != '\0' ? bake->source : bake->name;
}

static float diagonal_of(const crowd_bake *bake) {
    float sum = 0.0f;
    for (int a = 0; a < 3; a++) {
        float d = bake->bounds_max[a] - bake->bounds_min[a];
        sum += d * d;
    }
    return sqrtf(sum);
}

static bool alloc_parts(lod_scratch *s) {
    size_t parts = s->parts;
    s->part_first = malloc((parts + 2) * sizeof *s->part_first);
    s->local_first = malloc((parts + 1) * sizeof *s->local_first);
    s->keep = malloc(parts * sizeof *s->keep);
    s->passed = malloc(parts * sizeof *s->passed);
    s->failed = malloc(parts * sizeof *s->failed);
    s->best_keep = malloc(parts * sizeof *s->best_keep);
    s->part_over = malloc(parts);
    return s->part_first && s->local_first && s->keep && s->passed && s->failed && s->best_keep &&
           s->part_over;
}

/* Per welded triangle its joint and whether it moves rigidly with it. */
static void find_joints(const crowd_mesh *mesh, lod_scratch *s) {
    for (uint32_t t = 0; t < s->welded_count / 3; t++) {
        const uint32_t *tri = s->welded + 3 * (size_t)t;
        s->joint[t] = triangle_joint(mesh, &s->weld, tri);
        s->rigid[t] = moves_rigidly(mesh, &s->weld, tri, s->joint[t]);
    }
}

/* LOD 0 welded, with what the parts are made from. */
static bool prepare(const crowd_bake *bake, lod_scratch *s) {
    const crowd_mesh *mesh = &bake->asset->mesh;
    size_t n = mesh->index_count;
    s->welded = malloc(n * sizeof *s->welded);
    s->joint = malloc(n / 3 * sizeof *s->joint + 1);
    s->rigid = malloc(n / 3 + 1);
    s->part = malloc(n / 3 * sizeof *s->part + 1);
    s->contact = malloc(n / 3 + 1);
    s->sorted = malloc(n * sizeof *s->sorted);
    s->local = malloc(n * sizeof *s->local);
    s->local_vertex = malloc(n * sizeof *s->local_vertex);
    s->local_positions = malloc(3 * n * sizeof *s->local_positions);
    s->vertex_part = malloc((size_t)mesh->vertex_count * sizeof *s->vertex_part);
    s->simplified = malloc(n * sizeof *s->simplified);
    s->baked = malloc(n * sizeof *s->baked);
    s->ordered = malloc(n * sizeof *s->ordered);
    s->remap = malloc((size_t)mesh->vertex_count * sizeof *s->remap);
    s->over = malloc(mesh->vertex_count);
    s->smooth = malloc(mesh->vertex_count);
    if (!s->welded || !s->joint || !s->rigid || !s->part || !s->contact || !s->sorted ||
        !s->local || !s->local_vertex || !s->local_positions || !s->vertex_part || !s->simplified ||
        !s->baked || !s->ordered || !s->remap || !s->over || !s->smooth ||
        !crowd__bake_lod_weld_build(mesh, &s->weld)) {
        return false;
    }
    s->welded_count = crowd__bake_lod_weld_triangles(mesh, &s->weld, s->welded);
    s->in_lod = malloc(s->weld.count + 1);
    s->pieces = malloc((size_t)s->weld.count * sizeof *s->pieces + 1);
    s->local_stamp = malloc((size_t)s->weld.count * sizeof *s->local_stamp + 1);
    s->local_of = malloc((size_t)s->weld.count * sizeof *s->local_of + 1);
    if (s->in_lod == NULL || s->pieces == NULL || s->local_stamp == NULL || s->local_of == NULL) {
        return false;
    }
    crowd__bake_lod_weld_smooth(mesh, &s->weld, s->smooth);
    find_joints(mesh, s);
    /* split parts are the most there are: the arrays' size */
    return crowd__bake_lod_pieces(s->weld.positions, s->weld.count, s->welded, s->welded_count,
                                  s->pieces) &&
           number_parts(s, true) && alloc_parts(s) &&
           crowd__bake_lod_contacts(s->weld.positions, s->weld.count, s->welded, s->welded_count,
                                    s->pieces, BAKE_LOD_FIRST_BUDGET * diagonal_of(bake),
                                    s->contact);
}

/* LOD k within `budget`, measured on every frame. The screenings see a
 * sample of the frames and can miss a peak between two: a LOD found over
 * its budget is searched again screening every frame, which holds it. */
static crowd_result make_level(lod_search *q, uint32_t k, float budget, bool *made,
                               crowd_error *error) {
    crowd_bake *bake = q->bake;
    crowd_result result = CROWD_OK;
    for (int every_frame = 0; every_frame < 2 && result == CROWD_OK; every_frame++) {
        result = search_lod(q, k, budget, every_frame, made, error);
        if (result == CROWD_OK && *made) {
            result = crowd__bake_measure_lods(bake, q->played, k, q->thread_count, error);
        }
        if (!*made || bake->lods[k].error_rel <= budget) {
            break;
        }
    }
    return result;
}

static crowd_result simplify_all(crowd_bake *bake, uint32_t lod_count, const bake_played *played,
                                 uint32_t thread_count, lod_scratch *s, const crowd_logger *logger,
                                 crowd_error *error) {
    if (!prepare(bake, s)) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    lod_search q = {.bake = bake, .played = played, .thread_count = thread_count, .s = s};
    crowd__bake_lod_sample_init(bake, played, &q.sample);
    float budget = BAKE_LOD_FIRST_BUDGET;
    /* A budget no LOD meets within nine tenths of the one before is
     * skipped for the next, looser one; lod_count + 2 levels in all. */
    for (uint32_t level = 0; level < lod_count + 2 && bake->lod_count <= lod_count;
         level++, budget *= BAKE_LOD_BUDGET_STEP) {
        bool made = false;
        crowd_result result = make_level(&q, bake->lod_count, budget, &made, error);
        if (result != CROWD_OK) {
            crowd__bake_lod_sample_release(&q.sample);
            return result;
        }
        if (!made) {
            crowd_log(logger, CROWD_LOG_DEBUG,
                      "%s: no LOD %u within %.2g %% of the diagonal has fewer than nine tenths "
                      "of LOD %u's %u triangles",
                      source_of(bake), bake->lod_count, 100.0 * budget, bake->lod_count - 1,
                      bake->lods[bake->lod_count - 1].triangle_count);
        }
    }
    if (bake->lod_count < lod_count + 1) {
        crowd_log(logger, CROWD_LOG_WARNING,
                  "%s: %u LOD%s below LOD 0 (%u asked for): LOD %u not made, no simplification "
                  "within its budgets (up to %.3g %% of the diagonal) has fewer than nine tenths "
                  "of LOD %u's %u triangles",
                  source_of(bake), bake->lod_count - 1, bake->lod_count == 2 ? "" : "s", lod_count,
                  bake->lod_count, 100.0 * budget / BAKE_LOD_BUDGET_STEP, bake->lod_count - 1,
                  bake->lods[bake->lod_count - 1].triangle_count);
    }
    crowd__bake_lod_sample_release(&q.sample);
    return CROWD_OK;
}

crowd_result crowd__bake_build_lods(crowd_bake *bake, uint32_t lod_count, const bake_played *played,
                                    uint32_t thread_count, const crowd_logger *logger,
                                    crowd_error *error) {
    const crowd_mesh *mesh = &bake->asset->mesh;
    bake->lod_count = 1;
    bake->lods[0] = (crowd_bake_lod){
        .index_count = mesh->index_count,
        .vertex_count = mesh->vertex_count,
        .triangle_count = mesh->index_count / 3,
    };
    if (lod_count == 0) {
        return CROWD_OK;
    }
    if (mesh->index_count == 0) {
        crowd_log(logger, CROWD_LOG_WARNING, "%s: the mesh has no triangles: no LODs",
                  source_of(bake));
        return CROWD_OK;
    }
    if (mesh->vertex_count >= BAKE_LOD_MAX_VERTICES) {
        crowd_log(logger, CROWD_LOG_WARNING,
                  "%s: %u vertices, over the %u a LOD's mesh file can name: no LODs",
                  source_of(bake), mesh->vertex_count, BAKE_LOD_MAX_VERTICES);
        return CROWD_OK;
    }
    lod_scratch scratch = {0};
    crowd_result result =
        simplify_all(bake, lod_count, played, thread_count, &scratch, logger, error);
    free_scratch(&scratch);
    return result;
}
