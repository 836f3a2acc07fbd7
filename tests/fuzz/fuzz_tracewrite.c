// fuzz_tracewrite.c: libstepq's trace writer (sq_trace_*, include/stepq.h, over sim/traceout.c)
// as a program calls it, with writes that fail. The fuzzer's bytes choose the trace's shape (kind,
// q/k and value heads, K, V, read-outs or not), its labels (a (layer, head) twice, one kind alone),
// a file-size limit (RLIMIT_FSIZE with SIGXFSZ ignored: write() then fails with EFBIG, as it fails
// with ENOSPC on a full disk) of 512 bytes to 127.5 KiB, which the writes meet at an append or at
// the commit (HDF5's chunk cache off, so that each block the writer flushes is written at once), and up to 64
// calls: blocks of 0 to 127 steps, well-formed or with one value spoiled (NaN, Inf, a gate above
// 0, beta outside [0, 1], a q not normalised), read-outs given or not, a negative count, NULL
// arrays, attributes (the trace's own names too), then a commit or an abandon. What must hold:
// every call returns a status the header names, with a message when it fails; after a failed
// write every later call is refused with SQ_EFILE; nothing crashes, reads or writes outside its
// buffers, or leaks; no HDF5 object stays open after an input; no file is left behind but a
// committed trace, which the reader takes with the steps the writer counted.
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../include/stepq.h"
#include "../../base/common.h"
#include "../../base/h5util.h"
#include "../../base/outfile.h"
#include "../../sim/trace.h"
#include "fuzzutil.h"

#define REQUIRE(cond)                                                                         \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "%s:%d: %s (%s)\n", __FILE__, __LINE__, #cond, sq_last_error()); \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

static const int dims[] = {1, 3, 8, 16};

// HDF5 (1.10.8) loses the chunk buffer it was writing out when that write fails: one per failed
// write, 64 steps of one head's row (264 B to 4 KB here), allocated and dropped inside H5Dwrite
// with no stepq frame between (valgrind on the replay of single inputs; run over many inputs,
// valgrind may name H5Dread as the allocation's site, a block HDF5's free lists handed on).
// HDF5's to free, suppressed for this target alone: about 1 KB an execution on average (LSan:
// 2,869,920 bytes in 1,076 blocks over 3,000 executions), which is most of a long run's growth
// in RSS beside AddressSanitizer's quarantine (256 MB). A leak of stepq's own allocations, or of
// a file's whole memory (what a failed H5Fclose loses: h5u_abandon points an abandoned file at
// /dev/null first; no HDF5 object may stay open after an input), is a finding.
const char* __lsan_default_suppressions(void);
const char* __lsan_default_suppressions(void) { return "leak:libhdf5\n"; }


static unsigned long long rng;
static float unif(void) {  // xorshift64*, in [0, 1)
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return (float)((rng * 2685821657736338717ull) >> 40) / 16777216.0f;
}

// n steps of well-formed inputs: q and k of norm 1, g in (-0.2, 0], beta in [0, 1)
static void block(float* x[6], long n, int H, int HV, int K, int V, int G) {
    for (long i = 0; i < n * H; i++) {
        for (int c = 0; c < 2; c++) {
            float* r = x[c] + i * K;
            for (int j = 0; j < K; j++) r[j] = 0;
            r[rng % (unsigned)K] = rng & 1 ? 1.0f : -1.0f;
            unif();
        }
    }
    for (long i = 0; i < n * HV * V; i++) x[2][i] = 2 * unif() - 1, x[5][i] = 2 * unif() - 1;
    for (long i = 0; i < n * HV * G; i++) x[3][i] = -0.2f * unif();
    for (long i = 0; i < n * HV; i++) x[4][i] = unif();
}

// 1 when a temporary file of path ("<path>.tmp.XXXXXX", base/outfile.h) is left in its directory;
// *committed <- whether path itself is there
static int left(const char* path, int* committed) {
    *committed = access(path, F_OK) == 0;
    char dir[256];
    snprintf(dir, sizeof dir, "%s", path);
    char* slash = strrchr(dir, '/');
    *slash = 0;
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s.tmp.", slash + 1);
    DIR* d = opendir(dir);
    int found = 0;
    for (struct dirent* e; d && (e = readdir(d));) found |= !strncmp(e->d_name, prefix, strlen(prefix));
    if (d) closedir(d);
    return found;
}

