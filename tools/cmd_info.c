/* cmd_info.c - `crowd info MODEL`: what the importer made of a model.
 *
 * Prints counts, materials, submeshes, joints (the tree with --joints),
 * clips, sockets, bind-pose bounds and every repair, as text or as JSON
 * (--json); of a bake folder, what info_bake.c prints. --attach
 * SOCKET=FILE merges props first, as `bake` would;
 * --anim FILE adds a file's clips and shows how its joints matched.
 * Library diagnostics are held back until the model loaded, so a failure
 * prints exactly one "crowd: error:" line.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "crowd/asset.h"
#include "crowd/import.h"

#define MAX_ATTACHMENTS 16

static const char usage[] =
    "usage: crowd info MODEL|BAKE [--joints] [--json] [--attach SOCKET=FILE]... [--anim FILE]...\n"
    "                  [--verbose]\n"
    "  MODEL                a model file assimp reads (glTF, FBX, X, ...) or builtin:\n"
    "  BAKE                 a bake folder (or its .crowd.json): its clips, textures and\n"
    "                       runtime clips (--json only applies)\n"
    "  --joints             print the joint hierarchy\n"
    "  --json               print everything as JSON on stdout\n"
    "  --attach SOCKET=FILE merge a prop onto a socket first (repeatable)\n"
    "  --anim FILE          add an animation file's clips, show how its joints matched\n"
    "                       (repeatable)\n"
    "  --scale S            metres per unit of the file, instead of the unit it declares\n"
    "  --verbose            also print the importer's informational messages\n";

/* Diagnostics collected while loading, printed only once loading succeeded. */
typedef struct held_log {
    char *text;
    size_t length;
} held_log;

static void hold_message(void *user, crowd_log_level level, const char *message) {
    held_log *log = user;
    if (level == CROWD_LOG_DEBUG && !cli_verbose) {
        return;
    }
    if (level == CROWD_LOG_INFO && !cli_verbose) {
        return;
    }
    const char *prefix = level == CROWD_LOG_WARNING ? "crowd: warning: " : "crowd: ";
    size_t add = strlen(prefix) + strlen(message) + 1;
    char *grown = realloc(log->text, log->length + add + 1);
    if (grown == NULL) {
        return;
    }
    log->text = grown;
    snprintf(log->text + log->length, add + 1, "%s%s\n", prefix, message);
    log->length += add;
}

typedef struct options {
    const char *model;
    uint32_t model_count;
    bool joints, json;
    double scale; /* 0: the file's unit */
    uint32_t attach_count;
    const char *attach[MAX_ATTACHMENTS]; /* SOCKET=FILE, checked */
    uint32_t anim_count;
    const char *anims[MAX_ATTACHMENTS];
} options;

/* Returns -1 to go on, else the exit code. */
static int parse(int argc, char **argv, options *opt) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(arg, "--joints") == 0) {
            opt->joints = true;
        } else if (strcmp(arg, "--json") == 0) {
            opt->json = true;
        } else if (strcmp(arg, "--verbose") == 0 || strcmp(arg, "-v") == 0) {
            cli_verbose = true;
        } else if (strcmp(arg, "--scale") == 0) {
            const char *value = cli_option_value(argc, argv, &i);
            if (value == NULL || !cli_parse_float("--scale", value, 1e-9, 1e9, &opt->scale)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--attach") == 0) {
            const char *value = cli_option_value(argc, argv, &i);
            if (value == NULL) {
                return CLI_EXIT_USAGE;
            }
            if (!cli_attach_check(value)) {
                return CLI_EXIT_USAGE;
            }
            if (opt->attach_count == MAX_ATTACHMENTS) {
                return cli_fail(CLI_EXIT_USAGE, "--attach: at most %d props", MAX_ATTACHMENTS);
            }
            opt->attach[opt->attach_count++] = value;
        } else if (strcmp(arg, "--anim") == 0) {
            const char *value = cli_option_value(argc, argv, &i);
            if (value == NULL) {
                return CLI_EXIT_USAGE;
            }
            if (opt->anim_count == MAX_ATTACHMENTS) {
                return cli_fail(CLI_EXIT_USAGE, "--anim: at most %d files", MAX_ATTACHMENTS);
            }
            opt->anims[opt->anim_count++] = value;
        } else {
            int code = cli_model_argument("info", arg, &opt->model, &opt->model_count, 1);
            if (code >= 0) {
                return code;
            }
        }
    }
    if (opt->model == NULL) {
        fputs(usage, stderr);
        return cli_fail(CLI_EXIT_USAGE, "info: no MODEL given");
    }
    return -1;
}

