/*
 * test_capture.c - stream capture and model runtime instances: work put on
 * a capturing stream is recorded, not run, and every aclmdlRIExecuteAsync
 * runs it again on the device bytes of its moment; the calls CANN refuses
 * during a capture answer its codes and texts, case by case; the model
 * calls (names, ids, streams, tasks, JSON, destroy callbacks) answer as
 * CANN's; the allocator sanitizer reports memory a live graph still uses; a
 * model built stream by stream jumps between labels by an index in device
 * memory (docs/zh/api_ref/10_label_management.md: past the end, the last
 * label).
 *
 * Codes and texts: hicann/runtime src/runtime/core/src/common/
 * errcode_manage.cc L147-170 (codes), src/runtime/api/impl/api_error.cc
 * L1391 (stream destruction), L1781 (event synchronisation), L2258 (a
 * pageable copy), src/runtime/feature/aclgraph/context_aclgraph.cc L293
 * (begin twice), L229-258 (IsCaptureModeSupport: which thread may copy
 * synchronously), L512 (end on a stream not capturing), L348-405 (a joined
 * stream not rejoined), capture_model_utils.cc L75-88 (the wrong thread),
 * api_impl.cc L1612-1660 (waits: default stream, a record outside the
 * capture, ACL_EVENT_WAIT_EXTERNAL), src/acl/aclrt_impl/model_ri.cpp
 * (NULL arguments: 100000).
 */
#include <pthread.h>
#include <stdlib.h>
#include "testutil.h"
#include "acl/acl_op.h"
#include "acl/acl_rt_allocator.h"
#include "aclsim/aclsim.h"

enum { N = 4096 };
static unsigned char host[N], out[N];
static void *a, *b, *c;
static aclrtStream s, t;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&t), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&a, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&b, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&c, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclrtFree(a);
    aclrtFree(b);
    aclrtFree(c);
    aclrtDestroyStream(s);
    aclrtDestroyStream(t);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

static uint32_t sid(aclrtStream st)
{
    int32_t id = -1;
    assert_int_equal(aclrtStreamGetId(st, &id), ACL_SUCCESS);
    return (uint32_t)id;
}

