/*
 * test_adversarial_lifecycle.c - lifecycle abuse (issue 11): calls before
 * aclInit and after aclFinalize, use after destroy, destroys in the wrong
 * order (a device reset with live contexts, streams and events; aclFinalize
 * with everything live), and init/finalize cycles that must leave nothing
 * behind. Codes are CANN's (hicann/runtime src/acl/aclrt_impl/acl.cpp,
 * device.cpp; the runtime sources cited per
 * case); the memcheck gate runs this suite, so nothing may leak either.
 */
#include <stdint.h>
#include <stdlib.h>
#include "aclsim/aclsim.h"
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
    setenv("ACLSIM_HBM_BYTES", "67108864", 1);
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    return 0;
}

/* Every case leaves the library finalized and both devices closed. */
static int down(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    while (aclFinalize() == ACL_SUCCESS)
        ;
    for (int32_t d = 0; d < 2; d++) /* CANN's aclFinalize resets no device */
        (void)aclrtResetDeviceForce(d);
    (void)aclGetRecentErrMsg();
    return 0;
}

static void expect_no_context(const char *func)
{
    char text[256];
    snprintf(text, sizeof text, "The argument is invalid. Reason: %s failed, the current thread "
             "has no context; call aclrtSetDevice or aclrtSetCurrentContext first.", func);
    expect_msg("Invalid_Argument(EE1001)", text);
}

static size_t hbm_free(void)
{
    size_t fr = 0, total = 0;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    return fr;
}

static size_t hbm_total(void)
{
    size_t fr = 0, total = 0;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    return total;
}

static void register_dummy(aclrtStream s, aclrtAllocatorDesc d, void *obj)
{
    assert_int_equal(aclrtAllocatorSetObjToDesc(d, obj), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, (aclrtAllocatorAllocFunc)(uintptr_t)0x10),
                     ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, (aclrtAllocatorFreeFunc)(uintptr_t)0x20),
                     ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
                         d, (aclrtAllocatorGetAddrFromBlockFunc)(uintptr_t)0x30),
                     ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
}

/* ---- Before aclInit, after aclFinalize ---- */

/* CANN's aclrtSetDevice asks the runtime directly, without an aclInit
 * check (src/acl/aclrt_impl/device.cpp): the runtime works before aclInit,
 * and the calls that need a context say so. */
