#include "check.h"
#include "test_gpu.h"

int test_gpu_cli(void) {
    return check_finish();
}
