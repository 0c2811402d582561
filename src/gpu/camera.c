/* Cameras: the view-projection matrix of a crowd_camera (right-handed, GL
 * clip space) and framing a box so that all of it is in view. */
#include <math.h>
#include <string.h>

#include "gpu/internal.h"

#define DEFAULT_FOV_Y_RAD 0.785398163f

static void sub3(const float a[3], const float b[3], float out[3]) {
    for (int i = 0; i < 3; i++) {
        out[i] = a[i] - b[i];
    }
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const float a[3], const float b[3], float out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static bool normalize3(float v[3]) {
    float length = sqrtf(dot3(v, v));
    if (!(length > 1e-12f)) {
        return false;
    }
    for (int i = 0; i < 3; i++) {
        v[i] /= length;
    }
    return true;
}

/* Orthonormal camera basis: forward (eye to target), right, up. */
static bool basis(const float forward_in[3], const float up_hint[3], float forward[3],
                  float right[3], float up[3]) {
    memcpy(forward, forward_in, 3 * sizeof *forward);
    if (!normalize3(forward)) {
        return false;
    }
    float hint[3] = {up_hint[0], up_hint[1], up_hint[2]};
    if (hint[0] == 0.0f && hint[1] == 0.0f && hint[2] == 0.0f) {
        hint[1] = 1.0f;
    }
    cross3(forward, hint, right);
    if (!normalize3(right)) {
        /* Looking along the up vector: any perpendicular will do. */
        const float z[3] = {0.0f, 0.0f, 1.0f};
        cross3(forward, z, right);
        if (!normalize3(right)) {
            return false;
        }
    }
    cross3(right, forward, up);
    return true;
}

static float camera_fov(const crowd_camera *camera) {
    return camera->fov_y_rad > 0.0f ? camera->fov_y_rad : DEFAULT_FOV_Y_RAD;
}

bool crowd_camera_matrices(const crowd_camera *camera, float aspect, float view[16],
                           float projection[16]) {
    float forward[3], right[3], up[3], dir[3];
    if (camera == NULL || view == NULL || projection == NULL) {
        return false;
    }
    sub3(camera->target, camera->eye, dir);
    float distance = sqrtf(dot3(dir, dir));
    float fov = camera_fov(camera);
    if (!isfinite(distance) || !(fov < 3.1f) || !(aspect > 0.0f) ||
        !basis(dir, camera->up, forward, right, up)) {
        return false;
    }
    float near = camera->near_m > 0.0f ? camera->near_m : 0.02f * distance;
    float far = camera->far_m > 0.0f ? camera->far_m : 20.0f * distance + 10.0f;
    if (!(near > 0.0f) || !(far > near)) {
        return false;
    }
    /* view = rows right, up, -forward, translated by -eye (column-major). */
    const float v[16] = {right[0],
                         up[0],
                         -forward[0],
                         0.0f,
                         right[1],
                         up[1],
                         -forward[1],
                         0.0f,
                         right[2],
                         up[2],
                         -forward[2],
                         0.0f,
                         -dot3(right, camera->eye),
                         -dot3(up, camera->eye),
                         dot3(forward, camera->eye),
                         1.0f};
    memcpy(view, v, sizeof v);
    float f = 1.0f / tanf(fov * 0.5f);
    memset(projection, 0, 16 * sizeof(float));
    projection[0] = f / aspect;
    projection[5] = f;
    projection[10] = (far + near) / (near - far);
    projection[11] = -1.0f;
    projection[14] = 2.0f * far * near / (near - far);
    return true;
}

void crowd_camera_frame_box(const float min[3], const float max[3], float aspect,
                            crowd_camera *out) {
    memset(out, 0, sizeof *out);
    out->fov_y_rad = DEFAULT_FOV_Y_RAD;
    out->up[1] = 1.0f;
    if (!(aspect > 0.0f) || !isfinite(aspect)) {
        aspect = 1.0f;
    }
    float centre[3];
    for (int a = 0; a < 3; a++) {
        centre[a] = 0.5f * (min[a] + max[a]);
    }
    /* From the front (+Z), a little right and above. */
    float back[3] = {0.35f, 0.45f, 1.0f};
    normalize3(back);
    float forward[3] = {-back[0], -back[1], -back[2]}, right[3], up[3];
    const float hint[3] = {0.0f, 1.0f, 0.0f};
    basis(forward, hint, forward, right, up);
    float ty = tanf(out->fov_y_rad * 0.5f), tx = ty * aspect;
    /* Smallest distance with every corner inside the frustum: a corner at
     * offset q from the centre is at depth D - q.back, so it needs
     * D >= |q.right| / tx + q.back and D >= |q.up| / ty + q.back. */
    float distance = 0.0f;
    for (int corner = 0; corner < 8; corner++) {
        float q[3] = {((corner & 1) ? max[0] : min[0]) - centre[0],
                      ((corner & 2) ? max[1] : min[1]) - centre[1],
                      ((corner & 4) ? max[2] : min[2]) - centre[2]};
        float need_x = fabsf(dot3(q, right)) / tx + dot3(q, back);
        float need_y = fabsf(dot3(q, up)) / ty + dot3(q, back);
        distance = need_x > distance ? need_x : distance;
        distance = need_y > distance ? need_y : distance;
    }
    distance = distance > 0.01f ? distance * 1.08f : 1.0f;
    for (int a = 0; a < 3; a++) {
        out->target[a] = centre[a];
        out->eye[a] = centre[a] + back[a] * distance;
    }
}
