/*
 * test_adversarial_exhaustion.c - running out (issue 11): device memory
 * until ACL_ERROR_RT_MEMORY_ALLOCATION (207001) and back, streams and
 * events to their per-device limits (1984 with the default stream, 65536:
 * hicann/runtime docs/zh/api_ref, 06_stream_management.md and
 * 07_event_management.md) and back, and the library's own host memory
 * failing under every call that needs it (the lib/host/malloc fault point): each
 * failure is CANN's code and message, leaves nothing half-built, and the
 * next call works.
 */
#include <stdint.h>
#include <stdlib.h>
#include "aclsim/fault.h"
#include "testutil.h"

#define HBM (64u << 20)
/* What the heap hands out: the capacity less CANN's 8 MiB driver reserve
 * (sim/policy.c), which aclrtGetMemInfo leaves out of its total too. */
#define USABLE (HBM - (8u << 20))
/* The driver's unit of device memory on normal pages: every block is
 * rounded to it (hicann/driver src/ascend_hal/svm/v2/devmm/
 * devmm_virt_interface.c:1212-1214, devmm_virt_com_heap.c:1527). */
#define PAGE 4096u

static int up(void **state)
{
    (void)state;
    char v[32];
    snprintf(v, sizeof v, "%u", HBM);
    setenv("ACLSIM_HBM_BYTES", v, 1);
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int down(void **state)
{
    (void)state;
    aclsim_fault_disable_all();
    (void)aclGetRecentErrMsg();
    aclrtResetDeviceForce(0);
    aclrtResetDeviceForce(1);
    (void)aclGetRecentErrMsg();
    return aclFinalize();
}

static void mem_info(size_t *fr, size_t *total)
{
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, fr, total), ACL_SUCCESS);
}

static void expect_oom(size_t size)
{
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_non_null(strstr(m, "Memory_Allocation_Failure(EL0004): Failed to allocate memory.\n"));
    char tail[128];
    snprintf(tail, sizeof tail, "alloc device memory failed, size=%zu, runtime result = 207001.",
             size);
    assert_non_null(strstr(m, tail));
}

/* ---- Device memory ---- */

