/* import_hierarchy.c - nodes whose transform is relative to another node
 * than the one listing them.
 *
 * In a well-formed assimp scene a node's mParent is the node whose
 * mChildren list it. assimp 5.2's Half-Life 1 MDL loader breaks that: it
 * lists every bone under "<MDL_bones>" but sets mParent to the bone's real
 * parent, and the bone's transform is relative to that parent (assimp issue
 * #5002, fixed in 5.3). Read through mChildren alone, man.mdl's legs, spine
 * and arms all hang from the model's root and its animations tear it
 * apart. So where mParent names another node of the tree, that node is
 * taken as the parent, unless that would close a cycle; then the nodes are
 * put back in pre-order (parents first, siblings in file order) and their
 * global transforms recomputed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/assimp/import_internal.h"
#include "import/scene/import_math.h"

typedef struct node_address {
    uintptr_t address;
    int32_t index;
} node_address;

static int compare_address(const void *a, const void *b) {
    uintptr_t x = ((const node_address *)a)->address, y = ((const node_address *)b)->address;
    return (x > y) - (x < y);
}

static bool parent_differs(const import_context *ctx, uint32_t i) {
    const struct aiNode *claimed = ctx->nodes[i].node->mParent;
    return ctx->nodes[i].parent >= 0 && claimed != NULL &&
           claimed != ctx->nodes[ctx->nodes[i].parent].node;
}

/* True when `ancestor` is `node` or above it. */
static bool is_above(const import_node *nodes, int32_t ancestor, int32_t node) {
    for (int32_t up = node; up >= 0; up = nodes[up].parent) {
        if (up == ancestor) {
            return true;
        }
    }
    return false;
}

/* Re-parents every node whose mParent is another node of the tree; returns
 * how many moved. `by_address` is sorted by address. */
static uint32_t follow_parents(import_context *ctx, const node_address *by_address) {
    uint32_t moved = 0;
    for (uint32_t i = 0; i < ctx->node_count; i++) {
        if (!parent_differs(ctx, i)) {
            continue;
        }
        node_address key = {(uintptr_t)ctx->nodes[i].node->mParent, -1};
        const node_address *found =
            bsearch(&key, by_address, ctx->node_count, sizeof key, compare_address);
        if (found != NULL && !is_above(ctx->nodes, (int32_t)i, found->index)) {
            ctx->nodes[i].parent = found->index;
            moved++;
        }
    }
    return moved;
}

/* Pre-order of the (re-parented) tree into `order`: children lists built
 * back to front keep siblings in their old order; the walk needs no stack. */
static void pre_order(const import_node *nodes, uint32_t count, int32_t *first_child,
                      int32_t *next_sibling, uint32_t *order) {
    for (uint32_t i = 0; i < count; i++) {
        first_child[i] = next_sibling[i] = -1;
    }
    for (uint32_t i = count; i-- > 1;) {
        int32_t p = nodes[i].parent;
        next_sibling[i] = first_child[p];
        first_child[p] = (int32_t)i;
    }
    uint32_t visited = 0;
    int32_t x = 0;
    order[visited++] = 0;
    for (;;) {
        if (first_child[x] >= 0) {
            x = first_child[x];
        } else {
            while (x != 0 && next_sibling[x] < 0) {
                x = nodes[x].parent;
            }
            if (x == 0) {
                break;
            }
            x = next_sibling[x];
        }
        order[visited++] = (uint32_t)x;
    }
}

crowd_result crowd__import_nodes_follow_parents(import_context *ctx) {
    uint32_t count = ctx->node_count;
    bool any = false;
    for (uint32_t i = 0; i < count && !any; i++) {
        any = parent_differs(ctx, i);
    }
    if (!any) {
        return CROWD_OK;
    }
    node_address *by_address = malloc(count * sizeof *by_address);
    int32_t *first_child = malloc(count * sizeof *first_child);
    int32_t *next_sibling = malloc(count * sizeof *next_sibling);
    uint32_t *order = malloc(count * sizeof *order);
    int32_t *new_index = malloc(count * sizeof *new_index);
    import_node *sorted = malloc(count * sizeof *sorted);
    crowd_result result = CROWD_OK;
    if (!by_address || !first_child || !next_sibling || !order || !new_index || !sorted) {
        result = crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < count; i++) {
        by_address[i] = (node_address){(uintptr_t)ctx->nodes[i].node, (int32_t)i};
    }
    qsort(by_address, count, sizeof *by_address, compare_address);
    uint32_t moved = follow_parents(ctx, by_address);
    if (moved == 0) {
        goto done;
    }
    crowd_log(ctx->logger, CROWD_LOG_INFO,
              "%s: %u nodes listed under one node but placed relative to another (their "
              "aiNode::mParent) were moved under the latter",
              ctx->file, moved);
    pre_order(ctx->nodes, count, first_child, next_sibling, order);
    for (uint32_t k = 0; k < count; k++) {
        new_index[order[k]] = (int32_t)k;
    }
    for (uint32_t k = 0; k < count; k++) {
        import_node *node = &sorted[k];
        *node = ctx->nodes[order[k]];
        node->parent = node->parent >= 0 ? new_index[node->parent] : -1;
        if (node->parent < 0) {
            memcpy(node->global, node->local, sizeof node->global);
        } else {
            crowd__import_m4_mul(sorted[node->parent].global, node->local, node->global);
        }
    }
    memcpy(ctx->nodes, sorted, count * sizeof *sorted);
done:
    free(by_address);
    free(first_child);
    free(next_sibling);
    free(order);
    free(new_index);
    free(sorted);
    return result;
}
