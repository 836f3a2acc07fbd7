// fuzz_model.c: the language-model loader (sim/safetensors.c, sim/lm.c) on broken checkpoints.
// The template is tests/fuzz/data/lm_tiny, the shipped GDN model (data/lm/gdn) cut down to one
// layer of 2 heads of 16 x 16 by tests/fuzz/mktiny_lm.py: the same tensor names, dtypes, layout
// and config keys in 53 KB instead of 8 MB, which each input writes and loads (about 1 input a
// second with the shipped model). The fuzzer's first byte chooses
//   0: its bytes are the whole model.safetensors (the shipped config.json beside them);
//   1..3: up to 8 edits of the template: a header entry of one tensor (dtype, a shape entry,
//      an offset, the entry removed or renamed), a config.json key (a number, a string, true,
//      null, or removed), or 4 float32 values of the data section (NaN and Inf included).
// stepq_lm_load must refuse a broken checkpoint with a message; a checkpoint it accepts must run:
// 8 tokens natively, the boundary in int4, 4 more tokens, without a crash or a sanitizer report
// (a non-finite state is an error the step reports, not a finding).
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../../base/common.h"
#include "../../quant/format.h"
#include "../../sim/lm.h"
#include "fuzzutil.h"

#ifndef STEPQ_FUZZ_MODEL
#define STEPQ_FUZZ_MODEL "tests/fuzz/data/lm_tiny"
#endif

static char* cfg_text;          // the template's config.json
static cJSON* header;           // the template's safetensors header
static unsigned char* payload;  // its data section
static size_t payload_n;

static unsigned char* slurp(const char* path, size_t* n) {
    FILE* fp = fopen(path, "rb");
    stepq_assert(fp);
    fseek(fp, 0, SEEK_END);
    *n = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char* p = mallocCheck(*n + 1);
    stepq_assert(fread(p, 1, *n, fp) == *n);
    p[*n] = 0;
    fclose(fp);
    return p;
}

static void load_template(void) {
    size_t n;
    cfg_text = (char*)slurp(STEPQ_FUZZ_MODEL "/config.json", &n);
    unsigned char* st = slurp(STEPQ_FUZZ_MODEL "/model.safetensors", &n);
    uint64_t hl = 0;
    for (int i = 0; i < 8; i++) hl |= (uint64_t)st[i] << (8 * i);
    header = cJSON_ParseWithLength((const char*)st + 8, (size_t)hl);
    stepq_assert(header);
    payload_n = n - 8 - (size_t)hl;
    payload = mallocCheck(payload_n);
    memcpy(payload, st + 8 + hl, payload_n);
    free(st);
}

static void put(const char* path, const void* a, size_t na, const void* b, size_t nb) {
    FILE* fp = fopen(path, "wb");
    stepq_assert(fp);
    fwrite(a, 1, na, fp);
    if (b) fwrite(b, 1, nb, fp);
    fclose(fp);
}

// a fuzzed JSON value: a number (small or any double), a string, true, or null
static cJSON* fz_value(fz_bytes* b) {
    switch (fz_u8(b) % 5) {
    case 0: return cJSON_CreateNumber((double)(int8_t)fz_u8(b));
    case 1: return cJSON_CreateNumber(fz_f64(b));
    case 2: return cJSON_CreateString(fz_u8(b) & 1 ? "F64" : "gated_deltanet");
    case 3: return cJSON_CreateTrue();
    default: return cJSON_CreateNull();
    }
}

// cJSON leaves a replacement it could not place with the caller
static void replace_key(cJSON* o, const char* key, cJSON* v) {
    if (!cJSON_ReplaceItemInObjectCaseSensitive(o, key, v)) cJSON_Delete(v);
}

