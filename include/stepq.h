/* stepq.h: the public C API of libstepq, the stepq harness as a shared library
 * (docs/method.md 6.11). The only header a program linking libstepq includes; it includes
 * nothing of the project and needs C99.
 *
 * What it offers:
 *   - the format table: every way stepq stores a head's state, its name and bits;
 *   - plans: a calibration plan (the file `stepq calibrate` writes) opened, described and checked
 *     against a model's layers, heads and shapes;
 *   - codecs: one head's state encoded into a format's packed bytes and decoded back (method 6.2);
 *   - sessions: the engine's head loop stepped from outside, one step of q, k, v, g, beta for a
 *     set of heads at a time, with the float32 reference and every format's quantized path
 *     (method 2) read back after each step (method 6.10);
 *   - device sessions: the same protocol with its memory where the model runs (a GPU's), its
 *     measurements summed there and read back when asked (method 6.11);
 *   - traces written as a model runs, and plans calibrated on them (`stepq calibrate --trace`'s).
 *
 * Conventions. A head's state is K-first: S[i*V + j] is key row i, value column j, float32
 * (Hugging Face's [B, H, K, V] recurrent state, one head of it; vLLM keeps [V, K]). q and k are
 * L2-normalised and q unscaled; g is the log decay (<= 0), one per head (Gated DeltaNet) or one
 * per key channel (Kimi Delta Attention); beta is the write strength in (0, 1) (method 1).
 *
 * Errors. Every function that can fail returns an sq_status; SQ_OK is 0. The message of the
 * calling thread's last failure is sq_last_error(), naming what was wrong (the file, format,
 * head or argument). The library prints nothing (but sq_calibrate's progress, when asked) and
 * never ends the program. After SQ_ENOMEM or SQ_EINTERNAL what that call had allocated is lost:
 * close what you hold and stop.
 *
 * Threads: calls on different objects may run in parallel; one object is used by one thread at
 * a time. A session refuses a call made while another thread is inside one of its calls
 * (SQ_EINVAL saying so) rather than race it. A session steps its heads in parallel with OpenMP
 * where libstepq was built with it.
 *
 * Lifetimes: a codec or session made with a plan holds its own reference to the plan, so
 * sq_plan_close may come before theirs; the plan is freed when the last of them is closed. A
 * handle must not be used after it is closed (the library cannot tell a freed handle).
 */
#ifndef STEPQ_PUBLIC_H
#define STEPQ_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; sq_version() gives the library's (the two must agree in MAJOR). */
#define SQ_VERSION_MAJOR 0
#define SQ_VERSION_MINOR 1
#define SQ_VERSION_PATCH 0
#define SQ_VERSION (SQ_VERSION_MAJOR * 10000 + SQ_VERSION_MINOR * 100 + SQ_VERSION_PATCH)
int sq_version(void);
/* the git revision and build flags libstepq was built from (one line) */
const char* sq_build_info(void);

typedef enum {
    SQ_OK = 0,
    SQ_EINVAL = 1,      /* an argument is out of range, NULL where it may not be, or shapes disagree */
    SQ_ENOFORMAT = 2,   /* no format has that name */
    SQ_EPLAN = 3,       /* a format needs a plan that is missing, or the plan does not fit */
    SQ_EFILE = 4,       /* a file cannot be read or is not what it should be */
    SQ_ENONFINITE = 5,  /* a state or read-out holds a NaN or Inf */
    SQ_ENOMEM = 6,      /* out of memory */
    SQ_EINTERNAL = 7    /* a bug in stepq: please report the message */
} sq_status;

/* the message of this thread's last failing call ("" if none); valid until its next call */
const char* sq_last_error(void);
/* "SQ_OK", "SQ_EINVAL", ...; "unknown" for another value */
const char* sq_status_name(int status);

/* the two delta-rule models (method 1) */
typedef enum { SQ_GDN = 0, SQ_KDA = 1 } sq_kind;

/* ---- the format table (method 6.2) ---------------------------------------------------------- */
typedef struct {
    const char* name;     /* as configs, the command line and this API take it: "int8", "stepquant6" */
    const char* summary;  /* one line */
    const char* family;   /* the codec family: "cast", "rows", "dual", ... */
    double nominal_bits;  /* the bits a paper quotes */
    int needs_plan;       /* 1: cannot encode without a calibration plan */
    int v_multiple;       /* V must be a multiple of this */
    int v_pow2;           /* 1: V must be a power of two */
    int replay;           /* 0, or the re-encode period of a replay format (method 2) */
} sq_format_info;

