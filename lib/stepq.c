// stepq.c: libstepq, the public API of include/stepq.h over the floors below it (method 6.11).
// Nothing here computes: each function checks its arguments, calls quant/ or sim/, and turns
// their STEPQ_ERR and messages into an sq_status and sq_last_error().
//
// Every entry runs under this thread's error sink (base/common.h): the floors' messages are kept
// rather than printed, and a fatal error (out of memory, a broken invariant) jumps back to the
// entry, which returns SQ_ENOMEM or SQ_EINTERNAL instead of ending the caller's program.
#include "../include/stepq.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include "../analysis/calibrate.h"
#include "../base/common.h"
#include "../base/outfile.h"
#include "../base/stats.h"
#include "../quant/format.h"
#include "../quant/plan.h"
#include "../sim/env.h"
#include "../sim/backend.h"
#include "../sim/session.h"
#include "../sim/sums.h"
#include "../sim/trace.h"
#include "lib.h"
#include "stepq_version.h"

static _Thread_local stepq_error_sink sink;
static _Thread_local jmp_buf jump;
static _Thread_local char last[sizeof sink.msg];

// (only through ENTER, whose setjmp the sink's jump buffer must be)
static void enter(void) {
    memset(&sink, 0, sizeof sink);
    sink.jump = &jump;
    stepq_error_sink_set(&sink);
}

// ends an entry: its status, with the messages kept when it failed
static sq_status leave(sq_status rc) {
    stepq_error_sink_set(NULL);
    if (sink.fatal) rc = strncmp(sink.msg, "out of memory", 13) == 0 ? SQ_ENOMEM : SQ_EINTERNAL;
    if (rc != SQ_OK) snprintf(last, sizeof last, "%s", sink.n ? sink.msg : sq_status_name(rc));
    return rc;
}

// the first statement of every entry that reaches the floors below; a fatal error below returns
// from the entry here
#define ENTER()                                   \
    do {                                          \
        enter();                                  \
        if (setjmp(jump)) return leave(SQ_EINTERNAL); \
    } while (0)

// the message of a refusal, into the sink
static void say(const char* fmt, va_list ap) {
    char buf[sizeof sink.msg];
    vsnprintf(buf, sizeof buf, fmt, ap);
    stepq_error("%s", buf);
}

