/* One-flag error handling for cJSON document building (write_json.h). */
#include "bake/write_json.h"

#include <stddef.h>

cJSON *crowd__json_put(bool *failed, cJSON *parent, const char *key, cJSON *item) {
    bool ok = item != NULL && parent != NULL &&
              (key != NULL ? cJSON_AddItemToObject(parent, key, item)
                           : cJSON_AddItemToArray(parent, item));
    if (!ok) {
        cJSON_Delete(item);
        *failed = true;
        return NULL;
    }
    return item;
}

void crowd__json_put_number(bool *failed, cJSON *parent, const char *key, double value) {
    crowd__json_put(failed, parent, key, cJSON_CreateNumber(value));
}

void crowd__json_put_string(bool *failed, cJSON *parent, const char *key, const char *value) {
    crowd__json_put(failed, parent, key, cJSON_CreateString(value));
}

void crowd__json_put_bool(bool *failed, cJSON *parent, const char *key, bool value) {
    crowd__json_put(failed, parent, key, cJSON_CreateBool(value));
}

void crowd__json_put_floats(bool *failed, cJSON *parent, const char *key, const float *values,
                            int count) {
    crowd__json_put(failed, parent, key, cJSON_CreateFloatArray(values, count));
}
