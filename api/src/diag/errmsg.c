/*
 * errmsg.c - aclGetRecentErrMsg (the ERRMSG family): CANN's per-thread
 * error-message queue, the helpers every family reports through (the
 * api_err_* texts), and what a fired fault point reports (api_fault).
 *
 * Every failing call queues one or more messages for the calling thread.
 * aclGetRecentErrMsg formats them as CANN does (hicann/runtime
 * src/dfx/error_manager/error_manager.cc): the first as
 * "[PID: <pid>] <YYYY-MM-DD-HH:MM:SS.mmm.uuu> <title>(<code>): <text>"
 * followed by its 8-space-indented "Possible Cause:" / "Solution:" lines,
 * then, when more are queued, "TraceBack (most recent call last):" and each
 * further text indented by 8 spaces. Reading clears the queue; an empty
 * queue reads as NULL. All storage is static thread-local, so a thread that
 * exits leaks nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "diag.h"
#include "backends/be.h"

#define MAX_MSGS 8
#define MSG_LEN 1024 /* CANN's longest texts (a list of accepted values) run past 512 */

struct msg_kind {
    const char *code, *title, *cause, *solution;
};

static const struct msg_kind kinds[API_MSG_COUNT] = {
#define MSG(id, code, title, cause, solution) {code, title, cause, solution},
#include "messages.def"
#undef MSG
};

struct pending {
    enum api_msg kind;
    struct timeval when;
    char text[MSG_LEN];
};

static _Thread_local struct pending queue[MAX_MSGS];
static _Thread_local int queued;
static _Thread_local char report[MAX_MSGS * (MSG_LEN + 200)];

static void note_fault(void);

void api_report(enum api_msg kind, const char *fmt, ...)
{
    /* A full queue keeps the first messages: they say what went wrong. */
    if (queued == MAX_MSGS)
        return;
    struct pending *p = &queue[queued++];
    p->kind = kind;
    gettimeofday(&p->when, NULL);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
    /* Name the fault point behind this failure, if one fired, and append
     * what the real runtime said, when a forwarded call failed there. */
    if (atomic_load_explicit(&flt_armed, memory_order_relaxed))
        note_fault();
    const struct be_ops *be = be_get();
    const char *real = API_BRIDGE(take_message) ? API_BRIDGE(take_message)() : NULL;
    if (real && queued < MAX_MSGS) {
        struct pending *q = &queue[queued++];
        q->kind = API_MSG_EH9999;
        q->when = p->when;
        snprintf(q->text, sizeof q->text, "[%s runtime] %s", be->name, real);
    }
}

aclError api_err_null(const char *func, const char *param)
{
    api_report(API_MSG_EH0008, "%s failed because %s cannot be a NULL pointer.", func, param);
    return ACL_ERROR_INVALID_PARAM;
}

aclError api_err_arg_null(const char *param)
{
    api_report(API_MSG_EH0002, "Argument %s must not be null.", param);
    return ACL_ERROR_INVALID_PARAM;
}

aclError api_err_arg_value(const char *param, const char *value, const char *reason)
{
    api_report(API_MSG_EH0001, "Value %s for %s is invalid. Reason: %s.", value, param, reason);
    return ACL_ERROR_INVALID_PARAM;
}

aclError api_err_host_alloc(size_t n)
{
    api_report(API_MSG_EH0010, "Failed to allocate %zu bytes of host memory via new to ACL.", n);
    return ACL_ERROR_BAD_ALLOC;
}

aclError api_err_value(const char *func, const char *value, const char *param,
                       const char *expected)
{
    api_report(API_MSG_EH0007,
               "%s failed because value %s for parameter %s is invalid. Expected value: %s.",
               func, value, param, expected);
    return ACL_ERROR_INVALID_PARAM;
}

aclError api_err_zero(const char *func, const char *param)
{
    return api_err_value(func, "0", param, "must be greater than 0");
}

aclError api_err_reserved(const char *func, const char *param, uint64_t value)
{
    api_report(API_MSG_EH0009, "%s failed. Value %llu for parameter %s is invalid. Reason: %s is "
               "a reserved parameter and must be 0.", func, (unsigned long long)value, param, param);
    return ACL_ERROR_INVALID_PARAM;
}

