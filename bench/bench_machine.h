/* bench_machine.h - the CPU a benchmark program ran on, for its header line
 * (docs/architecture.md, "Performance protocol": absolute times only with
 * the machine named). Header-only:
 * each .c file of bench/ is a program of its own.
 */
#ifndef CROWD_BENCH_MACHINE_H
#define CROWD_BENCH_MACHINE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The "model name" of /proc/cpuinfo into `out` ("AMD EPYC 7B13"); false,
 * with `out` untouched, where there is none (non-x86 machines name the CPU
 * otherwise). */
static inline bool bench_cpu_name(char *out, size_t size) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    bool found = false;
    while (!found && f != NULL && fgets(line, sizeof line, f) != NULL) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            const char *start = colon + 1 + strspn(colon + 1, " \t");
            snprintf(out, size, "%.*s", (int)strcspn(start, "\r\n"), start);
            found = true;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return found;
}

#endif
