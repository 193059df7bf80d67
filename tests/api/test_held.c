/*
 * test_held.c - work behind a wait that holds a stream waits its turn, of
 * every kind: operators (aclopExecuteV2), callbacks (aclrtLaunchCallback,
 * aclrtLaunchHostFunc) and device tasks behind a notify wait
 * (aclrtWaitAndResetNotify) or a value wait (aclrtValueWait) run when the
 * wait is released, on the device bytes of that moment, and the allocator
 * sanitizer keeps a held operator's blocks pending until it has run.
 *
 * The expected values follow from stream order. Both waits block the
 * stream's later tasks until they are satisfied and are asynchronous
 * (hicann/runtime docs/api_docs/aclrtWaitAndResetNotify.md,
 * aclrtValueWait.md), and a callback is a task in the stream's task queue
 * whose function runs when the stream reaches it; a blocking one (every
 * host function) blocks the stream's later tasks until it has run
 * (docs/api_docs/aclrtLaunchCallback.md). So a task enqueued behind a wait
 * reads what was written before the record that released it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "testutil.h"
#include "acl/acl_op.h"
#include "acl/acl_rt_allocator.h"
#include "aclsim/aclsim.h"

enum { N = 8 };
static const size_t BYTES = N * sizeof(float);

static aclrtStream waiter, producer;
static void *x, *y;
static aclTensorDesc *td;
static aclDataBuffer *xb, *yb;

static uint64_t me(void)
{
    return (uint64_t)pthread_self();
}

static void fill(void *dev, float v)
{
    float h[N];
    for (int i = 0; i < N; i++)
        h[i] = v;
    assert_int_equal(aclrtMemcpy(dev, BYTES, h, BYTES, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
}

/* The first float at dev, read by the host now. */
static float first(const void *dev)
{
    float h[N];
    assert_int_equal(aclrtMemcpy(h, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return h[0];
}

/* An async host-to-device copy of v into every float at dev, on s. */
static void put_async(void *dev, float v, aclrtStream s)
{
    static float h[4][N];
    static int next;
    float *src = h[next++ % 4];
    for (int i = 0; i < N; i++)
        src[i] = v;
    assert_int_equal(aclrtMemcpyAsync(dev, BYTES, src, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s),
                     ACL_SUCCESS);
}

static void sync_both(void)
{
    assert_int_equal(aclrtSynchronizeStream(producer), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS);
}

static void neg(aclrtStream s)
{
    assert_int_equal(aclopExecuteV2("Neg", 1, &td, &xb, 1, &td, &yb, NULL, s), ACL_SUCCESS);
}

static int setup(void **state)
{
    (void)state;
    setenv("ACLSIM_HBM_BYTES", "67108864", 1);
    setenv("ACLSIM_WAIT_GRACE_MS", "20", 1);
    int64_t dims[1] = {N};
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtMalloc(&x, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&y, BYTES, ACL_MEM_MALLOC_HUGE_FIRST))
        return -1;
    td = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    xb = aclCreateDataBuffer(x, BYTES);
    yb = aclCreateDataBuffer(y, BYTES);
    return td && xb && yb ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    aclDestroyTensorDesc(td);
    aclDestroyDataBuffer(xb);
    aclDestroyDataBuffer(yb);
    aclrtFree(x);
    aclrtFree(y);
    aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

/* Each test has its own two streams, and starts with x = 1, y = 0. A
 * failed test's streams go with what still holds them. */
static int fresh(void **state)
{
    (void)state;
    if (aclrtCreateStream(&waiter) || aclrtCreateStream(&producer))
        return -1;
    fill(x, 1);
    fill(y, 0);
    return 0;
}

static int done(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    aclrtDestroyStream(waiter);
    aclrtDestroyStream(producer);
    return 0;
}

/* ---- Operators ---- */

static void test_operator_behind_notify_wait_reads_input_written_before_the_record(void **state)
{
    (void)state;
    aclrtNotify n;
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, waiter, 0), ACL_SUCCESS);
    neg(waiter);
    assert_true(first(y) == 0.0f); /* held: not computed yet */
    put_async(x, 5, producer);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    uint64_t record_at = 0, done_at = 0;
    assert_int_equal(aclsim_clock_stream(producer, &record_at), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(producer), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS);
    assert_int_equal(aclsim_clock_stream(waiter, &done_at), ACL_SUCCESS);
    assert_true(done_at > record_at); /* the operator ran after the record */
    assert_true(first(y) == -5.0f);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
}

