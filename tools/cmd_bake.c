/* cmd_bake.c - `crowd bake MODEL -o DIR`: load, attach props, build the VAT
 * and BAT textures, write the bake folder, and print how far the stored data
 * is from float32 CPU skinning (crowd_bake_measure) with sizes and times.
 *
 * Exit codes: 1 for a malformed command line (an --event that is not
 * CLIP:TIME=NAME, a --blend that is not NAME=CLIP[:T],...); 2 for values
 * the model or the limits reject (fps out of range, unknown clip or socket,
 * texture too tall, an event outside its clip, a blend's unknown clip or
 * falling thresholds), before anything is written;
 * 3 unsupported input; 4 when the folder cannot be written (which then holds
 * what it held before: crowd_bake_write is all-or-nothing).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bake_blend_arg.h"
#include "cli.h"
#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "crowd/import.h"

static const char usage[] =
    "usage: crowd bake MODEL -o DIR [options]\n"
    "  MODEL                  a model file assimp reads (glTF, FBX, X, ...) or builtin:\n"
    "  -o, --output DIR       bake folder (created if missing)\n"
    "  --fps N                frames per second of every clip, in (0, 1000] (default: per\n"
    "                         clip, on the source's keys where they are uniform, at the\n"
    "                         multiple of their rate that meets --between-error; 30 fps\n"
    "                         and its multiples where they are not)\n"
    "  --between-error E      between-frame error budget, of the bounds diagonal, in\n"
    "                         (0, 1) (default 5e-4)\n"
    "  --clips a,b,...        clips to bake, in this order (default all)\n"
    "  --loop NAME            bake NAME as a looping clip (repeatable)\n"
    "  --once NAME            bake NAME as a one-shot clip (repeatable)\n"
    "  --what vat|bat|both    textures to bake (default both)\n"
    "  --max-width N          widest texture row, 1..16384 (default 4096)\n"
    "  --encoding E           VAT encoding: unorm16_oct (default), f16, f32\n"
    "  --bat-encoding E       BAT encoding: f32 (default), f16\n"
    "  --lods N               LODs below LOD 0, 0..7 (default 3; 0 = none)\n"
    "  --target T             desktop (default), web (webgl2): every texture within\n"
    "                         4096x4096, the size every WebGL2 device holds, or gles:\n"
    "                         within 2048x2048, the least an OpenGL ES 3.0 device holds\n"
    "  --event CLIP:TIME=NAME an event NAME at TIME seconds of CLIP, within its duration\n"
    "                         (repeatable; CLIP may hold ':', NAME may not)\n"
    "  --blend NAME=CLIP[:T],CLIP[:T]...\n"
    "                         a blend of clips along one parameter (repeatable), at\n"
    "                         rising thresholds T, or without them at the clips'\n"
    "                         ground speeds; archetypes of the bake get it\n"
    "  --root-motion M        keep (default): the root's motion stays in the frames;\n"
    "                         extract: its horizontal path and turn about +Y are taken\n"
    "                         out, the frames play in place and each clip's curve is\n"
    "                         in the manifest (clips[i].root_motion)\n"
    "  --root-joint NAME      the joint whose motion is taken out (default: the first\n"
    "                         joint whose translation keys move, else joint 0)\n"
    "  --attach SOCKET=FILE   merge a rigid prop onto a socket first (repeatable)\n"
    "  --anim FILE            add the clips of an animation file (glTF, BVH, FBX, ...;\n"
    "                         repeatable): joints matched by name, keys retargeted\n"
    "  --scale S              metres per unit of the files, instead of the unit they declare\n"
    "  --compat openvat       also write the OpenVAT layout (NAME-remap_info.json)\n"
    "  --report-all           also measure the encodings not chosen (not written)\n"
    "  --threads N            worker threads (default one per CPU)\n"
    "  --quiet                print errors and warnings only\n"
    "  --verbose              print debug messages too\n";

/* One --event CLIP:TIME=NAME, pointing into its argument (text keeps it). */
typedef struct cli_event {
    char text[512];
    const char *clip, *name;
    float time_s;
} cli_event;

