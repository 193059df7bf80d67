/*
 * test_alloccheck.c - the allocator sanitizer (ACLSIM_ALLOC_CHECK, default
 * warn) against correct and wrong uses of one pool allocator whose block
 * is the device address: what is reported, what is not (stream order,
 * events and synchronisation make reuse safe), and that the reports come
 * from simulated time, so the same calls give the same reports.
 * tests/meta/wrong_allocator.c holds the must-fail programs (exit 25).
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "testutil.h"
#include "acl/acl_op.h"
#include "acl/acl_rt_allocator.h"
#include "aclsim/aclsim.h"

/* A pool of four 4 KiB slots; freed slots go back to one free list. */
static void *chunk;
static int free_list[4], n_free;

static void *p_alloc(aclrtAllocator a, size_t n)
{
    (void)a;
    if (n > 4096 || n_free == 0)
        return NULL;
    return (char *)chunk + free_list[--n_free] * 4096;
}
static void p_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    (void)a;
    free_list[n_free++] = (int)(((char *)b - (char *)chunk) / 4096);
}
static void *p_addr(aclrtAllocatorBlock b) { return b; }

static int obj_a, obj_b;
static aclrtStream A, B;
static aclrtAllocatorDesc DA, DB;
static aclTensorDesc *td;
static aclDataBuffer *x, *y;
static void *dx, *dy;

static aclrtAllocatorDesc desc(int *obj)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    aclrtAllocatorSetObjToDesc(d, obj);
    aclrtAllocatorSetAllocFuncToDesc(d, p_alloc);
    aclrtAllocatorSetFreeFuncToDesc(d, p_free);
    aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, p_addr);
    return d;
}

/* Fresh streams with the pool registered (two allocators over it). */
static int setup(void **state)
{
    (void)state;
    n_free = 4;
    for (int i = 0; i < 4; i++)
        free_list[i] = 3 - i;
    int64_t dims[1] = {256};
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&A) || aclrtCreateStream(&B) ||
        aclrtMalloc(&chunk, 4 * 4096, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&dx, 1024, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&dy, 1024, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMemset(dx, 1024, 0, 1024))
        return -1;
    DA = desc(&obj_a);
    DB = desc(&obj_b);
    if (aclrtAllocatorRegister(A, DA) || aclrtAllocatorRegister(B, DB))
        return -1;
    td = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    x = aclCreateDataBuffer(dx, 1024);
    y = aclCreateDataBuffer(dy, 1024);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclrtSynchronizeDevice();
    aclrtAllocatorUnregister(A);
    aclrtAllocatorUnregister(B);
    aclrtAllocatorDestroyDesc(DA);
    aclrtAllocatorDestroyDesc(DB);
    aclDestroyTensorDesc(td);
    aclDestroyDataBuffer(x);
    aclDestroyDataBuffer(y);
    aclrtFree(dx);
    aclrtFree(dy);
    aclrtFree(chunk);
    aclrtDestroyStream(A);
    aclrtDestroyStream(B);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

static void add(aclrtStream s)
{
    aclTensorDesc *in[2] = {td, td};
    aclDataBuffer *ib[2] = {x, x};
    assert_int_equal(aclopExecuteV2("Add", 2, in, ib, 1, &td, &y, NULL, s), ACL_SUCCESS);
}

static unsigned long n(const char *kind)
{
    return aclsim_alloc_check_reports(kind);
}

static void test_same_stream_reuse_is_clean(void **state)
{
    (void)state;
    unsigned long before = n(NULL);
    for (int i = 0; i < 8; i++)
        add(A); /* the same slot every time, in A's order */
    assert_int_equal(aclrtSynchronizeStream(A), ACL_SUCCESS);
    assert_int_equal(n(NULL), before);
}