static void track_keys(const crowd_asset *asset, const crowd_clip *clip, uint32_t keys[3]) {
    keys[0] = keys[1] = keys[2] = 0;
    for (uint32_t j = 0; j < asset->skeleton.joint_count; j++) {
        keys[0] += clip->tracks[j].translation.key_count;
        keys[1] += clip->tracks[j].rotation.key_count;
        keys[2] += clip->tracks[j].scale.key_count;
    }
}

typedef struct repair_line {
    const char *key;
    const char *text;
    uint32_t count;
} repair_line;

static uint32_t repair_lines(const crowd_repairs *r, repair_line out[12]) {
    const repair_line lines[12] = {
        {"influences_truncated", "vertices with more than 4 influences (kept the 4 largest)",
         r->influences_truncated},
        {"weights_renormalized", "vertices whose weights did not sum to 1 (renormalized)",
         r->weights_renormalized},
        {"vertices_unweighted", "vertices without weights (bound to their mesh's node)",
         r->vertices_unweighted},
        {"static_meshes_rigid", "static meshes bound rigidly to their node",
         r->static_meshes_rigid},
        {"normals_generated", "vertices whose normals were missing, zero or not finite (generated)",
         r->normals_generated},
        {"clips_renamed", "clips with an empty or duplicate name (renamed)", r->clips_renamed},
        {"keys_dropped", "animation keys out of order or not finite (dropped)", r->keys_dropped},
        {"clips_extended", "clips with keys past the file's duration (extended to the last key)",
         r->clips_extended},
        {"bones_unbound", "bones naming no node (their weights bound to the mesh's node)",
         r->bones_unbound},
        {"reader_warnings", "warnings of assimp's reader (it used its defaults; see the warnings)",
         r->reader_warnings},
        {"units_converted", "file unit converted to metres (see unit scale)", r->units_converted},
        {"gltf_read_by_assimp",
         "glTF read by assimp: it requires an extension crowd's reader lacks (see the warnings)",
         r->gltf_read_by_assimp},
    };
    memcpy(out, lines, sizeof lines);
    return 12;
}

static void print_joint_tree(const crowd_skeleton *sk) {
    /* Depth-first, children in joint order, without recursion (chains can be long). */
    uint32_t n = sk->joint_count;
    uint32_t *stack = malloc(n * sizeof *stack);
    uint32_t *depth = malloc(n * sizeof *depth);
    if (stack == NULL || depth == NULL) {
        free(stack);
        free(depth);
        return;
    }
    uint32_t top = 0;
    for (uint32_t j = n; j-- > 0;) {
        if (sk->parents[j] < 0) {
            stack[top++] = j;
            depth[j] = 0;
        }
    }
    while (top > 0) {
        uint32_t j = stack[--top];
        printf("  %*s%u %s\n", (int)(2 * (depth[j] < 40 ? depth[j] : 40)), "", j, sk->names[j]);
        for (uint32_t c = n; c-- > j + 1;) {
            if (sk->parents[c] == (int32_t)j) {
                depth[c] = depth[j] + 1;
                stack[top++] = c;
            }
        }
    }
    free(stack);
    free(depth);
}