typedef struct options {
    const char *model;
    uint32_t model_count;
    const char *output;
    double fps;
    double between_error;
    double scale; /* 0: each file's unit */
    const char **clips, **loops, **onces, **attach, **anims;
    uint32_t clip_count, loop_count, once_count, attach_count, anim_count;
    cli_event *events; /* --event, parsed */
    uint32_t event_count;
    cli_blend *blends; /* --blend, parsed */
    uint32_t blend_count;
    char *clip_list;
    crowd_bake_what what;
    long max_width;
    long threads;
    crowd_vat_encoding vat_encoding;
    crowd_bat_encoding bat_encoding;
    int32_t lods;         /* as crowd_bake_desc.lods */
    uint32_t target_size; /* --target: the largest texture side, 0 = desktop's */
    const char *target_name;
    bool openvat, report_all, quiet;
    crowd_root_motion_mode root_motion;
    const char *root_joint;
} options;

static const char *const vat_names[] = {"unorm16_oct", "unorm16_oct", "f16", "f32"};
static const char *const bat_names[] = {"f32", "f32", "f16"};

static void free_options(options *opt) {
    free(opt->clips);
    free(opt->loops);
    free(opt->onces);
    free(opt->attach);
    free(opt->anims);
    free(opt->events);
    free(opt->blends);
    free(opt->clip_list);
}

static bool pick(const char *value, const char *const *names, int count, int first, int *out) {
    for (int i = first; i < count; i++) {
        if (strcmp(value, names[i]) == 0) {
            *out = i;
            return true;
        }
    }
    return false;
}

/* "a,b,c" -> clip names (pointing into a private copy). */
static int split_clips(const char *value, options *opt) {
    size_t names = 1;
    for (const char *c = value; *c != '\0'; c++) {
        names += *c == ',';
    }
    free(opt->clip_list);
    free(opt->clips);
    opt->clip_list = malloc(strlen(value) + 1);
    opt->clips = calloc(names, sizeof *opt->clips);
    if (opt->clip_list == NULL || opt->clips == NULL) {
        return cli_fail(CLI_EXIT_INPUT, "out of memory");
    }
    strcpy(opt->clip_list, value);
    opt->clip_count = 0;
    for (char *name = opt->clip_list;;) {
        char *comma = strchr(name, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        if (name[0] == '\0') {
            return cli_fail(CLI_EXIT_USAGE, "--clips: empty clip name in '%s'", value);
        }
        opt->clips[opt->clip_count++] = name;
        if (comma == NULL) {
            return -1;
        }
        name = comma + 1;
    }
}

/* "CLIP:TIME=NAME": the last ':' ends the clip's name (which may hold
 * colons), the first '=' after it the time. */
static int parse_event(const char *value, cli_event *event) {
    if (strlen(value) >= sizeof event->text) {
        return cli_fail(CLI_EXIT_USAGE, "--event: '%.40s...' is too long", value);
    }
    strcpy(event->text, value);
    char *colon = strrchr(event->text, ':');
    char *equals = colon != NULL ? strchr(colon, '=') : NULL;
    if (colon == NULL || equals == NULL || colon == event->text || equals[1] == '\0') {
        return cli_fail(CLI_EXIT_USAGE, "--event: '%s' is not CLIP:TIME=NAME", value);
    }
    *colon = '\0';
    *equals = '\0';
    char *end = NULL;
    errno = 0;
    double time_s = strtod(colon + 1, &end);
    if (end == colon + 1 || *end != '\0' || errno == ERANGE || !isfinite(time_s)) {
        return cli_fail(CLI_EXIT_USAGE, "--event: '%s' has no time in seconds after the ':'",
                        value);
    }
    event->clip = event->text;
    event->name = equals + 1;
    event->time_s = (float)time_s;
    return -1;
}

/* A number for an option: text that is not a number is a usage error (1),
 * a number out of range is a bad value (2). */
static int parse_number(const char *option, const char *text, double min, double max, bool open_min,
                        double *out) {
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(value)) {
        return cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not a number", option, text);
    }
    if ((open_min ? value <= min : value < min) || value > max) {
        return cli_fail(CLI_EXIT_INPUT, "%s %s is out of range %c%g, %g]", option, text,
                        open_min ? '(' : '[', min, max);
    }
    *out = value;
    return -1;
}

