/*
 * test_callbacks.c - host callbacks as CANN runs them: aclrtSubscribeReport,
 * aclrtLaunchCallback, aclrtProcessReport, aclrtUnSubscribeReport and
 * aclrtLaunchHostFunc (CANN's src/acl/aclrt_impl/callback.cpp, the
 * runtime's api_error.cc, api_impl.cc and utils/subscribe.cc).
 *
 * The tests that pin CANN's exact messages and the simulated clock run on
 * hw=sim; the behaviour tests also run on hw=ascend, where every call is
 * forwarded to the real runtime.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "testutil.h"
#include "aclsim/aclsim.h"

static aclrtStream stream;

static bool on_sim(void)
{
    return strcmp(ACLSIM_EXPECT_BACKEND, "sim") == 0;
}

static uint64_t me(void)
{
    return (uint64_t)pthread_self();
}

static int up(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&stream), ACL_SUCCESS);
    return 0;
}

static int down(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtDestroyStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    return 0;
}

/* The first message is "<title_code>: <prefix>...<suffix>" (a stream id or
 * thread id in between). */
static void expect_msg_around(const char *title_code, const char *prefix, const char *suffix)
{
    const char *m = aclGetRecentErrMsg();
    if (!m)
        fail_msg("no message pending, wanted %s: %s", title_code, prefix);
    char want[512];
    snprintf(want, sizeof want, "%s: %s", title_code, prefix);
    const char *at = strstr(m, want);
    if (!at)
        fail_msg("message\n  %s\ndoes not contain\n  %s", m, want);
    const char *eol = strchr(at, '\n');
    size_t len = eol ? (size_t)(eol - at) : strlen(at);
    size_t sl = strlen(suffix);
    if (len < sl || strncmp(at + len - sl, suffix, sl) != 0)
        fail_msg("message\n  %.*s\ndoes not end with\n  %s", (int)len, at, suffix);
}

static atomic_int calls;
static pthread_t ran_in;
static void *got_user;
static uint64_t clock_inside;

static void count_cb(void *user)
{
    atomic_fetch_add(&calls, 1);
    ran_in = pthread_self();
    got_user = user;
    if (on_sim())
        aclsim_clock_host(&clock_inside);
}

/* ---- Checks ---- */

static void test_launch_callback_bad_block_type_and_null_fn(void **state)
{
    (void)state;
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, (aclrtCallbackBlockType)7, stream),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtLaunchCallback failed because value UNKNOWN(7) "
               "for parameter blockType is invalid. Expected value: ACL_CALLBACK_BLOCK or "
               "ACL_CALLBACK_NO_BLOCK.");
    if (!on_sim())
        return;
    assert_int_equal(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, stream),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Delivering an on-host callback function "
               "task in a stream failed because callBackFunc cannot be a NULL pointer.");
    assert_int_equal(aclrtLaunchHostFunc(stream, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Adding a host callback function to the "
               "stream task queue failed because callBackFunc cannot be a NULL pointer.");
}

static void test_launch_on_unsubscribed_stream_is_an_error_not_a_hang(void **state)
{
    (void)state;
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_BLOCK, stream),
                     ACL_ERROR_RT_STREAM_NO_CB_REG);
    if (on_sim())
        expect_msg_around("Invalid_Argument_API_Call_Sequence(EE1018)",
                          "Delivering an on-host callback function task in a stream failed. "
                          "Reason: Stream (stream_id=",
                          ") is not bound to any thread. Call the rtSubscribeReport API to bind a "
                          "thread to the stream.");
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_NO_BLOCK, NULL),
                     ACL_ERROR_RT_STREAM_NO_CB_REG);
    (void)aclGetRecentErrMsg();
    /* Nothing holds the stream. */
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_STREAM_NO_CB_REG);
}