int sq_format_count(void);
/* the i-th row of the table, 0 <= i < sq_format_count(); the strings live as long as the library */
sq_status sq_format_get(int i, sq_format_info* out);
/* *index <- the row of the format called name; SQ_ENOFORMAT (message listing the names) if none */
sq_status sq_format_find(const char* name, int* index);

/* ---- plans (method 4) ----------------------------------------------------------------------- */
typedef struct sq_plan sq_plan;

typedef struct {
    sq_kind kind;
    int K, V;
    int n_heads;                  /* the (layer, head) pairs it was calibrated on */
    const char* file;             /* where it was read from */
    const char* calibration_key;  /* hex XXH3 of what it was made from, or "" */
    const char* model_sha256;     /* SHA-256 of the weights of the model it was calibrated on (its
                                     traces' weights_sha256, stepq.hf capture), or "" */
} sq_plan_info;

/* reads and checks a plan file (SQ_EFILE naming the file and what is wrong) */
sq_status sq_plan_open(const char* path, sq_plan** out);
void sq_plan_close(sq_plan* plan);
sq_status sq_plan_get_info(const sq_plan* plan, sq_plan_info* out);
/* the (layer, head) label of the plan's i-th head */
sq_status sq_plan_head(const sq_plan* plan, int i, int* layer, int* head);
/* *index <- the plan's head labelled (layer, head); SQ_EPLAN if it has none */
sq_status sq_plan_find(const sq_plan* plan, int layer, int head, int* index);
/* SQ_OK if the plan was made for heads of this kind and K x V and holds every (layer, head) of
 * the n given; else SQ_EPLAN naming the first mismatch */
sq_status sq_plan_check(const sq_plan* plan, sq_kind kind, int K, int V, int n, const int* layers,
                        const int* heads);

/* ---- one head's codec (method 6.2) ---------------------------------------------------------- */
typedef struct sq_codec sq_codec;

/* A codec of format `format` for heads of kind and K x V, encoding with the plan's head
 * plan_head (plan NULL and plan_head 0 for formats that need no plan). SQ_ENOFORMAT, SQ_EINVAL
 * (the format cannot hold K x V, or the environment would crash an encode: a stack limit below
 * 1 MiB, ulimit -s, for the calling thread; a STEPQ_* variable out of range), SQ_EPLAN (a plan is
 * needed, or it is for other heads). */
sq_status sq_codec_open(const char* format, const sq_plan* plan, int plan_head, sq_kind kind, int K,
                        int V, sq_codec** out);
void sq_codec_close(sq_codec* c);
/* the packed bytes of one head (every bit a format stores, ring of a replay format excluded) */
size_t sq_codec_bytes(const sq_codec* c);
/* bits per element of those bytes: bytes * 8 / (K V) */
double sq_codec_bits(const sq_codec* c);
/* packed (n = sq_codec_bytes) <- X (K,V). packed holds the previous encode's bytes on entry
 * (a freeze-gated format reads them: zeros for a first encode). SQ_ENONFINITE if X does. */
sq_status sq_codec_encode(sq_codec* c, const float* X, uint8_t* packed, size_t n);
/* X_hat (K,V) <- packed (n = sq_codec_bytes) */
sq_status sq_codec_decode(sq_codec* c, const uint8_t* packed, size_t n, float* X_hat);

/* ---- sessions: the decode-step protocol stepped from outside (method 2, 6.10) --------------- */
typedef struct sq_session sq_session;

typedef struct {
    sq_kind kind;
    int K, V;
    double scale;                /* the read-out scale of q; 0: 1/sqrt(K) */
    int n_heads;                 /* H */
    const char* const* formats;  /* (F) one quantized path per format */
    int n_formats;               /* F, may be 0: the reference alone */
    const sq_plan* plan;         /* for the formats that need one, or NULL */
    const int* plan_heads;       /* (H) the plan's head of each head, or NULL (head h -> h) */
    long prefill;                /* steps at native precision before the first encode */
    const float* S0;             /* (H,K,V) initial states, or NULL for zeros */
    int keep_states;             /* 1: sq_session_state reads each format's S_hat_t */
    const char* backend;         /* who steps the states (method 6.10): NULL or "cpu" for the widest
                                  * instruction set this CPU runs (or STEPQ_KERNELS's), "reference",
                                  * "x86-64-v2", "avx2", "avx512"; every one gives the same numbers,
                                  * bit for bit. SQ_EINVAL for another name or one this CPU cannot
                                  * run ("cuda" runs whole runs only, not sessions) */
} sq_session_config;

