/*
 * test_errors.c - errors and exception info: the thread's last error
 * (aclrtGetLastError, aclrtPeekAtLastError), device exceptions fired by
 * simulated faults and the accessors of their info, aclrtGetErrorVerbose,
 * and the device and stream state callbacks, with CANN's codes and texts
 * (src/acl/aclrt_impl/context.cpp, callback.cpp, event.cpp; the runtime's
 * api_c.cc, api_error.cc, task_fail_callback_data_manager.cc,
 * device_state_callback_manager.cc, stream_state_callback_manager.cc).
 */
#include <pthread.h>
#include <stdlib.h>
#include "testutil.h"
#include "aclsim/aclsim.h"
#include "aclsim/fault.h"

/* aclrtSetExceptionInfoCallback is deprecated, and still CANN's. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static aclrtStream stream;

static int up(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&stream), ACL_SUCCESS);
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    return 0;
}

static int down(void **state)
{
    (void)state;
    aclsim_fault_disable_all();
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtDestroyStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    return 0;
}

/* A runtime-layer failure: destMax smaller than count (107000). */
static aclError runtime_failure(void)
{
    char a[8], b[8] = {0};
    aclError rc = aclrtMemcpy(a, 4, b, 8, ACL_MEMCPY_HOST_TO_HOST);
    (void)aclGetRecentErrMsg();
    return rc;
}

/* ---- The last error ---- */