static void test_cross_stream_reuse_reported_and_an_event_orders_it(void **state)
{
    (void)state;
    unsigned long before = n("cross-stream-reuse");
    add(A);
    add(B); /* B's Add gets the slot A's Add still uses */
    assert_int_equal(n("cross-stream-reuse"), before + 1);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    /* The same with an event recorded after A's Add and waited on by B. */
    aclrtEvent e;
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    add(A);
    assert_int_equal(aclrtRecordEvent(e, A), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(B, e), ACL_SUCCESS);
    add(B);
    assert_int_equal(n("cross-stream-reuse"), before + 1);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    /* And with a synchronisation in between. */
    add(A);
    assert_int_equal(aclrtSynchronizeStream(A), ACL_SUCCESS);
    add(B);
    assert_int_equal(n("cross-stream-reuse"), before + 1);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    aclrtDestroyEvent(e);
}

static void test_async_copy_into_a_pending_block_reported(void **state)
{
    (void)state;
    unsigned long before = n("cross-stream-reuse");
    add(A);
    void *slot = p_alloc(&obj_b, 4096); /* the slot A's Add just freed */
    assert_int_equal(aclrtMemsetAsync(slot, 4096, 0, 4096, B), ACL_SUCCESS);
    assert_int_equal(n("cross-stream-reuse"), before + 1);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(slot, 4096, 0, 4096, B), ACL_SUCCESS); /* now it's done */
    assert_int_equal(n("cross-stream-reuse"), before + 1);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    p_free(&obj_b, slot);
}

static void test_host_copy_after_sync_is_clean_before_is_reported(void **state)
{
    (void)state;
    static char host[4096];
    unsigned long before = n("host-reuse");
    add(A);
    void *slot = p_alloc(&obj_a, 4096);
    assert_int_equal(aclrtMemcpy(slot, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(n("host-reuse"), before + 1);
    assert_int_equal(aclrtSynchronizeStream(A), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(slot, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(n("host-reuse"), before + 1);
    p_free(&obj_a, slot);
}

static void test_unregister_after_sync_is_clean(void **state)
{
    (void)state;
    unsigned long before = n(NULL);
    add(A);
    assert_int_equal(aclrtSynchronizeStream(A), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(A), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorRegister(A, DA), ACL_SUCCESS);
    assert_int_equal(n(NULL), before);
}

/* The same calls after a clock reset report the same simulated times. */
static void test_reports_are_deterministic(void **state)
{
    (void)state;
    char path[] = "/tmp/aclsim-alloccheck-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    for (int round = 0; round < 2; round++) {
        assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
        assert_int_equal(aclsim_clock_reset(), ACL_SUCCESS);
        add(A);
        add(B);
    }
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    static char text[1 << 16];
    memset(text, 0, sizeof text);
    assert_true(pread(fd, text, sizeof text - 1, 0) > 0);
    close(fd);
    unlink(path);
    /* Two reports (one per round: one race of the two Adds); the simulated
     * times they show as illustration agree to the last digit. */
    static const char tag[] = "(simulated times, for illustration only: ";
    const char *r1 = strstr(text, tag), *r2 = r1 ? strstr(r1 + 1, tag) : NULL;
    assert_non_null(r1);
    assert_non_null(r2);
    assert_null(strstr(r2 + 1, tag));
    const char *e1 = strchr(r1, ')'), *e2 = strchr(r2, ')');
    assert_non_null(e1);
    assert_non_null(e2);
    assert_int_equal(e1 - r1, e2 - r2);
    assert_memory_equal(r1, r2, (size_t)(e1 - r1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_stream_reuse_is_clean),
        cmocka_unit_test(test_cross_stream_reuse_reported_and_an_event_orders_it),
        cmocka_unit_test(test_async_copy_into_a_pending_block_reported),
        cmocka_unit_test(test_host_copy_after_sync_is_clean_before_is_reported),
        cmocka_unit_test(test_unregister_after_sync_is_clean),
        cmocka_unit_test(test_reports_are_deterministic),
    };
    return cmocka_run_group_tests_name("alloccheck", tests, setup, teardown);
}