/* SQ_EINVAL for an argument out of range, or an environment that would crash a step: as
 * sq_codec_open's, and, since the heads step on OpenMP threads, OMP_NUM_THREADS above 4096 or
 * a thread stack below 1 MiB (OMP_STACKSIZE, GOMP_STACKSIZE). SQ_ENOMEM, before allocating
 * anything, when the states of every head and format would exceed the machine's memory (the
 * command line's check; STEPQ_MEMORY_BYTES overrides the machine's size). */
sq_status sq_session_open(const sq_session_config* cfg, sq_session** out);
void sq_session_close(sq_session* s);
/* One step of every head: q, k (H,K), v (H,V), g (H,1) for GDN or (H,K) for KDA, beta (H).
 * The first `prefill` steps run at native precision; the step that ends the prefill encodes
 * every format's boundary state; each later step is a decode step of method 2. The inputs are
 * held to the trace reader's rules first (method 6.1), naming the step, head and value, and the
 * step is then not taken (the session goes on): SQ_ENONFINITE for a NaN or Inf, SQ_EINVAL for a
 * q or k of L2 norm above 1 + 1e-3, a g above 0 or a beta outside [0, 1]. SQ_ENONFINITE naming
 * the head, step and format where a state or read-out stops being finite; every later step of
 * the session then fails. */
sq_status sq_session_step(sq_session* s, const float* q, const float* k, const float* v, const float* g,
                          const float* beta);
/* steps taken */
long sq_session_steps(const sq_session* s);
/* after a step: y (H,V) <- the read-outs of format f (0 <= f < F), or of the float32 reference
 * for f = -1 */
sq_status sq_session_readout(const sq_session* s, int f, float* y);
/* S (H,K,V) <- the reference state (f = -1), or format f's S_hat_t (needs keep_states) */
sq_status sq_session_state(const sq_session* s, int f, float* S);
/* err2, hat2 (H) <- ||S_hat_t - S_t||_F^2 and ||S_hat_t||_F^2 of format f; ref2 (H) <- ||S_t||_F^2
 * (any of the three may be NULL) */
sq_status sq_session_errors(const sq_session* s, int f, double* err2, double* hat2, double* ref2);
/* packed (n = sq_session_bytes) <- the bytes format f stores for head h after the last step */
size_t sq_session_bytes(const sq_session* s, int f, int h);
sq_status sq_session_packed(const sq_session* s, int f, int h, uint8_t* packed, size_t n);

/* ---- device sessions: the session's protocol in the memory the model runs in (method 6.11) --- */
/* A sibling of sq_session for a model on a GPU: the inputs, read-outs and states are pointers
 * into the session's memory (a device's, for backend "cuda"), the packed states, the float32
 * reference state and the error sums stay there, and a step is queued on the caller's stream
 * without waiting for it. The protocol is sq_session's (method 2): the first `prefill` steps at
 * native precision, then decode steps, one quantized path per format. Only the formats the lane
 * kernels take (method 6.5: fp32, int8, int6, int4 on 128 x 128 heads); others are refused by
 * name. The measurements are summed per bin of decode steps on the session's side and read back
 * when asked (sq_dsession_errors), not per step.
 *
 * Backends: "host", the session's memory is the host's and the steps are the CPU session's own
 * code (the same numbers as sq_session, bit for bit: CI's stand-in for a device); "cuda", a GPU
 * (sim/cuda/dsession.h: the lane kernels of method 6.5 for the reference and each format, the
 * boundary encode by the CPU's encoders, the bins summed on the device, held to 6.5's contract
 * against "host"), built where CMake found nvcc and refused by name elsewhere or without a device;
 * NOT YET RUN ON A GPU (issue 68: its host emulation is what has run). NULL picks the first built
 * whose device is there, "cuda" before "host". The cuda backend checks no input on the device: a
 * non-finite state is its one failure, reported by the next call that waits. Threads: as
 * sq_session. */
typedef struct sq_dsession sq_dsession;

typedef struct {
    sq_kind kind;
    int K, V;                    /* 128 x 128, the lane kernels' one shape */
    double scale;                /* the read-out scale of q; 0: 1/sqrt(K) */
    int n_heads;                 /* H; a batch of B streams of HV heads each is H = B HV heads */
    const char* const* formats;  /* (F) the lane kernels' formats */
    int n_formats;               /* F >= 1 */
    long prefill;                /* steps at native precision before the first encode */
    const float* S0;             /* (H,K,V) initial states in the session's memory, or NULL for zeros */
    int bin;                     /* decode steps a bin of the measurements sums (>= 1) */
    int n_bins;                  /* bins held; the session then takes prefill + bin n_bins steps at
                                    most. 0: nothing measured, no limit on the steps */
    const char* backend;         /* NULL, "host" or "cuda" (above) */
    void* stream;                /* "cuda": the caller's cudaStream_t (NULL: the default stream), which
                                    every call queues its work on; "host": unused */
} sq_dsession_config;

