/*
 * devctl.c - device control (the DEVCTL family of api/abi/calls.def): the
 * device-wide synchronisation with a timeout, the task scheduler a thread
 * uses, the device limits (stack and printf sizes), the operator
 * execution timeouts, atomic capabilities towards the host, and
 * the abort of every task on a device with the callbacks told before and
 * after it.
 *
 * Checks, codes and texts are CANN's, layer by layer: the ACL layer's
 * (hicann/runtime src/acl/aclrt_impl/device.cpp, event.cpp, callback.cpp)
 * first, then the runtime's (src/runtime/api/impl/api_error.cc, api_impl.cc,
 * runtime.cc), whose refusals come back as 107000-class codes with their
 * EE10xx texts. The limits and the abort callbacks are the process's, as
 * the runtime keeps them in its one Runtime instance.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "base/mem.h"
#include "backends/be.h"

/* ---- Synchronising a device with a timeout ---- */

aclError api_impl_aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    static const char fn[] = "aclrtSynchronizeDeviceWithTimeout";
    API_FAULT(ACL_RT_SYNC_STREAM, fn);
    char v[16];
    snprintf(v, sizeof v, "%d", (int)timeout);
    /* device.cpp:168-184: the ACL layer's range, then the runtime's
     * (api_error.cc:3477-3484, DeviceSynchronize), which also refuses 0. */
    if (timeout < -1) {
        api_err_value(fn, v, "timeout", "[-1, INT_MAX]");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (timeout == 0)
        return api_rt_bad_value(fn, "Waiting for all streams on the device to complete", v,
                                "timeout", "greater than or equal to -1 and not equal to 0");
    return api_sync_device(fn, timeout);
}

/* ---- The task scheduler of the thread ---- */

aclError api_impl_aclrtSetTsDevice(aclrtTsId tsId)
{
    static const char fn[] = "aclrtSetTsDevice";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    /* device.cpp:186-200; the runtime (api_c_device.cc:368-380, rtSetTSDevice)
     * has nothing to do on a part with one scheduler, as every simulated
     * one is. */
    if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR) {
        char v[32];
        if (tsId == ACL_TS_ID_RESERVED)
            snprintf(v, sizeof v, "TS_ID_RESERVED(2)");
        else
            snprintf(v, sizeof v, "UNKNOWN(%d)", (int)tsId);
        return api_err_value(fn, v, "tsId", "ACL_TS_ID_AICORE or ACL_TS_ID_AIVECTOR");
    }
    API_FORWARD_RT(fn, aclrtSetTsDevice, (tsId));
    return ACL_SUCCESS;
}

/* ---- Device limits ----
 *
 * device.cpp:600-700 maps the five aclrtDeviceLimit values to the runtime's
 * types; the runtime (api_impl.cc:3772-3830) keeps the SIMD stack size and
 * the SIMD printf FIFO size per core for the whole process and does not
 * support the SIMT ones (207000, with a warning only). The stack size
 * starts at 32 KiB and only a value above it takes, rounded up to 16 KiB
 * (runtime.hpp:599-605); the FIFO size starts at 32 KiB, takes [1 KiB,
 * 64 MiB] rounded up to 8 bytes (runtime.cc:5980-5990, elf.hpp:67-78). */

#define STACK_DEFAULT 32768u
#define STACK_STEP 16384u
#define FIFO_MIN 1024u
#define FIFO_MAX (64u * 1024u * 1024u)
#define FIFO_STEP 8u

static pthread_mutex_t limit_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t stack_size = STACK_DEFAULT, fifo_size = STACK_DEFAULT;

static const char *limit_text(aclrtDeviceLimit limit, char *buf, size_t n)
{
    static const char *const names[] = {
        "RT_DEV_LIMIT_SIMT_STACK_SIZE(0)", "RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE(1)",
        "RT_DEV_LIMIT_SIMD_STACK_SIZE(2)", "RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE(3)",
        "RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE(4)"};
    if ((unsigned)limit < sizeof names / sizeof names[0])
        return names[limit];
    snprintf(buf, n, "UNKNOWN(%d)", (int)limit);
    return buf;
}

