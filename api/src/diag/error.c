/*
 * error.c - errors and exception info: the calling thread's last error
 * (aclrtGetLastError, aclrtPeekAtLastError), device exceptions and the
 * callbacks that hear of them (aclrtSetExceptionInfoCallback,
 * aclrtExceptionInfoCallbackRegister/Unregister and the aclrtGet*From-
 * ExceptionInfo accessors) and aclrtGetErrorVerbose: the ERROR family of
 * api/abi/calls.def. (The device and stream state callbacks are
 * rt/state.c's.)
 *
 * Last error. CANN's runtime keeps, per thread, the code of the last of
 * its own calls that failed; reading with Get clears it, Peek does not;
 * success never clears it. Failures of the ACL layer's own argument checks
 * never reach the runtime and are not kept. aclsim keeps every ACL_ERROR_RT_*
 * result (107xxx, 207xxx, 507xxx) of an exported call (exports.c) and no
 * other. CANN's ACL layer accepts only ACL_RT_THREAD_LEVEL; the runtime's
 * context level below it cannot be reached through ACL.
 *
 * Device exceptions. When device work fails, the simulator reports it
 * (backends/be.h, fault_handler) and every registered exception callback
 * gets an aclrtExceptionInfo with the stream, task, thread, device and the
 * code the device reports: a copy engine error on an async copy or fill
 * (sim/copy/engine) is ACL_ERROR_RT_SYS_DMA, a stream or event that never
 * completes when synchronised (sim/stream/hang, sim/event/hang) is
 * ACL_ERROR_RT_TASK_TIMEOUT, and an async copy or fill that aclsim refuses
 * because it touches device memory no live block holds (freed, never
 * allocated, past a block's end) is ACL_ERROR_RT_DEVICE_MEM_ERROR. The
 * callbacks run in the thread that observed the fault, before the failing
 * call returns (CANN runs them on its own thread, also before the failing
 * synchronisation returns). No kernel runs on the simulator, so an
 * exception never carries kernel arguments or a function handle.
 *
 * State callbacks are called, in the order of their names, when a device
 * opens (SET_PRE), on every successful aclrtSetDevice (SET_POST), around
 * the release of a device's default context (RESET_PRE, RESET_POST), after
 * a stream (a context's default stream too) is created (CREATE_POST) and
 * before one is destroyed (DESTROY_PRE).
 *
 * On hw=ascend the registrations and aclrtGetErrorVerbose are forwarded to
 * the real runtime, which raises its own exceptions and state changes with
 * the user's callbacks untouched. User callbacks run with no aclsim lock
 * held.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "diag.h"
#include "base/mem.h"
#include "backends/be.h"

/* The exception-info calls include a deprecated one. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"


/* What a NULL aclrtExceptionInfo gets from the accessors (CANN's
 * ACL_ERROR_INVALID_EXCEPTION_INFO). */
#define BAD_INFO 0xFFFFFFFFu

/* aclrtExceptionInfo, laid out as CANN's rtExceptionInfo begins, so that
 * the accessors read a real runtime's info too. The expanded info of a
 * simulated exception is RT_EXCEPTION_INVALID (0): no kernel ran. */
struct rtExceptionInfo {
    uint32_t taskid;
    uint32_t streamid;
    uint32_t tid;
    uint32_t deviceid;
    uint32_t retcode;
    struct {
        int type;
        union {
            void *align;
            char bytes[64];
        } u;
    } expandInfo;
};

enum { EXPAND_INVALID = 0, EXPAND_AICORE = 2, EXPAND_FUSION = 5, EXPAND_AICPU = 6 };

/* ---- The last error ---- */

static _Thread_local aclError last_error;
/* Set by Get/Peek so that their own result is not kept again. */
static _Thread_local bool own_result;

void api_last_error_set(aclError rc)
{
    if (own_result) {
        own_result = false;
        return;
    }
    int range = rc / 1000;
    if (range == 107 || range == 207 || range == 507)
        last_error = rc;
}

static aclError last(const char *fn, aclrtLastErrLevel level, bool clear)
{
    if (level != ACL_RT_THREAD_LEVEL) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)level);
        return api_err_value(fn, v, "level", "ACL_RT_THREAD_LEVEL");
    }
    aclError rc = last_error;
    if (clear)
        last_error = ACL_SUCCESS;
    own_result = rc != ACL_SUCCESS;
    return rc;
}

