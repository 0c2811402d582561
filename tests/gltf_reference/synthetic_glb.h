/* synthetic_glb.h - writes a small skinned .glb whose animation uses every
 * glTF interpolation (STEP, LINEAR, CUBICSPLINE with non-zero tangents) on
 * translation, rotation and scale, since no stored test model has STEP or
 * CUBICSPLINE keys. Written from the GLB layout of the specification. */
#ifndef SYNTHETIC_GLB_H
#define SYNTHETIC_GLB_H

/* Writes the file; returns 0 on I/O failure. */
int synthetic_glb_write(const char *path);

#endif
