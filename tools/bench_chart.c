/* bench_chart.c - frame time and application CPU time against crowd size,
 * one line per mode (or per way of drawing the field scene), log-log, drawn
 * by gnuplot when it is installed. The data goes inline (a gnuplot
 * here-document), so no data file is left behind; the picture is drawn to
 * a temporary name and renamed into place. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"

static bool gnuplot_installed(void) {
    const char *path = getenv("PATH");
    if (path == NULL) {
        return false;
    }
    char dir[4096];
    while (*path != '\0') {
        size_t length = strcspn(path, ":");
        char candidate[4200];
        snprintf(dir, sizeof dir, "%.*s", (int)length, path);
        snprintf(candidate, sizeof candidate, "%s/gnuplot", length > 0 ? dir : ".");
        if (access(candidate, X_OK) == 0) {
            return true;
        }
        path += length + (path[length] == ':');
    }
    return false;
}

/* gnuplot single-quoted string: a quote is written twice. */
static void put_quoted(FILE *out, const char *text) {
    fputc('\'', out);
    for (; *text != '\0'; text++) {
        if (*text == '\'') {
            fputc('\'', out);
        }
        fputc(*text, out);
    }
    fputc('\'', out);
}

static void put_data(FILE *out, const bench_chart *chart, const char *name, bool cpu) {
    fprintf(out, "$%s << EOD\n", name);
    for (uint32_t l = 0; l < chart->line_count; l++) {
        const bench_chart_line *line = &chart->lines[l];
        for (uint32_t p = 0; p < line->point_count; p++) {
            const bench_summary *s = cpu ? &line->cpu_ms[p] : &line->frame_ms[p];
            fprintf(out, "%u %.6g %.6g %.6g\n", (unsigned)line->counts[p], s->median, s->p10,
                    s->p90);
        }
        /* gnuplot needs a point in every data block it plots */
        if (line->point_count == 0) {
            fprintf(out, "NaN NaN NaN NaN\n");
        }
        fprintf(out, "\n\n");
    }
    fprintf(out, "EOD\n");
}

static void put_plot(FILE *out, const bench_chart *chart, const char *name, const char *title) {
    fprintf(out, "set title '%s'\n", title);
    fprintf(out, "plot ");
    for (uint32_t l = 0; l < chart->line_count; l++) {
        fprintf(out,
                "%s$%s index %u using 1:2:3:4 with yerrorlines linewidth 2 linecolor rgb '%s' "
                "title ",
                l > 0 ? ", " : "", name, (unsigned)l, chart->lines[l].colour);
        put_quoted(out, chart->lines[l].title);
    }
    fprintf(out, "\n");
}

bench_chart_line *bench_chart_add_line(bench_chart *chart, const char *title, const char *colour) {
    if (chart->line_count == BENCH_CHART_MAX_LINES) {
        return NULL;
    }
    bench_chart_line *line = &chart->lines[chart->line_count++];
    line->title = title;
    line->colour = colour;
    return line;
}

void bench_chart_add_point(bench_chart_line *line, uint32_t count, const bench_summary *frame_ms,
                           const bench_summary *cpu_ms) {
    if (line->point_count == BENCH_MAX_COUNTS) {
        return;
    }
    line->counts[line->point_count] = count;
    line->frame_ms[line->point_count] = *frame_ms;
    line->cpu_ms[line->point_count++] = *cpu_ms;
}

int bench_write_chart(const char *path, const bench_results *r) {
    /* One fixed colour per mode, so charts of different runs read alike. */
    static const char *const colours[CROWD_GPU_MODE_COUNT] = {"#404040", "#d62728", "#ff7f0e",
                                                              "#1f77b4", "#2ca02c"};
    bench_chart *chart = calloc(1, sizeof *chart);
    if (chart == NULL) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: out of memory", path);
        return -1;
    }
    /* With two tiers, the second's lines in a lighter shade of the mode's. */
    static const char *const second_tier_colours[CROWD_GPU_MODE_COUNT] = {
        "#a0a0a0", "#f09a9b", "#ffbf87", "#8fbbd9", "#96d096"};
    char titles[BENCH_CHART_MAX_LINES][32];
    chart->model = r->config.model;
    chart->machine = &r->machine;
    for (uint32_t mi = 0; mi < r->config.mode_count; mi++) {
        for (uint32_t ti = 0; ti < r->config.tier_count; ti++) {
            crowd_gpu_mode mode = r->config.modes[mi];
            uint32_t at = chart->line_count < BENCH_CHART_MAX_LINES ? chart->line_count : 0;
            snprintf(titles[at], sizeof titles[at], "%s", crowd_gpu_mode_name(mode));
            if (r->config.tier_count > 1) {
                snprintf(titles[at], sizeof titles[at], "%s, %s", crowd_gpu_mode_name(mode),
                         crowd_gpu_tier_name(bench_tier_cell_at(r, 0, mi, ti)->tier));
            }
            bench_chart_line *line = bench_chart_add_line(
                chart, titles[at], ti == 0 ? colours[mode] : second_tier_colours[mode]);
            for (uint32_t ci = 0; line != NULL && ci < r->config.count_count; ci++) {
                const bench_cell *cell = bench_tier_cell_at(r, ci, mi, ti);
                bench_chart_add_point(line, cell->count, &cell->frame_ms, &cell->cpu_ms);
            }
        }
    }
    int result = bench_chart_write(path, chart);
    free(chart);
    return result;
}

int bench_chart_write(const char *path, const bench_chart *chart) {
    if (!gnuplot_installed()) {
        return 1;
    }
    size_t length = strlen(path);
    char *temp = malloc(length + 16);
    if (temp == NULL) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: out of memory", path);
        return -1;
    }
    snprintf(temp, length + 16, "%s.tmp-XXXXXX", path);
    int fd = cli_mkstemp_public(temp);
    if (fd < 0) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: cannot create a file there: %s", path, strerror(errno));
        free(temp);
        return -1;
    }
    close(fd);
    fflush(NULL);
    FILE *gnuplot = popen("gnuplot", "w");
    if (gnuplot == NULL) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: cannot run gnuplot: %s", path, strerror(errno));
        remove(temp);
        free(temp);
        return -1;
    }
    fprintf(gnuplot, "set terminal pngcairo size 1280,560 font 'sans,10'\nset output ");
    put_quoted(gnuplot, temp);
    fprintf(gnuplot, "\n");
    put_data(gnuplot, chart, "frame", false);
    put_data(gnuplot, chart, "cpu", true);
    fprintf(gnuplot, "set multiplot layout 1,2 title ");
    put_quoted(gnuplot, chart->model);
    fprintf(gnuplot, " . ' on ' . ");
    put_quoted(gnuplot, chart->machine->gl_renderer);
    fprintf(gnuplot, " . ', ' . ");
    put_quoted(gnuplot, chart->machine->cpu);
    fprintf(gnuplot, "\nset logscale xy\nset grid\nset key top left\n"
                     "set xlabel 'characters'\nset ylabel 'ms (median, 10th-90th percentile)'\n");
    put_plot(gnuplot, chart, "frame", "frame time (until the GPU finished)");
    put_plot(gnuplot, chart, "cpu", "application CPU time per frame");
    fprintf(gnuplot, "unset multiplot\nset output\n");
    int status = pclose(gnuplot);
    if (status != 0) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: gnuplot failed (status %d)", path,
                 WIFEXITED(status) ? WEXITSTATUS(status) : status);
        remove(temp);
        free(temp);
        return -1;
    }
    if (rename(temp, path) != 0) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
        remove(temp);
        free(temp);
        return -1;
    }
    free(temp);
    return 0;
}