static bool simt(aclrtDeviceLimit limit)
{
    return limit == ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE ||
           limit == ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE ||
           limit == ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE;
}

aclError api_impl_aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value)
{
    static const char fn[] = "aclrtDeviceSetLimit";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    char buf[32];
    if ((unsigned)limit > ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE)
        return api_err_value(fn, limit_text(limit, buf, sizeof buf), "limit", "[0, 4]");
    if (value > UINT32_MAX) {
        snprintf(buf, sizeof buf, "%zu", value);
        return api_err_value(fn, buf, "value", "[0, UINT32_MAX]");
    }
    API_FORWARD_RT(fn, aclrtDeviceSetLimit, (limit, value));
    if (simt(limit))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    uint32_t v = (uint32_t)value;
    if (limit == ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE && (v < FIFO_MIN || v > FIFO_MAX)) {
        snprintf(buf, sizeof buf, "%u", v);
        return api_rt_bad_value(fn, "Setting the size of the printf space for the AI Core in SIMD "
                                "scenarios", buf, "val", "[1024, 67108864]");
    }
    pthread_mutex_lock(&limit_lock);
    if (limit == ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE) {
        if (v > STACK_DEFAULT)
            stack_size = (v + STACK_STEP - 1u) / STACK_STEP * STACK_STEP;
    } else {
        fifo_size = (v + FIFO_STEP - 1u) / FIFO_STEP * FIFO_STEP;
    }
    pthread_mutex_unlock(&limit_lock);
    return ACL_SUCCESS;
}

aclError api_impl_aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value)
{
    static const char fn[] = "aclrtDeviceGetLimit";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!value)
        return api_err_null(fn, "value");
    char buf[32];
    if ((unsigned)limit > ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE)
        return api_err_value(fn, limit_text(limit, buf, sizeof buf), "limit", "[0, 4]");
    API_FORWARD_RT(fn, aclrtDeviceGetLimit, (limit, value));
    if (simt(limit))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    pthread_mutex_lock(&limit_lock);
    *value = limit == ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE ? stack_size : fifo_size;
    pthread_mutex_unlock(&limit_lock);
    return ACL_SUCCESS;
}

/* ---- Operator timeouts ----
 *
 * The runtime keeps one configuration for the process (Runtime's
 * timeoutConfig_): the operator execution timeout in microseconds, once a
 * call set it (SetTimeoutConfig, runtime.cc L4585-4663, through
 * ConvertTimeoutToUs L4569-4583: seconds and milliseconds saturate at
 * UINT64_MAX - 1), and the interval of the hardware's timer, read from the
 * driver when the first device opens (InitOpExecTimeout L3031-3068). Every
 * answer is a credit count times that interval:
 *  - aclrtSetOpExecuteTimeOutV2's actual value: credit * interval, credit
 *    ceil(timeout / interval) capped at 254, 254 for 0
 *    (ApiImpl::SetOpExecuteTimeOutV2, api_impl.cc L6292-6320;
 *    TransExeTimeoutCfgToKernelCredit, task_execute_time.cc L47-57), or
 *    UINT64_MAX ("never") for 0 on a device whose interval is under 100 ms;
 *  - aclrtGetOpExecuteTimeout, in ms rounded up: the set timeout rounded
 *    up to the interval, 0 or more than 254 intervals being 254 of them,
 *    254 intervals when none was set (GetOpExecuteMsTimeout,
 *    kernel_utils.cc L368-419), UINT32_MAX after a "never";
 *  - aclrtSetOpExecuteTimeOutWithMs caps its value at 1000 s
 *    (ApiImpl::SetOpExecuteTimeOut L6203-6218, base_info.hpp L177).
 * The interval is the driver's (not public): aclsim takes the
 * documentation's example, 100 us (docs/zh/api_ref/12_execution_control.md,
 * aclrtGetOpTimeOutInterval), which makes the timer's milliseconds mode
 * (interval < 100 ms, runtime.cc L3061-3064) hold. Before a device opened,
 * the runtime counts in the default 2^32 ns credit (runtime.hpp L91,
 * L468-484). */

