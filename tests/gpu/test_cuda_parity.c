#include "../../sim/cuda/engine.h"
#include "gputest.h"
int main(void) { if (!stepq_cuda_available()) return 77; return 0; }
