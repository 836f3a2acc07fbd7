// calibrate.h: calibration (method 4.1, 4.3): native-precision runs of a stream source gather,
// per unit, the mean log gate l_u and lifetime weight L_u (horizon H), the measured lifetime
// M_u (the error of each key row propagated through the actual A_t, delta correction
// included: beyond the paper), omega_i and w_i per key row, and a reservoir of state
// snapshots from which the distortion d_u(b) of every candidate width is measured for the
// dual-axis fit and for per-row absmax. Then pivots and bit allocations are chosen for every
// scheme and budget (GDN: exact DP over heads; KDA: Lagrangian + repair over key rows), the
// DAMP rows are marked, and the whole is frozen into a plan file.
#ifndef STEPQ_CALIBRATE_H
#define STEPQ_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "../quant/plan.h"
#include "../sim/backend.h"
#include "../sim/stream.h"
#include "output.h"

// The paper's pivot share of the kind's units (method 4.3; the kind's traits row): a
// calibration that names no pivot count keeps this share of its units; the memory model
// prices the paper's plans with it.
static inline double stepq_pivot_share(int kind) { return stepq_kind_of(kind)->pivot_share; }

// A hold (issue 66 item 3; method 4.3): after the allocation, one table solved again with the
// units of the long heads held at the budget's width. A head is long when at least half of its
// units have a half-life ln 2 / -l_u of half_life steps or more (the plan's own half_life
// dataset; l_u = 0 is an infinite half-life). Its units, pivots aside, are fixed at `budget`
// bits; every other unit is allocated again by the table's solver (GDN: the exact DP; KDA:
// Lagrangian + repair) over the bits left, so the table's total stays within the same budget
// (a pivot counting as 8 bits, as in 4.3). The pivots stay where the allocation put them.
typedef struct {
    int budget;          // 4 or 6: the table of this budget; 0: no hold
    int scheme;          // STEPQ_ALLOC_*: the table's allocation scheme
    double half_life;    // steps: a head whose units' median half-life reaches it is long
} stepq_hold;

typedef struct {
    stepq_source** segments;  // (S) sources over the same heads; each a native run from zero
    int n_segments;
    long steps;               // per segment
    double horizon;           // H of L_u (and of M_u, truncated to `steps`)
    double gamma, rho;        // method 4.1, 4.2 (0.25, 0.5)
    int refits;               // weighted LS refits of the column factors (1)
    int snapshot_every;       // 8
    int reservoir;            // 64 snapshots per head
    int pivots;               // pivot units (GDN heads, KDA rows)
    double damp_fraction;     // share of key rows DAMP keeps in FP16 (STEPQ_DAMP_FP16_SHARE)
    uint64_t seed;            // reservoir sampling
    const char* output;       // plan file, or NULL to keep the plan in memory only
    const char* key;          // what the plan was made from (stepq_plan.calibration_key), or NULL
    // steps the native runs, propagates the lifetimes and measures the distortions: a CPU
    // backend the front end chose (not part of the key)
    const stepq_backend* backend;
    stepq_provenance prov;
    int quiet;                // 1: no progress and no notes on stderr (libstepq's sq_calibrate
                              // unless asked for them)
    stepq_hold hold;          // a table solved again with the long heads held (budget 0: none)
} stepq_calib_cfg;

// Writes the plan (unless c->output is NULL); *out (if not NULL) receives it in memory too
// (caller frees). Quiet when STEPQ_QUIET is set or c->quiet. Before any work it checks that the
// segments are of one model: the same kind, heads of one shape and labels, read-out scale and
// weights (each mismatch named by both segments' descriptions), each long enough.
int stepq_calibrate(stepq_plan* out, const stepq_calib_cfg* c);

// ---------------------------------------------------------------------------------------------
// a calibration as the front ends describe it: a config (cli/builders.c), the command line's
// `stepq calibrate --trace` and libstepq's sq_calibrate (lib/stepq.c) build it here, so that one
// calibration gets one key and one plan whichever of them asked for it

// The settings of a calibration (method 4.1, 4.3); stepq_calib_knobs gives each its default
// and range.
typedef struct {
    long long steps;          // per segment
    double horizon, gamma, rho;
    long long refits, snapshot_every, reservoir;
    long long pivots;         // -1: pivot_fraction of the units
    double pivot_fraction;    // -1: the kind's share (stepq_pivot_share)
    double damp_fraction;
    long long seed;           // of the reservoir sampling
} stepq_calib_settings;

// One setting: a config's key (the command line's option is --key with '-' for '_'), its field
// (a long long where integer, else a double), the config's default and the accepted range.
typedef struct {
    const char* key;
    int integer;
    size_t offset;  // in stepq_calib_settings
    double def, lo, hi;
    const char* help;  // what it is, one line, citing the method
} stepq_calib_knob;
#define STEPQ_CALIB_NKNOBS 11
extern const stepq_calib_knob stepq_calib_knobs[STEPQ_CALIB_NKNOBS + 1];  // ends with a row whose key is NULL

