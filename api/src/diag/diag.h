/*
 * diag.h - the contract of api/src/diag/, the ACL layer's lowest folder:
 * CANN's per-thread error messages (errmsg.c), the last error and device
 * exceptions (error.c), what a fired fault point does (errmsg.c) and the
 * aclsim_fault_* helpers (fault.c), the application log (log.c), the
 * sanitizer's and leak check's reports (report.c, suppress.c), and how a
 * call reaches the real runtime when one is loaded (forward.c).
 *
 * Every folder of api/src may include this header; diag/ includes no
 * header of another folder of api/src (ci/check-layers).
 */
#ifndef ACLSIM_API_DIAG_DIAG_H_
#define ACLSIM_API_DIAG_DIAG_H_

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"
#include "acl/acl_rt_memory_soma.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_dump.h"
#include "acl/ops/acl_cblas.h"
#include "acl/ops/acl_dvpp.h"
#include "aclsim/aclsim.h"
#include "aclsim/fault.h"
#include "api/abi/calls.h"
#include "api/abi/impl.h"
#include "fault/fault.h"

#define API_EXPORT __attribute__((visibility("default")))

/* A member of the backend's optional parts (backends/be.h: tools, bridge),
 * or NULL when the backend lacks the part or the member. */
#define API_TOOL(m) (be_get()->tools ? be_get()->tools->m : NULL)
#define API_BRIDGE(m) (be_get()->bridge ? be_get()->bridge->m : NULL)

/* ---- errmsg.c: CANN's per-thread error messages ---- */

enum api_msg {
#define MSG(id, code, title, cause, solution) API_MSG_##id,
#include "messages.def"
#undef MSG
    API_MSG_COUNT
};

/* Queue one message of kind `kind` for the calling thread; the text is
 * printf-formatted. Returns nothing: reporting never fails the caller. */
