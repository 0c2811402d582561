/* gltf_skinner.h - glTF 2.0 animation and skinning, straight from the
 * specification, in double precision: the expected side of the reference
 * test. Animation sampling follows Appendix C (STEP, LINEAR with slerp for
 * rotations, CUBICSPLINE with tangents scaled by the key interval); global
 * transforms follow 3.5.3; skinning follows 3.7.3: jointMatrix =
 * globalTransform(joint) * inverseBindMatrix, vertex = sum of weight *
 * jointMatrix * position, the skinned mesh node's own transform ignored.
 */
#ifndef GLTF_SKINNER_H
#define GLTF_SKINNER_H

#include "gltf_reader.h"

/* Global (scene-space) matrices of every node, 16 doubles each, with the
 * nodes animated by `animation` at `time_s` (NULL: the nodes' own TRS). */
void gltf_globals(const gltf_file *file, const gltf_animation *animation, double time_s,
                  double *globals);

/* Scene-space positions of primitive `primitive` of the mesh on `node`
 * (skinned with the node's skin, or transformed rigidly by the node when it
 * has none), 3 doubles per vertex. Weights are normalized to sum 1 (the
 * specification requires it; files that break it are read that way by every
 * skinner). */
void gltf_vertices(const gltf_file *file, const double *globals, int node, int primitive,
                   double *out);

/* The end time of an animation: its largest key time. */
double gltf_animation_duration(const gltf_animation *animation);

#endif