static int parse_value(int argc, char **argv, int *i, options *opt) {
    const char *arg = argv[*i];
    const char *value = cli_option_value(argc, argv, i);
    if (value == NULL) {
        return CLI_EXIT_USAGE;
    }
    double number = 0.0;
    int choice = 0, code = -1;
    if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
        opt->output = value;
    } else if (strcmp(arg, "--fps") == 0) {
        code = parse_number(arg, value, 0.0, 1000.0, true, &opt->fps);
    } else if (strcmp(arg, "--between-error") == 0) {
        code = parse_number(arg, value, 0.0, 1.0, true, &opt->between_error);
        if (code < 0 && opt->between_error >= 1.0) {
            code = cli_fail(CLI_EXIT_USAGE, "--between-error: '%s' is not below 1", value);
        }
    } else if (strcmp(arg, "--max-width") == 0) {
        code = parse_number(arg, value, 1.0, CROWD_BAKE_MAX_TEXTURE_SIZE, false, &number);
        if (code < 0 && number != floor(number)) {
            code = cli_fail(CLI_EXIT_USAGE, "--max-width: '%s' is not a whole number", value);
        }
        opt->max_width = (long)number;
    } else if (strcmp(arg, "--scale") == 0) {
        code = parse_number(arg, value, 0.0, 1e9, true, &opt->scale);
    } else if (strcmp(arg, "--threads") == 0) {
        code = parse_number(arg, value, 1.0, 16.0, false, &number);
        opt->threads = (long)number;
    } else if (strcmp(arg, "--clips") == 0) {
        code = split_clips(value, opt);
    } else if (strcmp(arg, "--loop") == 0) {
        opt->loops[opt->loop_count++] = value;
    } else if (strcmp(arg, "--once") == 0) {
        opt->onces[opt->once_count++] = value;
    } else if (strcmp(arg, "--attach") == 0) {
        if (!cli_attach_check(value)) {
            return CLI_EXIT_USAGE;
        }
        opt->attach[opt->attach_count++] = value;
    } else if (strcmp(arg, "--anim") == 0) {
        opt->anims[opt->anim_count++] = value;
    } else if (strcmp(arg, "--event") == 0) {
        code = parse_event(value, &opt->events[opt->event_count++]);
    } else if (strcmp(arg, "--blend") == 0) {
        code = cli_blend_parse(value, &opt->blends[opt->blend_count++]);
    } else if (strcmp(arg, "--what") == 0) {
        static const char *const what[] = {"both", "vat", "bat"};
        if (!pick(value, what, 3, 0, &choice)) {
            return cli_fail(CLI_EXIT_USAGE, "--what: '%s' is not vat, bat or both", value);
        }
        opt->what = (crowd_bake_what)choice;
    } else if (strcmp(arg, "--encoding") == 0) {
        if (!pick(value, vat_names, 4, 1, &choice)) {
            return cli_fail(CLI_EXIT_USAGE, "--encoding: '%s' is not unorm16_oct, f16 or f32",
                            value);
        }
        opt->vat_encoding = (crowd_vat_encoding)choice;
    } else if (strcmp(arg, "--bat-encoding") == 0) {
        if (!pick(value, bat_names, 3, 1, &choice)) {
            return cli_fail(CLI_EXIT_USAGE, "--bat-encoding: '%s' is not f32 or f16", value);
        }
        opt->bat_encoding = (crowd_bat_encoding)choice;
    } else if (strcmp(arg, "--lods") == 0) {
        char *end = NULL;
        long lods = strtol(value, &end, 10);
        if (end == value || *end != '\0' || lods < 0 || lods >= CROWD_BAKE_MAX_LODS) {
            return cli_fail(CLI_EXIT_USAGE, "--lods: '%s' is not a number of LODs from 0 to %d",
                            value, CROWD_BAKE_MAX_LODS - 1);
        }
        opt->lods = lods == 0 ? -1 : (int32_t)lods;
    } else if (strcmp(arg, "--target") == 0) {
        bool web = strcmp(value, "web") == 0 || strcmp(value, "webgl2") == 0;
        bool gles = strcmp(value, "gles") == 0 || strcmp(value, "gles3") == 0;
        opt->target_size = web ? 4096 : (gles ? 2048 : 0);
        opt->target_name = web ? "web" : "gles";
        if (!web && !gles && strcmp(value, "desktop") != 0) {
            return cli_fail(CLI_EXIT_USAGE, "--target: '%s' is not desktop, web, webgl2 or gles",
                            value);
        }
    } else if (strcmp(arg, "--root-motion") == 0) {
        static const char *const modes[] = {"keep", "extract"};
        if (!pick(value, modes, 2, 0, &choice)) {
            return cli_fail(CLI_EXIT_USAGE, "--root-motion: '%s' is not keep or extract", value);
        }
        opt->root_motion = (crowd_root_motion_mode)choice;
    } else if (strcmp(arg, "--root-joint") == 0) {
        opt->root_joint = value;
    } else if (strcmp(arg, "--compat") == 0) {
        if (strcmp(value, "openvat") != 0) {
            return cli_fail(CLI_EXIT_USAGE, "--compat: '%s' is not openvat", value);
        }
        opt->openvat = true;
    }
    return code;
}