aclError api_impl_aclrtGetLastError(aclrtLastErrLevel level)
{
    return last("aclrtGetLastError", level, true);
}

aclError api_impl_aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    return last("aclrtPeekAtLastError", level, false);
}

/* ---- Device exceptions ---- */

/* Registered exception callbacks, in registration order: the one of
 * aclrtSetExceptionInfoCallback (the "ASCENDCL" module's, at most one) and
 * one per distinct callback of aclrtExceptionInfoCallbackRegister. */
struct exc_cb {
    struct exc_cb *next;
    bool module;
    aclrtExceptionInfoCallback fn;
};

static pthread_mutex_t exc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct exc_cb *excs;
static pthread_once_t exc_once = PTHREAD_ONCE_INIT;

static void on_device_fault(const struct be_fault *f)
{
    struct rtExceptionInfo info;
    memset(&info, 0, sizeof info);
    info.taskid = f->task_id;
    info.streamid = f->stream_id;
    info.tid = f->thread;
    info.deviceid = (uint32_t)f->device;
    info.retcode = (uint32_t)f->code;
    info.expandInfo.type = EXPAND_INVALID;
    /* Call a snapshot, so that a callback may (un)register. */
    enum { MAX = 64 };
    aclrtExceptionInfoCallback fns[MAX];
    size_t n = 0;
    pthread_mutex_lock(&exc_lock);
    for (struct exc_cb *e = excs; e && n < MAX; e = e->next)
        fns[n++] = e->fn;
    pthread_mutex_unlock(&exc_lock);
    for (size_t i = 0; i < n; i++)
        fns[i](&info);
}

static void listen_for_faults(void)
{
    if (API_TOOL(fault_handler))
        API_TOOL(fault_handler)(on_device_fault);
}

void api_exception_task(void *stream)
{
    if (API_TOOL(task_fault))
        API_TOOL(task_fault)(stream);
}

/* Add (fn != NULL) or drop the entry that `module` and fn name: the module
 * entry is replaced by a new one, a callback entry exists once. */
static aclError exc_set(const char *func, bool module, aclrtExceptionInfoCallback fn, bool add)
{
    pthread_once(&exc_once, listen_for_faults);
    pthread_mutex_lock(&exc_lock);
    struct exc_cb **p = &excs;
    while (*p && !((*p)->module == module && (module || (*p)->fn == fn)))
        p = &(*p)->next;
    if (!add) {
        if (*p) {
            struct exc_cb *gone = *p;
            *p = gone->next;
            base_free(gone);
        }
    } else if (*p) {
        (*p)->fn = fn;
    } else {
        struct exc_cb *e = base_malloc(sizeof *e);
        if (!e) {
            pthread_mutex_unlock(&exc_lock);
            return api_err_runtime(func, ACL_ERROR_BAD_ALLOC);
        }
        *e = (struct exc_cb){NULL, module, fn};
        *p = e;
    }
    pthread_mutex_unlock(&exc_lock);
    return ACL_SUCCESS;
}

aclError api_impl_aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    static const char fn[] = "aclrtSetExceptionInfoCallback";
    if (API_REAL(aclrtSetExceptionInfoCallback))
        return api_forwarded(fn, API_REAL(aclrtSetExceptionInfoCallback)(callback), false);
    /* NULL unregisters, as the runtime's registry takes it. */
    return exc_set(fn, true, callback, callback != NULL);
}

aclError api_impl_aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
    static const char fn[] = "aclrtExceptionInfoCallbackRegister";
    if (!callback) {
        api_err_null(fn, "callback");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (API_REAL(aclrtExceptionInfoCallbackRegister))
        return api_forwarded(fn, API_REAL(aclrtExceptionInfoCallbackRegister)(callback), false);
    return exc_set(fn, false, callback, true);
}

aclError api_impl_aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
    static const char fn[] = "aclrtExceptionInfoCallbackUnregister";
    if (!callback) {
        api_err_null(fn, "callback");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (API_REAL(aclrtExceptionInfoCallbackUnregister))
        return api_forwarded(fn, API_REAL(aclrtExceptionInfoCallbackUnregister)(callback), false);
    return exc_set(fn, false, callback, false);
}