#define OP_TIMEOUT_INTERVAL_US 100u
#define OP_CREDIT_MAX 254u     /* RT_STARS_MAX_KERNEL_CREDIT, stars_base.hpp L38 */
#define OP_CREDIT_DEFAULT 254u /* 910B's default credit, config/910_B_93/dev_info_reg.cc L132 */
#define OP_TIMEOUT_MS_MAX 1000000u
#define OP_SCALE_BEFORE_INIT_US 4294967.296 /* RT_STARS_TASK_KERNEL_CREDIT_SCALE_US */

static pthread_mutex_t tmo_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tmo_init;  /* a device opened: the interval is the driver's */
static bool tmo_set;   /* isCfgOpExcTaskTimeout */
static uint64_t tmo_us; /* opExcTaskTimeout */

void api_op_timeout_device_opened(void)
{
    pthread_mutex_lock(&tmo_lock);
    tmo_init = true;
    pthread_mutex_unlock(&tmo_lock);
}

/* ConvertTimeoutToUs: t in units of `unit` us, saturated; never UINT64_MAX. */
static uint64_t to_us(uint64_t t, uint64_t unit)
{
    uint64_t us = t > UINT64_MAX / unit ? UINT64_MAX : t * unit;
    return us == UINT64_MAX ? us - 1 : us;
}

static void set_timeout(uint64_t us)
{
    pthread_mutex_lock(&tmo_lock);
    tmo_set = true;
    tmo_us = us;
    pthread_mutex_unlock(&tmo_lock);
}

/* TransExeTimeoutCfgToKernelCredit: the intervals a timeout of us takes. */
static uint64_t credit_of(uint64_t us)
{
    if (us == 0)
        return OP_CREDIT_MAX;
    uint64_t c = us / OP_TIMEOUT_INTERVAL_US + (us % OP_TIMEOUT_INTERVAL_US != 0);
    return c > OP_CREDIT_MAX ? OP_CREDIT_MAX : c;
}

/* api_impl.cc:6275-6320: the calls work in the current context (the
 * runtime sets the device implicitly; aclsim asks for a current one). */
static aclError timeout_device(const char *fn)
{
    struct api_ctx *c;
    return api_current_ctx(fn, &c);
}

aclError api_impl_aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    static const char fn[] = "aclrtGetOpTimeOutInterval";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!interval) /* event.cpp:269-276 */
        return api_err_null(fn, "interval");
    API_FORWARD_RT(fn, aclrtGetOpTimeOutInterval, (interval));
    aclError rc = timeout_device(fn);
    if (rc == ACL_SUCCESS)
        *interval = OP_TIMEOUT_INTERVAL_US;
    return rc;
}

aclError api_impl_aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
    static const char fn[] = "aclrtSetOpExecuteTimeOutV2";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!actualTimeout) /* event.cpp:257-267 */
        return api_err_null(fn, "actualTimeout");
    API_FORWARD_RT(fn, aclrtSetOpExecuteTimeOutV2, (timeout, actualTimeout));
    aclError rc = timeout_device(fn);
    if (rc != ACL_SUCCESS)
        return rc;
    set_timeout(timeout); /* microseconds, as given */
    *actualTimeout = timeout == 0 ? UINT64_MAX : credit_of(timeout) * OP_TIMEOUT_INTERVAL_US;
    return ACL_SUCCESS;
}

aclError api_impl_aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    static const char fn[] = "aclrtSetOpExecuteTimeOut";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    API_FORWARD_RT(fn, aclrtSetOpExecuteTimeOut, (timeout));
    set_timeout(to_us(timeout, 1000000u)); /* seconds */
    return ACL_SUCCESS;
}

