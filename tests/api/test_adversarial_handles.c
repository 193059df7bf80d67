/*
 * test_adversarial_handles.c - hostile handles (issue 11: a testing tool
 * must never corrupt, crash or race): garbage, freed, foreign, interior and
 * mistyped handles for streams, events and contexts, and hostile device and
 * host pointers. Each gets CANN's code and the message the other suites pin
 * for it; none may crash or change what a live handle does.
 *
 * CANN's runtime maps an invalid stream or event to ACL_ERROR_RT_INTERNAL_ERROR
 * (507000), an invalid context is the ACL layer's ACL_ERROR_INVALID_PARAM
 * (EH0012), a free of anything but a live block's start is
 * ACL_ERROR_RT_MEMORY_FREE (207002), and a copy side outside live memory is
 * the runtime's ACL_ERROR_RT_PARAM_INVALID (107000, EE1003).
 */
#include <stdint.h>
#include <stdlib.h>
#include "testutil.h"

/* A case that leaves device memory to a device reset or aclFinalize on
 * purpose says so to memcheck (aclsim counts memory a program never freed
 * as leaked, reclaimed or not: the leak gate is for programs). */
#ifdef VALGRIND_FREELIKE_BLOCK
#define RECLAIMED(p) VALGRIND_FREELIKE_BLOCK((p), 0)
#else
#define RECLAIMED(p) ((void)(p))
#endif

static int up(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "268435456", 1);
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int down(void **state)
{
    (void)state;
    aclrtResetDeviceForce(0);
    aclrtResetDeviceForce(1); /* (507007 when a case left it closed) */
    (void)aclGetRecentErrMsg();
    return aclFinalize();
}

static void expect_bad_stream(const char *func, const void *stream)
{
    char text[256];
    snprintf(text, sizeof text, "The argument is invalid. Reason: %s failed, stream %p is not a "
             "live stream.", func, stream);
    expect_msg("Invalid_Argument(EE1001)", text);
}

static void expect_bad_event(const char *func, const char *param, const void *event)
{
    char text[256];
    snprintf(text, sizeof text, "The argument is invalid. Reason: %s failed, %s %p is not a live "
             "event.", func, param, event);
    expect_msg("Invalid_Argument(EE1001)", text);
}

static void expect_bad_context(const char *func)
{
    char text[256];
    snprintf(text, sizeof text, "%s failed. Parameter context is invalid. Reason: it is not a "
             "live context.", func);
    expect_msg("Invalid_Argument(EH0012)", text);
}

static void expect_not_live(const char *func, const void *p)
{
    char text[256];
    snprintf(text, sizeof text, "The argument is invalid. Reason: %s failed, %p is not a live "
             "allocation (never allocated, or already freed).", func, p);
    expect_msg("Invalid_Argument(EE1001)", text);
}

/* Every stream-taking call must reject `bad` with 507000 and name it; e is
 * a live event, d a live 64-byte device block, which must be unaffected.
 * (Tests create what they keep before they destroy what they pass as dead,
 * so the C library cannot hand a dead handle's memory to a new object.) */
