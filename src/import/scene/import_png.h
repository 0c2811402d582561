/* import_png.h - PNG textures of either reader decoded (import_png.c). */
#ifndef CROWD_IMPORT_PNG_H
#define CROWD_IMPORT_PNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes a PNG to RGBA8. Returns false (and logs nothing) when the bytes
 * are not a PNG libpng can read or are over `max_side`. */
bool crowd__import_png_decode(const void *bytes, size_t size, uint32_t max_side,
                              uint32_t *out_width, uint32_t *out_height, uint8_t **out_rgba8);

#endif