aclError api_rt_null(const char *what, const char *param)
{
    api_report(API_MSG_EE1004, "%s failed because %s cannot be a NULL pointer.", what, param);
    return ACL_ERROR_RT_PARAM_INVALID;
}

aclError api_err_runtime(const char *func, aclError rc)
{
    if (rc == ACL_ERROR_BAD_ALLOC)
        return api_fault(FLT_LIB_HOST_MALLOC, func);
    if (rc != ACL_SUCCESS)
        api_report(API_MSG_EH9999, "%s failed, runtime result = %d.", func, rc);
    return rc;
}

aclError api_err_refused(const char *func, aclError rc, const char *why)
{
    if (rc == ACL_SUCCESS || !why)
        return api_err_runtime(func, rc);
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, %s.", func, why);
    return rc;
}

aclError api_err_ctx_gone(const char *func)
{
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, the current context "
               "was destroyed by another thread.", func);
    return ACL_ERROR_RT_CONTEXT_NULL;
}

aclError api_err_create(const char *func, aclError rc, aclError no_resource, const char *what)
{
    if (rc == ACL_SUCCESS)
        return rc;
    if (rc == no_resource)
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, the device has no "
                   "%s resource left.", func, what);
    else if (rc == ACL_ERROR_RT_CONTEXT_NULL)
        api_err_ctx_gone(func);
    else
        api_err_runtime(func, rc);
    return rc;
}

void api_msg_peek(char *buf, size_t len)
{
    if (queued == 0) {
        snprintf(buf, len, "%s", "");
        return;
    }
    const struct msg_kind *k = &kinds[queue[0].kind];
    snprintf(buf, len, "%s(%s): %s", k->title, k->code, queue[0].text);
}

/* Append printf output to report[] at *len, truncating at the end. */
static void put(size_t *len, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(size_t *len, const char *fmt, ...)
{
    if (*len >= sizeof report)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(report + *len, sizeof report - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n;
    if (*len >= sizeof report)
        *len = sizeof report - 1;
}

const char *api_impl_aclGetRecentErrMsg(void)
{
    if (queued == 0)
        return NULL;
    const struct pending *first = &queue[0];
    const struct msg_kind *k = &kinds[first->kind];
    struct tm tm;
    time_t secs = first->when.tv_sec;
    localtime_r(&secs, &tm);
    size_t len = 0;
    put(&len, "[PID: %d] %04d-%02d-%02d-%02d:%02d:%02d.%03ld.%03ld %s(%s): %s", (int)getpid(),
        tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
        (long)first->when.tv_usec / 1000, (long)first->when.tv_usec % 1000, k->title, k->code,
        first->text);
    if (k->cause[0])
        put(&len, "\n        Possible Cause: %s", k->cause);
    if (k->solution[0])
        put(&len, "\n        Solution: %s", k->solution);
    if (queued > 1)
        put(&len, "\n        TraceBack (most recent call last):");
    for (int i = 1; i < queued; i++)
        put(&len, "\n        %s", queue[i].text);
    queued = 0;
    return report;
}

/* ---- Fired fault points ----
 *
 * Each point's effect (code, message kind, text) comes from the same line
 * of fault/points.def that names it. The message is the one the runtime
 * gives for that failure, followed in the TraceBack by the point's name. */

static const struct {
    aclError code;
    enum api_msg msg;
    const char *text;
} effects[FLT_COUNT] = {
#define FLT(id, name, code, msg, text, what) {code, API_MSG_##msg, text},
#include "fault/points.def"
#undef FLT
};

aclError api_fault(enum flt_point p, const char *func)
{
    /* texts may use %s for the API name; extra arguments are harmless */
    char text[512];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(text, sizeof text, effects[p].text, func);
#pragma GCC diagnostic pop
    api_report(effects[p].msg, "%s", text);
    return effects[p].code;
}

/* If a fault point fired in this thread since the last note, queue a line
 * naming it (the first message of a failure does). */
static void note_fault(void)
{
    enum flt_point p = flt_take_fired();
    if (p != FLT_COUNT)
        api_report(API_MSG_EH9999, "[aclsim] fault point %s fired (%s)", flt_name(p),
                   flt_what(p));
}