static void all_stream_calls_reject(aclrtStream bad, aclrtEvent e, void *d)
{
    char h[64] = {0};
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    assert_int_equal(aclrtSynchronizeStream(bad), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtSynchronizeStream", bad);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(bad, 10), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtSynchronizeStreamWithTimeout", bad);
    assert_int_equal(aclrtStreamQuery(bad, &st), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtStreamQuery", bad);
    assert_int_equal(st, ACL_STREAM_STATUS_RESERVED); /* out-parameter untouched */
    assert_int_equal(aclrtMemcpyAsync(d, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE, bad),
                     ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtMemcpyAsync", bad);
    assert_int_equal(aclrtMemsetAsync(d, 64, 1, 64, bad), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtMemsetAsync", bad);
    assert_int_equal(aclrtRecordEvent(e, bad), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtRecordEvent", bad);
    assert_int_equal(aclrtResetEvent(e, bad), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtResetEvent", bad);
    assert_int_equal(aclrtStreamWaitEvent(bad, e), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtStreamWaitEvent", bad);
    assert_int_equal(aclrtDestroyStream(bad), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtDestroyStream", bad);

    /* Nothing happened to the live objects. */
    aclrtEventRecordedStatus es;
    assert_int_equal(aclrtQueryEventStatus(e, &es), ACL_SUCCESS);
    assert_int_equal(es, ACL_EVENT_RECORDED_STATUS_COMPLETE); /* never recorded */
    assert_int_equal(aclrtMemset(d, 64, 0, 64), ACL_SUCCESS);
    expect_no_msg();
}

static void test_garbage_stream_handles_are_507000(void **state)
{
    (void)state;
    int on_stack;
    void *heap = malloc(32);
    void *dev;
    aclrtEvent e;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    void *bad[] = {(void *)(uintptr_t)1, (void *)(uintptr_t)0xdeadbeef, &on_stack, heap, dev,
                   (void *)(uintptr_t)(UINTPTR_MAX - 7), (void *)(uintptr_t)-4096};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        all_stream_calls_reject(bad[i], e, dev);
    assert_int_equal(aclrtFree(dev), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    free(heap);
}

static void test_destroyed_interior_and_mistyped_stream_handles_are_507000(void **state)
{
    (void)state;
    aclrtStream s, live;
    aclrtEvent e;
    aclrtContext ctx;
    void *d;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&live), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtGetCurrentContext(&ctx), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    all_stream_calls_reject(s, e, d); /* use after destroy, double destroy */
    all_stream_calls_reject((char *)live + 1, e, d);
    all_stream_calls_reject((char *)live + 8, e, d);
    all_stream_calls_reject((char *)live - 8, e, d);
    all_stream_calls_reject(e, e, d);   /* an event is not a stream */
    all_stream_calls_reject(ctx, e, d); /* nor is a context */
    /* The live stream next to all that still works. */
    assert_int_equal(aclrtRecordEvent(e, live), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(live), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(live), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* Every event-taking call must reject `bad` with 507000 and name it; good
 * is a live event, recorded and complete, which must be unaffected. */
static void all_event_calls_reject(aclrtEvent bad, aclrtEvent good)
{
    float ms = -1.0f;
    aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    aclrtEventStatus es = ACL_EVENT_STATUS_NOT_READY;
    assert_int_equal(aclrtRecordEvent(bad, NULL), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtRecordEvent", "event", bad);
    assert_int_equal(aclrtResetEvent(bad, NULL), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtResetEvent", "event", bad);
    assert_int_equal(aclrtStreamWaitEvent(NULL, bad), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtStreamWaitEvent", "event", bad);
    assert_int_equal(aclrtSynchronizeEvent(bad), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtSynchronizeEvent", "event", bad);
    assert_int_equal(aclrtQueryEventStatus(bad, &rs), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtQueryEventStatus", "event", bad);
    assert_int_equal(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* CANN deprecates it; it is exported */
    assert_int_equal(aclrtQueryEvent(bad, &es), ACL_ERROR_RT_INTERNAL_ERROR);
#pragma GCC diagnostic pop
    expect_bad_event("aclrtQueryEvent", "event", bad);
    assert_int_equal(es, ACL_EVENT_STATUS_NOT_READY);
    assert_int_equal(aclrtEventElapsedTime(&ms, bad, good), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtEventElapsedTime", "startEvent", bad);
    assert_int_equal(aclrtEventElapsedTime(&ms, good, bad), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtEventElapsedTime", "endEvent", bad);
    assert_true(ms == -1.0f);
    assert_int_equal(aclrtDestroyEvent(bad), ACL_ERROR_RT_INTERNAL_ERROR);
    char text[256];
    snprintf(text, sizeof text, "The argument is invalid. Reason: aclrtDestroyEvent failed, event "
             "%p is not a live event.", bad);
    expect_msg("Invalid_Argument(EE1001)", text);

    assert_int_equal(aclrtEventElapsedTime(&ms, good, good), ACL_SUCCESS);
    assert_true(ms == 0.0f);
    expect_no_msg();
}

static void test_garbage_destroyed_interior_and_mistyped_event_handles_are_507000(void **state)
{
    (void)state;
    int on_stack;
    void *heap = malloc(32);
    aclrtEvent dead, live, good;
    aclrtStream s;
    aclrtContext ctx;
    assert_int_equal(aclrtCreateEvent(&good), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(good, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(good), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&live), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtGetCurrentContext(&ctx), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&dead), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(dead), ACL_SUCCESS);
    void *bad[] = {(void *)(uintptr_t)1, &on_stack, heap, dead, (char *)live + 1,
                   (char *)live + 16, s, ctx, (void *)(uintptr_t)(UINTPTR_MAX - 7)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        all_event_calls_reject(bad[i], good);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(live), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(good), ACL_SUCCESS);
    free(heap);
}

static void test_null_event_arguments_are_eh0008(void **state)
{
    (void)state;
    aclrtEvent e;
    float ms;
    aclrtEventRecordedStatus rs;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(NULL, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtRecordEvent", "event");
    assert_int_equal(aclrtStreamWaitEvent(NULL, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtStreamWaitEvent", "event");
    assert_int_equal(aclrtSynchronizeEvent(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSynchronizeEvent", "event");
    assert_int_equal(aclrtDestroyEvent(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDestroyEvent", "event");
    assert_int_equal(aclrtQueryEventStatus(e, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtQueryEventStatus", "status");
    assert_int_equal(aclrtQueryEventStatus(NULL, &rs), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtQueryEventStatus", "event");
    assert_int_equal(aclrtEventElapsedTime(NULL, e, e), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtEventElapsedTime", "ms");
    assert_int_equal(aclrtEventElapsedTime(&ms, NULL, e), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtEventElapsedTime", "startEvent");
    assert_int_equal(aclrtEventElapsedTime(&ms, e, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtEventElapsedTime", "endEvent");
    assert_int_equal(aclrtCreateEventWithFlag(&e, 0x80000000u), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0007)", "aclrtCreateEventWithFlag failed because value "
               "2147483648 for parameter flag is invalid. Expected value: a combination of "
               "ACL_EVENT_* flags.");
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

static void all_context_calls_reject(aclrtContext bad)
{
    assert_int_equal(aclrtSetCurrentContext(bad), ACL_ERROR_INVALID_PARAM);
    expect_bad_context("aclrtSetCurrentContext");
    assert_int_equal(aclrtDestroyContext(bad), ACL_ERROR_INVALID_PARAM);
    expect_bad_context("aclrtDestroyContext");
    int32_t d = -1;
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS); /* the current one is unchanged */
    assert_int_equal(d, 0);
}

static void test_garbage_destroyed_and_mistyped_context_handles_are_eh0012(void **state)
{
    (void)state;
    int on_stack;
    void *heap = malloc(32);
    aclrtContext mine, dead, primary;
    aclrtStream s;
    aclrtEvent e;
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&mine, 1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&dead, 1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(dead), ACL_SUCCESS);
    /* The destroyed context was current: the thread has none now. */
    int32_t d;
    assert_int_equal(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtGetDevice failed, "
               "the current thread has no context; call aclrtSetDevice or aclrtSetCurrentContext "
               "first.");
    void *p;
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_ERROR_RT_CONTEXT_NULL);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtMalloc failed, "
               "the current thread has no context; call aclrtSetDevice or aclrtSetCurrentContext "
               "first.");
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_SUCCESS);
    void *bad[] = {(void *)(uintptr_t)1, &on_stack, heap, dead, s, e, (char *)mine + 1,
                   (char *)primary + 4, (void *)(uintptr_t)(UINTPTR_MAX - 7)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        all_context_calls_reject(bad[i]);
    /* The default context of a device is not the program's to destroy. */
    assert_int_equal(aclrtDestroyContext(primary), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0012)", "aclrtDestroyContext failed. Parameter context is "
               "invalid. Reason: the default context of a device is released by aclrtResetDevice.");
    assert_int_equal(aclrtDestroyContext(mine), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(mine), ACL_ERROR_INVALID_PARAM);
    expect_bad_context("aclrtDestroyContext");
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    free(heap);
}

/* A stream or event of another device (a foreign handle for the current
 * context) is used on its own device: CANN resolves the stream's context. */
static void test_stream_of_another_device_works_on_its_own_device(void **state)
{
    (void)state;
    aclrtContext c0, c1;
    aclrtStream s1;
    void *d0, *d1;
    unsigned char h[256], back[256];
    for (int i = 0; i < 256; i++)
        h[i] = (unsigned char)(i ^ 0x5a);
    assert_int_equal(aclrtGetCurrentContext(&c0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d0, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c1, 1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s1), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d1, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(c0), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d1, 256, h, 256, ACL_MEMCPY_HOST_TO_DEVICE, s1),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS);
    /* A copy between the devices needs peer access, as in CANN. */
    assert_int_equal(aclrtMemcpy(d0, 256, d1, 256, ACL_MEMCPY_DEVICE_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(d0, 256, d1, 256, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 256, d0, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_memory_equal(back, h, 256);
    assert_int_equal(aclrtFree(d1), ACL_SUCCESS); /* freed from device 0's context */
    assert_int_equal(aclrtFree(d0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(c1), ACL_SUCCESS); /* its stream goes with it */
    assert_int_equal(aclrtSynchronizeStream(s1), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtSynchronizeStream", s1);
    assert_int_equal(aclrtSetCurrentContext(c0), ACL_SUCCESS);
}

/* CANN's aclFinalize resets no device (hicann/runtime
 * src/acl/aclrt_impl/acl.cpp:547-628, aclFinalizeInternal): handles from
 * before it stay live through the next aclInit; they go with their device,
 * and are then foreign (the checks create nothing, so no dead handle's
 * memory can be reused). */
static void test_handles_live_through_a_finalize_and_go_with_their_device(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtEvent e;
    aclrtContext c, primary;
    aclrtStreamStatus st;
    aclrtEventRecordedStatus rs;
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c, 1), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtQueryEventStatus(e, &rs), ACL_SUCCESS);
    assert_int_equal(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS); /* device 1 closes */
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS); /* s and e go with device 0 */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtSynchronizeStream", s);
    assert_int_equal(aclrtStreamQuery(s, &st), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtStreamQuery", s);
    assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_stream("aclrtDestroyStream", s);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtRecordEvent", "event", e);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtSynchronizeEvent", "event", e);
    assert_int_equal(aclrtQueryEventStatus(e, &rs), ACL_ERROR_RT_INTERNAL_ERROR);
    expect_bad_event("aclrtQueryEventStatus", "event", e);
    assert_int_equal(aclrtDestroyEvent(e), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    void *ctxs[] = {c, primary};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(aclrtSetCurrentContext(ctxs[i]), ACL_ERROR_INVALID_PARAM);
        expect_bad_context("aclrtSetCurrentContext");
        assert_int_equal(aclrtDestroyContext(ctxs[i]), ACL_ERROR_INVALID_PARAM);
        expect_bad_context("aclrtDestroyContext");
    }
    /* The thread's current context went with its device. */
    int32_t d;
    assert_int_equal(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

/* ---- Device and host pointers ---- */

static void test_free_of_anything_but_a_live_block_start_is_207002(void **state)
{
    (void)state;
    int on_stack;
    void *heap = malloc(64), *pinned, *d, *dead;
    assert_int_equal(aclrtMallocHost(&pinned, 256), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&dead, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtFree(dead), ACL_SUCCESS);
    void *bad[] = {(void *)(uintptr_t)1, &on_stack, heap, pinned, dead,
                   (void *)(uintptr_t)(UINTPTR_MAX - 63), (void *)(uintptr_t)-4096};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(aclrtFree(bad[i]), ACL_ERROR_RT_MEMORY_FREE);
        if (bad[i] != pinned)
            expect_not_live("aclrtFree", bad[i]);
        else
            (void)aclGetRecentErrMsg();
    }
    char text[256];
    for (size_t off = 1; off < 256; off += 63) {
        assert_int_equal(aclrtFree((char *)d + off), ACL_ERROR_RT_MEMORY_FREE);
        snprintf(text, sizeof text, "The argument is invalid. Reason: aclrtFree failed, %p is "
                 "inside the block of 256 bytes at %p, not its start.", (void *)((char *)d + off),
                 d);
        expect_msg("Invalid_Argument(EE1001)", text);
    }
    /* The same for aclrtFreeHost, which also refuses device memory. */
    void *hbad[] = {(void *)(uintptr_t)1, &on_stack, heap, dead, (char *)pinned + 64};
    for (size_t i = 0; i < sizeof hbad / sizeof hbad[0]; i++) {
        assert_int_equal(aclrtFreeHost(hbad[i]), ACL_ERROR_RT_MEMORY_FREE);
        (void)aclGetRecentErrMsg();
    }
    /* Device memory is refused by the runtime's location check (hicann/runtime
     * src/runtime/api/impl/api_impl.cc:2512-2535, HostFree): 107000, EE1011. */
    assert_int_equal(aclrtFreeHost(d), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1011)", "Host memory release failed. Value "
               "MEMORY_LOC_DEVICE(1) for parameter hostPtr locationType is invalid. Reason: The "
               "specified address must be a host address.");
    /* Nothing was freed by any of that. */
    assert_int_equal(aclrtMemset(d, 256, 7, 256), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(pinned, 256, 7, 256), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(pinned), ACL_SUCCESS);
    free(heap);
    size_t fr, total;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(fr, total);
}

/* Copies and fills whose device side is not inside live device memory are
 * refused before a byte moves; the host is never made to read or write
 * through a hostile device pointer. */
static void test_copies_through_hostile_device_pointers_are_107000(void **state)
{
    (void)state;
    char h[512], other[64] = {0};
    memset(h, 0x33, sizeof h);
    void *d, *dead;
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&dead, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtFree(dead), ACL_SUCCESS);
    /* (Not h itself: a copy onto its own source succeeds untouched, as in CANN.) */
    void *bad[] = {(void *)(uintptr_t)1, other, dead, (char *)dead + 64,
                   (void *)(uintptr_t)(UINTPTR_MAX - 63), (char *)d + 256, (char *)d + 255};
    MISUSE_BEGIN();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(aclrtMemcpy(bad[i], 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                         ACL_ERROR_RT_PARAM_INVALID);
        assert_non_null(strstr(aclGetRecentErrMsg(), "Invalid_Argument(EE1003): Synchronous "
                                                     "memory copy failed because value"));
        assert_int_equal(aclrtMemcpy(h, 64, bad[i], 64, ACL_MEMCPY_DEVICE_TO_HOST),
                         ACL_ERROR_RT_PARAM_INVALID);
        (void)aclGetRecentErrMsg();
        assert_int_equal(aclrtMemcpy(d, 64, bad[i], 64, ACL_MEMCPY_DEVICE_TO_DEVICE),
                         ACL_ERROR_RT_PARAM_INVALID);
        (void)aclGetRecentErrMsg();
        assert_int_equal(aclrtMemcpyAsync(bad[i], 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE, s),
                         ACL_ERROR_RT_PARAM_INVALID);
        assert_non_null(strstr(aclGetRecentErrMsg(), "Invalid_Argument(EE1003): Asynchronous "
                                                     "memory copy failed because value"));
        assert_int_equal(aclrtMemset(bad[i], 64, 0, 64), ACL_ERROR_RT_PARAM_INVALID);
        assert_non_null(strstr(aclGetRecentErrMsg(), "Invalid_Argument(EE1003): Synchronous "
                                                     "memory set failed because value"));
        assert_int_equal(aclrtMemsetAsync(bad[i], 64, 0, 64, s), ACL_ERROR_RT_PARAM_INVALID);
        (void)aclGetRecentErrMsg();
    }
    /* Counts that wrap the address space. */
    assert_int_equal(aclrtMemcpy((char *)d + 64, SIZE_MAX, h, SIZE_MAX, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemset((char *)d + 64, SIZE_MAX, 0, SIZE_MAX - 63),
                     ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    MISUSE_END();
    /* The block itself was never touched: it still holds what we put there. */
    unsigned char back[256];
    assert_int_equal(aclrtMemset(d, 256, 0x11, 256), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 256, d, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < 256; i++)
        assert_int_equal(back[i], 0x11);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

/* An address in the padding aclrtMalloc adds after a block (the 32 bytes
 * of 910B, and the rounding to 64) is past the block's end: a copy or fill
 * from there is refused. Before, the bytes left were computed as
 * size - offset, which wrapped for such an address: aclrtMemcpy and
 * aclrtMemset succeeded and wrote over the next block. */
static void test_copies_from_a_blocks_padding_are_107000(void **state)
{
    (void)state;
    void *a, *b;
    char h[2048];
    memset(h, 0x77, sizeof h);
    assert_int_equal(aclrtMalloc(&a, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&b, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(b, 256, 0, 256), ACL_SUCCESS);
    char *pad = (char *)a + 300; /* 256 usable, +32 padding, 320 in the heap */
    char text[512];
    MISUSE_BEGIN();
    assert_int_equal(aclrtMemcpy(pad, sizeof h, h, 1000, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    snprintf(text, sizeof text, "Synchronous memory copy failed because value 1000 for parameter "
             "count is invalid. Expected value: at most 0: dst %p lies 300 bytes into a block of "
             "256 bytes, the access would run past its end.", (void *)pad);
    expect_msg("Invalid_Argument(EE1003)", text);
    assert_int_equal(aclrtMemset(pad - 10, sizeof h, 1, 500), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemcpy(h, sizeof h, pad, 1, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_ERROR_RT_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    MISUSE_END();
    unsigned char back[256];
    assert_int_equal(aclrtMemcpy(back, 256, b, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < 256; i++)
        assert_int_equal(back[i], 0); /* the neighbour is untouched */
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
}

/* A pointer of a device that was reset no longer names device memory, and
 * is not host memory either: before, a copy that took it for host memory
 * (ACL_MEMCPY_DEFAULT, or the host side of a copy) read or wrote through
 * the device's unmapped range and crashed the program with SIGSEGV. */
static void test_pointers_of_a_reset_device_are_refused(void **state)
{
    (void)state;
    void *d;
    char h[64] = {0};
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS); /* reclaims the block */
    RECLAIMED(d);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_ERROR_RT_MEMORY_FREE);
    expect_not_live("aclrtFree", d);
    MISUSE_BEGIN();
    aclError to = aclrtMemcpy(d, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE);
    char m[1024];
    snprintf(m, sizeof m, "%s", aclGetRecentErrMsg());
    aclError fill = aclrtMemset(d, 64, 0, 64);
    (void)aclGetRecentErrMsg();
    aclError from_default = aclrtMemcpy(h, 64, d, 64, ACL_MEMCPY_DEFAULT);
    (void)aclGetRecentErrMsg();
    aclError to_default = aclrtMemcpy(d, 64, h, 64, ACL_MEMCPY_DEFAULT);
    (void)aclGetRecentErrMsg();
    aclError as_host_src = aclrtMemcpy(h, 64, d, 64, ACL_MEMCPY_HOST_TO_HOST);
    (void)aclGetRecentErrMsg();
    aclError as_host_dst = aclrtMemcpyAsync(d, 64, h, 64, ACL_MEMCPY_HOST_TO_HOST, s);
    (void)aclGetRecentErrMsg();
    MISUSE_END();
    assert_int_equal(to, ACL_ERROR_RT_PARAM_INVALID);
    assert_non_null(strstr(m, "is it freed?"));
    assert_int_equal(fill, ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(from_default, ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(to_default, ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(as_host_src, ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(as_host_dst, ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes(d, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS); /* the reference taken above */
}

static void test_pointer_attributes_of_hostile_pointers(void **state)
{
    (void)state;
    int on_stack;
    void *d, *pinned;
    aclrtPtrAttributes a;
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&pinned, 4096), ACL_SUCCESS);
    const void *unreg[] = {(void *)(uintptr_t)1, &on_stack, (void *)(uintptr_t)(UINTPTR_MAX - 7)};
    for (size_t i = 0; i < sizeof unreg / sizeof unreg[0]; i++) {
        memset(&a, 0xff, sizeof a);
        assert_int_equal(aclrtPointerGetAttributes(unreg[i], &a), ACL_SUCCESS);
        assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    }
    assert_int_equal(aclrtPointerGetAttributes((char *)d + 4095, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    assert_int_equal(a.location.id, 0);
    assert_int_equal(aclrtPointerGetAttributes((char *)pinned + 4095, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    assert_int_equal(aclrtPointerGetAttributes(d, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtPointerGetAttributes", "attributes");
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(pinned), ACL_SUCCESS);
    assert_int_equal(aclrtPointerGetAttributes(d, &a), ACL_SUCCESS);
    assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
}

/* Device ids: out of range both ways and far out. */
static void test_hostile_device_ids_are_107001(void **state)
{
    (void)state;
    int32_t ids[] = {-1, 2, 64, 65, INT32_MAX, INT32_MIN};
    aclrtContext c;
    aclrtMemUsageInfo u[2];
    size_t n;
    char text[256];
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        snprintf(text, sizeof text, "The argument is invalid. Reason: invalid device id %d, valid "
                 "range is [0, 2).", (int)ids[i]);
        assert_int_equal(aclrtSetDevice(ids[i]), ACL_ERROR_RT_INVALID_DEVICEID);
        expect_msg("Invalid_Argument(EE1001)", text);
        assert_int_equal(aclrtResetDevice(ids[i]), ACL_ERROR_RT_INVALID_DEVICEID);
        expect_msg("Invalid_Argument(EE1001)", text);
        assert_int_equal(aclrtResetDeviceForce(ids[i]), ACL_ERROR_RT_INVALID_DEVICEID);
        expect_msg("Invalid_Argument(EE1001)", text);
        assert_int_equal(aclrtCreateContext(&c, ids[i]), ACL_ERROR_RT_INVALID_DEVICEID);
        expect_msg("Invalid_Argument(EE1001)", text);
        assert_int_equal(aclrtGetMemUsageInfo(ids[i], u, 2, &n), ACL_ERROR_RT_INVALID_DEVICEID);
        expect_msg("Invalid_Argument(EE1001)", text);
    }
    /* An id in range whose device is not open. */
    assert_int_equal(aclrtGetMemUsageInfo(1, u, 2, &n), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtGetMemUsageInfo "
               "failed, device 1 is not set; call aclrtSetDevice first.");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, up, down)
    const struct CMUnitTest tests[] = {
        T(test_garbage_stream_handles_are_507000),
        T(test_destroyed_interior_and_mistyped_stream_handles_are_507000),
        T(test_garbage_destroyed_interior_and_mistyped_event_handles_are_507000),
        T(test_null_event_arguments_are_eh0008),
        T(test_garbage_destroyed_and_mistyped_context_handles_are_eh0012),
        T(test_stream_of_another_device_works_on_its_own_device),
        T(test_handles_live_through_a_finalize_and_go_with_their_device),
        T(test_free_of_anything_but_a_live_block_start_is_207002),
        T(test_copies_through_hostile_device_pointers_are_107000),
        T(test_copies_from_a_blocks_padding_are_107000),
        T(test_pointers_of_a_reset_device_are_refused),
        T(test_pointer_attributes_of_hostile_pointers),
        T(test_hostile_device_ids_are_107001),
    };
    return cmocka_run_group_tests_name("adversarial handles", tests, NULL, NULL);
}