static void test_runtime_calls_before_aclinit(void **state)
{
    (void)state;
    void *p = NULL;
    aclrtStream s;
    int32_t d = -1;
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    uint64_t left = 7;
    assert_int_equal(aclFinalizeReference(&left), ACL_ERROR_REPEAT_FINALIZE);
    assert_int_equal(left, 7);
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtMalloc");
    assert_int_equal(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtCreateStream");
    assert_int_equal(aclrtSynchronizeDevice(), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtSynchronizeDevice");
    assert_int_equal(aclrtMallocHost(&p, 64), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtMallocHost");
    /* The SoC is the process's, known before aclInit and without a
     * context (as CANN answers). */
    assert_string_equal(aclrtGetSocName(), "Ascend910B1");
    expect_no_msg();

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS);
    assert_int_equal(d, 0);
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 64, 3, 64, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    /* aclInit takes the runtime as it finds it, and aclFinalize leaves it
     * so (CANN's aclFinalizeInternal resets no device: hicann/runtime
     * src/acl/aclrt_impl/acl.cpp:547-628); the reset closes it. */
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS);
    assert_int_equal(d, 0);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtGetDevice");
}

static void test_calls_after_aclfinalize_with_stale_state(void **state)
{
    (void)state;
    void *p, *dead_host;
    aclrtStream s;
    aclrtEvent e;
    int32_t d;
    size_t fr, total;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&dead_host, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(dead_host), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    /* What the program holds is still usable (CANN's aclFinalize resets
     * no device: src/acl/aclrt_impl/acl.cpp:547-628) ... */
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 64, 0, 64, s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    /* ... until its device is reset: then it is all stale. */
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    RECLAIMED(p);

    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    assert_int_equal(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtGetDevice");
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtGetMemInfo");
    void *q = NULL;
    assert_int_equal(aclrtMalloc(&q, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtMalloc");
    assert_null(q);
    assert_int_equal(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE); /* went with the device */
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFreeHost(dead_host), ACL_ERROR_RT_MEMORY_FREE);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtMemsetAsync(p, 64, 0, 64, s), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtRecordEvent(e, NULL), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSynchronizeDevice(), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtSynchronizeDevice");
    /* The runtime itself still answers, as before aclInit. */
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS);
    assert_int_equal(d, 1);
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
}

/* A reset of a device that was never set, or was reset already, releases
 * nothing and says so (CANN's runtime: PrimaryContextRelease in
 * src/runtime/core/src/runtime.cc finds no reference and fails with
 * RT_ERROR_CONTEXT_DEL, which ApiErrorDecorator::DeviceReset reports as
 * EE1018 and the ACL layer returns as ACL_ERROR_RT_CONTEXT_RELEASE_ERROR).
 * aclsim answered ACL_SUCCESS before. */
static void expect_nothing_to_reset(void)
{
    expect_msg("Invalid_Argument_API_Call_Sequence(EE1018)", "Resetting the device failed. "
               "Reason: The device has not been set or has already been reset.");
}

static void expect_nothing_to_force(void)
{
    expect_msg("Inner_Error(EH9999)", "PrimaryContextRelease failed, total ref count is 0.");
}

static void test_reset_of_a_device_not_set_is_507007(void **state)
{
    (void)state;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(1), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    expect_nothing_to_reset();
    assert_int_equal(aclrtResetDeviceForce(1), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    expect_nothing_to_force();
    /* Once per aclrtSetDevice, then no more. */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    expect_nothing_to_reset();
    /* A forced reset takes every reference: a second one finds none. */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDeviceForce(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    expect_nothing_to_force();
    assert_int_equal(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    expect_nothing_to_reset();
    /* A device opened by a context of the program's has no default context
     * to release: the reset fails and the context lives on. */
    aclrtContext c;
    void *p;
    assert_int_equal(aclrtCreateContext(&c, 1), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(1), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    expect_nothing_to_reset();
    assert_int_equal(aclrtResetDeviceForce(1), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    expect_nothing_to_force();
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    /* Out-of-range ids are checked first. */
    assert_int_equal(aclrtResetDevice(2), ACL_ERROR_RT_INVALID_DEVICEID);
    (void)aclGetRecentErrMsg();
}

/* ---- Destroys in the wrong order ---- */

/* aclrtResetDevice at reference 0 releases the default context and, with
 * it, its streams (hicann/runtime src/acl/aclrt_impl/device.cpp); a context
 * the program made keeps the
 * device open, with its own streams, the events and the memory. */
static void test_reset_device_with_a_live_user_context(void **state)
{
    (void)state;
    aclrtContext primary, mine;
    aclrtStream in_primary, in_mine;
    aclrtEvent ev;
    void *p;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&in_primary), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&ev), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&mine, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&in_mine), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 1 << 20, 9, 1 << 20, in_mine), ACL_SUCCESS);

    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(in_primary), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    /* The program's own context goes on. */
    assert_int_equal(aclrtSetCurrentContext(mine), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(ev, in_mine), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(ev), ACL_SUCCESS);
    unsigned char back[16];
    assert_int_equal(aclrtMemcpy(back, 16, (char *)p + 100, 16, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    assert_int_equal(back[0], 9);
    /* The last context closes the device: everything on it goes. */
    assert_int_equal(aclrtDestroyContext(mine), ACL_SUCCESS);
    RECLAIMED(p);
    assert_int_equal(aclrtSynchronizeStream(in_mine), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSynchronizeEvent(ev), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(hbm_free(), hbm_total());
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
}

/* aclrtResetDeviceForce with contexts, streams, events, memory and pending
 * work on the device: only the primary context goes, whatever its
 * references (ApiImpl::DeviceReset -> Runtime::PrimaryContextRelease,
 * api_impl.cc L3753-3757, runtime.cc L2833-2929). A context made by
 * aclrtCreateContext retains the device (ApiImpl::NewContext ->
 * DeviceRetain, api_impl.cc L4086-4090): it, its streams, events and the
 * memory stay usable until it is destroyed, and the last one's destruction
 * closes the device. */
static void test_reset_device_force_keeps_user_contexts(void **state)
{
    (void)state;
    aclrtContext c1, c2;
    aclrtStream s[4];
    aclrtEvent e[4];
    void *p[4];
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS); /* reference 2 */
    assert_int_equal(aclrtCreateContext(&c1, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c2, 0), ACL_SUCCESS);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(aclrtSetCurrentContext(i & 1 ? c1 : c2), ACL_SUCCESS);
        assert_int_equal(aclrtCreateStream(&s[i]), ACL_SUCCESS);
        assert_int_equal(aclrtCreateEvent(&e[i]), ACL_SUCCESS);
        assert_int_equal(aclrtMalloc(&p[i], 3u << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        assert_int_equal(aclrtMemsetAsync(p[i], 3u << 20, i + 1, 3u << 20, s[i]), ACL_SUCCESS);
        assert_int_equal(aclrtRecordEvent(e[i], s[i]), ACL_SUCCESS);
    }
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    int32_t d = -1;
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS); /* the current context is c1 */
    assert_int_equal(d, 0);
    for (int i = 0; i < 4; i++) {
        aclrtEventRecordedStatus st;
        unsigned char b = 0;
        assert_int_equal(aclrtSetCurrentContext(i & 1 ? c1 : c2), ACL_SUCCESS);
        assert_int_equal(aclrtStreamWaitEvent(s[i], e[i]), ACL_SUCCESS);
        assert_int_equal(aclrtSynchronizeStream(s[i]), ACL_SUCCESS);
        assert_int_equal(aclrtQueryEventStatus(e[i], &st), ACL_SUCCESS);
        assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
        assert_int_equal(aclrtMemcpy(&b, 1, (char *)p[i] + 7, 1, ACL_MEMCPY_DEVICE_TO_HOST),
                         ACL_SUCCESS);
        assert_int_equal(b, i + 1);
    }
    /* Both references went with the primary context: nothing is left to
     * release, by reference or forced. */
    assert_int_equal(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtResetDeviceForce(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    (void)aclGetRecentErrMsg();
    for (int i = 0; i < 4; i++) {
        assert_int_equal(aclrtSetCurrentContext(i & 1 ? c1 : c2), ACL_SUCCESS);
        assert_int_equal(aclrtFree(p[i]), ACL_SUCCESS);
        assert_int_equal(aclrtDestroyEvent(e[i]), ACL_SUCCESS);
        assert_int_equal(aclrtDestroyStream(s[i]), ACL_SUCCESS);
    }
    assert_int_equal(aclrtDestroyContext(c1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(c2), ACL_SUCCESS); /* the last: the device closes */
    assert_int_equal(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtGetDevice");
    /* One SetDevice, one ResetDevice: a clean device again. */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(hbm_free(), hbm_total());
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    (void)aclGetRecentErrMsg();
}

/* A context destroyed before its streams and events: its streams go with
 * it (CANN), its events stay the device's until it closes. */
static void test_destroy_context_before_its_streams_and_events(void **state)
{
    (void)state;
    aclrtContext c;
    aclrtStream s, other;
    aclrtEvent e;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&other), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    /* No current context any more (it was c): streams need one. */
    assert_int_equal(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    expect_no_context("aclrtCreateStream");
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(other, e), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, other), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(other), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
}

/* aclFinalize with contexts, streams, events, device and host memory and a
 * registration still live: the devices close, every handle is rejected,
 * the registry survives (it needs no aclInit, as in CANN), and host blocks
 * become the program's to free. */
static void test_finalize_with_everything_live(void **state)
{
    (void)state;
    aclrtContext c;
    aclrtStream s0, s1;
    aclrtEvent e0, e1;
    void *d0, *d1, *host;
    int obj;
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    assert_non_null(desc);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE); /* reference 2 */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d0, 1 << 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&host, 1 << 16), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c, 1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e1), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d1, 1 << 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d1, 1 << 16, host, 1 << 16, ACL_MEMCPY_HOST_TO_DEVICE, s1),
                     ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e1, s1), ACL_SUCCESS);
    register_dummy(s1, desc, &obj);

    assert_int_equal(aclFinalize(), ACL_SUCCESS); /* all references at once */
    assert_int_equal(aclFinalizeReference(NULL), ACL_ERROR_REPEAT_FINALIZE);
    /* CANN's aclFinalize resets no device (src/acl/aclrt_impl/acl.cpp:
     * 547-628): everything still works, and the program releases it after
     * (HiCR's examples do), in any order that is legal before aclFinalize. */
    aclrtStream streams[] = {s0, s1};
    aclrtEvent events[] = {e0, e1};
    void *blocks[] = {d0, d1};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(aclrtSynchronizeStream(streams[i]), ACL_SUCCESS);
        assert_int_equal(aclrtSynchronizeEvent(events[i]), ACL_SUCCESS);
        assert_int_equal(aclrtFree(blocks[i]), ACL_SUCCESS);
    }
    aclrtAllocatorDesc got = NULL;
    assert_int_equal(aclrtAllocatorGetByStream(s1, &got, NULL, NULL, NULL, NULL, NULL),
                     ACL_SUCCESS);
    assert_ptr_equal(got, desc);
    assert_int_equal(aclrtAllocatorUnregister(s1), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(desc), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(host), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(c), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS); /* device 1 closes */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS); /* device 0 closes: the end */
    /* A new start sees empty devices. */
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(hbm_free(), hbm_total());
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(hbm_free(), hbm_total());
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/* Init/finalize cycles with leftovers each time: no stream or event slot,
 * no device byte and no host byte may be lost on the way (the memcheck
 * gate sees host leaks; the limits and the accounting see the rest). */