static void test_process_report_checks(void **state)
{
    (void)state;
    assert_int_equal(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtProcessReport failed. Value 0 for parameter "
               "timeout is invalid. Reason: -1 represents infinite wait, timeout value greater "
               "than 0 represents waiting for a fixed time.");
    assert_int_equal(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    /* A thread with no subscription: the code, no message. */
    assert_int_equal(aclrtProcessReport(1000), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    expect_no_msg();
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}

static void test_subscribe_rules(void **state)
{
    (void)state;
    aclrtStream s2;
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_SUCCESS);
    /* One thread per stream. */
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    if (on_sim())
        expect_msg_around("Inner_Error(EH9999)", "Stream already exists in stream map, streamId=",
                          "");
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSubscribeReport(me() + 1, stream), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    (void)aclGetRecentErrMsg();
    /* Many streams of one device per thread... */
    assert_int_equal(aclrtCreateStream(&s2), ACL_SUCCESS);
    assert_int_equal(aclrtSubscribeReport(me(), s2), ACL_SUCCESS);
    /* ...but one device per thread. */
    aclrtStream other;
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&other), ACL_SUCCESS);
    assert_int_equal(aclrtSubscribeReport(me(), other), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    if (on_sim())
        expect_msg_around("Inner_Error(EH9999)", "Cannot find callback subscription by thread "
                          "key, thread_id=", ", device_id=1, ts_id=0.");
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtDestroyStream(other), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    /* Unsubscribe: the wrong thread, then twice. */
    assert_int_equal(aclrtUnSubscribeReport(me() + 1, stream), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    if (on_sim())
        expect_msg_around("Inner_Error(EH9999)", "Stream does not exist in thread map, streamId=",
                          "");
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtUnSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtUnSubscribeReport(me(), stream), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    if (on_sim())
        expect_msg_around("Inner_Error(EH9999)", "Stream does not exist in stream map, streamId=",
                          "");
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtUnSubscribeReport(me(), s2), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s2), ACL_SUCCESS);
    /* The default stream: NULL. */
    assert_int_equal(aclrtSubscribeReport(me(), NULL), ACL_SUCCESS);
    assert_int_equal(aclrtUnSubscribeReport(me(), NULL), ACL_SUCCESS);
}

/* ---- Running ---- */

static void test_callback_runs_only_inside_process_report_of_its_thread(void **state)
{
    (void)state;
    int data = 42;
    atomic_store(&calls, 0);
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(count_cb, &data, ACL_CALLBACK_NO_BLOCK, stream),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS); /* a non-blocking one holds nothing */
    assert_int_equal(atomic_load(&calls), 0);
    assert_int_equal(aclrtProcessReport(1000), ACL_SUCCESS);
    assert_int_equal(atomic_load(&calls), 1);
    assert_true(pthread_equal(ran_in, pthread_self()));
    assert_ptr_equal(got_user, &data);
    assert_int_equal(aclrtUnSubscribeReport(me(), stream), ACL_SUCCESS);
}

static void test_callback_is_ready_when_earlier_work_is_done_in_simulated_time(void **state)
{
    (void)state;
    if (!on_sim())
        skip();
    size_t n = 64u << 20;
    void *h, *d;
    uint64_t host0, tail, host1;
    atomic_store(&calls, 0);
    assert_int_equal(aclrtMallocHost(&h, n), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, stream), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_NO_BLOCK, stream),
                     ACL_SUCCESS);
    assert_int_equal(aclsim_clock_stream(stream, &tail), ACL_SUCCESS); /* the callback's ready time */
    assert_int_equal(aclsim_clock_host(&host0), ACL_SUCCESS);
    assert_true(tail > host0 + 1000000000ull); /* the copy takes over 1 ms */
    /* 1 ms is not enough, in simulated time: the host clock moves 1 ms. */
    assert_int_equal(aclrtProcessReport(1), ACL_ERROR_RT_REPORT_TIMEOUT);
    expect_no_msg();
    assert_int_equal(atomic_load(&calls), 0);
    assert_int_equal(aclsim_clock_host(&host1), ACL_SUCCESS);
    assert_int_equal(host1, host0 + 1000000000ull);
    /* With time enough it runs once the copy is done. */
    assert_int_equal(aclrtProcessReport(1000), ACL_SUCCESS);
    assert_int_equal(atomic_load(&calls), 1);
    assert_int_equal(clock_inside, tail);
    /* Nothing queued: a real-time wait for another thread, the clock stays. */
    assert_int_equal(aclrtProcessReport(5), ACL_ERROR_RT_REPORT_TIMEOUT);
    assert_int_equal(aclsim_clock_host(&host1), ACL_SUCCESS);
    assert_int_equal(host1, tail);
    assert_int_equal(aclrtUnSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
}