static void print_text(const crowd_asset *asset, const options *opt) {
    const crowd_mesh *mesh = &asset->mesh;
    const crowd_skeleton *sk = &asset->skeleton;
    printf("model       %s\n", opt->model);
    printf("meshes      %u (merged into one mesh)\n", asset->source_mesh_count);
    printf("vertices    %u\n", mesh->vertex_count);
    printf("triangles   %u\n", mesh->index_count / 3);
    printf("materials   %u\n", asset->material_count);
    for (uint32_t m = 0; m < asset->material_count; m++) {
        const crowd_material *mat = &asset->materials[m];
        printf("  %u '%s' base colour (%.3g, %.3g, %.3g, %.3g)", m, mat->name,
               (double)mat->base_color[0], (double)mat->base_color[1], (double)mat->base_color[2],
               (double)mat->base_color[3]);
        if (mat->texture_rgba8 != NULL) {
            printf(", texture %ux%u\n", mat->texture_width, mat->texture_height);
        } else {
            printf(", no texture\n");
        }
    }
    printf("submeshes   %u\n", mesh->submesh_count);
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const crowd_submesh *sub = &mesh->submeshes[s];
        printf("  %u: %u triangles from index %u, material %u\n", s, sub->index_count / 3,
               sub->first_index, sub->material);
    }
    printf("skin        %s\n",
           asset->has_skin ? "yes" : "no (rigid: no vertex weights in the file)");
    printf("joints      %u\n", sk->joint_count);
    if (opt->joints) {
        print_joint_tree(sk);
    }
    printf("clips       %u%s\n", asset->clip_count, asset->clip_count ? "" : " (no animation)");
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        const crowd_clip *clip = &asset->clips[c];
        uint32_t keys[3];
        track_keys(asset, clip, keys);
        printf("  '%s' %.4g s, %s, keys translation %u rotation %u scale %u\n", clip->name,
               (double)clip->duration_s, clip->loop ? "loop" : "once", keys[0], keys[1], keys[2]);
    }
    printf("sockets     %u\n", asset->socket_count);
    for (uint32_t s = 0; s < asset->socket_count; s++) {
        const crowd_socket *socket = &asset->sockets[s];
        printf("  '%s' on joint %u '%s'\n", socket->name, socket->joint, sk->names[socket->joint]);
    }
    float lo[3], hi[3];
    crowd_asset_bind_bounds(asset, lo, hi);
    printf("bounds      min (%.4g, %.4g, %.4g) max (%.4g, %.4g, %.4g)\n", (double)lo[0],
           (double)lo[1], (double)lo[2], (double)hi[0], (double)hi[1], (double)hi[2]);
    if (asset->unit_scale > 0.0f) {
        printf("unit scale  %g m per unit of the file\n", (double)asset->unit_scale);
    }
    repair_line lines[12];
    uint32_t count = repair_lines(&asset->repairs, lines), total = 0;
    for (uint32_t i = 0; i < count; i++) {
        total += lines[i].count;
    }
    printf("repairs     %s\n", total ? "" : "none");
    for (uint32_t i = 0; i < count && total; i++) {
        if (lines[i].count) {
            printf("  %u %s\n", lines[i].count, lines[i].text);
        }
    }
}

static cJSON *vec3(const float v[3]) {
    const double d[3] = {v[0], v[1], v[2]};
    return cJSON_CreateDoubleArray(d, 3);
}