// One object, one thread at a time: a call claims the object's flag (busy) and release() frees
// it on the way out; a call that finds it claimed is refused instead of racing the thread inside
// (busy NULL: the object itself is NULL)
static int claim(const int* busy, const char* what, const char* advice, const char* who) {
    int idle = 0;
    if (!busy) {
        stepq_error("%s: %s is NULL", who, what);
        return STEPQ_ERR;
    }
    if (__atomic_compare_exchange_n((int*)busy, &idle, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return STEPQ_OK;
    stepq_error("%s: the %s is in use by another thread (%s)", who, what, advice);
    return STEPQ_ERR;
}

static sq_status release(const int* busy, sq_status rc) {
    __atomic_store_n((int*)busy, 0, __ATOMIC_RELEASE);
    return leave(rc);
}

// an entry's own refusal: the message, then leave(rc) (lib/lib.h)
sq_status lib_fail(sq_status rc, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    return leave(rc);
}

// the entry for libstepq's other files (lib/lib.h): the same sink, jump and messages
void lib_enter(void) { enter(); }
jmp_buf* lib_jump(void) { return &jump; }
sq_status lib_leave(sq_status rc) { return leave(rc); }
const char* lib_message(void) { return sink.n ? sink.msg : ""; }
int lib_claim(const int* busy, const char* what, const char* advice, const char* who) {
    return claim(busy, what, advice, who);
}
sq_status lib_release(const int* busy, sq_status rc) { return release(busy, rc); }

int sq_version(void) { return SQ_VERSION; }

const char* sq_build_info(void) {
    return "stepq " STEPQ_VERSION " (" STEPQ_GIT_REVISION "), " STEPQ_COMPILER ", " STEPQ_BUILD_FLAGS;
}

const char* sq_last_error(void) { return last; }

const char* sq_status_name(int status) {
    static const char* const names[] = {"SQ_OK", "SQ_EINVAL", "SQ_ENOFORMAT", "SQ_EPLAN",
                                        "SQ_EFILE", "SQ_ENONFINITE", "SQ_ENOMEM", "SQ_EINTERNAL"};
    return status >= 0 && status < (int)(sizeof names / sizeof *names) ? names[status] : "unknown";
}

// ---------------------------------------------------------------------------------------------
// the format table

int sq_format_count(void) { return stepq_n_formats; }

sq_status sq_format_get(int i, sq_format_info* out) {
    ENTER();
    if (!out) return lib_fail(SQ_EINVAL, "sq_format_get: out is NULL");
    if (i < 0 || i >= stepq_n_formats)
        return lib_fail(SQ_EINVAL, "sq_format_get: index %d is outside the table's [0, %d)", i, stepq_n_formats);
    const stepq_format* f = &stepq_formats[i];
    *out = (sq_format_info){.name = f->name, .summary = f->summary, .family = f->family->name,
                            .nominal_bits = f->nominal_bits, .needs_plan = stepq_format_needs_plan(f),
                            .v_multiple = f->family->v_multiple, .v_pow2 = f->family->v_pow2,
                            .replay = f->replay};
    return leave(SQ_OK);
}

// the format called name, or NULL after the message (listing the names)
static const stepq_format* find_format(const char* name, const char* what) {
    const stepq_format* f = name ? stepq_format_find(name) : NULL;
    if (f) return f;
    char names[1536];
    size_t o = 0;
    for (int i = 0; i < stepq_n_formats && o < sizeof names; i++)
        o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? " " : "", stepq_formats[i].name);
    stepq_error("%s: no format is called '%.64s'; the formats are: %s", what, name ? name : "(null)", names);
    return NULL;
}

sq_status sq_format_find(const char* name, int* index) {
    ENTER();
    if (!index) return lib_fail(SQ_EINVAL, "sq_format_find: index is NULL");
    const stepq_format* f = find_format(name, "sq_format_find");
    if (!f) return leave(SQ_ENOFORMAT);
    *index = (int)(f - stepq_formats);
    return leave(SQ_OK);
}

// ---------------------------------------------------------------------------------------------
// plans

// The floors keep a list of the files a run reads, which no output may replace (base/outfile.h):
// the process's, not a call's. A library call that reads files (sq_plan_open, sq_calibrate)
// holds this lock and forgets them before it returns, so that a plan opened, or the traces of a
// calibration, may be written over by a later call. sq_calibrate holds it while it runs (its
// output is checked against its traces): a plan opened meanwhile waits for it.
static pthread_mutex_t inputs_lock = PTHREAD_MUTEX_INITIALIZER;

// A plan is shared by the codecs and sessions made with it: each holds a reference, and the
// plan is freed when sq_plan_close and the last of them have let it go (the counts are atomic:
// a codec may be closed on another thread than its plan).
struct sq_plan {
    stepq_plan p;
    int refs;
};

static const sq_plan* plan_retain(const sq_plan* plan) {
    if (plan) __atomic_add_fetch(&((sq_plan*)plan)->refs, 1, __ATOMIC_RELAXED);
    return plan;
}

static void plan_release(const sq_plan* plan) {
    sq_plan* p = (sq_plan*)plan;
    if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    stepq_plan_free(&p->p);
    free(p);
}

static int kind_ok(int kind) { return kind == SQ_GDN || kind == SQ_KDA; }

sq_status sq_plan_open(const char* path, sq_plan** out) {
    volatile int held = 0;  // 1 while this call holds inputs_lock
    enter();
    if (setjmp(jump)) {  // a fatal error below (ENTER's, with the lock let go)
        if (held) pthread_mutex_unlock(&inputs_lock);
        return leave(SQ_EINTERNAL);
    }
    if (!path || !out) return lib_fail(SQ_EINVAL, "sq_plan_open: path and out must not be NULL");
    *out = NULL;
    sq_plan* plan = callocCheck(1, sizeof *plan);
    plan->refs = 1;
    pthread_mutex_lock(&inputs_lock);
    held = 1;
    const int noted = stepq_inputs_count();
    const int rc = stepq_plan_read(&plan->p, path);
    stepq_inputs_forget_since(noted);  // read whole into memory: a later output may replace it
    held = 0;
    pthread_mutex_unlock(&inputs_lock);
    if (rc != STEPQ_OK) {
        stepq_plan_free(&plan->p);
        free(plan);
        return leave(SQ_EFILE);
    }
    *out = plan;
    return leave(SQ_OK);
}

void sq_plan_close(sq_plan* plan) { plan_release(plan); }

sq_status sq_plan_get_info(const sq_plan* plan, sq_plan_info* out) {
    ENTER();
    if (!plan || !out) return lib_fail(SQ_EINVAL, "sq_plan_get_info: plan and out must not be NULL");
    const stepq_plan* p = &plan->p;
    *out = (sq_plan_info){.kind = (sq_kind)p->kind, .K = p->K, .V = p->V, .n_heads = p->H,
                          .file = p->file, .calibration_key = p->calibration_key,
                          .model_sha256 = p->model_sha256};
    return leave(SQ_OK);
}

sq_status sq_plan_head(const sq_plan* plan, int i, int* layer, int* head) {
    ENTER();
    if (!plan || !layer || !head) return lib_fail(SQ_EINVAL, "sq_plan_head: plan, layer and head must not be NULL");
    if (i < 0 || i >= plan->p.H)
        return lib_fail(SQ_EINVAL, "sq_plan_head: %s has heads [0, %d), not %d", plan->p.file, plan->p.H, i);
    *layer = plan->p.layer[i];
    *head = plan->p.head[i];
    return leave(SQ_OK);
}

sq_status sq_plan_find(const sq_plan* plan, int layer, int head, int* index) {
    ENTER();
    if (!plan || !index) return lib_fail(SQ_EINVAL, "sq_plan_find: plan and index must not be NULL");
    *index = stepq_plan_find(&plan->p, layer, head);
    if (*index < 0)
        return lib_fail(SQ_EPLAN, "%s has no head %d of layer %d (it was calibrated on %d heads)", plan->p.file, head,
                    layer, plan->p.H);
    return leave(SQ_OK);
}

// STEPQ_OK if plan p was made for heads of kind and K x V, else the message (who: the caller)
static int plan_fits(const stepq_plan* p, int kind, int K, int V, const char* who) {
    if (p->kind == kind && p->K == K && p->V == V) return STEPQ_OK;
    stepq_error("%s: %s was made for %s heads of %d x %d, not %s heads of %d x %d", who, p->file,
                stepq_kind_name(p->kind), p->K, p->V, stepq_kind_name(kind), K, V);
    return STEPQ_ERR;
}

sq_status sq_plan_check(const sq_plan* plan, sq_kind kind, int K, int V, int n, const int* layers,
                        const int* heads) {
    ENTER();
    if (!plan || n < 0 || (n > 0 && (!layers || !heads)))
        return lib_fail(SQ_EINVAL, "sq_plan_check: plan, and layers and heads of n >= 0 entries, must be given");
    if (plan_fits(&plan->p, kind, K, V, "sq_plan_check") != STEPQ_OK) return leave(SQ_EPLAN);
    for (int i = 0; i < n; i++)
        if (stepq_plan_find(&plan->p, layers[i], heads[i]) < 0)
            return lib_fail(SQ_EPLAN, "sq_plan_check: %s has no head %d of layer %d (it was calibrated on %d heads)",
                        plan->p.file, heads[i], layers[i], plan->p.H);
    return leave(SQ_OK);
}

// ---------------------------------------------------------------------------------------------
// one head's codec

struct sq_codec {
    const sq_plan* plan;  // held (plan_retain) while the codec lives: hp points into it
    const stepq_format* fmt;
    stepq_head_plan hp;
    uint8_t rows[STEPQ_MAX_DIM];
    float* work;
    size_t bytes;
    int K, V;
};

// STEPQ_OK if a format (needs_plan) may run on heads of kind and K x V with plan p's head ph,
// else the message and *rc
static int codec_args(sq_status* rc, const stepq_format* f, const stepq_plan* p, int ph, int kind, int K, int V,
                      const char* who) {
    *rc = SQ_EINVAL;
    if (!kind_ok(kind)) {
        stepq_error("%s: kind %d is neither SQ_GDN (0) nor SQ_KDA (1)", who, kind);
        return STEPQ_ERR;
    }
    if (stepq_format_fits(f, K, V) != STEPQ_OK) return STEPQ_ERR;
    *rc = SQ_EPLAN;
    if (stepq_format_needs_plan(f) && !p) {
        stepq_error("%s: format %s needs a calibration plan (stepq calibrate makes one)", who, f->name);
        return STEPQ_ERR;
    }
    if (!p) return STEPQ_OK;
    if (plan_fits(p, kind, K, V, who) != STEPQ_OK) return STEPQ_ERR;
    if (ph < 0 || ph >= p->H) {
        stepq_error("%s: %s has heads [0, %d), not %d", who, p->file, p->H, ph);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

sq_status sq_codec_open(const char* format, const sq_plan* plan, int plan_head, sq_kind kind, int K, int V,
                        sq_codec** out) {
    ENTER();
    if (!out) return lib_fail(SQ_EINVAL, "sq_codec_open: out is NULL");
    *out = NULL;
    if (stepq_check_env(0) != STEPQ_OK) return leave(SQ_EINVAL);  // ulimit -s too small, ...
    const stepq_format* f = find_format(format, "sq_codec_open");
    if (!f) return leave(SQ_ENOFORMAT);
    const stepq_plan* p = plan ? &plan->p : NULL;
    sq_status rc;
    if (codec_args(&rc, f, p, plan_head, kind, K, V, "sq_codec_open") != STEPQ_OK) return leave(rc);
    sq_codec* c = callocCheck(1, sizeof *c);
    *c = (sq_codec){.plan = plan_retain(plan), .fmt = f, .K = K, .V = V};
    // a plan only where the format reads one: the others encode with w = 1 at their own width
    stepq_assert(stepq_head_plan_for(&c->hp, c->rows, f, stepq_format_needs_plan(f) ? p : NULL, plan_head, kind,
                                     K) == STEPQ_OK);
    c->work = mallocCheck(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    c->bytes = f->family->packed_bytes(f, &c->hp, K, V);
    *out = c;
    return leave(SQ_OK);
}

void sq_codec_close(sq_codec* c) {
    if (!c) return;
    plan_release(c->plan);
    free(c->work);
    free(c);
}

size_t sq_codec_bytes(const sq_codec* c) { return c ? c->bytes : 0; }

double sq_codec_bits(const sq_codec* c) { return c ? (double)c->bytes * 8.0 / ((double)c->K * c->V) : 0; }

sq_status sq_codec_encode(sq_codec* c, const float* X, uint8_t* packed, size_t n) {
    ENTER();
    if (!c || !X || !packed) return lib_fail(SQ_EINVAL, "sq_codec_encode: codec, X and packed must not be NULL");
    if (n != c->bytes)
        return lib_fail(SQ_EINVAL, "sq_codec_encode: format %s packs a %d x %d head into %zu bytes, not %zu",
                    c->fmt->name, c->K, c->V, c->bytes, n);
    if (stepq_encode(packed, X, c->fmt, &c->hp, c->work, c->K, c->V) != STEPQ_OK)
        return lib_fail(SQ_ENONFINITE, "sq_codec_encode: the state holds a NaN or Inf; format %s cannot store it",
                    c->fmt->name);
    return leave(SQ_OK);
}

sq_status sq_codec_decode(sq_codec* c, const uint8_t* packed, size_t n, float* X_hat) {
    ENTER();
    if (!c || !X_hat || !packed) return lib_fail(SQ_EINVAL, "sq_codec_decode: codec, packed and X_hat must not be NULL");
    if (n != c->bytes)
        return lib_fail(SQ_EINVAL, "sq_codec_decode: format %s packs a %d x %d head into %zu bytes, not %zu",
                    c->fmt->name, c->K, c->V, c->bytes, n);
    stepq_decode(X_hat, packed, c->fmt, &c->hp, c->K, c->V);
    return leave(SQ_OK);
}

// ---------------------------------------------------------------------------------------------
// sessions

struct sq_session {
    const sq_plan* plan;   // held while the session lives (plan_retain): its heads read it
    int busy;              // 1 while a call is inside: a second thread's call is refused
    stepq_session* s;
    stepq_slot* slots;     // (F)
    int* plan_index;       // (H)
    stepq_step_in* in;     // (H)
    int H, F, K, V, G, keep_states;
};

// A session is used by one thread at a time: every call on it claims it first, and a call that
// finds it claimed (another thread inside) is refused instead of racing it
static int session_claim(const sq_session* s, const char* who) {
    return claim(s ? &s->busy : NULL, "session",
                 "a session is used by one thread at a time; give each thread its own, or take turns with a lock", who);
}

static sq_status session_done(const sq_session* s, sq_status rc) { return release(&s->busy, rc); }

static sq_status session_fail(const sq_session* s, sq_status rc, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static sq_status session_fail(const sq_session* s, sq_status rc, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    return session_done(s, rc);
}

// what sq_session_open allocates, counted before it does: per head the reference state and,
// per format, the decoded state, its packed bytes and scratch (at most a state's floats each),
// and the kept states
static double session_bytes(int H, int F, int K, int V, int keep) {
    return 4.0 * K * V * H * (2.0 + F * (3.0 + keep));
}

// the trace reader's rules (method 6.1) on one step's inputs: everything finite, q and k of norm
// at most 1 + STEPQ_TRACE_NORM_TOL (a norm below 1 is what an eps in the normalisation gives),
// g <= 0, beta in [0, 1]; the message names the step, head and value, *rc is SQ_ENONFINITE for a
// NaN or Inf and SQ_EINVAL for a finite value out of range
static int step_inputs_ok(const sq_session* s, const float* q, const float* k, const float* v, const float* g,
                          const float* beta, sq_status* rc, const char* who) {
    const long t = stepq_session_steps(s->s);
    char why[256];
    int nonfinite;
    for (int h = 0; h < s->H; h++) {
        // eps 1: any norm up to 1 + the tolerance, as a trace with qk_norm_eps takes it (method 6.1)
        const struct { int what; const float* x; int n; } in[5] = {
            {STEPQ_IN_Q, q + (size_t)h * s->K, s->K}, {STEPQ_IN_K, k + (size_t)h * s->K, s->K},
            {STEPQ_IN_V, v + (size_t)h * s->V, s->V}, {STEPQ_IN_G, g + (size_t)h * s->G, s->G},
            {STEPQ_IN_BETA, beta + h, 1}};
        for (int i = 0; i < 5; i++)
            if (stepq_input_check(why, sizeof why, in[i].what, in[i].x, in[i].n, in[i].what == STEPQ_IN_BETA, 1.0,
                                  &nonfinite)) {
                stepq_error("%s: step %ld, head %d: %s", who, t, h, why);
                *rc = nonfinite ? SQ_ENONFINITE : SQ_EINVAL;
                return STEPQ_ERR;
            }
    }
    return STEPQ_OK;
}

// lib.h: the session's kind, formats' count, scale, heads and prefill
sq_status lib_session_shape(const sq_session_config* cfg) {
    if (!kind_ok(cfg->kind))
        return lib_fail(SQ_EINVAL, "sq_session_open: kind %d is neither SQ_GDN (0) nor SQ_KDA (1)", cfg->kind);
    if (cfg->n_formats < 0 || (cfg->n_formats > 0 && !cfg->formats))
        return lib_fail(SQ_EINVAL, "sq_session_open: %d formats; formats must list n_formats >= 0 names",
                    cfg->n_formats);
    if (!(cfg->scale >= 0) || !isfinite(cfg->scale))
        return lib_fail(SQ_EINVAL, "sq_session_open: the read-out scale is %g; it must be finite and >= 0 (0: 1/sqrt(K))",
                    cfg->scale);
    if (cfg->n_heads < 1 || cfg->K < 1 || cfg->V < 1 || cfg->K > STEPQ_MAX_DIM || cfg->V > STEPQ_MAX_DIM)
        return lib_fail(SQ_EINVAL, "sq_session_open: %d heads of %d x %d: at least one head, of at most %d x %d",
                    cfg->n_heads, cfg->K, cfg->V, STEPQ_MAX_DIM, STEPQ_MAX_DIM);
    if (cfg->prefill < 0) return lib_fail(SQ_EINVAL, "sq_session_open: prefill is %ld; it must be >= 0", cfg->prefill);
    return SQ_OK;
}

// sq_session_open's arguments, every name and head checked before anything is allocated, and
// the backend *be; SQ_OK to go on, else the refusal's status as leave() gives it (the message said)
static sq_status session_args(const sq_session_config* cfg, const stepq_backend** be) {
    const sq_status shape = lib_session_shape(cfg);
    if (shape != SQ_OK) return shape;
    if (stepq_backend_init() != STEPQ_OK) return leave(SQ_EINVAL);  // STEPQ_KERNELS names none this CPU runs
    if (stepq_check_env(1) != STEPQ_OK) return leave(SQ_EINVAL);  // OMP_NUM_THREADS too high, a stack too small, ...
    const stepq_plan* p = cfg->plan ? &cfg->plan->p : NULL;
    if (p && plan_fits(p, cfg->kind, cfg->K, cfg->V, "sq_session_open") != STEPQ_OK) return leave(SQ_EPLAN);
    for (int f = 0; f < cfg->n_formats; f++) {
        const stepq_format* fm = find_format(cfg->formats[f], "sq_session_open");
        if (!fm) return leave(SQ_ENOFORMAT);
        sq_status rc;
        if (codec_args(&rc, fm, p, 0, cfg->kind, cfg->K, cfg->V, "sq_session_open") != STEPQ_OK) return leave(rc);
    }
    for (int h = 0; p && h < cfg->n_heads; h++) {
        const int ph = cfg->plan_heads ? cfg->plan_heads[h] : h;
        if (ph < 0 || ph >= p->H)
            return lib_fail(SQ_EPLAN, "sq_session_open: head %d is the plan's head %d; %s has heads [0, %d)", h, ph,
                        p->file, p->H);
    }
    // every name this library can find steps heads one at a time (cuda, of whole runs only, is
    // registered by the binary alone, so it is refused here as not built in)
    *be = stepq_backend_named(cfg->backend ? cfg->backend : "cpu");
    if (!*be) return leave(SQ_EINVAL);  // it said why
    if (stepq_check_memory(session_bytes(cfg->n_heads, cfg->n_formats, cfg->K, cfg->V, cfg->keep_states != 0),
                           "sq_session_open: the states of every head and format"))
        return leave(SQ_ENOMEM);
    return SQ_OK;
}

// the session of checked arguments: its slots (one per format, the normal protocol), plan heads
// and step inputs, and the engine's session over them; NULL (the message said) if that refuses
static sq_session* session_new(const sq_session_config* cfg, const stepq_backend* be) {
    const int H = cfg->n_heads, F = cfg->n_formats;
    const stepq_plan* p = cfg->plan ? &cfg->plan->p : NULL;
    sq_session* s = callocCheck(1, sizeof *s);
    *s = (sq_session){.plan = cfg->plan, .H = H, .F = F, .K = cfg->K, .V = cfg->V, .G = stepq_kind_gates(cfg->kind, cfg->K),
                      .keep_states = cfg->keep_states != 0};
    s->slots = callocCheck(F ? (size_t)F : 1, sizeof *s->slots);
    for (int f = 0; f < F; f++)
        s->slots[f] = (stepq_slot){.fmt = stepq_format_find(cfg->formats[f]), .proto = STEPQ_PROTO_NORMAL};
    s->plan_index = callocCheck((size_t)H, sizeof *s->plan_index);
    for (int h = 0; h < H; h++) s->plan_index[h] = cfg->plan_heads ? cfg->plan_heads[h] : h;
    s->in = callocCheck((size_t)H, sizeof *s->in);
    const double scale = cfg->scale > 0 ? cfg->scale : 1.0 / sqrt((double)cfg->K);
    stepq_session_cfg sc = {
        .shape = {.kind = cfg->kind, .K = cfg->K, .V = cfg->V, .n_gates = s->G, .scale = scale},
        .n_heads = H, .slots = s->slots, .n_slots = F, .plan = p, .plan_index = p ? s->plan_index : NULL,
        .prefill = cfg->prefill, .backend = be,
        .needs = STEPQ_NEED_MEASURE | (s->keep_states ? STEPQ_NEED_STATES : 0u), .S0 = cfg->S0};
    s->s = stepq_session_open(&sc);
    if (!s->s) {
        free(s->slots); free(s->plan_index); free(s->in); free(s);
        return NULL;
    }
    return s;
}

sq_status lib_session_open(const sq_session_config* cfg, sq_session** out) {
    const stepq_backend* be = NULL;
    const sq_status rc = session_args(cfg, &be);
    if (rc != SQ_OK) return rc;
    sq_session* s = session_new(cfg, be);
    if (!s) return SQ_EPLAN;
    plan_retain(s->plan);
    *out = s;
    return SQ_OK;
}

sq_status sq_session_open(const sq_session_config* cfg, sq_session** out) {
    ENTER();
    if (!cfg || !out) return lib_fail(SQ_EINVAL, "sq_session_open: cfg and out must not be NULL");
    *out = NULL;
    return leave(lib_session_open(cfg, out));
}

void sq_session_close(sq_session* s) {
    if (!s) return;
    stepq_session_close(s->s);
    plan_release(s->plan);
    free(s->slots);
    free(s->plan_index);
    free(s->in);
    free(s);
}

sq_status sq_session_step(sq_session* s, const float* q, const float* k, const float* v, const float* g,
                          const float* beta) {
    ENTER();
    if (!s || !q || !k || !v || !g || !beta)
        return lib_fail(SQ_EINVAL, "sq_session_step: session, q, k, v, g and beta must not be NULL");
    if (session_claim(s, "sq_session_step") != STEPQ_OK) return leave(SQ_EINVAL);
    return session_done(s, lib_session_step(s, q, k, v, g, beta, "sq_session_step"));
}

sq_status lib_session_step(sq_session* s, const float* q, const float* k, const float* v, const float* g,
                           const float* beta, const char* who) {
    sq_status bad;
    if (step_inputs_ok(s, q, k, v, g, beta, &bad, who) != STEPQ_OK) return bad;
    const size_t K = (size_t)s->K, V = (size_t)s->V, G = (size_t)s->G;
    for (int h = 0; h < s->H; h++)
        s->in[h] = (stepq_step_in){.q = q + h * K, .k = k + h * K, .v = v + h * V, .g = g + h * G, .beta = beta[h]};
    return stepq_session_step(s->s, s->in) == STEPQ_OK ? SQ_OK : SQ_ENONFINITE;
}

const stepq_session* lib_session_engine(const sq_session* s) { return s->s; }

long sq_session_steps(const sq_session* s) { return s ? stepq_session_steps(s->s) : 0; }

// STEPQ_OK if f names the reference (-1, with ref_ok) or a format of s and a step was taken;
// with slot: a decode step was (the slots' read-outs and errors exist only after one)
static int session_ask(const sq_session* s, int f, int slot_needed, const char* who) {
    if (!s) {
        stepq_error("%s: session is NULL", who);
        return STEPQ_ERR;
    }
    if (f < -1 || f >= s->F) {
        stepq_error("%s: format %d is outside [-1, %d) (-1: the float32 reference)", who, f, s->F);
        return STEPQ_ERR;
    }
    if (stepq_session_steps(s->s) < 1 || (slot_needed && f >= 0 && !stepq_session_view(s->s, 0)->decoding)) {
        stepq_error("%s: no %s has been taken yet", who, f >= 0 ? "decode step" : "step");
        return STEPQ_ERR;
    }
    for (int h = 0; h < s->H; h++)
        if (!stepq_session_view(s->s, h)->S) {  // a head whose first step failed has no view
            stepq_error("%s: head %d has nothing to read: its first step failed (the session's steps fail from "
                        "then on; open a new one)", who, h);
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

sq_status sq_session_readout(const sq_session* s, int f, float* y) {
    ENTER();
    if (!y) return lib_fail(SQ_EINVAL, "sq_session_readout: y is NULL");
    if (session_claim(s, "sq_session_readout") != STEPQ_OK) return leave(SQ_EINVAL);
    if (session_ask(s, f, 1, "sq_session_readout") != STEPQ_OK) return session_done(s, SQ_EINVAL);
    for (int h = 0; h < s->H; h++) {
        const stepq_view* v = stepq_session_view(s->s, h);
        memcpy(y + (size_t)h * s->V, f < 0 ? v->y : v->f[f].y_hat, sizeof(float) * s->V);
    }
    return session_done(s, SQ_OK);
}

sq_status sq_session_state(const sq_session* s, int f, float* S) {
    ENTER();
    if (!S) return lib_fail(SQ_EINVAL, "sq_session_state: S is NULL");
    if (session_claim(s, "sq_session_state") != STEPQ_OK) return leave(SQ_EINVAL);
    if (session_ask(s, f, 1, "sq_session_state") != STEPQ_OK) return session_done(s, SQ_EINVAL);
    if (f >= 0 && !s->keep_states)
        return session_fail(s, SQ_EINVAL, "sq_session_state: the session keeps no quantized states (open it with keep_states = 1)");
    const size_t KV = (size_t)s->K * s->V;
    for (int h = 0; h < s->H; h++) {
        const stepq_view* v = stepq_session_view(s->s, h);
        const float* from = f < 0 ? v->S : v->f[f].qs->X;
        if (!from) return session_fail(s, SQ_EINVAL, "sq_session_state: head %d of format %d keeps no state now (a "
                                       "step failed)", h, f);
        memcpy(S + h * KV, from, sizeof(float) * KV);
    }
    return session_done(s, SQ_OK);
}

sq_status sq_session_errors(const sq_session* s, int f, double* err2, double* hat2, double* ref2) {
    ENTER();
    if (s && f < 0) return lib_fail(SQ_EINVAL, "sq_session_errors: format %d: errors are a format's (f >= 0)", f);
    if (session_claim(s, "sq_session_errors") != STEPQ_OK) return leave(SQ_EINVAL);
    if (session_ask(s, f, 1, "sq_session_errors") != STEPQ_OK) return session_done(s, SQ_EINVAL);
    for (int h = 0; h < s->H; h++) {
        const stepq_view* v = stepq_session_view(s->s, h);
        if (err2) err2[h] = v->f[f].m.err2;
        if (hat2) hat2[h] = v->f[f].m.hat2;
        if (ref2) ref2[h] = stepq_sq_norm(v->S, s->K, s->V);
    }
    return session_done(s, SQ_OK);
}

size_t sq_session_bytes(const sq_session* s, int f, int h) {
    if (!s || f < 0 || f >= s->F || h < 0 || h >= s->H) return 0;
    const stepq_view* v = stepq_session_view(s->s, h);
    return v->f && v->f[f].qs ? v->f[f].qs->bytes : 0;  // no state before the first decode step
}

sq_status sq_session_packed(const sq_session* s, int f, int h, uint8_t* packed, size_t n) {
    ENTER();
    if (!packed) return lib_fail(SQ_EINVAL, "sq_session_packed: packed is NULL");
    if (s && (f < 0 || h < 0 || h >= s->H))
        return lib_fail(SQ_EINVAL, "sq_session_packed: format %d, head %d: a format (f >= 0) of a head in [0, %d)", f,
                    h, s->H);
    if (session_claim(s, "sq_session_packed") != STEPQ_OK) return leave(SQ_EINVAL);
    if (session_ask(s, f, 1, "sq_session_packed") != STEPQ_OK) return session_done(s, SQ_EINVAL);
    const stepq_qstate* qs = stepq_session_view(s->s, h)->f[f].qs;
    if (n != qs->bytes)
        return session_fail(s, SQ_EINVAL, "sq_session_packed: format %s stores %zu bytes a head, not %zu", qs->fmt->name,
                    qs->bytes, n);
    memcpy(packed, qs->packed, n);
    return session_done(s, SQ_OK);
}

// ---------------------------------------------------------------------------------------------
// traces

struct sq_trace {
    stepq_trace_out* w;
    int busy;
};

sq_status sq_trace_open(const char* path, const sq_trace_config* cfg, sq_trace** out) {
    ENTER();
    if (!path || !cfg || !out) return lib_fail(SQ_EINVAL, "sq_trace_open: path, cfg and out must not be NULL");
    *out = NULL;
    if (!kind_ok(cfg->kind))
        return lib_fail(SQ_EINVAL, "sq_trace_open: kind %d is neither SQ_GDN (0) nor SQ_KDA (1)", cfg->kind);
    if (cfg->H < 1 || cfg->HV < cfg->H || cfg->HV % cfg->H || cfg->K < 1 || cfg->V < 1 || cfg->K > STEPQ_MAX_DIM ||
        cfg->V > STEPQ_MAX_DIM || !(cfg->scale >= 0) || !isfinite(cfg->scale) ||
        !(cfg->qk_norm_eps >= 0 && cfg->qk_norm_eps <= 1))
        return lib_fail(SQ_EINVAL, "sq_trace_open: %d q/k heads and %d value heads of %d x %d, scale %g, qk_norm_eps %g: "
                    "HV a multiple of H >= 1, K and V in [1, %d], the scale finite and >= 0 (0: 1/sqrt(K)), the eps "
                    "in [0, 1]", cfg->H, cfg->HV, cfg->K, cfg->V, cfg->scale, cfg->qk_norm_eps, STEPQ_MAX_DIM);
    if (cfg->weights_sha256 && !stepq_is_sha256_hex(cfg->weights_sha256))
        return lib_fail(SQ_EINVAL, "sq_trace_open: weights_sha256 '%.80s' is not a SHA-256 (64 lower-case hex digits)",
                    cfg->weights_sha256);
    if (cfg->V % 8)
        return lib_fail(SQ_EINVAL, "sq_trace_open: value dimension V=%d: the trace readers take a multiple of 8 (bit "
                    "packing)", cfg->V);
    // the labels as the trace readers take them (sim/trace.c): both or neither, each (layer, head)
    // once; a file that broke them would be written only to be refused
    if (!cfg->layer != !cfg->head)
        return lib_fail(SQ_EINVAL, "sq_trace_open: a trace gives both layer and head labels or neither (only %s given)",
                    cfg->layer ? "layer" : "head");
    int first;
    const int twice = cfg->layer ? stepq_trace_label_twice(cfg->layer, cfg->head, cfg->HV, &first) : -1;
    if (twice >= 0)
        return lib_fail(SQ_EINVAL, "sq_trace_open: value heads %d and %d are both labelled layer %d, head %d "
                    "(each (layer, head) once)", first, twice, cfg->layer[twice], cfg->head[twice]);
    stepq_trace id = {.kind = cfg->kind, .H = cfg->H, .HV = cfg->HV, .K = cfg->K, .V = cfg->V,
                      .scale = cfg->scale > 0 ? cfg->scale : 1.0 / sqrt((double)cfg->K),
                      .qk_norm_eps = cfg->qk_norm_eps, .layer = (int*)cfg->layer, .head = (int*)cfg->head};
    if (cfg->weights_sha256) snprintf(id.model_sha256, sizeof id.model_sha256, "%s", cfg->weights_sha256);
    stepq_trace_out* w = stepq_trace_out_open(path, &id, cfg->with_y != 0);
    if (!w) return leave(SQ_EFILE);
    sq_trace* t = callocCheck(1, sizeof *t);
    t->w = w;
    *out = t;
    return leave(SQ_OK);
}

static int trace_claim(sq_trace* t, const char* who) {
    return claim(t ? &t->busy : NULL, "trace", "one thread at a time", who);
}

static sq_status trace_done(sq_trace* t, sq_status rc) { return release(&t->busy, rc); }

// the status of a writer's call: SQ_EFILE once a write has failed (every later call is refused
// with its reason), SQ_ENONFINITE for a NaN or Inf, else SQ_EINVAL
static sq_status trace_status(const sq_trace* t, int rc) {
    if (rc == STEPQ_OK) return SQ_OK;
    const int why = stepq_trace_out_why(t->w);  // a value the reader would refuse, or the write itself
    return why == STEPQ_TRACE_OUT_NONFINITE ? SQ_ENONFINITE : why == STEPQ_TRACE_OUT_WRITE ? SQ_EFILE : SQ_EINVAL;
}

sq_status sq_trace_attr(sq_trace* t, const char* name, const char* value) {
    ENTER();
    if (!name || !value) return lib_fail(SQ_EINVAL, "sq_trace_attr: name and value must not be NULL");
    if (trace_claim(t, "sq_trace_attr") != STEPQ_OK) return leave(SQ_EINVAL);
    return trace_done(t, trace_status(t, stepq_trace_out_attr(t->w, name, value, 0)));
}

sq_status sq_trace_attr_int(sq_trace* t, const char* name, long value) {
    ENTER();
    if (!name) return lib_fail(SQ_EINVAL, "sq_trace_attr_int: name must not be NULL");
    if (trace_claim(t, "sq_trace_attr_int") != STEPQ_OK) return leave(SQ_EINVAL);
    return trace_done(t, trace_status(t, stepq_trace_out_attr(t->w, name, NULL, value)));
}

sq_status sq_trace_append(sq_trace* t, long n, const float* q, const float* k, const float* v, const float* g,
                          const float* beta, const float* y) {
    ENTER();
    if (n < 0 || (n > 0 && (!q || !k || !v || !g || !beta)))
        return lib_fail(SQ_EINVAL, "sq_trace_append: %ld steps; n >= 0, and q, k, v, g and beta must not be NULL", n);
    if (trace_claim(t, "sq_trace_append") != STEPQ_OK) return leave(SQ_EINVAL);
    return trace_done(t, trace_status(t, stepq_trace_out_append(t->w, n, q, k, v, g, beta, y)));
}

long sq_trace_steps(const sq_trace* t) { return t ? stepq_trace_out_steps(t->w) : 0; }

sq_status sq_trace_close(sq_trace* t, int commit) {
    ENTER();
    if (!t) return leave(SQ_OK);
    int rc = stepq_trace_out_close(t->w, commit != 0);
    free(t);
    return leave(rc == STEPQ_OK ? SQ_OK : SQ_EFILE);
}

// ---------------------------------------------------------------------------------------------
// calibration: the command line's, through analysis/calibrate.h (one implementation)

sq_status sq_calibrate_defaults(sq_calibrate_config* cfg) {
    ENTER();
    if (!cfg) return lib_fail(SQ_EINVAL, "sq_calibrate_defaults: cfg is NULL");
    stepq_calib_settings s;
    stepq_calib_defaults(&s);
    *cfg = (sq_calibrate_config){.steps = 0, .horizon = s.horizon, .gamma = s.gamma, .rho = s.rho,
                                 .refits = (int)s.refits, .snapshot_every = (int)s.snapshot_every,
                                 .reservoir = (int)s.reservoir, .pivots = (long)s.pivots,
                                 .pivot_fraction = s.pivot_fraction, .damp_fraction = s.damp_fraction,
                                 .seed = s.seed, .normalize = 0, .progress = 0, .names = NULL};
    return leave(SQ_OK);
}

// One calibration at a time (it holds inputs_lock): the sink of its worker threads
// (stepq_error_team_sink) is the process's, and so is the list of inputs its output is checked
// against.

// the calibration of sq_calibrate, its inputs checked first; the caller holds inputs_lock
static sq_status calibrate_locked(const sq_calibrate_config* cfg, const char* const* traces, int n_traces,
                                  const char* out_path) {
    const stepq_calib_settings set = {.steps = cfg->steps, .horizon = cfg->horizon, .gamma = cfg->gamma,
                                      .rho = cfg->rho, .refits = cfg->refits, .snapshot_every = cfg->snapshot_every,
                                      .reservoir = cfg->reservoir, .pivots = cfg->pivots,
                                      .pivot_fraction = cfg->pivot_fraction, .damp_fraction = cfg->damp_fraction,
                                      .seed = cfg->seed};
    // the caller's names of the settings, in stepq_calib_knobs' order (that of the fields)
    const sq_calibrate_names none = {.caller = NULL}, *n = cfg->names ? cfg->names : &none;
    const stepq_calib_names named = {
        .who = n->caller ? n->caller : "sq_calibrate",
        .name = {n->steps, n->horizon, n->gamma, n->rho, n->refits, n->snapshot_every, n->reservoir, n->pivots,
                 n->pivot_fraction, n->damp_fraction, n->seed}};
    if (cfg->steps < 0) {
        stepq_error("%s: %s %ld is negative (0: every step of the shortest trace)", named.who,
                    stepq_calib_name(&named, stepq_calib_knob_of("steps")), cfg->steps);
        return SQ_EINVAL;
    }
    if (stepq_calib_settings_check(&set, &named) != STEPQ_OK) return SQ_EINVAL;
    if (stepq_backend_init() != STEPQ_OK || stepq_check_env(1) != STEPQ_OK) return SQ_EINVAL;
    stepq_calib_build b;
    if (stepq_calib_from_traces(&b, traces, n_traces, cfg->normalize != 0, &set, out_path, &named,
                                stepq_backend_default()) != STEPQ_OK)  // the library's CPU backend
        return SQ_EFILE;
    b.c.quiet = !cfg->progress;
    sq_status rc = SQ_OK;
    if (stepq_output_prepare(out_path) != STEPQ_OK) rc = SQ_EFILE;  // a directory, a trace, unwritable
    stepq_error_sink team = {.jump = NULL};
    stepq_error_team_sink(&team);
    if (rc == SQ_OK && stepq_calibrate(NULL, &b.c) != STEPQ_OK) rc = SQ_EFILE;
    stepq_error_team_sink(NULL);
    if (team.n) stepq_error("%s", team.msg);  // what the heads' threads said, after the call's own
    stepq_calib_build_free(&b);
    return rc;
}

sq_status sq_calibrate(const sq_calibrate_config* cfg, const char* const* traces, int n, const char* out_path) {
    volatile int held = 0;  // 1 while this call holds inputs_lock
    enter();
    if (setjmp(jump)) {  // a fatal error below (ENTER's, with the lock and the team sink let go)
        if (held) {
            stepq_error_team_sink(NULL);
            pthread_mutex_unlock(&inputs_lock);
        }
        return leave(SQ_EINTERNAL);
    }
    if (!cfg || !traces || !out_path || n < 1)
        return lib_fail(SQ_EINVAL, "sq_calibrate: cfg, out_path and n >= 1 traces must be given (n is %d)", n);
    for (int i = 0; i < n; i++)
        if (!traces[i]) return lib_fail(SQ_EINVAL, "sq_calibrate: trace %d of %d is NULL", i, n);
    pthread_mutex_lock(&inputs_lock);
    held = 1;
    const int noted = stepq_inputs_count();
    const sq_status rc = calibrate_locked(cfg, traces, n, out_path);
    stepq_inputs_forget_since(noted);  // the traces were this call's inputs, not the process's
    held = 0;
    pthread_mutex_unlock(&inputs_lock);
    return leave(rc);
}

// ---------------------------------------------------------------------------------------------
// statistics

sq_status sq_mean_ci95(const double* x, int n, double* mean, double* half) {
    ENTER();
    if (!x || !mean || !half || n < 1) return lib_fail(SQ_EINVAL, "sq_mean_ci95: x of n >= 1 values, mean and half");
    stepq_mean_ci95(mean, half, x, n);
    return leave(SQ_OK);
}