static void test_operator_behind_value_wait_reads_input_written_before_the_write(void **state)
{
    (void)state;
    void *flag;
    assert_int_equal(aclrtMalloc(&flag, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(flag, 64, 0, 64), ACL_SUCCESS);
    assert_int_equal(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_GEQ, waiter), ACL_SUCCESS);
    neg(waiter);
    assert_true(first(y) == 0.0f);
    put_async(x, 5, producer);
    assert_int_equal(aclrtValueWrite(flag, 1, 0, producer), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(producer), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS);
    assert_true(first(y) == -5.0f);
    assert_int_equal(aclrtFree(flag), ACL_SUCCESS);
}

/* Operators queued behind one wait run in their order, each on the bytes
 * the one before it wrote; a host-memory input is taken when the operator
 * is enqueued (the simulator stages it as it stages the host source of an
 * async copy), so the program may reuse its buffer at once. */
static void test_held_operators_run_in_order_with_host_inputs_taken_at_enqueue(void **state)
{
    (void)state;
    aclrtNotify n;
    float c[N];
    for (int i = 0; i < N; i++)
        c[i] = 10;
    aclTensorDesc *hd = aclCreateTensorDesc(ACL_FLOAT, 1, (int64_t[]){N}, ACL_FORMAT_ND);
    assert_non_null(hd);
    assert_int_equal(aclSetTensorPlaceMent(hd, ACL_MEMTYPE_HOST), ACL_SUCCESS);
    aclDataBuffer *cb = aclCreateDataBuffer(c, sizeof c);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, waiter, 0), ACL_SUCCESS);
    neg(waiter); /* y = -x */
    aclTensorDesc *in_d[2] = {td, hd};
    aclDataBuffer *in_b[2] = {yb, cb};
    /* x = y + c, with c as it is now */
    assert_int_equal(aclopExecuteV2("Add", 2, in_d, in_b, 1, &td, &xb, NULL, waiter), ACL_SUCCESS);
    for (int i = 0; i < N; i++)
        c[i] = 1000; /* too late for the queued Add */
    put_async(x, 5, producer);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    sync_both();
    assert_true(first(y) == -5.0f);
    assert_true(first(x) == 5.0f); /* -5 + 10 */
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    aclDestroyDataBuffer(cb);
    aclDestroyTensorDesc(hd);
}

/* ---- Callbacks ---- */

static atomic_int calls;
static float seen;
static float host_buf[N];
static aclrtEvent seen_event;
static aclrtEventRecordedStatus event_status;

/* What a callback sees: the host buffer the copies before it wrote, and
 * whether the event recorded before it has completed. */
static void look(void *user)
{
    (void)user;
    seen = host_buf[0];
    assert_int_equal(aclrtQueryEventStatus(seen_event, &event_status), ACL_SUCCESS);
    atomic_fetch_add(&calls, 1);
}

static void copy_out(const void *dev, aclrtStream s)
{
    assert_int_equal(aclrtMemcpyAsync(host_buf, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s),
                     ACL_SUCCESS);
}

