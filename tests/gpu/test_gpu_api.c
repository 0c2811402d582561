#include "check.h"
#include "test_gpu.h"

int test_gpu_api(void) {
    return check_finish();
}