static cJSON *build_json(const crowd_asset *asset, const options *opt) {
    const crowd_mesh *mesh = &asset->mesh;
    const crowd_skeleton *sk = &asset->skeleton;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "model", opt->model);
    cJSON_AddStringToObject(root, "name", asset->name ? asset->name : "");
    cJSON_AddNumberToObject(root, "source_meshes", asset->source_mesh_count);
    cJSON_AddNumberToObject(root, "vertices", mesh->vertex_count);
    cJSON_AddNumberToObject(root, "triangles", mesh->index_count / 3);
    cJSON *materials = cJSON_AddArrayToObject(root, "materials");
    for (uint32_t m = 0; m < asset->material_count; m++) {
        const crowd_material *mat = &asset->materials[m];
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", mat->name);
        const double color[4] = {mat->base_color[0], mat->base_color[1], mat->base_color[2],
                                 mat->base_color[3]};
        cJSON_AddItemToObject(item, "base_color", cJSON_CreateDoubleArray(color, 4));
        if (mat->texture_rgba8 != NULL) {
            cJSON *texture = cJSON_AddObjectToObject(item, "texture");
            cJSON_AddNumberToObject(texture, "width", mat->texture_width);
            cJSON_AddNumberToObject(texture, "height", mat->texture_height);
        } else {
            cJSON_AddNullToObject(item, "texture");
        }
        cJSON_AddItemToArray(materials, item);
    }
    cJSON *submeshes = cJSON_AddArrayToObject(root, "submeshes");
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddNumberToObject(item, "first_index", mesh->submeshes[s].first_index);
        cJSON_AddNumberToObject(item, "index_count", mesh->submeshes[s].index_count);
        cJSON_AddNumberToObject(item, "material", mesh->submeshes[s].material);
        cJSON_AddItemToArray(submeshes, item);
    }
    cJSON_AddBoolToObject(root, "has_skin", asset->has_skin);
    cJSON *joints = cJSON_AddArrayToObject(root, "joints");
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", sk->names[j]);
        cJSON_AddNumberToObject(item, "parent", sk->parents[j]);
        cJSON_AddItemToArray(joints, item);
    }
    cJSON *clips = cJSON_AddArrayToObject(root, "clips");
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        const crowd_clip *clip = &asset->clips[c];
        uint32_t keys[3];
        track_keys(asset, clip, keys);
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", clip->name);
        cJSON_AddNumberToObject(item, "duration_s", clip->duration_s);
        cJSON_AddBoolToObject(item, "loop", clip->loop);
        cJSON *key_counts = cJSON_AddObjectToObject(item, "keys");
        cJSON_AddNumberToObject(key_counts, "translation", keys[0]);
        cJSON_AddNumberToObject(key_counts, "rotation", keys[1]);
        cJSON_AddNumberToObject(key_counts, "scale", keys[2]);
        cJSON_AddItemToArray(clips, item);
    }
    cJSON *sockets = cJSON_AddArrayToObject(root, "sockets");
    for (uint32_t s = 0; s < asset->socket_count; s++) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", asset->sockets[s].name);
        cJSON_AddNumberToObject(item, "joint", asset->sockets[s].joint);
        cJSON_AddItemToArray(sockets, item);
    }
    float lo[3], hi[3];
    crowd_asset_bind_bounds(asset, lo, hi);
    cJSON *bounds = cJSON_AddObjectToObject(root, "bounds");
    cJSON_AddItemToObject(bounds, "min", vec3(lo));
    cJSON_AddItemToObject(bounds, "max", vec3(hi));
    cJSON_AddNumberToObject(root, "unit_scale", asset->unit_scale);
    cJSON *repairs = cJSON_AddObjectToObject(root, "repairs");
    repair_line lines[12];
    uint32_t count = repair_lines(&asset->repairs, lines);
    for (uint32_t i = 0; i < count; i++) {
        cJSON_AddNumberToObject(repairs, lines[i].key, lines[i].count);
    }
    return root;
}