static void put(void *dev, unsigned char v)
{
    memset(host, v, N);
    assert_int_equal(aclrtMemcpy(dev, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
}

/* Whether every byte at dev is v, read by the host now. */
static bool all(const void *dev, unsigned char v)
{
    assert_int_equal(aclrtMemcpy(out, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < N; i++)
        if (out[i] != v)
            return false;
    return true;
}

/* End a capture that is expected to succeed and return its graph. */
static aclmdlRI end_ok(aclrtStream st)
{
    aclmdlRI ri = NULL;
    assert_int_equal(aclmdlRICaptureEnd(st, &ri), ACL_SUCCESS);
    assert_non_null(ri);
    return ri;
}

/* ---- Recording and replay ---- */

static void test_captured_work_runs_at_each_replay(void **state)
{
    (void)state;
    put(a, 1);
    put(b, 0);
    put(c, 0);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(c, N, 7, N, s), ACL_SUCCESS);
    aclmdlRI ri = end_ok(s);
    assert_true(all(b, 0)); /* recorded, not run */
    assert_true(all(c, 0));
    assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_true(all(b, 1));
    assert_true(all(c, 7));
    put(a, 2); /* a replay reads the bytes of its moment */
    assert_int_equal(aclmdlRIExecuteAsync(ri, t), ACL_SUCCESS); /* any stream */
    assert_int_equal(aclrtSynchronizeStream(t), ACL_SUCCESS);
    assert_true(all(b, 2));
    /* memory freed elsewhere between replays: the graph checks its own
     * again and still copies */
    void *other;
    assert_int_equal(aclrtMalloc(&other, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(other), ACL_SUCCESS);
    put(a, 3);
    assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_true(all(b, 3));
    /* a captured graph runs asynchronously only (api_error.cc L4039-4041) */
    assert_int_equal(aclmdlRIExecute(ri, -1), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1016)", "Synchronously executing the model running instance "
               "failed. Reason: ACL Graph mode is not supported.");
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
}

static void test_get_info_follows_the_capture(void **state)
{
    (void)state;
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    aclmdlRI cur = (aclmdlRI)1;
    assert_int_equal(aclmdlRICaptureGetInfo(s, &st, &cur), ACL_SUCCESS);
    assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    assert_null(cur);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureGetInfo(s, &st, NULL), ACL_SUCCESS);
    assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(aclmdlRICaptureGetInfo(s, NULL, &cur), ACL_SUCCESS);
    assert_non_null(cur);
    aclmdlRI ri = end_ok(s);
    assert_ptr_equal(ri, cur); /* the graph being captured is the one End gives */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    /* model_ri.cpp: both outputs NULL */
    assert_int_equal(aclmdlRICaptureGetInfo(s, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0001)", "Value nullptr/nullptr for status/modelRI is invalid. "
               "Reason: both cannot be nullptr at the same time.");
}

static void test_operator_is_captured_and_replayed(void **state)
{
    (void)state;
    float h[N / 4];
    for (int i = 0; i < N / 4; i++)
        h[i] = 1.5f;
    assert_int_equal(aclrtMemcpy(a, N, h, N, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    put(c, 0);
    int64_t dims[1] = {N / 4};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    aclDataBuffer *in[2] = {aclCreateDataBuffer(a, N), aclCreateDataBuffer(a, N)};
    aclDataBuffer *o = aclCreateDataBuffer(c, N);
    const aclTensorDesc *ind[2] = {d, d};
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclopExecuteV2("Add", 2, (aclTensorDesc **)ind, in, 1, &d, &o, NULL, s),
                     ACL_SUCCESS);
    aclmdlRI ri = end_ok(s);
    assert_true(all(c, 0));
    assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(h, N, c, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(h[0] == 3.0f && h[N / 4 - 1] == 3.0f);
    uint32_t n = 0;
    assert_int_equal(aclmdlRIGetTasksByStream(s, NULL, &n), ACL_SUCCESS);
    assert_int_equal(n, 1);
    aclmdlRITask task;
    assert_int_equal(aclmdlRIGetTasksByStream(s, &task, &n), ACL_SUCCESS);
    aclmdlRITaskType type = ACL_MODEL_RI_TASK_DEFAULT;
    assert_int_equal(aclmdlRITaskGetType(task, &type), ACL_SUCCESS);
    assert_int_equal(type, ACL_MODEL_RI_TASK_KERNEL);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    aclDestroyDataBuffer(in[0]);
    aclDestroyDataBuffer(in[1]);
    aclDestroyDataBuffer(o);
    aclDestroyTensorDesc(d);
}

/* ---- What a capture refuses ---- */

static void test_begin_refusals(void **state)
{
    (void)state;
    assert_int_equal(aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclmdlRICaptureBegin", "stream");
    assert_int_equal(aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)3), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
                     ACL_ERROR_RT_STREAM_CAPTURED); /* 107027 */
    char want[256];
    snprintf(want, sizeof want, "Stream begin capture failed. Reason: Stream is already in "
             "capture status, device_id=0, stream_id=%u, status=active.", sid(s));
    expect_msg("Not_Supported(EE1016)", want);
    aclmdlRIDestroy(end_ok(s));
}

static void test_capturing_stream_is_not_synchronised(void **state)
{
    (void)state;
    aclrtContext mine, other;
    assert_int_equal(aclrtGetCurrentContext(&mine), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&other, 0), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(mine), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    char want[256];
    assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CAPTURED);
    snprintf(want, sizeof want, "Synchronizing a stream failed. Reason: Stream (stream_id=%u) "
             "during the capture stage is not supported.", sid(s));
    expect_msg("Not_Supported(EE1016)", want);
    aclrtStreamStatus status;
    FAILS(aclrtStreamQuery(s, &status), ACL_ERROR_RT_STREAM_CAPTURED);
    assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CAPTURED);
    snprintf(want, sizeof want, "Stream destruction failed. Reason: Stream (stream_id=%u) during "
             "the capture stage is not supported.", sid(s));
    expect_msg("Not_Supported(EE1016)", want);
    FAILS(aclrtSynchronizeDevice(), ACL_ERROR_RT_STREAM_CAPTURED);
    /* Only the capturing stream's context is refused: a device
     * synchronisation walks the current context's streams (hicann/runtime
     * context.cc Context::Synchronize L1225-1233), and another context of
     * the device has none that captures. */
    assert_int_equal(aclrtSetCurrentContext(other), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDeviceWithTimeout(1000), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(mine), ACL_SUCCESS);
    FAILS(aclrtSynchronizeDeviceWithTimeout(1000), ACL_ERROR_RT_STREAM_CAPTURED);
    assert_int_equal(aclrtDestroyContext(other), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(mine), ACL_SUCCESS);
    aclmdlRI ri = end_ok(s);
    FAILS(aclmdlRIExecuteAsync(NULL, s), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS); /* after End: as ever */
}

struct copier {
    aclError rc;
};

static void *copy_from_other_thread(void *arg)
{
    struct copier *cp = arg;
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    cp->rc = aclrtMemcpy(out, N, a, N, ACL_MEMCPY_DEVICE_TO_HOST);
    (void)aclGetRecentErrMsg();
    return NULL;
}

static aclError copy_elsewhere(void)
{
    struct copier cp = {ACL_SUCCESS};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, copy_from_other_thread, &cp), 0);
    pthread_join(th, NULL);
    return cp.rc;
}