aclError api_impl_aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
    static const char fn[] = "aclrtSetOpExecuteTimeOutWithMs";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    API_FORWARD_RT(fn, aclrtSetOpExecuteTimeOutWithMs, (timeout));
    set_timeout(to_us(timeout >= OP_TIMEOUT_MS_MAX ? OP_TIMEOUT_MS_MAX : timeout, 1000u));
    return ACL_SUCCESS;
}

aclError api_impl_aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
    static const char fn[] = "aclrtGetOpExecuteTimeout";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!timeoutMs) /* device.cpp L585 */
        return api_err_null(fn, "timeoutMs");
    API_FORWARD_RT(fn, aclrtGetOpExecuteTimeout, (timeoutMs));
    pthread_mutex_lock(&tmo_lock);
    bool init = tmo_init, set = tmo_set;
    uint64_t t = tmo_us;
    pthread_mutex_unlock(&tmo_lock);
    if (!init) { /* the default credit's scale, 2^32 ns */
        double scale = OP_SCALE_BEFORE_INIT_US, most = scale * OP_CREDIT_MAX, us;
        if (!set)
            us = scale * OP_CREDIT_DEFAULT;
        else if (t == 0 || (double)t > most)
            us = most;
        else
            us = scale * (double)(uint64_t)(((double)t + scale - 1) / scale);
        *timeoutMs = (uint32_t)ceil(us / 1000.0);
        return ACL_SUCCESS;
    }
    uint64_t us = !set ? OP_TIMEOUT_INTERVAL_US * OP_CREDIT_DEFAULT
                       : OP_TIMEOUT_INTERVAL_US * credit_of(t);
    *timeoutMs = set && t == 0 ? UINT32_MAX : (uint32_t)((us + 999u) / 1000u);
    return ACL_SUCCESS;
}

/* ---- Atomic capabilities towards the host ---- */

/* The runtime's checks of an atomic-operation query (api_error.cc:7820-
 * 7863): the outputs, the count, each operation's range. */
aclError api_atomic_query_check(const char *what, uint32_t *caps, const aclrtAtomicOperation *ops,
                                uint32_t count)
{
    if (!caps)
        return api_rt_null(what, "capabilities");
    if (!ops)
        return api_rt_null(what, "operations");
    if (count == 0)
        return api_rt_bad_value("", what, "0", "count", "not equal to 0");
    for (uint32_t i = 0; i < count; i++)
        caps[i] = 0;
    return ACL_SUCCESS;
}

aclError api_atomic_ops_check(const aclrtAtomicOperation *ops, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if ((int)ops[i] < ACL_RT_ATOMIC_OPERATION_INTEGER_ADD ||
            (int)ops[i] > ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH) {
            api_report(API_MSG_EE1011, "Validating atomic operations failed. Value UNKNOWN(%d) "
                       "for parameter operations[%u] is invalid. Reason: the operation must be "
                       "in [%d, %d].", (int)ops[i], i, ACL_RT_ATOMIC_OPERATION_INTEGER_ADD,
                       ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH);
            return ACL_ERROR_RT_PARAM_INVALID;
        }
    return ACL_SUCCESS;
}

/* A device id the runtime checks against the count (CheckDeviceIdIsValid):
 * 107001 with its EE1003 text. */