static void test_callback_behind_notify_wait_runs_after_the_release(void **state)
{
    (void)state;
    aclrtNotify n;
    atomic_store(&calls, 0);
    host_buf[0] = 0;
    fill(y, 7);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&seen_event), ACL_SUCCESS);
    assert_int_equal(aclrtSubscribeReport(me(), waiter), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, waiter, 0), ACL_SUCCESS);
    copy_out(x, waiter);
    assert_int_equal(aclrtRecordEvent(seen_event, waiter), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchCallback(look, NULL, ACL_CALLBACK_BLOCK, waiter), ACL_SUCCESS);
    copy_out(y, waiter); /* behind the blocking callback */
    /* Held: nothing is ready for this thread, and no other thread can
     * release the stream, so the wait for a callback times out. */
    assert_int_equal(aclrtProcessReport(20), ACL_ERROR_RT_REPORT_TIMEOUT);
    assert_int_equal(atomic_load(&calls), 0);
    put_async(x, 5, producer);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    assert_int_equal(aclrtProcessReport(1000), ACL_SUCCESS);
    assert_int_equal(atomic_load(&calls), 1);
    assert_true(seen == 5.0f); /* the released copy ran, the one behind it not yet */
    assert_int_equal(event_status, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_int_equal(aclrtSynchronizeStream(waiter), ACL_SUCCESS);
    assert_true(host_buf[0] == 7.0f);
    assert_int_equal(aclrtUnSubscribeReport(me(), waiter), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(seen_event), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
}

static void test_host_func_behind_notify_wait_runs_after_the_release(void **state)
{
    (void)state;
    aclrtNotify n;
    aclrtStream s;
    atomic_store(&calls, 0);
    host_buf[0] = 0;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&seen_event), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    copy_out(x, s);
    assert_int_equal(aclrtRecordEvent(seen_event, s), ACL_SUCCESS);
    assert_int_equal(aclrtLaunchHostFunc(s, look, NULL), ACL_SUCCESS);
    /* A host function blocks its stream until it has run, so a
     * synchronisation waits for it once the stream reaches it. Held, the
     * stream has not, and the bounded synchronisation times out on the
     * wait that nothing satisfies. */
    FAILS(aclrtSynchronizeStreamWithTimeout(s, 10), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    assert_int_equal(atomic_load(&calls), 0);
    put_async(x, 5, producer);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(atomic_load(&calls), 1);
    assert_true(seen == 5.0f);
    assert_int_equal(event_status, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_int_equal(aclrtDestroyEvent(seen_event), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

/* ---- Device tasks ---- */

static void test_device_task_behind_notify_wait_reads_input_written_before_the_record(void **state)
{
    (void)state;
    aclrtNotify n;
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, waiter, 0), ACL_SUCCESS);
    /* x += x */
    assert_int_equal(aclrtReduceAsync(x, x, BYTES, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT,
                                      waiter, NULL),
                     ACL_SUCCESS);
    assert_true(first(x) == 1.0f);
    put_async(x, 5, producer);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    sync_both();
    assert_true(first(x) == 10.0f);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
}

/* ---- The allocator sanitizer ---- */

/* An allocator whose blocks come from aclrtMalloc and whose free keeps
 * them (an empty-cache frees them later), as a caching allocator does. */
static void *kept[16];
static int n_kept;
static int obj;

static void *fresh_alloc(aclrtAllocator a, size_t size)
{
    (void)a;
    void *p = NULL;
    if (n_kept == 16 || aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    return p;
}

static void fresh_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    (void)a;
    kept[n_kept++] = b;
}

static void *same(aclrtAllocatorBlock b)
{
    return b;
}

static aclrtAllocatorDesc fresh_desc(void)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    aclrtAllocatorSetObjToDesc(d, &obj);
    aclrtAllocatorSetAllocFuncToDesc(d, fresh_alloc);
    aclrtAllocatorSetFreeFuncToDesc(d, fresh_free);
    aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, same);
    return d;
}

/* Free every kept block now (without synchronising). */
static void empty_cache(void)
{
    for (int i = 0; i < n_kept; i++)
        assert_int_equal(aclrtFree(kept[i]), ACL_SUCCESS);
    n_kept = 0;
}

/* A held operator's blocks stay in use until it has run: freeing one
 * before the wait is released is reported however much simulated time has
 * passed meanwhile, freeing one after the operator ran and the stream was
 * synchronised is not. */