static void test_last_error_other_level_invalid_param(void **state)
{
    (void)state;
    assert_int_equal(aclrtGetLastError((aclrtLastErrLevel)1), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtGetLastError failed because value 1 for parameter "
               "level is invalid. Expected value: ACL_RT_THREAD_LEVEL.");
    assert_int_equal(aclrtPeekAtLastError((aclrtLastErrLevel)-1), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtPeekAtLastError failed because value -1 for "
               "parameter level is invalid. Expected value: ACL_RT_THREAD_LEVEL.");
    /* Rejected by the ACL layer: not a runtime error, nothing kept. */
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

static void test_last_error_peek_keeps_get_clears(void **state)
{
    (void)state;
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    assert_int_equal(runtime_failure(), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    expect_no_msg();
}

static void test_last_error_success_keeps_it_later_failure_replaces_it(void **state)
{
    (void)state;
    void *p;
    assert_int_equal(runtime_failure(), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    /* A free of an address never allocated: the runtime's 207002. */
    assert_int_equal(aclrtFree((char *)p + 1), ACL_ERROR_RT_MEMORY_FREE);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_MEMORY_FREE);
}

static void test_last_error_acl_layer_checks_not_kept(void **state)
{
    (void)state;
    assert_int_equal(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

static void test_last_error_of_a_call_not_simulated_is_kept(void **state)
{
    (void)state;
    aclrtErrorInfo info;
    memset(&info, 0, sizeof info);
    assert_int_equal(aclrtRepairError(0, &info), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_msg("Inner_Error(EH9999)", "aclrtRepairError is not simulated by aclsim: the simulated "
               "devices have no hardware faults to repair.");
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}

static void *fail_in_thread(void *arg)
{
    (void)arg;
    aclError before = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
    (void)runtime_failure();
    aclError after = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    return (void *)(intptr_t)(before == ACL_SUCCESS && after == ACL_ERROR_RT_PARAM_INVALID);
}

static void test_last_error_is_per_thread(void **state)
{
    (void)state;
    pthread_t t;
    void *ok;
    assert_int_equal(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
    assert_int_equal(pthread_join(t, &ok), 0);
    assert_true(ok != NULL);
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

/* ---- Device exceptions ---- */

static struct {
    int calls;
    pthread_t in;
    uint32_t task, stream, thread, device, code;
    aclError args_rc, func_rc;
    char args_msg[1024], func_msg[1024];
} seen;

static void on_exception(aclrtExceptionInfo *info)
{
    seen.calls++;
    seen.in = pthread_self();
    seen.task = aclrtGetTaskIdFromExceptionInfo(info);
    seen.stream = aclrtGetStreamIdFromExceptionInfo(info);
    seen.thread = aclrtGetThreadIdFromExceptionInfo(info);
    seen.device = aclrtGetDeviceIdFromExceptionInfo(info);
    seen.code = aclrtGetErrorCodeFromExceptionInfo(info);
    void *args = NULL;
    uint32_t len = 0;
    aclrtFuncHandle f = NULL;
    seen.args_rc = aclrtGetArgsFromExceptionInfo(info, &args, &len);
    const char *m = aclGetRecentErrMsg();
    snprintf(seen.args_msg, sizeof seen.args_msg, "%s", m ? m : "");
    seen.func_rc = aclrtGetFuncHandleFromExceptionInfo(info, &f);
    m = aclGetRecentErrMsg();
    snprintf(seen.func_msg, sizeof seen.func_msg, "%s", m ? m : "");
}

static int second_calls;
static void on_exception_too(aclrtExceptionInfo *info)
{
    (void)info;
    second_calls++;
}

static uint32_t me32(void)
{
    return (uint32_t)(uint64_t)pthread_self();
}

static void test_exception_register_null_is_param_invalid(void **state)
{
    (void)state;
    assert_int_equal(aclrtExceptionInfoCallbackRegister(NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_null_msg("aclrtExceptionInfoCallbackRegister", "callback");
    assert_int_equal(aclrtExceptionInfoCallbackUnregister(NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_null_msg("aclrtExceptionInfoCallbackUnregister", "callback");
    /* Unregistering a callback never registered succeeds. */
    assert_int_equal(aclrtExceptionInfoCallbackUnregister(on_exception), ACL_SUCCESS);
}

static void test_exception_info_accessors_null_info(void **state)
{
    (void)state;
    void *args;
    uint32_t len;
    aclrtFuncHandle f;
    assert_int_equal(aclrtGetTaskIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    expect_null_msg("aclrtGetTaskIdFromExceptionInfo", "info");
    assert_int_equal(aclrtGetStreamIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    expect_null_msg("aclrtGetStreamIdFromExceptionInfo", "info");
    assert_int_equal(aclrtGetThreadIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    expect_null_msg("aclrtGetThreadIdFromExceptionInfo", "info");
    assert_int_equal(aclrtGetDeviceIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    expect_null_msg("aclrtGetDeviceIdFromExceptionInfo", "info");
    assert_int_equal(aclrtGetErrorCodeFromExceptionInfo(NULL), 0xFFFFFFFFu);
    expect_null_msg("aclrtGetErrorCodeFromExceptionInfo", "info");
    assert_int_equal(aclrtGetArgsFromExceptionInfo(NULL, &args, &len), (aclError)0xFFFFFFFFu);
    expect_null_msg("aclrtGetArgsFromExceptionInfo", "info");
    assert_int_equal(aclrtGetFuncHandleFromExceptionInfo(NULL, &f), (aclError)0xFFFFFFFFu);
    expect_null_msg("aclrtGetFuncHandleFromExceptionInfo", "info");
}

/* Fail one async copy on s with the copy engine's fault point. */
static aclError engine_fails_async_copy(aclrtStream s)
{
    void *d;
    char h[256] = {0};
    assert_int_equal(aclrtMalloc(&d, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclsim_fault_enable("sim/copy/engine"), 0);
    aclError rc = aclrtMemcpyAsync(d, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE, s);
    aclsim_fault_disable_all();
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    return rc;
}

static void test_copy_engine_fault_raises_sys_dma_exception(void **state)
{
    (void)state;
    void *d;
    memset(&seen, 0, sizeof seen);
    assert_int_equal(aclrtExceptionInfoCallbackRegister(on_exception), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int i = 0; i < 3; i++) /* tasks 0, 1, 2 */
        assert_int_equal(aclrtMemsetAsync(d, 256, i, 256, stream), ACL_SUCCESS);
    assert_int_equal(engine_fails_async_copy(stream), ACL_ERROR_RT_COPY_DATA);
    assert_int_equal(seen.calls, 1); /* before the call returned */
    assert_true(pthread_equal(seen.in, pthread_self()));
    assert_int_equal(seen.task, 3);
    assert_int_equal(seen.thread, me32());
    assert_int_equal(seen.device, 0);
    assert_int_equal(seen.code, ACL_ERROR_RT_SYS_DMA);
    /* No kernel ran: no arguments, no function handle. */
    assert_int_equal(seen.args_rc, (aclError)0xFFFFFFFFu);
    assert_non_null(strstr(seen.args_msg, "Invalid_Argument(EH0007): aclrtGetArgsFromExceptionInfo "
                           "failed because value EXCEPTION_INVALID(0) for parameter "
                           "info->expandInfo.type is invalid. Expected value: RT_EXCEPTION_AICORE, "
                           "RT_EXCEPTION_AICPU or RT_EXCEPTION_FUSION."));
    assert_int_equal(seen.func_rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_non_null(strstr(seen.func_msg, "Invalid_Argument(EE1001): The argument is invalid. Reason: "
                           "rtGetFuncHandleFromExceptionInfo execution failed."));
    /* Stream ids count per device: a stream made next has the next id. */
    aclrtStream s2;
    uint32_t first = seen.stream;
    assert_int_equal(aclrtCreateStream(&s2), ACL_SUCCESS);
    assert_int_equal(engine_fails_async_copy(s2), ACL_ERROR_RT_COPY_DATA);
    assert_int_equal(seen.calls, 2);
    assert_int_equal(seen.stream, first + 1);
    assert_int_equal(seen.task, 0);
    assert_int_equal(aclrtDestroyStream(s2), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtExceptionInfoCallbackUnregister(on_exception), ACL_SUCCESS);
}

static void test_synchronous_copy_failure_raises_no_exception(void **state)
{
    (void)state;
    void *d;
    char h[64] = {0};
    memset(&seen, 0, sizeof seen);
    assert_int_equal(aclrtExceptionInfoCallbackRegister(on_exception), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclsim_fault_enable("sim/copy/engine"), 0);
    assert_int_equal(aclrtMemcpy(d, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_COPY_DATA);
    aclsim_fault_disable_all();
    (void)aclGetRecentErrMsg();
    assert_int_equal(seen.calls, 0);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtExceptionInfoCallbackUnregister(on_exception), ACL_SUCCESS);
}

static void test_async_copy_into_freed_memory_raises_memory_exception(void **state)
{
    (void)state;
    void *d;
    char h[64] = {0};
    memset(&seen, 0, sizeof seen);
    assert_int_equal(aclrtExceptionInfoCallbackRegister(on_exception), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, sizeof h, 1, sizeof h, stream), ACL_SUCCESS); /* task 0 */
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemcpyAsync(d, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE, stream),
                     ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    (void)aclGetRecentErrMsg();
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.code, ACL_ERROR_RT_DEVICE_MEM_ERROR);
    assert_int_equal(seen.task, 1);
    assert_int_equal(seen.thread, me32());
    /* A wrong direction is the caller's mistake, not a device fault. */
    char h2[64];
    assert_int_equal(aclrtMemcpyAsync(h2, sizeof h2, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE, stream),
                     ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(seen.calls, 1);
    assert_int_equal(aclrtExceptionInfoCallbackUnregister(on_exception), ACL_SUCCESS);
}

static void test_stream_and_event_hang_raise_task_timeout(void **state)
{
    (void)state;
    void *d;
    aclrtEvent e;
    memset(&seen, 0, sizeof seen);
    assert_int_equal(aclrtExceptionInfoCallbackRegister(on_exception), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 64, 1, 64, stream), ACL_SUCCESS); /* task 0 */
    assert_int_equal(aclrtMemsetAsync(d, 64, 2, 64, stream), ACL_SUCCESS); /* task 1 */
    assert_int_equal(aclsim_fault_enable("sim/stream/hang"), 0);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    aclsim_fault_disable_all();
    (void)aclGetRecentErrMsg();
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.code, ACL_ERROR_RT_TASK_TIMEOUT);
    assert_int_equal(seen.task, 1); /* the stream's last task never ends */
    uint32_t sid = seen.stream;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, stream), ACL_SUCCESS); /* task 2 */
    assert_int_equal(aclrtMemsetAsync(d, 64, 3, 64, stream), ACL_SUCCESS); /* task 3 */
    assert_int_equal(aclsim_fault_enable("sim/event/hang"), 0);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    aclsim_fault_disable_all();
    (void)aclGetRecentErrMsg();
    assert_int_equal(seen.calls, 2);
    assert_int_equal(seen.code, ACL_ERROR_RT_TASK_TIMEOUT);
    assert_int_equal(seen.stream, sid);
    assert_int_equal(seen.task, 2); /* the record */
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtExceptionInfoCallbackUnregister(on_exception), ACL_SUCCESS);
}

static void test_exception_callbacks_register_replace_and_unregister(void **state)
{
    (void)state;
    memset(&seen, 0, sizeof seen);
    second_calls = 0;
    /* One module callback (the last set wins), plus registered ones, each once. */
    assert_int_equal(aclrtSetExceptionInfoCallback(on_exception_too), ACL_SUCCESS);
    assert_int_equal(aclrtSetExceptionInfoCallback(on_exception), ACL_SUCCESS);
    assert_int_equal(aclrtExceptionInfoCallbackRegister(on_exception_too), ACL_SUCCESS);
    assert_int_equal(aclrtExceptionInfoCallbackRegister(on_exception_too), ACL_SUCCESS);
    assert_int_equal(engine_fails_async_copy(stream), ACL_ERROR_RT_COPY_DATA);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(second_calls, 1);
    /* NULL unregisters the module callback; Unregister the other. */
    assert_int_equal(aclrtSetExceptionInfoCallback(NULL), ACL_SUCCESS);
    assert_int_equal(engine_fails_async_copy(stream), ACL_ERROR_RT_COPY_DATA);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(second_calls, 2);
    assert_int_equal(aclrtExceptionInfoCallbackUnregister(on_exception_too), ACL_SUCCESS);
    assert_int_equal(engine_fails_async_copy(stream), ACL_ERROR_RT_COPY_DATA);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(second_calls, 2);
}

/* ---- aclrtGetErrorVerbose ---- */

static void test_get_error_verbose_checks_and_healthy_device(void **state)
{
    (void)state;
    aclrtErrorInfo info;
    assert_int_equal(aclrtGetErrorVerbose(0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetErrorVerbose", "errorInfo");
    assert_int_equal(aclrtGetErrorVerbose(1, &info), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "Obtaining detailed error information failed because "
               "value 1 for parameter realDeviceId is invalid. Expected value: [0,1).");
    assert_int_equal(aclrtGetErrorVerbose(-1, &info), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "Obtaining detailed error information failed because "
               "value 4294967295 for parameter realDeviceId is invalid. Expected value: [0,1).");
    memset(&info, 0x7f, sizeof info);
    assert_int_equal(aclrtGetErrorVerbose(0, &info), ACL_SUCCESS);
    assert_int_equal(info.tryRepair, 0);
    assert_int_equal(info.hasDetail, 0);
    assert_int_equal(info.errorType, ACL_RT_NO_ERROR);
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
}

/* ---- State callbacks ---- */

#define LOG_MAX 32
static struct {
    int n;
    char what[LOG_MAX];   /* 'd' device, 's' stream */
    int state[LOG_MAX];
    int32_t dev[LOG_MAX];
    void *stream[LOG_MAX];
    void *args[LOG_MAX];
} lg;

static void on_device(int32_t deviceId, aclrtDeviceState st, void *args)
{
    if (lg.n < LOG_MAX) {
        lg.what[lg.n] = 'd';
        lg.state[lg.n] = (int)st;
        lg.dev[lg.n] = deviceId;
        lg.args[lg.n++] = args;
    }
}

static void on_stream(aclrtStream stm, aclrtStreamState st, void *args)
{
    if (lg.n < LOG_MAX) {
        lg.what[lg.n] = 's';
        lg.state[lg.n] = (int)st;
        lg.stream[lg.n] = stm;
        lg.args[lg.n++] = args;
    }
}

static void test_state_callback_registration_checks(void **state)
{
    (void)state;
    assert_int_equal(aclrtRegDeviceStateCallback(NULL, on_device, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtRegDeviceStateCallback", "regName");
    assert_int_equal(aclrtRegStreamStateCallback(NULL, on_stream, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtRegStreamStateCallback", "regName");
    assert_int_equal(aclrtRegDeviceStateCallback("dev", on_device, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtRegDeviceStateCallback("dev", on_device, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "Registering the device status callback function failed. "
               "Value dev for parameter regName is invalid. Reason: The callback function dev has "
               "been registered and cannot be registered again.");
    assert_int_equal(aclrtRegStreamStateCallback("stm", on_stream, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtRegStreamStateCallback("stm", on_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "Registering the stream status callback function failed. "
               "Value stm for parameter regName is invalid. Reason: The callback name has already "
               "been registered.");
    /* A NULL callback unregisters the name (an unknown name too). */
    assert_int_equal(aclrtRegDeviceStateCallback("dev", NULL, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtRegDeviceStateCallback("nobody", NULL, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtRegStreamStateCallback("stm", NULL, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtRegDeviceStateCallback("dev", on_device, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtRegDeviceStateCallback("dev", NULL, NULL), ACL_SUCCESS);
}

static void expect_log(int i, char what, int st)
{
    assert_true(i < lg.n);
    assert_int_equal(lg.what[i], what);
    assert_int_equal(lg.state[i], st);
}

/* Outside the fixture: the device's whole life. */
static void test_state_callbacks_follow_device_and_stream_lives(void **state)
{
    (void)state;
    int a = 1, b = 2;
    memset(&lg, 0, sizeof lg);
    assert_int_equal(aclrtRegDeviceStateCallback("b-second", on_device, &b), ACL_SUCCESS);
    assert_int_equal(aclrtRegDeviceStateCallback("a-first", on_device, &a), ACL_SUCCESS);
    assert_int_equal(aclrtRegStreamStateCallback("s", on_stream, &a), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(lg.n, 0);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    /* SET_PRE (each callback, in name order), the default stream, SET_POST. */
    assert_int_equal(lg.n, 5);
    expect_log(0, 'd', ACL_RT_DEVICE_STATE_SET_PRE);
    assert_ptr_equal(lg.args[0], &a);
    assert_int_equal(lg.dev[0], 0);
    expect_log(1, 'd', ACL_RT_DEVICE_STATE_SET_PRE);
    assert_ptr_equal(lg.args[1], &b);
    expect_log(2, 's', ACL_RT_STREAM_STATE_CREATE_POST);
    void *deflt = lg.stream[2];
    assert_non_null(deflt);
    expect_log(3, 'd', ACL_RT_DEVICE_STATE_SET_POST);
    expect_log(4, 'd', ACL_RT_DEVICE_STATE_SET_POST);
    /* Every aclrtSetDevice is a SET_POST; the device opens once. */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(lg.n, 7);
    expect_log(5, 'd', ACL_RT_DEVICE_STATE_SET_POST);
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(lg.n, 8);
    expect_log(7, 's', ACL_RT_STREAM_STATE_CREATE_POST);
    assert_ptr_equal(lg.stream[7], s);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(lg.n, 9);
    expect_log(8, 's', ACL_RT_STREAM_STATE_DESTROY_PRE);
    assert_ptr_equal(lg.stream[8], s);
    /* The first reset only drops a reference. */
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(lg.n, 9);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(lg.n, 14);
    expect_log(9, 's', ACL_RT_STREAM_STATE_DESTROY_PRE);
    assert_ptr_equal(lg.stream[9], deflt);
    expect_log(10, 'd', ACL_RT_DEVICE_STATE_RESET_PRE);
    expect_log(11, 'd', ACL_RT_DEVICE_STATE_RESET_PRE);
    expect_log(12, 'd', ACL_RT_DEVICE_STATE_RESET_POST);
    expect_log(13, 'd', ACL_RT_DEVICE_STATE_RESET_POST);
    /* aclFinalize closes a device left open without telling anyone. */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    int before = lg.n;
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(lg.n, before);
    assert_int_equal(aclrtRegDeviceStateCallback("a-first", NULL, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtRegDeviceStateCallback("b-second", NULL, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtRegStreamStateCallback("s", NULL, NULL), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, up, down)
    const struct CMUnitTest tests[] = {
        T(test_last_error_other_level_invalid_param),
        T(test_last_error_peek_keeps_get_clears),
        T(test_last_error_success_keeps_it_later_failure_replaces_it),
        T(test_last_error_acl_layer_checks_not_kept),
        T(test_last_error_of_a_call_not_simulated_is_kept),
        T(test_last_error_is_per_thread),
        T(test_exception_register_null_is_param_invalid),
        T(test_exception_info_accessors_null_info),
        T(test_copy_engine_fault_raises_sys_dma_exception),
        T(test_synchronous_copy_failure_raises_no_exception),
        T(test_async_copy_into_freed_memory_raises_memory_exception),
        T(test_stream_and_event_hang_raise_task_timeout),
        T(test_exception_callbacks_register_replace_and_unregister),
        T(test_get_error_verbose_checks_and_healthy_device),
        T(test_state_callback_registration_checks),
        cmocka_unit_test(test_state_callbacks_follow_device_and_stream_lives),
    };
    return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