/* SQ_EINVAL naming the argument out of range (and a format the lane kernels do not take, a
 * backend not built in or without a device), SQ_ENOFORMAT, SQ_ENOMEM (sq_session_open's check) */
sq_status sq_dsession_open(const sq_dsession_config* cfg, sq_dsession** out);
void sq_dsession_close(sq_dsession* s);
/* "host" or "cuda": who steps the session */
const char* sq_dsession_backend(const sq_dsession* s);
/* One step of every head, as sq_session_step (q, k (H,K), v (H,V), g (H,G), beta (H)), each in
 * the session's memory and left unchanged. The inputs are held to the same rules. The host
 * backend returns a failure from the step itself; a device finds it in its kernels and the next
 * call that waits (sq_dsession_sync, sq_dsession_errors) returns it, naming the step and head.
 * Either way the session is finished then: every later call returns that failure. */
sq_status sq_dsession_step(sq_dsession* s, const float* q, const float* k, const float* v, const float* g,
                           const float* beta);
/* steps queued */
long sq_dsession_steps(const sq_dsession* s);
/* after a decode step, queued: y (H,V) <- the read-outs of format f (-1: the float32 reference),
 * in the session's memory */
sq_status sq_dsession_readout(const sq_dsession* s, int f, float* y);
/* after a decode step, queued: S (H,K,V) <- format f's S_hat_t (-1: the reference S_t), in the
 * session's memory */
sq_status sq_dsession_state(const sq_dsession* s, int f, float* S);
/* waits for the queued steps; their failure if one failed */
sq_status sq_dsession_sync(sq_dsession* s);
/* Waits, then, in host memory, per bin b (decode steps b bin .. (b+1) bin - 1 after the prefill)
 * and head h of format f, the means over the bin's steps taken of state_rel[b*H + h] <-
 * ||S_hat_t - S_t||_F / ||S_t||_F and readout_rel[b*H + h] <- ||y_hat_t - y_t|| / ||y_t|| (each
 * squared denominator floored at 1e-300; NaN in a bin no step reached), and steps[b] <- the steps
 * it holds; (n_bins, H), (n_bins, H), (n_bins); any may be NULL. */
sq_status sq_dsession_errors(sq_dsession* s, int f, double* state_rel, double* readout_rel, long* steps);

/* ---- traces: a model's recurrence inputs written as they come (method 6.1) ------------------ */
typedef struct sq_trace sq_trace;

typedef struct {
    sq_kind kind;
    int H, HV;                   /* q/k heads and value heads (HV a multiple of H) */
    int K, V;
    double scale;                /* the read-out scale; 0: 1/sqrt(K) */
    double qk_norm_eps;          /* the eps q and k were normalised with (x / sqrt(|x|^2 + eps)), or 0 */
    const char* weights_sha256;  /* SHA-256 of the model's weights (a plan made from the trace is bound to
                                    it), or NULL */
    const int* layer;            /* (HV) the model's layer of each value head, or NULL (copied) */
    const int* head;             /* (HV) its head in that layer, or NULL (copied) */
    int with_y;                  /* 1: also the model's own read-outs y (HV,V) per step */
} sq_trace_config;

/* A trace file at path, written beside it and renamed into place by sq_trace_close(t, 1); the
 * layout every stepq reader takes (trace.h), with a checksum of what identifies it (kind, shapes,
 * scale, eps, weights, labels) that the readers verify. SQ_EINVAL for shapes out of range, labels
 * the readers refuse (layer without head or head without layer, a (layer, head) twice), V not a
 * multiple of 8 (the readers' bit packing), SQ_EFILE
 * for an output the command line would refuse (a directory, a device, an unwritable place). */
sq_status sq_trace_open(const char* path, const sq_trace_config* cfg, sq_trace** out);
/* a root attribute of the trace: a string, or an integer (sq_trace_attr_int); the trace's own
 * names (kind, scale, qk_norm_eps, weights_sha256, identity_xxh3, steps) are refused */
sq_status sq_trace_attr(sq_trace* t, const char* name, const char* value);
sq_status sq_trace_attr_int(sq_trace* t, const char* name, long value);
/* n steps: q, k (n,H,K), v (n,HV,V), g (n,HV) for GDN or (n,HV,K) for KDA, beta (n,HV), y (n,HV,V)
 * where the trace has read-outs (else NULL: y given to a trace opened without with_y is refused,
 * not dropped). Every value is held to the reader's rules first
 * (SQ_ENONFINITE or SQ_EINVAL naming the step, head and value; nothing of the block is kept);
 * SQ_EFILE naming the system's reason when the write fails (a full disk, a file-size limit): the file
 * is abandoned then, nothing is left, and every later append, attribute and commit is refused
 * with SQ_EFILE and that first reason. */