static void test_init_finalize_cycles_lose_nothing(void **state)
{
    (void)state;
    for (int round = 0; round < 40; round++) {
        aclrtStream s;
        aclrtEvent e;
        aclrtContext c;
        assert_int_equal(aclInit(NULL), ACL_SUCCESS);
        assert_int_equal(aclrtSetDevice(round & 1), ACL_SUCCESS);
        assert_int_equal(hbm_free(), hbm_total());
        void *blocks[10];
        for (int i = 0; i < 10; i++) {
            assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
            assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
            assert_int_equal(aclrtMalloc(&blocks[i], 4096u << i, ACL_MEM_MALLOC_HUGE_FIRST),
                             ACL_SUCCESS);
        }
        assert_int_equal(aclrtCreateContext(&c, (round + 1) & 1), ACL_SUCCESS);
        assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
        if (round % 3 == 0)
            assert_int_equal(aclrtResetDeviceForce(round & 1), ACL_SUCCESS);
        /* aclFinalize closes nothing (CANN's resets no device); the
         * leftovers go when their devices close. */
        assert_int_equal(aclFinalize(), ACL_SUCCESS);
        if (round % 3 != 0)
            assert_int_equal(aclrtResetDeviceForce(round & 1), ACL_SUCCESS);
        assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS);
        for (int i = 0; i < 10; i++)
            RECLAIMED(blocks[i]);
    }
    /* Every slot came back: the full per-device limit is there to take
     * (1984 streams with the default one: hicann/runtime docs/zh/api_ref,
     * 06_stream_management.md). */
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    static aclrtStream many[1983];
    for (int i = 0; i < 1983; i++)
        assert_int_equal(aclrtCreateStream(&many[i]), ACL_SUCCESS);
    aclrtStream one_more;
    assert_int_equal(aclrtCreateStream(&one_more), ACL_ERROR_RT_NO_STREAM_RESOURCE);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/* The same runtime calls from a thread that never set a device: no
 * context, whatever other threads did (the current context is per thread:
 * hicann/runtime docs/zh/api_ref, aclrtSetCurrentContext). */
#include <pthread.h>
static void *no_context_thread(void *arg)
{
    aclError *rc = arg;
    void *p;
    int32_t d;
    rc[0] = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    rc[1] = aclrtGetDevice(&d);
    rc[2] = aclrtSynchronizeStream(NULL);
    (void)aclGetRecentErrMsg();
    return NULL;
}

static void test_a_thread_without_a_context(void **state)
{
    (void)state;
    aclError rc[3];
    pthread_t t;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(pthread_create(&t, NULL, no_context_thread, rc), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(rc[i], ACL_ERROR_RT_CONTEXT_NULL);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, up, down)
    const struct CMUnitTest tests[] = {
        T(test_runtime_calls_before_aclinit),
        T(test_calls_after_aclfinalize_with_stale_state),
        T(test_reset_of_a_device_not_set_is_507007),
        T(test_reset_device_with_a_live_user_context),
        T(test_reset_device_force_keeps_user_contexts),
        T(test_destroy_context_before_its_streams_and_events),
        T(test_finalize_with_everything_live),
        T(test_init_finalize_cycles_lose_nothing),
        T(test_a_thread_without_a_context),
    };
    return cmocka_run_group_tests_name("adversarial lifecycle", tests, NULL, NULL);
}