static void test_device_memory_until_207001_then_recovery(void **state)
{
    (void)state;
    enum { BLOCK = 1 << 20, MAX = 128 };
    void *p[MAX];
    size_t fr, total, n = 0;
    mem_info(&fr, &total);
    assert_int_equal(fr, total);
    for (; n < MAX; n++) {
        aclError rc = aclrtMalloc(&p[n], BLOCK, ACL_MEM_MALLOC_NORMAL_ONLY);
        if (rc != ACL_SUCCESS) {
            assert_int_equal(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
            expect_oom(BLOCK);
            break;
        }
    }
    /* 1 MiB + 32 bytes of padding, in 4 KiB pages: 55 fit in 56 MiB. */
    assert_int_equal(n, USABLE / (BLOCK + PAGE));
    mem_info(&fr, &total);
    assert_int_equal(total, USABLE);
    assert_int_equal(fr, USABLE - n * (BLOCK + PAGE)); /* the tail, below one block */
    /* Smaller requests still find the tail, to the last page: 201 blocks
     * of 4000 (+32 padding: one page each), then the pages are gone and
     * even an unpadded 64-byte block, a page too, fails. */
    static void *tail[512];
    size_t k = 0;
    while (k < 512 && aclrtMalloc(&tail[k], 4000, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS)
        k++;
    assert_int_equal(k, (USABLE - n * (BLOCK + PAGE)) / PAGE);
    expect_oom(4000);
    void *q;
    assert_int_equal(aclrtMallocAlign32(&q, 64, ACL_MEM_MALLOC_NORMAL_ONLY),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect_oom(64);
    assert_int_equal(aclrtMallocAlign32(&q, 1, ACL_MEM_MALLOC_NORMAL_ONLY),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect_oom(1);
    /* Recovery: one block back, one allocation fits again. */
    assert_int_equal(aclrtFree(p[n / 2]), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p[n / 2], BLOCK, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&q, BLOCK, ACL_MEM_MALLOC_NORMAL_ONLY),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect_oom(BLOCK);
    for (size_t i = 0; i < k; i++)
        assert_int_equal(aclrtFree(tail[i]), ACL_SUCCESS);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(aclrtFree(p[i]), ACL_SUCCESS);
    mem_info(&fr, &total);
    assert_int_equal(fr, total);
    /* Everything coalesced: one block of all of it fits. */
    assert_int_equal(aclrtMalloc(&q, USABLE - 32, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtFree(q), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&q, USABLE - 31, ACL_MEM_MALLOC_NORMAL_ONLY),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect_oom(USABLE - 31);
}

/* Huge-page requests when no 2 MB page is left: HUGE_ONLY fails, HUGE_FIRST
 * falls back to normal pages (hicann/runtime docs/zh/api_ref, aclrtMalloc); 1
 * GB pages never fit. */
static void test_huge_pages_exhausted(void **state)
{
    (void)state;
    void *p[64], *q;
    size_t n = 0;
    while (n < 64 && aclrtMalloc(&p[n], (2u << 20) - 64, ACL_MEM_MALLOC_HUGE_ONLY) == ACL_SUCCESS)
        n++;
    assert_int_equal(n, USABLE / (2u << 20));
    expect_oom((2u << 20) - 64);
    assert_int_equal(aclrtFree(p[0]), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&q, 1u << 20, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    /* The freed page is split: no 2 MB page left, HUGE_FIRST takes normal ones. */
    assert_int_equal(aclrtMalloc(&p[0], (1u << 20) + 4096, ACL_MEM_MALLOC_HUGE_ONLY),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect_oom((1u << 20) + 4096);
    /* 1 MiB - 8 KiB + 32 padding: 255 pages, all that the freed 2 MiB less
     * q's 257 leave. */
    assert_int_equal(aclrtMalloc(&p[0], (1u << 20) - 2 * PAGE, ACL_MEM_MALLOC_HUGE_FIRST),
                     ACL_SUCCESS);
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes(p[0], &a), ACL_SUCCESS);
    assert_int_equal(a.pageSize, 4096);
    assert_int_equal(aclrtMalloc(&q, 1, ACL_MEM_MALLOC_HUGE1G_ONLY), ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect_oom(1);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(aclrtFree(p[i]), ACL_SUCCESS);
    size_t fr, total;
    mem_info(&fr, &total);
    assert_int_equal(fr, total - (1u << 20) - PAGE);
    assert_int_equal(aclrtFree(q), ACL_SUCCESS);
    mem_info(&fr, &total);
    assert_int_equal(fr, total);
}

/* ---- Streams and events ---- */

static void expect_no_stream_left(void)
{
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtCreateStream "
               "failed, the device has no stream resource left.");
}

static aclrtStream streams[1984];

static void test_streams_to_the_limit_then_recovery(void **state)
{
    (void)state;
    size_t n = 0;
    aclrtStream s;
    while (n < 1984 && aclrtCreateStream(&streams[n]) == ACL_SUCCESS)
        n++;
    assert_int_equal(n, 1983); /* the default stream is the 1984th */
    assert_int_equal(aclrtCreateStream(&s), ACL_ERROR_RT_NO_STREAM_RESOURCE);
    expect_no_stream_left();
    /* A context on the full device needs a default stream too. */
    aclrtContext c, primary;
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c, 0), ACL_ERROR_RT_NO_STREAM_RESOURCE);
    expect_msg("Inner_Error(EH9999)", "aclrtCreateContext failed, runtime result = 207008.");
    assert_int_equal(aclrtDestroyStream(streams[7]), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&streams[7]), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_ERROR_RT_NO_STREAM_RESOURCE);
    expect_no_stream_left();
    /* The other device has its own streams. */
    assert_int_equal(aclrtCreateContext(&c, 1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS);
    /* Two slots back: a context (with its default stream) and one stream. */
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(streams[0]), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(streams[1]), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&streams[0]), ACL_ERROR_RT_NO_STREAM_RESOURCE);
    expect_no_stream_left();
    assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS);
    /* The reset takes every one back. */
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    n = 0;
    while (n < 1984 && aclrtCreateStream(&streams[n]) == ACL_SUCCESS)
        n++;
    assert_int_equal(n, 1983);
    expect_no_stream_left();
    for (size_t i = 0; i < n; i++)
        assert_int_equal(aclrtDestroyStream(streams[i]), ACL_SUCCESS);
}

static aclrtEvent events[65536];

static void test_events_to_the_limit_then_recovery(void **state)
{
    (void)state;
    size_t n = 0;
    aclrtEvent e;
    while (n < 65536 && aclrtCreateEvent(&events[n]) == ACL_SUCCESS)
        n++;
    assert_int_equal(n, 65536);
    assert_int_equal(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC), ACL_ERROR_RT_NO_EVENT_RESOURCE);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: "
               "aclrtCreateEventWithFlag failed, the device has no event resource left.");
    /* The limit is per device. */
    aclrtContext c, primary;
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c, 1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_SUCCESS);
    /* Every event still works at the limit. */
    assert_int_equal(aclrtRecordEvent(events[65535], NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(events[65535]), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(events[100]), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&events[100]), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_ERROR_RT_NO_EVENT_RESOURCE);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclrtCreateEvent "
               "failed, the device has no event resource left.");
    for (size_t i = 0; i < n; i++)
        assert_int_equal(aclrtDestroyEvent(events[i]), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

/* ---- The library's own host memory ---- */

static int obj;

static void *dummy_alloc(aclrtAllocator a, size_t s)
{
    (void)a, (void)s;
    return NULL;
}
static void dummy_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    (void)a, (void)b;
}
static void *dummy_addr(aclrtAllocatorBlock b)
{
    return b;
}