static void test_held_operator_blocks_pend_until_it_has_run(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    aclrtAllocatorDesc d = fresh_desc();
    assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    unsigned long before = aclsim_alloc_check_reports("free-while-pending");
    unsigned long all = aclsim_alloc_check_reports(NULL);

    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    neg(s);
    assert_int_equal(n_kept, 1); /* its tiling block, freed right after the launch */
    /* A millisecond of simulated time: far longer than the operator takes. */
    FAILS(aclrtSynchronizeStreamWithTimeout(s, 1), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    empty_cache();
    assert_int_equal(aclsim_alloc_check_reports("free-while-pending"), before + 1);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);

    /* Once it has run and the stream is synchronised, its blocks are free. */
    before = aclsim_alloc_check_reports(NULL);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    neg(s);
    assert_int_equal(n_kept, 1);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    empty_cache();
    assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    assert_int_equal(aclsim_alloc_check_reports(NULL), before);
    assert_true(before == all + 1);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

/* Two allocators over one free list on two streams: the block a held
 * operator of one stream still uses, filled by the other stream before
 * the wait is released, is cross-stream reuse; after it has run and
 * synchronised, it is not. */
static void *slots;
static int slot_free[4], n_slot_free;

static void *slot_alloc(aclrtAllocator a, size_t size)
{
    (void)a;
    if (size > 4096 || n_slot_free == 0)
        return NULL;
    return (char *)slots + slot_free[--n_slot_free] * 4096;
}

static void slot_back(aclrtAllocator a, aclrtAllocatorBlock b)
{
    (void)a;
    slot_free[n_slot_free++] = (int)(((char *)b - (char *)slots) / 4096);
}

static void test_held_operator_block_reused_by_another_stream_is_reported(void **state)
{
    (void)state;
    aclrtStream a, b;
    aclrtNotify n;
    static int obj_a, obj_b;
    assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&slots, 4 * 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    n_slot_free = 4;
    for (int i = 0; i < 4; i++)
        slot_free[i] = 3 - i;
    aclrtAllocatorDesc da = aclrtAllocatorCreateDesc(), db = aclrtAllocatorCreateDesc();
    aclrtAllocatorSetObjToDesc(da, &obj_a);
    aclrtAllocatorSetObjToDesc(db, &obj_b);
    aclrtAllocatorDesc both[2] = {da, db};
    for (int i = 0; i < 2; i++) {
        aclrtAllocatorSetAllocFuncToDesc(both[i], slot_alloc);
        aclrtAllocatorSetFreeFuncToDesc(both[i], slot_back);
        aclrtAllocatorSetGetAddrFromBlockFuncToDesc(both[i], same);
    }
    assert_int_equal(aclrtAllocatorRegister(a, da), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorRegister(b, db), ACL_SUCCESS);
    unsigned long before = aclsim_alloc_check_reports("cross-stream-reuse");

    assert_int_equal(aclrtWaitAndResetNotify(n, a, 0), ACL_SUCCESS);
    neg(a);
    FAILS(aclrtSynchronizeStreamWithTimeout(a, 1), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    void *slot = slot_alloc(&obj_b, 4096); /* the slot the held Neg was given */
    assert_int_equal(aclrtMemsetAsync(slot, 4096, 0, 4096, b), ACL_SUCCESS);
    assert_int_equal(aclsim_alloc_check_reports("cross-stream-reuse"), before + 1);
    slot_back(&obj_b, slot);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    sync_both();
    assert_int_equal(aclrtSynchronizeStream(a), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
    slot = slot_alloc(&obj_b, 4096);
    assert_int_equal(aclrtMemsetAsync(slot, 4096, 0, 4096, b), ACL_SUCCESS);
    assert_int_equal(aclsim_alloc_check_reports("cross-stream-reuse"), before + 1);
    slot_back(&obj_b, slot);

    assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(a), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(b), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(da), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(db), ACL_SUCCESS);
    assert_int_equal(aclrtFree(slots), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(a), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(b), ACL_SUCCESS);
}

/* An allocator unregistered after its held operator ran and the stream
 * synchronised is not reported as going while work is pending. */
static void test_unregister_after_held_operator_ran_is_clean(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    aclrtAllocatorDesc d = fresh_desc();
    assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    unsigned long before = aclsim_alloc_check_reports(NULL);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    neg(s);
    assert_int_equal(aclrtRecordNotify(n, producer), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    empty_cache();
    assert_int_equal(aclsim_alloc_check_reports(NULL), before);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, fresh, done)
    const struct CMUnitTest tests[] = {
        T(test_operator_behind_notify_wait_reads_input_written_before_the_record),
        T(test_operator_behind_value_wait_reads_input_written_before_the_write),
        T(test_held_operators_run_in_order_with_host_inputs_taken_at_enqueue),
        T(test_callback_behind_notify_wait_runs_after_the_release),
        T(test_host_func_behind_notify_wait_runs_after_the_release),
        T(test_device_task_behind_notify_wait_reads_input_written_before_the_record),
        T(test_held_operator_blocks_pend_until_it_has_run),
        T(test_held_operator_block_reused_by_another_stream_is_reported),
        T(test_unregister_after_held_operator_ran_is_clean),
    };
    return cmocka_run_group_tests_name("held", tests, setup, teardown);
}