static bool takes_value(const char *arg) {
    static const char *const with_value[] = {
        "-o",       "--output",      "--fps",        "--max-width", "--threads",  "--clips",
        "--loop",   "--once",        "--attach",     "--what",      "--encoding", "--bat-encoding",
        "--compat", "--lods",        "--target",     "--scale",     "--anim",     "--between-error",
        "--event",  "--root-motion", "--root-joint", "--blend",     NULL};
    return cli_arg_in(arg, with_value);
}

/* Returns -1 to go on, else the exit code. */
static int parse(int argc, char **argv, options *opt) {
    size_t slots = (size_t)argc + 1;
    opt->loops = calloc(slots, sizeof(char *));
    opt->onces = calloc(slots, sizeof(char *));
    opt->attach = calloc(slots, sizeof(char *));
    opt->anims = calloc(slots, sizeof(char *));
    opt->events = calloc(slots, sizeof *opt->events);
    opt->blends = calloc(slots, sizeof *opt->blends);
    if (!opt->loops || !opt->onces || !opt->attach || !opt->anims || !opt->events || !opt->blends) {
        return cli_fail(CLI_EXIT_INPUT, "out of memory");
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
            opt->quiet = true;
        } else if (strcmp(arg, "--verbose") == 0 || strcmp(arg, "-v") == 0) {
            cli_verbose = true;
        } else if (strcmp(arg, "--report-all") == 0) {
            opt->report_all = true;
        } else if (takes_value(arg)) {
            int code = parse_value(argc, argv, &i, opt);
            if (code >= 0) {
                return code;
            }
        } else {
            int code = cli_model_argument("bake", arg, &opt->model, &opt->model_count, 1);
            if (code >= 0) {
                return code;
            }
        }
    }
    if (opt->model == NULL || opt->output == NULL) {
        fputs(usage, stderr);
        return cli_fail(CLI_EXIT_USAGE, "bake: %s",
                        opt->model == NULL ? "no MODEL given" : "no output folder (-o DIR)");
    }
    return -1;
}

/* ---- progress and logging ----------------------------------------------- */

/* The one transient line at the bottom of a terminal: the progress bar, or
 * the writing notice. Log messages clear it first so they do not land on it. */
typedef struct status_line {
    double start_s;
    bool terminal; /* stderr is a terminal and --quiet is off */
    bool quiet;
    bool drawn;
} status_line;

static void clear_status(status_line *status) {
    if (status->drawn) {
        fprintf(stderr, "\r%*s\r", 79, "");
        status->drawn = false;
    }
}

/* Drawn only once a bake has run for a second: quick bakes stay quiet. */
static void draw_progress(void *user, float fraction) {
    status_line *status = user;
    if (!status->drawn && cli_wall_s() - status->start_s < 1.0) {
        return;
    }
    enum { WIDTH = 40 };
    char cells[WIDTH + 1];
    int filled = (int)(fraction * WIDTH + 0.5f);
    for (int i = 0; i < WIDTH; i++) {
        cells[i] = i < filled ? '#' : '.';
    }
    cells[WIDTH] = '\0';
    fprintf(stderr, "\rcrowd: baking [%s] %3d%%", cells, (int)(fraction * 100.0f + 0.5f));
    fflush(stderr);
    status->drawn = true;
}

/* Writing has no progress callback; a large set (a compressed f32 VAT can
 * take seconds) gets a notice instead, cleared when done. */
static void show_writing(status_line *status, const crowd_bake *bake, const char *dir) {
    double bytes = 0.0;
    const crowd_texture *textures[] = {&bake->vat_position, &bake->vat_normal, &bake->bat};
    for (int i = 0; i < 3; i++) {
        size_t texel = textures[i]->format == CROWD_TEXEL_RGBA32F ? 16
                       : textures[i]->format == CROWD_TEXEL_NONE  ? 0
                                                                  : 8;
        bytes += (double)textures[i]->width * textures[i]->height * (double)texel;
    }
    if (!status->terminal || bytes < 32.0 * 1024.0 * 1024.0) {
        return;
    }
    fprintf(stderr, "\rcrowd: writing %.0f MiB of textures to %s ...", bytes / (1024.0 * 1024.0),
            dir);
    fflush(stderr);
    status->drawn = true;
}