/* A failed call left `what` unbuilt: its code is one of `codes` and a
 * message says so. */
static void expect_failed(const char *what, aclError rc, aclError a, aclError b)
{
    if (rc != a && rc != b)
        fail_msg("%s failed with %d under lib/host/malloc, expected %d or %d", what, rc, a, b);
    assert_non_null(aclGetRecentErrMsg());
}

/* One pass of a program from a closed device 1 to a full teardown, with
 * the n-th host allocation inside the library failing. Returns how many
 * calls failed. */
static int one_pass(void)
{
    int failed = 0;
    aclrtContext primary = NULL, c = NULL;
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    void *d = NULL, *h = NULL;
    aclrtAllocatorDesc desc = NULL;
    aclError rc = aclrtSetDevice(1);
    if (rc != ACL_SUCCESS) {
        expect_failed("aclrtSetDevice", rc, ACL_ERROR_BAD_ALLOC, ACL_ERROR_RT_MEMORY_ALLOCATION);
        failed++;
        int32_t dev;
        assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS); /* still device 0's context */
        assert_int_equal(dev, 0);
        return failed;
    }
    assert_int_equal(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    rc = aclrtCreateContext(&c, 1);
    if (rc != ACL_SUCCESS) {
        expect_failed("aclrtCreateContext", rc, ACL_ERROR_BAD_ALLOC, ACL_ERROR_BAD_ALLOC);
        c = NULL;
        failed++;
    }
    rc = aclrtCreateStream(&s);
    if (rc != ACL_SUCCESS) {
        expect_failed("aclrtCreateStream", rc, ACL_ERROR_BAD_ALLOC, ACL_ERROR_BAD_ALLOC);
        s = NULL;
        failed++;
    }
    rc = aclrtCreateEvent(&e);
    if (rc != ACL_SUCCESS) {
        expect_failed("aclrtCreateEvent", rc, ACL_ERROR_BAD_ALLOC, ACL_ERROR_BAD_ALLOC);
        e = NULL;
        failed++;
    }
    rc = aclrtMalloc(&d, 1 << 16, ACL_MEM_MALLOC_HUGE_FIRST);
    if (rc != ACL_SUCCESS) {
        expect_failed("aclrtMalloc", rc, ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_BAD_ALLOC);
        d = NULL;
        failed++;
    }
    rc = aclrtMallocHost(&h, 1 << 12);
    if (rc != ACL_SUCCESS) {
        expect_failed("aclrtMallocHost", rc, ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_BAD_ALLOC);
        h = NULL;
        failed++;
    }
    desc = aclrtAllocatorCreateDesc();
    if (!desc) {
        expect_msg("Resource_Error_Insufficient_Host_Memory(EH0010)",
                   "Failed to allocate 40 bytes of host memory via new to ACL.");
        failed++;
    }
    if (desc && s) {
        aclrtAllocatorSetObjToDesc(desc, &obj);
        aclrtAllocatorSetAllocFuncToDesc(desc, dummy_alloc);
        aclrtAllocatorSetFreeFuncToDesc(desc, dummy_free);
        aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, dummy_addr);
        rc = aclrtAllocatorRegister(s, desc);
        if (rc != ACL_SUCCESS) {
            expect_failed("aclrtAllocatorRegister", rc, ACL_ERROR_BAD_ALLOC, ACL_ERROR_BAD_ALLOC);
            failed++;
            aclrtAllocatorDesc got;
            assert_int_equal(aclrtAllocatorGetByStream(s, &got, NULL, NULL, NULL, NULL, NULL),
                             ACL_ERROR_INVALID_PARAM); /* nothing registered */
            (void)aclGetRecentErrMsg();
        } else {
            assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
        }
    }
    /* What was built works; then it all goes, in the right order. */
    if (d && s) {
        assert_int_equal(aclrtMemsetAsync(d, 1 << 16, 1, 1 << 16, s), ACL_SUCCESS);
        if (e)
            assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
        assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    }
    if (desc)
        assert_int_equal(aclrtAllocatorDestroyDesc(desc), ACL_SUCCESS);
    if (h)
        assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    if (d)
        assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    if (e)
        assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    if (s)
        assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    if (c)
        assert_int_equal(aclrtDestroyContext(c), ACL_SUCCESS);
    assert_int_equal(aclrtSetCurrentContext(primary), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS); /* back to one reference */
    return failed;
}

