// backend.c: the reference backend (the decode-step protocol of method 2 with the reference
// step and codecs), the choice of the CPU backend a process takes by default, and the lookup of
// every backend by name; see backend.h.
#include "backend.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "recurrence.h"
#include "sums.h"

void stepq_ref_read(stepq_qstate* qs, const stepq_step_in* in, const float* decay, const double* grad,
                    const float* S_prev, float* pred) {
    if (pred) stepq_p1_predict(pred, qs->X, S_prev, grad, qs->K, qs->V);
}

void stepq_ref_measure(stepq_qmeasure* m, const stepq_qstate* qs, const float* S_ref) {
    if (!S_ref) return;
    m->err2 = stepq_sq_dist(qs->X, S_ref, qs->K, qs->V);
    m->hat2 = stepq_sq_norm(qs->X, qs->K, qs->V);
}

int stepq_ref_write(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                    int n_gates, const float* S_ref, float* y_hat, stepq_qmeasure* m) {
    if (stepq_qstate_step(qs, y_hat, qs->u, in, scale, n_gates) != STEPQ_OK) return STEPQ_ERR;
    stepq_ref_measure(m, qs, S_ref);
    return STEPQ_OK;
}

int stepq_ref_write_keep(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                         int n_gates, float* y_hat, float* X_pre) {
    return stepq_qstate_step_keep(qs, y_hat, qs->u, in, scale, n_gates, X_pre);
}

int stepq_ref_write_cut(stepq_qstate* qs, const stepq_step_in* in, const float* decay,
                        const float* u_ref, double scale, float* y_hat) {
    return stepq_qstate_step_cut(qs, y_hat, u_ref, in, decay, scale);
}

int stepq_ref_write_rows(stepq_qstate* qs, const stepq_step_in* in, double scale, int n_gates,
                         float* y_hat, const int8_t* sel, int value, int b) {
    return stepq_qstate_step_rows(qs, y_hat, qs->u, in, scale, n_gates, sel, value, b);
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

// the language model's products, the definition built for baseline x86-64
#define REAL float
#define MATVEC_FN ref_matvec
#define MATVEC_LINKAGE static
#include "matvec_impl.h"
#undef REAL
#undef MATVEC_FN
#undef MATVEC_LINKAGE

const stepq_backend stepq_backend_reference = {
    .name = "reference",
    .isa = STEPQ_ISA_BASE,
    .step = stepq_step_f32,
    .propagate = stepq_propagate_f32,
    .error_step = stepq_error_step_f64,
    .read = stepq_ref_read,
    .write = stepq_ref_write,
    .write_keep = stepq_ref_write_keep,
    .write_cut = stepq_ref_write_cut,
    .write_rows = stepq_ref_write_rows,
    .dual_roundtrip = ref_dual_roundtrip,
    .rows_roundtrip = ref_rows_roundtrip,
    .run_heads = stepq_cpu_run_heads,
    .step_norm = stepq_step_norm_f32,
    .matvec = ref_matvec,
};

#if defined(__x86_64__)
const stepq_backend* const stepq_backends_cpu[] = {&stepq_backend_reference, &stepq_backend_v2,
                                                   &stepq_backend_avx2, &stepq_backend_avx512, NULL};

static int cpu_supports(int isa) {
    __builtin_cpu_init();
    // the features of -march=x86-64-v3 and -v4 one by one (older compilers, clang 14, know no
    // level names here)
    int v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx");
    int v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512cd");
    switch (isa) {
    case STEPQ_ISA_AVX512: return v4 && __builtin_cpu_supports("avx512vbmi");
    case STEPQ_ISA_AVX2: return v3;
    default: return 1;
    }
}
#else  // another architecture: the reference and the portable build of the fused kernels
const stepq_backend* const stepq_backends_cpu[] = {&stepq_backend_reference, &stepq_backend_v2, NULL};
static int cpu_supports(int isa) { return isa == STEPQ_ISA_BASE; }
#endif

static const stepq_backend* cuda;

void stepq_backend_set_cuda(const stepq_backend* b) { cuda = b; }

int stepq_backend_supported(const stepq_backend* b) {
    return cpu_supports(b->isa) && (!b->available || b->available());
}

static const stepq_backend* chosen;
static int env_error;

static void choose(void) {
    const char* want = getenv("STEPQ_KERNELS");
    const stepq_backend* k = NULL;
    for (const stepq_backend* const* c = stepq_backends_cpu; want && *want && *c; c++)
        if (!strcmp((*c)->name, want)) k = *c;
    if (want && *want && (!k || !stepq_backend_supported(k))) {
        env_error = 1;
        k = NULL;
    }
    for (const stepq_backend* const* c = stepq_backends_cpu; !k && *c; c++)
        if (stepq_backend_supported(*c)) chosen = *c;  // the widest supported, last in the list
    if (k) chosen = k;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

const stepq_backend* stepq_backend_default(void) {
    pthread_once(&once, choose);
    return chosen;
}

int stepq_backend_init(void) {
    stepq_backend_default();
    if (!env_error) return STEPQ_OK;
    const char* want = getenv("STEPQ_KERNELS");
    stepq_error("STEPQ_KERNELS=%s: %s (known: reference, x86-64-v2, avx2, avx512)", want,
                stepq_backend_find(want) ? "this CPU cannot run it" : "no such kernels");
    return STEPQ_ERR;
}

const stepq_backend* stepq_backend_find(const char* name) {
    if (!strcmp(name, "cpu")) return stepq_backend_default();
    if (!strcmp(name, "cuda")) return cuda;
    for (const stepq_backend* const* c = stepq_backends_cpu; *c; c++)
        if (!strcmp((*c)->name, name)) return *c;
    return NULL;
}

const stepq_backend* stepq_backend_named(const char* name) {
    const stepq_backend* b = stepq_backend_find(name);
    if (!strcmp(name, "cuda") && !b) {
        stepq_error("backend cuda: this stepq was built without CUDA (no nvcc when it was configured)");
        return NULL;
    }
    if (!b) {
        stepq_error("backend %s: not one of %s", name, STEPQ_BACKEND_NAMES);
        return NULL;
    }
    if (b == cuda && !stepq_backend_supported(b)) {
        stepq_error("backend cuda: no CUDA device of compute capability 8.0 or newer is present "
                    "(run with backend = \"cpu\")");
        return NULL;
    }
    if (!stepq_backend_supported(b)) {
        stepq_error("backend %s: this CPU cannot run it (the default here is %s)", name,
                    stepq_backend_default()->name);
        return NULL;
    }
    return b;
}
