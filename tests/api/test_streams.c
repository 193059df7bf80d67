/*
 * test_streams.c - the stream, event, notify and peer families beyond
 * create/destroy/sync: ids, priorities, flags, attributes, configs, abort,
 * the default stream as a handle, event ids and timestamps, notifies and
 * value waits on simulated timelines, peer access.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "aclsim/aclsim.h"

static aclrtStream stream;

static int setup(void **state)
{
    (void)state;
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    setenv("ACLSIM_HBM_BYTES", "67108864", 1);
    setenv("ACLSIM_WAIT_GRACE_MS", "20", 1);
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
    return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

/* ---- streams ---- */

static void test_stream_getters_reject_null_and_dead_handles(void **state)
{
    (void)state;
    int32_t id;
    uint32_t u;
    assert_int_equal(aclrtStreamGetId(stream, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtStreamGetId", "streamId");
    assert_int_equal(aclrtStreamGetPriority(stream, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtStreamGetPriority", "priority");
    assert_int_equal(aclrtStreamGetFlags(stream, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtStreamGetFlags", "flags");
    static int garbage;
    FAILS(aclrtStreamGetId(&garbage, &id), ACL_ERROR_RT_INTERNAL_ERROR);
    FAILS(aclrtStreamGetFlags(&garbage, &u), ACL_ERROR_RT_INTERNAL_ERROR);
    assert_int_equal(aclrtGetStreamAvailableNum(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetStreamAvailableNum", "streamCount");
}

static void test_stream_priority_flags_and_ids(void **state)
{
    (void)state;
    aclrtStream a, b;
    assert_int_equal(aclrtCreateStreamWithConfig(&a, 3, ACL_STREAM_FAST_LAUNCH), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
    uint32_t prio = 99, flags = 99;
    assert_int_equal(aclrtStreamGetPriority(a, &prio), ACL_SUCCESS);
    assert_int_equal(prio, 3);
    assert_int_equal(aclrtStreamGetFlags(a, &flags), ACL_SUCCESS);
    assert_int_equal(flags, ACL_STREAM_FAST_LAUNCH);
    assert_int_equal(aclrtStreamGetPriority(b, &prio), ACL_SUCCESS);
    assert_int_equal(prio, 0);
    int32_t ia = -1, ib = -1;
    assert_int_equal(aclrtStreamGetId(a, &ia), ACL_SUCCESS);
    assert_int_equal(aclrtStreamGetId(b, &ib), ACL_SUCCESS);
    assert_true(ia >= 0 && ib >= 0 && ia != ib);
    int32_t least = -1, greatest = -1;
    assert_int_equal(aclrtDeviceGetStreamPriorityRange(&least, &greatest), ACL_SUCCESS);
    assert_int_equal(least, 7);
    assert_int_equal(greatest, 0);
    uint32_t before = 0, after = 0;
    assert_int_equal(aclrtGetStreamAvailableNum(&before), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(a), ACL_SUCCESS);
    assert_int_equal(aclrtGetStreamAvailableNum(&after), ACL_SUCCESS);
    assert_int_equal(after, before + 1);
    assert_int_equal(aclrtDestroyStream(b), ACL_SUCCESS);
}

static void test_default_stream_is_a_usable_handle_not_destroyable(void **state)
{
    (void)state;
    assert_int_equal(aclrtCtxGetCurrentDefaultStream(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCtxGetCurrentDefaultStream", "stream");
    aclrtStream d = NULL;
    assert_int_equal(aclrtCtxGetCurrentDefaultStream(&d), ACL_SUCCESS);
    assert_non_null(d);
    assert_int_equal(aclrtSynchronizeStream(d), ACL_SUCCESS);
    int32_t id = -1;
    assert_int_equal(aclrtStreamGetId(d, &id), ACL_SUCCESS);
    void *p;
    char host[64] = {1};
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(p, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, d), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(d), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    char text[256];
    snprintf(text, sizeof text, "The argument is invalid. Reason: aclrtDestroyStream failed, stream "
             "%p is the default stream of its context; it is destroyed with the context.", d);
    assert_int_equal(aclrtDestroyStream(d), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", text);
    FAILS(aclrtDestroyStreamForce(d), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtSynchronizeStream(d), ACL_SUCCESS); /* still alive */
}

static void test_stream_attributes_and_modes(void **state)
{
    (void)state;
    aclrtStreamAttrValue v = {0};
    assert_int_equal(aclrtSetStreamAttribute(stream, ACL_STREAM_ATTR_FAILURE_MODE, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetStreamAttribute", "value");
    FAILS(aclrtSetStreamAttribute(stream, (aclrtStreamAttr)9, &v), ACL_ERROR_RT_PARAM_INVALID);
    v.failureMode = 2;
    FAILS(aclrtSetStreamAttribute(stream, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE), ACL_SUCCESS);
    v = (aclrtStreamAttrValue){0};
    assert_int_equal(aclrtGetStreamAttribute(stream, ACL_STREAM_ATTR_FAILURE_MODE, &v),
                     ACL_SUCCESS);
    assert_int_equal(v.failureMode, ACL_STOP_ON_FAILURE);
    FAILS(aclrtSetStreamFailureMode(stream, 5), ACL_ERROR_RT_PARAM_INVALID);
    v.userCustomTag = 42;
    assert_int_equal(aclrtSetStreamAttribute(stream, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v),
                     ACL_SUCCESS);
    v.userCustomTag = 0;
    assert_int_equal(aclrtGetStreamAttribute(stream, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v),
                     ACL_SUCCESS);
    assert_int_equal(v.userCustomTag, 42);
    assert_int_equal(aclrtSetStreamOverflowSwitch(stream, 2), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtSetStreamOverflowSwitch failed because value 2 "
               "for parameter flag is invalid. Expected value: 0 or 1.");
    uint32_t sw = 9;
    assert_int_equal(aclrtSetStreamOverflowSwitch(stream, 1), ACL_SUCCESS);
    assert_int_equal(aclrtGetStreamOverflowSwitch(stream, &sw), ACL_SUCCESS);
    assert_int_equal(sw, 1);
    aclrtFloatOverflowMode m = ACL_RT_OVERFLOW_MODE_UNDEF;
    FAILS(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN), ACL_SUCCESS);
    assert_int_equal(aclrtGetDeviceSatMode(&m), ACL_SUCCESS);
    assert_int_equal(m, ACL_RT_OVERFLOW_MODE_INFNAN);
    /* the execute timeouts' readback: test_devctl.c */
}

static void test_stream_config_handles_and_create_v2(void **state)
{
    (void)state;
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    assert_non_null(h);
    uint32_t prio = 8;
    assert_int_equal(aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_PRIORITY, &prio, 4),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetStreamConfigOpt", "handle");
    FAILS(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, 4), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, 8),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtSetStreamConfigOpt failed because value 8 for "
               "parameter valueSize is invalid. Expected value: 4.");
    prio = 5;
    assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, 4), ACL_SUCCESS);
    size_t flag = ACL_STREAM_FAST_SYNC;
    assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof flag),
                     ACL_SUCCESS);
    aclrtStreamConfigHandle foreign = {0};
    FAILS(aclrtSetStreamConfigOpt(&foreign, ACL_RT_STREAM_FLAG, &flag, sizeof flag), ACL_ERROR_INVALID_PARAM);
    FAILS(aclrtDestroyStreamConfigHandle(&foreign), ACL_ERROR_INVALID_PARAM);
    aclrtStream s;
    FAILS(aclrtCreateStreamV2(NULL, h), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtCreateStreamV2(&s, h), ACL_SUCCESS);
    uint32_t p = 0, f = 0;
    assert_int_equal(aclrtStreamGetPriority(s, &p), ACL_SUCCESS);
    assert_int_equal(aclrtStreamGetFlags(s, &f), ACL_SUCCESS);
    assert_int_equal(p, 5);
    assert_int_equal(f, ACL_STREAM_FAST_SYNC);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStreamConfigHandle(h), ACL_SUCCESS);
    FAILS(aclrtDestroyStreamConfigHandle(h), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtCreateStreamV2(&s, NULL), ACL_SUCCESS); /* defaults */
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void test_sync_timeout_checks_and_abort(void **state)
{
    (void)state;
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(stream, -2), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EH0007)", "aclrtSynchronizeStreamWithTimeout failed because "
               "value -2 for parameter timeout is invalid. Expected value: [-1, INT_MAX].");
    FAILS(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_ERROR_RT_PARAM_INVALID);
    FAILS(aclrtStreamStop(NULL), ACL_ERROR_RT_PARAM_INVALID);
    /* Abort drops queued work: the stream's clock stops at the host's. */
    void *p;
    assert_int_equal(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int i = 0; i < 8; i++)
        assert_int_equal(aclrtMemsetAsync(p, 1 << 20, 0, 1 << 20, stream), ACL_SUCCESS);
    uint64_t host = 0, tail = 0;
    assert_int_equal(aclsim_clock_host(&host), ACL_SUCCESS);
    assert_int_equal(aclsim_clock_stream(stream, &tail), ACL_SUCCESS);
    assert_true(tail > host);
    assert_int_equal(aclrtStreamAbort(stream), ACL_SUCCESS);
    assert_int_equal(aclsim_clock_stream(stream, &tail), ACL_SUCCESS);
    assert_int_equal(aclsim_clock_host(&host), ACL_SUCCESS);
    assert_true(tail <= host);
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    assert_int_equal(aclrtStreamQuery(stream, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 1 << 20, 0, 1 << 20, s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStreamForce(s), ACL_SUCCESS);
    FAILS(aclrtDestroyStreamForce(s), ACL_ERROR_RT_INTERNAL_ERROR);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

/* ---- events ---- */

static void test_event_ids_timestamps_and_counts(void **state)
{
    (void)state;
    aclrtEvent a, b;
    uint32_t id = 0, left0 = 0, left1 = 0;
    assert_int_equal(aclrtGetEventAvailNum(&left0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEventExWithFlag(&a, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&b), ACL_SUCCESS);
    assert_int_equal(aclrtGetEventAvailNum(&left1), ACL_SUCCESS);
    assert_int_equal(left1 + 2, left0);
    uint32_t ida = 0, idb = 0;
    assert_int_equal(aclrtGetEventId(a, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetEventId", "eventId");
    assert_int_equal(aclrtGetEventId(a, &ida), ACL_SUCCESS);
    assert_int_equal(aclrtGetEventId(b, &idb), ACL_SUCCESS);
    assert_int_not_equal(ida, idb);
    uint64_t ts = 0;
    FAILS(aclrtEventGetTimestamp(a, &ts), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_COMPLETE;
    assert_int_equal(aclrtQueryEventWaitStatus(a, &ws), ACL_SUCCESS);
    assert_int_equal(ws, ACL_EVENT_WAIT_STATUS_NOT_READY);
    void *p;
    assert_int_equal(aclrtMalloc(&p, 32 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 32 << 20, 0, 32 << 20, stream), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(a, stream), ACL_SUCCESS);
    FAILS(aclrtEventGetTimestamp(a, &ts), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    FAILS(aclrtSynchronizeEventWithTimeout(a, -2), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtSynchronizeEventWithTimeout(a, 1000), ACL_SUCCESS);
    uint64_t tail = 0;
    assert_int_equal(aclsim_clock_stream(stream, &tail), ACL_SUCCESS);
    assert_int_equal(aclrtEventGetTimestamp(a, &ts), ACL_SUCCESS);
    assert_int_equal(ts, tail / 1000000u); /* us */
    assert_int_equal(aclrtQueryEventWaitStatus(a, &ws), ACL_SUCCESS);
    assert_int_equal(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);
    FAILS(aclrtStreamWaitEventWithFlag(stream, a, 0, 7), ACL_ERROR_INVALID_PARAM);
    FAILS(aclrtStreamWaitEventWithFlag(stream, a, 5, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_INVALID_PARAM);
    FAILS(aclrtStreamWaitEventWithFlag(stream, a, 0, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    assert_int_equal(aclrtStreamWaitEventWithFlag(stream, a, 0, ACL_EVENT_WAIT_DEFAULT),
                     ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEventWithTimeout(stream, a, 10), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(a), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(b), ACL_SUCCESS);
    FAILS(aclrtGetEventId(a, &id), ACL_ERROR_RT_INTERNAL_ERROR);
}

/* ---- notifies and value waits ---- */

static void test_notify_bad_input(void **state)
{
    (void)state;
    aclrtNotify n;
    assert_int_equal(aclrtCreateNotify(NULL, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCreateNotify", "notify");
    FAILS(aclrtCreateNotify(&n, 9), ACL_ERROR_INVALID_PARAM);
    FAILS(aclrtRecordNotify(NULL, stream), ACL_ERROR_INVALID_PARAM);
    static int garbage;
    FAILS(aclrtRecordNotify(&garbage, stream), ACL_ERROR_RT_INTERNAL_ERROR);
    char text[160];
    snprintf(text, sizeof text, "The argument is invalid. Reason: aclrtWaitAndResetNotify failed, "
             "notify %p is not a live notify.", (void *)&garbage);
    assert_int_equal(aclrtWaitAndResetNotify(&garbage, stream, 0), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_msg("Invalid_Argument(EE1001)", text);
    FAILS(aclrtDestroyNotify(&garbage), ACL_ERROR_RT_INTERNAL_ERROR);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    uint32_t id;
    FAILS(aclrtGetNotifyId(n, NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtGetNotifyId(n, &id), ACL_SUCCESS);
    FAILS(aclrtNotifyBatchReset(NULL, 1), ACL_ERROR_INVALID_PARAM);
    FAILS(aclrtNotifyBatchReset(&n, 0), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtNotifyBatchReset(&n, 1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    FAILS(aclrtDestroyNotify(n), ACL_ERROR_RT_INTERNAL_ERROR);
}

/* A wait enqueued before its record holds the stream; the copy behind it
 * runs when the record completes, at that simulated time. */
static void test_notify_wait_before_record_orders_work(void **state)
{
    (void)state;
    aclrtStream waiter, producer;
    aclrtNotify n;
    void *p;
    char src[256], dst[256] = {0};
    memset(src, 0x5a, sizeof src);
    assert_int_equal(aclrtCreateStream(&waiter), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&producer), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 4 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(p, 4 << 20, 0, 4 << 20), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, waiter, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(p, 256, src, 256, ACL_MEMCPY_HOST_TO_DEVICE, waiter),
                     ACL_SUCCESS);
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    assert_int_equal(aclrtStreamQuery(waiter, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
    /* Held: the copy has not happened. */
    assert_int_equal(aclrtMemcpy(dst, 256, p, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(dst[0], 0);
    /* The producer works for a while, then records. */
    assert_int_equal(aclrtMemsetAsync((char *)p + 4096, 1 << 20, 1, 1 << 20, producer),
                     ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    uint64_t ptail = 0, wtail = 0;
    assert_int_equal(aclsim_clock_stream(producer, &ptail), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS);
    assert_int_equal(aclsim_clock_stream(waiter, &wtail), ACL_SUCCESS);
    assert_true(wtail > ptail); /* the copy ran after the record */
    assert_int_equal(aclrtMemcpy(dst, 256, p, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(dst, src, 256);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(waiter), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(producer), ACL_SUCCESS);
}

/* A wait nothing satisfies: a bounded sync times out, an unbounded one
 * fails instead of hanging, and a wait with its own timeout fails the
 * stream at its deadline. */
static void test_unsatisfied_notify_wait_never_hangs(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    uint64_t h0 = 0, h1 = 0;
    assert_int_equal(aclsim_clock_host(&h0), ACL_SUCCESS);
    FAILS(aclrtSynchronizeStreamWithTimeout(s, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    assert_int_equal(aclsim_clock_host(&h1), ACL_SUCCESS);
    assert_true(h1 - h0 >= 50000000000ull); /* 50 ms of simulated time */
    FAILS(aclrtSynchronizeStream(s), ACL_ERROR_RT_WAIT_TIMEOUT);
    /* A late record still releases it. */
    assert_int_equal(aclrtRecordNotify(n, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    /* Its own timeout: the stream fails at the deadline, 2 s on. */
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 2), ACL_SUCCESS);
    assert_int_equal(aclsim_clock_host(&h0), ACL_SUCCESS);
    FAILS(aclrtSynchronizeStream(s), ACL_ERROR_RT_WAIT_TIMEOUT);
    assert_int_equal(aclsim_clock_host(&h1), ACL_SUCCESS);
    assert_true(h1 - h0 >= 1999000000000ull);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS); /* failed, then idle */
    /* The op wait timeout applies to waits without their own. */
    assert_int_equal(aclrtSetOpWaitTimeout(1), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    FAILS(aclrtSynchronizeDevice(), ACL_ERROR_RT_WAIT_TIMEOUT);
    assert_int_equal(aclrtSetOpWaitTimeout(0), ACL_SUCCESS);
    /* Destroying a held stream drops what it holds. */
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
}

static void test_value_write_and_wait(void **state)
{
    (void)state;
    aclrtStream waiter;
    void *flag, *data;
    char src[64], dst[64] = {0};
    memset(src, 7, sizeof src);
    assert_int_equal(aclrtCreateStream(&waiter), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&flag, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&data, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(flag, 64, 0, 64), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(data, 64, 0, 64), ACL_SUCCESS);
    assert_int_equal(aclrtValueWait(NULL, 1, 0, waiter), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtValueWait", "devAddr");
    FAILS(aclrtValueWait(flag, 1, 9, waiter), ACL_ERROR_INVALID_PARAM);
    FAILS(aclrtValueWrite(flag, 1, 1, waiter), ACL_ERROR_INVALID_PARAM);
    FAILS(aclrtValueWrite((char *)flag + 4, 1, 0, waiter), ACL_ERROR_RT_PARAM_INVALID);
    FAILS(aclrtValueWrite(src, 1, 0, waiter), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtValueWait(flag, 3, ACL_STREAM_WAIT_VALUE_GEQ, waiter), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(data, 64, src, 64, ACL_MEMCPY_HOST_TO_DEVICE, waiter),
                     ACL_SUCCESS);
    assert_int_equal(aclrtValueWrite(flag, 2, 0, stream), ACL_SUCCESS); /* not enough */
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    assert_int_equal(aclrtStreamQuery(waiter, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
    assert_int_equal(aclrtValueWrite(flag, 3, 0, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(dst, 64, data, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(dst, src, 64);
    uint64_t v = 0;
    assert_int_equal(aclrtMemcpy(&v, 8, flag, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(v, 3);
    assert_int_equal(aclrtFree(flag), ACL_SUCCESS);
    assert_int_equal(aclrtFree(data), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(waiter), ACL_SUCCESS);
}

/* ---- peers ---- */

static void test_peer_access_gates_copies_between_devices(void **state)
{
    (void)state;
    int32_t can = -1, status = -1;
    uint64_t topo = 0;
    assert_int_equal(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtDeviceCanAccessPeer failed. Value 0 for "
               "parameter deviceId is invalid. Reason: deviceId 0 cannot be equal to "
               "peerDeviceId 0.");
    FAILS(aclrtDeviceCanAccessPeer(&can, 0, 5), ACL_ERROR_RT_INVALID_DEVICEID);
    FAILS(aclrtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_SUCCESS);
    assert_int_equal(can, 1);
    FAILS(aclrtGetDevicesTopo(0, 1, NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtGetDevicesTopo(0, 1, &topo), ACL_SUCCESS);
    assert_int_equal(topo, ACL_RT_DEVS_TOPOLOGY_HCCS);
    void *a, *b;
    char host[128];
    memset(host, 3, sizeof host);
    assert_int_equal(aclrtMalloc(&a, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(a, 128, host, 128, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    aclrtContext c0, c1;
    assert_int_equal(aclrtGetCurrentContext(&c0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtGetCurrentContext(&c1), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&b, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(c0), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(b, 128, a, 128, ACL_MEMCPY_DEVICE_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMemcpy failed, "
               "the copy is between device 0 and device 1; enable peer access first "
               "(aclrtDeviceEnablePeerAccess on device 0).");
    FAILS(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
    FAILS(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM);
    FAILS(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
    assert_int_equal(aclrtDevicePeerAccessStatus(0, 1, &status), ACL_SUCCESS);
    assert_int_equal(status, 1);
    assert_int_equal(aclrtDevicePeerAccessStatus(1, 0, &status), ACL_SUCCESS);
    assert_int_equal(status, 0);
    uint64_t t0 = 0, t1 = 0;
    assert_int_equal(aclsim_clock_host(&t0), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(b, 128, a, 128, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclsim_clock_host(&t1), ACL_SUCCESS);
    assert_true(t1 > t0); /* it takes simulated time */
    char back[128] = {0};
    assert_int_equal(aclrtSetCurrentContext(c1), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 128, b, 128, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, host, 128);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(c0), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceDisablePeerAccess(1), ACL_SUCCESS);
    assert_int_equal(aclrtDevicePeerAccessStatus(0, 1, &status), ACL_SUCCESS);
    assert_int_equal(status, 0);
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
}

/* The sequence of CANN's P2P sample and FAQ: device 1 enables and
 * disables its access and is reset; device 0's access to device 1 stays
 * until device 0 disables it. */
static void test_peer_access_outlives_the_peer_reset(void **state)
{
    (void)state;
    int32_t status = -1;
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceEnablePeerAccess(0, 0), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceDisablePeerAccess(0), ACL_SUCCESS);
    assert_int_equal(aclrtDeviceEnablePeerAccess(0, 0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDeviceForce(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtDevicePeerAccessStatus(0, 1, &status), ACL_SUCCESS);
    assert_int_equal(status, 1);
    /* What device 1 had enabled went with it. */
    assert_int_equal(aclrtDevicePeerAccessStatus(1, 0, &status), ACL_SUCCESS);
    assert_int_equal(status, 0);
    assert_int_equal(aclrtDeviceDisablePeerAccess(1), ACL_SUCCESS);
    assert_int_equal(aclrtDevicePeerAccessStatus(0, 1, &status), ACL_SUCCESS);
    assert_int_equal(status, 0);
    assert_int_equal(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtDeviceDisablePeerAccess failed, peer access from device 0 to device 1 is "
               "not enabled.");
}

/* ---- counting notifies (hicann/runtime src/runtime/api/api_david.cc
 * rtCntNotifyCreateServer and rts*, api/impl/api_error_standard_soc.cc
 * CntNotifyCreate..GetCntNotifyId lines 39-110, src/acl/aclrt_impl/
 * notify.cpp lines 144-210) ---- */

static void test_cnt_notify_bad_input(void **state)
{
    (void)state;
    aclrtCntNotify c = NULL;
    aclrtCntNotifyRecordInfo rec = {ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1};
    aclrtCntNotifyWaitInfo w = {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 1, 1, 0, {0}};
    uint32_t id = 0;
    /* api_david.cc rtCntNotifyCreateServer: flags must be 0 */
    assert_int_equal(aclrtCntNotifyCreate(&c, 1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "rtCntNotifyCreateServer failed because value 1 for "
               "parameter flags is invalid. Expected value: 0.");
    assert_int_equal(aclrtCntNotifyCreate(NULL, 0), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "CntNotify creation failed because "
               "retCntNotify cannot be a NULL pointer.");
    assert_int_equal(aclrtCntNotifyCreate(&c, 0), ACL_SUCCESS);
    /* the ACL layer's own check: info (notify.cpp:170) */
    assert_int_equal(aclrtCntNotifyRecord(c, stream, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCntNotifyRecord", "info");
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c, stream, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCntNotifyWaitWithTimeout", "info");
    /* the runtime's decorator: NULL notifies, then the modes */
    assert_int_equal(aclrtCntNotifyRecord(NULL, stream, &rec), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "CntNotify recording failed because "
               "inCntNotify cannot be a NULL pointer.");
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(NULL, stream, &w), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Waiting for CntNotify failed because "
               "inCntNotify cannot be a NULL pointer.");
    assert_int_equal(aclrtCntNotifyReset(NULL, stream), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "CntNotify reset failed because "
               "inCntNotify cannot be a NULL pointer.");
    assert_int_equal(aclrtCntNotifyGetId(NULL, &id), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Obtaining the ID of a CntNotify object "
               "failed because inCntNotify cannot be a NULL pointer.");
    assert_int_equal(aclrtCntNotifyGetId(c, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Obtaining the ID of a CntNotify object "
               "failed because notifyId cannot be a NULL pointer.");
    assert_int_equal(aclrtCntNotifyDestroy(NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "CntNotify destruction failed because "
               "inCntNotify cannot be a NULL pointer.");
    rec.mode = (aclrtCntNotifyRecordMode)3; /* RECORD_INVALID_MODE: never valid */
    assert_int_equal(aclrtCntNotifyRecord(c, stream, &rec), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "CntNotify recording failed because value "
               "RECORD_INVALID_MODE(3) for parameter info->mode is invalid. Expected value: "
               "RECORD_STORE_MODE(0), RECORD_ADD_MODE(1), RECORD_WRITE_BIT_MODE(2) or "
               "RECORD_CLEAR_BIT_MODE(4).");
    rec.mode = (aclrtCntNotifyRecordMode)9;
    assert_int_equal(aclrtCntNotifyRecord(c, stream, &rec), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "CntNotify recording failed because value UNKNOWN(9) "
               "for parameter info->mode is invalid. Expected value: RECORD_STORE_MODE(0), "
               "RECORD_ADD_MODE(1), RECORD_WRITE_BIT_MODE(2) or RECORD_CLEAR_BIT_MODE(4).");
    w.mode = (aclrtCntNotifyWaitMode)5;
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c, stream, &w), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Waiting for CntNotify failed because value "
               "WAIT_MODE_MAX(5) for parameter info->mode is invalid. Expected value: [0, 5).");
    assert_int_equal(aclrtCntNotifyGetId(c, &id), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyDestroy(c), ACL_SUCCESS);
    /* a destroyed handle is refused, never used */
    assert_int_equal(aclrtCntNotifyDestroy(c), ACL_ERROR_RT_INTERNAL_ERROR);
    assert_non_null(aclGetRecentErrMsg());
    rec.mode = ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE;
    assert_int_equal(aclrtCntNotifyRecord(c, stream, &rec), ACL_ERROR_RT_INTERNAL_ERROR);
    assert_non_null(aclGetRecentErrMsg());
}

/* The count a host mirror computes, record by record, against what the
 * waits let through. */
static void test_cnt_notify_counts_and_waits(void **state)
{
    (void)state;
    aclrtStream waiter, producer;
    aclrtCntNotify c;
    void *p;
    char src[64], dst[64] = {0};
    memset(src, 0x3c, sizeof src);
    assert_int_equal(aclrtCreateStream(&waiter), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&producer), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyCreate(&c, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(p, 4096, 0, 4096), ACL_SUCCESS);
    /* wait until the count reaches 3 (>=), then copy */
    aclrtCntNotifyWaitInfo w = {ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 3, 0, 0, {0}};
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c, waiter, &w), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(p, 64, src, 64, ACL_MEMCPY_HOST_TO_DEVICE, waiter),
                     ACL_SUCCESS);
    aclrtCntNotifyRecordInfo add = {ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1};
    uint32_t mirror = 0;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(aclrtCntNotifyRecord(c, producer, &add), ACL_SUCCESS);
        mirror += 1;
        assert_int_equal(aclrtSynchronizeStream(producer), ACL_SUCCESS);
        assert_int_equal(aclrtMemcpy(dst, 64, p, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
        assert_int_equal(dst[0], 0); /* mirror < 3: still held */
    }
    assert_int_equal(aclrtCntNotifyRecord(c, producer, &add), ACL_SUCCESS);
    mirror += 1;
    assert_true(mirror >= 3);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(dst, 64, p, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(dst, src, 64);
    /* store 0b1010, set bit 0 (0b1011), clear bit 1 (0b1001): an equal wait
     * on 9 passes at once and clears the count; a wait on bitmask 8 then
     * holds until a store of 12 (0b1100) */
    aclrtCntNotifyRecordInfo set = {ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 10};
    aclrtCntNotifyRecordInfo orr = {ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE, 1};
    aclrtCntNotifyRecordInfo clr = {ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE, 2};
    assert_int_equal(aclrtCntNotifyRecord(c, producer, &set), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyRecord(c, producer, &orr), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyRecord(c, producer, &clr), ACL_SUCCESS);
    mirror = ((10u | 1u) & ~2u);
    assert_int_equal(mirror, 9);
    aclrtCntNotifyWaitInfo eq = {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, mirror, 1, 1, {0}};
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c, waiter, &eq), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS);
    aclrtCntNotifyWaitInfo mask = {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 8, 0, 0, {0}};
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c, waiter, &mask), ACL_SUCCESS);
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    assert_int_equal(aclrtStreamQuery(waiter, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY); /* cleared to 0: bit 3 unset */
    set.value = 12;
    assert_int_equal(aclrtCntNotifyRecord(c, producer, &set), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS);
    /* a reset on a stream zeroes the count: a "less than 1" wait passes */
    assert_int_equal(aclrtCntNotifyReset(c, producer), ACL_SUCCESS);
    aclrtCntNotifyWaitInfo less = {ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 1, 1, 0, {0}};
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c, producer, &less), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(producer), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyDestroy(c), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(waiter), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(producer), ACL_SUCCESS);
}

/* A wait nothing satisfies fails its stream at its timeout (simulated
 * seconds), never hangs; a "greater than" wait is strict. */
static void test_cnt_notify_wait_times_out(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtCntNotify c;
    uint32_t id0 = 0, id1 = 0;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyCreate(&c, 0), ACL_SUCCESS);
    aclrtCntNotify c2;
    assert_int_equal(aclrtCntNotifyCreate(&c2, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyGetId(c, &id0), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyGetId(c2, &id1), ACL_SUCCESS);
    assert_int_not_equal(id0, id1);
    aclrtCntNotifyRecordInfo set = {ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 5};
    assert_int_equal(aclrtCntNotifyRecord(c, stream, &set), ACL_SUCCESS);
    aclrtCntNotifyWaitInfo gt = {ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 5, 2, 0, {0}};
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c, s, &gt), ACL_SUCCESS);
    uint64_t h0 = 0, h1 = 0;
    assert_int_equal(aclsim_clock_host(&h0), ACL_SUCCESS);
    FAILS(aclrtSynchronizeStream(s), ACL_ERROR_RT_WAIT_TIMEOUT);
    assert_int_equal(aclsim_clock_host(&h1), ACL_SUCCESS);
    assert_true(h1 - h0 >= 1999000000000ull); /* 2 s on */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS); /* failed, then idle */
    /* no timeout of its own: the op wait timeout */
    assert_int_equal(aclrtSetOpWaitTimeout(1), ACL_SUCCESS);
    gt.timeout = 0;
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c, s, &gt), ACL_SUCCESS);
    FAILS(aclrtSynchronizeDevice(), ACL_ERROR_RT_WAIT_TIMEOUT);
    assert_int_equal(aclrtSetOpWaitTimeout(0), ACL_SUCCESS);
    /* destroying the notify a stream waits on leaves nothing to satisfy it */
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c2, s, &gt), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyDestroy(c2), ACL_SUCCESS);
    FAILS(aclrtSynchronizeStreamWithTimeout(s, 10), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyDestroy(c), ACL_SUCCESS);
}

/* aclrtPersistentTaskClean on a persistent stream bound to a model: refused
 * until the model is loaded (api_error_standard_soc.cc StreamTaskClean
 * lines 383-389), then the tasks the stream recorded are cleared: the
 * model's next run leaves the memory alone. */
static void test_persistent_task_clean_clears_the_model_stream(void **state)
{
    (void)state;
    enum { N = 4096 };
    aclrtStream ps;
    char *p;
    unsigned char back[N], want[N];
    assert_int_equal(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc((void **)&p, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(p, N, 0, N), ACL_SUCCESS);
    aclmdlRI ri;
    uint32_t mid = 0;
    int32_t sid = 0;
    assert_int_equal(aclmdlRIBuildBegin(&ri, 0), ACL_SUCCESS);
    assert_int_equal(aclrtStreamGetId(ps, &sid), ACL_SUCCESS);
    assert_int_equal(aclmdlRIBindStream(ri, ps, ACL_MODEL_STREAM_FLAG_HEAD), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, N, 7, N, ps), ACL_SUCCESS);
    assert_int_equal(aclmdlRIEndTask(ri, ps), ACL_SUCCESS);
    assert_int_equal(aclrtPersistentTaskClean(ps), ACL_ERROR_RT_INTERNAL_ERROR);
    char got[1024], msg[320];
    snprintf(got, sizeof got, "%s", aclGetRecentErrMsg());
    assert_int_equal(aclmdlRIBuildEnd(ri, NULL), ACL_SUCCESS);
    assert_int_equal(aclmdlRIGetId(ri, &mid), ACL_SUCCESS); /* known once built */
    snprintf(msg, sizeof msg, "Invalid_Argument(EE1017): Clearing tasks in a stream failed. "
             "Parameter stream is invalid. Reason: Model (model_id=%u) where stream "
             "(stream_id=%d) is located has not been loaded. Clear stream tasks after the "
             "model is loaded.", mid, (int)sid);
    if (!strstr(got, msg))
        fail_msg("message\n  %s\ndoes not contain\n  %s", got, msg);
    /* loaded: it runs its memset */
    assert_int_equal(aclmdlRIExecuteAsync(ri, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    memset(want, 7, N);
    assert_int_equal(aclrtMemcpy(back, N, p, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, want, N);
    /* cleared: the next run leaves the memory as it is */
    assert_int_equal(aclrtMemset(p, N, 0, N), ACL_SUCCESS);
    assert_int_equal(aclrtPersistentTaskClean(ps), ACL_SUCCESS);
    assert_int_equal(aclmdlRIExecuteAsync(ri, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    memset(want, 0, N);
    assert_int_equal(aclrtMemcpy(back, N, p, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, want, N);
    assert_int_equal(aclmdlRIUnbindStream(ri, ps), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(ps), ACL_SUCCESS);
}

/* A captured record is recorded, not run, and counts at each launch. */
static void test_cnt_notify_record_is_captured_and_replayed(void **state)
{
    (void)state;
    aclrtStream cap, waiter;
    aclrtCntNotify c;
    assert_int_equal(aclrtCreateStream(&cap), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&waiter), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyCreate(&c, 0), ACL_SUCCESS);
    aclrtCntNotifyRecordInfo add = {ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1};
    aclmdlRI ri;
    assert_int_equal(aclmdlRICaptureBegin(cap, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyRecord(c, cap, &add), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(cap, &ri), ACL_SUCCESS);
    /* not run at capture: a wait for 1 holds */
    aclrtCntNotifyWaitInfo geq = {ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 2, 0, 0, {0}};
    assert_int_equal(aclrtCntNotifyWaitWithTimeout(c, waiter, &geq), ACL_SUCCESS);
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    assert_int_equal(aclmdlRIExecuteAsync(ri, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtStreamQuery(waiter, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY); /* one launch: the count is 1 */
    assert_int_equal(aclmdlRIExecuteAsync(ri, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS); /* two: released */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtCntNotifyDestroy(c), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(cap), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(waiter), ACL_SUCCESS);
}

/* ---- persistent tasks, task ids, overflow (api_error_standard_soc.cc
 * StreamTaskClean lines 365-385; api_error.cc GetThreadLastTaskId line
 * 7094, NpuGetFloatStatus lines 5130-5156, CtxGetOverflowAddr line 6186) ---- */

static void test_task_ids_clean_and_overflow(void **state)
{
    (void)state;
    uint32_t t0 = 0, t1 = 0;
    void *p;
    assert_int_equal(aclrtGetThreadLastTaskId(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetThreadLastTaskId", "taskId");
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 64, 1, 64, stream), ACL_SUCCESS);
    assert_int_equal(aclrtGetThreadLastTaskId(&t0), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 64, 2, 64, stream), ACL_SUCCESS);
    assert_int_equal(aclrtGetThreadLastTaskId(&t1), ACL_SUCCESS);
    assert_int_equal(t1, t0 + 1); /* the next task of the same stream */
    /* persistent task clean */
    assert_int_equal(aclrtPersistentTaskClean(NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Clearing tasks in a stream failed "
               "because stm cannot be a NULL pointer.");
    int32_t sid = 0;
    assert_int_equal(aclrtStreamGetId(stream, &sid), ACL_SUCCESS);
    assert_int_equal(aclrtPersistentTaskClean(stream), ACL_ERROR_RT_INTERNAL_ERROR);
    char want[256];
    snprintf(want, sizeof want, "Clearing tasks in a stream failed. Value RT_STREAM_PERSISTENT "
             "for parameter stream flag is invalid. Reason: Non-persistent stream "
             "(stream_id=%d) does not support stream task clearance.", (int)sid);
    expect_msg("Invalid_Argument(EE1011)", want);
    aclrtStream ps;
    assert_int_equal(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT), ACL_SUCCESS);
    assert_int_equal(aclrtStreamGetId(ps, &sid), ACL_SUCCESS);
    assert_int_equal(aclrtPersistentTaskClean(ps), ACL_ERROR_RT_INTERNAL_ERROR);
    snprintf(want, sizeof want, "Clearing tasks in a stream failed. Parameter stream is invalid. "
             "Reason: Stream (stream_id=%d) must be bound to a model.", (int)sid);
    expect_msg("Invalid_Argument(EE1017)", want);
    assert_int_equal(aclrtDestroyStream(ps), ACL_SUCCESS);
    /* the overflow status: 64 zero bytes written on the stream */
    assert_int_equal(aclrtNpuGetFloatOverFlowStatus(NULL, 64, 0, stream),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Obtaining the Float exception status of "
               "the NPU failed because outputAddrPtr cannot be a NULL pointer.");
    assert_int_equal(aclrtNpuGetFloatOverFlowStatus(p, 32, 0, stream),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Obtaining the Float exception status of the NPU "
               "failed because value 32 for parameter outputSize is invalid. Expected value: 64.");
    assert_int_equal(aclrtMemset(p, 4096, 0xff, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtNpuGetFloatOverFlowStatus(p, 64, 0, stream), ACL_SUCCESS);
    assert_int_equal(aclrtNpuClearFloatOverFlowStatus(0, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    unsigned char got[80], zero[64] = {0};
    assert_int_equal(aclrtMemcpy(got, 80, p, 80, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(got, zero, 64);
    assert_int_equal(got[64], 0xff); /* nothing past the 64 bytes */
    /* the context's overflow buffer: device memory, the same each time */
    void *o1 = NULL, *o2 = NULL;
    assert_int_equal(aclrtCtxGetFloatOverflowAddr(&o1), ACL_SUCCESS);
    assert_int_equal(aclrtCtxGetFloatOverflowAddr(&o2), ACL_SUCCESS);
    assert_ptr_equal(o1, o2);
    aclrtPtrAttributes attr;
    assert_int_equal(aclrtPointerGetAttributes(o1, &attr), ACL_SUCCESS);
    assert_int_equal(attr.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    assert_int_equal(aclrtMemcpy(got, 64, o1, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(got, zero, 64);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_getters_reject_null_and_dead_handles),
        cmocka_unit_test(test_stream_priority_flags_and_ids),
        cmocka_unit_test(test_default_stream_is_a_usable_handle_not_destroyable),
        cmocka_unit_test(test_stream_attributes_and_modes),
        cmocka_unit_test(test_stream_config_handles_and_create_v2),
        cmocka_unit_test(test_sync_timeout_checks_and_abort),
        cmocka_unit_test(test_event_ids_timestamps_and_counts),
        cmocka_unit_test(test_notify_bad_input),
        cmocka_unit_test(test_notify_wait_before_record_orders_work),
        cmocka_unit_test(test_unsatisfied_notify_wait_never_hangs),
        cmocka_unit_test(test_value_write_and_wait),
        cmocka_unit_test(test_cnt_notify_bad_input),
        cmocka_unit_test(test_cnt_notify_counts_and_waits),
        cmocka_unit_test(test_cnt_notify_wait_times_out),
        cmocka_unit_test(test_cnt_notify_record_is_captured_and_replayed),
        cmocka_unit_test(test_task_ids_clean_and_overflow),
        cmocka_unit_test(test_persistent_task_clean_clears_the_model_stream),
        cmocka_unit_test(test_peer_access_gates_copies_between_devices),
        cmocka_unit_test(test_peer_access_outlives_the_peer_reset),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