static int order[8], ordered;
static void order_cb(void *user)
{
    if (ordered < 8)
        order[ordered++] = *(int *)user;
}

static void test_process_report_runs_every_ready_callback_in_order(void **state)
{
    (void)state;
    static int v[3] = {1, 2, 3};
    ordered = 0;
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(aclrtLaunchCallback(order_cb, &v[i], i == 1 ? ACL_CALLBACK_BLOCK
                                                                    : ACL_CALLBACK_NO_BLOCK,
                                             stream),
                         ACL_SUCCESS);
    assert_int_equal(aclrtProcessReport(1000), ACL_SUCCESS);
    if (on_sim()) /* a real runtime may report them one by one */
        assert_int_equal(ordered, 3);
    while (ordered < 3)
        assert_int_equal(aclrtProcessReport(1000), ACL_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(order[i], i + 1);
    assert_int_equal(aclrtUnSubscribeReport(me(), stream), ACL_SUCCESS);
}

static void test_blocking_callback_in_own_thread_cannot_be_waited_for(void **state)
{
    (void)state;
    if (!on_sim())
        skip(); /* the real runtime would wait for itself forever */
    aclrtStreamStatus st;
    atomic_store(&calls, 0);
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
    assert_int_equal(aclrtStreamQuery(stream, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSynchronizeDevice(), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtProcessReport(1000), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_equal(aclrtStreamQuery(stream, &st), ACL_SUCCESS);
    assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
    assert_int_equal(atomic_load(&calls), 1);
    assert_int_equal(aclrtUnSubscribeReport(me(), stream), ACL_SUCCESS);
}

/* ---- A subscriber thread ---- */

static atomic_int sub_errors; /* unexpected aclrtProcessReport results */

struct subscriber {
    pthread_t t;
    atomic_int stop;
    atomic_int ready;
    aclrtContext ctx;
    int timeout;
};

static void *subscriber_main(void *arg)
{
    struct subscriber *s = arg;
    assert_int_equal(aclrtSetCurrentContext(s->ctx), ACL_SUCCESS);
    atomic_store(&s->ready, 1);
    while (!atomic_load(&s->stop)) {
        aclError rc = aclrtProcessReport(s->timeout);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT &&
            rc != ACL_ERROR_RT_THREAD_SUBSCRIBE)
            atomic_fetch_add(&sub_errors, 1);
    }
    return NULL;
}

static void start(struct subscriber *s, int timeout)
{
    memset(s, 0, sizeof *s);
    s->timeout = timeout;
    assert_int_equal(aclrtGetCurrentContext(&s->ctx), ACL_SUCCESS);
    assert_int_equal(pthread_create(&s->t, NULL, subscriber_main, s), 0);
    while (!atomic_load(&s->ready))
        sched_yield();
}

static void stop(struct subscriber *s)
{
    atomic_store(&s->stop, 1);
    assert_int_equal(pthread_join(s->t, NULL), 0);
    assert_int_equal(atomic_load(&sub_errors), 0);
}

/* A blocking callback reads a buffer that work queued behind it on the
 * same stream overwrites: it must see the bytes from before. */

/* The processing thread starts after the work is enqueued: every enqueue
 * returns at once, and the work runs once the callback has (issue #20,
 * "a wait without end"); a synchronisation with a timeout returns. */
static atomic_int late_go;
static aclrtContext late_ctx;
static void *late_processor(void *arg)
{
    (void)arg;
    while (!atomic_load(&late_go))
        sched_yield();
    assert_int_equal(aclrtSetCurrentContext(late_ctx), ACL_SUCCESS);
    while (atomic_load(&late_go) == 1)
        (void)aclrtProcessReport(20);
    return NULL;
}

static void test_processing_thread_that_starts_late(void **state)
{
    (void)state;
    pthread_t t;
    void *d;
    aclrtEvent e;
    atomic_store(&calls, 0);
    atomic_store(&late_go, 0);
    assert_int_equal(aclrtGetCurrentContext(&late_ctx), ACL_SUCCESS);
    assert_int_equal(pthread_create(&t, NULL, late_processor, NULL), 0);
    assert_int_equal(aclrtSubscribeReport((uint64_t)t, stream), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 256, 7, 256, stream), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(stream, 100),
                     ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    (void)aclGetRecentErrMsg();
    assert_int_equal(atomic_load(&calls), 0);
    atomic_store(&late_go, 1);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    assert_int_equal(atomic_load(&calls), 1);
    unsigned char b = 0;
    assert_int_equal(aclrtMemcpy(&b, 1, d, 1, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(b, 7);
    atomic_store(&late_go, 2);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(aclrtUnSubscribeReport((uint64_t)t, stream), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}
static unsigned char seen_byte;
static unsigned char host_buf[256];
static void read_buf(void *user)
{
    (void)user;
    seen_byte = host_buf[0];
    atomic_fetch_add(&calls, 1);
}

static void test_blocking_callback_holds_later_work_of_its_stream(void **state)
{
    (void)state;
    struct subscriber sub;
    void *d1, *d2;
    atomic_store(&calls, 0);
    start(&sub, 20);
    assert_int_equal(aclrtSubscribeReport((uint64_t)sub.t, stream), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d1, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d2, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(d1, 256, 0x11, 256), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(d2, 256, 0x22, 256), ACL_SUCCESS);
    for (int round = 0; round < 20; round++) {
        assert_int_equal(aclrtMemcpyAsync(host_buf, 256, d1, 256, ACL_MEMCPY_DEVICE_TO_HOST,
                                          stream), ACL_SUCCESS);
        assert_int_equal(aclrtLaunchCallback(read_buf, NULL, ACL_CALLBACK_BLOCK, stream),
                         ACL_SUCCESS);
        /* The later copy waits in the stream for the callback; its enqueue
         * does not (CANN's never blocks: a program whose processing thread
         * starts late would deadlock). */
        assert_int_equal(aclrtMemcpyAsync(host_buf, 256, d2, 256, ACL_MEMCPY_DEVICE_TO_HOST,
                                          stream), ACL_SUCCESS);
        assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
        assert_int_equal(atomic_load(&calls), round + 1);
        assert_int_equal(seen_byte, 0x11);
        assert_int_equal(host_buf[0], 0x22);
    }
    /* A synchronisation waits for a blocking callback too. */
    assert_int_equal(aclrtLaunchCallback(read_buf, NULL, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(atomic_load(&calls), 21);
    assert_int_equal(seen_byte, 0x22);
    assert_int_equal(aclrtUnSubscribeReport((uint64_t)sub.t, stream), ACL_SUCCESS);
    stop(&sub);
    assert_int_equal(aclrtFree(d1), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d2), ACL_SUCCESS);
}

static void test_unsubscribe_and_destroy_drop_queued_callbacks(void **state)
{
    (void)state;
    aclrtStream s2;
    atomic_store(&calls, 0);
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_NO_BLOCK, stream),
                     ACL_SUCCESS);
    assert_int_equal(aclrtUnSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtProcessReport(1), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS); /* released */
    assert_int_equal(aclrtCreateStream(&s2), ACL_SUCCESS);
    assert_int_equal(aclrtSubscribeReport(me(), s2), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_BLOCK, s2), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s2), ACL_SUCCESS);
    assert_int_equal(aclrtProcessReport(1), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    assert_int_equal(atomic_load(&calls), 0);
}

static void *wait_forever(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)aclrtProcessReport(-1);
}

static void test_waiting_thread_wakes_when_its_stream_goes(void **state)
{
    (void)state;
    pthread_t t;
    void *rc;
    /* Not subscribed: even an infinite wait returns at once. */
    assert_int_equal(pthread_create(&t, NULL, wait_forever, NULL), 0);
    assert_int_equal(pthread_join(t, &rc), 0);
    assert_int_equal((aclError)(intptr_t)rc, ACL_ERROR_RT_THREAD_SUBSCRIBE);
    struct subscriber sub;
    start(&sub, -1);
    assert_int_equal(aclrtSubscribeReport((uint64_t)sub.t, stream), ACL_SUCCESS);
    atomic_store(&calls, 0);
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(atomic_load(&calls), 1);
    atomic_store(&sub.stop, 1);
    /* The infinite wait ends when its last stream is unsubscribed. */
    assert_int_equal(aclrtUnSubscribeReport((uint64_t)sub.t, stream), ACL_SUCCESS);
    assert_int_equal(pthread_join(sub.t, NULL), 0);
    assert_int_equal(atomic_load(&sub_errors), 0);
}

/* ---- Host functions ---- */

static void test_host_func_runs_on_aclsims_thread_and_blocks_the_stream(void **state)
{
    (void)state;
    int data = 7;
    atomic_store(&calls, 0);
    assert_int_equal(aclrtLaunchHostFunc(stream, count_cb, &data), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(atomic_load(&calls), 1);
    assert_false(pthread_equal(ran_in, pthread_self()));
    assert_ptr_equal(got_user, &data);
    for (int i = 0; i < 10; i++)
        assert_int_equal(aclrtLaunchHostFunc(NULL, count_cb, &data), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_equal(atomic_load(&calls), 11);
    if (!on_sim())
        return;
    /* The stream is the host-function thread's now, and a user's stream
     * cannot take host functions. */
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    expect_msg_around("Not_Supported(EE1016)", "Specifying the thread for processing the "
                      "callback function in stream failed. Reason: The stream (stream_id=",
                      ") is in the host callback process and cannot call rtSubscribeReport.");
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_BLOCK, stream),
                     ACL_ERROR_RT_STREAM_SUBSCRIBE);
    expect_msg_around("Not_Supported(EE1016)", "Delivering an on-host callback function task in "
                      "a stream failed. Reason: The stream (stream_id=",
                      ") is in the host callback process and cannot call rtCallbackLaunch.");
    aclrtStream s2;
    assert_int_equal(aclrtCreateStream(&s2), ACL_SUCCESS);
    assert_int_equal(aclrtSubscribeReport(me(), s2), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchHostFunc(s2, count_cb, NULL), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    expect_msg_around("Not_Supported(EE1016)", "Adding a host callback function to the stream "
                      "task queue failed. Reason: The stream (stream_id=",
                      ") is in the host callback process and cannot call rtsLaunchHostFunc.");
    assert_int_equal(aclrtUnSubscribeReport(me(), s2), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s2), ACL_SUCCESS);
}

static void test_stream_of_another_context_is_refused(void **state)
{
    (void)state;
    if (!on_sim())
        skip();
    aclrtContext primary, other;
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&other, 0), ACL_SUCCESS); /* now current */
    assert_int_equal(aclrtSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(count_cb, NULL, ACL_CALLBACK_BLOCK, stream),
                     ACL_ERROR_RT_STREAM_CONTEXT);
    expect_msg_around("Execution_Error_Invalid_Context(EE1010)", "Delivering an on-host callback "
                      "function task in a stream execution failed because stream does not belong "
                      "to the current context. Extended information: stream_id=", "");
    assert_int_equal(aclrtLaunchHostFunc(stream, count_cb, NULL), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtUnSubscribeReport(me(), stream), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchHostFunc(stream, count_cb, NULL), ACL_ERROR_RT_STREAM_CONTEXT);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtDestroyContext(other), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_SUCCESS);
}

