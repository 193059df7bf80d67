/*
 * test_devctl.c - device control, default-context state, system options,
 * compute groups and atomics (the DEVCTL and SYSOPT families and the last
 * two PEER calls): CANN's checks, codes and texts layer by layer (the ACL
 * layer's in hicann/runtime src/acl/aclrt_impl/, the runtime's in
 * src/runtime/api/impl/api_error.cc and api_impl.cc, their texts in
 * src/dfx/error_manager/error_code.json), and what each call does.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "testutil.h"

static aclrtStream stream;

static int setup(void **state)
{
    (void)state;
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    setenv("ACLSIM_HBM_BYTES", "67108864", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtCreateStream(&stream) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclrtDestroyStream(stream);
    aclrtResetDeviceForce(0);
    aclrtResetDeviceForce(1);
    (void)aclGetRecentErrMsg();
    return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static void *no_context(void *arg)
{
    aclError (*call)(void) = (aclError(*)(void))(uintptr_t)arg;
    return (void *)(intptr_t)call();
}

/* The answer of a call in a thread with no context. */
static aclError without_context(aclError (*call)(void))
{
    pthread_t t;
    void *rc;
    assert_int_equal(pthread_create(&t, NULL, no_context, (void *)(uintptr_t)call), 0);
    assert_int_equal(pthread_join(t, &rc), 0);
    return (aclError)(intptr_t)rc;
}

/* ---- aclrtSynchronizeDeviceWithTimeout ---- */

static void count_cb(void *user)
{
    (void)user;
}

static uint64_t me(void)
{
    return (uint64_t)pthread_self();
}

static aclError sync_100ms(void)
{
    return aclrtSynchronizeDeviceWithTimeout(100);
}

static void test_synchronize_device_with_timeout(void **state)
{
    (void)state;
    /* device.cpp:168-184 (ACL layer: [-1, INT_MAX]), then api_error.cc:
     * 3477-3484 (the runtime: not 0). */
    assert_int_equal(aclrtSynchronizeDeviceWithTimeout(-2), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EH0007)", "aclrtSynchronizeDeviceWithTimeout failed because "
               "value -2 for parameter timeout is invalid. Expected value: [-1, INT_MAX].");
    assert_int_equal(aclrtSynchronizeDeviceWithTimeout(0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Waiting for all streams on the device to complete "
               "failed because value 0 for parameter timeout is invalid. Expected value: greater "
               "than or equal to -1 and not equal to 0.");
    assert_int_equal(without_context(sync_100ms), ACL_ERROR_RT_CONTEXT_NULL);
    /* Work that ends in time, and work that cannot: a blocking callback no
     * thread processes holds its stream; the limit ends the wait. */
    void *d;
    assert_int_equal(aclrtMalloc(&d, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 1 << 20, 1, 1 << 20, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDeviceWithTimeout(1000), ACL_SUCCESS);
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDeviceWithTimeout(100), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtProcessReport(1000), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDeviceWithTimeout(-1), ACL_SUCCESS);
    assert_int_equal(aclrtUnSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* ---- aclrtSetTsDevice ---- */

static void test_set_ts_device(void **state)
{
    (void)state;
    assert_int_equal(aclrtSetTsDevice(ACL_TS_ID_AICORE), ACL_SUCCESS);
    assert_int_equal(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR), ACL_SUCCESS);
    /* device.cpp:186-200 */
    assert_int_equal(aclrtSetTsDevice(ACL_TS_ID_RESERVED), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtSetTsDevice failed because value "
               "TS_ID_RESERVED(2) for parameter tsId is invalid. Expected value: ACL_TS_ID_AICORE "
               "or ACL_TS_ID_AIVECTOR.");
    assert_int_equal(aclrtSetTsDevice((aclrtTsId)9), ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
}

/* ---- aclrtDeviceSetLimit, aclrtDeviceGetLimit ---- */

static void test_device_limits(void **state)
{
    (void)state;
    size_t v = 0;
    /* The defaults: 32 KiB each (runtime.hpp:793-794, elf.hpp:67-73). */
    assert_int_equal(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v), ACL_SUCCESS);
    assert_int_equal(v, 32768);
    assert_int_equal(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v),
                     ACL_SUCCESS);
    assert_int_equal(v, 32768);
    /* A stack size above 32 KiB is rounded up to 16 KiB; one at or below
     * it changes nothing (runtime.hpp:599-605). */
    assert_int_equal(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 40000), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v), ACL_SUCCESS);
    assert_int_equal(v, 49152);
    assert_int_equal(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 20000), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v), ACL_SUCCESS);
    assert_int_equal(v, 49152);
    /* The printf FIFO: [1 KiB, 64 MiB], rounded up to 8 (runtime.cc:5980-5990). */
    assert_int_equal(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1025),
                     ACL_SUCCESS);
    assert_int_equal(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v),
                     ACL_SUCCESS);
    assert_int_equal(v, 1032);
    assert_int_equal(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1000),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting the size of the printf space for the AI Core "
               "in SIMD scenarios failed because value 1000 for parameter val is invalid. Expected "
               "value: [1024, 67108864].");
    assert_int_equal(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 32768),
                     ACL_SUCCESS);
    /* The SIMT limits: not on these parts (api_impl.cc:3776-3783), 207000
     * with a warning only. */
    assert_int_equal(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, 4096),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_int_equal(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE, &v),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    /* The ACL layer's checks (device.cpp:618-675). */
    assert_int_equal(aclrtDeviceSetLimit((aclrtDeviceLimit)5, 1), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtDeviceSetLimit failed because value UNKNOWN(5) "
               "for parameter limit is invalid. Expected value: [0, 4].");
    assert_int_equal(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, (size_t)UINT32_MAX + 1),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtDeviceSetLimit failed because value 4294967296 "
               "for parameter value is invalid. Expected value: [0, UINT32_MAX].");
    assert_int_equal(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDeviceGetLimit", "value");
    assert_int_equal(aclrtDeviceGetLimit((aclrtDeviceLimit)-1, &v), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtDeviceGetLimit failed because value UNKNOWN(-1) "
               "for parameter limit is invalid. Expected value: [0, 4].");
}

