#include "check.h"
#include "test_gpu.h"

int test_gpu_models(void) {
    return check_finish();
}