sq_status sq_trace_append(sq_trace* t, long n, const float* q, const float* k, const float* v, const float* g,
                          const float* beta, const float* y);
/* steps appended */
long sq_trace_steps(const sq_trace* t);
/* commit 1: the file into place (SQ_EFILE with the reason if that fails, and nothing is left);
 * 0: abandoned, nothing left. The handle is freed either way. */
sq_status sq_trace_close(sq_trace* t, int commit);

/* ---- calibration: a plan made from traces (method 4.1, 4.3) --------------------------------- */
/* How the caller's user names the settings, for the messages that refuse one: a front end passes
 * its own (its options, say "--snapshot-every"), so that its user reads what they set. Each NULL
 * is sq_calibrate's own: "sq_calibrate" for the caller, the field's name for a setting. */
typedef struct {
    const char* caller; /* begins each message on a setting */
    const char *steps, *horizon, *gamma, *rho, *refits, *snapshot_every, *reservoir, *pivots, *pivot_fraction,
        *damp_fraction, *seed;
} sq_calibrate_names;

typedef struct {
    long steps;             /* steps of each trace, each a segment from a zero state; 0: every step of
                               the shortest trace */
    double horizon;         /* the horizon H of the lifetimes L_u, M_u, R_u (method 4.1) */
    double gamma;           /* the row influence w_i = exp(gamma/2 (log omega_i - mean)) (method 4.1) */
    double rho;             /* the row-factor exponent of the dual-axis fit (method 4.2) */
    int refits;             /* weighted least-squares refits of the column factors (method 4.2) */
    int snapshot_every;     /* steps between the state snapshots offered to the reservoir (method 4.1) */
    int reservoir;          /* state snapshots kept per head by reservoir sampling (method 4.1) */
    long pivots;            /* FP16 pivot units (method 4.3); -1: pivot_fraction of the units */
    double pivot_fraction;  /* the share of units made pivots; -1: the paper's (GDN 32/2304, KDA 512/81920) */
    double damp_fraction;   /* the share of key rows DAMP keeps in FP16 (method 6.2) */
    int64_t seed;           /* of the reservoir sampling, in [0, 2^62]: the plan is a function of it */
    int normalize;          /* 1: q and k divided by their norms on reading, instead of refusing a trace
                               whose q or k is not L2-normalised */
    int progress;           /* 1: progress lines on stderr as the command line prints them (the one
                               thing the library prints, and only when asked); 0: silent */
    const sq_calibrate_names* names; /* the messages' names of the caller and the settings; NULL:
                                        sq_calibrate's own */
} sq_calibrate_config;

/* *cfg <- the defaults, those of `stepq calibrate --trace` (a config's, but steps 0); names NULL */
sq_status sq_calibrate_defaults(sq_calibrate_config* cfg);
/* A plan calibrated on n trace files, one segment each, written to out_path beside it and renamed
 * into place (nothing is left there on a failure): the same bytes as `stepq calibrate --trace
 * traces... --out out_path` with the same settings writes, its `config` attribute that command
 * line with every setting spelled out. Before any work: SQ_EINVAL naming the setting out of range
 * (or a NULL argument, n < 1); SQ_EFILE naming the file for a trace that is missing or is no
 * trace, traces of different kinds, shapes, (layer, head) labels, read-out scales or models
 * (weights_sha256), a trace shorter than steps, a snapshot_every beyond the steps (no state
 * snapshot would be taken: a plan of zero distortions), and an out_path that is a directory, one of the
 * traces or cannot be written. A value the trace reader refuses as it reads (a NaN, a q or k not
 * normalised) fails the call with SQ_EFILE naming the file, dataset and index. Deterministic for a
 * seed, whatever the threads. The heads run in parallel (OpenMP); one calibration runs at a time
 * in a process (a second call waits for the first). */
sq_status sq_calibrate(const sq_calibrate_config* cfg, const char* const* traces, int n, const char* out_path);

/* ---- statistics ----------------------------------------------------------------------------- */
/* *mean and *half <- the mean of x (n) and the half-width of its 95% confidence interval
 * (Student's t, n - 1 degrees of freedom; NaN for n < 2), as every stepq result reports them */
sq_status sq_mean_ci95(const double* x, int n, double* mean, double* half);

#ifdef __cplusplus
}
#endif
#endif