static void test_at_most_1024_threads_run_callbacks(void **state)
{
    (void)state;
    if (!on_sim())
        skip();
    enum { N = 1025 };
    static aclrtStream s[N];
    for (int i = 0; i < N; i++) {
        assert_int_equal(aclrtCreateStream(&s[i]), ACL_SUCCESS);
        aclError rc = aclrtSubscribeReport(1000 + (uint64_t)i, s[i]);
        assert_int_equal(rc, i < 1024 ? ACL_SUCCESS : ACL_ERROR_RT_INTERNAL_ERROR);
    }
    expect_msg_around("Inner_Error(EH9999)", "Failed to assign callback subscription group id "
                      "because group id is full, max_group_num=1024, thread_id=2024, device_id=0, "
                      "ts_id=0, stream_id=", ", retCode=0x7160005.");
    for (int i = 0; i < N; i++)
        assert_int_equal(aclrtDestroyStream(s[i]), ACL_SUCCESS);
    /* Destroyed streams gave their threads back. */
    aclrtStream t;
    assert_int_equal(aclrtCreateStream(&t), ACL_SUCCESS);
    assert_int_equal(aclrtSubscribeReport(5000, t), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(t), ACL_SUCCESS);
}

/* ---- Threads: one subscriber, many launchers ---- */