static void test_modes_decide_who_copies_synchronously(void **state)
{
    (void)state;
    /* GLOBAL: no thread may */
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(out, N, a, N, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(strstr(m, "This operation is supported only in the RELAXED mode. The mode set "
                              "using the aclmdlRICaptureBegin API is GLOBAL"));
    FAILS(aclrtMemset(a, N, 0, N), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    assert_int_equal(copy_elsewhere(), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    /* ...unless it exchanges its mode for RELAXED */
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    assert_int_equal(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
    assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL); /* the default it had */
    assert_int_equal(aclrtMemcpy(out, N, a, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
    assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
    aclmdlRIDestroy(end_ok(s));
    /* THREAD_LOCAL: only the capturing thread may not */
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL), ACL_SUCCESS);
    FAILS(aclrtMemcpy(out, N, a, N, ACL_MEMCPY_DEVICE_TO_HOST),
          ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    assert_int_equal(copy_elsewhere(), ACL_SUCCESS);
    aclmdlRIDestroy(end_ok(s));
    /* RELAXED: everyone may */
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(out, N, a, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(aclmdlRIExecute(NULL, -1), ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    aclmdlRIDestroy(end_ok(s));
    mode = (aclmdlRICaptureMode)3;
    FAILS(aclmdlRICaptureThreadExchangeMode(&mode), ACL_ERROR_RT_PARAM_INVALID);
}

static void host_fn(void *arg)
{
    (void)arg;
}

static void test_host_function_in_a_capture_is_refused(void **state)
{
    (void)state;
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchHostFunc(s, host_fn, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    char want[200];
    snprintf(want, sizeof want, "aclrtLaunchHostFunc failed. Reason: a host callback on a "
             "capturing stream (stream_id=%u) is not simulated by aclsim: launch it outside the "
             "capture.", sid(s));
    expect_msg("Not_Supported(EE1016)", want);
    aclmdlRIDestroy(end_ok(s));
}

static void test_pageable_copy_is_not_captured(void **state)
{
    (void)state;
    static unsigned char pageable[N];
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(a, N, pageable, N, ACL_MEMCPY_HOST_TO_DEVICE, s),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1016)", "Asynchronous copy task failed. Reason: The pageable "
               "memory copy task does not support graph capture.");
    /* on another stream it turns synchronous, which GLOBAL forbids (107041) */
    FAILS(aclrtMemcpyAsync(a, N, pageable, N, ACL_MEMCPY_HOST_TO_DEVICE, t),
          ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC);
    aclmdlRIDestroy(end_ok(s));
}

static void test_end_refusals(void **state)
{
    (void)state;
    aclmdlRI ri = (aclmdlRI)1;
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_ERROR_RT_STREAM_NOT_CAPTURED); /* 107029 */
    char want[256];
    snprintf(want, sizeof want, "Stream end capture failed. Reason: The stream (stream_id=%u) is "
             "not in capture status, call aclmdlRICaptureBegin to capture the stream first.",
             sid(s));
    expect_msg("Invalid_Argument_API_Call_Sequence(EE1018)", want);
    assert_null(ri);
    FAILS(aclmdlRICaptureEnd(NULL, &ri), ACL_ERROR_INVALID_PARAM);
    /* No ACL layer check of modelRI (model_ri.cpp L93-104): the runtime's
     * wants one for a capture of its own (api_impl_aclgraph.cc L43-52). */
    FAILS(aclmdlRICaptureEnd(s, NULL), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureEnd(s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Ending the capture of a stream failed "
               "because captureMdl cannot be a NULL pointer.");
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_SUCCESS); /* it still captured */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
}

static aclError end_elsewhere_rc;
static void *end_from_other_thread(void *arg)
{
    aclmdlRI ri = NULL;
    end_elsewhere_rc = aclmdlRICaptureEnd((aclrtStream)arg, &ri);
    (void)aclGetRecentErrMsg();
    if (ri)
        aclmdlRIDestroy(ri);
    return NULL;
}

static void test_end_on_the_wrong_thread(void **state)
{
    (void)state;
    pthread_t th;
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(pthread_create(&th, NULL, end_from_other_thread, s), 0);
    pthread_join(th, NULL);
    assert_int_equal(end_elsewhere_rc, ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD); /* 107038 */
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    assert_int_equal(aclmdlRICaptureGetInfo(s, &st, NULL), ACL_SUCCESS);
    assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE); /* the capture is gone */
    /* RELAXED: any thread ends it */
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(pthread_create(&th, NULL, end_from_other_thread, s), 0);
    pthread_join(th, NULL);
    assert_int_equal(end_elsewhere_rc, ACL_SUCCESS);
}

/* ---- Events across streams ---- */

static void test_joined_stream_replays_in_order(void **state)
{
    (void)state;
    aclrtEvent fork, join;
    assert_int_equal(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEventExWithFlag(&join, ACL_EVENT_SYNC), ACL_SUCCESS);
    put(a, 5);
    put(b, 0);
    put(c, 0);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(fork, s), ACL_SUCCESS);
    uint32_t id = 0;
    assert_int_equal(aclrtGetEventId(fork, &id), ACL_SUCCESS);
    aclrtEventRecordedStatus rs;
    assert_int_equal(aclrtQueryEventStatus(fork, &rs), ACL_ERROR_RT_EVENT_CAPTURED); /* 107028 */
    char want[160];
    snprintf(want, sizeof want, "Event query failed. Reason: Event (event_id=%u) during the "
             "capture stage is not supported.", id);
    expect_msg("Not_Supported(EE1016)", want);
    FAILS(aclrtSynchronizeEvent(fork), ACL_ERROR_RT_EVENT_CAPTURED);
    FAILS(aclrtStreamWaitEvent(NULL, fork), ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT); /* 107031 */
    assert_int_equal(aclrtStreamWaitEvent(t, fork), ACL_SUCCESS); /* t joins */
    assert_int_equal(aclrtMemcpyAsync(c, N, b, N, ACL_MEMCPY_DEVICE_TO_DEVICE, t), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(join, t), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(s, join), ACL_SUCCESS); /* and rejoins */
    aclmdlRI ri = end_ok(s);
    uint32_t n = 0;
    assert_int_equal(aclmdlRIGetStreams(ri, NULL, &n), ACL_SUCCESS);
    assert_int_equal(n, 2);
    assert_true(all(c, 0));
    assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_true(all(c, 5)); /* t's copy ran after s's */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    aclrtDestroyEvent(fork);
    aclrtDestroyEvent(join);
}

static void test_unjoined_stream_fails_end(void **state)
{
    (void)state;
    aclrtEvent fork;
    assert_int_equal(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(fork, s), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(t, fork), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(c, N, 1, N, t), ACL_SUCCESS);
    aclmdlRI ri = (aclmdlRI)1;
    FAILS(aclmdlRICaptureEnd(t, &ri), ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED); /* 107036 */
    assert_int_equal(aclmdlRICaptureEnd(s, &ri), ACL_ERROR_RT_STREAM_UNJOINED); /* 107025 */
    const char *m = aclGetRecentErrMsg();
    assert_non_null(strstr(m, "Invalid_Argument(EE1017)"));
    assert_non_null(strstr(m, "lacks the corresponding event wait task"));
    assert_null(ri);
    assert_int_equal(aclrtSynchronizeStream(t), ACL_SUCCESS); /* t is free again */
    aclrtDestroyEvent(fork);
}

static void test_wait_on_outside_record_is_refused(void **state)
{
    (void)state;
    aclrtEvent e;
    assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, t), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(t), ACL_SUCCESS);
    /* an external wait outside any capture: 107029 */
    assert_int_equal(aclrtStreamWaitEventWithFlag(t, e, 0, ACL_EVENT_WAIT_EXTERNAL),
                     ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    char want[128];
    snprintf(want, sizeof want, "Triggering event waiting failed. Reason: Stream %u is not in the "
             "capture stage.", sid(t));
    expect_msg("Not_Supported(EE1016)", want);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEventWithFlag(s, e, 0, ACL_EVENT_WAIT_EXTERNAL), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(s, e), ACL_ERROR_RT_CAPTURE_DEPENDENCY); /* 107024 */
    const char *m = aclGetRecentErrMsg();
    assert_non_null(strstr(m, "ACL_EVENT_WAIT_EXTERNAL"));
    /* refused without invalidating the capture: api_impl.cc L1654-1666
     * returns RT_ERROR_STREAM_CAPTURE_ISOLATION (107024, errcode_manage.cc
     * L205-207) before any TerminateCapture */
    aclmdlRICaptureStatus st;
    assert_int_equal(aclmdlRICaptureGetInfo(s, &st, NULL), ACL_SUCCESS);
    assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(aclrtMemsetAsync(a, N, 3, N, s), ACL_SUCCESS);
    aclmdlRI ri = end_ok(s);
    put(a, 0);
    assert_int_equal(aclmdlRIExecuteAsync(ri, t), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(t), ACL_SUCCESS);
    assert_true(all(a, 3));
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    aclrtDestroyEvent(e);
}

