/*
 * test_ipc.c - IPC events: CANN's checks, codes and texts (aclrt_impl/
 * event.cpp; the runtime's api_c_standard_soc.cc, api_impl_event.cc,
 * api_error.cc), the calls CANN refuses for IPC events, and one state seen
 * through every handle of it: in this process (a wait released by a record
 * through another handle) and in another process (a forked child records).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testutil.h"

static void env(void)
{
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    setenv("ACLSIM_HBM_BYTES", "67108864", 1);
    setenv("ACLSIM_WAIT_GRACE_MS", "20", 1);
}

static void up(void)
{
    env();
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

static void down(void)
{
    aclrtResetDeviceForce(1); /* whether or not it was set */
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/* A child process opens the handle (read from a pipe) on device 1, waits
 * for the event, records it, and reports through its exit status. */
static int child(int fd)
{
    aclrtIpcEventHandle h;
    if (read(fd, &h, sizeof h) != (ssize_t)sizeof h)
        return 10;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(1) != ACL_SUCCESS)
        return 11;
    aclrtStream s;
    aclrtEvent e;
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    int rc = 0;
    if (aclrtCreateStream(&s) != ACL_SUCCESS || aclrtIpcOpenEventHandle(h, &e) != ACL_SUCCESS)
        return 12;
    /* The parent recorded it: complete here. */
    if (aclrtQueryEventStatus(e, &st) != ACL_SUCCESS || st != ACL_EVENT_RECORDED_STATUS_COMPLETE)
        rc = 13;
    if (aclrtStreamWaitEvent(s, e) != ACL_SUCCESS || aclrtSynchronizeStream(s) != ACL_SUCCESS ||
        aclrtRecordEvent(e, s) != ACL_SUCCESS || aclrtSynchronizeEvent(e) != ACL_SUCCESS)
        rc = 14;
    if (aclrtDestroyEvent(e) != ACL_SUCCESS || aclrtDestroyStream(s) != ACL_SUCCESS ||
        aclrtResetDevice(1) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS)
        rc = 15;
    return rc;
}

static void test_ipc_event_across_processes(void **state)
{
    (void)state;
    int p[2];
    env();
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[1]);
        _exit(child(p[0]));
    }
    close(p[0]);
    up();
    aclrtStream s;
    aclrtEvent e;
    aclrtIpcEventHandle h;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtIpcGetEventHandle(e, &h), ACL_SUCCESS);
    /* Reset it to not recorded, as far as this process can tell: the
     * child's record is what completes it afterwards. */
    assert_int_equal(write(p[1], &h, sizeof h), (ssize_t)sizeof h);
    close(p[1]);
    int status = -1;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    assert_int_equal(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    /* Its name went with it. */
    aclrtEvent late = NULL;
    assert_int_equal(aclrtIpcOpenEventHandle(h, &late), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Inner_Error(EH9999)", "aclrtIpcOpenEventHandle failed: the handle names no live "
               "IPC event (its event was destroyed, or it was not made by aclrtIpcGetEventHandle)"
               ", runtime result = 107000.");
    assert_null(late);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    down();
}

static void *no_context(void *arg)
{
    aclrtEvent e = NULL;
    aclError rc = aclrtIpcOpenEventHandle(*(aclrtIpcEventHandle *)arg, &e);
    (void)aclGetRecentErrMsg();
    return (void *)(uintptr_t)(rc == ACL_ERROR_RT_CONTEXT_NULL && e == NULL);
}