enum { LAUNCHERS = 4, PER = 150 };
static aclrtStream lstreams[LAUNCHERS];
static int last_seen[LAUNCHERS];
static atomic_int out_of_order;
struct tag {
    int stream, seq;
};
static struct tag tags[LAUNCHERS][PER];

static void tag_cb(void *user)
{
    const struct tag *t = user;
    /* One subscriber thread runs them: no lock needed here. */
    if (t->seq != last_seen[t->stream] + 1)
        atomic_fetch_add(&out_of_order, 1);
    last_seen[t->stream] = t->seq;
    atomic_fetch_add(&calls, 1);
}

struct launcher {
    aclrtContext ctx;
    int i;
    void *dev;
};

static void *launcher_main(void *arg)
{
    struct launcher *l = arg;
    assert_int_equal(aclrtSetCurrentContext(l->ctx), ACL_SUCCESS);
    for (int k = 0; k < PER; k++) {
        tags[l->i][k] = (struct tag){l->i, k};
        assert_int_equal(aclrtMemsetAsync(l->dev, 64, k & 0xff, 64, lstreams[l->i]), ACL_SUCCESS);
        assert_int_equal(aclrtLaunchCallback(tag_cb, &tags[l->i][k],
                                             (k & 1) ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK,
                                             lstreams[l->i]),
                         ACL_SUCCESS);
    }
    assert_int_equal(aclrtSynchronizeStream(lstreams[l->i]), ACL_SUCCESS);
    return NULL;
}