// HDF5's chunk cache of the files opened from now on (the default file-access list): off while
// the trace is written, so that each block of steps the writer flushes is written at once and
// the limit is met at the append that crosses it (HDF5's default cache of 1 MB per dataset would
// hold every write of a small trace until the commit); HDF5's default for the read-back, which
// then reads a chunk at a time, not one row of one head per read() (a quarter of the time left
// once HDF5's free lists were kept)
static void chunk_cache(int on) {
    static size_t slots, bytes;
    static double w0;
    static int got;
    if (!got) got = H5Pget_cache(H5P_FILE_ACCESS_DEFAULT, NULL, &slots, &bytes, &w0) >= 0;
    REQUIRE(got && H5Pset_cache(H5P_FILE_ACCESS_DEFAULT, 0, on ? slots : 0, on ? bytes : 0, w0) >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fz_bytes b = {data, size, 0};
    signal(SIGXFSZ, SIG_IGN);
    // HDF5's free lists are kept: without them each of HDF5's allocations is one of
    // AddressSanitizer's (more than half of a run's time), and HDF5 is not instrumented, so they
    // hide nothing of stepq's. An input may then end with more allocations than frees without a
    // leak of stepq's (so may one whose write failed: HDF5 loses its chunk buffers), and libFuzzer
    // stops checking after each such input once it has checked a thousand; the check at exit
    // still reports an allocation of stepq's that is lost (tried: one malloc(17) left per input).
    h5u_quiet();
    const uint8_t shape = fz_u8(&b), flags = fz_u8(&b), limit = fz_u8(&b);
    const int kind = shape & 1, H = 1 + (shape >> 1) % 2, HV = H * (1 + (shape >> 2) % 2);
    const int K = dims[(shape >> 3) % 4], V = dims[(shape >> 5) % 4], G = kind == SQ_KDA ? K : 1;
    rng = 88172645463325252ull ^ ((unsigned long long)shape << 8 | limit);
    int layer[4], head[4];
    for (int h = 0; h < HV; h++) layer[h] = h / 2, head[h] = h % 2;
    if (flags & 2) head[HV - 1] = head[0], layer[HV - 1] = layer[0];  // a (layer, head) twice where HV > 1
    sq_trace_config tc = {.kind = kind, .H = H, .HV = HV, .K = K, .V = V, .with_y = flags & 1,
                          .layer = flags & 4 ? NULL : layer, .head = flags & 8 ? NULL : head,
                          .qk_norm_eps = flags & 16 ? 1e-6 : 0, .scale = flags & 32 ? 0.5 : 0};
    char path[256];
    fz_tmp(path, sizeof path, "tracewrite", "h5");
    unlink(path);
    // the file-size limit the writes meet: none (0), or 512 bytes to 127.5 KiB
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    if (limit) lim.rlim_cur = 512 * (rlim_t)limit;
    setrlimit(RLIMIT_FSIZE, &lim);
    sq_trace* t = NULL;
    chunk_cache(0);
    const int orc = sq_trace_open(path, &tc, &t);
    CHECK_RC(orc);
    REQUIRE((orc == SQ_OK) == (t != NULL));
    if (!t) {
        setrlimit(RLIMIT_FSIZE, &old);
        int committed;
        REQUIRE(!left(path, &committed) && !committed);
        REQUIRE(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
        return 0;
    }
    float* x[6];
    const size_t most = 127;
    const size_t width[6] = {(size_t)H * K, (size_t)H * K, (size_t)HV * V, (size_t)HV * G, (size_t)HV, (size_t)HV * V};
    for (int i = 0; i < 6; i++) x[i] = malloc(sizeof(float) * most * width[i]);
    block(x, most, H, HV, K, V, G);  // once: each call appends its first n steps
    long steps = 0;
    int failed = 0;  // a write failed: every later call is refused with SQ_EFILE
    for (int op = 0; op < 64 && b.at < b.n; op++) {
        const uint8_t o = fz_u8(&b);
        if (o % 8 == 7) {  // an attribute: a string, an integer, or one of the trace's own names
            static const char* const names[] = {"text", "prefill", "kind", "steps", "", "model"};
            const char* name = names[fz_u8(&b) % 6];
            const int rc = o & 8 ? sq_trace_attr_int(t, name, (long)(int8_t)fz_u8(&b)) : sq_trace_attr(t, name, "x");
            CHECK_RC(rc);
            REQUIRE(!failed || rc == SQ_EFILE);
            continue;
        }
        long n = fz_u8(&b) % 128;
        if (o % 8 == 6) n = -n;  // a negative count
        const long m = n > 0 ? n : 0;
        float* spoiled = NULL;
        float kept = 0;
        if (o & 8 && m > 0) {  // one value spoiled (put back after the call)
            static const float bad[] = {NAN, INFINITY, 0.5f, 1.5f, -0.5f, 3.0f};
            const int which = fz_u8(&b) % 6;
            spoiled = &x[which][fz_u32(&b) % (m * width[which])];
            kept = *spoiled;
            *spoiled = bad[fz_u8(&b) % 6];
        }
        const float* y = o & 16 ? x[5] : NULL;  // read-outs given or not, whatever the trace holds
        const int rc = o % 8 == 5 ? sq_trace_append(t, n, x[0], NULL, x[2], x[3], x[4], y)
                                  : sq_trace_append(t, n, x[0], x[1], x[2], x[3], x[4], y);
        if (spoiled) *spoiled = kept;
        CHECK_RC(rc);
        if (failed && n >= 0 && o % 8 != 5) REQUIRE(rc == SQ_EFILE);  // (bad arguments: SQ_EINVAL first)
        if (rc == SQ_EFILE) failed = 1;
        if (rc == SQ_OK) steps += n;
        REQUIRE(sq_trace_steps(t) == steps || failed);
    }
    for (int i = 0; i < 6; i++) free(x[i]);
    const int commit = !(flags & 64);
    const int crc = sq_trace_close(t, commit);
    CHECK_RC(crc);
    REQUIRE(commit || crc == SQ_OK);
    if (failed) REQUIRE(crc == (commit ? SQ_EFILE : SQ_OK));
    setrlimit(RLIMIT_FSIZE, &old);
    int committed;
    REQUIRE(!left(path, &committed));            // no temporary file, whatever happened
    REQUIRE(committed == (commit && crc == SQ_OK));  // the trace only where committed
    // nothing of the file left open in HDF5, whatever failed: a file whose close failed would stay
    // in HDF5's table with its memory (caches, buffers) for the rest of the process
    REQUIRE(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
    if (committed) {  // what the readers take: the steps the writer counted
        stepq_trace tr;
        const int noted = stepq_inputs_count();
        chunk_cache(1);
        REQUIRE(stepq_trace_read(&tr, path, 0) == STEPQ_OK && tr.T == steps && tr.HV == HV && tr.K == K);
        stepq_inputs_forget_since(noted);  // the process's list of inputs stays as it was
        stepq_trace_free(&tr);
        unlink(path);
    }
    return 0;
}