/* A context destroyed while its stream captures takes the stream (CANN's
 * context destruction destroys its streams): the capture ends with it, and
 * its graph can only be destroyed (nothing is left to run it faithfully;
 * memcheck and AddressSanitizer see no stream used after it went). */
static void test_context_destroyed_under_a_capture(void **state)
{
    (void)state;
    aclrtContext ctx, mine;
    aclrtStream cs;
    aclmdlRI ri = NULL;
    assert_int_equal(aclrtGetCurrentContext(&mine), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&cs), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(cs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(a, N, 5, N, cs), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureGetInfo(cs, NULL, &ri), ACL_SUCCESS);
    assert_non_null(ri);
    assert_int_equal(aclrtDestroyContext(ctx), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(mine), ACL_SUCCESS);
    FAILS(aclmdlRIExecuteAsync(ri, s), ACL_ERROR_RT_MODEL_EXECUTE);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    aclmdlRICaptureStatus st;
    assert_int_equal(aclmdlRICaptureGetInfo(s, &st, NULL), ACL_SUCCESS);
    assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
}

/* ---- The model calls ---- */

static int destroyed;
static void on_destroy(void *data)
{
    destroyed += *(int *)data;
}

static void test_names_ids_json_and_destroy_callbacks(void **state)
{
    (void)state;
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(c, N, 3, N, s), ACL_SUCCESS);
    aclmdlRI ri = end_ok(s);
    assert_int_equal(aclmdlRISetName(ri, "decode-bs8"), ACL_SUCCESS);
    char name[8];
    assert_int_equal(aclmdlRIGetName(ri, sizeof name, name), ACL_SUCCESS);
    assert_string_equal(name, "decode-"); /* truncated to maxLen */
    FAILS(aclmdlRISetName(ri, NULL), ACL_ERROR_INVALID_PARAM);
    uint32_t id1, id2;
    assert_int_equal(aclmdlRIGetId(ri, &id1), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    aclmdlRI ri2 = end_ok(s);
    assert_int_equal(aclmdlRIGetId(ri2, &id2), ACL_SUCCESS);
    assert_int_equal(id2, id1 + 1);
    const char *path = "build_test_capture.json";
    assert_int_equal(aclmdlRIDebugJsonPrint(ri, path, ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE),
                     ACL_SUCCESS);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char text[2048] = {0};
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    remove(path);
    assert_true(got > 0);
    assert_non_null(strstr(text, "\"name\": \"decode-bs8\""));
    assert_non_null(strstr(text, "\"call\": \"aclrtMemsetAsync\""));
    assert_non_null(strstr(text, "\"bytes\": 4096"));
    FAILS(aclmdlRIDebugJsonPrint(ri, path, 2), ACL_ERROR_RT_PARAM_INVALID);
    static int one = 1, ten = 10;
    assert_int_equal(aclmdlRIDestroyRegisterCallback(ri, on_destroy, &one), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroyRegisterCallback(ri2, on_destroy, &ten), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroyUnregisterCallback(ri2, on_destroy), ACL_SUCCESS);
    FAILS(aclmdlRIDestroyUnregisterCallback(ri2, on_destroy), ACL_ERROR_RT_PARAM_INVALID);
    destroyed = 0;
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(ri2), ACL_SUCCESS);
    assert_int_equal(destroyed, 1);
    FAILS(aclmdlRIDestroy(ri), ACL_ERROR_RT_PARAM_INVALID); /* gone */
    FAILS(aclmdlRIDestroy(NULL), ACL_ERROR_INVALID_PARAM);
}

