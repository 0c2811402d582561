/* write_json.h - building JSON documents with cJSON without checking every
 * call: each helper adds one member (or array element when key is NULL) and
 * on any allocation failure frees what it was given and sets *failed, so a
 * writer builds the whole document and checks one flag at the end. A NULL
 * parent (from an earlier failure) is treated the same way.
 */
#ifndef CROWD_BAKE_WRITE_JSON_H
#define CROWD_BAKE_WRITE_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>

cJSON *crowd__json_put(bool *failed, cJSON *parent, const char *key, cJSON *item);
void crowd__json_put_number(bool *failed, cJSON *parent, const char *key, double value);
void crowd__json_put_string(bool *failed, cJSON *parent, const char *key, const char *value);
void crowd__json_put_bool(bool *failed, cJSON *parent, const char *key, bool value);
void crowd__json_put_floats(bool *failed, cJSON *parent, const char *key, const float *values,
                            int count);

#endif