static void log_message(void *user, crowd_log_level level, const char *message) {
    status_line *status = user;
    if (status->quiet && level != CROWD_LOG_WARNING) {
        return;
    }
    clear_status(status);
    cli_log_stderr(NULL, level, message);
}

/* ---- report -------------------------------------------------------------- */

static void print_size(double bytes) {
    if (bytes >= 1024.0 * 1024.0) {
        printf("%8.2f MiB", bytes / (1024.0 * 1024.0));
    } else {
        printf("%8.1f KiB", bytes / 1024.0);
    }
}

static void print_header(void) {
    printf("%-16s %-11s %10s %10s %9s %9s %8s %8s %12s %7s\n", "texture", "size", "max err",
           "mean err", "max/diag", "mean/diag", "nrm max", "nrm mean", "GPU bytes", "build");
}

static void print_vat_row(const crowd_bake *bake, const crowd_bake_report *r, double build_s,
                          bool written) {
    char name[32], size[24];
    snprintf(name, sizeof name, "VAT %s", vat_names[bake->vat_encoding]);
    snprintf(size, sizeof size, "%ux%u", bake->vat_position.width, bake->vat_position.height);
    printf("%-16s %-11s %10.3g %10.3g %9.2e %9.2e %7.3f° %7.3f° ", name, size,
           r->position_error_max, r->position_error_mean, r->position_error_max_rel,
           r->position_error_mean_rel, r->normal_error_max_deg, r->normal_error_mean_deg);
    print_size((double)r->vat_size_bytes);
    printf(" %6.2fs%s\n", build_s, written ? "" : "  (not written)");
}

static void print_bat_row(const crowd_bake *bake, const crowd_bake_report *r, double build_s,
                          bool written) {
    char name[32], size[24];
    snprintf(name, sizeof name, "BAT %s", bat_names[bake->bat_encoding]);
    snprintf(size, sizeof size, "%ux%u", bake->bat.width, bake->bat.height);
    printf("%-16s %-11s %10.3g %10s %9.2e %9s %8s %8s ", name, size, r->bat_position_error_max, "-",
           r->bat_position_error_max_rel, "-", "-", "-");
    print_size((double)r->bat_size_bytes);
    printf(" %6.2fs%s\n", build_s, written ? "" : "  (not written)");
}

/* The socket tracks: their file's texels, and the GPU bytes a vat prop on
 * each socket takes (crowd_prop_socket_track_bytes). */
static void print_socket_tracks(const crowd_bake *bake) {
    if (bake->socket_tracks.texels == NULL) {
        return;
    }
    printf("socket tracks: %u sockets, %ux%u RGBA32F (%llu bytes); GPU bytes per vat prop type:",
           bake->socket_count, bake->socket_tracks.width, bake->socket_tracks.height,
           (unsigned long long)bake->socket_tracks.width * bake->socket_tracks.height * 16u);
    for (uint32_t s = 0; s < bake->socket_count && s < bake->asset->socket_count; s++) {
        const crowd_socket *socket = &bake->asset->sockets[s];
        printf("%s %s %llu", s ? "," : "", socket->name,
               (unsigned long long)crowd_prop_socket_track_bytes(bake, socket->joint));
    }
    printf("\n");
}

/* Each clip's rate, how it was chosen, and its between-frame error. */
static void print_rates(const crowd_bake *bake, double diagonal) {
    printf("frames per clip (between-frame error: skinned positions mid-step against the "
           "interpolated frames; budget %.3g of the diagonal):\n",
           bake->between_error_budget_rel);
    printf("%-24s %6s %7s %-18s %10s %10s\n", "clip", "frames", "fps", "chosen", "max/diag",
           "mean/diag");
    uint32_t over = 0;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        char chosen[40];
        if (clip->key_rate > 0.0f) {
            snprintf(chosen, sizeof chosen, "keys %g/s x %u", (double)clip->key_rate,
                     clip->rate_multiple);
        } else {
            snprintf(chosen, sizeof chosen, "%s", clip->rate_multiple > 1 ? "budget" : "rate");
        }
        over += !clip->within_budget;
        printf("%-24.24s %6u %7.3g %-18s %10.2e %10.2e%s\n", clip->name, clip->frame_count,
               (double)clip->fps, chosen, diagonal > 0.0 ? clip->between_error_max / diagonal : 0.0,
               diagonal > 0.0 ? clip->between_error_mean / diagonal : 0.0,
               clip->within_budget ? "" : "  over budget");
    }
    if (over > 0) {
        printf("%u clip%s over the budget: motion faster than 240 fps follows, step keys, or "
               "textures too small for the rate (docs/time.md)\n",
               over, over == 1 ? "" : "s");
    }
}

