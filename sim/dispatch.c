// dispatch.c: the reference kernel table (the decode-step protocol of method 2 with the
// reference step and codecs) and the choice of the table a process uses (kernels.h).
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "kernels.h"
#include "recurrence.h"
#include "sums.h"

static void ref_read(stepq_qstate* qs, const stepq_step_in* in, const float* decay,
                     const double* grad, const float* S_prev, float* pred) {
    if (pred) stepq_p1_predict(pred, qs->X, S_prev, grad, qs->K, qs->V);
}

static int ref_write(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                     int n_gates, const float* S_ref, float* y_hat, stepq_qmeasure* m) {
    if (stepq_qstate_step(qs, y_hat, qs->u, in, scale, n_gates) != STEPQ_OK) return STEPQ_ERR;
    if (S_ref) {
        m->err2 = stepq_sq_dist(qs->X, S_ref, qs->K, qs->V);
        m->hat2 = stepq_sq_norm(qs->X, qs->K, qs->V);
    }
    return STEPQ_OK;
}

static int ref_dual_roundtrip(float* Xh, uint8_t* P, const float* X, const stepq_head_plan* hp, int dsq,
                              float* work, int K, int V) {
    if (stepq_dual_encode_head(P, X, hp, dsq, work, K, V) != STEPQ_OK) return STEPQ_ERR;
    stepq_dual_decode_head(Xh, P, hp, K, V);
    return STEPQ_OK;
}

static int ref_rows_roundtrip(float* Xh, uint8_t* P, const float* X, const uint8_t* bits, int K, int V) {
    if (stepq_rows_encode(P, X, bits, 0, K, V) != STEPQ_OK) return STEPQ_ERR;
    stepq_rows_decode(Xh, P, bits, 0, K, V);
    return STEPQ_OK;
}

const stepq_kernels stepq_kernels_reference = {
    .name = "reference",
    .level = STEPQ_ISA_BASE,
    .step_f32 = stepq_step_f32,
    .propagate = stepq_propagate_f32,
    .qstep_read = ref_read,
    .qstep_write = ref_write,
    .dual_roundtrip = ref_dual_roundtrip,
    .rows_roundtrip = ref_rows_roundtrip,
};

#if defined(__x86_64__)
const stepq_kernels* const stepq_kernels_all[] = {&stepq_kernels_reference, &stepq_kernels_v2,
                                                  &stepq_kernels_avx2, &stepq_kernels_avx512, NULL};

int stepq_kernels_supported(const stepq_kernels* k) {
    __builtin_cpu_init();
    // the features of -march=x86-64-v3 and -v4 one by one (older compilers, clang 14, know no
    // level names here)
    int v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx");
    int v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512cd");
    switch (k->level) {
    case STEPQ_ISA_AVX512: return v4 && __builtin_cpu_supports("avx512vbmi");
    case STEPQ_ISA_AVX2: return v3;
    default: return 1;
    }
}
#else  // another architecture: the reference and the portable build of the fused kernels
const stepq_kernels* const stepq_kernels_all[] = {&stepq_kernels_reference, &stepq_kernels_v2, NULL};
int stepq_kernels_supported(const stepq_kernels* k) { return k->level == STEPQ_ISA_BASE; }
#endif

const stepq_kernels* stepq_kernels_find(const char* name) {
    for (const stepq_kernels* const* k = stepq_kernels_all; *k; k++)
        if (!strcmp((*k)->name, name)) return *k;
    return NULL;
}

static const stepq_kernels* chosen;
static int env_error;

static void choose(void) {
    const char* want = getenv("STEPQ_KERNELS");
    const stepq_kernels* k = want && *want ? stepq_kernels_find(want) : NULL;
    if (want && *want && (!k || !stepq_kernels_supported(k))) {
        env_error = 1;
        k = NULL;
    }
    for (const stepq_kernels* const* c = stepq_kernels_all; !k && *c; c++)
        if (stepq_kernels_supported(*c)) chosen = *c;  // the widest supported, last in the list
    if (k) chosen = k;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

const stepq_kernels* stepq_kernels_active(void) {
    pthread_once(&once, choose);
    return chosen;
}

int stepq_kernels_init(void) {
    stepq_kernels_active();
    if (!env_error) return STEPQ_OK;
    const char* want = getenv("STEPQ_KERNELS");
    stepq_error("STEPQ_KERNELS=%s: %s (known: reference, x86-64-v2, avx2, avx512)", want,
                stepq_kernels_find(want) ? "this CPU cannot run it" : "no such kernels");
    return STEPQ_ERR;
}
