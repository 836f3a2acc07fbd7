// lib.h: what libstepq's files share beside the public header (lib/stepq.c defines it; none of
// it is exported: lib/stepq.map exports sq_* alone).
#ifndef STEPQ_LIB_H
#define STEPQ_LIB_H

#include <setjmp.h>

#include "../include/stepq.h"
#include "../sim/session.h"

// ---- the entry: every public function that reaches the floors runs under this thread's error
// sink; a fatal error below jumps back to the entry's setjmp, which returns from it
void lib_enter(void);
jmp_buf* lib_jump(void);
// ends an entry: its status, with the sink's message kept as sq_last_error() when it failed
sq_status lib_leave(sq_status rc);
// the messages of the current entry so far ("" if none)
const char* lib_message(void);
// an entry's own refusal: the message, then lib_leave(rc)
sq_status lib_fail(sq_status rc, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
#define LIB_ENTER()                                          \
    do {                                                     \
        lib_enter();                                         \
        if (setjmp(*lib_jump())) return lib_leave(SQ_EINTERNAL); \
    } while (0)

// one object, one thread at a time: a call claims the object's flag (STEPQ_ERR with a message
// naming who when another thread holds it, or busy is NULL: the object is), lib_release frees
// it and ends the entry
int lib_claim(const int* busy, const char* what, const char* advice, const char* who);
sq_status lib_release(const int* busy, sq_status rc);

// ---- the CPU session inside an entry (what lib/dsession.c's host backend steps)
// sq_session_open's checks of the kind, the number of formats, the scale, the heads and the
// prefill: SQ_OK, or the refusal's status (the message said)
sq_status lib_session_shape(const sq_session_config* cfg);
// sq_session_open's checks and work: *out, or the refusal's status (the message said)
sq_status lib_session_open(const sq_session_config* cfg, sq_session** out);
// sq_session_step's (the session claimed by the caller); who names the caller in refusals
sq_status lib_session_step(sq_session* s, const float* q, const float* k, const float* v, const float* g,
                           const float* beta, const char* who);
// the engine's session under it: its views after a step (sim/session.h)
const stepq_session* lib_session_engine(const sq_session* s);

#endif
