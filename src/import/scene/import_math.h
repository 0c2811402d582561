/* import_math.h - the few 4x4 operations the importer and attach need.
 *
 * Matrices are column-major float[16] (crowd's convention) at any alignment:
 * each helper copies into aligned cglm values, so asset fields and malloc'd
 * arrays can be passed directly. Outputs may alias inputs.
 */
#ifndef CROWD_IMPORT_MATH_H
#define CROWD_IMPORT_MATH_H

#include <stdbool.h>

#include <assimp/matrix4x4.h>

void crowd__import_m4_identity(float out[16]);
/* assimp's row-major aiMatrix4x4 to column-major. */
void crowd__import_m4_from_ai(const struct aiMatrix4x4 *m, float out[16]);
void crowd__import_m4_mul(const float a[16], const float b[16], float out[16]);
/* False (out = identity) when the matrix is singular or not finite. */
bool crowd__import_m4_invert(const float m[16], float out[16]);
bool crowd__import_m4_is_finite(const float m[16]);
/* True when every element differs by at most `tolerance`. */
bool crowd__import_m4_near(const float a[16], const float b[16], float tolerance);
void crowd__import_m4_from_trs(const float translation[3], const float rotation_xyzw[4],
                               const float scale[3], float out[16]);
void crowd__import_m4_point(const float m[16], const float p[3], float out[3]);
/* Direction through the inverse transpose of m's upper 3x3, normalized;
 * false (out unchanged) when it degenerates. */
bool crowd__import_m4_normal(const float m[16], const float n[3], float out[3]);

#endif