// How a front end's user names the settings, for the messages that refuse one: each front end
// passes its own, so that its message names what its user set and no front end rewrites one.
// The command line: its options (--snapshot-every); a config: its keys, each with the FILE:LINE
// that sets it; libstepq: its caller's (sq_calibrate_names).
typedef struct {
    const char* who;                       // begins each message: the caller, or a config's FILE:LINE
    const char* name[STEPQ_CALIB_NKNOBS];  // each knob's, in stepq_calib_knobs' order; NULL: its key
    const char* at[STEPQ_CALIB_NKNOBS];    // where each was set (a config's FILE:LINE, which then begins
                                           // a message on it instead of who); NULL: not said
} stepq_calib_names;
// the row of stepq_calib_knobs whose key is key (one of them)
const stepq_calib_knob* stepq_calib_knob_of(const char* key);
// the name of knob k (a row of stepq_calib_knobs) in names
const char* stepq_calib_name(const stepq_calib_names* names, const stepq_calib_knob* k);

// s <- every knob's default (a config's: steps 2048)
void stepq_calib_defaults(stepq_calib_settings* s);
// STEPQ_ERR naming the first setting outside its range (as "who: name V is outside [lo, hi]", the
// names as names gives them); steps 0 passes (a trace calibration's: every step of the shortest
// trace)
int stepq_calib_settings_check(const stepq_calib_settings* s, const stepq_calib_names* names);

// STEPQ_ERR unless a segment of s->steps steps takes a state snapshot (one every
// s->snapshot_every steps): a calibration that took none would write a plan of zero distortions.
// Every front end calls it, with its names for snapshot_every and steps (names).
int stepq_calib_check_snapshots(const stepq_calib_settings* s, const stepq_calib_names* names);

// the most the text a calibration's key is taken of may hold (revision, segments, settings)
#define STEPQ_CALIB_TEXT_MAX 16384

// A calibration ready to run: its cfg (segments owned), key and descriptions.
typedef struct {
    stepq_calib_cfg c;
    char key[40];
    char base_key[40];  // the key of the same calibration without its hold (key itself when none)
    char desc[640];
    char* command;  // the equivalent command line of a trace calibration (its plan's config), or NULL
} stepq_calib_build;
void stepq_calib_build_free(stepq_calib_build* b);

// The calibration's segments from trace files, one each (normalize: q and k divided by their
// norms on reading, method 6.1); appends "segment: trace PATH xxh3 HEX" per file to the key's
// text (text, of text_n bytes). Each file is opened and checked (a missing file, an HDF5 file
// that is no trace) with a message naming it.
int stepq_calib_trace_segments(stepq_calib_build* b, const char* const* paths, int n, int normalize, char* text,
                               size_t text_n);
// Completes b once its segments are open: the settings (pivots from the pivot fraction, the
// kind's share by default), desc, the key of text + the settings, output, provenance
// (prov.source is set to desc here) and the backend be.
void stepq_calib_finish(stepq_calib_build* b, const stepq_calib_settings* s, char* text, size_t text_n,
                        const char* output, stepq_provenance prov, const stepq_backend* be);
// `stepq calibrate --trace A.h5 [B.h5 ...] --out output` and sq_calibrate: the segments of the
// traces, checked as stepq_calibrate checks them before any work (one model, kind, shape, long
// enough), the settings s checked (names: the caller's, as "calibrate" or sq_calibrate's caller
// names them); s->steps 0: every step of the shortest trace. The plan's config is the equivalent
// command line with every setting spelled out (b->command). be: stepq_calib_cfg's backend.
int stepq_calib_from_traces(stepq_calib_build* b, const char* const* paths, int n, int normalize,
                            const stepq_calib_settings* s, const char* output, const stepq_calib_names* names,
                            const stepq_backend* be);

// The pivots and allocations of every scheme and budget from the statistics already in p
// (l, L, M, d_dual, d_abs). d_dual_pivot: (H, G, NW) distortions recomputed with each head's
// pivot rows out of the column fit, for KDA (NULL for GDN, whose pivots are whole heads);
// it is filled by the callback, given the pivot mask (H, G).
typedef void (*stepq_redistort_fn)(double* d_dual /*(H,G,NW)*/, const uint8_t* pivot /*(H,G)*/,
                                   void* ctx);
int stepq_allocate(stepq_plan* p, stepq_redistort_fn redistort, void* ctx);

// The hold h applied to p's table (h->scheme, h->budget), its achieved bits and objective
// recomputed; held (H, may be NULL) <- 1 for each long head. Refused (STEPQ_ERR, with the
// message) for a KDA table of the dual-axis fit with pivots, whose allocation read distortions
// measured with the pivot rows out of the fit, which the plan does not keep.
int stepq_plan_hold(stepq_plan* p, const stepq_hold* h, uint8_t* held);
// stepq_plan_hold with the long heads named on stderr (unless quiet or STEPQ_QUIET): what a
// calibration with a hold does after its allocation, and what a plan calibrated without it takes
// to become the held plan
int stepq_hold_long_heads(stepq_plan* p, const stepq_hold* h, int quiet);

#endif