static void print_lods(const crowd_bake *bake) {
    if (bake->lod_count <= 1) {
        printf("LODs: none (LOD 0 only)\n");
        return;
    }
    printf("LODs (error: farthest LOD0 vertex from the LOD's surface over every baked frame):\n");
    printf("%-4s %10s %10s %12s %11s\n", "LOD", "triangles", "vertices", "error", "error/diag");
    for (uint32_t k = 0; k < bake->lod_count; k++) {
        const crowd_bake_lod *lod = &bake->lods[k];
        printf("%-4u %10u %10u %12.4g %11.2e\n", k, lod->triangle_count, lod->vertex_count,
               (double)lod->error, (double)lod->error_rel);
    }
}

/* The runtime clips (what a loaded bake plays cpu and gpu with): size and
 * the error the build measured against the source clips. */
static void print_anim(const crowd_bake *bake) {
    const crowd_bake_anim *anim = &bake->anim;
    if (!anim->present) {
        printf("runtime clips: none (a baked clip has no source clip)\n");
        return;
    }
    printf("runtime clips: %u clips, %u tracks, %u keys, %.1f KiB; error against the source "
           "clips (skinned positions at every frame and mid-step) %.3g, %.3g of the diagonal\n",
           bake->clip_count, anim->track_count, anim->key_count, (double)anim->size_bytes / 1024.0,
           anim->error_max, anim->error_max_rel);
}

/* Which GPUs can hold every texture of the bake, by the largest texture
 * side each guarantees. */
static void print_fits(const crowd_bake *bake) {
    static const struct {
        const char *name;
        uint32_t size;
    } targets[] = {{"desktop (16384)", 16384},
                   {"WebGL2 8192", 8192},
                   {"WebGL2 4096", 4096},
                   {"GLES 3.0 2048", 2048}};
    uint32_t width =
        bake->vat_position.width > bake->bat.width ? bake->vat_position.width : bake->bat.width;
    uint32_t height =
        bake->vat_position.height > bake->bat.height ? bake->vat_position.height : bake->bat.height;
    char fits[160] = "", misses[200] = "";
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        if (width <= targets[i].size && height <= targets[i].size) {
            snprintf(fits + strlen(fits), sizeof fits - strlen(fits), "%s%s", fits[0] ? ", " : "",
                     targets[i].name);
        } else {
            snprintf(misses + strlen(misses), sizeof misses - strlen(misses), "%snot %s (%u %s)",
                     misses[0] ? ", " : "", targets[i].name, height > width ? height : width,
                     height > width ? "rows" : "wide");
        }
    }
    printf("fits: %s%s%s\n", fits[0] ? fits : "none", misses[0] ? "; " : "", misses);
}

/* Files of this bake in `dir` (NAME.*, NAME-* and NAME_*), with their sizes. */
static void print_files(const char *dir, const char *name) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        return;
    }
    size_t name_length = strlen(name);
    double total = 0.0;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        const char *file = entry->d_name;
        if (strncmp(file, name, name_length) != 0 || strchr(".-_", file[name_length]) == NULL ||
            file[name_length] == '\0') {
            continue;
        }
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, file);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            continue;
        }
        printf("  %-40s ", file);
        print_size((double)st.st_size);
        printf("\n");
        total += (double)st.st_size;
    }
    closedir(d);
    printf("  %-40s ", "total");
    print_size(total);
    printf("\n");
}

/* Builds the encodings not chosen (one texture kind each), measures and
 * prints them; nothing is written. */