/* ---- Models built stream by stream, and labels ---- */

static void test_built_model_switches_by_index(void **state)
{
    (void)state;
    aclrtStream ps;
    assert_int_equal(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT), ACL_SUCCESS);
    void *idx;
    assert_int_equal(aclrtMalloc(&idx, 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclrtLabel l[2];
    aclrtLabelList list;
    assert_int_equal(aclrtCreateLabel(&l[0]), ACL_SUCCESS);
    assert_int_equal(aclrtCreateLabel(&l[1]), ACL_SUCCESS);
    assert_int_equal(aclrtCreateLabelList(l, 2, &list), ACL_SUCCESS);
    FAILS(aclrtSetLabel(l[0], ps), ACL_ERROR_RT_PARAM_INVALID); /* not bound yet */
    aclmdlRI ri;
    FAILS(aclmdlRIBuildBegin(NULL, 0), ACL_ERROR_INVALID_PARAM);
    FAILS(aclmdlRIBuildBegin(&ri, 1), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclmdlRIBuildBegin(&ri, 0), ACL_SUCCESS);
    FAILS(aclmdlRIBindStream(ri, ps, 5), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclmdlRIBindStream(ri, ps, ACL_MODEL_STREAM_FLAG_HEAD), ACL_SUCCESS);
    FAILS(aclrtSwitchLabelByIndex(host, 2, list, ps), ACL_ERROR_RT_PARAM_INVALID); /* host */
    assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, list, ps), ACL_SUCCESS);
    assert_int_equal(aclrtSetLabel(l[0], ps), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(a, N, 1, N, ps), ACL_SUCCESS);
    assert_int_equal(aclrtSetLabel(l[1], ps), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(b, N, 2, N, ps), ACL_SUCCESS);
    FAILS(aclmdlRIEndTask(ri, t), ACL_ERROR_RT_PARAM_INVALID); /* t is not bound */
    assert_int_equal(aclmdlRIEndTask(ri, ps), ACL_SUCCESS);
    FAILS(aclmdlRIBuildEnd(ri, (void *)1), ACL_ERROR_INVALID_PARAM);
    FAILS(aclmdlRIExecuteAsync(ri, s), ACL_ERROR_RT_MODEL_CAPTURED); /* not built yet */
    assert_int_equal(aclmdlRIBuildEnd(ri, NULL), ACL_SUCCESS);
    /* index 0: label 0's fill, then on into label 1's; 1: label 1's only;
     * past the end: the last label */
    static const uint32_t choose[3] = {0, 1, 7};
    static const unsigned char want_a[3] = {1, 0, 0};
    for (int i = 0; i < 3; i++) {
        put(a, 0);
        put(b, 0);
        assert_int_equal(aclrtMemcpy(idx, 4, &choose[i], 4, ACL_MEMCPY_HOST_TO_DEVICE),
                         ACL_SUCCESS);
        assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS);
        assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
        assert_true(all(a, want_a[i]));
        assert_true(all(b, 2));
    }
    assert_int_equal(aclmdlRIUnbindStream(ri, ps), ACL_SUCCESS);
    FAILS(aclmdlRIUnbindStream(ri, t), ACL_ERROR_RT_STREAM_MODEL); /* model.cc L604-608 */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyLabelList(list), ACL_SUCCESS);
    FAILS(aclrtDestroyLabelList(list), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtDestroyLabel(l[0]), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyLabel(l[1]), ACL_SUCCESS);
    FAILS(aclrtSetLabel(l[0], ps), ACL_ERROR_RT_PARAM_INVALID); /* destroyed */
    assert_int_equal(aclrtFree(idx), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(ps), ACL_SUCCESS);
}

/* aclmdlRIGetStreams and aclmdlRIGetTasksByStream have no ACL layer check
 * (model_ri.cpp L323-331): a NULL is the runtime's 107000, numStreams
 * first (api_c_standard_soc.cc L1858-1859: the handle check passes a NULL
 * through, runtime_handle_guard.cc L112-115), then the model
 * (api_error.cc L7770-7773) or the stream and count (L7793-7794). A short
 * array: 107039; GetStreams copies its array out on success only
 * (api_c_standard_soc.cc L1866-1881; model.cc L2289-2306), so it is left
 * as it was, even for a count of 0; GetTasksByStream writes the first tasks
 * into the caller's array (stream.cc L5427-5447). */