// one edit of the header or the config (the data section is edited in place)
static void edit(cJSON* hdr, cJSON* cfg, unsigned char* data, fz_bytes* b) {
    const uint8_t op = fz_u8(b) % 3;
    if (op == 2) {  // float values of the data section
        size_t at = ((size_t)fz_u32(b) % (payload_n / 4)) * 4;
        for (int i = 0; i < 4 && at + 4 * i + 4 <= payload_n; i++) {
            float f = fz_u8(b) & 1 ? NAN : fz_f32(b);
            memcpy(data + at + 4 * i, &f, 4);
        }
        return;
    }
    cJSON* obj = op == 0 ? hdr : cfg;
    const int n = cJSON_GetArraySize(obj);
    cJSON* item = cJSON_GetArrayItem(obj, fz_u8(b) % (n ? n : 1));
    if (!item) return;
    const uint8_t what = fz_u8(b) % 4;
    if (what == 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, item->string);
    } else if (op == 1 || !cJSON_IsObject(item)) {
        replace_key(obj, item->string, fz_value(b));
    } else {  // a field of a tensor's entry: dtype, one shape entry, one offset
        static const char* const fields[] = {"dtype", "shape", "data_offsets"};
        cJSON* fld = cJSON_GetObjectItemCaseSensitive(item, fields[what - 1]);
        if (cJSON_IsArray(fld) && cJSON_GetArraySize(fld) > 0) {
            cJSON* v = fz_value(b);
            if (!cJSON_ReplaceItemInArray(fld, fz_u8(b) % cJSON_GetArraySize(fld), v)) cJSON_Delete(v);
        } else {
            replace_key(item, fields[what - 1], fz_value(b));
        }
    }
}

// the checkpoint stepq reads: 8 tokens, the int4 boundary, 4 tokens
static void run_model(const stepq_lm* m, fz_bytes* b) {
    stepq_lm_seq s;
    stepq_lm_seq_init(&s, m, stepq_backend_default());
    float* logits = mallocCheck(sizeof(float) * m->vocab);
    int rc = STEPQ_OK;
    for (int t = 0; t < 12 && rc == STEPQ_OK; t++) {
        if (t == 8) rc = stepq_lm_seq_quantize(&s, stepq_format_find("int4"), NULL, stepq_backend_default());
        if (rc == STEPQ_OK) rc = stepq_lm_step(&s, fz_u8(b), logits, NULL);
    }
    free(logits);
    stepq_lm_seq_free(&s);
}

static char dir[256], cpath[320], spath[320];

// the private checkpoint directory goes when the process ends
static void cleanup(void) {
    unlink(cpath);
    unlink(spath);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!header) {
        load_template();
        // a checkpoint is written per input: in memory where the machine has /dev/shm
        snprintf(dir, sizeof dir, "%s/stepq_fuzz_model_%ld", fz_tmpdir(), (long)getpid());
        snprintf(cpath, sizeof cpath, "%s/config.json", dir);
        snprintf(spath, sizeof spath, "%s/model.safetensors", dir);
        mkdir(dir, 0700);
        atexit(cleanup);
    }
    fz_bytes b = {data, size, 0};
    const uint8_t mode = fz_u8(&b) % 4;
    if (mode == 0) {
        put(cpath, cfg_text, strlen(cfg_text), NULL, 0);
        put(spath, data + 1, size ? size - 1 : 0, NULL, 0);
    } else {
        cJSON *hdr = cJSON_Duplicate(header, 1), *cfg = cJSON_Parse(cfg_text);
        unsigned char* pl = mallocCheck(payload_n);
        memcpy(pl, payload, payload_n);
        for (int e = 0; e < 8 && b.at < b.n; e++) edit(hdr, cfg, pl, &b);
        char *h = cJSON_PrintUnformatted(hdr), *c = cJSON_PrintUnformatted(cfg);
        unsigned char len[8];
        const uint64_t hl = strlen(h);
        for (int i = 0; i < 8; i++) len[i] = (unsigned char)(hl >> (8 * i));
        put(cpath, c, strlen(c), NULL, 0);
        FILE* fp = fopen(spath, "wb");
        stepq_assert(fp);
        fwrite(len, 1, 8, fp);
        fwrite(h, 1, hl, fp);
        fwrite(pl, 1, payload_n, fp);
        fclose(fp);
        free(h); free(c); free(pl);
        cJSON_Delete(hdr);
        cJSON_Delete(cfg);
    }
    stepq_lm m;
    if (stepq_lm_load(&m, dir) == STEPQ_OK) {
        run_model(&m, &b);
        stepq_lm_free(&m);
    }
    return 0;
}