static int report_others(const crowd_asset *asset, const crowd_bake_desc *chosen,
                         const crowd_bake *bake) {
    for (int kind = 0; kind < 2; kind++) {
        bool vat = kind == 0;
        if ((vat && bake->vat_position.texels == NULL) || (!vat && bake->bat.texels == NULL)) {
            continue;
        }
        int count = vat ? 3 : 2;
        for (int e = 1; e <= count; e++) {
            if ((vat && e == (int)bake->vat_encoding) || (!vat && e == (int)bake->bat_encoding)) {
                continue;
            }
            crowd_bake_desc desc = *chosen;
            desc.what = vat ? CROWD_BAKE_VAT_ONLY : CROWD_BAKE_BAT_ONLY;
            desc.vat_encoding = vat ? (crowd_vat_encoding)e : CROWD_VAT_DEFAULT;
            desc.bat_encoding = vat ? CROWD_BAT_DEFAULT : (crowd_bat_encoding)e;
            desc.progress = NULL;
            desc.lods = -1; /* the encodings are compared, not the LODs */
            crowd_bake *other = NULL;
            crowd_error error = {0};
            double start = cli_wall_s();
            crowd_bake_report report;
            if (crowd_bake_build(asset, &desc, &other, &error) != CROWD_OK) {
                return cli_report(&error);
            }
            double build_s = cli_wall_s() - start;
            if (crowd_bake_measure(other, other->asset, desc.thread_count, &report, &error) !=
                CROWD_OK) {
                crowd_bake_destroy(other);
                return cli_report(&error);
            }
            if (vat) {
                print_vat_row(other, &report, build_s, false);
            } else {
                print_bat_row(other, &report, build_s, false);
            }
            crowd_bake_destroy(other);
        }
    }
    return CLI_EXIT_OK;
}

static void print_blends(const crowd_bake *bake) {
    for (uint32_t b = 0; b < bake->blend_count; b++) {
        const crowd_bake_blend *blend = &bake->blends[b];
        printf("blend %s:", blend->name);
        for (uint32_t i = 0; i < blend->clip_count; i++) {
            printf(" %s", bake->clips[blend->clips[i]].name);
            if (blend->has_thresholds) {
                printf(" at %g", (double)blend->thresholds[i]);
            }
        }
        printf("%s\n", blend->has_thresholds ? "" : " (at their ground speeds)");
    }
}

static void print_events(const crowd_bake *bake) {
    if (bake->event_count == 0) {
        return;
    }
    printf("events: %u\n", bake->event_count);
    for (uint32_t e = 0; e < bake->event_count; e++) {
        const crowd_bake_event *event = &bake->events[e];
        printf("  %-24s %-20s at %g s\n", bake->clips[event->clip].name, event->name,
               (double)event->time_s);
    }
}

/* ---- the command ---------------------------------------------------------- */

/* For bake, INVALID_ARGUMENT always means a value the model or the limits
 * reject (a clip or socket it lacks, an fps too high), not a malformed
 * command line, so it is an input error. */
static int fail(const crowd_error *error) {
    int code = cli_report(error);
    return error->result == CROWD_ERROR_INVALID_ARGUMENT ? CLI_EXIT_INPUT : code;
}

static int load_model(const options *opt, const crowd_logger *logger, crowd_asset **out_asset) {
    crowd_import_desc import = {.logger = *logger, .scale = (float)opt->scale};
    crowd_error error = {0};
    crowd_asset *asset = NULL;
    if (crowd_model_load(opt->model, &import, &asset, &error) != CROWD_OK) {
        return fail(&error);
    }
    if (cli_attach_props(asset, opt->attach, opt->attach_count, &import, &error) != CROWD_OK) {
        crowd_asset_destroy(asset);
        return fail(&error);
    }
    for (uint32_t a = 0; a < opt->anim_count; a++) {
        crowd_anim_import_desc anim = {.logger = *logger, .import = &import};
        crowd_anim_report report;
        if (crowd_asset_add_clips(asset, opt->anims[a], &anim, &report, &error) != CROWD_OK) {
            crowd_asset_destroy(asset);
            return fail(&error);
        }
        if (!opt->quiet) {
            fprintf(stderr,
                    "crowd: %s: %u clips added (%u renamed); %u of %u joints matched (%u by "
                    "role, %u retargeted), %u of the file's unmatched\n",
                    opt->anims[a], report.clips_added, report.clips_renamed, report.joints_matched,
                    report.joint_count, report.joints_by_role, report.joints_retargeted,
                    report.unmatched_count);
        }
        crowd_anim_report_free(&report);
    }
    *out_asset = asset;
    return -1;
}