static int load(const options *opt, held_log *log, crowd_asset **out_asset) {
    crowd_import_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.logger = (crowd_logger){hold_message, log};
    desc.scale = (float)opt->scale;
    crowd_error error;
    memset(&error, 0, sizeof error);
    crowd_asset *asset = NULL;
    if (crowd_model_load(opt->model, &desc, &asset, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    if (cli_attach_props(asset, opt->attach, opt->attach_count, &desc, &error) != CROWD_OK) {
        crowd_asset_destroy(asset);
        return cli_report(&error);
    }
    *out_asset = asset;
    return CLI_EXIT_OK;
}

/* The files of --anim added to *asset, one report each; on failure the
 * asset is gone and the exit code returned. */
static int add_anims(const options *opt, held_log *log, crowd_asset **asset,
                     crowd_anim_report *reports) {
    crowd_import_desc import = {.logger = {hold_message, log}, .scale = (float)opt->scale};
    crowd_anim_import_desc desc = {.logger = import.logger, .import = &import};
    for (uint32_t a = 0; a < opt->anim_count; a++) {
        crowd_error error = {0};
        if (crowd_asset_add_clips(*asset, opt->anims[a], &desc, &reports[a], &error) != CROWD_OK) {
            crowd_asset_destroy(*asset);
            *asset = NULL;
            return cli_report(&error);
        }
    }
    return CLI_EXIT_OK;
}

static void print_anim(const crowd_asset *asset, const char *file, const crowd_anim_report *r) {
    printf("anim        %s: %u clips added (%u renamed)\n", file, r->clips_added, r->clips_renamed);
    for (uint32_t c = 0; c < r->clips_added; c++) {
        bool renamed = strcmp(r->clip_names[c], r->clip_file_names[c]) != 0;
        printf("  clip '%s'%s%s%s\n", r->clip_names[c], renamed ? " (the file's '" : "",
               renamed ? r->clip_file_names[c] : "", renamed ? "')" : "");
    }
    printf("  joints    %u of %u matched (%u by humanoid role, %u retargeted); root '%s', "
           "translation x%g\n",
           r->joints_matched, r->joint_count, r->joints_by_role, r->joints_retargeted,
           r->root_joint >= 0 ? asset->skeleton.names[r->root_joint] : "none",
           (double)r->root_scale);
    for (uint32_t j = 0; j < r->joint_count; j++) {
        printf("    %-24s %s %s\n", asset->skeleton.names[j],
               r->matched[j] ? (r->matched_by_role[j] ? "<- (role)" : "<-") : "  ",
               r->matched[j] ? r->matched[j] : "(not animated: rest pose)");
    }
    printf("  unmatched %u joints of the file the character lacks\n", r->unmatched_count);
    for (uint32_t f = 0; f < r->unmatched_count; f++) {
        printf("    %s\n", r->unmatched[f]);
    }
}

static cJSON *anim_json(const crowd_asset *asset, const char *file, const crowd_anim_report *r) {
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "file", file);
    cJSON *clips = cJSON_AddArrayToObject(item, "clips");
    for (uint32_t c = 0; c < r->clips_added; c++) {
        cJSON_AddItemToArray(clips, cJSON_CreateString(r->clip_names[c]));
    }
    cJSON *joints = cJSON_AddObjectToObject(item, "matched");
    for (uint32_t j = 0; j < r->joint_count; j++) {
        if (r->matched[j] != NULL) {
            cJSON_AddStringToObject(joints, asset->skeleton.names[j], r->matched[j]);
        }
    }
    cJSON *unmatched = cJSON_AddArrayToObject(item, "unmatched");
    for (uint32_t f = 0; f < r->unmatched_count; f++) {
        cJSON_AddItemToArray(unmatched, cJSON_CreateString(r->unmatched[f]));
    }
    cJSON_AddNumberToObject(item, "by_role", r->joints_by_role);
    cJSON_AddNumberToObject(item, "retargeted", r->joints_retargeted);
    cJSON_AddNumberToObject(item, "root_scale", r->root_scale);
    return item;
}

int cmd_info(int argc, char **argv) {
    options opt;
    memset(&opt, 0, sizeof opt);
    held_log log = {NULL, 0};
    crowd_asset *asset = NULL;
    int code = parse(argc, argv, &opt);
    if (code < 0 && cli_info_is_bake(opt.model)) {
        return cli_info_bake(opt.model, opt.json);
    }
    if (code < 0) {
        code = load(&opt, &log, &asset);
    }
    crowd_anim_report reports[MAX_ATTACHMENTS] = {0};
    if (asset != NULL) {
        code = add_anims(&opt, &log, &asset, reports);
    }
    if (asset != NULL) {
        if (log.text != NULL) {
            fputs(log.text, stderr);
        }
        if (opt.json) {
            cJSON *json = build_json(asset, &opt);
            cJSON *anims = opt.anim_count > 0 ? cJSON_AddArrayToObject(json, "anims") : NULL;
            for (uint32_t a = 0; anims != NULL && a < opt.anim_count; a++) {
                cJSON_AddItemToArray(anims, anim_json(asset, opt.anims[a], &reports[a]));
            }
            char *text = json ? cJSON_Print(json) : NULL;
            if (text == NULL) {
                code = cli_fail(CLI_EXIT_OUTPUT, "info: out of memory while writing JSON");
            } else {
                puts(text);
            }
            cJSON_free(text);
            cJSON_Delete(json);
        } else {
            print_text(asset, &opt);
            for (uint32_t a = 0; a < opt.anim_count; a++) {
                print_anim(asset, opt.anims[a], &reports[a]);
            }
        }
        crowd_asset_destroy(asset);
    }
    for (uint32_t a = 0; a < opt.anim_count; a++) {
        crowd_anim_report_free(&reports[a]);
    }
    free(log.text);
    return code;
}