static void test_host_memory_failing_under_every_call(void **state)
{
    (void)state;
    unsigned long n = 1;
    for (;; n++) {
        unsigned long before = aclsim_fault_hits("lib/host/malloc");
        assert_int_equal(aclsim_fault_enable_nth("lib/host/malloc", n, 0), 0);
        int failed = one_pass();
        unsigned long hits = aclsim_fault_hits("lib/host/malloc") - before;
        aclsim_fault_disable_all();
        (void)aclGetRecentErrMsg();
        if (hits < n) {
            assert_int_equal(failed, 0); /* not reached: every call worked */
            break;
        }
        if (failed == 0)
            fail_msg("the host allocation %lu of the pass failed, but every call succeeded", n);
    }
    assert_true(n > 8); /* the pass does allocate, many times */
    /* Nothing was left behind on the device either: all slots and bytes. */
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    size_t fr, total, k = 0;
    mem_info(&fr, &total);
    assert_int_equal(fr, total);
    while (k < 1984 && aclrtCreateStream(&streams[k]) == ACL_SUCCESS)
        k++;
    assert_int_equal(k, 1983);
    expect_no_stream_left();
    assert_int_equal(aclrtResetDeviceForce(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, up, down)
    const struct CMUnitTest tests[] = {
        T(test_device_memory_until_207001_then_recovery),
        T(test_huge_pages_exhausted),
        T(test_streams_to_the_limit_then_recovery),
        T(test_events_to_the_limit_then_recovery),
        T(test_host_memory_failing_under_every_call),
    };
    return cmocka_run_group_tests_name("adversarial exhaustion", tests, NULL, NULL);
}