aclError api_device_id_check(const char *what, const char *param, int32_t dev)
{
    uint32_t n = 0;
    aclError rc = be_get()->device_count(&n);
    if (rc != ACL_SUCCESS)
        return rc;
    if (dev < 0 || (uint32_t)dev >= n) {
        char v[16], range[32];
        snprintf(v, sizeof v, "%d", (int)dev);
        snprintf(range, sizeof range, "[0, %u)", n);
        api_rt_bad_value("", what, v, param, range);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclrtDeviceGetHostAtomicCapabilities(uint32_t *capabilities,
                                                       const aclrtAtomicOperation *operations,
                                                       const uint32_t count, int32_t deviceId)
{
    static const char fn[] = "aclrtDeviceGetHostAtomicCapabilities";
    static const char what[] = "Querying details about the atomic operations supported between "
                               "a specified device and the host";
    API_FAULT(ACL_RT_DEVICE_INFO, fn);
    API_FORWARD_RT(fn, aclrtDeviceGetHostAtomicCapabilities,
                   (capabilities, operations, count, deviceId));
    aclError rc = api_atomic_query_check(what, capabilities, operations, count);
    if (rc == ACL_SUCCESS)
        rc = api_device_id_check("Verifying the device ID validity", "devId", deviceId);
    if (rc == ACL_SUCCESS)
        rc = api_atomic_ops_check(operations, count);
    /* Atomics towards the host need a UB link (api_impl.cc:9815-9844);
     * the simulated parts reach the host over PCIe, and their chip tables
     * list no host atomics (config/910_B_93/dev_info_reg.cc:243): every
     * capability stays 0. */
    return rc;
}

/* ---- Aborting every task of a device ---- */

/* The abort callbacks by name (runtime.cc:4286-4320: a name registered
 * twice is refused, a NULL callback unregisters), told in name order, as
 * the runtime's std::map holds them (runtime.cc:4329-4370). */
struct abort_cb {
    struct abort_cb *next;
    char *name;
    aclrtDeviceTaskAbortCallback fn;
    void *args;
};

static pthread_mutex_t abort_lock = PTHREAD_MUTEX_INITIALIZER;
static struct abort_cb *abort_cbs; /* sorted by name */

__attribute__((destructor)) static void abort_cbs_unload(void)
{
    while (abort_cbs) {
        struct abort_cb *e = abort_cbs;
        abort_cbs = e->next;
        base_free(e->name);
        base_free(e);
    }
}

aclError api_impl_aclrtSetDeviceTaskAbortCallback(const char *regName,
                                                  aclrtDeviceTaskAbortCallback callback,
                                                  void *args)
{
    static const char fn[] = "aclrtSetDeviceTaskAbortCallback";
    static const char what[] = "Registering the aborting callback function of a task";
    API_FAULT(ACL_RT_STREAM_ATTR, fn);
    if (!regName) /* callback.cpp:235-246 */
        return api_err_null(fn, "regName");
    API_FORWARD_RT(fn, aclrtSetDeviceTaskAbortCallback, (regName, callback, args));
    pthread_mutex_lock(&abort_lock);
    struct abort_cb **p = &abort_cbs;
    while (*p && strcmp((*p)->name, regName) < 0)
        p = &(*p)->next;
    bool found = *p && strcmp((*p)->name, regName) == 0;
    if (!callback) {
        if (found) {
            struct abort_cb *gone = *p;
            *p = gone->next;
            base_free(gone->name);
            base_free(gone);
        }
        pthread_mutex_unlock(&abort_lock);
        return ACL_SUCCESS;
    }
    if (found) {
        pthread_mutex_unlock(&abort_lock);
        api_report(API_MSG_EE1017, "%s failed. Parameter regName is invalid. Reason: The regName "
                   "%s has been registered and cannot be registered again.", what, regName);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct abort_cb *e = base_malloc(sizeof *e);
    char *name = base_strdup(regName);
    if (!e || !name) {
        pthread_mutex_unlock(&abort_lock);
        base_free(e);
        base_free(name);
        return api_err_runtime(fn, ACL_ERROR_BAD_ALLOC);
    }
    *e = (struct abort_cb){*p, name, callback, args};
    *p = e;
    pthread_mutex_unlock(&abort_lock);
    return ACL_SUCCESS;
}

/* Tell every abort callback of `stage` (with the lock dropped: a callback
 * may register another); the first that fails ends the abort with its
 * code. */
static aclError tell_abort(int32_t dev, aclrtDeviceTaskAbortStage stage, uint32_t timeout)
{
    pthread_mutex_lock(&abort_lock);
    size_t n = 0;
    for (struct abort_cb *e = abort_cbs; e; e = e->next)
        n++;
    struct abort_cb *copy = n ? base_malloc(n * sizeof *copy) : NULL;
    if (n && !copy) {
        pthread_mutex_unlock(&abort_lock);
        return ACL_ERROR_BAD_ALLOC;
    }
    size_t i = 0;
    for (struct abort_cb *e = abort_cbs; e; e = e->next)
        copy[i++] = *e;
    pthread_mutex_unlock(&abort_lock);
    aclError rc = ACL_SUCCESS;
    for (i = 0; i < n && rc == ACL_SUCCESS; i++)
        rc = (aclError)copy[i].fn(dev, stage, timeout, copy[i].args);
    base_free(copy);
    return rc;
}

struct handles {
    void **h;
    size_t n, cap;
};

static void collect(void *handle, enum api_obj_kind kind, struct api_ctx *owner, void *user)
{
    (void)kind, (void)owner;
    struct handles *hs = user;
    if (hs->n < hs->cap)
        hs->h[hs->n] = handle;
    hs->n++;
}

/* Drop the queued work of every stream of dev (the streams stay, as the
 * runtime's DeviceClean leaves them usable: context_manage.cc:311-346). */
static aclError abort_streams(int32_t dev)
{
    struct handles hs = {NULL, 0, 0};
    for (;;) {
        hs.n = 0;
        api_obj_each(API_OBJ_STREAM, dev, NULL, collect, &hs);
        api_obj_each(API_OBJ_DSTREAM, dev, NULL, collect, &hs);
        if (hs.n <= hs.cap)
            break;
        base_free(hs.h);
        hs.cap = hs.n + 16;
        hs.h = base_malloc(hs.cap * sizeof *hs.h);
        if (!hs.h)
            return ACL_ERROR_BAD_ALLOC;
    }
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < hs.n && rc == ACL_SUCCESS; i++) {
        /* A reference keeps the stream alive; one destroyed meanwhile has
         * nothing left to abort. */
        struct api_obj *o = api_obj_get(hs.h[i], API_OBJ_STREAM);
        if (!o)
            o = api_obj_get(hs.h[i], API_OBJ_DSTREAM);
        if (!o)
            continue;
        rc = be_get()->stream_abort(hs.h[i]);
        api_obj_put(o);
    }
    base_free(hs.h);
    return rc;
}

#define TASK_ABORT_TIMEOUT_MAX (36u * 60u * 1000u) /* api_error.cc:36 */

aclError api_impl_aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout)
{
    static const char fn[] = "aclrtDeviceTaskAbort";
    static const char what[] = "Stopping all tasks running on the current device";
    API_FAULT(ACL_RT_STREAM_ABORT, fn);
    API_FORWARD_RT(fn, aclrtDeviceTaskAbort, (deviceId, timeout));
    /* api_error.cc:3487-3512: the timeout's range, then the device id. */
    if (timeout > TASK_ABORT_TIMEOUT_MAX) {
        char v[16];
        snprintf(v, sizeof v, "%u", timeout);
        return api_rt_bad_value(fn, what, v, "timeout", "[0, 2160000]");
    }
    aclError rc = api_device_id_check(what, "realDeviceId", deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    /* context_manage.cc:347-420: the PRE callbacks, the tasks killed, the
     * POST callbacks, the device cleaned. */
    rc = tell_abort(deviceId, ACL_RT_DEVICE_TASK_ABORT_PRE, timeout);
    if (rc == ACL_SUCCESS)
        rc = abort_streams(deviceId);
    if (rc == ACL_SUCCESS)
        rc = tell_abort(deviceId, ACL_RT_DEVICE_TASK_ABORT_POST, timeout);
    return api_err_runtime(fn, rc);
}
