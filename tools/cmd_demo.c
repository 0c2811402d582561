/* cmd_demo.c - `crowd demo`: what crowd does, with no file and no option.
 *
 * Bakes the built-in character in memory and renders a mixed crowd of it to
 * crowd-demo.png: two archetypes of one world, one in bat mode (it fetches
 * baked bone matrices and skins) shaded by a crowd_shade function of the
 * demo's own, milling about in mixed clips and phases, and one in vat mode
 * (the vertex shader fetches baked positions) marching past at varied
 * speeds on a walk-run blend by speed with run-time props (demo_march.h),
 * all casting shadows onto the ground through crowd's depth pass. Then it
 * measures the
 * five playback modes side by side at two crowd sizes (bench.h) and prints
 * what each costs. Sizes follow the renderer: a software rasterizer
 * (llvmpipe) gets a few hundred characters so the whole demo takes seconds;
 * a GPU gets thousands.
 *
 * Exit codes: 1 malformed command line; 4 the picture cannot be written;
 * 5 no GL context or a GL failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "demo_march.h"
#include "stage.h"

static const char usage[] =
    "usage: crowd demo [-o FILE.png]\n"
    "  renders a mixed crowd of the built-in character (vat and bat, with shadows)\n"
    "  to crowd-demo.png and compares the playback modes static, cpu, gpu, bat and\n"
    "  vat side by side\n"
    "  -o, --output FILE.png  where to write the picture (default crowd-demo.png)\n";

/* Sizes for a software rasterizer and for a GPU. */
typedef struct demo_plan {
    uint32_t picture_count, picture_width, picture_height;
    uint32_t counts[2];
    uint32_t width, height, frames, warmup;
} demo_plan;

static const demo_plan software_plan = {240, 640, 360, {20, 200}, 320, 180, 5, 1};
static const demo_plan gpu_plan = {4000, 1280, 720, {100, 2000}, 1280, 720, 30, 5};

/* The horde's second kind: crowd's own lighting on other colours, picked by
 * material (the built-in character's "shirt" and "skin"; a name it lacks
 * matches nothing): green shirts, grey-green skin. */
static void zombie_shade(const crowd_asset *asset, char *out, size_t size) {
    uint32_t shirt = UINT32_MAX, skin = UINT32_MAX;
    for (uint32_t m = 0; m < asset->material_count; m++) {
        const char *name = asset->materials[m].name != NULL ? asset->materials[m].name : "";
        shirt = strcmp(name, "shirt") == 0 ? m : shirt;
        skin = strcmp(name, "skin") == 0 ? m : skin;
    }
    snprintf(out, size,
             "vec4 crowd_shade(crowd_surface s) {\n"
             "    if (s.material == %uu) {\n"
             "        s.base_color.rgb = vec3(0.04, 0.22, 0.06) * s.tint.rgb;\n"
             "    } else if (s.material == %uu) {\n"
             "        s.base_color.rgb *= vec3(0.55, 0.8, 0.5);\n"
             "    }\n"
             "    return vec4(crowd_default_lighting(s), 1.0);\n"
             "}\n",
             (unsigned)shirt, (unsigned)skin);
}

/* What render_picture makes, released together. */
typedef struct picture {
    crowd_world *world;
    crowd_instance *ids;
    host_target target;
    stage stage;
    uint8_t *pixels;
    demo_march march;
} picture;

/* The clock of the picture: the marchers have walked this long. */
#define DEMO_TIME_S 2.0

static void picture_release(picture *p) {
    stage_release(&p->stage);
    host_target_release(&p->target);
    crowd_world_destroy(p->world);
    free(p->ids);
    free(p->pixels);
}