static void test_one_subscriber_many_launching_threads(void **state)
{
    (void)state;
    struct subscriber sub;
    struct launcher l[LAUNCHERS];
    pthread_t t[LAUNCHERS];
    atomic_store(&calls, 0);
    atomic_store(&out_of_order, 0);
    start(&sub, 10);
    for (int i = 0; i < LAUNCHERS; i++) {
        last_seen[i] = -1;
        assert_int_equal(aclrtCreateStream(&lstreams[i]), ACL_SUCCESS);
        assert_int_equal(aclrtSubscribeReport((uint64_t)sub.t, lstreams[i]), ACL_SUCCESS);
        l[i] = (struct launcher){sub.ctx, i, NULL};
        assert_int_equal(aclrtMalloc(&l[i].dev, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    for (int i = 0; i < LAUNCHERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, launcher_main, &l[i]), 0);
    for (int i = 0; i < LAUNCHERS; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    /* Each stream's last callback is blocking: all have run. */
    assert_int_equal(atomic_load(&calls), LAUNCHERS * PER);
    assert_int_equal(atomic_load(&out_of_order), 0);
    for (int i = 0; i < LAUNCHERS; i++) {
        assert_int_equal(aclrtUnSubscribeReport((uint64_t)sub.t, lstreams[i]), ACL_SUCCESS);
        assert_int_equal(aclrtDestroyStream(lstreams[i]), ACL_SUCCESS);
        assert_int_equal(aclrtFree(l[i].dev), ACL_SUCCESS);
    }
    stop(&sub);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, up, down)
    const struct CMUnitTest tests[] = {
        T(test_launch_callback_bad_block_type_and_null_fn),
        T(test_launch_on_unsubscribed_stream_is_an_error_not_a_hang),
        T(test_process_report_checks),
        T(test_subscribe_rules),
        T(test_callback_runs_only_inside_process_report_of_its_thread),
        T(test_callback_is_ready_when_earlier_work_is_done_in_simulated_time),
        T(test_process_report_runs_every_ready_callback_in_order),
        T(test_blocking_callback_in_own_thread_cannot_be_waited_for),
        T(test_blocking_callback_holds_later_work_of_its_stream),
        T(test_processing_thread_that_starts_late),
        T(test_unsubscribe_and_destroy_drop_queued_callbacks),
        T(test_waiting_thread_wakes_when_its_stream_goes),
        T(test_host_func_runs_on_aclsims_thread_and_blocks_the_stream),
        T(test_stream_of_another_context_is_refused),
        T(test_at_most_1024_threads_run_callbacks),
        T(test_one_subscriber_many_launching_threads),
    };
    return cmocka_run_group_tests_name("callbacks", tests, NULL, NULL);
}
