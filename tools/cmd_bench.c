#include "cli.h"

/* Placeholder until the bench command lands; replaced by its owner. */
int cmd_bench(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail(CLI_EXIT_UNSUPPORTED, "'bench' is not built yet");
}
