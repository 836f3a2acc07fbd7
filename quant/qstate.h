// qstate.h: one head's state in a format (the packed bytes P_t and what its codecs and the
// decode-step protocol of method 2 work in). The protocol (sim/protocol.h) and the fused
// kernels (sim/backend.h) step it; the families' row codecs (famrows.h) read and write it.
#ifndef STEPQ_QSTATE_H
#define STEPQ_QSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

typedef struct {
    const stepq_format* fmt;
    stepq_head_plan hp;  // this head's widths and row influence (points into rows and a plan)
    uint8_t rows[STEPQ_MAX_DIM];  // (K) widths of the head's key rows
    uint8_t* packed;     // (packed_bytes) P_t
    size_t bytes;
    float* X;            // (K,V) S_hat_t in the protocol; the fused kernels (sim/backend.h) use it
                         // only for the formats whose encoder needs the whole head
    float* work;         // STEPQ_WORK_FLOATS(K,V) encoder scratch
    uint32_t* row_off;   // (K) where row i's bytes start in packed (fused kernels)
    float* u;            // (V) the step's delta write u_t (fused kernels, between the passes)
    long count;          // decode steps since the boundary encode (replay formats re-encode
                         // every fmt->replay of them; in between X evolves exactly)
    int xd;              // 1: X holds this step's rows D S_hat_{t-1} from the fused read pass (the
                         // AVX-512 passes of 128-wide rows), which the write pass takes instead
                         // of decoding and decaying each row again
    int K, V;
} stepq_qstate;

#endif
