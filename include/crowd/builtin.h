/* crowd/builtin.h - the built-in character.
 *
 * A procedurally generated humanoid so that every command works with no file
 * at all (`builtin:` on the command line): about 20 joints, a few thousand
 * vertices with smooth 2-4 influence weights, three materials, the clips
 * idle, walk, run, wave (looping) and die (one-shot), and the sockets
 * socket_hand_R, socket_hand_L (in the palms, a prop's +Y pointing forward
 * out of the fist) and socket_head (on top of the head, +Y up). Built in
 * memory, deterministic (same bytes every call, every machine), and valid
 * by crowd_asset_validate().
 *
 * The built-in props are static meshes for those sockets, made the same
 * way ("builtin:sword" and so on for crowd_model_load): sword
 * (socket_hand_R), shield (socket_hand_L), hat (socket_head). Each is a
 * rigid asset of one joint and one material, in its socket's space.
 */
#ifndef CROWD_BUILTIN_H
#define CROWD_BUILTIN_H

#include "crowd/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the character. Fails only with CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd_builtin_create(crowd_asset **out_asset, crowd_error *error);

/* The built-in props: how many, and each one's name and the socket of the
 * built-in character it is made for ("" past the count). */
uint32_t crowd_builtin_prop_count(void);
const char *crowd_builtin_prop_name(uint32_t index);
const char *crowd_builtin_prop_socket(uint32_t index);
/* Builds the prop named `name` ("sword", "shield", "hat"). Errors:
 * CROWD_ERROR_INVALID_ARGUMENT (an unknown name, NULL out_asset),
 * CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd_builtin_prop_create(const char *name, crowd_asset **out_asset,
                                       crowd_error *error);

#ifdef __cplusplus
}
#endif

#endif