/* The accessors: a NULL info is reported and reads as BAD_INFO. */
#define INFO_FIELD(call, field)                                                          \
    uint32_t api_impl_##call(const aclrtExceptionInfo *info)                             \
    {                                                                                    \
        if (!info) {                                                                     \
            api_err_null(#call, "info");                                                 \
            return BAD_INFO;                                                             \
        }                                                                                \
        return info->field;                                                              \
    }
INFO_FIELD(aclrtGetTaskIdFromExceptionInfo, taskid)
INFO_FIELD(aclrtGetStreamIdFromExceptionInfo, streamid)
INFO_FIELD(aclrtGetThreadIdFromExceptionInfo, tid)
INFO_FIELD(aclrtGetDeviceIdFromExceptionInfo, deviceid)
INFO_FIELD(aclrtGetErrorCodeFromExceptionInfo, retcode)
#undef INFO_FIELD

static const char *expand_type_name(int type, char *buf, size_t len)
{
    static const char *const names[] = {"EXCEPTION_INVALID",  "EXCEPTION_FFTS_PLUS",
                                        "EXCEPTION_AICORE",   "EXCEPTION_UB",
                                        "EXCEPTION_CCU",      "EXCEPTION_FUSION",
                                        "EXCEPTION_AICPU"};
    if (type >= 0 && type < 7)
        snprintf(buf, len, "%s(%d)", names[type], type);
    else
        snprintf(buf, len, "UNKNOWN(%d)", type);
    return buf;
}

aclError api_impl_aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr,
                                                 uint32_t *devArgsLen)
{
    static const char fn[] = "aclrtGetArgsFromExceptionInfo";
    if (!info) {
        api_err_null(fn, "info");
        return (aclError)BAD_INFO;
    }
    if (!devArgsPtr)
        return api_err_null(fn, "devArgsPtr");
    if (!devArgsLen)
        return api_err_null(fn, "devArgsLen");
    /* A real runtime's kernel exception carries arguments in its own layout. */
    if (API_REAL(aclrtGetArgsFromExceptionInfo))
        return API_REAL(aclrtGetArgsFromExceptionInfo)(info, devArgsPtr, devArgsLen);
    char buf[32];
    api_err_value(fn, expand_type_name(info->expandInfo.type, buf, sizeof buf),
                  "info->expandInfo.type",
                  "RT_EXCEPTION_AICORE, RT_EXCEPTION_AICPU or RT_EXCEPTION_FUSION");
    return (aclError)BAD_INFO;
}

aclError api_impl_aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info,
                                                       aclrtFuncHandle *func)
{
    static const char fn[] = "aclrtGetFuncHandleFromExceptionInfo";
    if (!info) {
        api_err_null(fn, "info");
        return (aclError)BAD_INFO;
    }
    if (!func)
        return api_err_null(fn, "func");
    if (API_REAL(aclrtGetFuncHandleFromExceptionInfo))
        return api_forwarded(fn, API_REAL(aclrtGetFuncHandleFromExceptionInfo)(info, func), false);
    /* No kernel, no function handle: the runtime's answer for such info. */
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: "
               "rtGetFuncHandleFromExceptionInfo execution failed.");
    return ACL_ERROR_RT_PARAM_INVALID;
}

aclError api_impl_aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
    static const char fn[] = "aclrtGetErrorVerbose";
    API_FAULT(ACL_RT_ERROR_VERBOSE, fn);
    if (!errorInfo)
        return api_err_null(fn, "errorInfo");
    if (API_REAL(aclrtGetErrorVerbose))
        return api_forwarded(fn, API_REAL(aclrtGetErrorVerbose)(deviceId, errorInfo), false);
    uint32_t count = 0;
    be_get()->device_count(&count);
    if ((uint32_t)deviceId >= count) {
        api_report(API_MSG_EE1003, "Obtaining detailed error information failed because value "
                   "%u for parameter realDeviceId is invalid. Expected value: [0,%u).",
                   (unsigned)deviceId, count);
        api_report(API_MSG_EH9999, "rtsGetErrorVerbose execution failed, reason=device id error");
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    /* The simulated devices have no memory UCE, link or AI core faults. */
    errorInfo->tryRepair = 0;
    errorInfo->hasDetail = 0;
    errorInfo->errorType = ACL_RT_NO_ERROR;
    errorInfo->detail.aicoreErrType = ACL_RT_AICORE_ERROR_UNKNOWN;
    return ACL_SUCCESS;
}

/* The registry lives as long as the library, as CANN's singletons do. */
__attribute__((destructor)) static void error_unload(void)
{
    while (excs) {
        struct exc_cb *e = excs;
        excs = e->next;
        base_free(e);
    }
}
