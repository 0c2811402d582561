/* import_child.h - what the parent (import_child.c) and the helper program
 * (helper/crowd_import_helper.c) agree on besides the reply
 * (import_wire.h): the program's name, where it is found, its command line.
 *
 *   crowd-import-helper --protocol N --memory-limit BYTES --cpu-limit SECONDS
 *                       [--scale S] [--socket NAME]... [--content clips]
 *                       (--file PATH | --memory NAME)
 *
 * --memory reads the input's bytes from stdin up to its end; NAME gives
 * the extension and the name in messages. --content clips asks for the
 * file's skeleton and clips only (crowd__import_clips_file, import_run.h: no mesh
 * needed or read), with --file only; without it the file is a character.
 * A helper of another build refuses an option it does not know (exit
 * status 2), which the parent reports. The reply goes to stdout;
 * stderr is assimp's own printing, read by the parent.
 *
 * For tests, a second build of the helper (crowd_import_helper_faults in
 * tests/import, compiled with CROWD_IMPORT_HELPER_FAULTS; never installed)
 * reads the environment variable CROWD_IMPORT_HELPER_FAULT and misbehaves
 * before it reads anything: "abort" (SIGABRT), "hang" (sleeps forever),
 * "spin" (burns CPU forever), "alloc" (allocates until the memory limit
 * stops it), "garbage" (a reply of random bytes). The installed helper
 * and the library never read it.
 */
#ifndef CROWD_IMPORT_CHILD_H
#define CROWD_IMPORT_CHILD_H

#include <stdbool.h>
#include <stddef.h>

#define IMPORT_HELPER_NAME "crowd-import-helper"
#define IMPORT_HELPER_FAULT_ENV "CROWD_IMPORT_HELPER_FAULT"

/* The helper's path into `out` (import_helper_path.c). False when none is
 * executable; `looked` then says where it was looked for. */
bool crowd__import_helper_path(char *out, size_t size, char *looked, size_t looked_size);

#endif