/* ---- Operator execution timeouts ----
 *
 * One configuration for the process, each answer a credit count times the
 * timer's interval (100 us: the documentation's example,
 * docs/zh/api_ref/12_execution_control.md): SetOpExecuteTimeOutV2's actual
 * value (api_impl.cc L6292-6320, task_execute_time.cc L47-57: credit
 * ceil(timeout / interval) capped at 254; 0 is "never", UINT64_MAX, in the
 * milliseconds mode an interval under 100 ms selects, runtime.cc
 * L3061-3064), aclrtGetOpExecuteTimeout's readback in ms rounded up
 * (kernel_utils.cc L368-419: 254 intervals when unset, 0 or more than 254
 * intervals; UINT32_MAX after a "never"), seconds and milliseconds as
 * ConvertTimeoutToUs makes them (runtime.cc L4569-4583), milliseconds capped
 * at 1000 s (api_impl.cc L6212-6215). The readbacks agree with the actual
 * values, as hicann/runtime's event/3_bounded_cross_stream_execution sample
 * checks. */

static aclError interval_call(void)
{
    uint64_t i;
    return aclrtGetOpTimeOutInterval(&i);
}

static void test_op_execute_timeouts(void **state)
{
    (void)state;
    uint64_t interval = 0, actual = 0;
    uint32_t ms = 0;
    assert_int_equal(aclrtGetOpTimeOutInterval(&interval), ACL_SUCCESS);
    assert_int_equal(interval, 100);
    assert_int_equal(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    assert_int_equal(ms, 26); /* none set yet: 254 * 100 us = 25.4 ms */
    /* interval * N, N = ceil(timeout / interval) in [1, 254], as the
     * documentation's example says (aclrtGetOpTimeOutInterval: 50 us takes
     * 100, 30000 takes 25400) */
    assert_int_equal(aclrtSetOpExecuteTimeOutV2(50, &actual), ACL_SUCCESS);
    assert_int_equal(actual, 100);
    assert_int_equal(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    assert_int_equal(ms, 1);
    assert_int_equal(aclrtSetOpExecuteTimeOutV2(30000, &actual), ACL_SUCCESS);
    assert_int_equal(actual, 25400);
    assert_int_equal(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    assert_int_equal(ms, 26);
    assert_int_equal(aclrtSetOpExecuteTimeOutV2(1901, &actual), ACL_SUCCESS);
    assert_int_equal(actual, 2000);
    assert_int_equal(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    assert_int_equal(ms, 2); /* the same setting, in ms */
    assert_int_equal(aclrtSetOpExecuteTimeOutV2(0, &actual), ACL_SUCCESS);
    assert_int_equal(actual, UINT64_MAX); /* never */
    assert_int_equal(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    assert_int_equal(ms, UINT32_MAX);
    /* seconds and milliseconds: the same counting (the bounded sample's
     * check: 1 s reads back as 254 intervals) */
    assert_int_equal(aclrtSetOpExecuteTimeOut(1), ACL_SUCCESS);
    assert_int_equal(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    assert_int_equal(ms, 26);
    assert_int_equal(aclrtSetOpExecuteTimeOut(0), ACL_SUCCESS); /* 0 us: never */
    assert_int_equal(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    assert_int_equal(ms, UINT32_MAX);
    assert_int_equal(aclrtSetOpExecuteTimeOutWithMs(10), ACL_SUCCESS);
    assert_int_equal(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    assert_int_equal(ms, 10);
    assert_int_equal(aclrtSetOpExecuteTimeOutWithMs(UINT32_MAX), ACL_SUCCESS); /* 1000 s */
    assert_int_equal(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    assert_int_equal(ms, 26);
    assert_int_equal(aclrtSetOpExecuteTimeOutV2(100, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetOpExecuteTimeOutV2", "actualTimeout");
    assert_int_equal(aclrtGetOpTimeOutInterval(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetOpTimeOutInterval", "interval");
    assert_int_equal(aclrtGetOpExecuteTimeout(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetOpExecuteTimeout", "timeoutMs");
    assert_int_equal(without_context(interval_call), ACL_ERROR_RT_CONTEXT_NULL);
}

/* ---- Atomic capabilities ---- */

static void test_host_atomic_capabilities(void **state)
{
    (void)state;
    static const char what[] = "Querying details about the atomic operations supported between "
                               "a specified device and the host";
    aclrtAtomicOperation ops[2] = {ACL_RT_ATOMIC_OPERATION_INTEGER_ADD,
                                   ACL_RT_ATOMIC_OPERATION_DMA_ADD};
    uint32_t caps[2] = {7, 7};
    /* A PCIe host link carries no atomics (api_impl.cc:9815-9844). */
    assert_int_equal(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 2, 0), ACL_SUCCESS);
    assert_int_equal(caps[0], 0);
    assert_int_equal(caps[1], 0);
    /* api_error.cc:7834-7862 */
    char text[256];
    assert_int_equal(aclrtDeviceGetHostAtomicCapabilities(NULL, ops, 2, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "%s failed because capabilities cannot be a NULL pointer.", what);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", text);
    assert_int_equal(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 0, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "%s failed because value 0 for parameter count is invalid. "
             "Expected value: not equal to 0.", what);
    expect_msg("Invalid_Argument(EE1003)", text);
    assert_int_equal(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 2, 2),
                     ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "Verifying the device ID validity failed because "
               "value 2 for parameter devId is invalid. Expected value: [0, 2).");
    ops[1] = (aclrtAtomicOperation)45;
    assert_int_equal(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 2, 0),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "Validating atomic operations failed. Value "
               "UNKNOWN(45) for parameter operations[1] is invalid. Reason: the operation must be "
               "in [0, 44].");
}

static void test_p2p_atomic_capabilities(void **state)
{
    (void)state;
    aclrtAtomicOperation ops[3] = {ACL_RT_ATOMIC_OPERATION_DMA_ADD,
                                   ACL_RT_ATOMIC_OPERATION_INTEGER_ADD,
                                   ACL_RT_ATOMIC_OPERATION_DMA_MAX};
    uint32_t caps[3];
    uint64_t topo = 0;
    assert_int_equal(aclrtGetDevicesTopo(0, 1, &topo), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 3, 0, 1), ACL_SUCCESS);
    /* Over an HCCS link, an A2 part does the DMA atomics, signed, 8 to 32
     * bits (config/910_B_93/dev_info_reg.cc:137-146); over PCIe, nothing. */
    uint32_t dma = ACL_RT_ATOMIC_CAPABILITY_SIGNED | ACL_RT_ATOMIC_CAPABILITY_SCALAR8 |
                   ACL_RT_ATOMIC_CAPABILITY_SCALAR16 | ACL_RT_ATOMIC_CAPABILITY_SCALAR32;
    bool hccs = (topo & ACL_RT_DEVS_TOPOLOGY_HCCS) != 0;
    assert_int_equal(caps[0], hccs ? dma : 0);
    assert_int_equal(caps[1], 0);
    assert_int_equal(caps[2], hccs ? dma : 0);
    assert_int_equal(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 3, 1, 1),
                     ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "Querying details about the atomic operations "
               "supported between devices failed because value 1 for parameter srcDeviceId is "
               "invalid. Expected value: srcDeviceId must be different from dstDeviceId.");
    assert_int_equal(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 3, 0, 5),
                     ACL_ERROR_RT_INVALID_DEVICEID);
    (void)aclGetRecentErrMsg();
}

/* Both links, on a server whose parts an HCCS mesh joins. */
static void test_p2p_atomics_over_hccs(void **state)
{
    (void)state;
    assert_int_equal(teardown(NULL), 0);
    setenv("ACLSIM_SERVER", "atlas800t-a2", 1);
    assert_int_equal(setup(NULL), 0);
    uint64_t topo = 0;
    assert_int_equal(aclrtGetDevicesTopo(0, 1, &topo), ACL_SUCCESS);
    assert_true(topo & ACL_RT_DEVS_TOPOLOGY_HCCS);
    aclrtAtomicOperation op = ACL_RT_ATOMIC_OPERATION_DMA_MIN;
    uint32_t caps = 0;
    assert_int_equal(aclrtDeviceGetP2PAtomicCapabilities(&caps, &op, 1, 1, 0), ACL_SUCCESS);
    assert_int_equal(caps, ACL_RT_ATOMIC_CAPABILITY_SIGNED | ACL_RT_ATOMIC_CAPABILITY_SCALAR8 |
                               ACL_RT_ATOMIC_CAPABILITY_SCALAR16 |
                               ACL_RT_ATOMIC_CAPABILITY_SCALAR32);
    assert_int_equal(teardown(NULL), 0);
    unsetenv("ACLSIM_SERVER");
    assert_int_equal(setup(NULL), 0);
}

/* ---- aclrtMemP2PMap ---- */

static void test_mem_p2p_map(void **state)
{
    (void)state;
    void *d;
    int on_stack;
    assert_int_equal(aclrtMalloc(&d, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemP2PMap(d, 1 << 20, 1, 0), ACL_SUCCESS);
    /* memory.cpp:2067-2079 */
    assert_int_equal(aclrtMemP2PMap(NULL, 16, 1, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtMemP2PMap", "devPtr");
    assert_int_equal(aclrtMemP2PMap(d, 0, 1, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtMemP2PMap failed because value 0 for parameter "
               "size is invalid. Expected value: must be greater than 0.");
    assert_int_equal(aclrtMemP2PMap(d, 16, 1, 2), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtMemP2PMap failed. Value 2 for parameter flags is "
               "invalid. Reason: flags is a reserved parameter and must be 0.");
    assert_int_equal(aclrtMemP2PMap(d, 16, 7, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemP2PMap(d, (1 << 20) + 4096, 1, 0), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemP2PMap(&on_stack, 4, 1, 0), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* ---- aclrtSetDeviceTaskAbortCallback, aclrtDeviceTaskAbort ---- */

static char told[8][4];
static int ntold;

static int32_t abort_cb(int32_t dev, aclrtDeviceTaskAbortStage stage, uint32_t timeout, void *args)
{
    assert_int_equal(dev, 0);
    assert_int_equal(timeout, 5000);
    if (ntold < 8)
        snprintf(told[ntold++], sizeof told[0], "%s%c", (const char *)args,
                 stage == ACL_RT_DEVICE_TASK_ABORT_PRE ? '<' : '>');
    return 0;
}

static int32_t failing_cb(int32_t dev, aclrtDeviceTaskAbortStage stage, uint32_t timeout,
                          void *args)
{
    (void)dev, (void)stage, (void)timeout, (void)args;
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

static void test_device_task_abort(void **state)
{
    (void)state;
    /* callback.cpp:235-246, runtime.cc:4286-4320 */
    assert_int_equal(aclrtSetDeviceTaskAbortCallback(NULL, abort_cb, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetDeviceTaskAbortCallback", "regName");
    assert_int_equal(aclrtSetDeviceTaskAbortCallback("b", abort_cb, "b"), ACL_SUCCESS);
    assert_int_equal(aclrtSetDeviceTaskAbortCallback("a", abort_cb, "a"), ACL_SUCCESS);
    assert_int_equal(aclrtSetDeviceTaskAbortCallback("a", abort_cb, "a"),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Registering the aborting callback function of a "
               "task failed. Parameter regName is invalid. Reason: The regName a has been "
               "registered and cannot be registered again.");
    /* The work queued is dropped; the stream stays usable. */
    void *d;
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 4096, 3, 4096, stream), ACL_SUCCESS);
    ntold = 0;
    assert_int_equal(aclrtDeviceTaskAbort(0, 5000), ACL_SUCCESS);
    /* Told in name order (the runtime's std::map), PRE then POST
     * (context_manage.cc:347-420). */
    assert_int_equal(ntold, 4);
    assert_string_equal(told[0], "a<");
    assert_string_equal(told[1], "b<");
    assert_string_equal(told[2], "a>");
    assert_string_equal(told[3], "b>");
    assert_int_equal(aclrtMemsetAsync(d, 4096, 4, 4096, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    unsigned char b = 0;
    assert_int_equal(aclrtMemcpy(&b, 1, d, 1, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(b, 4);
    /* A callback that fails ends the abort with its code. */
    assert_int_equal(aclrtSetDeviceTaskAbortCallback("c", failing_cb, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceTaskAbort(0, 5000), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    /* A NULL callback unregisters; one never registered is no error. */
    assert_int_equal(aclrtSetDeviceTaskAbortCallback("c", NULL, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDeviceTaskAbortCallback("a", NULL, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDeviceTaskAbortCallback("b", NULL, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDeviceTaskAbortCallback("zz", NULL, NULL), ACL_SUCCESS);
    ntold = 0;
    assert_int_equal(aclrtDeviceTaskAbort(0, 0), ACL_SUCCESS);
    assert_int_equal(ntold, 0);
    /* api_error.cc:3487-3512: the timeout's range (36 minutes), the id. */
    assert_int_equal(aclrtDeviceTaskAbort(0, 36u * 60u * 1000u + 1u), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Stopping all tasks running on the current device "
               "failed because value 2160001 for parameter timeout is invalid. Expected value: "
               "[0, 2160000].");
    assert_int_equal(aclrtDeviceTaskAbort(2, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "Stopping all tasks running on the current device "
               "failed because value 2 for parameter realDeviceId is invalid. Expected value: "
               "[0, 2).");
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* ---- aclrtGetPrimaryCtxState ---- */

static void test_primary_ctx_state(void **state)
{
    (void)state;
    int32_t active = -1;
    assert_int_equal(aclrtGetPrimaryCtxState(0, NULL, &active), ACL_SUCCESS);
    assert_int_equal(active, 1);
    assert_int_equal(aclrtGetPrimaryCtxState(1, NULL, &active), ACL_SUCCESS);
    assert_int_equal(active, 0);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtGetPrimaryCtxState(1, NULL, &active), ACL_SUCCESS);
    assert_int_equal(active, 1);
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtGetPrimaryCtxState(1, NULL, &active), ACL_SUCCESS);
    assert_int_equal(active, 0);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    /* context.cpp:218-234, api_error.cc:6681-6706 */
    uint32_t flags = 0;
    assert_int_equal(aclrtGetPrimaryCtxState(0, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetPrimaryCtxState", "active");
    assert_int_equal(aclrtGetPrimaryCtxState(0, &flags, &active), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0012)", "aclrtGetPrimaryCtxState failed. Parameter flags is "
               "invalid. Reason: flags is a reserved parameter and must be nullptr.");
    assert_int_equal(aclrtGetPrimaryCtxState(2, NULL, &active), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "Obtaining the status of the default context failed "
               "because value 2 for parameter realDeviceId is invalid. Expected value: [0, 2).");
}

/* ---- System options ---- */

static void test_system_options(void **state)
{
    (void)state;
    int64_t v = -1;
    /* The process's: 0 until set (api_c.cc:3512-3520). */
    assert_int_equal(aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v), ACL_SUCCESS);
    assert_int_equal(v, 0);
    assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 3), ACL_SUCCESS);
    assert_int_equal(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_SUCCESS);
    assert_int_equal(v, 3);
    assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1), ACL_SUCCESS);
    assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtSetSysParamOpt failed because value 4 for "
               "parameter configVal is invalid. Expected value: [0, 4).");
    assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2),
                     ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    /* The ACL layer's option check (context.cpp:90-148). */
    assert_int_equal(aclrtSetSysParamOpt((aclSysParamOpt)4, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "Setting system parameter values in the current "
               "context failed because value UNKNOWN(4) for parameter opt is invalid. Expected "
               "value: ACL_OPT_DETERMINISTIC(0) or ACL_OPT_ENABLE_DEBUG_KERNEL(1) or "
               "ACL_OPT_STRONG_CONSISTENCY(2) or ACL_OPT_ENABLE_KERNEL_EARLY_START(3).");
    assert_int_equal(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
    assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 0), ACL_SUCCESS);
    /* A context's: 107021 until set (context.cc:3404-3412), its own. */
    assert_int_equal(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v),
                     ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 2), ACL_SUCCESS);
    assert_int_equal(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_SUCCESS);
    assert_int_equal(v, 2);
    aclrtContext mine, primary;
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&mine, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v),
                     ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    assert_int_equal(aclrtDestroyContext(mine), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_SUCCESS);
    /* A context has no early start (context.cpp:117-124); the value's range
     * is the runtime's (api_error.cc:6159-6172). */
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1),
                     ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting system parameter values in the current "
               "context failed because value 2 for parameter configVal is invalid. Expected "
               "value: [0, 2).");
}

/* ---- Compute groups ---- */

static void test_compute_groups_are_not_on_these_parts(void **state)
{
    (void)state;
    /* No simulated part has RT_FEATURE_DEVICE_GROUP: api_impl_standard_soc.cc:
     * 445-480 answers 207000 with EE1005. */
    assert_int_equal(aclrtSetGroup(0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Not_Supported(EE1005)", "The current system or device does not support "
               "specifying the group used for the current operation.");
    uint32_t n = 9;
    assert_int_equal(aclrtGetGroupCount(&n), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Not_Supported(EE1005)", "The current system or device does not support "
               "obtaining the number of available computing power groups.");
    assert_int_equal(aclrtGetGroupCount(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetGroupCount", "count");
    assert_null(aclrtCreateGroupInfo());
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtDestroyGroupInfo(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDestroyGroupInfo", "groupInfo");
    assert_int_equal(aclrtGetAllGroupInfo(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetAllGroupInfo", "groupInfo");
    aclrtGroupInfo *fake = (aclrtGroupInfo *)&n;
    size_t ret = 0;
    assert_int_equal(aclrtGetAllGroupInfo(fake), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtGetGroupInfoDetail(fake, 0, ACL_GROUP_AICORE_INT, &n, sizeof n, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetGroupInfoDetail", "paramRetSize");
    assert_int_equal(aclrtGetGroupInfoDetail(fake, 0, ACL_GROUP_AICORE_INT, &n, sizeof n, &ret),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    (void)aclGetRecentErrMsg();
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_synchronize_device_with_timeout),
        T(test_set_ts_device),
        T(test_device_limits),
        T(test_op_execute_timeouts),
        T(test_host_atomic_capabilities),
        T(test_p2p_atomic_capabilities),
        T(test_p2p_atomics_over_hccs),
        T(test_mem_p2p_map),
        T(test_device_task_abort),
        T(test_primary_ctx_state),
        T(test_system_options),
        T(test_compute_groups_are_not_on_these_parts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