static crowd_result picture_draw(host_context *context, const scene_character *character,
                                 const demo_plan *plan, const char *path, picture *p,
                                 stage_timing *timing, crowd_error *error) {
    size_t bytes = (size_t)plan->picture_width * plan->picture_height * 4;
    p->ids = calloc(plan->picture_count, sizeof *p->ids);
    p->pixels = malloc(bytes);
    if (p->ids == NULL || p->pixels == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    crowd_world_desc desc = stage_world_desc(plan->picture_count, (crowd_logger){0});
    crowd_result result = crowd_world_create(&desc, &p->world, error);
    char shade[512];
    zombie_shade(character->asset, shade, sizeof shade);
    crowd_archetype kinds[2];
    if (result == CROWD_OK) {
        result =
            scene_archetype_add(p->world, character, CROWD_GPU_MODE_VAT, NULL, &kinds[0], error);
    }
    if (result == CROWD_OK) {
        result =
            scene_archetype_add(p->world, character, CROWD_GPU_MODE_BAT, shade, &kinds[1], error);
    }
    /* Half the crowd mills about in the bat archetype's clips; the other
     * half marches past in vat on the blend by speed, carrying props. */
    uint32_t walkers = plan->picture_count / 2, others = plan->picture_count - walkers;
    if (result == CROWD_OK) {
        result = scene_populate(p->world, &kinds[1], 1, 1, others, p->ids, error);
    }
    if (result == CROWD_OK) {
        result = demo_march_add(p->world, kinds[0], walkers, DEMO_TIME_S, p->ids + others,
                                &p->march, error);
    }
    if (result == CROWD_OK) {
        result = host_target_resize(&p->target, plan->picture_width, plan->picture_height, error);
    }
    if (result == CROWD_OK) {
        result = stage_create(context, true, true, &p->stage, error);
        p->stage.lods = true;
    }
    if (result == CROWD_OK) {
        crowd_camera camera;
        /* From the front left: crowd's default sun shines from the front
         * right, so the shadows fall to the side the camera sees. */
        scene_camera(p->world, kinds[0], (float)plan->picture_width / (float)plan->picture_height,
                     -0.8f, 0.5f, 0.8f, &camera);
        result =
            stage_frame(&p->stage, p->world, &p->target, &camera, DEMO_TIME_S, true, timing, error);
    }
    if (result == CROWD_OK) {
        result = host_target_read_rgba(&p->target, p->pixels, bytes, error);
    }
    if (result == CROWD_OK) {
        result = host_write_png(path, plan->picture_width, plan->picture_height, p->pixels, error);
    }
    return result;
}

static int render_picture(host_context *context, const scene_character *character,
                          const demo_plan *plan, const char *path) {
    crowd_error error = {0};
    picture p = {0};
    stage_timing timing;
    int code = CLI_EXIT_OK;
    if (picture_draw(context, character, plan, path, &p, &timing, &error) != CROWD_OK) {
        code = cli_report(&error);
    } else {
        crowd_world_stats stats;
        crowd_world_get_stats(p.world, &stats);
        const demo_march *m = &p.march;
        printf("wrote %s: %u characters of two archetypes (vat; bat in green, its own "
               "crowd_shade), %ux%u, %u draw calls in %u passes (shadow map, colour), %.0f ms\n",
               path, (unsigned)plan->picture_count, (unsigned)plan->picture_width,
               (unsigned)plan->picture_height, (unsigned)stats.draw_calls, (unsigned)stats.passes,
               timing.wall_s * 1e3);
        printf("  %u of them march past at %.2f to %.2f m/s on a walk-run blend by speed, feet "
               "matched (crowd_instance_set_ground_speed), carrying props attached at run time: "
               "%u swords, %u shields, %u hats (%u prop types, one draw each per pass)\n",
               (unsigned)m->walkers, (double)m->slowest, (double)m->fastest,
               (unsigned)m->carried[0], (unsigned)m->carried[1], (unsigned)m->carried[2],
               (unsigned)m->prop_types);
    }
    picture_release(&p);
    return code;
}

static void print_table(const bench_results *r) {
    printf("%10s  %-6s  %10s  %8s  %9s  %8s  %5s  %7s\n", "characters", "mode", "app CPU ms",
           "x static", "frame ms", "x static", "draws", "GPU MiB");
    for (uint32_t ci = 0; ci < r->config.count_count; ci++) {
        for (uint32_t mi = 0; mi < r->config.mode_count; mi++) {
            const bench_cell *cell = bench_cell_at(r, ci, mi);
            char cpu_ratio[24], frame_ratio[24];
            bench_format_ratio(cpu_ratio, sizeof cpu_ratio, bench_ratio(r, ci, mi, 0));
            bench_format_ratio(frame_ratio, sizeof frame_ratio, bench_ratio(r, ci, mi, 1));
            printf("%10u  %-6s  %10.3f  %8s  %9.1f  %8s  %5u  %7.1f\n", (unsigned)cell->count,
                   crowd_gpu_mode_name(cell->mode), cell->cpu_ms.median, cpu_ratio,
                   cell->frame_ms.median, frame_ratio, (unsigned)cell->draw_calls,
                   (double)cell->gpu_memory_bytes / (1024.0 * 1024.0));
        }
    }
}

/* What the table says, in one sentence per finding, from the numbers. */
static void print_summary(const bench_results *r) {
    uint32_t last = r->config.count_count - 1;
    const bench_cell *cells[CROWD_GPU_MODE_COUNT] = {0};
    const bench_cell *small[CROWD_GPU_MODE_COUNT] = {0};
    for (uint32_t mi = 0; mi < r->config.mode_count; mi++) {
        cells[r->config.modes[mi]] = bench_cell_at(r, last, mi);
        small[r->config.modes[mi]] = bench_cell_at(r, 0, mi);
    }
    const bench_cell *cpu = cells[CROWD_GPU_MODE_CPU], *vat = cells[CROWD_GPU_MODE_VAT];
    const bench_cell *stat = cells[CROWD_GPU_MODE_STATIC];
    printf("\nAt %u characters the CPU spends %.3f ms per frame in vat mode (%u draw call) "
           "against %.1f ms skinning every character itself in cpu mode (%u draw calls): %.0fx "
           "less.\n",
           (unsigned)vat->count, vat->cpu_ms.median, (unsigned)vat->draw_calls, cpu->cpu_ms.median,
           (unsigned)cpu->draw_calls, cpu->cpu_ms.median / fmax(vat->cpu_ms.median, 1e-6));
    printf("vat's CPU time went from %.3f ms at %u characters to %.3f ms at %u; its frame time "
           "is %.2fx that of the static (unanimated) crowd.\n",
           small[CROWD_GPU_MODE_VAT]->cpu_ms.median, (unsigned)small[CROWD_GPU_MODE_VAT]->count,
           vat->cpu_ms.median, (unsigned)vat->count,
           vat->frame_ms.median / fmax(stat->frame_ms.median, 1e-9));
}

static int run(const char *path) {
    double start = cli_wall_s();
    scene_gl_thread_setup(true);
    crowd_logger logger = {scene_log, NULL};
    crowd_error error = {0};
    scene_character character;
    if (scene_character_load("builtin:", true, &logger, &character, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    printf("crowd demo: the built-in character, %u vertices, %u joints, %u clips, baked in "
           "memory in %.2f s (vertex animation + bone matrix textures, %ux%u + %ux%u texels)\n",
           (unsigned)character.asset->mesh.vertex_count,
           (unsigned)character.asset->skeleton.joint_count, (unsigned)character.bake->clip_count,
           character.bake_s, (unsigned)character.bake->vat_position.width,
           (unsigned)character.bake->vat_position.height, (unsigned)character.bake->bat.width,
           (unsigned)character.bake->bat.height);
    host_context *context = NULL;
    host_context_desc desc = {.logger = logger};
    int code = CLI_EXIT_OK;
    if (scene_context_create(&desc, &context, &error) != CROWD_OK) {
        code = cli_report(&error);
    }
    if (code == CLI_EXIT_OK) {
        host_context_info info;
        host_context_get_info(context, &info);
        const demo_plan *plan = info.software ? &software_plan : &gpu_plan;
        printf("GL: %s (%s)%s\n", info.renderer, info.platform,
               info.software ? ": a software rasterizer, so a small crowd" : "");
        code = render_picture(context, &character, plan, path);
        bench_config config = {
            .model = "builtin:",
            .modes = {CROWD_GPU_MODE_STATIC, CROWD_GPU_MODE_CPU, CROWD_GPU_MODE_GPU,
                      CROWD_GPU_MODE_BAT, CROWD_GPU_MODE_VAT},
            .mode_count = CROWD_GPU_MODE_COUNT,
            .counts = {plan->counts[0], plan->counts[1]},
            .count_count = 2,
            .width = plan->width,
            .height = plan->height,
            .frames = plan->frames,
            .warmup = plan->warmup,
            .frame_step_s = 1.0 / 30.0,
            .seed = 1,
        };
        bench_results results = {0};
        if (code == CLI_EXIT_OK &&
            bench_run(context, &character, &config, &results, &error) != CROWD_OK) {
            code = cli_report(&error);
        }
        if (code == CLI_EXIT_OK) {
            printf("\nThe five playback modes side by side (%ux%u, median of %u frames; app CPU "
                   "= the frame's CPU work on the calling thread, frame = until the GPU "
                   "finished):\n\n",
                   (unsigned)config.width, (unsigned)config.height, (unsigned)config.frames);
            print_table(&results);
            print_summary(&results);
            printf("\nCPU: %s. `crowd bench` measures more sizes and frames; `crowd play "
                   "builtin:` opens a window. Done in %.1f s.\n",
                   results.machine.cpu, cli_wall_s() - start);
        }
        bench_results_release(&results);
    }
    host_context_destroy(context);
    scene_character_release(&character);
    return code;
}

int cmd_demo(int argc, char **argv) {
    const char *path = "crowd-demo.png";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if ((path = cli_option_value(argc, argv, &i)) == NULL) {
                return CLI_EXIT_USAGE;
            }
        } else {
            return cli_fail(CLI_EXIT_USAGE,
                            "demo: unexpected argument '%s' (see crowd demo --help)", argv[i]);
        }
    }
    return run(path);
}