static void test_model_queries_answer_as_the_runtime(void **state)
{
    (void)state;
    static const char gs[] = "Obtaining the stream associated with a model running instance";
    static const char gt[] = "Obtaining all tasks in a stream";
    char want[320];
    aclrtEvent fork, join;
    assert_int_equal(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEventExWithFlag(&join, ACL_EVENT_SYNC), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(a, N, 1, N, s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(fork, s), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(t, fork), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(b, N, 2, N, t), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(join, t), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(s, join), ACL_SUCCESS);
    aclmdlRI ri = end_ok(s);
    uint32_t n = 2;
    aclrtStream st[3];
    assert_int_equal(aclmdlRIGetStreams(NULL, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)",
               "rtModelGetStreams failed because numStreams cannot be a NULL pointer.");
    assert_int_equal(aclmdlRIGetStreams(NULL, st, &n), ACL_ERROR_RT_PARAM_INVALID);
    snprintf(want, sizeof want, "%s failed because mdl cannot be a NULL pointer.", gs);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", want);
    for (uint32_t room = 0; room < 2; room++) {
        st[0] = st[1] = st[2] = (aclrtStream)&n;
        n = room;
        assert_int_equal(aclmdlRIGetStreams(ri, st, &n), ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY);
        snprintf(want, sizeof want, "%s failed. Value %u for parameter numStreams is invalid. "
                 "Reason: The array space is insufficient. The array size is less than the total "
                 "number of model streams 2.", gs, room);
        expect_msg("Invalid_Argument(EE1011)", want);
        assert_int_equal(n, room);
        assert_ptr_equal(st[0], &n); /* untouched */
    }
    n = 3;
    assert_int_equal(aclmdlRIGetStreams(ri, st, &n), ACL_SUCCESS);
    assert_int_equal(n, 2);
    assert_ptr_equal(st[0], s);
    assert_ptr_equal(st[1], t);
    assert_null(st[2]); /* the rest NULL */
    /* the tasks of s: a fill, a record, a wait */
    aclmdlRITask tk[4];
    assert_int_equal(aclmdlRIGetTasksByStream(NULL, tk, &n), ACL_ERROR_RT_PARAM_INVALID);
    snprintf(want, sizeof want, "%s failed because stm cannot be a NULL pointer.", gt);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", want);
    assert_int_equal(aclmdlRIGetTasksByStream(s, tk, NULL), ACL_ERROR_RT_PARAM_INVALID);
    snprintf(want, sizeof want, "%s failed because numTasks cannot be a NULL pointer.", gt);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", want);
    assert_int_equal(aclmdlRIGetTasksByStream(s, NULL, &n), ACL_SUCCESS);
    assert_int_equal(n, 3);
    tk[0] = tk[1] = NULL;
    n = 1;
    assert_int_equal(aclmdlRIGetTasksByStream(s, tk, &n), ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY);
    snprintf(want, sizeof want, "%s failed. Value 1 for parameter numTasks is invalid. Reason: "
             "The array space is insufficient. The array size is less than the total number of "
             "tasks in model streams 3.", gt);
    expect_msg("Invalid_Argument(EE1011)", want);
    assert_non_null(tk[0]); /* the first task given */
    assert_null(tk[1]);
    aclmdlRITaskType type;
    assert_int_equal(aclmdlRITaskGetType(tk[0], &type), ACL_SUCCESS);
    assert_int_equal(type, ACL_MODEL_RI_TASK_DEFAULT); /* the fill */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    aclrtDestroyEvent(fork);
    aclrtDestroyEvent(join);
}

/* Binding as rtsModelBindStream (api_c_model.cc L72-97) and the error
 * decorator (api_error.cc L3895-3985, L4229-4246) bind: a non-persistent
 * stream is 107000 (L82-84), a stream bound to a model 107005 EE1007
 * (L85-94); a captured graph takes no bind, unbind, end of tasks or end of
 * build (107000 "ACL Graph mode is not supported"); a model's own stream
 * runs no model (L3993-3995, 107000 EE1017) until it is unbound
 * (model.cc L597-628; one not bound: 107005 EE4002, L604-608); a model
 * whose build never ended is destroyed (ModelDestroy L3877-3893 checks no
 * build). */
static void test_model_streams_bind_as_the_runtime_binds(void **state)
{
    (void)state;
    char want[320];
    aclrtStream ps, ps2;
    assert_int_equal(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStreamWithConfig(&ps2, 0, ACL_STREAM_PERSISTENT), ACL_SUCCESS);
    aclmdlRI m1, m2;
    uint32_t id1, id2;
    assert_int_equal(aclmdlRIBuildBegin(&m1, 0), ACL_SUCCESS);
    assert_int_equal(aclmdlRIBuildBegin(&m2, 0), ACL_SUCCESS);
    assert_int_equal(aclmdlRIGetId(m1, &id1), ACL_ERROR_RT_MODEL_CAPTURED); /* not built yet */
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclmdlRIBindStream(m1, t, ACL_MODEL_STREAM_FLAG_HEAD),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "rtsModelBindStream failed. Parameter stm is invalid. "
               "Reason: Non-persistent stream cannot be bound to a model.");
    assert_int_equal(aclmdlRIBindStream(m1, ps, ACL_MODEL_STREAM_FLAG_HEAD), ACL_SUCCESS);
    assert_int_equal(aclmdlRIBindStream(m2, ps, ACL_MODEL_STREAM_FLAG_HEAD),
                     ACL_ERROR_RT_STREAM_MODEL);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_non_null(strstr(m, "Resource_Error_Bind_Stream(EE1007): Failed to bind stream "
                              "(stream_id="));
    assert_non_null(strstr(m, "Reason: The current stream has been bound to a model (model_id="));
    assert_int_equal(aclrtMemsetAsync(a, N, 6, N, ps), ACL_SUCCESS);
    assert_int_equal(aclmdlRIEndTask(m1, ps), ACL_SUCCESS);
    assert_int_equal(aclmdlRIBuildEnd(m1, NULL), ACL_SUCCESS);
    assert_int_equal(aclmdlRIGetId(m1, &id1), ACL_SUCCESS);
    /* still a model stream: bound once built, it runs no model */
    assert_int_equal(aclmdlRIBindStream(m2, ps, ACL_MODEL_STREAM_FLAG_HEAD),
                     ACL_ERROR_RT_STREAM_MODEL);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclmdlRIExecuteAsync(m1, ps), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1017)", "Executing the model running instance failed. "
               "Parameter stm is invalid. Reason: The current stream cannot be the same as the "
               "model stream.");
    assert_int_equal(aclmdlRIUnbindStream(m1, ps2), ACL_ERROR_RT_STREAM_MODEL);
    snprintf(want, sizeof want, "Failed to unbind the stream from the model. The specified "
             "stream (stream_id=%u) is not bound to the current model (model_id=%u).", sid(ps2),
             id1);
    expect_msg("Model_Unbinding_Errors(EE4002)", want);
    assert_int_equal(aclmdlRIUnbindStream(m1, ps), ACL_SUCCESS);
    FAILS(aclmdlRIUnbindStream(m1, ps), ACL_ERROR_RT_STREAM_MODEL); /* once */
    /* unbound: an ordinary stream, which runs the model and binds again */
    put(a, 0);
    assert_int_equal(aclmdlRIExecuteAsync(m1, ps), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(ps), ACL_SUCCESS);
    assert_true(all(a, 6));
    assert_int_equal(aclmdlRIBindStream(m2, ps, ACL_MODEL_STREAM_FLAG_HEAD), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(m2), ACL_SUCCESS); /* its build never ended */
    /* a captured graph */
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(a, N, 1, N, s), ACL_SUCCESS);
    aclmdlRI cg = end_ok(s);
    assert_int_equal(aclmdlRIBindStream(cg, ps2, ACL_MODEL_STREAM_FLAG_HEAD),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1016)", "Binding a model running instance to a stream failed. "
               "Reason: ACL Graph mode is not supported.");
    assert_int_equal(aclmdlRIUnbindStream(cg, s), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1016)", "Unbinding a model running instance from a stream "
               "failed. Reason: ACL Graph mode is not supported.");
    assert_int_equal(aclmdlRIEndTask(cg, s), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1016)", "Delivering the EndGraph flag to the stream of a model "
               "failed. Reason: ACL Graph mode is not supported.");
    assert_int_equal(aclmdlRIBuildEnd(cg, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Not_Supported(EE1016)", "Ending the build of a model running instance failed. "
               "Reason: ACL Graph mode is not supported.");
    assert_int_equal(aclmdlRIDestroy(cg), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(m1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(ps), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(ps2), ACL_SUCCESS);
    (void)id2;
}

/* The ACL layer refuses NULL arguments of the label calls, the stream
 * included (label.cpp L38-39, L63-64, L89-91: 100000); a list's count is
 * checked, 0 < num <= 65535, before its array is read (api_c_model.cc
 * L176-178, MAX_UINT16_NUM base_info.hpp L49). */
static void test_label_arguments_are_checked_first(void **state)
{
    (void)state;
    aclrtLabel l[1];
    aclrtLabelList list = NULL;
    void *idx;
    assert_int_equal(aclrtCreateLabel(&l[0]), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&idx, 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    static const size_t bad[] = {0, 65536, (size_t)-1};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(aclrtCreateLabelList(l, bad[i], &list), ACL_ERROR_RT_PARAM_INVALID);
        char want[160];
        snprintf(want, sizeof want, "rtsLabelSwitchListCreate failed because value %zu for "
                 "parameter num is invalid. Expected value: (0, 65535].", bad[i]);
        expect_msg("Invalid_Argument(EE1003)", want);
        assert_null(list);
    }
    assert_int_equal(aclrtCreateLabelList(NULL, 1, &list), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCreateLabelList", "labels");
    assert_int_equal(aclrtCreateLabelList(l, 1, &list), ACL_SUCCESS);
    assert_int_equal(aclrtSetLabel(NULL, s), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetLabel", "label");
    assert_int_equal(aclrtSetLabel(l[0], NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetLabel", "stream");
    assert_int_equal(aclrtSwitchLabelByIndex(idx, 1, list, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSwitchLabelByIndex", "stream");
    assert_int_equal(aclrtSwitchLabelByIndex(NULL, 1, list, s), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSwitchLabelByIndex", "ptr");
    assert_int_equal(aclrtDestroyLabelList(list), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyLabel(l[0]), ACL_SUCCESS);
    assert_int_equal(aclrtFree(idx), ACL_SUCCESS);
}

/* ---- The allocator sanitizer ---- */

static void test_free_under_a_live_graph_is_reported(void **state)
{
    (void)state;
    void *in;
    assert_int_equal(aclrtMalloc(&in, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(b, N, in, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
    aclmdlRI ri = end_ok(s);
    unsigned long before = aclsim_alloc_check_reports("graph-memory-freed");
    assert_int_equal(aclrtFree(in), ACL_SUCCESS); /* wrong: the graph reads it */
    assert_int_equal(aclsim_alloc_check_reports("graph-memory-freed"), before + 1);
    MISUSE_BEGIN();
    assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS); /* and a replay over it */
    MISUSE_END();
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclsim_alloc_check_reports("graph-memory-freed"), before + 2);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    void *again;
    assert_int_equal(aclrtMalloc(&again, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(again), ACL_SUCCESS); /* no graph: nothing to report */
    assert_int_equal(aclsim_alloc_check_reports("graph-memory-freed"), before + 2);
}

/* A replay never writes into host memory freed since the capture: the
 * copy to pinned memory freed meanwhile is skipped and reported, as for
 * device memory (CANN's device would write into memory someone else may
 * own now; the simulator's copy would corrupt the host heap). */
static void test_freed_host_memory_is_left_alone(void **state)
{
    (void)state;
    void *h, *h2, *h3;
    assert_int_equal(aclrtMallocHost(&h, N), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&h2, N), ACL_SUCCESS);
    memset(h, 3, N);
    memset(h2, 0, N);
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(a, N, h, N, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(h2, N, a, N, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
    aclmdlRI ri = end_ok(s);
    assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(((unsigned char *)h2)[N - 1], 3);
    unsigned long before = aclsim_alloc_check_reports("graph-memory-freed");
    assert_int_equal(aclrtFreeHost(h2), ACL_SUCCESS); /* wrong: the graph writes it */
    assert_int_equal(aclrtMallocHost(&h3, N), ACL_SUCCESS); /* perhaps at h2's place */
    memset(h3, 7, N);
    MISUSE_BEGIN();
    assert_int_equal(aclmdlRIExecuteAsync(ri, s), ACL_SUCCESS);
    MISUSE_END();
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_true(aclsim_alloc_check_reports("graph-memory-freed") > before);
    for (int i = 0; i < N; i++)
        assert_int_equal(((unsigned char *)h3)[i], 7); /* nothing written */
    assert_true(all(a, 3)); /* the rest of the replay ran */
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h3), ACL_SUCCESS);
}

/* An allocator with one block it hands out again and again: the
 * graph-private-pool rule broken. */
static void *slab;
static void *one_alloc(aclrtAllocator al, size_t n)
{
    (void)al;
    (void)n;
    return slab;
}
static void one_free(aclrtAllocator al, aclrtAllocatorBlock blk)
{
    (void)al;
    (void)blk;
}
static void *one_addr(aclrtAllocatorBlock blk)
{
    return blk;
}

static void test_block_reused_while_a_graph_holds_it(void **state)
{
    (void)state;
    static int obj;
    /* a stream of its own: one that ran an operator keeps its executor's
     * allocator (CANN ignores a later registration) */
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&slab, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_int_equal(aclrtAllocatorSetObjToDesc(d, &obj), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, one_alloc), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, one_free), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, one_addr), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    enum { M = 64 };
    int64_t dims[2] = {M, M};
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    aclDataBuffer *xb = aclCreateDataBuffer(a, M * M * 4 > N ? N : M * M * 4);
    void *x, *z;
    assert_int_equal(aclrtMalloc(&x, M * M * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&z, M * M * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(x, M * M * 4, 0, M * M * 4), ACL_SUCCESS);
    aclDestroyDataBuffer(xb);
    aclDataBuffer *in[2] = {aclCreateDataBuffer(x, M * M * 4), aclCreateDataBuffer(x, M * M * 4)};
    aclDataBuffer *ob = aclCreateDataBuffer(z, M * M * 4);
    aclTensorDesc *ind[2] = {td, td};
    unsigned long before = aclsim_alloc_check_reports("graph-block-reuse");
    assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    assert_int_equal(aclopExecuteV2("MatMul", 2, ind, in, 1, &td, &ob, NULL, s), ACL_SUCCESS);
    aclmdlRI ri = end_ok(s);
    assert_int_equal(aclsim_alloc_check_reports("graph-block-reuse"), before);
    /* the same blocks (workspace, tiling record) and the same output for a
     * direct MatMul while the graph lives: one conflict of two tasks (this
     * MatMul, the graph's replay), so one report naming the first block,
     * with the other block and the output as more lines */
    assert_int_equal(aclopExecuteV2("MatMul", 2, ind, in, 1, &td, &ob, NULL, s), ACL_SUCCESS);
    assert_int_equal(aclsim_alloc_check_reports("graph-block-reuse"), before + 1);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclmdlRIDestroy(ri), ACL_SUCCESS);
    assert_int_equal(aclopExecuteV2("MatMul", 2, ind, in, 1, &td, &ob, NULL, s), ACL_SUCCESS);
    assert_int_equal(aclsim_alloc_check_reports("graph-block-reuse"), before + 1); /* destroyed */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    aclDestroyDataBuffer(in[0]);
    aclDestroyDataBuffer(in[1]);
    aclDestroyDataBuffer(ob);
    aclDestroyTensorDesc(td);
    aclrtFree(x);
    aclrtFree(z);
    aclrtFree(slab);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

int main(void)
{
    setenv("ACLSIM_ALLOC_CHECK", "warn", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captured_work_runs_at_each_replay),
        cmocka_unit_test(test_get_info_follows_the_capture),
        cmocka_unit_test(test_operator_is_captured_and_replayed),
        cmocka_unit_test(test_begin_refusals),
        cmocka_unit_test(test_capturing_stream_is_not_synchronised),
        cmocka_unit_test(test_modes_decide_who_copies_synchronously),
        cmocka_unit_test(test_host_function_in_a_capture_is_refused),
        cmocka_unit_test(test_pageable_copy_is_not_captured),
        cmocka_unit_test(test_end_refusals),
        cmocka_unit_test(test_end_on_the_wrong_thread),
        cmocka_unit_test(test_joined_stream_replays_in_order),
        cmocka_unit_test(test_unjoined_stream_fails_end),
        cmocka_unit_test(test_wait_on_outside_record_is_refused),
        cmocka_unit_test(test_context_destroyed_under_a_capture),
        cmocka_unit_test(test_names_ids_json_and_destroy_callbacks),
        cmocka_unit_test(test_built_model_switches_by_index),
        cmocka_unit_test(test_label_arguments_are_checked_first),
        cmocka_unit_test(test_model_queries_answer_as_the_runtime),
        cmocka_unit_test(test_model_streams_bind_as_the_runtime_binds),
        cmocka_unit_test(test_free_under_a_live_graph_is_reported),
        cmocka_unit_test(test_freed_host_memory_is_left_alone),
        cmocka_unit_test(test_block_reused_while_a_graph_holds_it),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
