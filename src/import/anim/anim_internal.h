/* anim_internal.h - what adding clips from other files (crowd_asset_add_clips,
 * anim_add.c) is made of, and what the glTF reader shares with it.
 *
 *   anim_names.c     clip names made unique; joint names compared across
 *                    files (namespaces, case) and humanoid roles
 *   anim_loop.c      the loop flag of a clip (first and last poses)
 *   anim_bvh.c       BVH mocap (skeleton and motion, no mesh)
 *   anim_match.c     the file's joints matched to the character's
 *   anim_retarget.c  the file's keys turned into the character's
 */
#ifndef CROWD_IMPORT_ANIM_INTERNAL_H
#define CROWD_IMPORT_ANIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/asset.h"

/* Clips [first, clip_count) of `asset` with an empty name or one an
 * earlier clip has become "clip_N" / "NAME_N" (the first N from the clip's
 * index that is free), each counted in repairs.clips_renamed and logged. */
crowd_result crowd__anim_clip_names_unique(crowd_asset *asset, uint32_t first,
                                           const crowd_logger *logger, const char *file,
                                           crowd_error *error);

/* A joint name without its namespace ("mixamorig:Hips", "Armature|Hips",
 * "mixamorig1:Hips" -> "Hips"): what follows the last ':' or '|'. */
const char *crowd__anim_name_stem(const char *name);
/* Joint names that mean the same joint: equal stems ignoring case. */
bool crowd__anim_names_match(const char *a, const char *b);
/* The humanoid part a joint name stands for in the common rigs (Mixamo and
 * CMU mocap, Biovision, Blender-style ".L" names, crowd's builtin), as a
 * small positive number; 0 when it names none. Two joints of one role are
 * the same part of the body. */
int crowd__anim_humanoid_role(const char *name);

/* Sets clip->loop: the clip lasts and ends in the pose it starts in
 * (translation and scale within 1e-3, relative above 1; rotation within
 * about half a degree). */
crowd_result crowd__anim_clip_decide_loop(const crowd_skeleton *skeleton, crowd_clip *clip,
                                          const char *file, crowd_error *error);

/* Reads a BVH file: its joints (rest: OFFSET, identity rotation) and one
 * clip of its motion, named after the file; no mesh. */
crowd_result crowd__anim_bvh_read(const char *path, const crowd_logger *logger, crowd_asset **out,
                                  crowd_error *error);
/* The same from bytes in memory (copied); `name` in messages and the asset's. */
crowd_result crowd__anim_bvh_parse(const void *bytes, size_t size, const char *name,
                                   const crowd_logger *logger, crowd_asset **out,
                                   crowd_error *error);

/* How the character's joints take the file's: source[j] is the file joint
 * character joint j follows, or -1; by_role[j] when it was matched by
 * humanoid role rather than by name. */
typedef struct anim_match {
    int32_t *source;
    bool *by_role;
    uint32_t matched, by_role_count;
} anim_match;

/* Matches by name first (crowd__anim_names_match), then, for what is left, by
 * humanoid role; each file joint serves one character joint. */
crowd_result crowd__anim_match_joints(const crowd_skeleton *character, const crowd_skeleton *file,
                                      anim_match *out, const char *path, crowd_error *error);
void crowd__anim_match_free(anim_match *match);

/* Per-joint constants turning the file's keys into the character's
 * (anim_retarget.c says how). */
typedef struct anim_retarget {
    const crowd_skeleton *character;
    uint32_t joint_count; /* the character's */
    const int32_t *source;
    float *left, *right; /* 4 per joint: key' = left * key * right */
    bool *copy;          /* rotation, translation and scale keys kept as they are */
    int32_t root;        /* the character joint taking the file root's translation, -1 */
    float root_scale;    /* applied to that translation */
    uint32_t retargeted; /* joints whose keys are turned (copy false) */
} anim_retarget;

/* `root_scale` > 0 replaces the ratio of hip heights. */
crowd_result crowd__anim_retarget_plan(const crowd_skeleton *character, const crowd_skeleton *file,
                                       const anim_match *match, float root_scale,
                                       anim_retarget *out, const char *path, crowd_error *error);
/* The character's tracks (plan->joint_count entries, calloc'ed into
 * out->tracks) for file clip `in`; name, duration and loop copied. */
crowd_result crowd__anim_retarget_clip(const anim_retarget *plan, const crowd_skeleton *file,
                                       const crowd_clip *in, crowd_clip *out, const char *path,
                                       crowd_error *error);
void crowd__anim_retarget_free(anim_retarget *plan);

/* Frees what a clip owns (name, tracks), not the clip itself. */
void crowd__anim_clip_release(crowd_clip *clip, uint32_t joint_count);

#endif