static void test_ipc_event_bad_input(void **state)
{
    (void)state;
    up();
    aclrtEvent e, plain;
    aclrtIpcEventHandle h;
    memset(&h, 0, sizeof h);
    assert_int_equal(aclrtCreateEventWithFlag(&e, ACL_EVENT_IPC), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Event creation failed because value 64 for parameter "
               "flag is invalid. Expected value: an OR combination of RT_EVENT_DDSYNC_NS(0x1U), "
               "RT_EVENT_STREAM_MARK(0x2U), RT_EVENT_DDSYNC(0x4U), and RT_EVENT_TIME_LINE(0x8U); "
               "or RT_EVENT_MC2(0x10U) or RT_EVENT_EXTERNAL(0x20U) used alone.");
    assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC | ACL_EVENT_TIME_LINE),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1006)", "Event creation failed. Parameter flag value 72 is not "
               "supported. Reason: RT_EVENT_MC2(0x10U) and RT_EVENT_EXTERNAL(0x20U) do not support "
               "OR combination with other flags.");
    assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&plain), ACL_SUCCESS);
    assert_int_equal(aclrtIpcGetEventHandle(e, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtIpcGetEventHandle", "handle");
    assert_int_equal(aclrtIpcGetEventHandle(NULL, &h), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtIpcGetEventHandle", "event");
    assert_int_equal(aclrtIpcGetEventHandle(plain, &h), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1006)", "Obtaining the IPC event handle failed. Parameter "
               "evt.eventFlag_ value is not supported. Reason: Only IPC events are supported.");
    static int garbage;
    FAILS(aclrtIpcGetEventHandle(&garbage, &h), ACL_ERROR_RT_INTERNAL_ERROR);
    aclrtEvent opened = NULL;
    assert_int_equal(aclrtIpcOpenEventHandle(h, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtIpcOpenEventHandle", "event");
    FAILS(aclrtIpcOpenEventHandle(h, &opened), ACL_ERROR_RT_PARAM_INVALID); /* zeros */
    assert_null(opened);
    assert_int_equal(aclrtIpcGetEventHandle(e, &h), ACL_SUCCESS);
    pthread_t t;
    void *ok = NULL;
    assert_int_equal(pthread_create(&t, NULL, no_context, &h), 0);
    assert_int_equal(pthread_join(t, &ok), 0);
    assert_true(ok != NULL);
    /* Calls CANN refuses for IPC events, silently. */
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    aclrtEventStatus es;
    aclrtEventWaitStatus ws;
    uint64_t ts;
    uint32_t id;
    float ms;
    assert_int_equal(aclrtResetEvent(e, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* CANN deprecates it; it is exported */
    assert_int_equal(aclrtQueryEvent(e, &es), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
#pragma GCC diagnostic pop
    assert_int_equal(aclrtQueryEventWaitStatus(e, &ws), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_int_equal(aclrtEventGetTimestamp(e, &ts), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_int_equal(aclrtGetEventId(e, &id), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_int_equal(aclrtEventElapsedTime(&ms, plain, e), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_no_msg();
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(plain), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    down();
}

/* Opened in this process on another device: one state. A wait through
 * one handle on a record still held behind a value wait is released when
 * the record runs, through the other. */
static void test_ipc_event_in_one_process(void **state)
{
    (void)state;
    up();
    aclrtStream s0, s1, s2;
    aclrtEvent e, twin;
    aclrtIpcEventHandle h;
    assert_int_equal(aclrtCreateStream(&s0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s2), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_SUCCESS);
    assert_int_equal(aclrtIpcGetEventHandle(e, &h), ACL_SUCCESS);
    void *flag, *a, *b;
    assert_int_equal(aclrtMalloc(&flag, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(flag, 8, 0, 8), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(a, 64, 7, 64), ACL_SUCCESS);
    assert_int_equal(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, s0), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s0), ACL_SUCCESS); /* held */
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s1), ACL_SUCCESS);
    assert_int_equal(aclrtIpcOpenEventHandle(h, &twin), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(b, 64, 0, 64), ACL_SUCCESS);
    aclrtEventRecordedStatus st;
    assert_int_equal(aclrtQueryEventStatus(twin, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    assert_int_equal(aclrtStreamWaitEvent(s1, twin), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(b, 64, 9, 64, s1), ACL_SUCCESS); /* queued behind */
    char back[64];
    assert_int_equal(aclrtMemcpy(back, 64, b, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(back[0], 0);
    /* Release the first stream from device 0: both streams run. */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtValueWrite(flag, 1, 0, s2), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 64, b, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(back[63], 9);
    assert_int_equal(aclrtQueryEventStatus(twin, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    /* The opened one outlives the creator; a record through it is seen. */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(twin, s1), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(twin), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(twin), ACL_SUCCESS);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
    assert_int_equal(aclrtFree(flag), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s2), ACL_SUCCESS);
    down();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipc_event_across_processes),
        cmocka_unit_test(test_ipc_event_bad_input),
        cmocka_unit_test(test_ipc_event_in_one_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