static int run(const options *opt) {
    status_line status = {.start_s = cli_wall_s(),
                          .terminal = !opt->quiet && isatty(STDERR_FILENO),
                          .quiet = opt->quiet};
    crowd_logger logger = {.fn = log_message, .user = &status};
    crowd_asset *asset = NULL;
    int code = load_model(opt, &logger, &asset);
    if (code >= 0) {
        return code;
    }
    status.start_s = cli_wall_s();
    long max_width = opt->max_width;
    if (opt->target_size > 0 && max_width > (long)opt->target_size) {
        fprintf(stderr, "crowd: --target %s: --max-width %ld lowered to %u\n", opt->target_name,
                max_width, (unsigned)opt->target_size);
        max_width = (long)opt->target_size;
    }
    crowd_bake_desc desc = {
        .fps = (float)opt->fps,
        .between_error_rel = opt->between_error,
        .clips = opt->clips,
        .clip_count = opt->clip_count,
        .loop_clips = opt->loops,
        .loop_clip_count = opt->loop_count,
        .once_clips = opt->onces,
        .once_clip_count = opt->once_count,
        .what = opt->what,
        .max_width = (uint32_t)max_width,
        .vat_encoding = opt->vat_encoding,
        .bat_encoding = opt->bat_encoding,
        .max_texture_size = opt->target_size,
        .lods = opt->lods,
        .logger = logger,
        .progress = status.terminal ? draw_progress : NULL,
        .progress_user = &status,
        .thread_count = (uint32_t)opt->threads,
        .root_motion = opt->root_motion,
        .root_joint = opt->root_joint,
    };
    crowd_error error = {0};
    crowd_bake *bake = NULL;
    double start = cli_wall_s();
    crowd_result result = crowd_bake_build(asset, &desc, &bake, &error);
    clear_status(&status);
    /* Before the write, so an event the bake refuses leaves the folder as
     * it was. */
    for (uint32_t e = 0; e < opt->event_count && result == CROWD_OK; e++) {
        const cli_event *event = &opt->events[e];
        result = crowd_bake_add_event(bake, event->clip, event->time_s, event->name, &error);
    }
    for (uint32_t b = 0; b < opt->blend_count && result == CROWD_OK; b++) {
        const cli_blend *blend = &opt->blends[b];
        result = crowd_bake_add_blend(bake, blend->name, blend->clip_count, blend->clips,
                                      blend->has_thresholds ? blend->thresholds : NULL, &error);
    }
    double build_s = cli_wall_s() - start;
    if (result == CROWD_OK) {
        crowd_bake_write_desc write = {.openvat = opt->openvat, .logger = logger};
        show_writing(&status, bake, opt->output);
        result = crowd_bake_write(bake, opt->output, &write, &error);
        clear_status(&status);
    }
    double total_s = cli_wall_s() - start;
    if (result != CROWD_OK) {
        crowd_bake_destroy(bake);
        crowd_asset_destroy(asset);
        return fail(&error);
    }
    code = CLI_EXIT_OK;
    if (!opt->quiet) {
        crowd_bake_report report;
        /* bake->asset: with root motion extracted, the in-place copy it plays */
        if (crowd_bake_measure(bake, bake->asset, desc.thread_count, &report, &error) != CROWD_OK) {
            code = fail(&error);
        } else {
            printf("baked %s: %u clips, %u frames, %u vertices, %u joints in %.2f s "
                   "(build %.2f s, write %.2f s)\n",
                   opt->model, bake->clip_count, bake->frame_count, bake->vertex_count,
                   bake->joint_count, total_s, build_s, total_s - build_s);
            print_rates(bake, report.bounds_diagonal);
            printf("error against float32 CPU skinning over %llu vertex-frames, in model units "
                   "(metres for glTF); bounds diagonal %.4g:\n",
                   (unsigned long long)report.vertex_frames, report.bounds_diagonal);
            print_header();
            if (bake->vat_position.texels != NULL) {
                print_vat_row(bake, &report, build_s, true);
            }
            if (bake->bat.texels != NULL) {
                print_bat_row(bake, &report, build_s, true);
            }
            if (opt->report_all) {
                code = report_others(asset, &desc, bake);
            }
            print_fits(bake);
            print_socket_tracks(bake);
            print_lods(bake);
            print_anim(bake);
            print_events(bake);
            print_blends(bake);
            printf("files in %s:\n", opt->output);
            print_files(opt->output, bake->name);
            if (opt->openvat) {
                char openvat[4096];
                snprintf(openvat, sizeof openvat, "%s/openvat", opt->output);
                printf("files in %s (OpenVAT layout):\n", openvat);
                print_files(openvat, bake->name);
            }
        }
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return code;
}

int cmd_bake(int argc, char **argv) {
    options opt = {.what = CROWD_BAKE_BOTH};
    int code = parse(argc, argv, &opt);
    if (code < 0) {
        code = run(&opt);
    }
    free_options(&opt);
    return code;
}