void api_report(enum api_msg kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "<func> failed because <param> cannot be a NULL pointer." (EH0008), and
 * ACL_ERROR_INVALID_PARAM, ready to be returned. */
aclError api_err_null(const char *func, const char *param);

/* CANN's ACL_REQUIRES_POSITIVE_REPORT: EH0007 "... value 0 for parameter
 * <param> ... must be greater than 0"; ACL_ERROR_INVALID_PARAM. */
aclError api_err_zero(const char *func, const char *param);
/* CANN's ACL_CHECK_RESERVED_PARAM_REPORT_RET with expect 0: EH0009 "<func>
 * failed. Value <v> for parameter <param> is invalid. Reason: <param> is a
 * reserved parameter and must be 0."; ACL_ERROR_INVALID_PARAM. */
aclError api_err_reserved(const char *func, const char *param, uint64_t value);
/* The runtime's EE1004 (error_code.json): "<what> failed because <param>
 * cannot be a NULL pointer.", `what` its description of the call;
 * ACL_ERROR_RT_PARAM_INVALID. */
aclError api_rt_null(const char *what, const char *param);

/* "<func> failed because value <value> for parameter <param> is invalid.
 * Expected value: <expected>." (EH0007); returns ACL_ERROR_INVALID_PARAM. */
aclError api_err_value(const char *func, const char *value, const char *param,
                       const char *expected);

/* "<func> failed" for a runtime failure without a message of its own:
 * host memory (rc ACL_ERROR_BAD_ALLOC) gets the lib/host/malloc text
 * (EH0010), anything else "runtime result = <rc>" (EH9999). Returns rc;
 * ACL_SUCCESS passes through without a message. */
aclError api_err_runtime(const char *func, aclError rc);

/* A refusal below the ACL layer that the backend explained (why: the
 * driver's rule, in aclsim's words): "The argument is invalid. Reason:
 * <func> failed, <why>." (EE1001); without why, api_err_runtime. Returns
 * rc; ACL_SUCCESS passes through without a message. */
aclError api_err_refused(const char *func, aclError rc, const char *why);

/* "<func> failed, the current context was destroyed by another thread."
 * (EE1001); returns ACL_ERROR_RT_CONTEXT_NULL. */
aclError api_err_ctx_gone(const char *func);

/* The message of a failed create call (stream, event, notify): the
 * backend's out-of-resource code `no_resource` says the device has no
 * `what` resource left, a context destroyed meanwhile says so, anything
 * else goes to api_err_runtime. Returns rc (ACL_SUCCESS: no message). */
aclError api_err_create(const char *func, aclError rc, aclError no_resource, const char *what);

/* CANN's GE ACL layer messages: EH0002 "Argument <param> must not be null."
 * and EH0001 "Value <value> for <param> is invalid. Reason: <reason>.";
 * both return ACL_ERROR_INVALID_PARAM. */
aclError api_err_arg_null(const char *param);
aclError api_err_arg_value(const char *param, const char *value, const char *reason);

/* The ACL layer's own host memory ran out: EH0010 "Failed to allocate <n>
 * bytes of host memory via new to ACL." (CANN's GE ACL layer), and
 * ACL_ERROR_BAD_ALLOC, ready to be returned. */
aclError api_err_host_alloc(size_t n);

/* Copy the calling thread's first pending message ("Title(CODE): text")
 * into buf without consuming it; "" when none. */
void api_msg_peek(char *buf, size_t len);

/* Queue the message of fault point p (its text may name `func`) and return
 * the code the point simulates. */
aclError api_fault(enum flt_point p, const char *func);

/* Entry-point check: fail the calling API as the point simulates. */
#define API_FAULT(id, func)                                                  \
    do {                                                                     \
        if (FLT_HIT(id))                                                     \
            return api_fault(FLT_##id, func);                                \
    } while (0)

/* ---- error.c: the last error, device exceptions ---- */

/* Keep rc as the calling thread's last error (aclrtGetLastError) when it is
 * a runtime error (ACL_ERROR_RT_*: 107xxx, 207xxx, 507xxx), as CANN's
 * runtime keeps every failure of its own calls; errors of the ACL layer's
 * own checks (100xxx, 200xxx, 500xxx) are not kept, as in CANN. Every
 * export returning aclError passes its result here (exports.c). */
void api_last_error_set(aclError rc);
static inline void api_last_error_note(aclError rc)
{
    if (__builtin_expect(rc != ACL_SUCCESS, 0))
        api_last_error_set(rc);
}

/* The ACL layer refused a task on stream (backend handle) because it
 * touches device memory no live block holds: raise the device exception
 * the device would have raised for it. */
void api_exception_task(void *stream);

/* ---- report.c: the sanitizer's and the leak check's reports ---- */

/* The kinds of report (the allocator sanitizer's, then the leak check's):
 * the names a report and a suppression (ACLSIM_SUPPRESS) give. */
enum api_rep_kind {
    API_REP_HOST_MEMORY, API_REP_FREED_MEMORY, API_REP_OUT_OF_BOUNDS, API_REP_CROSS_STREAM,
    API_REP_HOST_REUSE, API_REP_FREE_PENDING, API_REP_SHARED, API_REP_UNREGISTER,
    API_REP_DESTROY_DESC, API_REP_GRAPH_FREED, API_REP_GRAPH_REUSE, API_REP_OVERLAP,
    API_REP_FREED_BEFORE_LAUNCH, API_REP_IPC_ORDER, API_REP_LEAK,
    API_REP_KIND_COUNT
};
const char *api_rep_kind_name(enum api_rep_kind k);

/* Read ACLSIM_REPORT, ACLSIM_SUPPRESS and ACLSIM_REPORT_LIMIT again (aclInit,
 * after opt_reload): open the JSON file, parse the suppressions. Returns 0,
 * or -1 with *why the complaint (opt_invalid's words). */
int api_rep_configure(const char **why);

/* One report: api_rep_begin, its lines (the first is the headline) and
 * facts, then api_rep_end, which prints it on stderr (unless suppressed or
 * past the print limit), writes it to ACLSIM_REPORT, and returns whether it
 * stands (false: a suppression named it; do not count it). Reports are
 * serialised: begin takes a lock that end releases. */
void api_rep_begin(enum api_rep_kind kind);
void api_rep_line(bool first, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An operator the report is about: role "operator" (this one) or
 * "earlier_operator"; its stream joins the report's streams. */
void api_rep_op(const char *role, const char *type, uint64_t seq, const void *stream);
void api_rep_stream(const void *stream);
void api_rep_range(const void *start, size_t bytes);
/* A simulated time in microseconds ("from", "to", "until", "at"); "at" and
 * "earlier_at" are the times of the first and second stream's work (they
 * place the report's markers in the trace). */
void api_rep_time(const char *name, double us);
/* A fact as text (JSON string member `key`). */
void api_rep_fact(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The allocator (obj) an operator took its blocks from and its callbacks
 * (code addresses): one line naming them symbolized (function, file:line)
 * and the facts. */
void api_rep_allocator(uint64_t seq, const void *obj, uintptr_t alloc_fn, uintptr_t free_fn);
/* A stack (backtrace(3) return addresses, innermost first): printed and
 * written symbolized, aclsim's own frames cut. */
void api_rep_stack(const char *what, void *const *frames, int n);
/* A line printed once before the next report that is printed (a leak
 * report's heading); NULL forgets it. */
void api_rep_header(const char *text);
bool api_rep_end(void);

/* ---- forward.c: the real runtime behind the ACL layer (hw=ascend) ---- */

/* The real runtime's entry point for a call (backends/be.h, bridge), or
 * NULL when there is no real runtime or it lacks the call. */
typedef void (*api_any_fn)(void);
api_any_fn api_real(enum api_call id);

/* The real runtime's entry point for `name`, typed as the call, or NULL. */
#define API_REAL(name) ((__typeof__(&name))api_real(API_CALL_##name))

/* A call forwarded to the real runtime returned rc: on failure queue
 * "<func> failed, runtime result = <rc>." with the real runtime's own
 * message after it (when it gave one), unless `quiet` (calls for which
 * CANN reports no message). Returns rc. */
aclError api_forwarded(const char *func, aclError rc, bool quiet);

/* Non-zero while every checked call is also put to the real runtime and
 * the answers compared (ACLSIM_DIFF=1: the differential mode of
 * api/src/diff.c, which sets it as the library loads). The families read
 * it where a call of theirs would otherwise reach the real runtime twice. */
extern int api_diff_on;

/* Operator families (data buffers, tensor descs, aclop*, aclblas*): on a
 * backend with a real runtime these calls are the real runtime's (their
 * handles must be its own, for its own operators to read them): each
 * implementation starts by forwarding, and only the simulator runs
 * aclsim's. */
#define API_FORWARD_FN_(name)                                                            \
    _Pragma("GCC diagnostic push")                                                       \
    _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")                      \
    __typeof__(&name) real_ = API_REAL(name);                                            \
    _Pragma("GCC diagnostic pop")
#define API_FORWARD(name, args)                                                          \
    do {                                                                                 \
        API_FORWARD_FN_(name)                                                            \
        if (real_)                                                                       \
            return real_ args;                                                           \
    } while (0)
/* Runtime calls whose state is the device's (limits, options, abort
 * callbacks): after the ACL layer's own checks, a real runtime answers,
 * its failure reported as api_forwarded does for `func`. */
#define API_FORWARD_RT(func, name, args)                                                 \
    do {                                                                                 \
        API_FORWARD_FN_(name)                                                            \
        if (real_)                                                                       \
            return api_forwarded(func, real_ args, false);                               \
    } while (0)
#define API_FORWARD_VOID(name, args)                                                     \
    do {                                                                                 \
        API_FORWARD_FN_(name)                                                            \
        if (real_) {                                                                     \
            real_ args;                                                                  \
            return;                                                                      \
        }                                                                                \
    } while (0)

#endif /* ACLSIM_API_DIAG_DIAG_H_ */
